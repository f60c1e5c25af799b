/* The results store on SQLite (store/backend.h): one file on this host,
 * WAL, STRICT tables, migrations by user_version, a busy timeout for
 * parallel writers. Never a file on a network file system: its locks are
 * not reliable there (docs/results-store.md). */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/strbuf.h"
#include "store/backend.h"

/* declared: how long one statement waits for another writer's lock. A
 * record is a few hundred small inserts, done in milliseconds; 15 s covers
 * dozens of parallel writers on a slow disk, and store.c retries after it. */
#define BUSY_TIMEOUT_MS 15000

/* Schema versions, in order: migrations[i] takes a store from version i to
 * i + 1. Never edit one that has shipped; add the next. */
static const char *const migrations[] = {
	/* 1: runs, their rows and their figures */
	STORE_TABLES_V1("INTEGER", "REAL", " STRICT"),
};
_Static_assert(sizeof migrations / sizeof *migrations == STORE_SCHEMA_VERSION, "one migration per schema version");

static enum cmax_err sq_fail(struct store *s, int rc, const char *what, char **why)
{
	sqlite3 *db = s->conn;
	int base = rc & 0xff;
	s->busy = base == SQLITE_BUSY || base == SQLITE_LOCKED;
	*why = xasprintf("%s: %s: %s", s->desc, what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
	switch (base) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return CE_UNAVAILABLE;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
	case SQLITE_SCHEMA:
		return CE_DATA;
	case SQLITE_CANTOPEN:
	case SQLITE_READONLY:
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return CE_CANTCREAT;
	case SQLITE_FULL:
	case SQLITE_IOERR:
	case SQLITE_NOMEM:
		return CE_OS;
	default:
		return CE_INTERNAL;
	}
}

static enum cmax_err sq_exec(struct store *s, const char *sql, int n, const char *const *params, store_row_fn fn,
			     void *ctx, char **why)
{
	sqlite3 *db = s->conn;
	sqlite3_stmt *st = NULL;
	s->busy = 0;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sq_fail(s, rc, "a statement", why);
	for (int i = 0; i < n; i++) {
		rc = params[i] ? sqlite3_bind_text(st, i + 1, params[i], -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i + 1);
		if (rc != SQLITE_OK)
			break;
	}
	int ncol = sqlite3_column_count(st);
	const char **vals = xcalloc((size_t)ncol + 1, sizeof *vals);
	while (rc == SQLITE_OK || rc == SQLITE_ROW) {
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW)
			break;
		for (int c = 0; c < ncol; c++)
			vals[c] = (const char *)sqlite3_column_text(st, c);
		if (fn && fn(ctx, ncol, vals)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	free(vals);
	enum cmax_err e = CE_OK;
	if (rc != SQLITE_DONE)
		e = sq_fail(s, rc, "a statement", why);
	sqlite3_finalize(st);
	return e;
}

static enum cmax_err sq_begin(struct store *s, char **why)
{
	return sq_exec(s, "BEGIN IMMEDIATE", 0, NULL, NULL, NULL, why);
}

static void sq_close(struct store *s)
{
	sqlite3_close_v2(s->conn);
}

static const struct store_ops sqlite_ops = { sq_exec, sq_begin, sq_close };

/* Brings the schema to STORE_SCHEMA_VERSION, one transaction that holds
 * the write lock, so two first commands on one new file migrate once. */
static enum cmax_err migrate(struct store *s, char **why)
{
	long v = 0;
	enum cmax_err e = sq_exec(s, "PRAGMA user_version", 0, NULL, store_row_long, &v, why);
	if (e || v == STORE_SCHEMA_VERSION)
		return e;
	if ((e = sq_begin(s, why)))
		return e;
	if (!(e = sq_exec(s, "PRAGMA user_version", 0, NULL, store_row_long, &v, why)) && v > STORE_SCHEMA_VERSION) {
		*why = xasprintf("%s: made by a newer cmax (schema %ld; this cmax knows up to %d)", s->desc, v,
				 STORE_SCHEMA_VERSION);
		e = CE_DATA;
	}
	if (!e && v < 0) {
		*why = xasprintf("%s: not a cmax store (user_version %ld)", s->desc, v);
		e = CE_DATA;
	}
	for (; !e && v < STORE_SCHEMA_VERSION; v++) {
		char *err = NULL;
		int rc = sqlite3_exec(s->conn, migrations[v], NULL, NULL, &err);
		if (rc != SQLITE_OK) {
			e = sq_fail(s, rc, "creating its tables", why);
			if (err) {
				free(*why);
				*why = xasprintf("%s: creating its tables: %s (not a cmax store?)", s->desc, err);
			}
		}
		sqlite3_free(err);
		if (!e) {
			char *pragma = xasprintf("PRAGMA user_version = %ld", v + 1);
			e = sq_exec(s, pragma, 0, NULL, NULL, NULL, why);
			free(pragma);
		}
	}
	char *ignored = NULL;
	if (!e)
		e = sq_exec(s, "COMMIT", 0, NULL, NULL, NULL, why);
	else
		sq_exec(s, "ROLLBACK", 0, NULL, NULL, NULL, &ignored);
	free(ignored);
	return e;
}

/* The file must be a regular file or not exist: never a symbolic link
 * (cmax may run as root on a shared node) or a device. */
static enum cmax_err path_ok(const char *path, int make_dir, char **why)
{
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode)) {
			*why = xasprintf("%s: not a regular file (a symbolic link or a device is never used as a store)",
					 path);
			return CE_CANTCREAT;
		}
		return CE_OK;
	}
	if (errno != ENOENT) {
		*why = xasprintf("%s: %s", path, strerror(errno));
		return CE_CANTCREAT;
	}
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path)
		return CE_OK;
	char *dir = xstrndup(path, (size_t)(slash - path));
	enum cmax_err e = CE_OK;
	if (make_dir && mkdir(dir, 0700) != 0 && errno != EEXIST) {
		*why = xasprintf("cannot create %s: %s", dir, strerror(errno));
		e = CE_CANTCREAT;
	} else if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		*why = xasprintf("%s: no such directory for the store", dir);
		e = CE_NOINPUT;
	} else if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
		*why = xasprintf("%s: anyone can write this directory: not a place for the store", dir);
		e = CE_CANTCREAT;
	}
	free(dir);
	return e;
}

enum cmax_err store_sqlite_open(const char *path, int make_dir, struct store **out, char **why)
{
	*out = NULL;
	enum cmax_err e = path_ok(path, make_dir, why);
	if (e)
		return e;
	struct store *s = xcalloc(1, sizeof *s);
	s->ops = &sqlite_ops;
	s->desc = xasprintf("sqlite:%s", path);
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, NULL);
	s->conn = db;
	if (rc != SQLITE_OK) {
		e = sq_fail(s, rc, "cannot open", why);
		store_close(s);
		return e;
	}
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(db, 1);
	/* WAL: readers never block the writer, nor it them; NORMAL sync is
	 * durable across a crash of cmax, the one failure a store meets */
	char *mode = NULL;
	e = sq_exec(s, "PRAGMA journal_mode = WAL", 0, NULL, store_row_text, &mode, why);
	if (!e)
		e = sq_exec(s, "PRAGMA synchronous = NORMAL", 0, NULL, NULL, NULL, why);
	if (!e)
		e = sq_exec(s, "PRAGMA foreign_keys = ON", 0, NULL, NULL, NULL, why);
	free(mode);
	if (!e)
		e = migrate(s, why);
	if (e) {
		store_close(s);
		return e;
	}
	*out = s;
	return CE_OK;
}
