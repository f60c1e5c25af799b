/* Inside the results store (store.c): the two backends, SQLite (sqlite.c)
 * and PostgreSQL (postgres.c), behind one small table of operations. The
 * record, list and get logic in store.c is written once against it; a
 * backend only runs statements and owns its connection and its schema
 * migrations (the DDL differs: STRICT tables and user_version in SQLite, a
 * version table under an advisory lock in PostgreSQL). Not for callers
 * outside src/store. */
#ifndef CMAX_STORE_BACKEND_H
#define CMAX_STORE_BACKEND_H
#include "core/error.h"
#include "store/store.h"

/* The schema version this cmax writes; a store of a higher one is refused
 * (made by a newer cmax), a lower one is migrated in a transaction. */
#define STORE_SCHEMA_VERSION 1

/* The tables of schema version 1, once for both backends: INT and REAL
 * are the backend's 64-bit integer and double types (SQLite's STRICT
 * tables know only INTEGER and REAL; PostgreSQL's REAL is a float4, so it
 * gets BIGINT and DOUBLE PRECISION), STRICT the table suffix. */
#define STORE_TABLES_V1(INT, REAL, STRICT)                                                                        \
	"CREATE TABLE runs ("                                                                                      \
	" id TEXT PRIMARY KEY,"                                                                                    \
	" digest TEXT NOT NULL UNIQUE,"                                                                            \
	" kind TEXT NOT NULL,"                                                                                     \
	" schema TEXT NOT NULL,"                                                                                   \
	" cluster TEXT,"                                                                                           \
	" started_at TEXT,"                                                                                        \
	" finished_at TEXT,"                                                                                       \
	" recorded_at TEXT NOT NULL,"                                                                              \
	" tool_version TEXT,"                                                                                      \
	" command TEXT,"                                                                                           \
	" source TEXT,"                                                                                            \
	" counts TEXT,"                                                                                            \
	" verdict TEXT,"                                                                                           \
	" nrows " INT " NOT NULL,"                                                                                 \
	" nfigures " INT " NOT NULL,"                                                                              \
	" document TEXT NOT NULL"                                                                                  \
	")" STRICT ";"                                                                                             \
	"CREATE INDEX runs_by_kind ON runs (kind, started_at);"                                                    \
	"CREATE INDEX runs_by_cluster ON runs (cluster, started_at);"                                              \
	"CREATE TABLE rows ("                                                                                      \
	" run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"                                            \
	" seq " INT " NOT NULL,"                                                                                   \
	" row_id TEXT,"                                                                                            \
	" host TEXT,"                                                                                              \
	" status TEXT,"                                                                                            \
	" summary TEXT,"                                                                                           \
	" PRIMARY KEY (run_id, seq)"                                                                               \
	")" STRICT ";"                                                                                             \
	"CREATE TABLE figures ("                                                                                   \
	" run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"                                            \
	" row_seq " INT " NOT NULL,"                                                                               \
	" path TEXT NOT NULL,"                                                                                     \
	" value " REAL " NOT NULL,"                                                                                \
	" PRIMARY KEY (run_id, row_seq, path)"                                                                     \
	")" STRICT ";"

/* One result row of a query: its columns as text, NULL for SQL NULL.
 * Nonzero stops the query early (not an error). */
typedef int (*store_row_fn)(void *ctx, int ncol, const char *const *vals);

/* Row functions for a one-value query: the first column of the first row,
 * as a malloc'd string into a char ** (left NULL when there is none), or
 * as a long into a long * (0 for NULL). */
int store_row_text(void *ctx, int ncol, const char *const *vals);
int store_row_long(void *ctx, int ncol, const char *const *vals);

struct store_ops {
	/* One statement with '?' placeholders and text parameters (NULL:
	 * SQL NULL); fn, when not NULL, sees each result row. */
	enum cmax_err (*exec)(struct store *s, const char *sql, int n, const char *const *params, store_row_fn fn,
			      void *ctx, char **why);
	/* Begins a write transaction: in SQLite one that takes the write
	 * lock at once (BEGIN IMMEDIATE), so two writers never deadlock. */
	enum cmax_err (*begin)(struct store *s, char **why);
	void (*close)(struct store *s);
};

struct store {
	const struct store_ops *ops;
	void *conn;
	char *desc; /* store_describe: no password */
	int busy;   /* the last failure was a busy or conflicting database: the transaction may be retried */
};

/* path: a SQLite file; make_dir: create its directory (0700) when missing
 * (the default store under the cmax home). */
enum cmax_err store_sqlite_open(const char *path, int make_dir, struct store **out, char **why);
/* url: a libpq connection URI (postgresql://, postgres://) */
enum cmax_err store_pg_open(const char *url, struct store **out, char **why);
#endif
