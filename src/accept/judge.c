/* Criterion evaluation and document matching (see judge.h). */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accept/judge.h"
#include "core/result.h"
#include "core/strbuf.h"

const char *acc_st_name(enum acc_st s)
{
	return s == AS_PASS ? "PASS" : s == AS_FAIL ? "FAIL" : "INCOMPLETE";
}

int acc_st_parse(const char *s, enum acc_st *out)
{
	if (!s)
		return -1;
	if (!strcmp(s, "PASS"))
		*out = AS_PASS;
	else if (!strcmp(s, "FAIL"))
		*out = AS_FAIL;
	else if (!strcmp(s, "INCOMPLETE"))
		*out = AS_INCOMPLETE;
	else
		return -1;
	return 0;
}

enum acc_st acc_st_worse(enum acc_st a, enum acc_st b)
{
	if (a == AS_FAIL || b == AS_FAIL)
		return AS_FAIL;
	if (a == AS_INCOMPLETE || b == AS_INCOMPLETE)
		return AS_INCOMPLETE;
	return AS_PASS;
}

/* ---- paths ------------------------------------------------------------------ */

static int scalar_equals(const json_t *x, const char *want)
{
	char *end;
	if (json_is_string(x))
		return !strcmp(json_string_value(x), want);
	if (json_is_integer(x)) {
		errno = 0;
		long long v = strtoll(want, &end, 10);
		return *want && !*end && !errno && v == json_integer_value(x);
	}
	if (json_is_real(x)) {
		double v = strtod(want, &end);
		return *want && !*end && v == json_real_value(x);
	}
	if (json_is_boolean(x))
		return !strcmp(want, json_is_true(x) ? "true" : "false");
	return 0;
}

static const json_t *index_or_key(const json_t *v, const char *key)
{
	if (json_is_object(v))
		return json_object_get(v, key);
	if (json_is_array(v)) {
		char *end;
		errno = 0;
		if (!*key || key[0] == '-' || key[0] == '+')
			return NULL;
		unsigned long i = strtoul(key, &end, 10);
		if (*end || errno)
			return NULL;
		return json_array_get(v, i);
	}
	return NULL;
}

/* One step: a key (or array index), optionally followed by [N] or [field=value]. */
static const json_t *step(const json_t *v, char *seg)
{
	size_t len = strlen(seg);
	char *br = strchr(seg, '[');
	if (br) {
		if (seg[len - 1] != ']' || strchr(br + 1, '['))
			return NULL;
		*br = 0;
		seg[len - 1] = 0;
	}
	if (*seg)
		v = index_or_key(v, seg);
	if (!br || !v)
		return v;
	char *sel = br + 1, *eq = strchr(sel, '=');
	if (!eq)
		return json_is_array(v) ? index_or_key(v, sel) : NULL;
	*eq = 0;
	size_t i;
	json_t *e;
	if (!json_is_array(v) || !*sel)
		return NULL;
	json_array_foreach((json_t *)v, i, e) {
		const json_t *f = json_is_object(e) ? json_object_get(e, sel) : NULL;
		if (f && scalar_equals(f, eq + 1))
			return e;
	}
	return NULL;
}

#define MAX_SEGS 64

const json_t *acc_path_get(const json_t *v, const char *path)
{
	if (!path || !*path || strlen(path) > 1024)
		return NULL;
	/* split at dots outside brackets */
	char buf[1032];
	char *seg[MAX_SEGS];
	size_t n = 0;
	strcpy(buf, path);
	char *p = buf, *s = buf;
	int depth = 0;
	for (;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']')
			depth--;
		if (*p == 0 || (*p == '.' && depth == 0)) {
			if (p == s || n == MAX_SEGS || depth)
				return NULL;
			int end = *p == 0;
			*p = 0;
			seg[n++] = s;
			s = p + 1;
			if (end)
				break;
		}
	}
	for (size_t i = 0; v && i < n;) {
		if (json_is_object(v) && !strchr(seg[i], '[')) {
			/* keys may hold dots ("p99.9"): the longest run of segments that is a key wins */
			size_t last = i;
			while (last + 1 < n && !strchr(seg[last + 1], '['))
				last++;
			const json_t *found = NULL;
			for (size_t j = last + 1; j-- > i && !found;) {
				char key[1032] = "";
				for (size_t k = i; k <= j; k++) {
					if (k > i)
						strcat(key, ".");
					strcat(key, seg[k]);
				}
				if ((found = json_object_get(v, key)))
					i = j + 1;
			}
			v = found;
			continue;
		}
		v = step(v, seg[i]);
		i++;
	}
	return v;
}

int acc_path_number(const json_t *v, const char *path, double *out)
{
	const json_t *x = acc_path_get(v, path);
	if (!json_is_number(x))
		return 0;
	*out = json_number_value(x);
	return isfinite(*out);
}

/* ---- wording ------------------------------------------------------------------ */

static void fmt_num(char *buf, size_t n, double v)
{
	if (v == floor(v) && fabs(v) < 1e7)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.6g", v);
}

static void add_bounds(struct strbuf *sb, const struct acc_crit *c)
{
	char a[32], b[32];
	fmt_num(a, sizeof a, c->min);
	fmt_num(b, sizeof b, c->max);
	if (c->has_min && c->has_max)
		sb_addf(sb, "in [%s, %s]", a, b);
	else if (c->has_min)
		sb_addf(sb, ">= %s", a);
	else
		sb_addf(sb, "<= %s", b);
}

static void add_rows(struct strbuf *sb, const struct acc_crit *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		sb_addf(sb, "%s%s", i ? (i + 1 < c->nrows ? ", " : " and ") : "", c->rows[i]);
}

char *acc_crit_describe(const struct acc_crit *c)
{
	struct strbuf sb = STRBUF_INIT;
	switch (c->kind) {
	case CK_STATUS:
		if (c->nrows == 1 && !strpbrk(c->rows[0], "*?["))
			sb_adds(&sb, c->rows[0]);
		else {
			sb_adds(&sb, "every row of ");
			add_rows(&sb, c);
		}
		sb_addf(&sb, c->exact ? " is %s" : " at most %s", status_name((enum status)c->status));
		break;
	case CK_COUNT:
		for (int s = 0, k = 0; s < ST__COUNT; s++)
			if (c->count_mask & (1u << s))
				sb_addf(&sb, "%s%s", k++ ? "/" : "", status_name((enum status)s));
		sb_adds(&sb, " rows among ");
		add_rows(&sb, c);
		sb_adds(&sb, " ");
		add_bounds(&sb, c);
		break;
	case CK_METRIC:
		add_rows(&sb, c);
		sb_addf(&sb, " %s", c->path);
		if (c->agg != AG_EACH)
			sb_addf(&sb, " (%s over rows)", acc_agg_name(c->agg));
		sb_adds(&sb, " ");
		add_bounds(&sb, c);
		break;
	case CK_DOC_METRIC:
		sb_addf(&sb, "%s", c->path);
		if (c->agg != AG_EACH)
			sb_addf(&sb, " (%s over documents)", acc_agg_name(c->agg));
		sb_adds(&sb, " ");
		add_bounds(&sb, c);
		break;
	}
	if (c->declared)
		sb_adds(&sb, " (declared)");
	return sb_detach(&sb);
}

/* ---- rows of the test's documents ---------------------------------------------- */

static int in_docs(const struct acc_docs *docs, const struct ev_doc *d)
{
	for (size_t i = 0; i < docs->n; i++)
		if (docs->d[i] == d)
			return 1;
	return 0;
}

struct rowlist {
	const struct ev_row **r;
	size_t n;
	char **label;
};

static void collect_rows(const struct acc_crit *c, const struct ev_set *s, const struct acc_docs *docs,
			 struct rowlist *rl, struct strbuf *unmatched)
{
	memset(rl, 0, sizeof *rl);
	rl->r = xcalloc(s->nrows + 1, sizeof *rl->r);
	for (size_t i = 0; i < s->nrows; i++) {
		const struct ev_row *r = &s->rows[i];
		if (!in_docs(docs, r->doc))
			continue;
		for (size_t k = 0; k < c->nrows; k++)
			if (fnmatch(c->rows[k], r->id, 0) == 0) {
				rl->r[rl->n++] = r;
				break;
			}
	}
	/* an exact id names a row that must be there */
	for (size_t k = 0; k < c->nrows; k++) {
		if (strpbrk(c->rows[k], "*?["))
			continue;
		size_t j;
		for (j = 0; j < rl->n; j++)
			if (!strcmp(rl->r[j]->id, c->rows[k]))
				break;
		if (j == rl->n)
			sb_addf(unmatched, "%s%s", unmatched->len ? ", " : "", c->rows[k]);
	}
	/* the same id from several hosts or documents: name the host */
	rl->label = xcalloc(rl->n + 1, sizeof *rl->label);
	for (size_t i = 0; i < rl->n; i++) {
		int dup = 0;
		for (size_t j = 0; j < rl->n && !dup; j++)
			dup = j != i && !strcmp(rl->r[i]->id, rl->r[j]->id);
		rl->label[i] = dup && rl->r[i]->host ? xasprintf("%s@%s", rl->r[i]->id, rl->r[i]->host)
						     : xstrdup(rl->r[i]->id);
	}
}

static void rowlist_free(struct rowlist *rl)
{
	for (size_t i = 0; i < rl->n; i++)
		free(rl->label[i]);
	free(rl->label);
	free(rl->r);
}

static char *short_summary(const char *s)
{
	if (!s || !*s)
		return xstrdup("no summary");
	return str_excerpt(s, strlen(s), 140);
}

/* "first (and N more)" */
static char *first_and_more(const char *first, size_t n)
{
	return n > 1 ? xasprintf("%s (and %zu more)", first, n - 1) : xstrdup(first);
}

static void set_res(struct acc_crit_res *out, enum acc_st st, char *why)
{
	out->st = st;
	free(out->why);
	out->why = why;
}

/* ---- status and count ------------------------------------------------------------ */

static void eval_status(const struct acc_crit *c, const struct rowlist *rl, const char *unmatched,
			struct acc_crit_res *out)
{
	size_t graded = 0, ignored = 0, nviol = 0, nmiss = 0;
	size_t counts[ST__COUNT] = { 0 };
	int worst = -1;
	char *viol = NULL, *miss = NULL;
	json_t *jv = json_array(), *jm = json_array();
	for (size_t i = 0; i < rl->n; i++) {
		const struct ev_row *r = rl->r[i];
		counts[r->status]++;
		if (r->malformed) {
			/* its status was graded from impossible figures: unknown, never a verdict */
			json_array_append_new(jm, json_string(rl->label[i]));
			if (!nmiss++)
				miss = xasprintf("%s holds malformed evidence (%s): not judged", rl->label[i], r->malformed);
		} else if (r->status <= ST_FAIL) {
			graded++;
			if ((int)r->status > worst)
				worst = (int)r->status;
			int ok = c->exact ? (int)r->status == c->status : (int)r->status <= c->status;
			if (!ok) {
				json_array_append_new(jv, json_string(rl->label[i]));
				if (!nviol++) {
					char *sm = short_summary(r->summary);
					viol = xasprintf("%s is %s: %s", rl->label[i], status_name(r->status), sm);
					free(sm);
				}
			}
		} else if (r->status == ST_SKIP && !c->skipped_incomplete) {
			ignored++;
		} else {
			json_array_append_new(jm, json_string(rl->label[i]));
			if (!nmiss++) {
				char *sm = short_summary(r->summary);
				miss = xasprintf("%s is %s: %s", rl->label[i], status_name(r->status), sm);
				free(sm);
			}
		}
	}
	json_t *cj = json_object();
	for (int s = 0; s < ST__COUNT; s++)
		if (counts[s])
			json_object_set_new(cj, status_name((enum status)s), json_integer((json_int_t)counts[s]));
	json_object_set_new(out->observed, "rows", json_integer((json_int_t)rl->n));
	json_object_set_new(out->observed, "counts", cj);
	json_object_set_new(out->observed, "worst", worst >= 0 ? json_string(status_name((enum status)worst)) : json_null());
	json_object_set_new(out->observed, "violations", jv);
	json_object_set_new(out->observed, "missing", jm);
	if (nviol)
		set_res(out, AS_FAIL, first_and_more(viol, nviol));
	else if (*unmatched)
		set_res(out, AS_INCOMPLETE, xasprintf("no row %s in the evidence", unmatched));
	else if (nmiss)
		set_res(out, AS_INCOMPLETE, first_and_more(miss, nmiss));
	else if (graded < (size_t)c->min_rows)
		set_res(out, AS_INCOMPLETE, rl->n ? xasprintf("only %zu of %zu matching rows graded (at least %d needed; %zu SKIP)",
							      graded, rl->n, c->min_rows, ignored)
						  : xstrdup("no row matches in the evidence"));
	else if (ignored)
		set_res(out, AS_PASS, xasprintf("%zu row%s graded, worst %s (%zu SKIP ignored)", graded, graded == 1 ? "" : "s",
						status_name((enum status)worst), ignored));
	else
		set_res(out, AS_PASS, xasprintf("%zu row%s graded, worst %s", graded, graded == 1 ? "" : "s",
						status_name((enum status)worst)));
	free(viol);
	free(miss);
}

static void eval_count(const struct acc_crit *c, const struct rowlist *rl, const char *unmatched,
		       struct acc_crit_res *out)
{
	size_t count = 0, unknown = 0;
	char *unk = NULL;
	for (size_t i = 0; i < rl->n; i++) {
		const struct ev_row *r = rl->r[i];
		if (r->malformed) {
			if (!unknown++)
				unk = xasprintf("%s holds malformed evidence: %s", rl->label[i], r->malformed);
		} else if (c->count_mask & (1u << r->status))
			count++;
		else if (r->status == ST_ERROR || (r->status == ST_SKIP && c->skipped_incomplete)) {
			if (!unknown++) {
				char *sm = short_summary(r->summary);
				unk = xasprintf("%s is %s: %s", rl->label[i], status_name(r->status), sm);
				free(sm);
			}
		}
	}
	json_object_set_new(out->observed, "count", json_integer((json_int_t)count));
	json_object_set_new(out->observed, "rows", json_integer((json_int_t)rl->n));
	json_object_set_new(out->observed, "unknown", json_integer((json_int_t)unknown));
	double n = (double)count, hi = (double)(count + unknown);
	char a[32], b[32];
	fmt_num(a, sizeof a, c->min);
	fmt_num(b, sizeof b, c->max);
	if (c->has_max && n > c->max)
		set_res(out, AS_FAIL, xasprintf("%zu counted, more than %s", count, b));
	else if (c->has_min && hi < c->min)
		set_res(out, AS_FAIL, xasprintf("%zu counted, fewer than %s", count, a));
	else if (*unmatched)
		set_res(out, AS_INCOMPLETE, xasprintf("no row %s in the evidence", unmatched));
	else if (rl->n < (size_t)c->min_rows)
		set_res(out, AS_INCOMPLETE, rl->n ? xasprintf("only %zu matching rows (at least %d needed)", rl->n, c->min_rows)
						  : xstrdup("no row matches in the evidence"));
	else if ((c->has_max && hi > c->max) || (c->has_min && n < c->min))
		set_res(out, AS_INCOMPLETE, xasprintf("%zu counted, but %zu row%s unknown (%s)", count, unknown,
						      unknown == 1 ? "" : "s", unk));
	else
		set_res(out, AS_PASS, xasprintf("%zu counted among %zu rows", count, rl->n));
	free(unk);
}

/* ---- figures ----------------------------------------------------------------------- */

struct vals {
	double *v;
	char **label;
	size_t n;
	size_t nmiss;
	char *first_miss;
	json_t *malformed; /* [{from, why}]: figures that are not measurements */
};

static void vals_add(struct vals *x, const char *label, double v)
{
	x->v = xrealloc(x->v, (x->n + 1) * sizeof *x->v);
	x->label = xrealloc(x->label, (x->n + 1) * sizeof *x->label);
	x->v[x->n] = v;
	x->label[x->n++] = xstrdup(label);
}

static void vals_miss(struct vals *x, char *why)
{
	if (!x->nmiss++)
		x->first_miss = why;
	else
		free(why);
}

/* A figure that cannot be a measurement: missing for the verdict, and named. */
static void vals_malformed(struct vals *x, const char *from, const char *why)
{
	if (!x->malformed)
		x->malformed = json_array();
	json_t *e = json_object();
	json_object_set_new(e, "from", json_string(from));
	json_object_set_new(e, "why", json_string(why));
	json_array_append_new(x->malformed, e);
	vals_miss(x, xasprintf("%s: %s: malformed evidence, not judged", from, why));
}

static void vals_free(struct vals *x)
{
	json_decref(x->malformed);
	for (size_t i = 0; i < x->n; i++)
		free(x->label[i]);
	free(x->label);
	free(x->v);
	free(x->first_miss);
}

static int violates(const struct acc_crit *c, double v)
{
	return (c->has_min && v < c->min) || (c->has_max && v > c->max);
}

static void values_observed(const struct vals *x, struct acc_crit_res *out)
{
	json_t *jv = json_array();
	for (size_t i = 0; i < x->n; i++) {
		json_t *e = json_object();
		json_object_set_new(e, "from", json_string(x->label[i]));
		json_object_set_new(e, "value", json_real(x->v[i]));
		json_array_append_new(jv, e);
	}
	json_object_set_new(out->observed, "values", jv);
	json_object_set_new(out->observed, "missing", json_integer((json_int_t)x->nmiss));
	json_object_set_new(out->observed, "malformed", x->malformed ? json_incref(x->malformed) : json_array());
}

/* The figure that decides, and where it came from (x->n > 0). Returns -1
 * when the aggregate overflows: then out is judged already. */
static int decisive_value(const struct acc_crit *c, const struct vals *x, double *aggp, size_t *atp,
			  struct acc_crit_res *out)
{
	double agg;
	size_t at = 0;
	/* the figure that decides: the lowest against a floor, the highest against a ceiling */
	int low = c->has_min && !(c->has_max && c->agg == AG_MAX);
	enum acc_agg g = c->agg == AG_EACH ? (low ? AG_MIN : AG_MAX) : c->agg;
	agg = g == AG_MEAN || g == AG_SUM ? 0 : x->v[0];
	for (size_t i = 0; i < x->n; i++) {
		if ((g == AG_MIN && x->v[i] < agg) || (g == AG_MAX && x->v[i] > agg)) {
			agg = x->v[i];
			at = i;
		}
		if (g == AG_MEAN || g == AG_SUM)
			agg += x->v[i];
	}
	if (g == AG_MEAN)
		agg /= (double)x->n;
	if (!isfinite(agg)) {
		/* every figure was within its bounds, their sum is not a number a JSON document holds */
		json_object_set_new(out->observed, "value", json_null());
		set_res(out, AS_INCOMPLETE, xasprintf("the %s of %zu figures overflows: malformed evidence, not judged",
						      acc_agg_name(g), x->n));
		return -1;
	}
	if (c->agg == AG_EACH) {
		/* a violation on the other side than the decisive figure */
		for (size_t i = 0; i < x->n && !violates(c, agg); i++)
			if (violates(c, x->v[i])) {
				agg = x->v[i];
				at = i;
			}
	}
	*aggp = agg;
	*atp = at;
	return 0;
}

/* Whether the figures read so far already fail, whatever is missing. */
static int decides_fail(const struct acc_crit *c, const struct vals *x, double agg, size_t nviol)
{
	switch (c->agg) {
	case AG_EACH: return nviol > 0;
	/* missing figures can only lower a minimum and raise a maximum */
	case AG_MIN: return x->n && ((c->has_min && agg < c->min) || (!x->nmiss && violates(c, agg)));
	case AG_MAX: return x->n && ((c->has_max && agg > c->max) || (!x->nmiss && violates(c, agg)));
	default: return x->n && !x->nmiss && violates(c, agg);
	}
}

static void judge_values(const struct acc_crit *c, const struct vals *x, const char *what_none, int min_n,
			 struct acc_crit_res *out)
{
	char a[32], b[32], vb[32];
	double agg = NAN;
	size_t at = 0;
	values_observed(x, out);
	if (x->n && decisive_value(c, x, &agg, &at, out))
		return;
	json_object_set_new(out->observed, "value", x->n ? json_real(agg) : json_null());
	fmt_num(a, sizeof a, c->min);
	fmt_num(b, sizeof b, c->max);
	fmt_num(vb, sizeof vb, agg);
	const char *cmp = c->has_min && agg < c->min ? "<" : ">";
	const char *bound = c->has_min && agg < c->min ? a : b;
	size_t nviol = 0;
	for (size_t i = 0; i < x->n; i++)
		nviol += violates(c, x->v[i]);
	if (decides_fail(c, x, agg, nviol)) {
		char *w = c->agg == AG_EACH ? xasprintf("%s = %s %s %s", x->label[at], vb, cmp, bound)
					    : xasprintf("%s over %zu = %s %s %s%s%s%s", acc_agg_name(c->agg), x->n, vb, cmp, bound,
							c->agg == AG_MIN || c->agg == AG_MAX ? " (" : "",
							c->agg == AG_MIN || c->agg == AG_MAX ? x->label[at] : "",
							c->agg == AG_MIN || c->agg == AG_MAX ? ")" : "");
		if (c->agg == AG_EACH && nviol > 1) {
			char *w2 = xasprintf("%s (and %zu more)", w, nviol - 1);
			free(w);
			w = w2;
		}
		set_res(out, AS_FAIL, w);
	} else if (x->nmiss) {
		set_res(out, AS_INCOMPLETE, x->nmiss > 1 ? xasprintf("%s (and %zu more without the figure)", x->first_miss, x->nmiss - 1)
							 : xstrdup(x->first_miss));
	} else if (!x->n) {
		set_res(out, AS_INCOMPLETE, xstrdup(what_none));
	} else if (x->n < (size_t)min_n) {
		set_res(out, AS_INCOMPLETE, xasprintf("only %zu figures (at least %d needed)", x->n, min_n));
	} else if (c->agg == AG_EACH) {
		set_res(out, AS_PASS, x->n == 1 ? xasprintf("%s = %s", x->label[0], vb)
						: xasprintf("%zu figures, %s %s (%s)", x->n, c->has_min && !c->has_max ? "lowest" : "worst",
							    vb, x->label[at]));
	} else {
		set_res(out, AS_PASS, xasprintf("%s over %zu = %s", acc_agg_name(c->agg), x->n, vb));
	}
}

/* Figures that count events (I/O errors, wrong elements, lock violations):
 * the last key of the path, by name. */
static int is_count(const char *path)
{
	static const char *const names[] = { "errors", "wrong", "violations", "spurious_errors", "out_of_bounds",
					     "lost_updates", "overlaps", "delete_failures", "left", "throttled",
					     "poll_errors", "jagged_dips", "failed_count", NULL };
	const char *last = strrchr(path, '.');
	last = last ? last + 1 : path;
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(last, names[i]))
			return 1;
	size_t n = strlen(last);
	return (n > 7 && !strcmp(last + n - 7, "_errors")) || (n > 6 && !strcmp(last + n - 6, "_count"));
}

/* The figure at path, judged as a measurement (evidence.h, ev_value): the
 * bounds are those of the quantity its name says. A key such as fio's
 * "p99.9" names no unit; its parent does ("clat_ns"). */
static enum ev_val figure(const json_t *root, const char *path, double *out, char *why, size_t whyn)
{
	char p[1032];
	snprintf(p, sizeof p, "%s", path);
	for (int i = 0; i < 3 && !ev_bound_of(p, NULL); i++) {
		char *dot = strrchr(p, '.');
		if (!dot)
			break;
		*dot = 0;
	}
	if (!ev_bound_of(p, NULL))
		snprintf(p, sizeof p, "%s", path);
	enum ev_val r = ev_value(acc_path_get(root, path), p, NULL, out, why, whyn);
	if (r == EVV_OK && is_count(path) && (*out < 0 || *out != floor(*out))) {
		/* evidence.h's bounds know units, not counts: a count is a whole number, never negative */
		snprintf(why, whyn, "%.6g is not a count (a whole number, at least 0)", *out);
		return EVV_MALFORMED;
	}
	return r;
}

static void eval_metric(const struct acc_crit *c, const struct rowlist *rl, const char *unmatched,
			struct acc_crit_res *out)
{
	struct vals x = { 0 };
	for (size_t i = 0; i < rl->n; i++) {
		const struct ev_row *r = rl->r[i];
		double v;
		char why[256];
		char *sm = short_summary(r->summary);
		enum ev_val fv = figure(r->json, c->path, &v, why, sizeof why);
		if (r->status == ST_ERROR) {
			vals_miss(&x, xasprintf("%s is ERROR: %s", rl->label[i], sm));
		} else if (r->malformed) {
			vals_malformed(&x, rl->label[i], r->malformed);
		} else if (fv == EVV_MALFORMED) {
			char *w = xasprintf("%s: %s", c->path, why);
			vals_malformed(&x, rl->label[i], w);
			free(w);
		} else if (fv != EVV_OK) {
			vals_miss(&x, xasprintf("%s has no %s (%s: %s)", rl->label[i], c->path, status_name(r->status), sm));
		} else {
			vals_add(&x, rl->label[i], v);
		}
		free(sm);
	}
	if (*unmatched)
		vals_miss(&x, xasprintf("no row %s in the evidence", unmatched));
	judge_values(c, &x, "no row matches in the evidence", c->min_rows, out);
	vals_free(&x);
}

static void eval_doc_metric(const struct acc_crit *c, const struct acc_docs *docs, struct acc_crit_res *out)
{
	struct vals x = { 0 };
	for (size_t i = 0; i < docs->n; i++) {
		double v;
		char why[256];
		enum ev_val fv = figure(docs->d[i]->root, c->path, &v, why, sizeof why);
		if (fv == EVV_OK) {
			vals_add(&x, docs->d[i]->path, v);
		} else if (fv == EVV_MALFORMED) {
			char *w = xasprintf("%s: %s", c->path, why);
			vals_malformed(&x, docs->d[i]->path, w);
			free(w);
		} else {
			vals_miss(&x, xasprintf("%s not recorded in %s", c->path, docs->d[i]->path));
		}
		json_array_append_new(out->used, json_string(docs->d[i]->path));
	}
	judge_values(c, &x, "no document to read it from", 1, out);
	vals_free(&x);
}

void acc_eval_crit(const struct acc_crit *c, const struct ev_set *s, const struct acc_docs *docs,
		   struct acc_crit_res *out)
{
	memset(out, 0, sizeof *out);
	out->what = acc_crit_describe(c);
	out->observed = json_object();
	out->used = json_array();
	if (c->kind == CK_DOC_METRIC) {
		eval_doc_metric(c, docs, out);
		return;
	}
	struct rowlist rl;
	struct strbuf unmatched = STRBUF_INIT;
	collect_rows(c, s, docs, &rl, &unmatched);
	for (size_t i = 0; i < rl.n; i++)
		json_array_append_new(out->used, json_string(rl.label[i]));
	const char *um = sb_str(&unmatched);
	switch (c->kind) {
	case CK_STATUS: eval_status(c, &rl, um, out); break;
	case CK_COUNT: eval_count(c, &rl, um, out); break;
	default: eval_metric(c, &rl, um, out); break;
	}
	sb_free(&unmatched);
	rowlist_free(&rl);
}

void acc_crit_res_free(struct acc_crit_res *r)
{
	free(r->what);
	free(r->why);
	json_decref(r->observed);
	json_decref(r->used);
	memset(r, 0, sizeof *r);
}

/* ---- a test --------------------------------------------------------------------------- */

void acc_eval_test(const struct acc_test *t, const struct ev_set *s, const struct acc_docs *given,
		   struct acc_test_res *out)
{
	memset(out, 0, sizeof *out);
	out->set_aside = json_array();
	/* the documents that measured what the plan asks; the others are not its evidence */
	struct acc_docs kept = { xcalloc(given->n + 1, sizeof *kept.d), 0 };
	char *first_unmet = NULL;
	for (size_t i = 0; i < given->n; i++) {
		char *why = acc_reqs_unmet(&t->req, s, given->d[i]);
		if (!why) {
			kept.d[kept.n++] = given->d[i];
			continue;
		}
		json_t *e = json_object();
		json_object_set_new(e, "document", json_string(given->d[i]->path));
		json_object_set_new(e, "why", json_string(why));
		json_array_append_new(out->set_aside, e);
		if (!first_unmet)
			first_unmet = xasprintf("%s %s", given->d[i]->path, why);
		free(why);
	}
	const struct acc_docs *docs = &kept;
	out->docs = json_array();
	for (size_t i = 0; i < docs->n; i++)
		json_array_append_new(out->docs, json_string(docs->d[i]->path));
	out->ncr = t->ncrit;
	out->cr = xcalloc(t->ncrit, sizeof *out->cr);
	enum acc_st st = AS_PASS;
	size_t first_bad = 0, npass = 0;
	for (size_t i = 0; i < t->ncrit; i++) {
		acc_eval_crit(&t->crit[i], s, docs, &out->cr[i]);
		enum acc_st w = acc_st_worse(st, out->cr[i].st);
		if (w != st)
			first_bad = i;
		st = w;
		npass += out->cr[i].st == AS_PASS;
	}
	if (!docs->n && first_unmet) {
		size_t n = json_array_size(out->set_aside);
		out->st = AS_INCOMPLETE;
		out->summary = n > 1 ? xasprintf("not the evidence the plan asks for: %s (and %zu more documents set aside)",
						 first_unmet, n - 1)
				     : xasprintf("not the evidence the plan asks for: %s", first_unmet);
		free(first_unmet);
		free(kept.d);
		return;
	}
	free(first_unmet);
	if (!docs->n) {
		char *e = acc_expected_doc(t);
		out->st = AS_INCOMPLETE;
		out->summary = xasprintf("no result document (expected %s)", e);
		free(e);
		free(kept.d);
		return;
	}
	const char *interrupted = NULL;
	for (size_t i = 0; i < docs->n; i++)
		if (json_is_true(json_object_get(docs->d[i]->root, "interrupted")))
			interrupted = docs->d[i]->path;
	out->st = st;
	if (st == AS_PASS && interrupted) {
		out->st = AS_INCOMPLETE;
		out->summary = xasprintf("%s says the run was interrupted: a partial run cannot pass", interrupted);
	} else if (st == AS_PASS) {
		out->summary = xasprintf("all %zu criteria met", t->ncrit);
	} else if (st == AS_INCOMPLETE && interrupted) {
		out->summary = xasprintf("%s says the run was interrupted; %s: %s", interrupted, out->cr[first_bad].what,
					 out->cr[first_bad].why);
	} else {
		out->summary = xasprintf("%s: %s", out->cr[first_bad].what, out->cr[first_bad].why);
	}
	if (out->st == AS_INCOMPLETE && json_array_size(out->set_aside)) {
		/* what was missing may be in the documents set aside: say so */
		const json_t *e = json_array_get(out->set_aside, 0);
		char *w = xasprintf("%s; set aside: %s %s", out->summary, json_string_value(json_object_get(e, "document")),
				    json_string_value(json_object_get(e, "why")));
		free(out->summary);
		out->summary = w;
	}
	free(kept.d);
}

void acc_test_res_free(struct acc_test_res *r)
{
	for (size_t i = 0; i < r->ncr; i++)
		acc_crit_res_free(&r->cr[i]);
	free(r->cr);
	free(r->summary);
	json_decref(r->docs);
	json_decref(r->set_aside);
	memset(r, 0, sizeof *r);
}

/* ---- matching ---------------------------------------------------------------------------- */

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int produced_by(const struct acc_test *t, const struct ev_doc *d, int allow_full)
{
	switch (t->cmd) {
	case AC_AUDIT:
		return d->kind == EV_AUDIT && d->name &&
		       (!strcmp(d->name, t->produces) || (allow_full && !strcmp(d->name, "full")));
	case AC_BENCH:
		return d->kind == EV_BENCH && d->name && !strcmp(d->name, t->produces);
	case AC_INJECT: {
		if (d->kind != EV_INJECT)
			return 0;
		const json_t *f = json_object_get(d->root, "fault");
		const char *k = json_string_value(json_object_get(f, "kind"));
		const json_t *code = json_object_get(f, "code");
		if (k && strcmp(k, t->produces))
			return 0;
		return t->fault_code < 0 || !json_is_integer(code) || json_integer_value(code) == t->fault_code;
	}
	case AC_REBOOT:
		return d->kind == EV_REBOOT;
	}
	return 0;
}

size_t acc_match_docs(const struct acc_test *t, const struct ev_set *s, struct acc_docs *out)
{
	out->d = xcalloc(s->ndocs + 1, sizeof *out->d);
	out->n = 0;
	char *own = xasprintf("%s.json", t->id);
	for (int pass = 0; pass < 4 && !out->n; pass++) {
		/* 0: from:, 1: TEST-ID.json, 2: what the args produce, 3: a full audit for a profile */
		if ((pass == 0) != (t->nfrom > 0))
			continue;
		if (pass == 3 && (t->cmd != AC_AUDIT || !strcmp(t->produces, "full")))
			break;
		for (size_t i = 0; i < s->ndocs; i++) {
			const struct ev_doc *d = s->docs[i];
			if (json_is_true(json_object_get(d->root, "dry_run")))
				continue;
			int m = 0;
			if (pass == 0) {
				for (size_t k = 0; k < t->nfrom && !m; k++)
					m = fnmatch(t->from[k], d->path, 0) == 0 || fnmatch(t->from[k], base_name(d->path), 0) == 0;
			} else if (pass == 1) {
				m = !strcmp(base_name(d->path), own);
			} else {
				m = produced_by(t, d, pass == 3);
			}
			if (m)
				out->d[out->n++] = d;
		}
		if (pass == 0)
			break; /* an explicit from: is the whole truth */
	}
	free(own);
	return out->n;
}

char *acc_expected_doc(const struct acc_test *t)
{
	if (t->nfrom) {
		struct strbuf sb = STRBUF_INIT;
		sb_adds(&sb, "a document matching from: ");
		for (size_t i = 0; i < t->nfrom; i++)
			sb_addf(&sb, "%s%s", i ? ", " : "", t->from[i]);
		return sb_detach(&sb);
	}
	switch (t->cmd) {
	case AC_AUDIT:
		return xasprintf("%s.json or a cmax.audit.results/1 document of profile %s%s", t->id, t->produces,
				 strcmp(t->produces, "full") ? " or full" : "");
	case AC_BENCH:
		return xasprintf("%s.json or a cmax.bench.results/1 document of benchmark %s", t->id, t->produces);
	case AC_INJECT:
		if (t->fault_code >= 0)
			return xasprintf("%s.json or a cmax.inject/1 document of %s %ld", t->id, t->produces, t->fault_code);
		return xasprintf("%s.json or a cmax.inject/1 document of %s", t->id, t->produces);
	case AC_REBOOT:
		return xasprintf("%s.json or a cmax.reboot-test/1 document", t->id);
	}
	return xstrdup("?");
}
