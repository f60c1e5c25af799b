/* cmax accept (docs/accept.md). */
#ifndef CMAX_ACCEPT_H
#define CMAX_ACCEPT_H
#include "core/options.h"
int cmd_accept(int argc, char **argv);
extern const struct opt_def accept_options[];
#endif
