/* The one-line usage error of every command, in one shape:
 * "cmax CMD: WHAT (see cmax CMD --help)" on stderr. */
#ifndef CMAX_USAGE_H
#define CMAX_USAGE_H

/* fmt holds at most one %s, for arg. Returns EXIT_USAGE: a command's usage
 * error, printed in its voice, is its exit status (not a library error,
 * core/error.h). */
int usage_fail(const char *cmd, const char *fmt, const char *arg);
#endif
