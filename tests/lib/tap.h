/* A tiny TAP test library (git's test-lib idea, for C unit tests).
 * Each assertion prints "ok N - name" or "not ok N - name"; t_done() prints
 * the plan and returns the exit status (non-zero when anything failed).
 * tests/run-all.sh counts the lines. */
#ifndef CMAX_TAP_H
#define CMAX_TAP_H
#include <stdio.h>
#include <string.h>
#include <stdarg.h>

static int tap_n, tap_failed;

static inline int t_ok_(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	printf("%sok %d - ", ok ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return ok;
}

#define T_OK(cond, ...) t_ok_(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
static inline int t_streq_(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

#define T_STREQ(got, want, ...) \
	(t_ok_(t_streq_((got), (want)), __FILE__, __LINE__, __VA_ARGS__) || \
	 (printf("#   got:  '%s'\n#   want: '%s'\n", (got) ? (got) : "(null)", (want) ? (want) : "(null)"), 0))
#define T_INTEQ(got, want, ...) \
	(t_ok_((long long)(got) == (long long)(want), __FILE__, __LINE__, __VA_ARGS__) || \
	 (printf("#   got:  %lld\n#   want: %lld\n", (long long)(got), (long long)(want)), 0))

static inline int t_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
#endif
