/* Where a command's result document goes besides its own file: the
 * results store (store/store.h), a JUnit XML file for CI, and the
 * --fail-on gate. One option set with one meaning in every command that
 * writes a result document (OPTION_SINK below), one call at the end. */
#ifndef CMAX_SINK_H
#define CMAX_SINK_H
#include <jansson.h>
#include "core/options.h"

struct sink_opts {
	const char *store;   /* --store URL (NULL: CMAX_STORE, else the default SQLite file) */
	int no_store;        /* --no-store */
	const char *junit;   /* --junit FILE (NULL: none) */
	const char *fail_on; /* --fail-on LEVELS (NULL: no gate) */
	int verbose;         /* not an option: the command's -v, set before sink_finish (the run recorded is said) */
};

/* A paragraph for a command's help page: what the four options do. */
/* The four options, for a command's table: S its options struct, F the
 * struct sink_opts field in it. */
#define OPTION_SINK(S, F) \
	{ "store", 0, OPT_STRING, offsetof(S, F.store), "URL", \
	  "record the result in this store: a SQLite file or postgresql://... (default $CMAX_HOME/cmax.db)", NULL, 0, 0, \
	  NULL, NULL, OPTF_PATH }, \
	{ "no-store", 0, OPT_FLAG, offsetof(S, F.no_store), NULL, "do not record the result in the results store", NULL, 0, \
	  0, NULL, NULL, 0 }, \
	{ "junit", 0, OPT_STRING, offsetof(S, F.junit), "FILE", "also write the result rows as JUnit XML to FILE", NULL, 0, \
	  0, NULL, NULL, OPTF_PATH }, \
	{ "fail-on", 0, OPT_STRING, offsetof(S, F.fail_on), "LEVELS", \
	  "exit 2 when a row has one of LEVELS: WARN (WARN or FAIL), FAIL, ERROR, or a comma list", NULL, 0, 0, NULL, \
	  NULL, 0 }

/* Checks the options before the command does any work: a bad --fail-on
 * or an unwritable --junit path is a usage error (EXIT_USAGE / 73 after a
 * one-line message as "cmax WHO: ..."); -1 to go on. */
int sink_check(const struct sink_opts *o, const char *who);

/* At the end of a command that produced doc (written to path, or NULL):
 * records it in the store (a failure is a warning on stderr: the document
 * is the source of truth), writes --junit, applies --fail-on. Returns the
 * exit code the command should give: rc, or EXIT_FINDINGS (2) when rc is
 * EXIT_OK and the gate fires, or 73 when --junit cannot be written. */
int sink_finish(const struct sink_opts *o, const char *who, const json_t *doc, const char *path, int rc);
#endif
