/* The results store: every result document a command writes is also
 * recorded here, so runs can be listed, compared and reported on later
 * (docs/results-store.md). The document stays the source of truth: the
 * store keeps it whole, beside what is extracted from it for queries
 * (one row per run, per result row and per numeric figure), and a
 * document can always be imported again (`cmax runs import PATH`).
 *
 * Two backends behind one interface: SQLite (the default, embedded,
 * $CMAX_HOME/cmax.db, ~/.cmax/cmax.db when CMAX_HOME is unset) and
 * PostgreSQL (a "postgresql://" or "postgres://" URL, libpq) for a team
 * sharing one store. A SQLite file is for one host: never one file shared
 * over a network file system (its locks are not reliable there).
 *
 * Every write is one transaction; a busy database is waited for (busy
 * timeout, then retries), so parallel cmax commands on one host lose no
 * run. Recording the same document twice is a no-op: a run is keyed by
 * the digest of its canonical JSON. */
#ifndef CMAX_STORE_H
#define CMAX_STORE_H
#include <jansson.h>
#include "core/error.h"

struct store;

/* Opens (creating and migrating when needed) the store at url:
 *   NULL or ""            the default SQLite file (above)
 *   "sqlite:PATH", PATH   a SQLite file
 *   "postgresql://..."    a PostgreSQL database (libpq connection URI)
 * CE_OK and *out, or an error with a one-line *why (malloc'd; the caller
 * frees it) that never contains a password from the URL. */
enum cmax_err store_open(const char *url, struct store **out, char **why);
void store_close(struct store *s);
/* "sqlite:/root/.cmax/cmax.db" or "postgresql://host/db" (no password) */
const char *store_describe(const struct store *s);

/* Records a result document (any cmax result schema: audit results,
 * bench results, inject, reboot-test, sla, rate, rate compare, accept).
 * source: the path it was written to or read from (NULL: none). The new
 * or existing run's id goes to *run_id (malloc'd) when run_id is not
 * NULL; *created says whether it was new. */
enum cmax_err store_record(struct store *s, const json_t *doc, const char *source, char **run_id, int *created,
			   char **why);

/* What selects runs for a listing; NULL fields match everything. */
struct store_filter {
	const char *kind;     /* "audit", "bench.storage", "inject", "sla", ... */
	const char *cluster;
	const char *since;    /* ISO UTC: started at or after */
	long limit;           /* 0: no limit */
};

/* The runs, newest first, as a JSON array of objects:
 * {id, kind, schema, cluster, started_at, finished_at, recorded_at,
 *  tool_version, command, source, counts, verdict, rows, figures}. */
enum cmax_err store_list(struct store *s, const struct store_filter *f, json_t **runs, char **why);

/* One run by its id or a unique prefix of it: *doc the stored document,
 * *meta its listing object (either may be NULL when not wanted).
 * CE_NOINPUT when none matches, CE_USAGE when a prefix is ambiguous. */
enum cmax_err store_get(struct store *s, const char *ref, json_t **doc, json_t **meta, char **why);

/* Deletes one run (id or unique prefix) with its rows and figures. */
enum cmax_err store_remove(struct store *s, const char *ref, char **why);

#endif
