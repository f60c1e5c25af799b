/* Run diffs (store/diff.h): match the rows of two documents, judge their
 * status moves and the figures under "observed". */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonget.h"
#include "core/strbuf.h"
#include "store/diff.h"

/* Which way is good for a figure, by its name (lower case), first match
 * wins; so the bandwidth suffixes (gb_s, per_s) come before the plain
 * duration suffix _s. Each entry says why. */
enum match { M_SUFFIX, M_CONTAINS, M_EXACT };
static const struct dir_rule {
	enum match how;
	const char *text;
	enum diff_dir dir;
	const char *basis;
} dir_rules[] = {
	/* variability first: a wider spread of any figure is worse */
	{ M_EXACT, "stddev", DIFF_LOWER_BETTER, "spread between repeats or GPUs" },
	{ M_EXACT, "cv", DIFF_LOWER_BETTER, "coefficient of variation" },
	{ M_CONTAINS, "jitter", DIFF_LOWER_BETTER, "variation of a latency" },
	{ M_CONTAINS, "drift", DIFF_LOWER_BETTER, "a figure moving over an endurance run" },
	{ M_CONTAINS, "degradation", DIFF_LOWER_BETTER, "loss against the first interval" },
	/* rates: amount per second */
	{ M_SUFFIX, "gb_s", DIFF_HIGHER_BETTER, "bandwidth, GB/s" },
	{ M_SUFFIX, "mb_s", DIFF_HIGHER_BETTER, "bandwidth, MB/s" },
	{ M_SUFFIX, "gib_s", DIFF_HIGHER_BETTER, "bandwidth, GiB/s" },
	{ M_SUFFIX, "mib_s", DIFF_HIGHER_BETTER, "bandwidth, MiB/s" },
	{ M_SUFFIX, "per_s", DIFF_HIGHER_BETTER, "a rate: bytes, objects or operations per second" },
	{ M_SUFFIX, "gbps", DIFF_HIGHER_BETTER, "link or bus bandwidth, Gb/s" },
	{ M_CONTAINS, "bandwidth", DIFF_HIGHER_BETTER, "bandwidth" },
	{ M_CONTAINS, "throughput", DIFF_HIGHER_BETTER, "throughput" },
	{ M_CONTAINS, "busbw", DIFF_HIGHER_BETTER, "nccl-tests bus bandwidth" },
	{ M_CONTAINS, "algbw", DIFF_HIGHER_BETTER, "nccl-tests algorithm bandwidth" },
	{ M_CONTAINS, "iops", DIFF_HIGHER_BETTER, "I/O operations per second" },
	{ M_CONTAINS, "flops", DIFF_HIGHER_BETTER, "GEMM throughput" },
	{ M_CONTAINS, "goodput", DIFF_HIGHER_BETTER, "useful work delivered" },
	{ M_CONTAINS, "score", DIFF_HIGHER_BETTER, "a rubric score" },
	/* a suffix: "duration" holds "ratio" */
	{ M_SUFFIX, "ratio", DIFF_HIGHER_BETTER, "a share of the line rate or of the peak" },
	{ M_CONTAINS, "efficiency", DIFF_HIGHER_BETTER, "a share of the peak" },
	{ M_CONTAINS, "availability", DIFF_HIGHER_BETTER, "SLA availability" },
	/* times and failures */
	{ M_CONTAINS, "latency", DIFF_LOWER_BETTER, "latency" },
	{ M_CONTAINS, "clat", DIFF_LOWER_BETTER, "fio completion latency" },
	{ M_CONTAINS, "downtime", DIFF_LOWER_BETTER, "SLA downtime" },
	{ M_CONTAINS, "error", DIFF_LOWER_BETTER, "errors counted" },
	{ M_CONTAINS, "failure", DIFF_LOWER_BETTER, "failures counted" },
	{ M_CONTAINS, "retrans", DIFF_LOWER_BETTER, "retransmissions" },
	{ M_SUFFIX, "_ns", DIFF_LOWER_BETTER, "a time, ns" },
	{ M_SUFFIX, "_us", DIFF_LOWER_BETTER, "a time, us" },
	{ M_SUFFIX, "_ms", DIFF_LOWER_BETTER, "a time, ms" },
	{ M_SUFFIX, "_s", DIFF_LOWER_BETTER, "a time, s (cold start, detection, recovery)" },
};

static int rule_matches(const struct dir_rule *r, const char *name)
{
	size_t n = strlen(name), t = strlen(r->text);
	switch (r->how) {
	case M_EXACT:
		return !strcmp(name, r->text);
	case M_SUFFIX:
		return n >= t && !strcmp(name + n - t, r->text);
	case M_CONTAINS:
		return strstr(name, r->text) != NULL;
	}
	return 0;
}

static enum diff_dir name_direction(const char *name)
{
	for (size_t i = 0; i < sizeof dir_rules / sizeof *dir_rules; i++)
		if (rule_matches(&dir_rules[i], name))
			return dir_rules[i].dir;
	return DIFF_DIR_UNKNOWN;
}

/* p50, p99, p99.9 (its last piece "9"), mean, max: a statistic of the
 * parent's quantity */
static int is_statistic(const char *name)
{
	static const char *const stats[] = { "mean", "avg", "average", "median", "min", "max", "value", NULL };
	for (size_t i = 0; stats[i]; i++)
		if (!strcmp(name, stats[i]))
			return 1;
	const char *p = name[0] == 'p' ? name + 1 : name;
	if (!*p)
		return 0;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	return 1;
}

enum diff_dir diff_direction(const char *path)
{
	char *low = xstrdup(path ? path : "");
	for (char *c = low; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	/* from the last name up, past the statistics ("clat_ns.p99.9") */
	enum diff_dir d = DIFF_DIR_UNKNOWN;
	for (;;) {
		char *dot = strrchr(low, '.');
		const char *name = dot ? dot + 1 : low;
		if (!is_statistic(name) || !dot) {
			d = name_direction(name);
			break;
		}
		*dot = 0;
	}
	free(low);
	return d;
}

/* PASS < WARN < FAIL; -1: a status that says nothing about the system */
static int status_rank(const char *s)
{
	if (!s)
		return -1;
	if (!strcmp(s, "PASS"))
		return 0;
	if (!strcmp(s, "WARN"))
		return 1;
	if (!strcmp(s, "FAIL"))
		return 2;
	return -1;
}

const char *diff_status_change(const char *from, const char *to)
{
	if ((!from && !to) || (from && to && !strcmp(from, to)))
		return "same";
	int a = status_rank(from), b = status_rank(to);
	if (a < 0 || b < 0)
		return "unknown";
	return b > a ? "worse" : "better";
}

char *diff_kind(const json_t *doc)
{
	const char *schema = jget_str(doc, "schema");
	if (!schema || !*schema)
		return NULL;
	if (!strcmp(schema, "cmax.audit.results/1"))
		return xstrdup("audit");
	if (!strcmp(schema, "cmax.bench.results/1"))
		return xasprintf("bench.%s", jget_str_or(doc, "benchmark", "?"));
	/* cmax.NAME/N -> NAME (inject, sla, rate, rate.compare, accept) */
	const char *s = strncmp(schema, "cmax.", 5) ? schema : schema + 5;
	const char *slash = strrchr(s, '/');
	return xstrndup(s, slash ? (size_t)(slash - s) : strlen(s));
}

/* ---- rows ----------------------------------------------------------------- */

struct row {
	const json_t *j;
	const char *id, *host, *status;
	int match; /* index of the matched row in the other run; -1 none */
};

struct rows {
	struct row *v;
	size_t n;
};

/* A document's rows: "results" (audit, bench, inject, reboot-test, sla) or
 * "tests" (accept); entries without an id are not rows. */
static void rows_of(const json_t *doc, struct rows *r)
{
	const json_t *arr = json_object_get(doc, "results");
	if (!json_is_array(arr))
		arr = json_object_get(doc, "tests");
	r->n = 0;
	r->v = xcalloc(json_array_size(arr) + 1, sizeof *r->v);
	size_t i;
	const json_t *e;
	json_array_foreach(arr, i, e) {
		const char *id = jget_str(e, "id");
		if (!id)
			continue;
		r->v[r->n++] = (struct row){ e, id, jget_str_or(e, "host", ""), jget_str(e, "status"), -1 };
	}
}

static void match_rows(struct rows *a, struct rows *b)
{
	for (size_t j = 0; j < b->n; j++)
		for (size_t i = 0; i < a->n; i++)
			if (a->v[i].match < 0 && !strcmp(a->v[i].id, b->v[j].id) &&
			    !strcmp(a->v[i].host, b->v[j].host)) {
				a->v[i].match = (int)j;
				b->v[j].match = (int)i;
				break;
			}
	/* the same row on another host: an id that is one row in each run (a
	 * benchmark re-run on a new node); an id of many rows (one per node)
	 * keeps its nodes apart */
	for (size_t j = 0; j < b->n; j++) {
		if (b->v[j].match >= 0)
			continue;
		int found = -1, nb = 0, na = 0;
		for (size_t k = 0; k < b->n; k++)
			nb += !strcmp(b->v[k].id, b->v[j].id);
		for (size_t i = 0; i < a->n; i++)
			if (!strcmp(a->v[i].id, b->v[j].id)) {
				na++;
				found = (int)i;
			}
		if (na == 1 && nb == 1 && a->v[found].match < 0) {
			a->v[found].match = (int)j;
			b->v[j].match = found;
		}
	}
}

struct diff_ctx {
	double tol;
	unsigned flags;
	json_t *rows, *figures, *rcounts, *fcounts;
	size_t differences;
};

static void count(json_t *counts, const char *change)
{
	json_object_set_new(counts, change, json_integer(jget_int(counts, change, 0) + 1));
}

static void add_row(struct diff_ctx *c, const char *change, const struct row *ra, const struct row *rb)
{
	count(c->rcounts, change);
	if (strcmp(change, "same"))
		c->differences++;
	else if (!(c->flags & DIFF_ALL))
		return;
	const struct row *r = rb ? rb : ra;
	json_t *o = json_pack("{s:s, s:s, s:s}", "change", change, "id", r->id, "host", ra ? ra->host : rb->host);
	if (ra && rb && strcmp(ra->host, rb->host))
		json_object_set_new(o, "host_b", json_string(rb->host));
	json_object_set_new(o, "from", ra && ra->status ? json_string(ra->status) : json_null());
	json_object_set_new(o, "to", rb && rb->status ? json_string(rb->status) : json_null());
	const char *sa = ra ? jget_str(ra->j, "summary") : NULL, *sb = rb ? jget_str(rb->j, "summary") : NULL;
	json_object_set_new(o, "summary_a", sa ? json_string(sa) : json_null());
	json_object_set_new(o, "summary_b", sb ? json_string(sb) : json_null());
	json_array_append_new(c->rows, o);
}

/* ---- figures -------------------------------------------------------------- */

/* ra, rb: the matched rows (both NULL for a document's own figure) */
static void add_figure(struct diff_ctx *c, const struct row *ra, const struct row *rb, const char *path, double x,
		       double y)
{
	double big = fmax(fabs(x), fabs(y));
	/* each term in [-1, 1]: (y - x) / big would overflow for figures near DBL_MAX */
	double rel = big > 0 ? y / big - x / big : 0;
	enum diff_dir d = diff_direction(path);
	const char *change = fabs(rel) <= c->tol ? "same"
			     : d == DIFF_DIR_UNKNOWN ? "changed"
			     : (rel > 0) == (d == DIFF_HIGHER_BETTER) ? "better"
								       : "worse";
	count(c->fcounts, change);
	if (strcmp(change, "same"))
		c->differences++;
	else if (!(c->flags & DIFF_ALL))
		return;
	json_t *o = json_pack("{s:s, s:s?, s:s?}", "change", change, "id", ra ? ra->id : NULL, "host",
			      ra ? ra->host : NULL);
	if (ra && rb && strcmp(ra->host, rb->host))
		json_object_set_new(o, "host_b", json_string(rb->host));
	const char *dir = d == DIFF_HIGHER_BETTER ? "higher" : d == DIFF_LOWER_BETTER ? "lower" : NULL;
	json_object_update_new(o, json_pack("{s:s, s:f, s:f, s:f, s:s?}", "path", path, "from", x, "to", y, "relative",
					    rel, "direction", dir));
	json_array_append_new(c->figures, o);
}

static int number_of(const json_t *v, double *out)
{
	if (!json_is_number(v))
		return 0;
	*out = json_number_value(v);
	return isfinite(*out);
}

/* Every number under a and b at the same key path (objects only). */
static void walk_figures(struct diff_ctx *c, const struct row *ra, const struct row *rb, const char *path,
			 const json_t *a, const json_t *b)
{
	double x, y;
	if (number_of(a, &x) && number_of(b, &y)) {
		add_figure(c, ra, rb, path, x, y);
		return;
	}
	if (!json_is_object(a) || !json_is_object(b))
		return;
	const char *k;
	const json_t *va;
	json_object_foreach((json_t *)a, k, va) {
		const json_t *vb = json_object_get(b, k);
		if (!vb)
			continue;
		char *p = xasprintf("%s.%s", path, k);
		walk_figures(c, ra, rb, p, va, vb);
		free(p);
	}
}

/* ---- the diff ------------------------------------------------------------- */

static void diff_rows(struct diff_ctx *c, struct rows *a, struct rows *b)
{
	match_rows(a, b);
	for (size_t j = 0; j < b->n; j++) {
		const struct row *rb = &b->v[j];
		if (rb->match < 0) {
			add_row(c, "added", NULL, rb);
			continue;
		}
		const struct row *ra = &a->v[rb->match];
		add_row(c, diff_status_change(ra->status, rb->status), ra, rb);
		walk_figures(c, ra, rb, "observed", json_object_get(ra->j, "observed"),
			     json_object_get(rb->j, "observed"));
	}
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].match < 0)
			add_row(c, "removed", &a->v[i], NULL);
}

static json_t *counts_new(const char *const *names)
{
	json_t *o = json_object();
	for (size_t i = 0; names[i]; i++)
		json_object_set_new(o, names[i], json_integer(0));
	return o;
}

enum cmax_err store_diff(const json_t *a, const json_t *b, double tolerance, unsigned flags, json_t **out,
			 char **why)
{
	*out = NULL;
	char *ka = diff_kind(a), *kb = diff_kind(b);
	enum cmax_err e = CE_OK;
	if (!ka || !kb) {
		*why = xstrdup("not a cmax result document (no \"schema\")");
		e = CE_DATA;
	} else if (strcmp(ka, kb)) {
		*why = xasprintf("runs of different kinds (%s and %s) are not compared", ka, kb);
		e = CE_USAGE;
	}
	if (e) {
		free(ka);
		free(kb);
		return e;
	}
	static const char *const rnames[] = { "better", "worse", "unknown", "added", "removed", "same", NULL };
	static const char *const fnames[] = { "better", "worse", "changed", "same", NULL };
	struct diff_ctx c = { tolerance, flags, json_array(), json_array(), counts_new(rnames), counts_new(fnames), 0 };
	struct rows ra, rb;
	rows_of(a, &ra);
	rows_of(b, &rb);
	diff_rows(&c, &ra, &rb);
	/* a rating has no rows: its score is the figure */
	walk_figures(&c, NULL, NULL, "score", json_object_get(a, "score"), json_object_get(b, "score"));
	free(ra.v);
	free(rb.v);
	*out = json_pack("{s:s, s:s, s:f, s:o, s:o, s:{s:o, s:o}, s:I}", "schema", "cmax.runs.diff/1", "kind", ka,
			 "tolerance", tolerance, "rows", c.rows, "figures", c.figures, "counts", "rows", c.rcounts,
			 "figures", c.fcounts, "differences", (json_int_t)c.differences);
	free(ka);
	free(kb);
	return CE_OK;
}
