/* cmax sla (docs/sla.md). */
#ifndef CMAX_SLA_H
#define CMAX_SLA_H
int cmd_sla(int argc, char **argv);
#endif
