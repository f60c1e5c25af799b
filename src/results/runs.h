/* The pieces of `cmax runs` (runs.c) shared by its action files
 * (runs-diff.c, runs-import.c): the options and the store they act on. */
#ifndef CMAX_RESULTS_RUNS_H
#define CMAX_RESULTS_RUNS_H
#include <jansson.h>
#include "store/store.h"

struct runs_opts {
	const char *kind, *cluster, *since, *store, *output_file;
	long long limit;
	double tolerance;   /* percent; NAN: not given */
	int json, all, exit_code, yes, dry_run, verbose;
	const char *action;
	const char **args;  /* the positionals after the action, borrowed */
	size_t nargs;
};

/* The store of --store / $CMAX_STORE / the default: 0 and *s, or the exit
 * code after one line on stderr. */
int runs_open(const struct runs_opts *o, struct store **s);
/* A store error in the command's voice (password-free): the exit code. */
int runs_fail(enum cmax_err e, char *why);
/* Pretty JSON with a trailing newline on stdout. */
void runs_print_json(const json_t *v);

int runs_diff(const struct runs_opts *o);
int runs_import(const struct runs_opts *o);
#endif
