/* `cmax runs` (the results store: list, show, diff, export, rm, import)
 * and `cmax report` (HTML and Markdown pages of runs and result files). */
#ifndef CMAX_RESULTS_CMD_H
#define CMAX_RESULTS_CMD_H
#include "core/options.h"

int cmd_runs(int argc, char **argv);
extern const struct opt_def runs_options[];
int cmd_report(int argc, char **argv);
extern const struct opt_def report_options[];
#endif
