/* Run directories: ~/.cmax/audit/<UTC timestamp>/ (or --output-dir), holding
 * audit.out, audit.values.json and audit.results.json. */
#ifndef CMAX_RUNDIR_H
#define CMAX_RUNDIR_H
#include <stddef.h>
#include <time.h>

/* Base directory for runs: $CMAX_HOME/audit, else $HOME/.cmax/audit. */
char *rundir_base(void);
/* The marker a run creates (O_EXCL) in the directory it claims. */
#define RUNDIR_MARKER ".cmax-run"
/* Before anything is gathered: can output_dir (or the default base) hold a
 * run directory? 0, or -1 with *err (one line). */
int rundir_check(const char *output_dir, char **err);
/* Create and claim a fresh run directory; returns its path or NULL with
 * *err. With output_dir: that directory, unless another run (concurrent or
 * earlier) holds it; then a fresh output_dir/<UTC timestamp>[-N]/ inside it
 * (the returned path differs from output_dir). Never another run's directory. */
char *rundir_create(const char *output_dir, time_t started, char **err);
/* Newest run directory under the base that holds audit.results.json. */
char *rundir_newest(void);
#endif
