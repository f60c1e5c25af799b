/* What went wrong, as library code sees it (CodingStyle.md, "Errors and exit
 * codes"). A loader or writer says which kind of failure it met; only a
 * command turns that into its process exit status, with exit_code_for()
 * (core/exitcodes.h) or its own rule where its contract says otherwise.
 *
 * The values start at 3 and stay small, so none equals an exit code
 * (0, 1, 2, 64-77, 129-143): a value that leaks out of a command unmapped
 * is caught by the tests that assert exit codes. */
#ifndef CMAX_ERROR_H
#define CMAX_ERROR_H

enum cmax_err {
	CE_OK = 0,
	CE_USAGE = 3,       /* a bad argument or setting (an override variable, an address) */
	CE_NOINPUT,         /* an input is missing or cannot be opened */
	CE_DATA,            /* an input's contents are bad: not JSON/YAML, a schema violation, too large */
	CE_CANTCREAT,       /* an output cannot be written, or would be unsafe to write */
	CE_OS,              /* the OS refused something needed (memory, fork, a timer) */
	CE_UNAVAILABLE,     /* a service or resource cmax needs is not there (a port in use) */
	CE_INTERNAL,        /* a bug in cmax: a schema that does not compile, a document that fails its own */
};
#endif
