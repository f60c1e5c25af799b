/* The one mapping from library errors to exit codes (core/exitcodes.h). */
#include "core/exitcodes.h"

int exit_code_for(enum cmax_err e)
{
	switch (e) {
	case CE_OK: return EXIT_OK;
	case CE_USAGE: return EXIT_USAGE;
	case CE_NOINPUT: return EXIT_NOINPUT;
	case CE_DATA: return EXIT_DATAERR;
	case CE_CANTCREAT: return EXIT_CANTCREAT;
	case CE_OS: return EXIT_OSERR;
	case CE_UNAVAILABLE: return EXIT_UNAVAILABLE;
	case CE_INTERNAL: return EXIT_SOFTWARE;
	}
	return EXIT_SOFTWARE; /* not a cmax_err: a bug */
}
