/* The results store on PostgreSQL (store/backend.h), for a team sharing
 * one store: libpq, text parameters, the schema version in a table and
 * migrations under an advisory lock so that two first commands migrate
 * once. What is shown of the URL never holds its password. */
#include <libpq-fe.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "store/backend.h"

/* declared: how long a connection attempt waits for the server (libpq's
 * connect_timeout, seconds); a URL that sets its own wins */
#define CONNECT_TIMEOUT_S "10"

/* an arbitrary key of the advisory lock that serialises migrations */
#define MIGRATION_LOCK "726354017"

/* migrations[i] takes a store from version i to i + 1 (as in sqlite.c;
 * the same tables in PostgreSQL's types) */
static const char *const migrations[] = {
	STORE_TABLES_V1("BIGINT", "DOUBLE PRECISION", ""),
};
_Static_assert(sizeof migrations / sizeof *migrations == STORE_SCHEMA_VERSION, "one migration per schema version");

/* the first line of a libpq message */
static char *first_line(const char *msg)
{
	size_t n = msg ? strcspn(msg, "\n") : 0;
	return n ? xstrndup(msg, n) : xstrdup("failed");
}

/* '?' placeholders as $1, $2, ... (the statements of store.c have no '?'
 * inside a literal) */
static char *numbered(const char *sql)
{
	struct strbuf b = STRBUF_INIT;
	int n = 0;
	for (const char *p = sql; *p; p++) {
		if (*p == '?')
			sb_addf(&b, "$%d", ++n);
		else
			sb_add(&b, p, 1);
	}
	return sb_detach(&b);
}

static enum cmax_err pg_exec(struct store *s, const char *sql, int n, const char *const *params, store_row_fn fn,
			     void *ctx, char **why)
{
	PGconn *c = s->conn;
	s->busy = 0;
	char *q = numbered(sql);
	PGresult *r = PQexecParams(c, q, n, NULL, params, NULL, NULL, 0);
	free(q);
	ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	enum cmax_err e = CE_OK;
	if (st == PGRES_TUPLES_OK && fn) {
		int rows = PQntuples(r), cols = PQnfields(r);
		const char **vals = xcalloc((size_t)cols + 1, sizeof *vals);
		for (int i = 0; i < rows; i++) {
			for (int j = 0; j < cols; j++)
				vals[j] = PQgetisnull(r, i, j) ? NULL : PQgetvalue(r, i, j);
			if (fn(ctx, cols, vals))
				break;
		}
		free(vals);
	} else if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
		const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
		char *msg = first_line(r ? PQresultErrorMessage(r) : PQerrorMessage(c));
		*why = xasprintf("%s: %s", s->desc, msg);
		free(msg);
		if (PQstatus(c) != CONNECTION_OK) {
			e = CE_UNAVAILABLE;
		} else if (state && (!strcmp(state, "40001") || !strcmp(state, "40P01") || !strcmp(state, "55P03"))) {
			s->busy = 1; /* serialization failure, deadlock, lock not available: retry */
			e = CE_UNAVAILABLE;
		} else if (state && !strncmp(state, "42", 2)) {
			e = CE_DATA; /* the database's tables are not a cmax store's */
		} else if (state && !strncmp(state, "28", 2)) {
			e = CE_CANTCREAT; /* not allowed */
		} else {
			e = CE_INTERNAL;
		}
	}
	PQclear(r);
	return e;
}

static enum cmax_err pg_begin(struct store *s, char **why)
{
	return pg_exec(s, "BEGIN", 0, NULL, NULL, NULL, why);
}

static void pg_close(struct store *s)
{
	PQfinish(s->conn);
}

static const struct store_ops pg_ops = { pg_exec, pg_begin, pg_close };

/* libpq prints server notices ("relation exists, skipping") on stderr by
 * default; a command's stderr is its own */
static void quiet_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

static enum cmax_err migrate(struct store *s, char **why)
{
	enum cmax_err e = pg_begin(s, why);
	long v = -1;
	if (!e)
		e = pg_exec(s, "SELECT pg_advisory_xact_lock(" MIGRATION_LOCK ")", 0, NULL, NULL, NULL, why);
	if (!e)
		e = pg_exec(s, "CREATE TABLE IF NOT EXISTS cmax_schema (version BIGINT NOT NULL)", 0, NULL, NULL, NULL,
			    why);
	if (!e)
		e = pg_exec(s, "SELECT coalesce(max(version), 0) FROM cmax_schema", 0, NULL, store_row_long, &v, why);
	if (!e && v > STORE_SCHEMA_VERSION) {
		*why = xasprintf("%s: made by a newer cmax (schema %ld; this cmax knows up to %d)", s->desc, v,
				 STORE_SCHEMA_VERSION);
		e = CE_DATA;
	}
	long from = v;
	for (; !e && v >= 0 && v < STORE_SCHEMA_VERSION; v++) {
		PGresult *r = PQexec(s->conn, migrations[v]);
		if (PQresultStatus(r) != PGRES_COMMAND_OK) {
			char *msg = first_line(PQresultErrorMessage(r));
			*why = xasprintf("%s: creating its tables: %s (not a cmax store?)", s->desc, msg);
			free(msg);
			e = CE_DATA;
		}
		PQclear(r);
	}
	if (!e && v != from) {
		char *ver = xasprintf("%ld", v);
		const char *p[] = { ver };
		e = pg_exec(s, "DELETE FROM cmax_schema", 0, NULL, NULL, NULL, why);
		if (!e)
			e = pg_exec(s, "INSERT INTO cmax_schema (version) VALUES (?)", 1, p, NULL, NULL, why);
		free(ver);
	}
	char *ignored = NULL;
	if (!e)
		e = pg_exec(s, "COMMIT", 0, NULL, NULL, NULL, why);
	else
		pg_exec(s, "ROLLBACK", 0, NULL, NULL, NULL, &ignored);
	free(ignored);
	return e;
}

/* postgresql://USER@HOST:PORT/DB, never the password */
static char *describe(PGconn *c)
{
	const char *user = PQuser(c), *host = PQhost(c), *port = PQport(c), *db = PQdb(c);
	return xasprintf("postgresql://%s%s%s%s%s/%s", user && *user ? user : "", user && *user ? "@" : "",
			 host ? host : "", port && *port ? ":" : "", port ? port : "", db ? db : "");
}

enum cmax_err store_pg_open(const char *url, struct store **out, char **why)
{
	*out = NULL;
	/* connect_timeout first: the URL's own settings, expanded from
	 * dbname, come after it and win */
	const char *const keys[] = { "connect_timeout", "dbname", NULL };
	const char *const vals[] = { CONNECT_TIMEOUT_S, url, NULL };
	PGconn *c = PQconnectdbParams(keys, vals, 1);
	if (!c) {
		*why = xstrdup("postgresql: out of memory");
		return CE_OS;
	}
	struct store *s = xcalloc(1, sizeof *s);
	s->ops = &pg_ops;
	s->conn = c;
	if (PQstatus(c) != CONNECTION_OK) {
		char *msg = first_line(PQerrorMessage(c));
		/* the URL as given may hold a password: name the server only */
		*why = xasprintf("cannot reach the PostgreSQL store: %s", msg);
		free(msg);
		s->desc = xstrdup("postgresql");
		store_close(s);
		return CE_UNAVAILABLE;
	}
	PQsetNoticeProcessor(c, quiet_notice, NULL);
	s->desc = describe(c);
	enum cmax_err e = migrate(s, why);
	if (e) {
		store_close(s);
		return e;
	}
	*out = s;
	return CE_OK;
}
