/* The results store (store/store.h): what a run record holds, how it is
 * written (one transaction, retried while the database is busy) and read;
 * the statements run on either backend (store/backend.h). */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/digest.h"
#include "core/home.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include "engine/context.h" /* fact_str: a string at a dotted path */
#include "store/backend.h"
#include "store/diff.h"
#include "store/store.h"

/* A run's id: the first hex digits of its document's digest. 16 (64 bits)
 * keep ids short enough to type a prefix of, with no collision to fear in
 * one store (the full digest is kept and unique as well). */
#define RUN_ID_LEN 16

/* declared: how often a write waits out a busy database before it gives
 * up. Each wait is the backend's busy timeout (SQLite: 15 s) plus a short
 * random pause, so parallel cmax commands on one host all get through. */
#define RECORD_ATTEMPTS 8

static int is_pg_url(const char *url)
{
	return !strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11);
}

enum cmax_err store_open(const char *url, struct store **out, char **why)
{
	*out = NULL;
	if (!url || !*url) {
		char *home = cmax_home(NULL);
		char *path = xasprintf("%s/cmax.db", home);
		enum cmax_err e = store_sqlite_open(path, 1, out, why);
		free(home);
		free(path);
		return e;
	}
	if (is_pg_url(url))
		return store_pg_open(url, out, why);
	if (strstr(url, "://")) {
		*why = xstrdup("--store: a SQLite file (PATH or sqlite:PATH) or a postgresql:// URL");
		return CE_USAGE;
	}
	const char *path = !strncmp(url, "sqlite:", 7) ? url + 7 : url;
	if (!*path) {
		*why = xstrdup("--store sqlite: needs a path");
		return CE_USAGE;
	}
	return store_sqlite_open(path, 0, out, why);
}

void store_close(struct store *s)
{
	if (!s)
		return;
	s->ops->close(s);
	free(s->desc);
	free(s);
}

const char *store_describe(const struct store *s)
{
	return s->desc;
}

/* ---- what a record holds --------------------------------------------------- */

/* A document's rows: "results", or accept's "tests" */
static const json_t *doc_rows(const json_t *doc)
{
	const json_t *a = json_object_get(doc, "results");
	return json_is_array(a) ? a : json_object_get(doc, "tests");
}

static const char *first_str(const json_t *doc, const char *const *paths)
{
	for (size_t i = 0; paths[i]; i++) {
		const char *v = fact_str(doc, paths[i]);
		if (v && *v)
			return v;
	}
	return NULL;
}

static const char *const cluster_paths[] = { "cluster", "target.cluster", "provider", NULL };
static const char *const started_paths[] = { "started_at", "period.start", "date", "generated_at", NULL };
static const char *const finished_paths[] = { "finished_at", "period.end", NULL };
static const char *const version_paths[] = { "tool_version", "tool.version", NULL };

/* counts: the document's own, else its rows' statuses counted (a bench
 * document has rows but no counts); NULL when there is nothing to count */
static json_t *doc_counts(const json_t *doc)
{
	const json_t *c = json_object_get(doc, "counts");
	if (json_is_object(c))
		return json_deep_copy(c);
	const json_t *rows = doc_rows(doc);
	json_t *out = NULL;
	size_t i;
	const json_t *r;
	json_array_foreach(rows, i, r) {
		const char *st = jget_str(r, "status");
		if (!st)
			continue;
		if (!out)
			out = json_object();
		json_object_set_new(out, st, json_integer(jget_int(out, st, 0) + 1));
	}
	if (out)
		json_object_set_new(out, "total", json_integer((json_int_t)json_array_size(rows)));
	return out;
}

/* verdict: what a document without rows concludes (a tier, a status) */
static const json_t *doc_verdict(const json_t *doc)
{
	static const char *const keys[] = { "verdict", "tier", "status", NULL };
	for (size_t i = 0; keys[i]; i++) {
		const json_t *v = json_object_get(doc, keys[i]);
		if (v && !json_is_null(v))
			return v;
	}
	return NULL;
}

static char *dump_or_null(const json_t *v)
{
	return v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
}

static char *num_text(double v)
{
	return xasprintf("%.17g", v);
}

/* ---- statements -------------------------------------------------------------- */

static enum cmax_err run_sql(struct store *s, const char *sql, int n, const char *const *p, char **why)
{
	return s->ops->exec(s, sql, n, p, NULL, NULL, why);
}

static void rollback(struct store *s)
{
	char *ignored = NULL;
	run_sql(s, "ROLLBACK", 0, NULL, &ignored);
	free(ignored);
}

struct record_ctx {
	struct store *s;
	const char *run_id;
	long row_seq;
	long nfigures;
	enum cmax_err err;
	char **why;
};

static void truncate_to(struct strbuf *sb, size_t len)
{
	if (sb->buf && len <= sb->len) {
		sb->len = len;
		sb->buf[len] = 0;
	}
}

/* every number under a row's "observed", objects walked (arrays are curves
 * and lists, kept whole in the document) */
static void figures_walk(struct record_ctx *c, const json_t *v, struct strbuf *path)
{
	if (c->err)
		return;
	if (json_is_number(v)) {
		double d = json_number_value(v);
		if (!isfinite(d))
			return;
		char *seq = xasprintf("%ld", c->row_seq), *val = num_text(d);
		const char *p[] = { c->run_id, seq, sb_str(path), val };
		c->err = run_sql(c->s, "INSERT INTO figures (run_id, row_seq, path, value) VALUES (?, ?, ?, ?)", 4, p,
				 c->why);
		free(seq);
		free(val);
		c->nfigures++;
		return;
	}
	if (!json_is_object(v))
		return;
	const char *k;
	const json_t *sub;
	size_t mark = path->len;
	json_object_foreach((json_t *)v, k, sub) {
		truncate_to(path, mark);
		sb_addf(path, ".%s", k);
		figures_walk(c, sub, path);
	}
	truncate_to(path, mark);
}

int store_row_text(void *ctx, int ncol, const char *const *vals)
{
	char **out = ctx;
	if (ncol > 0 && vals[0] && !*out)
		*out = xstrdup(vals[0]);
	return 1;
}

int store_row_long(void *ctx, int ncol, const char *const *vals)
{
	*(long *)ctx = ncol > 0 && vals[0] ? strtol(vals[0], NULL, 10) : 0;
	return 1;
}

/* The record's statements, inside the caller's transaction. *existing gets
 * the id of a run with the same digest (then nothing is written). */
static enum cmax_err record_once(struct store *s, const json_t *doc, const char *digest, const char *source,
				 char **existing, char **why)
{
	char id[RUN_ID_LEN + 1];
	memcpy(id, digest, RUN_ID_LEN);
	id[RUN_ID_LEN] = 0;
	const json_t *rows = doc_rows(doc);
	char *kind = diff_kind(doc), *text = json_dumps(doc, JSON_COMPACT);
	json_t *counts = doc_counts(doc);
	char *counts_s = dump_or_null(counts), *verdict_s = dump_or_null(doc_verdict(doc));
	char recorded[32], *nrows = xasprintf("%zu", json_array_size(rows));
	clock_iso(clock_now(), recorded, sizeof recorded);
	const char *p[] = { id,
			    digest,
			    kind,
			    jget_str(doc, "schema"),
			    first_str(doc, cluster_paths),
			    first_str(doc, started_paths),
			    first_str(doc, finished_paths),
			    recorded,
			    first_str(doc, version_paths),
			    jget_str(doc, "command"),
			    source,
			    counts_s,
			    verdict_s,
			    nrows,
			    text };
	char *inserted = NULL;
	enum cmax_err e = s->ops->exec(s,
				       "INSERT INTO runs (id, digest, kind, schema, cluster, started_at, finished_at, "
				       "recorded_at, tool_version, command, source, counts, verdict, nrows, nfigures, "
				       "document) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?) "
				       "ON CONFLICT (digest) DO NOTHING RETURNING id",
				       15, p, store_row_text, &inserted, why);
	if (!e && !inserted) {
		const char *q[] = { digest };
		e = s->ops->exec(s, "SELECT id FROM runs WHERE digest = ?", 1, q, store_row_text, existing, why);
		if (!e && !*existing) {
			*why = xasprintf("run %s: an id taken by another document", id);
			e = CE_INTERNAL;
		}
	}
	struct record_ctx c = { s, id, 0, 0, e, why };
	size_t i;
	const json_t *r;
	if (inserted) {
		json_array_foreach(rows, i, r) {
			if (c.err)
				break;
			c.row_seq = (long)i;
			char *seq = xasprintf("%zu", i);
			const char *rp[] = { id, seq, jget_str(r, "id"), jget_str(r, "host"), jget_str(r, "status"),
					     jget_str(r, "summary") };
			c.err = run_sql(s,
					"INSERT INTO rows (run_id, seq, row_id, host, status, summary) VALUES (?, ?, ?, ?, ?, ?)",
					6, rp, why);
			free(seq);
			struct strbuf path = STRBUF_INIT;
			sb_adds(&path, "observed");
			figures_walk(&c, json_object_get(r, "observed"), &path);
			sb_free(&path);
		}
		if (!c.err) {
			char *nf = xasprintf("%ld", c.nfigures);
			const char *fp[] = { nf, id };
			c.err = run_sql(s, "UPDATE runs SET nfigures = ? WHERE id = ?", 2, fp, why);
			free(nf);
		}
		*existing = NULL;
	}
	free(inserted);
	free(kind);
	free(text);
	json_decref(counts);
	free(counts_s);
	free(verdict_s);
	free(nrows);
	return c.err;
}

/* a random pause of 20-300 ms before a retry, so parallel writers that
 * met at the lock do not meet again */
static void backoff(int attempt)
{
	unsigned seed = (unsigned)(getpid() * 2654435761u) ^ (unsigned)clock_mono_us() ^ (unsigned)attempt;
	struct timespec ts = { 0, (long)(20 + rand_r(&seed) % 280) * 1000000L };
	nanosleep(&ts, NULL);
}

enum cmax_err store_record(struct store *s, const json_t *doc, const char *source, char **run_id, int *created,
			   char **why)
{
	if (run_id)
		*run_id = NULL;
	if (created)
		*created = 0;
	const char *schema = jget_str(doc, "schema");
	if (!json_is_object(doc) || !schema || strncmp(schema, "cmax.", 5)) {
		*why = xstrdup("not a cmax result document (no cmax \"schema\")");
		return CE_DATA;
	}
	/* the identity: the canonical JSON (sorted keys, compact) */
	char *canon = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	char digest[DIGEST_HEX_LEN + 1];
	int bad = !canon || digest_sha256_hex(canon, strlen(canon), digest) != 0;
	free(canon);
	if (bad) {
		*why = xstrdup("cannot digest the document (out of memory)");
		return CE_OS;
	}
	enum cmax_err e = CE_OK;
	char *existing = NULL;
	for (int attempt = 0; attempt < RECORD_ATTEMPTS; attempt++) {
		if (attempt) {
			free(*why);
			*why = NULL;
			backoff(attempt);
		}
		e = s->ops->begin(s, why);
		if (!e) {
			e = record_once(s, doc, digest, source, &existing, why);
			if (!e)
				e = run_sql(s, "COMMIT", 0, NULL, why);
			if (e)
				rollback(s);
		}
		if (!e || !s->busy)
			break;
		free(existing);
		existing = NULL;
	}
	if (e) {
		free(existing);
		return e;
	}
	if (created)
		*created = !existing;
	if (run_id) {
		if (existing) {
			*run_id = existing;
			existing = NULL;
		} else {
			*run_id = xstrndup(digest, RUN_ID_LEN);
		}
	}
	free(existing);
	return CE_OK;
}

/* ---- reading ------------------------------------------------------------------ */

#define META_COLUMNS                                                                                               \
	"id, kind, schema, cluster, started_at, finished_at, recorded_at, tool_version, command, source, counts, " \
	"verdict, nrows, nfigures"
static const char *const meta_names[] = { "id",	    "kind",	    "schema",	    "cluster",
					  "started_at", "finished_at", "recorded_at", "tool_version",
					  "command",    "source",      NULL };
enum { META_COUNTS = 10, META_VERDICT, META_NROWS, META_NFIGURES, META_NCOLS };

static json_t *meta_of(int ncol, const char *const *v)
{
	json_t *m = json_object();
	for (int i = 0; i < ncol && meta_names[i]; i++)
		json_object_set_new(m, meta_names[i], v[i] ? json_string(v[i]) : json_null());
	if (ncol < META_NCOLS)
		return m;
	for (int i = META_COUNTS; i <= META_VERDICT; i++) {
		json_t *j = v[i] ? json_loads(v[i], JSON_DECODE_ANY, NULL) : NULL;
		json_object_set_new(m, i == META_COUNTS ? "counts" : "verdict", j ? j : json_null());
	}
	json_object_set_new(m, "rows", json_integer(v[META_NROWS] ? strtoll(v[META_NROWS], NULL, 10) : 0));
	json_object_set_new(m, "figures", json_integer(v[META_NFIGURES] ? strtoll(v[META_NFIGURES], NULL, 10) : 0));
	return m;
}

static int list_row(void *ctx, int ncol, const char *const *vals)
{
	json_array_append_new(ctx, meta_of(ncol, vals));
	return 0;
}

enum cmax_err store_list(struct store *s, const struct store_filter *f, json_t **runs, char **why)
{
	struct strbuf sql = STRBUF_INIT;
	sb_adds(&sql, "SELECT " META_COLUMNS " FROM runs");
	const char *p[3];
	int n = 0;
	static const char *const conds[] = { "kind = ?", "cluster = ?", "started_at >= ?" };
	const char *vals[] = { f ? f->kind : NULL, f ? f->cluster : NULL, f ? f->since : NULL };
	for (int i = 0; i < 3; i++) {
		if (!vals[i])
			continue;
		sb_addf(&sql, " %s %s", n ? "AND" : "WHERE", conds[i]);
		p[n++] = vals[i];
	}
	sb_adds(&sql, " ORDER BY coalesce(started_at, '') DESC, recorded_at DESC, id");
	if (f && f->limit > 0)
		sb_addf(&sql, " LIMIT %ld", f->limit);
	*runs = json_array();
	enum cmax_err e = s->ops->exec(s, sb_str(&sql), n, p, list_row, *runs, why);
	sb_free(&sql);
	if (e) {
		json_decref(*runs);
		*runs = NULL;
	}
	return e;
}

struct found {
	json_t *meta[2];
	char *doc;
	int n;
};

static int found_row(void *ctx, int ncol, const char *const *vals)
{
	struct found *f = ctx;
	if (f->n < 2)
		f->meta[f->n] = meta_of(ncol, vals);
	if (f->n == 0 && ncol > META_NCOLS && vals[META_NCOLS])
		f->doc = xstrdup(vals[META_NCOLS]);
	f->n++;
	return f->n >= 2;
}

static void found_free(struct found *f)
{
	json_decref(f->meta[0]);
	json_decref(f->meta[1]);
	free(f->doc);
}

/* A run id's shape: hex (what ids are made of); anything else matches none */
static int ref_ok(const char *ref)
{
	size_t n = strlen(ref);
	if (!n || n > RUN_ID_LEN)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)ref[i]))
			return 0;
	return 1;
}

/* the one run ref names: f->n is 1 on success */
static enum cmax_err find(struct store *s, const char *ref, int with_doc, struct found *f, char **why)
{
	memset(f, 0, sizeof *f);
	if (!ref_ok(ref)) {
		*why = xasprintf("no run '%s' (a run id is hex: cmax runs list)", ref);
		return CE_NOINPUT;
	}
	char *low = xstrdup(ref), *like;
	for (char *c = low; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	like = xasprintf("%s%%", low);
	const char *p[] = { like };
	enum cmax_err e = s->ops->exec(s,
				       with_doc ? "SELECT " META_COLUMNS ", document FROM runs WHERE id LIKE ? ORDER BY id LIMIT 2"
						: "SELECT " META_COLUMNS " FROM runs WHERE id LIKE ? ORDER BY id LIMIT 2",
				       1, p, found_row, f, why);
	if (!e && f->n == 0) {
		*why = xasprintf("no run '%s' in %s (cmax runs list)", low, s->desc);
		e = CE_NOINPUT;
	} else if (!e && f->n > 1) {
		*why = xasprintf("run '%s' is ambiguous: %s, %s, ... (give more of the id)", low,
				 jget_str_or(f->meta[0], "id", "?"), jget_str_or(f->meta[1], "id", "?"));
		e = CE_USAGE;
	}
	free(low);
	free(like);
	return e;
}

enum cmax_err store_get(struct store *s, const char *ref, json_t **doc, json_t **meta, char **why)
{
	if (doc)
		*doc = NULL;
	if (meta)
		*meta = NULL;
	struct found f;
	enum cmax_err e = find(s, ref, 1, &f, why);
	json_t *d = NULL;
	if (!e) {
		json_error_t je;
		d = f.doc ? json_loads(f.doc, 0, &je) : NULL;
		if (!d) {
			*why = xasprintf("run %s: its stored document is not JSON (a damaged store)",
					 jget_str_or(f.meta[0], "id", "?"));
			e = CE_DATA;
		}
	}
	if (!e) {
		if (doc)
			*doc = json_incref(d);
		if (meta)
			*meta = json_incref(f.meta[0]);
	}
	json_decref(d);
	found_free(&f);
	return e;
}

enum cmax_err store_remove(struct store *s, const char *ref, char **why)
{
	struct found f;
	enum cmax_err e = find(s, ref, 0, &f, why);
	char *id = e ? NULL : xstrdup(jget_str_or(f.meta[0], "id", ""));
	found_free(&f);
	if (e)
		return e;
	for (int attempt = 0; attempt < RECORD_ATTEMPTS; attempt++) {
		if (attempt) {
			free(*why);
			*why = NULL;
			backoff(attempt);
		}
		const char *p[] = { id };
		e = s->ops->begin(s, why);
		if (!e)
			e = run_sql(s, "DELETE FROM figures WHERE run_id = ?", 1, p, why);
		if (!e)
			e = run_sql(s, "DELETE FROM rows WHERE run_id = ?", 1, p, why);
		if (!e)
			e = run_sql(s, "DELETE FROM runs WHERE id = ?", 1, p, why);
		if (!e)
			e = run_sql(s, "COMMIT", 0, NULL, why);
		if (e)
			rollback(s);
		if (!e || !s->busy)
			break;
	}
	free(id);
	return e;
}
