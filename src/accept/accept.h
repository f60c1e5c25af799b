/* cmax accept (docs/accept.md). */
#ifndef CMAX_ACCEPT_H
#define CMAX_ACCEPT_H
int cmd_accept(int argc, char **argv);
#endif
