/* See usage.h. */
#include "core/usage.h"
#include "core/exitcodes.h"

#include <stdio.h>

int usage_fail(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "cmax %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see cmax %s --help)\n", cmd);
	return EXIT_USAGE;
}
