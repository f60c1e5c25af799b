/* cmax rate (docs/rate.md). */
#ifndef CMAX_RATE_H
#define CMAX_RATE_H
int cmd_rate(int argc, char **argv);
#endif
