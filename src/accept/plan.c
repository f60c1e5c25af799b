/* Acceptance plan loading and validation (see plan.h, docs/accept.md). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accept/plan.h"
#include "core/error.h"
#include "core/exitcodes.h"
#include "core/result.h"
#include "core/strbuf.h"
#include "core/timefmt.h"
#include "core/yamljson.h"

/* Kept in step with the command tables (src/audit, src/bench/bench.c): a
 * misspelt profile or benchmark is caught here, before hours of other tests. */
static const char *const audit_profiles[] = { "full", "security", "versions", "isolation", "hardware", "software",
					      "containers", "orchestration", "networking", "storage", "health",
					      "access", NULL };
static const char *const bench_names[] = { "storage", "metadata", "s3", "net", "gpu", "lifecycle", NULL };

static int in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return 1;
	return 0;
}

static char *join_list(const char *const *list)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; list[i]; i++)
		sb_addf(&sb, "%s%s", i ? (list[i + 1] ? ", " : " or ") : "", list[i]);
	return sb_detach(&sb);
}

/* ---- dates and durations ------------------------------------------------ */

void acc_format_day(long day, char *buf, size_t n)
{
	time_t t = (time_t)day * 86400;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%d", &tm);
}

int acc_parse_duration(const char *s, long *secs)
{
	if (!s || !*s)
		return -1;
	long total = 0;
	const char *p = s;
	int parts = 0;
	while (*p) {
		if (!isdigit((unsigned char)*p))
			return -1;
		errno = 0;
		char *end;
		long v = strtol(p, &end, 10);
		if (errno || v < 0 || v > ACC_MAX_DURATION_S)
			return -1;
		long unit;
		switch (*end) {
		case 0: unit = parts ? -1 : 1; break; /* a bare number is seconds; "1h30" is ambiguous */
		case 's': unit = 1; break;
		case 'm': unit = 60; break;
		case 'h': unit = 3600; break;
		case 'd': unit = 86400; break;
		default: unit = -1; break;
		}
		if (unit < 0)
			return -1;
		total += v * unit;
		if (total > ACC_MAX_DURATION_S)
			return -1;
		p = *end ? end + 1 : end;
		parts++;
	}
	if (total <= 0)
		return -1;
	*secs = total;
	return 0;
}

void acc_format_duration(long secs, char *buf, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	long d = secs / 86400, h = secs % 86400 / 3600, m = secs % 3600 / 60, s = secs % 60;
	if (d)
		sb_addf(&sb, "%ldd", d);
	if (h)
		sb_addf(&sb, "%ldh", h);
	if (m)
		sb_addf(&sb, "%ldm", m);
	if (s || !secs)
		sb_addf(&sb, "%lds", s);
	snprintf(buf, n, "%s", sb_str(&sb));
	sb_free(&sb);
}

/* ---- names ---------------------------------------------------------------- */

const char *acc_cmd_name(enum acc_cmd c)
{
	static const char *n[] = { "audit", "bench", "inject", "reboot-test" };
	return c <= AC_REBOOT ? n[c] : "?";
}

const char *acc_scope_name(enum acc_scope s)
{
	return s == RS_GROUP ? "group" : s == RS_ALL ? "all" : "failed";
}

const char *acc_agg_name(enum acc_agg a)
{
	static const char *n[] = { "each", "min", "max", "mean", "sum" };
	return a <= AG_SUM ? n[a] : "?";
}

const char *acc_test_effect(const struct acc_test *t)
{
	switch (t->cmd) {
	case AC_BENCH: return "runs a benchmark (writes files, loads the GPUs or the network)";
	case AC_INJECT: return "injects a fault";
	case AC_REBOOT: return "reboots a node";
	case AC_AUDIT:
		for (size_t i = 1; i < t->nargs; i++)
			if (!strcmp(t->args[i], "--active"))
				return "runs active probes (--active)";
		return NULL;
	}
	return NULL;
}

/* ---- validation helpers ---------------------------------------------------- */

struct vctx {
	const char *label;
	char **err;
};

static int verr(struct vctx *v, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int verr(struct vctx *v, const char *key, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s: %s%s", v->label, key ? key : "", key && *key ? ": " : "");
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	*v->err = sb_detach(&sb);
	return CE_DATA;
}

/* Every key of o must be in allowed (NULL-terminated). */
static int check_keys(struct vctx *v, const json_t *o, const char *where, const char *const *allowed)
{
	const char *k;
	json_t *val;
	json_object_foreach((json_t *)o, k, val) {
		(void)val;
		if (!in_list(k, allowed)) {
			char *l = join_list(allowed);
			char *key = *where ? xasprintf("%s.%s", where, k) : xstrdup(k);
			int rc = verr(v, key, "unknown key (expected %s)", l);
			free(key);
			free(l);
			return rc;
		}
	}
	return 0;
}

static const char *type_name(const json_t *x)
{
	switch (json_typeof(x)) {
	case JSON_OBJECT: return "a mapping";
	case JSON_ARRAY: return "a list";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

/* A non-empty string (required or not); *out is a copy. */
static int get_str(struct vctx *v, const json_t *o, const char *k, const char *where, int required, char **out)
{
	const json_t *x = json_object_get(o, k);
	char key[256];
	snprintf(key, sizeof key, "%s%s%s", where, *where ? "." : "", k);
	*out = NULL;
	if (!x || json_is_null(x)) {
		if (required)
			return verr(v, key, "missing (required)");
		return 0;
	}
	if (!json_is_string(x) || !*json_string_value(x))
		return verr(v, key, "must be a non-empty string, not %s", json_is_string(x) ? "an empty one" : type_name(x));
	*out = xstrdup(json_string_value(x));
	return 0;
}

/* A scalar written in a YAML list or map as text: strings as they are,
 * numbers as their shortest spelling ("79", "7.5"). */
static char *scalar_text(const json_t *x)
{
	if (json_is_string(x))
		return xstrdup(json_string_value(x));
	if (json_is_integer(x))
		return xasprintf("%lld", (long long)json_integer_value(x));
	if (json_is_real(x))
		return xasprintf("%.15g", json_real_value(x));
	return NULL;
}

static int valid_var_name(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

static const struct acc_var *find_var(const struct acc_plan *p, const char *name, size_t len)
{
	for (size_t i = 0; i < p->nvars; i++)
		if (strlen(p->vars[i].name) == len && !strncmp(p->vars[i].name, name, len))
			return &p->vars[i];
	return NULL;
}

/* Substitute ${NAME}; "$$" is one "$". With out == NULL only checks that
 * every reference is declared (at load time); *bad gets the offending name. */
static int expand(const struct acc_plan *p, const char *s, struct strbuf *out, char **bad, int *unset)
{
	*bad = NULL;
	*unset = 0;
	for (const char *q = s; *q; q++) {
		if (q[0] == '$' && q[1] == '$') {
			if (out)
				sb_adds(out, "$");
			q++;
			continue;
		}
		if (q[0] == '$' && q[1] == '{') {
			const char *e = strchr(q + 2, '}');
			if (!e) {
				*bad = xstrdup(q);
				return -1;
			}
			const struct acc_var *var = find_var(p, q + 2, (size_t)(e - q - 2));
			if (!var) {
				*bad = xstrndup(q + 2, (size_t)(e - q - 2));
				return -1;
			}
			if (!var->value) {
				*bad = xstrdup(var->name);
				*unset = 1;
				return -1;
			}
			if (out)
				sb_adds(out, var->value);
			q = e;
			continue;
		}
		if (out)
			sb_add(out, q, 1);
	}
	return 0;
}

static int has_var(const char *s)
{
	return strstr(s, "${") != NULL;
}

static int is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int parse_status_name(const char *s, enum status *out)
{
	char up[16];
	size_t n = strlen(s);
	if (n >= sizeof up)
		return -1;
	for (size_t i = 0; i <= n; i++)
		up[i] = (char)toupper((unsigned char)s[i]);
	return status_parse(up, out);
}

/* ---- criteria --------------------------------------------------------------- */

static int parse_number(struct vctx *v, const json_t *c, const char *k, const char *where, int *has, double *out)
{
	const json_t *x = json_object_get(c, k);
	*has = 0;
	if (!x || json_is_null(x))
		return 0;
	if (!json_is_number(x)) {
		char key[256];
		snprintf(key, sizeof key, "%s.%s", where, k);
		return verr(v, key, "must be a number, not %s", type_name(x));
	}
	*has = 1;
	*out = json_number_value(x);
	return 0;
}

/* basis: where a number comes from (docs/provenance.md): {kind: method,
 * figure}, {kind: declared, reason, revisit}, {kind: source, url, checked,
 * figure} (a contract annex, a datasheet) or {kind: estimated, reason,
 * revisit}. bw names it in errors ("tests[2].criteria[0].basis"). */
static int check_basis(struct vctx *v, const json_t *b, const char *bw, enum acc_basis_kind *kind_out)
{
	static const char *const mkeys[] = { "kind", "figure", NULL };
	static const char *const dkeys[] = { "kind", "reason", "revisit", NULL };
	static const char *const skeys[] = { "kind", "url", "checked", "figure", NULL };
	char key[200];
	if (!json_is_object(b))
		return verr(v, bw, "must be a mapping {kind: method, figure: ...} or {kind: declared, reason: ..., revisit: ...}");
	const char *kind = json_string_value(json_object_get(b, "kind"));
	snprintf(key, sizeof key, "%s.kind", bw);
	if (!kind)
		return verr(v, key, "missing (method: the method's figure; declared: the plan's choice; source; estimated)");
	int rc;
	char *a = NULL, *b2 = NULL, *c = NULL;
	if (!strcmp(kind, "method")) {
		rc = check_keys(v, b, bw, mkeys);
		if (!rc)
			rc = get_str(v, b, "figure", bw, 1, &a);
		*kind_out = AB_METHOD;
	} else if (!strcmp(kind, "declared") || !strcmp(kind, "estimated")) {
		rc = check_keys(v, b, bw, dkeys);
		if (!rc && !(rc = get_str(v, b, "reason", bw, 1, &a)))
			rc = get_str(v, b, "revisit", bw, 1, &b2);
		*kind_out = kind[0] == 'd' ? AB_DECLARED : AB_ESTIMATED;
	} else if (!strcmp(kind, "source")) {
		rc = check_keys(v, b, bw, skeys);
		if (!rc && !(rc = get_str(v, b, "url", bw, 1, &a)) && !(rc = get_str(v, b, "checked", bw, 1, &b2)))
			rc = get_str(v, b, "figure", bw, 1, &c);
		if (!rc && time_parse_day(b2) < 0) {
			snprintf(key, sizeof key, "%s.checked", bw);
			rc = verr(v, key, "must be a date YYYY-MM-DD (when the figure was compared with its source)");
		}
		*kind_out = AB_SOURCE;
	} else {
		return verr(v, key, "'%s' is not method, declared, source or estimated", kind);
	}
	free(a);
	free(b2);
	free(c);
	return rc;
}

static int parse_basis(struct vctx *v, const json_t *b, const char *where, const json_t *declared, struct acc_crit *cr)
{
	char bw[160], key[200];
	snprintf(bw, sizeof bw, "%s.basis", where);
	int rc = check_basis(v, b, bw, &cr->basis);
	if (rc)
		return rc;
	const char *kind = json_string_value(json_object_get(b, "kind"));
	int is_declared = cr->basis == AB_DECLARED;
	snprintf(key, sizeof key, "%s.kind", bw);
	if (declared && json_is_true(declared) != is_declared)
		return verr(v, key, "%s contradicts declared: %s (declared: true means the plan's own choice, kind declared)",
			    kind, json_is_true(declared) ? "true" : "false");
	cr->declared = is_declared;
	cr->basis_doc = json_deep_copy(b);
	return 0;
}

/* An optional basis on an object that holds numbers other than criteria
 * (a test's args and budget, the retest rule): validated and kept. */
static int parse_basis_of(struct vctx *v, const json_t *o, const char *where, json_t **out)
{
	const json_t *b = json_object_get(o, "basis");
	char bw[160];
	enum acc_basis_kind k;
	*out = NULL;
	if (!b)
		return 0;
	snprintf(bw, sizeof bw, "%s%sbasis", where, *where ? "." : "");
	int rc = check_basis(v, b, bw, &k);
	if (!rc)
		*out = json_deep_copy(b);
	return rc;
}

/* rows: one row id or pattern, or a non-empty list of them. */
static int parse_crit_rows(struct vctx *v, const json_t *rows, const char *where, struct acc_crit *cr)
{
	char key[256];
	snprintf(key, sizeof key, "%s.rows", where);
	if (json_is_string(rows) && *json_string_value(rows)) {
		cr->rows = xcalloc(1, sizeof *cr->rows);
		cr->rows[0] = xstrdup(json_string_value(rows));
		cr->nrows = 1;
	} else if (json_is_array(rows) && json_array_size(rows) > 0) {
		cr->nrows = json_array_size(rows);
		cr->rows = xcalloc(cr->nrows, sizeof *cr->rows);
		for (size_t i = 0; i < cr->nrows; i++) {
			const json_t *x = json_array_get(rows, i);
			if (!json_is_string(x) || !*json_string_value(x))
				return verr(v, key, "item %zu must be a non-empty row id or pattern", i);
			cr->rows[i] = xstrdup(json_string_value(x));
		}
	} else {
		return verr(v, key, "must be a row id pattern or a non-empty list of them");
	}
	return 0;
}

/* max_status / status: the worst (or the exact) status the rows may have. */
static int parse_crit_status(struct vctx *v, const json_t *ms, const json_t *st, const char *where,
			     struct acc_crit *cr)
{
	char key[256];
	const json_t *x = ms ? ms : st;
	snprintf(key, sizeof key, "%s.%s", where, ms ? "max_status" : "status");
	enum status s;
	if (!json_is_string(x) || parse_status_name(json_string_value(x), &s) != 0 || s > ST_FAIL)
		return verr(v, key, "must be PASS, WARN or FAIL");
	cr->kind = CK_STATUS;
	cr->status = (int)s;
	cr->exact = st != NULL;
	if (cr->has_min || cr->has_max)
		return verr(v, where, "min/max apply to count, metric and doc_metric, not to a status");
	return 0;
}

/* count: how many rows have one of the listed statuses, bounded by min/max. */
static int parse_crit_count(struct vctx *v, const json_t *cnt, const char *where, struct acc_crit *cr)
{
	char key[256];
	snprintf(key, sizeof key, "%s.count", where);
	cr->kind = CK_COUNT;
	size_t n = json_is_array(cnt) ? json_array_size(cnt) : 1;
	if (!(json_is_string(cnt) || (json_is_array(cnt) && n > 0)))
		return verr(v, key, "must be a status (PASS, WARN, FAIL, SKIP, ERROR) or a list of them");
	for (size_t i = 0; i < n; i++) {
		const json_t *x = json_is_array(cnt) ? json_array_get(cnt, i) : cnt;
		enum status s;
		if (!json_is_string(x) || parse_status_name(json_string_value(x), &s) != 0)
			return verr(v, key, "must be a status (PASS, WARN, FAIL, SKIP, ERROR) or a list of them");
		cr->count_mask |= 1u << s;
	}
	if (!cr->has_min && !cr->has_max)
		return verr(v, where, "count needs min or max (e.g. max: 0)");
	return 0;
}

/* metric (per row) or doc_metric (whole document): a dotted path bounded by min/max. */
static int parse_crit_metric(struct vctx *v, const json_t *met, const json_t *dm, const char *where,
			     struct acc_crit *cr)
{
	char key[256];
	const json_t *x = met ? met : dm;
	snprintf(key, sizeof key, "%s.%s", where, met ? "metric" : "doc_metric");
	if (!json_is_string(x) || !*json_string_value(x))
		return verr(v, key, "must be a dotted path such as observed.bw_bytes_per_s");
	const char *p = json_string_value(x);
	if (p[0] == '.' || p[strlen(p) - 1] == '.' || strstr(p, ".."))
		return verr(v, key, "'%s' is not a dotted path", p);
	cr->kind = met ? CK_METRIC : CK_DOC_METRIC;
	cr->path = xstrdup(p);
	if (!cr->has_min && !cr->has_max)
		return verr(v, where, "%s needs min or max", met ? "metric" : "doc_metric");
	return 0;
}

static int parse_crit_aggregate(struct vctx *v, const json_t *agg, const char *where, struct acc_crit *cr)
{
	char key[256];
	snprintf(key, sizeof key, "%s.aggregate", where);
	if (cr->kind != CK_METRIC && cr->kind != CK_DOC_METRIC)
		return verr(v, key, "applies to metric and doc_metric only");
	const char *a = json_string_value(agg);
	if (!a)
		return verr(v, key, "must be each, min, max, mean or sum");
	if (!strcmp(a, "each"))
		cr->agg = AG_EACH;
	else if (!strcmp(a, "min"))
		cr->agg = AG_MIN;
	else if (!strcmp(a, "max"))
		cr->agg = AG_MAX;
	else if (!strcmp(a, "mean"))
		cr->agg = AG_MEAN;
	else if (!strcmp(a, "sum"))
		cr->agg = AG_SUM;
	else
		return verr(v, key, "'%s' is not each, min, max, mean or sum", a);
	return 0;
}

/* The optional keys after the criterion's form: aggregate, skipped, min_rows,
 * note, declared and basis, checked in that order. */
static int parse_crit_options(struct vctx *v, const json_t *c, const char *where, struct acc_crit *cr)
{
	char key[256];
	int rc;
	const json_t *agg = json_object_get(c, "aggregate");
	if (agg && (rc = parse_crit_aggregate(v, agg, where, cr)))
		return rc;
	const json_t *sk = json_object_get(c, "skipped");
	if (sk) {
		snprintf(key, sizeof key, "%s.skipped", where);
		if (cr->kind != CK_STATUS && cr->kind != CK_COUNT)
			return verr(v, key, "applies to status and count criteria (a metric needs its figure)");
		const char *s = json_string_value(sk);
		if (s && !strcmp(s, "ignore"))
			cr->skipped_incomplete = 0;
		else if (s && !strcmp(s, "incomplete"))
			cr->skipped_incomplete = 1;
		else
			return verr(v, key, "must be ignore or incomplete");
	}
	const json_t *mr = json_object_get(c, "min_rows");
	if (mr) {
		snprintf(key, sizeof key, "%s.min_rows", where);
		if (!json_object_get(c, "rows"))
			return verr(v, key, "applies to criteria over rows");
		if (!json_is_integer(mr) || json_integer_value(mr) < 1 || json_integer_value(mr) > 100000)
			return verr(v, key, "must be a whole number of rows, at least 1");
		cr->min_rows = (int)json_integer_value(mr);
	}
	if ((rc = get_str(v, c, "note", where, 0, &cr->note)))
		return rc;
	const json_t *dc = json_object_get(c, "declared");
	if (dc) {
		snprintf(key, sizeof key, "%s.declared", where);
		if (!json_is_boolean(dc))
			return verr(v, key, "must be true or false");
		cr->declared = json_is_true(dc);
		cr->basis = cr->declared ? AB_DECLARED : AB_NONE;
	}
	const json_t *bs = json_object_get(c, "basis");
	if (bs && (rc = parse_basis(v, bs, where, dc, cr)))
		return rc;
	return 0;
}

static int parse_crit(struct vctx *v, const json_t *c, const char *where, struct acc_crit *cr)
{
	static const char *const keys[] = { "rows", "max_status", "status", "count", "metric", "doc_metric",
					    "min", "max", "aggregate", "skipped", "min_rows", "note", "declared",
					    "basis", NULL };
	memset(cr, 0, sizeof *cr);
	cr->min_rows = 1;
	if (!json_is_object(c))
		return verr(v, where, "a criterion must be a mapping, not %s", type_name(c));
	int rc = check_keys(v, c, where, keys);
	if (rc)
		return rc;
	const json_t *rows = json_object_get(c, "rows");
	const json_t *ms = json_object_get(c, "max_status"), *st = json_object_get(c, "status");
	const json_t *cnt = json_object_get(c, "count"), *met = json_object_get(c, "metric");
	const json_t *dm = json_object_get(c, "doc_metric");
	char key[256];
	int forms = !!ms + !!st + !!cnt + !!met + !!dm;
	if (forms != 1)
		return verr(v, where, "%s (one of max_status, status, count or metric with rows, or doc_metric)",
			    forms ? "more than one kind of criterion" : "no criterion");
	if (dm && rows) {
		snprintf(key, sizeof key, "%s.rows", where);
		return verr(v, key, "doc_metric reads the whole document; rows does not apply");
	}
	if (!dm && !rows) {
		snprintf(key, sizeof key, "%s.rows", where);
		return verr(v, key, "missing (which rows the criterion reads, e.g. \"hardware.*\")");
	}
	if (rows && (rc = parse_crit_rows(v, rows, where, cr)))
		return rc;
	int all_exact = 1;
	for (size_t i = 0; i < cr->nrows; i++)
		if (is_glob(cr->rows[i]))
			all_exact = 0;
	cr->skipped_incomplete = all_exact;
	if ((rc = parse_number(v, c, "min", where, &cr->has_min, &cr->min)) ||
	    (rc = parse_number(v, c, "max", where, &cr->has_max, &cr->max)))
		return rc;
	if (cr->has_min && cr->has_max && cr->min > cr->max)
		return verr(v, where, "min %g is above max %g", cr->min, cr->max);
	if (ms || st)
		rc = parse_crit_status(v, ms, st, where, cr);
	else if (cnt)
		rc = parse_crit_count(v, cnt, where, cr);
	else
		rc = parse_crit_metric(v, met, dm, where, cr);
	if (rc)
		return rc;
	return parse_crit_options(v, c, where, cr);
}

/* ---- tests ------------------------------------------------------------------ */

static int valid_id(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 64 || !isalnum((unsigned char)s[0]))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || strchr("._-", *s)))
			return 0;
	return 1;
}

static int has_arg(const struct acc_test *t, const char *a, const char *b)
{
	for (size_t i = 1; i < t->nargs; i++)
		if (!strcmp(t->args[i], a) || (b && !strcmp(t->args[i], b)))
			return 1;
	return 0;
}

/* What the command produces, and what cannot work without a terminal. */
/* audit [PROFILE]: the profile it produces (full by default). */
static int args_audit(struct vctx *v, struct acc_test *t, const char *key, const char *a1)
{
	if (has_arg(t, "--show", "-s"))
		return verr(v, key, "--show measures nothing");
	if (a1 && a1[0] != '-') {
		if (!has_var(a1) && !in_list(a1, audit_profiles)) {
			char *l = join_list(audit_profiles);
			int rc = verr(v, key, "'%s' is not an audit profile (%s)", a1, l);
			free(l);
			return rc;
		}
		t->produces = xstrdup(a1);
	} else {
		t->produces = xstrdup("full");
	}
	return 0;
}

/* inject xid|sxid CODE, or inject ras; a --platform must be the plan's system. */
static int args_inject(struct vctx *v, const struct acc_plan *p, struct acc_test *t, const char *key, const char *a1)
{
	if (!a1 || (strcmp(a1, "xid") && strcmp(a1, "sxid") && strcmp(a1, "ras")))
		return verr(v, key, "inject needs xid CODE, sxid CODE or ras after it");
	t->produces = xstrdup(a1);
	if (strcmp(a1, "ras")) {
		const char *code = t->nargs > 2 ? t->args[2] : NULL;
		char *end;
		if (!code)
			return verr(v, key, "inject %s needs a CODE", a1);
		if (!has_var(code)) {
			errno = 0;
			long cv = strtol(code, &end, 10);
			if (*end || errno || cv < 0 || cv > 100000)
				return verr(v, key, "inject %s needs a numeric CODE, not '%s'", a1, code);
			t->fault_code = cv;
		}
	}
	for (size_t i = 1; i < t->nargs; i++) {
		const char *pl = NULL;
		if (!strcmp(t->args[i], "--platform") && i + 1 < t->nargs)
			pl = t->args[i + 1];
		else if (!strncmp(t->args[i], "--platform=", 11))
			pl = t->args[i] + 11;
		if (pl && !has_var(pl) && p->system && strcmp(pl, p->system))
			return verr(v, key, "--platform %s contradicts the plan's system: %s", pl, p->system);
	}
	return 0;
}

/* Every ${NAME} in the arguments is terminated and declared. */
static int args_vars(struct vctx *v, const struct acc_plan *p, const struct acc_test *t, const char *key)
{
	for (size_t i = 0; i < t->nargs; i++) {
		char *bad = NULL;
		int unset;
		if (expand(p, t->args[i], NULL, &bad, &unset) != 0 && !unset) {
			int rc = strncmp(bad, "${", 2) == 0 || !strchr(t->args[i], '}')
					 ? verr(v, key, "unterminated ${ in '%s'", t->args[i])
					 : verr(v, key, "${%s} is not declared under variables", bad);
			free(bad);
			return rc;
		}
		free(bad);
	}
	return 0;
}

static int check_args(struct vctx *v, const struct acc_plan *p, struct acc_test *t, const char *where)
{
	char key[256];
	snprintf(key, sizeof key, "%s.args", where);
	const char *c = t->args[0];
	t->fault_code = -1;
	if (!strcmp(c, "audit"))
		t->cmd = AC_AUDIT;
	else if (!strcmp(c, "bench"))
		t->cmd = AC_BENCH;
	else if (!strcmp(c, "inject"))
		t->cmd = AC_INJECT;
	else if (!strcmp(c, "reboot-test"))
		t->cmd = AC_REBOOT;
	else
		return verr(v, key, "'%s' is not a command whose results accept can judge (audit, bench, inject or reboot-test; "
				    "the cmax program itself is implied)", c);
	if (has_arg(t, "--dry-run", NULL))
		return verr(v, key, "--dry-run measures nothing; remove it (cmax accept --dry-run shows the commands)");
	if (has_arg(t, "--help", "-h"))
		return verr(v, key, "--help measures nothing");
	if (!has_arg(t, "--yes", "-y"))
		return verr(v, key, "needs --yes: accept runs each command without a terminal, where cmax %s "
				    "would refuse to start (accept asks once for the whole plan)", c);
	const char *a1 = t->nargs > 1 ? t->args[1] : NULL;
	int rc = 0;
	switch (t->cmd) {
	case AC_AUDIT:
		rc = args_audit(v, t, key, a1);
		break;
	case AC_BENCH:
		if (!a1 || (!has_var(a1) && !in_list(a1, bench_names))) {
			char *l = join_list(bench_names);
			rc = verr(v, key, "bench needs a benchmark right after it (%s)%s%s%s", l, a1 ? ", not '" : "",
				  a1 ? a1 : "", a1 ? "'" : "");
			free(l);
			return rc;
		}
		t->produces = xstrdup(a1);
		break;
	case AC_INJECT:
		rc = args_inject(v, p, t, key, a1);
		break;
	case AC_REBOOT:
		t->produces = xstrdup("reboot-test");
		break;
	}
	if (rc)
		return rc;
	return args_vars(v, p, t, key);
}

/* requires: what the evidence must have measured, beyond what the args
 * say (require.h); then the args' own requirements. */
static int parse_requires(struct vctx *v, const json_t *rq, const char *where, struct acc_test *t)
{
	char key[160];
	if (rq && !json_is_null(rq)) {
		snprintf(key, sizeof key, "%s.requires", where);
		if (t->cmd != AC_BENCH)
			return verr(v, key, "applies to benchmarks (bench ...): only their documents record how they ran");
		if (!json_is_object(rq))
			return verr(v, key, "must be a mapping such as {mode: full, clients: 8}");
		const char *k;
		json_t *x;
		json_object_foreach((json_t *)rq, k, x) {
			enum acc_req_kind kind;
			const char *why = NULL;
			snprintf(key, sizeof key, "%s.requires.%s", where, k);
			if (acc_req_lookup(k, &kind) != 0) {
				struct strbuf sb = STRBUF_INIT;
				for (int i = 0; i < RQ__COUNT; i++)
					sb_addf(&sb, "%s%s", i ? (i + 1 < RQ__COUNT ? ", " : " or ") : "", acc_req_name((enum acc_req_kind)i));
				int rc = verr(v, key, "unknown key (expected %s)", sb_str(&sb));
				sb_free(&sb);
				return rc;
			}
			if (acc_req_set_explicit(&t->req, kind, x, &why) != 0)
				return verr(v, key, "%s", why);
		}
	}
	acc_reqs_from_args(&t->req, t->cmd == AC_BENCH ? t->produces : NULL, t->args + 1, t->nargs - 1);
	return 0;
}

void acc_test_resolve_reqs(struct acc_test *t, char **argv)
{
	size_t n = 0;
	while (argv[n])
		n++;
	acc_reqs_from_args(&t->req, t->cmd == AC_BENCH ? t->produces : NULL, n ? argv + 1 : argv, n ? n - 1 : 0);
}

/* args: the cmax command line, each item a non-empty string or a number. */
static int parse_test_args(struct vctx *v, const json_t *args, const char *where, struct acc_test *t)
{
	char key[128];
	snprintf(key, sizeof key, "%s.args", where);
	if (!json_is_array(args) || json_array_size(args) == 0)
		return verr(v, key, "%s (a list such as [bench, storage, --path, \"${SHARED_PATH}\", --yes])",
			    args ? "must be a non-empty list" : "missing (required)");
	t->nargs = json_array_size(args);
	t->args = xcalloc(t->nargs + 1, sizeof *t->args);
	for (size_t i = 0; i < t->nargs; i++) {
		const json_t *x = json_array_get(args, i);
		t->args[i] = scalar_text(x);
		if (!t->args[i] || !*t->args[i]) {
			snprintf(key, sizeof key, "%s.args[%zu]", where, i);
			return verr(v, key, "must be a non-empty string or a number, not %s", t->args[i] ? "\"\"" : type_name(x));
		}
	}
	return 0;
}

static int parse_test_duration(struct vctx *v, const json_t *d, const char *where, struct acc_test *t)
{
	char key[128];
	snprintf(key, sizeof key, "%s.duration", where);
	if (!d || json_is_null(d))
		return verr(v, key, "missing (the time budget, e.g. 15m or 8h)");
	char *dt = json_is_integer(d) || json_is_string(d) ? scalar_text(d) : NULL;
	if (!dt || acc_parse_duration(dt, &t->duration_s) != 0) {
		int r2 = verr(v, key, "'%s' is not a duration (e.g. 90s, 15m, 8h, 1h30m, 2d; at most 7d)",
			      dt ? dt : type_name(d));
		free(dt);
		return r2;
	}
	t->duration_text = dt;
	return 0;
}

/* from: optional; which result files the test reads, by name pattern. */
static int parse_test_from(struct vctx *v, const json_t *from, const char *where, struct acc_test *t)
{
	char key[128];
	if (!from)
		return 0;
	snprintf(key, sizeof key, "%s.from", where);
	size_t n = json_is_array(from) ? json_array_size(from) : 1;
	if (!(json_is_string(from) || (json_is_array(from) && n > 0)))
		return verr(v, key, "must be a file name pattern or a list of them");
	t->from = xcalloc(n, sizeof *t->from);
	for (size_t i = 0; i < n; i++) {
		const json_t *x = json_is_array(from) ? json_array_get(from, i) : from;
		if (!json_is_string(x) || !*json_string_value(x))
			return verr(v, key, "must be a file name pattern or a list of them");
		t->from[t->nfrom++] = xstrdup(json_string_value(x));
	}
	return 0;
}

static int parse_test_criteria(struct vctx *v, const json_t *cr, const char *where, struct acc_test *t)
{
	char key[128];
	int rc;
	snprintf(key, sizeof key, "%s.criteria", where);
	if (!json_is_array(cr) || json_array_size(cr) == 0)
		return verr(v, key, "%s: a test without pass criteria cannot pass", cr ? "must be a non-empty list" : "missing");
	t->ncrit = json_array_size(cr);
	t->crit = xcalloc(t->ncrit, sizeof *t->crit);
	for (size_t i = 0; i < t->ncrit; i++) {
		char cw[96];
		snprintf(cw, sizeof cw, "%s.criteria[%zu]", where, i);
		if ((rc = parse_crit(v, json_array_get(cr, i), cw, &t->crit[i])))
			return rc;
	}
	return 0;
}

static int parse_test(struct vctx *v, const struct acc_plan *p, const json_t *o, size_t idx, struct acc_test *t)
{
	static const char *const keys[] = { "id", "title", "group", "args", "duration", "criteria", "from", "notes",
					    "requires", "basis", NULL };
	char where[64], key[128];
	snprintf(where, sizeof where, "tests[%zu]", idx);
	if (!json_is_object(o))
		return verr(v, where, "a test must be a mapping, not %s", type_name(o));
	int rc = check_keys(v, o, where, keys);
	if (rc || (rc = get_str(v, o, "id", where, 1, &t->id)) || (rc = get_str(v, o, "title", where, 1, &t->title)) ||
	    (rc = get_str(v, o, "group", where, 0, &t->group)) || (rc = get_str(v, o, "notes", where, 0, &t->notes)))
		return rc;
	snprintf(key, sizeof key, "%s.id", where);
	if (!valid_id(t->id))
		return verr(v, key, "'%s' must be 1-64 letters, digits, '.', '_' or '-' (it names files)", t->id);
	if (!strcmp(t->id, "accept"))
		return verr(v, key, "'accept' is taken: a run writes its own accept.json next to each test's ID.json");
	for (size_t i = 0; i < idx; i++)
		if (!strcmp(p->tests[i].id, t->id))
			return verr(v, key, "'%s' is used twice (tests[%zu] too)", t->id, i);
	if (!t->group)
		t->group = xstrdup(t->id);

	if ((rc = parse_test_args(v, json_object_get(o, "args"), where, t)) || (rc = check_args(v, p, t, where)) ||
	    (rc = parse_requires(v, json_object_get(o, "requires"), where, t)) ||
	    (rc = parse_basis_of(v, o, where, &t->basis_doc)) ||
	    (rc = parse_test_duration(v, json_object_get(o, "duration"), where, t)) ||
	    (rc = parse_test_from(v, json_object_get(o, "from"), where, t)))
		return rc;
	return parse_test_criteria(v, json_object_get(o, "criteria"), where, t);
}

/* ---- the plan ------------------------------------------------------------------ */

/* variables: NAME: default (null: no default, --var must give it). */
static int parse_vars(struct vctx *v, const json_t *vars, struct acc_plan *p)
{
	if (!json_is_object(vars))
		return verr(v, "variables", "must be a mapping NAME: default");
	p->vars = xcalloc(json_object_size(vars) + 1, sizeof *p->vars);
	const char *k;
	json_t *x;
	json_object_foreach((json_t *)vars, k, x) {
		char key[160];
		snprintf(key, sizeof key, "variables.%s", k);
		if (!valid_var_name(k) || strlen(k) > 64)
			return verr(v, key, "a variable name is letters, digits and '_' (not starting with a digit)");
		struct acc_var *var = &p->vars[p->nvars++];
		var->name = xstrdup(k);
		if (json_is_null(x))
			continue; /* no default: --var must give it */
		var->value = scalar_text(x);
		if (!var->value)
			return verr(v, key, "the default must be a string or a number (null: no default), not %s",
				    type_name(x));
	}
	return 0;
}

/* retest: how many attempts, over which tests, within how many days. */
static int parse_retest(struct vctx *v, const json_t *rt, struct acc_plan *p)
{
	static const char *const rkeys[] = { "max_attempts", "scope", "window_days", "basis", NULL };
	int rc;
	if (!rt)
		return verr(v, "retest", "missing (the retest rule: max_attempts, scope, window_days)");
	if (!json_is_object(rt))
		return verr(v, "retest", "must be a mapping");
	if ((rc = check_keys(v, rt, "retest", rkeys)) || (rc = parse_basis_of(v, rt, "retest", &p->retest_basis)))
		return rc;
	const json_t *ma = json_object_get(rt, "max_attempts");
	if (!json_is_integer(ma) || json_integer_value(ma) < 1 || json_integer_value(ma) > 20)
		return verr(v, "retest.max_attempts", "%s (a whole number 1-20; 1 = no retest)",
			    ma ? "out of range" : "missing");
	p->max_attempts = (int)json_integer_value(ma);
	const json_t *sc = json_object_get(rt, "scope");
	if (sc) {
		const char *s = json_string_value(sc);
		if (s && !strcmp(s, "failed"))
			p->scope = RS_FAILED;
		else if (s && !strcmp(s, "group"))
			p->scope = RS_GROUP;
		else if (s && !strcmp(s, "all"))
			p->scope = RS_ALL;
		else
			return verr(v, "retest.scope", "must be failed, group or all");
	}
	const json_t *wd = json_object_get(rt, "window_days");
	if (wd && !json_is_null(wd)) {
		if (!json_is_integer(wd) || json_integer_value(wd) < 0 || json_integer_value(wd) > 3650)
			return verr(v, "retest.window_days", "must be a whole number of days (0-3650) or null");
		p->window_days = (int)json_integer_value(wd);
	}
	return 0;
}

enum cmax_err acc_plan_from_json(const json_t *root, const char *label, struct acc_plan *p, char **err)
{
	static const char *const keys[] = { "schema", "name", "system", "acceptance_date", "version", "sources",
					    "notes", "variables", "retest", "tests", NULL };
	struct vctx v = { label, err };
	int rc;
	memset(p, 0, sizeof *p);
	*err = NULL;
	p->path = xstrdup(label);
	p->window_days = -1;
	if (!json_is_object(root))
		return verr(&v, NULL, "an acceptance plan must be a mapping, not %s", type_name(root));
	const char *schema = json_string_value(json_object_get(root, "schema"));
	if (!schema)
		return verr(&v, "schema", "missing (expected \"%s\")", ACC_PLAN_SCHEMA);
	if (strcmp(schema, ACC_PLAN_SCHEMA))
		return verr(&v, "schema", "'%s' is not %s", schema, ACC_PLAN_SCHEMA);
	if ((rc = check_keys(&v, root, "", keys)) || (rc = get_str(&v, root, "name", "", 1, &p->name)) ||
	    (rc = get_str(&v, root, "system", "", 1, &p->system)) ||
	    (rc = get_str(&v, root, "acceptance_date", "", 1, &p->acceptance_date)) ||
	    (rc = get_str(&v, root, "notes", "", 0, &p->notes)))
		return rc;
	if (strcmp(p->system, "hgx") && strcmp(p->system, "nvl72"))
		return verr(&v, "system", "'%s' is not hgx or nvl72", p->system);
	if (time_parse_day(p->acceptance_date) < 0)
		return verr(&v, "acceptance_date", "'%s' is not a date YYYY-MM-DD", p->acceptance_date);
	const json_t *ver = json_object_get(root, "version");
	if (ver) {
		p->version = scalar_text(ver);
		if (!p->version)
			return verr(&v, "version", "must be a string or a number");
	}
	const json_t *src = json_object_get(root, "sources");
	if (src) {
		if (!json_is_array(src))
			return verr(&v, "sources", "must be a list of strings");
		for (size_t i = 0; i < json_array_size(src); i++)
			if (!json_is_string(json_array_get(src, i)))
				return verr(&v, "sources", "item %zu must be a string", i);
		p->sources = json_deep_copy(src);
	}

	const json_t *vars = json_object_get(root, "variables");
	if (vars && !json_is_null(vars) && (rc = parse_vars(&v, vars, p)))
		return rc;
	if ((rc = parse_retest(&v, json_object_get(root, "retest"), p)))
		return rc;

	const json_t *tests = json_object_get(root, "tests");
	if (!json_is_array(tests) || json_array_size(tests) == 0)
		return verr(&v, "tests", "%s", tests ? "must be a non-empty list" : "missing (required)");
	p->tests = xcalloc(json_array_size(tests), sizeof *p->tests);
	for (size_t i = 0; i < json_array_size(tests); i++) {
		p->ntests = i + 1;
		if ((rc = parse_test(&v, p, json_array_get(tests, i), i, &p->tests[i])))
			return rc;
	}
	return 0;
}

enum cmax_err acc_plan_load(const char *path, struct acc_plan *p, char **err)
{
	int missing = 0;
	char *yerr = NULL;
	memset(p, 0, sizeof *p);
	json_t *root = yamljson_load_file2(path, &yerr, &missing);
	if (!root) {
		*err = yerr ? yerr : xasprintf("%s: cannot be read", path);
		return missing ? CE_NOINPUT : CE_DATA;
	}
	int rc = acc_plan_from_json(root, path, p, err);
	json_decref(root);
	return rc;
}

static void crit_free(struct acc_crit *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		free(c->rows[i]);
	free(c->rows);
	free(c->path);
	free(c->note);
	json_decref(c->basis_doc);
}

void acc_plan_free(struct acc_plan *p)
{
	for (size_t i = 0; i < p->ntests; i++) {
		struct acc_test *t = &p->tests[i];
		free(t->id);
		free(t->title);
		free(t->group);
		free(t->notes);
		for (size_t j = 0; j < t->nargs; j++)
			free(t->args[j]);
		free(t->args);
		free(t->duration_text);
		for (size_t j = 0; j < t->nfrom; j++)
			free(t->from[j]);
		free(t->from);
		for (size_t j = 0; j < t->ncrit; j++)
			crit_free(&t->crit[j]);
		free(t->crit);
		free(t->produces);
		acc_reqs_free(&t->req);
		json_decref(t->basis_doc);
	}
	free(p->tests);
	for (size_t i = 0; i < p->nvars; i++) {
		free(p->vars[i].name);
		free(p->vars[i].value);
	}
	free(p->vars);
	free(p->path);
	free(p->name);
	free(p->system);
	free(p->acceptance_date);
	free(p->version);
	free(p->notes);
	json_decref(p->sources);
	json_decref(p->retest_basis);
	memset(p, 0, sizeof *p);
}

enum cmax_err acc_plan_set_var(struct acc_plan *p, const char *kv, char **err)
{
	const char *eq = strchr(kv, '=');
	if (!eq || eq == kv) {
		*err = xasprintf("--var wants KEY=VALUE, not '%s'", kv);
		return CE_USAGE;
	}
	for (size_t i = 0; i < p->nvars; i++) {
		struct acc_var *v = &p->vars[i];
		if (strlen(v->name) == (size_t)(eq - kv) && !strncmp(v->name, kv, (size_t)(eq - kv))) {
			free(v->value);
			v->value = xstrdup(eq + 1);
			v->from_cli = 1;
			return 0;
		}
	}
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < p->nvars; i++)
		sb_addf(&sb, "%s%s", i ? ", " : "", p->vars[i].name);
	*err = xasprintf("--var %.*s: the plan declares no such variable (%s)", (int)(eq - kv), kv,
			 p->nvars ? sb_str(&sb) : "it declares none");
	sb_free(&sb);
	return CE_USAGE;
}

char **acc_test_argv(const struct acc_plan *p, const struct acc_test *t, char **err)
{
	char **argv = xcalloc(t->nargs + 1, sizeof *argv);
	*err = NULL;
	for (size_t i = 0; i < t->nargs; i++) {
		struct strbuf sb = STRBUF_INIT;
		char *bad = NULL;
		int unset;
		if (expand(p, t->args[i], &sb, &bad, &unset) != 0) {
			*err = unset ? xasprintf("test %s needs ${%s}, which has no default: pass --var %s=VALUE", t->id, bad, bad)
				     : xasprintf("test %s: cannot expand '%s'", t->id, t->args[i]);
			free(bad);
			sb_free(&sb);
			acc_argv_free(argv);
			return NULL;
		}
		argv[i] = sb_detach(&sb);
		if (!argv[i])
			argv[i] = xstrdup("");
	}
	return argv;
}

void acc_argv_free(char **argv)
{
	if (!argv)
		return;
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

enum cmax_err acc_check_resolved(const struct acc_plan *p, const struct acc_test *t, char **argv, char **err)
{
	struct acc_test tmp = *t;
	size_t n = 0;
	while (argv[n])
		n++;
	tmp.args = argv;
	tmp.nargs = n;
	tmp.produces = NULL;
	char *label = xasprintf("test %s with its variables set", t->id);
	struct vctx v = { label, err };
	size_t idx = (size_t)(t - p->tests);
	char where[64];
	snprintf(where, sizeof where, "tests[%zu]", idx);
	int rc = n ? check_args(&v, p, &tmp, where) : verr(&v, where, "no args");
	free(tmp.produces);
	free(label);
	return rc ? CE_USAGE : 0;
}

const struct acc_test *acc_plan_test(const struct acc_plan *p, const char *id)
{
	for (size_t i = 0; i < p->ntests; i++)
		if (!strcmp(p->tests[i].id, id))
			return &p->tests[i];
	return NULL;
}
