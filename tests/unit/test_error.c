/* src/core/error.c: each library error maps to its exit code, and no
 * library error equals an exit code, so one that leaks out of a command
 * unmapped shows in the tests that assert exit codes. */
#include "tap.h"
#include "core/exitcodes.h"

int main(void)
{
	static const struct {
		enum cmax_err e;
		int code;
	} map[] = {
		{ CE_OK, EXIT_OK }, { CE_USAGE, EXIT_USAGE }, { CE_NOINPUT, EXIT_NOINPUT }, { CE_DATA, EXIT_DATAERR },
		{ CE_CANTCREAT, EXIT_CANTCREAT }, { CE_OS, EXIT_OSERR }, { CE_UNAVAILABLE, EXIT_UNAVAILABLE },
		{ CE_INTERNAL, EXIT_SOFTWARE },
	};
	static const int codes[] = { EXIT_OK, EXIT_UNHEALTHY, EXIT_FINDINGS, EXIT_USAGE, EXIT_DATAERR, EXIT_NOINPUT,
				     EXIT_UNAVAILABLE, EXIT_SOFTWARE, EXIT_OSERR, EXIT_CANTCREAT, EXIT_TIMEOUT,
				     EXIT_NOPERM, EXIT_SIGHUP, EXIT_SIGINT, EXIT_SIGTERM };
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
		T_INTEQ(exit_code_for(map[i].e), map[i].code, "error %d maps to exit code %d", (int)map[i].e,
			map[i].code);
		if (map[i].e == CE_OK)
			continue;
		int clash = 0;
		for (size_t j = 0; j < sizeof codes / sizeof codes[0]; j++)
			clash |= (int)map[i].e == codes[j];
		T_OK(!clash, "  error %d is no exit code", (int)map[i].e);
	}
	T_INTEQ(exit_code_for((enum cmax_err)99), EXIT_SOFTWARE, "a value that is no error is a bug (70)");
	return t_done();
}
