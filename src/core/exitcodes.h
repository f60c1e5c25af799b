/* Every exit status cmax can return, in one place (documented in README and cmax(1)). */
#ifndef CMAX_EXITCODES_H
#define CMAX_EXITCODES_H
#include "core/error.h"

enum cmax_exit {
	EXIT_OK = 0,            /* ran; results written (FAIL rows included, except for security) */
	EXIT_UNHEALTHY = 1,     /* `health`: a new event needs reset_gpu or more (node drained, or would be) */
	EXIT_FINDINGS = 2,      /* `audit security` (or --fail-on) saw a FAIL row */
	EXIT_USAGE = 64,        /* bad flag, bad argument, missing explicit target without a TTY */
	EXIT_DATAERR = 65,      /* an input file (minimum table, catalog, run dir) is broken */
	EXIT_NOINPUT = 66,      /* an input file or run directory does not exist */
	EXIT_UNAVAILABLE = 69,  /* a service cmax talks to is unreachable or failing (bench s3 endpoint) */
	EXIT_SOFTWARE = 70,     /* internal error: a bug in cmax */
	EXIT_OSERR = 71,        /* the OS refused something cmax needs (fork, pipe, memory) */
	EXIT_CANTCREAT = 73,    /* the output directory or a report file cannot be written */
	EXIT_TIMEOUT = 75,      /* the global --timeout budget ran out before the plan finished */
	EXIT_NOPERM = 77,       /* credentials missing or refused (bench s3) */
	EXIT_SIGHUP = 129,      /* stopped by SIGHUP: what was gathered is written, marked partial (core/interrupt.h) */
	EXIT_DECLINED = 130,    /* the operator answered No (or Ctrl-C) at the confirmation */
	EXIT_SIGINT = 130,      /* stopped by SIGINT (Ctrl-C): the report so far is written, marked partial */
	EXIT_SIGTERM = 143,     /* stopped by SIGTERM: as SIGINT */
};

/* The exit code a command gives for a library error (core/error.h), for
 * commands with no rule of their own; command code only. */
int exit_code_for(enum cmax_err e);

#endif
