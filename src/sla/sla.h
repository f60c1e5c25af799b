/* cmax sla (docs/sla.md). */
#ifndef CMAX_SLA_H
#define CMAX_SLA_H
#include "core/options.h"
int cmd_sla(int argc, char **argv);
/* Its options (cli.c): --help, the man page and the completion come from them. */
extern const struct opt_def sla_options[];
#endif
