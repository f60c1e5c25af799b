/* Loading and validating the rating rubric (see rubric.h, docs/rate.md). */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exitcodes.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "core/yamljson.h"
#include "rate/attest.h"
#include "rate/rubric.h"

const char *const rate_category_ids[RATE_NCAT] = { "security",	   "lifecycle",	 "orchestration", "storage",
						   "networking",   "reliability", "monitoring",	   "pricing",
						   "partnerships", "availability" };

static const char *const tier_names[TIER__COUNT] = {
	"Platinum", "Gold", "Silver", "Bronze", "Participation Ribbon", "Not Recommended - Underperforming",
	"Not Recommended - Unavailable",
};

static const char *const gp_fig_keys[GPF__COUNT] = { "import_s", "model_load_s", "detect_s", "recovery_s",
						     "degradation_pct" };

const char *tier_name(enum tier t)
{
	return t < TIER__COUNT ? tier_names[t] : "?";
}

int tier_parse(const char *s, enum tier *out)
{
	for (int i = 0; s && i < TIER__COUNT; i++)
		if (!strcmp(s, tier_names[i])) {
			*out = (enum tier)i;
			return 0;
		}
	return -1;
}

/* Validation context: the first error wins, with where it was found. */
struct vctx {
	const char *label;
	char *err;
};

static int bad(struct vctx *v, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(struct vctx *v, const char *where, const char *fmt, ...)
{
	if (v->err)
		return -1;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	sb_addf(&sb, "rubric %s: %s: ", v->label, where);
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	v->err = sb_detach(&sb);
	return -1;
}

static int get_str(struct vctx *v, const json_t *o, const char *key, const char *where, int required,
		   const char **out)
{
	const json_t *x = json_object_get(o, key);
	*out = NULL;
	if (!x || json_is_null(x)) {
		if (required)
			return bad(v, where, "'%s' is missing", key);
		return 0;
	}
	if (!json_is_string(x) || !*json_string_value(x))
		return bad(v, where, "'%s' must be a non-empty string", key);
	*out = json_string_value(x);
	return 0;
}

static int get_num(struct vctx *v, const json_t *o, const char *key, const char *where, int required, double lo,
		   double hi, double *out, int *present)
{
	const json_t *x = json_object_get(o, key);
	if (present)
		*present = 0;
	if (!x || json_is_null(x)) {
		if (required)
			return bad(v, where, "'%s' is missing", key);
		return 0;
	}
	if (!json_is_number(x) || !isfinite(json_number_value(x)))
		return bad(v, where, "'%s' must be a number", key);
	double d = json_number_value(x);
	if (d < lo || d > hi)
		return bad(v, where, "'%s' must be between %g and %g (got %g)", key, lo, hi, d);
	*out = d;
	if (present)
		*present = 1;
	return 0;
}

/* A string or a list of strings -> malloc'd array of borrowed strings. */
static int get_strs(struct vctx *v, const json_t *o, const char *key, const char *where, int required,
		    const char ***out, size_t *n)
{
	const json_t *x = json_object_get(o, key);
	*out = NULL;
	*n = 0;
	if (!x || json_is_null(x)) {
		if (required)
			return bad(v, where, "'%s' is missing", key);
		return 0;
	}
	if (json_is_string(x) && *json_string_value(x)) {
		*out = xmalloc(sizeof **out);
		(*out)[0] = json_string_value(x);
		*n = 1;
		return 0;
	}
	if (!json_is_array(x) || (required && json_array_size(x) == 0))
		return bad(v, where, "'%s' must be a string or a non-empty list of strings", key);
	*out = xcalloc(json_array_size(x) + 1, sizeof **out);
	size_t i;
	json_t *y;
	json_array_foreach(x, i, y) {
		if (!json_is_string(y) || !*json_string_value(y))
			return bad(v, where, "'%s' item %zu must be a non-empty string", key, i + 1);
		(*out)[(*n)++] = json_string_value(y);
	}
	return 0;
}

static int check_keys(struct vctx *v, const json_t *o, const char *where, const char *const *allowed)
{
	const char *k;
	json_t *x;
	json_object_foreach((json_t *)o, k, x) {
		const char *const *p;
		for (p = allowed; *p; p++)
			if (!strcmp(*p, k))
				break;
		if (!*p)
			return bad(v, where, "unknown key '%s'", k);
	}
	return 0;
}

/* A `basis` (docs/provenance.md): where the numbers of the object holding
 * it come from. Optional to the loader (a replaced rubric may have none);
 * when present it must be well formed. */
static int parse_basis(struct vctx *v, const json_t *o, const char *where)
{
	static const struct {
		const char *kind;
		const char *const keys[4];
	} kinds[] = {
		{ "method", { "figure", NULL } },
		{ "declared", { "reason", "revisit", NULL } },
		{ "source", { "url", "checked", "figure", NULL } },
		{ "estimated", { "reason", "revisit", NULL } },
	};
	const json_t *b = json_object_get(o, "basis");
	if (!b)
		return 0;
	char w[224];
	snprintf(w, sizeof w, "%s.basis", where);
	if (!json_is_object(b))
		return bad(v, w, "must be a mapping {kind, ...} (see docs/provenance.md)");
	const char *kind;
	if (get_str(v, b, "kind", w, 1, &kind))
		return -1;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		if (strcmp(kinds[i].kind, kind))
			continue;
		const char *allowed[6] = { "kind" };
		size_t n = 1;
		for (const char *const *k = kinds[i].keys; *k; k++) {
			const char *x;
			if (get_str(v, b, *k, w, 1, &x))
				return -1;
			allowed[n++] = *k;
		}
		allowed[n] = NULL;
		return check_keys(v, b, w, allowed);
	}
	return bad(v, w, "'kind' must be method, declared, source or estimated (got '%s')", kind);
}

static int valid_key(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '-' && *s != '_')
			return 0;
	return 1;
}

static int parse_agg(struct vctx *v, const json_t *o, const char *where, enum item_agg def, enum item_agg *out)
{
	const char *s;
	*out = def;
	if (get_str(v, o, "aggregate", where, 0, &s))
		return -1;
	if (!s)
		return 0;
	if (!strcmp(s, "mean"))
		*out = AGG_MEAN;
	else if (!strcmp(s, "worst"))
		*out = AGG_WORST;
	else if (!strcmp(s, "best"))
		*out = AGG_BEST;
	else
		return bad(v, where, "'aggregate' must be mean, worst or best (got '%s')", s);
	return 0;
}

static int parse_attest_item(struct vctx *v, struct r_item *it, const json_t *o, const char *where)
{
	const char *one;
	if (get_str(v, o, "field", where, 0, &one))
		return -1;
	if (one) {
		it->fields = xmalloc(sizeof *it->fields);
		it->fields[0] = one;
		it->nfields = 1;
	} else if (get_strs(v, o, "fields", where, 1, &it->fields, &it->nfields)) {
		return -1;
	}
	const json_t *map = json_object_get(o, "map");
	const json_t *req = json_object_get(o, "required");
	int scale = json_object_get(o, "good") || json_object_get(o, "bad");
	if (!!map + !!req + scale != 1)
		return bad(v, where, "an attestation item needs exactly one of 'map', 'required' or 'good'/'bad'");
	const json_t *cnt = json_object_get(o, "count");
	if (cnt && !json_is_boolean(cnt))
		return bad(v, where, "'count' must be true or false");
	it->count = json_is_true(cnt);
	it->amode = map ? AM_MAP : req ? AM_COVERS : AM_SCALE;
	if (map) {
		if (!json_is_object(map) || json_object_size(map) == 0)
			return bad(v, where, "'map' must be a non-empty mapping of value -> score");
		const char *k;
		json_t *x;
		char mw[192];
		snprintf(mw, sizeof mw, "%s.map", where);
		if (parse_basis(v, map, mw))
			return -1;
		json_object_foreach((json_t *)map, k, x) {
			if (!strcmp(k, "basis"))
				continue;
			if (!json_is_number(x) || json_number_value(x) < 0 || json_number_value(x) > 100)
				return bad(v, where, "map value for '%s' must be a score from 0 to 100", k);
		}
		if (json_object_size(map) == (json_object_get(map, "basis") ? 1u : 0u))
			return bad(v, where, "'map' must map at least one value to a score");
		it->map = map;
	} else if (req) {
		if (get_strs(v, o, "required", where, 1, &it->required, &it->nrequired))
			return -1;
	} else {
		if (get_num(v, o, "good", where, 1, -1e18, 1e18, &it->good, NULL) ||
		    get_num(v, o, "bad", where, 1, -1e18, 1e18, &it->bad, NULL))
			return -1;
		if (it->good == it->bad)
			return bad(v, where, "'good' and 'bad' must differ");
	}
	for (size_t i = 0; i < it->nfields; i++) {
		const struct att_field *f = att_field_find(it->fields[i]);
		if (!f)
			return bad(v, where, "'%s' is not an attestation field (see docs/rate.md)", it->fields[i]);
		if (it->amode == AM_MAP) {
			if (f->type != AT_BOOL && f->type != AT_ENUM)
				return bad(v, where, "'map' needs a true/false or enumerated field; %s is not", f->path);
			const char *k;
			json_t *x;
			json_object_foreach((json_t *)it->map, k, x) {
				int ok = 0;
				if (!strcmp(k, "basis"))
					continue;
				if (f->type == AT_BOOL)
					ok = !strcmp(k, "true") || !strcmp(k, "false");
				else
					for (const char *const *p = f->values; *p; p++)
						ok |= !strcmp(*p, k);
				if (!ok)
					return bad(v, where, "map key '%s' is not a value of %s", k, f->path);
			}
		} else if (it->amode == AM_COVERS && f->type != AT_LIST) {
			return bad(v, where, "'required' needs a list field; %s is not", f->path);
		} else if (it->amode == AM_SCALE && !(f->type == AT_NUMBER || (f->type == AT_LIST && it->count))) {
			return bad(v, where, "'good'/'bad' need a numeric field (or a list with count: true); %s is not",
				   f->path);
		}
	}
	return 0;
}

/* good/bad (and, under platforms, floor and absent_score): the anchors a
 * figure is scored against. Strict where the method's ordering is at stake:
 * a value that was measured must never score below its absence. */
static int parse_anchor(struct vctx *v, struct r_anchor *a, const json_t *o, const char *where, int extended)
{
	int has_floor = 0;
	if (get_num(v, o, "good", where, 1, -1e18, 1e18, &a->good, NULL) ||
	    get_num(v, o, "bad", where, 1, -1e18, 1e18, &a->bad, NULL))
		return -1;
	if (a->good == a->bad)
		return bad(v, where, "'good' and 'bad' must differ");
	if (!extended)
		return 0;
	if (get_num(v, o, "floor", where, 0, 0, 100, &a->floor, &has_floor) ||
	    get_num(v, o, "absent_score", where, 0, 0, 100, &a->absent_score, &a->has_absent) ||
	    get_str(v, o, "absent_if", where, 0, &a->absent_if) || get_str(v, o, "absent_why", where, 0, &a->absent_why) ||
	    parse_basis(v, o, where))
		return -1;
	if (a->has_absent != (a->absent_if != NULL))
		return bad(v, where, "'absent_score' and 'absent_if' go together");
	if (a->absent_why && !a->has_absent)
		return bad(v, where, "'absent_why' needs 'absent_score'");
	if (a->has_absent && a->absent_score > a->floor)
		return bad(v, where,
			   "'absent_score' %g is above 'floor' %g: a measured value would score worse than none",
			   a->absent_score, a->floor);
	return 0;
}

static int parse_platforms(struct vctx *v, struct r_item *it, const json_t *o, const char *where)
{
	static const char *const keys[] = { "path", "default", "anchors", "note", "basis", NULL };
	static const char *const akeys[] = { "good", "bad", "floor", "absent_score", "absent_if", "absent_why", "basis",
					     "note", NULL };
	char w[200];
	snprintf(w, sizeof w, "%s.platforms", where);
	const char *dflt;
	if (!json_is_object(o))
		return bad(v, w, "must be a mapping {path, default, anchors}");
	if (check_keys(v, o, w, keys) || get_str(v, o, "path", w, 1, &it->platform_path) ||
	    get_str(v, o, "default", w, 1, &dflt) || parse_basis(v, o, w))
		return -1;
	const json_t *an = json_object_get(o, "anchors");
	if (!json_is_object(an) || json_object_size(an) == 0)
		return bad(v, w, "'anchors' must be a non-empty mapping of platform -> {good, bad, ...}");
	it->anchors = xcalloc(json_object_size(an), sizeof *it->anchors);
	const char *k;
	json_t *x;
	json_object_foreach((json_t *)an, k, x) {
		char aw[240];
		snprintf(aw, sizeof aw, "%s.anchors.%s", w, k);
		struct r_anchor *a = &it->anchors[it->nanchors++];
		a->platform = k;
		if (!valid_key(k))
			return bad(v, aw, "a platform name may only hold a-z, 0-9, '-' and '_'");
		if (!json_is_object(x))
			return bad(v, aw, "must be a mapping {good, bad, ...}");
		if (check_keys(v, x, aw, akeys) || parse_anchor(v, a, x, aw, 1))
			return -1;
		if (!strcmp(k, dflt))
			it->dflt = a;
	}
	if (!it->dflt)
		return bad(v, w, "'default' '%s' is not one of its anchors", dflt);
	return 0;
}

static int parse_item(struct vctx *v, struct r_item *it, const json_t *o, const char *cat, size_t idx)
{
	static const char *const keys[] = { "id",    "name",	  "note",      "kind",	"weight", "rows",
					    "exclude", "aggregate", "from",	   "path",	"event",  "good",
					    "bad",   "unit",	  "numerator", "fail_is_never", "field", "fields",
					    "map",   "required",  "count",     "basis", "platforms", NULL };
	char where[160];
	snprintf(where, sizeof where, "categories.%s.items[%zu]", cat, idx + 1);
	if (!json_is_object(o))
		return bad(v, where, "must be a mapping");
	if (get_str(v, o, "id", where, 1, &it->key))
		return -1;
	if (!valid_key(it->key))
		return bad(v, where, "id '%s' may only hold a-z, 0-9, '-' and '_'", it->key);
	snprintf(where, sizeof where, "item %s.%s", cat, it->key);
	it->id = xasprintf("%s.%s", cat, it->key);
	const char *kind;
	if (check_keys(v, o, where, keys) || get_str(v, o, "name", where, 1, &it->name) ||
	    get_str(v, o, "note", where, 0, &it->note) || get_str(v, o, "kind", where, 1, &kind) ||
	    get_num(v, o, "weight", where, 1, 1e-9, 1e6, &it->weight, NULL) || parse_basis(v, o, where))
		return -1;
	if (json_object_get(o, "platforms") && strcmp(kind, "figure"))
		return bad(v, where, "'platforms' belongs to figure items");
	if (!strcmp(kind, "checks")) {
		it->kind = IK_CHECKS;
		if (get_strs(v, o, "rows", where, 1, &it->rows, &it->nrows) ||
		    get_strs(v, o, "exclude", where, 0, &it->exclude, &it->nexclude) ||
		    parse_agg(v, o, where, AGG_MEAN, &it->agg))
			return -1;
	} else if (!strcmp(kind, "figure")) {
		it->kind = IK_FIGURE;
		const char *from;
		if (get_strs(v, o, "rows", where, 1, &it->rows, &it->nrows) ||
		    get_strs(v, o, "exclude", where, 0, &it->exclude, &it->nexclude) ||
		    parse_agg(v, o, where, AGG_WORST, &it->agg) || get_str(v, o, "from", where, 0, &from) ||
		    get_str(v, o, "unit", where, 0, &it->unit) ||
		    get_num(v, o, "numerator", where, 0, 1e-12, 1e18, &it->numerator, &it->has_numerator))
			return -1;
		if (it->agg == AGG_MEAN)
			return bad(v, where, "a figure aggregates as worst or best, not mean");
		const json_t *pl = json_object_get(o, "platforms");
		if (pl) {
			if (json_object_get(o, "good") || json_object_get(o, "bad"))
				return bad(v, where, "with 'platforms' the anchors go in platforms.anchors, not 'good'/'bad'");
			if (parse_platforms(v, it, pl, where))
				return -1;
		} else {
			it->anchors = xcalloc(1, sizeof *it->anchors);
			it->nanchors = 1;
			if (parse_anchor(v, &it->anchors[0], o, where, 0))
				return -1;
			it->dflt = &it->anchors[0];
		}
		it->from = !from || !strcmp(from, "row") ? FROM_ROW
			   : !strcmp(from, "document")	  ? FROM_DOCUMENT
			   : !strcmp(from, "event")	  ? FROM_EVENT
							  : (enum fig_from)-1;
		if ((int)it->from < 0)
			return bad(v, where, "'from' must be row, document or event (got '%s')", from);
		if (it->from == FROM_EVENT) {
			if (get_str(v, o, "event", where, 1, &it->event))
				return -1;
		} else if (get_str(v, o, "path", where, 1, &it->path)) {
			return -1;
		}
		const json_t *fn = json_object_get(o, "fail_is_never");
		if (fn && !json_is_boolean(fn))
			return bad(v, where, "'fail_is_never' must be true or false");
		it->fail_is_never = json_is_true(fn);
	} else if (!strcmp(kind, "attestation")) {
		it->kind = IK_ATTEST;
		if (parse_attest_item(v, it, o, where))
			return -1;
	} else {
		return bad(v, where, "'kind' must be checks, figure or attestation (got '%s')", kind);
	}
	return 0;
}

/* An entry of a list of mappings with an id: named "list[N]" in messages
 * until its id is read, then "label ID". */
static int entry_id(struct vctx *v, const json_t *o, const char *list, size_t idx, const char *label,
		    const char **id, char *where, size_t wn)
{
	snprintf(where, wn, "%s[%zu]", list, idx + 1);
	if (!json_is_object(o))
		return bad(v, where, "must be a mapping");
	if (get_str(v, o, "id", where, 1, id))
		return -1;
	snprintf(where, wn, "%s %s", label, *id);
	return 0;
}

static int parse_category(struct vctx *v, struct r_category *c, const json_t *o, size_t idx)
{
	static const char *const keys[] = { "id", "name", "weight", "items", "note", "basis", NULL };
	char where[96];
	if (entry_id(v, o, "categories", idx, "category", &c->id, where, sizeof where))
		return -1;
	if (check_keys(v, o, where, keys) || get_str(v, o, "name", where, 0, &c->name) ||
	    get_num(v, o, "weight", where, 1, 0, 1e6, &c->weight, NULL) || parse_basis(v, o, where))
		return -1;
	if (!c->name)
		c->name = c->id;
	const json_t *items = json_object_get(o, "items");
	if (!json_is_array(items) || json_array_size(items) == 0)
		return bad(v, where, "'items' must be a non-empty list");
	c->nitems = json_array_size(items);
	c->items = xcalloc(c->nitems, sizeof *c->items);
	for (size_t i = 0; i < c->nitems; i++) {
		if (parse_item(v, &c->items[i], json_array_get(items, i), c->id, i))
			return -1;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(c->items[j].key, c->items[i].key))
				return bad(v, where, "item id '%s' appears twice", c->items[i].key);
	}
	return 0;
}

static int parse_disq(struct vctx *v, struct r_disq *d, const json_t *o, size_t idx)
{
	static const char *const keys[] = { "id", "name", "note", "cap", "kind", "rows", "statuses", "fields",
					    "current", "basis", NULL };
	char where[96];
	if (entry_id(v, o, "disqualifiers", idx, "disqualifier", &d->id, where, sizeof where))
		return -1;
	const char *cap, *kind;
	if (check_keys(v, o, where, keys) || get_str(v, o, "name", where, 1, &d->name) ||
	    get_str(v, o, "note", where, 0, &d->note) || get_str(v, o, "cap", where, 1, &cap) ||
	    get_str(v, o, "kind", where, 1, &kind) || parse_basis(v, o, where))
		return -1;
	if (tier_parse(cap, &d->cap) || d->cap == TIER_UNAVAILABLE)
		return bad(v, where, "'cap' must be a tier from Platinum to '%s' (got '%s')",
			   tier_name(TIER_UNDERPERFORMING), cap);
	if (!strcmp(kind, "rows")) {
		d->kind = DQ_ROWS;
		const char **sts = NULL;
		size_t n = 0;
		if (get_strs(v, o, "rows", where, 1, &d->rows, &d->nrows) ||
		    get_strs(v, o, "statuses", where, 0, &sts, &n)) {
			free(sts);
			return -1;
		}
		if (!n)
			d->on_status[ST_FAIL] = 1;
		for (size_t i = 0; i < n; i++) {
			enum status st;
			if (status_parse(sts[i], &st) || st == ST_SKIP || st == ST_ERROR) {
				bad(v, where, "'statuses' may hold PASS, WARN or FAIL (got '%s')", sts[i]);
				free(sts);
				return -1;
			}
			d->on_status[st] = 1;
		}
		free(sts);
	} else if (!strcmp(kind, "attestation_all_false") || !strcmp(kind, "attestation_any_true")) {
		d->kind = !strcmp(kind, "attestation_all_false") ? DQ_ATTEST_ALL_FALSE : DQ_ATTEST_ANY_TRUE;
		if (get_strs(v, o, "fields", where, 1, &d->fields, &d->nfields))
			return -1;
		for (size_t i = 0; i < d->nfields; i++) {
			const struct att_field *f = att_field_find(d->fields[i]);
			if (!f || f->type != AT_BOOL)
				return bad(v, where, "'%s' is not a true/false attestation field", d->fields[i]);
		}
	} else if (!strcmp(kind, "gpu_generation")) {
		d->kind = DQ_GPU_GENERATION;
		if (get_strs(v, o, "rows", where, 0, &d->rows, &d->nrows) ||
		    get_strs(v, o, "fields", where, 0, &d->fields, &d->nfields) ||
		    get_strs(v, o, "current", where, 1, &d->current, &d->ncurrent))
			return -1;
		if (!d->nrows && !d->nfields)
			return bad(v, where, "needs 'rows' (audit rows holding GPU models) or 'fields' (gpus_offered)");
		for (size_t i = 0; i < d->nfields; i++) {
			const struct att_field *f = att_field_find(d->fields[i]);
			if (!f || f->type != AT_LIST)
				return bad(v, where, "'%s' is not a list attestation field", d->fields[i]);
		}
	} else {
		return bad(v, where,
			   "'kind' must be rows, attestation_all_false, attestation_any_true or gpu_generation (got '%s')",
			   kind);
	}
	return 0;
}

const struct r_item *rubric_item(const struct rubric *rb, const char *id, size_t *cat, size_t *idx)
{
	for (size_t c = 0; c < RATE_NCAT; c++)
		for (size_t i = 0; i < rb->cats[c].nitems; i++)
			if (rb->cats[c].items[i].id && !strcmp(rb->cats[c].items[i].id, id)) {
				if (cat)
					*cat = c;
				if (idx)
					*idx = i;
				return &rb->cats[c].items[i];
			}
	return NULL;
}

static int parse_goodput(struct vctx *v, struct rubric *rb, const json_t *o)
{
	static const char *const keys[] = { "note", "assumptions", "figures", "basis", NULL };
	static const char *const akeys[] = { "gpus",	       "gpus_per_node",	 "job_starts_per_day",
					     "failures_per_month", "storage_bound_fraction", "hours_per_month",
					     "basis",		   "note",		     NULL };
	struct r_goodput *g = &rb->gp;
	if (!json_is_object(o))
		return bad(v, "goodput", "must be a mapping");
	if (check_keys(v, o, "goodput", keys) || get_str(v, o, "note", "goodput", 1, &g->note) ||
	    parse_basis(v, o, "goodput"))
		return -1;
	const json_t *a = json_object_get(o, "assumptions");
	if (!json_is_object(a))
		return bad(v, "goodput", "'assumptions' must be a mapping");
	if (check_keys(v, a, "goodput.assumptions", akeys) || parse_basis(v, a, "goodput.assumptions") ||
	    get_num(v, a, "gpus", "goodput.assumptions", 1, 1, 1e7, &g->gpus, NULL) ||
	    get_num(v, a, "gpus_per_node", "goodput.assumptions", 1, 1, 1024, &g->gpus_per_node, NULL) ||
	    get_num(v, a, "job_starts_per_day", "goodput.assumptions", 1, 0, 1e6, &g->job_starts_per_day, NULL) ||
	    get_num(v, a, "failures_per_month", "goodput.assumptions", 1, 0, 1e6, &g->failures_per_month, NULL) ||
	    get_num(v, a, "storage_bound_fraction", "goodput.assumptions", 1, 0, 1, &g->storage_bound_fraction,
		    NULL) ||
	    get_num(v, a, "hours_per_month", "goodput.assumptions", 1, 1, 744, &g->hours_per_month, NULL))
		return -1;
	const json_t *f = json_object_get(o, "figures");
	if (!json_is_object(f))
		return bad(v, "goodput", "'figures' must be a mapping");
	if (check_keys(v, f, "goodput.figures", gp_fig_keys))
		return -1;
	for (int i = 0; i < GPF__COUNT; i++) {
		if (get_strs(v, f, gp_fig_keys[i], "goodput.figures", 0, &g->figs[i], &g->nfigs[i]))
			return -1;
		for (size_t k = 0; k < g->nfigs[i]; k++) {
			const struct r_item *it = rubric_item(rb, g->figs[i][k], NULL, NULL);
			if (!it || it->kind != IK_FIGURE)
				return bad(v, "goodput.figures", "%s: '%s' is not a figure item of this rubric",
					   gp_fig_keys[i], g->figs[i][k]);
		}
	}
	return 0;
}

/* status_scores: optional; PASS 1, WARN 0.5, FAIL 0 unless the rubric says otherwise. */
static int parse_status_scores(struct vctx *v, struct rubric *rb, const json_t *ss)
{
	static const char *const skeys[] = { "PASS", "WARN", "FAIL", "basis", "note", NULL };
	rb->status_score[ST_PASS] = 1;
	rb->status_score[ST_WARN] = 0.5;
	rb->status_score[ST_FAIL] = 0;
	if (!ss)
		return 0;
	if (!json_is_object(ss))
		return bad(v, "status_scores", "must be a mapping of PASS/WARN/FAIL to 0..1");
	if (check_keys(v, ss, "status_scores", skeys) || parse_basis(v, ss, "status_scores"))
		return -1;
	for (int s = ST_PASS; s <= ST_FAIL; s++)
		if (get_num(v, ss, status_name((enum status)s), "status_scores", 0, 0, 1, &rb->status_score[s], NULL))
			return -1;
	return 0;
}

/* tiers: every rated tier, none asking for more than the tier above it. */
static int parse_tiers(struct vctx *v, struct rubric *rb, const json_t *tiers)
{
	static const char *const tkeys[] = { "min_score", "min_confidence", "basis", "note", NULL };
	if (!json_is_object(tiers))
		return bad(v, "tiers", "must be a mapping of tier name -> {min_score, min_confidence}");
	const char *k;
	json_t *x;
	if (parse_basis(v, tiers, "tiers"))
		return -1;
	json_object_foreach((json_t *)tiers, k, x) {
		enum tier t;
		if (!strcmp(k, "basis") || !strcmp(k, "note"))
			continue;
		if (tier_parse(k, &t) || t >= TIER_NRATED)
			return bad(v, "tiers", "'%s' is not a rated tier (Platinum, Gold, Silver, Bronze, "
					       "Participation Ribbon)", k);
	}
	for (int t = 0; t < TIER_NRATED; t++) {
		const json_t *o = json_object_get(tiers, tier_names[t]);
		char where[64];
		snprintf(where, sizeof where, "tiers.%s", tier_names[t]);
		if (!json_is_object(o))
			return bad(v, where, "missing (every rated tier needs min_score and min_confidence)");
		if (check_keys(v, o, where, tkeys) || parse_basis(v, o, where) ||
		    get_num(v, o, "min_score", where, 1, 0, 100, &rb->tiers[t].min_score, NULL) ||
		    get_num(v, o, "min_confidence", where, 1, 0, 1, &rb->tiers[t].min_confidence, NULL))
			return -1;
		if (t > 0 && (rb->tiers[t].min_score > rb->tiers[t - 1].min_score ||
			      rb->tiers[t].min_confidence > rb->tiers[t - 1].min_confidence))
			return bad(v, where, "a lower tier cannot ask for more than %s", tier_names[t - 1]);
	}
	return 0;
}

static int parse_unavailable(struct vctx *v, struct rubric *rb, const json_t *un)
{
	static const char *const ukeys[] = { "min_confidence", "min_categories", "min_measured_categories", "note",
					     "basis",	       NULL };
	double mc = 1, mm = 0;
	if (!json_is_object(un))
		return bad(v, "unavailable", "must be a mapping {min_confidence, min_categories}");
	if (check_keys(v, un, "unavailable", ukeys) || parse_basis(v, un, "unavailable") ||
	    get_num(v, un, "min_confidence", "unavailable", 1, 0, 1, &rb->unavail_min_confidence, NULL) ||
	    get_num(v, un, "min_categories", "unavailable", 1, 1, RATE_NCAT, &mc, NULL) ||
	    get_num(v, un, "min_measured_categories", "unavailable", 0, 0, RATE_NCAT, &mm, NULL))
		return -1;
	if (mc != floor(mc) || mm != floor(mm))
		return bad(v, "unavailable", "'min_categories' and 'min_measured_categories' must be whole numbers");
	rb->unavail_min_categories = (int)mc;
	rb->unavail_min_measured = (int)mm;
	return 0;
}

/* quick: optional; the confidence a --quick rating carries (1 unless said). */
static int parse_quick(struct vctx *v, struct rubric *rb, const json_t *qk)
{
	static const char *const qkeys[] = { "confidence", "note", "basis", NULL };
	rb->quick_confidence = 1;
	if (!qk)
		return 0;
	if (!json_is_object(qk))
		return bad(v, "quick", "must be a mapping {confidence, basis}");
	if (check_keys(v, qk, "quick", qkeys) ||
	    get_num(v, qk, "confidence", "quick", 1, 0, 1, &rb->quick_confidence, NULL) ||
	    parse_basis(v, qk, "quick"))
		return -1;
	return 0;
}

/* categories: the method's ten, each once, in any order; at least one weighted. */
static int parse_categories(struct vctx *v, struct rubric *rb, const json_t *cats)
{
	if (!json_is_array(cats) || json_array_size(cats) != RATE_NCAT)
		return bad(v, "categories", "must list the method's ten categories (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
			   rate_category_ids[0], rate_category_ids[1], rate_category_ids[2], rate_category_ids[3],
			   rate_category_ids[4], rate_category_ids[5], rate_category_ids[6], rate_category_ids[7],
			   rate_category_ids[8], rate_category_ids[9]);
	double wsum = 0;
	for (size_t i = 0; i < RATE_NCAT; i++) {
		struct r_category tmp;
		memset(&tmp, 0, sizeof tmp);
		const json_t *co = json_array_get(cats, i);
		const char *id = json_is_object(co) ? json_string_value(json_object_get(co, "id")) : NULL;
		size_t slot = RATE_NCAT;
		for (size_t c = 0; id && c < RATE_NCAT; c++)
			if (!strcmp(rate_category_ids[c], id))
				slot = c;
		if (id && slot == RATE_NCAT)
			return bad(v, "categories", "'%s' is not one of the method's ten categories", id);
		if (id && rb->cats[slot].id)
			return bad(v, "categories", "'%s' appears twice", id);
		int rc = parse_category(v, slot < RATE_NCAT ? &rb->cats[slot] : &tmp, co, i);
		for (size_t j = 0; j < tmp.nitems; j++) {
			free(tmp.items[j].anchors);
			free((char *)tmp.items[j].id);
			free(tmp.items[j].rows);
			free(tmp.items[j].exclude);
			free(tmp.items[j].fields);
			free(tmp.items[j].required);
		}
		free(tmp.items);
		if (rc)
			return -1;
		wsum += rb->cats[slot].weight;
	}
	if (wsum <= 0)
		return bad(v, "categories", "at least one category needs a weight above 0");
	return 0;
}

static int parse_disqualifiers(struct vctx *v, struct rubric *rb, const json_t *dq)
{
	if (dq && !json_is_array(dq))
		return bad(v, "disqualifiers", "must be a list");
	rb->ndq = json_array_size(dq);
	rb->dq = xcalloc(rb->ndq + 1, sizeof *rb->dq);
	for (size_t i = 0; i < rb->ndq; i++) {
		if (parse_disq(v, &rb->dq[i], json_array_get(dq, i), i))
			return -1;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(rb->dq[j].id, rb->dq[i].id))
				return bad(v, "disqualifiers", "id '%s' appears twice", rb->dq[i].id);
	}
	return 0;
}

static int parse_root(struct vctx *v, struct rubric *rb, const json_t *root)
{
	static const char *const keys[] = { "schema",	   "version", "method",	     "sources",	      "note",
					    "status_scores", "tiers",   "unavailable", "categories",    "disqualifiers",
					    "goodput",	   "quick",   "basis",	     NULL };
	const char *schema;
	if (!json_is_object(root))
		return bad(v, "top level", "must be a mapping");
	if (check_keys(v, root, "top level", keys) || get_str(v, root, "schema", "top level", 1, &schema))
		return -1;
	if (strcmp(schema, RUBRIC_SCHEMA))
		return bad(v, "schema", "expected %s, got '%s'", RUBRIC_SCHEMA, schema);
	if (get_str(v, root, "version", "top level", 1, &rb->version) ||
	    get_str(v, root, "method", "top level", 1, &rb->method) ||
	    get_str(v, root, "note", "top level", 1, &rb->note))
		return -1;
	const json_t *src = json_object_get(root, "sources");
	if (!json_is_array(src) || json_array_size(src) == 0)
		return bad(v, "top level", "'sources' must be a non-empty list");
	if (parse_status_scores(v, rb, json_object_get(root, "status_scores")) ||
	    parse_tiers(v, rb, json_object_get(root, "tiers")) ||
	    parse_unavailable(v, rb, json_object_get(root, "unavailable")) || parse_basis(v, root, "top level") ||
	    parse_quick(v, rb, json_object_get(root, "quick")) ||
	    parse_categories(v, rb, json_object_get(root, "categories")) ||
	    parse_disqualifiers(v, rb, json_object_get(root, "disqualifiers")))
		return -1;
	return parse_goodput(v, rb, json_object_get(root, "goodput"));
}

enum cmax_err rubric_from_json(struct rubric *rb, json_t *root, const char *label, char **err)
{
	memset(rb, 0, sizeof *rb);
	rb->root = root;
	rb->path = xstrdup(label);
	struct vctx v = { label, NULL };
	*err = NULL;
	if (parse_root(&v, rb, root)) {
		*err = v.err ? v.err : xasprintf("rubric %s: invalid", label);
		return CE_DATA;
	}
	return 0;
}

enum cmax_err rubric_load(struct rubric *rb, const char *path, char **err)
{
	int missing = 0;
	char *yerr = NULL;
	memset(rb, 0, sizeof *rb);
	json_t *root = yamljson_load_file2(path, &yerr, &missing);
	if (!root) {
		*err = xasprintf("rubric %s", yerr ? yerr : path);
		free(yerr);
		return missing ? CE_NOINPUT : CE_DATA;
	}
	return rubric_from_json(rb, root, path, err);
}

void rubric_free(struct rubric *rb)
{
	if (!rb)
		return;
	for (size_t c = 0; c < RATE_NCAT; c++) {
		for (size_t i = 0; i < rb->cats[c].nitems; i++) {
			struct r_item *it = &rb->cats[c].items[i];
			free(it->anchors);
			free((char *)it->id);
			free(it->rows);
			free(it->exclude);
			free(it->fields);
			free(it->required);
		}
		free(rb->cats[c].items);
	}
	for (size_t i = 0; i < rb->ndq; i++) {
		free(rb->dq[i].rows);
		free(rb->dq[i].fields);
		free(rb->dq[i].current);
	}
	free(rb->dq);
	for (int i = 0; i < GPF__COUNT; i++)
		free(rb->gp.figs[i]);
	json_decref(rb->root);
	free(rb->path);
	memset(rb, 0, sizeof *rb);
}
