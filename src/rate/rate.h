/* cmax rate (docs/rate.md). */
#ifndef CMAX_RATE_H
#define CMAX_RATE_H
#include "core/options.h"
int cmd_rate(int argc, char **argv);
extern const struct opt_def rate_options[];
#endif
