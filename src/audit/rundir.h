/* Run directories: ~/.cmax/audit/<UTC timestamp>/ (or --output-dir), holding
 * audit.out, audit.values.json and audit.results.json. */
#ifndef CMAX_RUNDIR_H
#define CMAX_RUNDIR_H
#include <time.h>

/* Base directory for runs: $CMAX_HOME/audit, else $HOME/.cmax/audit. */
char *rundir_base(void);
/* Create a fresh run directory; returns its path or NULL with *err. */
char *rundir_create(const char *output_dir, time_t started, char **err);
/* Write a file atomically (temp + rename) inside dir; 0 or -errno. */
int rundir_write(const char *dir, const char *name, const char *data, size_t len);
/* Newest run directory under the base that holds audit.results.json. */
char *rundir_newest(void);
#endif
