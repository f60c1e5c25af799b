/* Scoring (see score.h): pure computation over loaded evidence. */
#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "policy/gpu_models.h"
#include "core/strbuf.h"
#include "core/timefmt.h"
#include "rate/score.h"

const char *const gp_asm_names[GPA__COUNT] = { "gpus",		     "gpus_per_node", "job_starts_per_day",
					       "failures_per_month", "storage_bound_fraction", "hours_per_month",
					       "price_per_gpu_hour" };

const char *const gp_cause_names[GPC__COUNT] = {
	"import torch at job start",
	"model load at job start",
	"failure detection",
	"drain and return to service",
	"degraded storage",
};

const char *const gp_cause_formulas[GPC__COUNT] = {
	"job_starts_per_day x days_per_month x import_s x gpus / 3600",
	"job_starts_per_day x days_per_month x model_load_s x gpus / 3600",
	"failures_per_month x detect_s x gpus_per_node / 3600",
	"failures_per_month x (recovery_s - detect_s) x gpus_per_node / 3600",
	"degradation_pct / 100 x storage_bound_fraction x gpus x hours_per_month",
};

double rate_linear(double v, double good, double bad)
{
	double s = (bad - v) / (bad - good) * 100.0;
	if (s > 100 || isnan(s))
		s = s > 100 ? 100 : 0;
	return s < 0 ? 0 : s;
}

/* ---- duplicates ---------------------------------------------------------- */

/* Whole seconds, as documents are compared to the second; no zone is UTC. */
static double iso_epoch(const char *s)
{
	int64_t ms;
	if (!s || time_parse(s, strlen(s), TIME_NOZONE, 0, &ms) < 0)
		return NAN;
	return (double)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
}

/* When a document was made: started_at, else the first timeline event. */
static double doc_time(const struct ev_doc *d)
{
	double t = iso_epoch(d->started_at);
	if (!isnan(t))
		return t;
	const json_t *at = ev_get(d->root, "timeline.events.0.at");
	if (json_is_string(at))
		return iso_epoch(json_string_value(at));
	double e;
	if (ev_number(d->root, "events.0.epoch_s", &e))
		return e;
	return NAN;
}

struct dkey {
	const struct ev_row *r;
	char *variant;
	size_t doc;
};

static int dkey_cmp(const void *a, const void *b)
{
	const struct dkey *x = a, *y = b;
	int c = strcmp(x->r->id, y->r->id);
	if (!c)
		c = strcmp(x->r->host ? x->r->host : "", y->r->host ? y->r->host : "");
	if (!c)
		c = strcmp(x->variant, y->variant);
	if (!c)
		c = x->doc < y->doc ? -1 : x->doc > y->doc;
	return c;
}

/* Two injections of different faults on one node are two experiments. */
static char *row_variant(const struct ev_row *r)
{
	if (r->doc->kind != EV_INJECT)
		return xstrdup("");
	const json_t *f = json_object_get(r->doc->root, "fault");
	const char *kind = json_string_value(json_object_get(f, "kind"));
	const json_t *code = json_object_get(f, "code");
	const char *method = json_string_value(json_object_get(r->doc->root, "method"));
	return xasprintf("%s:%lld:%s", kind ? kind : "", json_is_integer(code) ? (long long)json_integer_value(code) : -1,
			 method ? method : "");
}

struct rate_dup *rate_dedup(const struct ev_set *s, unsigned char *active, size_t *n)
{
	*n = 0;
	if (!s->nrows)
		return NULL;
	struct dkey *k = xcalloc(s->nrows, sizeof *k);
	for (size_t i = 0; i < s->nrows; i++) {
		k[i].r = &s->rows[i];
		k[i].variant = row_variant(&s->rows[i]);
		for (size_t d = 0; d < s->ndocs; d++)
			if (s->docs[d] == s->rows[i].doc)
				k[i].doc = d;
	}
	qsort(k, s->nrows, sizeof *k, dkey_cmp);
	struct rate_dup *dups = NULL;
	for (size_t i = 0; i < s->nrows;) {
		size_t j = i + 1;
		while (j < s->nrows && !strcmp(k[i].r->id, k[j].r->id) &&
		       !strcmp(k[i].r->host ? k[i].r->host : "", k[j].r->host ? k[j].r->host : "") &&
		       !strcmp(k[i].variant, k[j].variant))
			j++;
		if (k[j - 1].doc != k[i].doc) {
			/* the winning document: newest; equal or unknown times, the later loaded */
			size_t win = i;
			for (size_t m = i + 1; m < j; m++) {
				double tw = doc_time(s->docs[k[win].doc]), tm = doc_time(s->docs[k[m].doc]);
				if (isnan(tw) || isnan(tm) || tm >= tw)
					win = m;
			}
			for (size_t m = i; m < j; m++) {
				if (k[m].doc == k[win].doc)
					continue;
				active[k[m].r - s->rows] = 0;
				dups = xrealloc(dups, (*n + 1) * sizeof *dups);
				dups[*n].kept = k[win].r;
				dups[*n].dropped = k[m].r;
				(*n)++;
			}
		}
		i = j;
	}
	for (size_t i = 0; i < s->nrows; i++)
		free(k[i].variant);
	free(k);
	return dups;
}

/* ---- items --------------------------------------------------------------- */

static int row_matches(const struct r_item *it, const char *const *rows, size_t nrows, const char *id)
{
	int hit = 0;
	for (size_t i = 0; !hit && i < nrows; i++)
		hit = fnmatch(rows[i], id, 0) == 0;
	for (size_t i = 0; hit && it && i < it->nexclude; i++)
		if (fnmatch(it->exclude[i], id, 0) == 0)
			hit = 0;
	return hit;
}

static void add_use(struct item_res *ir, const struct rate_result *out, const struct ev_row *r, size_t idx)
{
	ir->uses = xrealloc(ir->uses, (ir->nuses + 1) * sizeof *ir->uses);
	struct ev_use *u = &ir->uses[ir->nuses++];
	memset(u, 0, sizeof *u);
	u->row = r;
	u->malformed = out->row_bad ? out->row_bad[idx] : NULL;
	u->quick = r->mode && !strcmp(r->mode, "quick");
	if (u->malformed)
		ir->nmalformed++;
}

static void collect_rows(const struct rate_input *in, const struct rate_result *out, struct item_res *ir)
{
	const struct r_item *it = ir->it;
	for (size_t i = 0; i < in->ev->nrows; i++)
		if ((!in->active || in->active[i]) &&
		    row_matches(it, it->rows, it->nrows, in->ev->rows[i].id))
			add_use(ir, out, &in->ev->rows[i], i);
}

static char *globs(const char *const *g, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		sb_addf(&sb, "%s%s", i ? ", " : "", g[i]);
	return sb_detach(&sb);
}

/* The share of an item's weight its counted rows earn toward confidence:
 * full-mode (or mode-less) rows 1, quick-mode rows the rubric's factor. */
static void item_confidence(const struct rubric *rb, struct item_res *ir)
{
	size_t n = 0;
	double sum = 0;
	ir->quick = 0;
	for (size_t i = 0; i < ir->nuses; i++) {
		if (!ir->uses[i].counted)
			continue;
		n++;
		ir->quick += (size_t)ir->uses[i].quick;
		sum += ir->uses[i].quick ? rb->quick_confidence : 1.0;
	}
	ir->confidence = ir->has_evidence && n ? sum / (double)n : 0;
}

static void add_not_scored(struct strbuf *sb, const struct item_res *ir)
{
	if (ir->nmalformed)
		sb_addf(sb, "; %zu row%s not scored: malformed evidence", ir->nmalformed, ir->nmalformed == 1 ? "" : "s");
	if (ir->quick)
		sb_addf(sb, "; %zu from a quick run (lower confidence)", ir->quick);
}

static void score_checks(const struct rate_input *in, const struct rate_result *out, struct item_res *ir)
{
	const struct r_item *it = ir->it;
	size_t counts[ST__COUNT] = { 0 };
	double sum = 0, lo = 1e9, hi = -1e9;
	size_t n = 0;
	collect_rows(in, out, ir);
	for (size_t i = 0; i < ir->nuses; i++) {
		enum status st = ir->uses[i].row->status;
		if (ir->uses[i].malformed)
			continue;
		counts[st]++;
		if (st == ST_SKIP || st == ST_ERROR)
			continue;
		double s = in->rb->status_score[st] * 100.0;
		ir->uses[i].counted = 1;
		sum += s;
		lo = s < lo ? s : lo;
		hi = s > hi ? s : hi;
		n++;
	}
	struct strbuf sb = STRBUF_INIT;
	if (!ir->nuses) {
		char *g = globs(it->rows, it->nrows);
		sb_addf(&sb, "no %s row in the evidence", g);
		free(g);
	} else {
		sb_addf(&sb, "%zu row%s:", ir->nuses, ir->nuses == 1 ? "" : "s");
		for (int s = 0; s < ST__COUNT; s++)
			if (counts[s])
				sb_addf(&sb, " %zu %s", counts[s], status_name((enum status)s));
		if (!n)
			sb_adds(&sb, " (none graded)");
	}
	if (n) {
		ir->has_evidence = 1;
		ir->score = it->agg == AGG_WORST ? lo : it->agg == AGG_BEST ? hi : sum / (double)n;
	}
	item_confidence(in->rb, ir);
	add_not_scored(&sb, ir);
	ir->detail = sb_detach(&sb);
}

static int event_offset(const json_t *root, const char *name, double *out)
{
	const json_t *evs = json_object_get(root, "events");
	if (!json_is_array(evs))
		evs = ev_get(root, "timeline.events");
	size_t i;
	json_t *e;
	json_array_foreach(evs, i, e) {
		const char *n = json_string_value(json_object_get(e, "event"));
		if (n && !strcmp(n, name))
			return ev_number(e, "offset_s", out);
	}
	return 0;
}

static const char *unit_of(const struct r_item *it)
{
	return it->unit ? it->unit : "";
}

/* The JSON a figure path is read from: the row, or its whole document. */
static const json_t *figure_root(const struct r_item *it, const struct ev_row *r)
{
	return it->from == FROM_ROW ? r->json : r->doc->root;
}

/* The anchors for a row: its document's platform, else the default. NULL
 * when the document names a platform the rubric has no anchors for. */
static const struct r_anchor *anchor_for(const struct r_item *it, const struct ev_row *r, const char **platform)
{
	*platform = NULL;
	if (!it->platform_path)
		return it->dflt;
	const char *p = json_string_value(ev_get(r->doc->root, it->platform_path));
	if (!p)
		return it->dflt;
	*platform = p;
	for (size_t i = 0; i < it->nanchors; i++)
		if (!strcmp(it->anchors[i].platform, p))
			return &it->anchors[i];
	return NULL;
}

static double anchor_score(const struct r_anchor *a, double v)
{
	return a->floor + (100.0 - a->floor) * rate_linear(v, a->good, a->bad) / 100.0;
}

/* a strictly better than b: by score, then (same anchors' direction) by value; never is worst */
static int better(const struct ev_use *a, const struct ev_use *b)
{
	if (a->never || b->never)
		return !a->never && b->never;
	if (a->score != b->score)
		return a->score > b->score;
	if (!a->has_value || !b->has_value)
		return a->has_value && !b->has_value;
	int lower_better = a->anchor->good < a->anchor->bad;
	return lower_better ? a->value < b->value : a->value > b->value;
}

static const struct ev_use *aggregate(const struct item_res *ir, int full_only)
{
	const struct ev_use *pick = NULL;
	for (size_t i = 0; i < ir->nuses; i++) {
		const struct ev_use *u = &ir->uses[i];
		if (!u->counted || (full_only && u->quick))
			continue;
		if (!pick || (ir->it->agg == AGG_BEST ? better(u, pick) : better(pick, u)))
			pick = u;
	}
	return pick;
}

/* How the rows of a figure item went. */
struct fig_tally {
	size_t nval, nskip, nnone, nplat;
	const char *unknown_platform;
};

/* One row's use of a figure item: its anchors, its value (or never, or
 * absent), its score; counted or not. */
static void figure_use(const struct r_item *it, const struct ev_bound *derived, struct ev_use *u,
		       struct fig_tally *t)
{
	const struct ev_row *r = u->row;
	if (u->malformed)
		return;
	const char *plat;
	u->anchor = anchor_for(it, r, &plat);
	if (!u->anchor) {
		t->nplat++;
		t->unknown_platform = plat;
		return;
	}
	double raw = 0;
	char why[160];
	int got = it->from == FROM_EVENT ? event_offset(r->doc->root, it->event, &raw)
					 : ev_figure(figure_root(it, r), it->path, it->has_numerator ? NULL : it->unit,
						     &raw, why, sizeof why) == EVV_OK;
	if (r->status == ST_ERROR || (r->status == ST_SKIP && got)) {
		/* the probe broke, or a value stands beside a verdict that did not judge it */
		t->nskip++;
		return;
	}
	if (got && it->has_numerator) {
		double d = raw > 0 ? it->numerator / raw : INFINITY;
		if (!isfinite(d) || (derived && d > derived->hi))
			u->never = 2; /* nothing completes at a rate of zero, or within the bound */
		else
			raw = d;
	}
	double tmp;
	if (got && !u->never) {
		u->has_value = 1;
		u->value = raw;
		u->score = anchor_score(u->anchor, raw);
	} else if (!got && r->status == ST_FAIL && it->fail_is_never) {
		u->never = 1;
	} else if (!got && r->status != ST_FAIL && u->anchor->has_absent &&
		   ev_number(r->doc->root, u->anchor->absent_if, &tmp)) {
		u->absent = 1;
		u->score = u->anchor->absent_score;
	} else if (r->status == ST_SKIP) {
		t->nskip++;
		return;
	}
	if (u->has_value || u->never || u->absent) {
		u->counted = 1;
		t->nval++;
	} else {
		t->nnone++;
	}
}

/* Why no row gave the item a value. */
static void figure_unmeasured(const struct item_res *ir, const struct fig_tally *t, struct strbuf *sb)
{
	const struct r_item *it = ir->it;
	if (!ir->nuses) {
		char *g = globs(it->rows, it->nrows);
		sb_addf(sb, "not measured: no %s row in the evidence", g);
		free(g);
		return;
	}
	sb_addf(sb, "not measured: %zu row%s", ir->nuses, ir->nuses == 1 ? "" : "s");
	if (t->nskip)
		sb_addf(sb, ", %zu SKIP/ERROR", t->nskip);
	if (t->nnone)
		sb_addf(sb, ", %zu without %s%s", t->nnone, it->from == FROM_EVENT ? "event " : "",
			it->from == FROM_EVENT ? it->event : it->path);
	if (t->nplat)
		sb_addf(sb, ", %zu on platform '%s' (no anchors in the rubric)", t->nplat, t->unknown_platform);
}

/* The aggregate's pick becomes the item's value, and its detail says so. */
static void figure_picked(struct item_res *ir, size_t nval, struct strbuf *sb)
{
	const struct r_item *it = ir->it;
	const struct ev_use *pick = aggregate(ir, 0);
	ir->gp = aggregate(ir, 1);
	ir->has_evidence = 1;
	ir->value_row = pick->row;
	ir->anchor = pick->anchor;
	ir->never = pick->never;
	ir->absent = pick->absent;
	ir->has_value = pick->has_value;
	ir->value = pick->value;
	ir->score = pick->never ? 0 : pick->score;
	if (pick->never)
		sb_addf(sb, "never (%s on %s: %s)", pick->row->id, pick->row->host ? pick->row->host : "?",
			pick->never == 2 ? "a rate of 0" : "FAIL without the figure");
	else if (pick->absent)
		sb_addf(sb, "%s (%s on %s)", pick->anchor->absent_why ? pick->anchor->absent_why : "absent", pick->row->id,
			pick->row->host ? pick->row->host : "?");
	else
		sb_addf(sb, "%.6g%s%s", pick->value, it->unit ? " " : "", unit_of(it));
	if (nval > 1)
		sb_addf(sb, " (%s of %zu)", it->agg == AGG_BEST ? "best" : "worst", nval);
	if (pick->anchor->platform)
		sb_addf(sb, "; %s: good %g, bad %g", pick->anchor->platform, pick->anchor->good, pick->anchor->bad);
	else
		sb_addf(sb, "; good %g, bad %g", pick->anchor->good, pick->anchor->bad);
	if (pick->anchor->floor > 0)
		sb_addf(sb, ", floor %g", pick->anchor->floor);
}

static void score_figure(const struct rate_input *in, const struct rate_result *out, struct item_res *ir)
{
	const struct r_item *it = ir->it;
	struct fig_tally t = { 0 };
	const struct ev_bound *derived = it->has_numerator ? ev_bound_of(NULL, it->unit) : NULL;
	collect_rows(in, out, ir);
	for (size_t i = 0; i < ir->nuses; i++)
		figure_use(it, derived, &ir->uses[i], &t);
	struct strbuf sb = STRBUF_INIT;
	if (!t.nval) {
		figure_unmeasured(ir, &t, &sb);
		add_not_scored(&sb, ir);
		ir->detail = sb_detach(&sb);
		return;
	}
	figure_picked(ir, t.nval, &sb);
	item_confidence(in->rb, ir);
	add_not_scored(&sb, ir);
	ir->detail = sb_detach(&sb);
}

static char *value_text(const json_t *v)
{
	if (json_is_true(v))
		return xstrdup("true");
	if (json_is_false(v))
		return xstrdup("false");
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_number(v))
		return xasprintf("%g", json_number_value(v));
	if (json_is_array(v)) {
		struct strbuf sb = STRBUF_INIT;
		size_t i;
		json_t *x;
		sb_adds(&sb, "[");
		json_array_foreach(v, i, x)
			sb_addf(&sb, "%s%s", i ? ", " : "", json_string_value(x) ? json_string_value(x) : "?");
		sb_adds(&sb, "]");
		return sb_detach(&sb);
	}
	return xstrdup("?");
}

static int list_has_ci(const json_t *arr, const char *s)
{
	size_t i;
	json_t *x;
	json_array_foreach(arr, i, x)
		if (json_is_string(x) && !strcasecmp(json_string_value(x), s))
			return 1;
	return 0;
}

static void score_attest(const struct rate_input *in, struct item_res *ir)
{
	const struct r_item *it = ir->it;
	struct strbuf why = STRBUF_INIT;
	for (size_t f = 0; f < it->nfields; f++) {
		const struct att_value *av = attest_get(in->att, it->fields[f]);
		if (!av)
			continue;
		double s = -1;
		const json_t *v = av->value;
		if (it->amode == AM_MAP) {
			const char *key = json_is_boolean(v) ? (json_is_true(v) ? "true" : "false") : json_string_value(v);
			const json_t *m = key ? json_object_get(it->map, key) : NULL;
			if (m)
				s = json_number_value(m);
			else
				sb_addf(&why, "%s'%s' = %s has no score in the rubric", why.len ? "; " : "", av->f->path,
					key ? key : "?");
		} else if (it->amode == AM_SCALE) {
			double x = it->count ? (double)json_array_size(v) : json_number_value(v);
			s = rate_linear(x, it->good, it->bad);
		} else {
			size_t have = 0;
			for (size_t k = 0; k < it->nrequired; k++)
				have += list_has_ci(v, it->required[k]);
			s = 100.0 * (double)have / (double)it->nrequired;
		}
		if (s >= 0 && (!ir->has_evidence || s > ir->score)) {
			ir->has_evidence = 1;
			ir->confidence = 1;
			ir->score = s;
			ir->att = av;
		}
	}
	struct strbuf sb = STRBUF_INIT;
	if (ir->has_evidence) {
		char *t = value_text(ir->att->value);
		sb_addf(&sb, "attestation %s: %s", ir->att->f->path, t);
		free(t);
		if (it->amode == AM_COVERS) {
			sb_adds(&sb, " (needs ");
			for (size_t k = 0; k < it->nrequired; k++)
				sb_addf(&sb, "%s%s", k ? ", " : "", it->required[k]);
			sb_adds(&sb, ")");
		}
	} else if (!in->att) {
		sb_adds(&sb, "no attestation file");
	} else if (why.len) {
		sb_adds(&sb, sb_str(&why));
	} else {
		char *g = globs(it->fields, it->nfields);
		sb_addf(&sb, "not stated in the attestation (%s)", g);
		free(g);
	}
	sb_free(&why);
	ir->detail = sb_detach(&sb);
}

/* ---- disqualifiers ------------------------------------------------------- */

static void add_host(struct strbuf *sb, const char *host, int *n)
{
	if (*n < 4)
		sb_addf(sb, "%s%s", *n ? ", " : "", host ? host : "?");
	else if (*n == 4)
		sb_adds(sb, ", ...");
	(*n)++;
}

static void dq_rows(const struct rate_input *in, const struct rate_result *out, struct dq_res *q)
{
	const struct r_disq *d = q->d;
	struct strbuf hit = STRBUF_INIT;
	size_t judged = 0, skipped = 0, applied = 0, malformed = 0;
	int nh = 0;
	const char *first_id = NULL;
	enum status first_st = ST_FAIL;
	for (size_t i = 0; i < in->ev->nrows; i++) {
		const struct ev_row *r = &in->ev->rows[i];
		if ((in->active && !in->active[i]) || !row_matches(NULL, d->rows, d->nrows, r->id))
			continue;
		if (out->row_bad[i]) {
			malformed++;
			continue;
		}
		if (r->status == ST_SKIP || r->status == ST_ERROR) {
			skipped++;
			continue;
		}
		judged++;
		if (d->on_status[r->status]) {
			if (!first_id) {
				first_id = r->id;
				first_st = r->status;
			}
			applied++;
			add_host(&hit, r->host, &nh);
		}
	}
	char *g = globs(d->rows, d->nrows);
	if (applied) {
		q->state = DQS_APPLIED;
		q->why = xasprintf("%s %s on %s", first_id, status_name(first_st), sb_str(&hit));
	} else if (judged) {
		q->state = DQS_CLEAR;
		q->why = xasprintf("%s graded on %zu row%s, none %s", g, judged, judged == 1 ? "" : "s",
				   d->on_status[ST_WARN] ? "WARN or FAIL" : "FAIL");
	} else {
		q->state = DQS_NOT_ASSESSED;
		q->why = malformed ? xasprintf("%s: %zu row%s with malformed evidence, none graded", g, malformed,
					       malformed == 1 ? "" : "s")
			 : skipped ? xasprintf("%s: %zu row%s, none graded (SKIP/ERROR)", g, skipped, skipped == 1 ? "" : "s")
				   : xasprintf("no %s row in the evidence", g);
	}
	free(g);
	sb_free(&hit);
}

static void dq_attest(const struct rate_input *in, struct dq_res *q)
{
	const struct r_disq *d = q->d;
	struct strbuf t = STRBUF_INIT, f = STRBUF_INIT, un = STRBUF_INIT;
	size_t ntrue = 0, nfalse = 0;
	for (size_t i = 0; i < d->nfields; i++) {
		const struct att_value *av = attest_get(in->att, d->fields[i]);
		if (!av) {
			sb_addf(&un, "%s%s", un.len ? ", " : "", d->fields[i]);
		} else if (json_is_true(av->value)) {
			sb_addf(&t, "%s%s: true", t.len ? ", " : "", d->fields[i]);
			ntrue++;
		} else {
			sb_addf(&f, "%s%s: false", f.len ? ", " : "", d->fields[i]);
			nfalse++;
		}
	}
	const char *pre = in->att ? "attestation " : "";
	if (d->kind == DQ_ATTEST_ALL_FALSE) {
		if (nfalse == d->nfields) {
			q->state = DQS_APPLIED;
			q->why = xasprintf("%s%s", pre, sb_str(&f));
		} else if (ntrue) {
			q->state = DQS_CLEAR;
			q->why = xasprintf("%s%s", pre, sb_str(&t));
		}
	} else {
		if (ntrue) {
			q->state = DQS_APPLIED;
			q->why = xasprintf("%s%s", pre, sb_str(&t));
		} else if (nfalse == d->nfields) {
			q->state = DQS_CLEAR;
			q->why = xasprintf("%s%s", pre, sb_str(&f));
		}
	}
	if (!q->why)
		q->why = in->att ? xasprintf("not stated in the attestation: %s", sb_str(&un))
				 : xstrdup("no attestation file");
	sb_free(&t);
	sb_free(&f);
	sb_free(&un);
}

static const char *strip_vendor(const char *n)
{
	static const char *const pre[] = { "NVIDIA ", "AMD Instinct ", "Instinct ", "AMD ", NULL };
	while (*n == ' ')
		n++;
	for (int i = 0; pre[i]; i++)
		if (!strncasecmp(n, pre[i], strlen(pre[i])))
			return n + strlen(pre[i]);
	return n;
}

/* The model key of a product name ("NVIDIA B300 SXM6 AC" -> "B300"). */
static const char *model_key(const json_t *models, const char *name)
{
	const char *k = json_string_value(json_object_get(gpu_model_match(models, NULL, name, NULL), "key"));
	return k ? k : strip_vendor(name);
}

static int is_current(const struct r_disq *d, const char *key)
{
	for (size_t i = 0; i < d->ncurrent; i++) {
		size_t n = strlen(d->current[i]);
		if (!strncasecmp(key, d->current[i], n) && (key[n] == 0 || key[n] == ' ' || key[n] == '-'))
			return 1;
	}
	return 0;
}

struct gpu_seen {
	char *key;
	char *where;
};

static void seen_add(struct gpu_seen **s, size_t *n, const char *key, const char *where)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcasecmp((*s)[i].key, key))
			return;
	*s = xrealloc(*s, (*n + 1) * sizeof **s);
	(*s)[*n].key = xstrdup(key);
	(*s)[*n].where = xstrdup(where);
	(*n)++;
}

static void dq_gpus(const struct rate_input *in, const struct rate_result *out, struct dq_res *q)
{
	const struct r_disq *d = q->d;
	struct gpu_seen *seen = NULL;
	size_t n = 0;
	for (size_t i = 0; i < in->ev->nrows; i++) {
		const struct ev_row *r = &in->ev->rows[i];
		if ((in->active && !in->active[i]) || !row_matches(NULL, d->rows, d->nrows, r->id) || out->row_bad[i] ||
		    r->status == ST_SKIP || r->status == ST_ERROR || !r->observed)
			continue;
		char *where = xasprintf("%s on %s", r->id, r->host ? r->host : "?");
		const json_t *m = json_object_get(r->observed, "models");
		const char *k;
		json_t *x;
		size_t j;
		if (json_is_object(m))
			json_object_foreach((json_t *)m, k, x)
				seen_add(&seen, &n, model_key(in->gpu_models, k), where);
		else if (json_is_array(m))
			json_array_foreach(m, j, x)
				if (json_is_string(x))
					seen_add(&seen, &n, model_key(in->gpu_models, json_string_value(x)), where);
		const char *mk = json_string_value(json_object_get(r->observed, "model_key"));
		if (mk)
			seen_add(&seen, &n, mk, where);
		free(where);
	}
	for (size_t f = 0; f < d->nfields; f++) {
		const struct att_value *av = attest_get(in->att, d->fields[f]);
		size_t j;
		json_t *x;
		char *where = xasprintf("attestation %s", d->fields[f]);
		json_array_foreach(av ? av->value : NULL, j, x)
			seen_add(&seen, &n, model_key(in->gpu_models, json_string_value(x)), where);
		free(where);
	}
	struct strbuf cur = STRBUF_INIT, old = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		struct strbuf *b = is_current(d, seen[i].key) ? &cur : &old;
		sb_addf(b, "%s%s (%s)", b->len ? ", " : "", seen[i].key, seen[i].where);
	}
	if (!n) {
		q->state = DQS_NOT_ASSESSED;
		q->why = xstrdup("no GPU model in the evidence or the attestation");
	} else if (cur.len) {
		q->state = DQS_CLEAR;
		q->why = xasprintf("current GPUs: %s", sb_str(&cur));
	} else {
		q->state = DQS_APPLIED;
		q->why = xasprintf("only %s", sb_str(&old));
	}
	sb_free(&cur);
	sb_free(&old);
	for (size_t i = 0; i < n; i++) {
		free(seen[i].key);
		free(seen[i].where);
	}
	free(seen);
}

/* ---- goodput -------------------------------------------------------------- */

void gp_assume_from_rubric(struct gp_assume *a, const struct rubric *rb, const struct attest *att)
{
	memset(a, 0, sizeof *a);
	const struct r_goodput *g = &rb->gp;
	double v[] = { g->gpus, g->gpus_per_node, g->job_starts_per_day, g->failures_per_month,
		       g->storage_bound_fraction, g->hours_per_month };
	for (int i = 0; i < GPA_PRICE; i++) {
		a->v[i] = v[i];
		a->set[i] = 1;
		a->src[i] = "rubric";
	}
	const struct att_value *p = attest_get(att, "pricing.price_per_gpu_hour");
	if (p) {
		a->v[GPA_PRICE] = json_number_value(p->value);
		a->set[GPA_PRICE] = 1;
		a->src[GPA_PRICE] = "attestation";
	}
	const struct att_value *c = attest_get(att, "pricing.currency");
	a->currency = c ? json_string_value(c->value) : NULL;
}

/* The figure a goodput cause uses: the first item named in the rubric
 * with a figure from full-mode rows (*use); else the first with any
 * evidence, so that the line can say why it is not counted. */
static const struct item_res *gp_figure(const struct rate_result *r, enum gp_fig f, const struct ev_use **use)
{
	const struct r_goodput *g = &r->rb->gp;
	const struct item_res *first = NULL, *held = NULL;
	*use = NULL;
	for (size_t i = 0; i < g->nfigs[f]; i++) {
		size_t c, k;
		if (!rubric_item(r->rb, g->figs[f][i], &c, &k))
			continue;
		const struct item_res *ir = &r->cats[c].items[k];
		if (!first)
			first = ir;
		if (ir->gp && (ir->gp->has_value || ir->gp->never)) {
			*use = ir->gp;
			return ir;
		}
		if (!held && ir->has_evidence)
			held = ir;
	}
	return held ? held : first;
}

/* Why a figure with evidence does not become a number of GPU-hours (NULL:
 * it does, or there is none): a quick run's figure is not counted; a
 * figure scored as absent (an NVL72 tray isolated and not returned) is a
 * loss without a bound. */
static char *gp_held(const struct item_res *ir, const struct ev_use *use)
{
	if (use || !ir || !ir->has_evidence)
		return NULL;
	if (ir->absent)
		return xasprintf("%s: %s; its GPUs stay out until it is replaced, so the loss has no bound (the score "
				 "counts it as meeting the bar)",
				 ir->anchor->platform ? ir->anchor->platform : ir->it->id,
				 ir->anchor->absent_why ? ir->anchor->absent_why : "scored as absent");
	if (ir->quick)
		return xasprintf("%s came from a quick run (%s on %s, mode quick): a smoke test's figure is not counted "
				 "as lost GPU-hours",
				 ir->it->id, ir->value_row->id, ir->value_row->host ? ir->value_row->host : "?");
	return NULL;
}

/* Import and model load: lost on every job start. */
static void gp_starts(struct rate_result *r, const struct ev_use *const u[GPF__COUNT], double days)
{
	const double *a = r->as.v;
	const enum gp_fig starts[2] = { GPF_IMPORT, GPF_MODEL_LOAD };
	for (int i = 0; i < 2; i++) {
		const struct ev_use *s = u[starts[i]];
		struct gp_line *l = &r->gp[i == 0 ? GPC_IMPORT : GPC_MODEL_LOAD];
		if (!s)
			continue;
		if (s->never) {
			l->state = GPS_UNBOUNDED;
			l->note = xstrdup("never completed");
			continue;
		}
		l->state = GPS_MEASURED;
		l->hours = a[GPA_JOB_STARTS] * days * s->value * a[GPA_GPUS] / 3600.0;
		l->inputs = xasprintf("%g x %.2f x %.4g s x %g / 3600", a[GPA_JOB_STARTS], days, s->value, a[GPA_GPUS]);
	}
}

/* Detection and recovery: lost on every failure, a node's GPUs each time;
 * recovery counts from detection on. */
static void gp_failures(struct rate_result *r, const struct item_res *const f[GPF__COUNT],
			const struct ev_use *const u[GPF__COUNT])
{
	const double *a = r->as.v;
	struct gp_line *ld = &r->gp[GPC_DETECT], *lr = &r->gp[GPC_RECOVERY];
	const struct ev_use *det = u[GPF_DETECT], *rec = u[GPF_RECOVERY];
	lr->fig[1] = f[GPF_DETECT];
	lr->use[1] = det;
	if (det && det->never) {
		ld->state = GPS_UNBOUNDED;
		ld->note = xstrdup("the injected fault was never detected: GPUs stay lost until someone notices");
	} else if (det) {
		ld->state = GPS_MEASURED;
		ld->hours = a[GPA_FAILURES] * det->value * a[GPA_GPUS_PER_NODE] / 3600.0;
		ld->inputs = xasprintf("%g x %.4g s x %g / 3600", a[GPA_FAILURES], det->value, a[GPA_GPUS_PER_NODE]);
	}
	if (rec && rec->never) {
		lr->state = GPS_UNBOUNDED;
		free(lr->note);
		lr->note = xstrdup("the node never came back into service within the observation");
	} else if (rec && ld->state != GPS_UNBOUNDED) {
		double d = ld->state == GPS_MEASURED ? det->value : 0;
		double span = rec->value - d;
		if (span < 0)
			span = 0;
		lr->state = GPS_MEASURED;
		lr->hours = a[GPA_FAILURES] * span * a[GPA_GPUS_PER_NODE] / 3600.0;
		lr->inputs = xasprintf("%g x (%.4g s - %.4g s) x %g / 3600", a[GPA_FAILURES], rec->value, d,
				       a[GPA_GPUS_PER_NODE]);
		if (ld->state != GPS_MEASURED)
			lr->note = xstrdup("detection not measured separately: the whole time to recovery is counted here");
	} else if (rec) {
		lr->note = xstrdup("not computed: detection never happened");
	}
}

/* Storage: the sustained-load degradation over the storage-bound share of the rent. */
static void gp_storage(struct rate_result *r, const struct ev_use *deg)
{
	const double *a = r->as.v;
	struct gp_line *ls = &r->gp[GPC_STORAGE];
	if (deg && !deg->never) {
		double pct = deg->value < 0 ? 0 : deg->value;
		ls->state = GPS_MEASURED;
		ls->hours = pct / 100.0 * a[GPA_STORAGE_FRACTION] * a[GPA_GPUS] * a[GPA_HOURS];
		ls->inputs = xasprintf("%.4g / 100 x %g x %g x %g", pct, a[GPA_STORAGE_FRACTION], a[GPA_GPUS],
				       a[GPA_HOURS]);
		if (deg->value < 0)
			ls->note = xstrdup("bandwidth rose under sustained load: counted as no loss");
	}
}

/* The lines' shares of the rent and the total, a lower bound when a line is not measured. */
static void gp_totals(struct rate_result *r, double rent)
{
	const double *a = r->as.v;
	for (int c = 0; c < GPC__COUNT; c++) {
		struct gp_line *l = &r->gp[c];
		if (l->state != GPS_MEASURED) {
			r->gp_lower_bound = 1;
			if (l->state == GPS_UNBOUNDED)
				r->gp_measured++;
			continue;
		}
		r->gp_measured++;
		l->pct = rent > 0 ? l->hours / rent * 100.0 : 0;
		l->money = r->as.set[GPA_PRICE] ? l->hours * a[GPA_PRICE] : 0;
		r->gp_hours += l->hours;
	}
	r->gp_pct = rent > 0 ? r->gp_hours / rent * 100.0 : 0;
	r->gp_money = r->as.set[GPA_PRICE] ? r->gp_hours * a[GPA_PRICE] : 0;
}

static void goodput(struct rate_result *r)
{
	const double *a = r->as.v;
	double days = a[GPA_HOURS] / 24.0;
	double rent = a[GPA_GPUS] * a[GPA_HOURS];
	for (int c = 0; c < GPC__COUNT; c++) {
		struct gp_line *l = &r->gp[c];
		l->cause = (enum gp_cause)c;
		l->state = GPS_NOT_MEASURED;
	}
	const struct ev_use *u[GPF__COUNT];
	const struct item_res *f[GPF__COUNT];
	for (int i = 0; i < GPF__COUNT; i++)
		f[i] = gp_figure(r, (enum gp_fig)i, &u[i]);
	static const enum gp_cause cause_of[GPF__COUNT] = { GPC_IMPORT, GPC_MODEL_LOAD, GPC_DETECT, GPC_RECOVERY,
							    GPC_STORAGE };
	for (int i = 0; i < GPF__COUNT; i++) {
		struct gp_line *l = &r->gp[cause_of[i]];
		l->fig[0] = f[i];
		l->use[0] = u[i];
		if ((l->note = gp_held(f[i], u[i])))
			l->state = f[i]->absent ? GPS_UNBOUNDED : GPS_NOT_COUNTED;
	}
	gp_starts(r, u, days);
	gp_failures(r, f, u);
	gp_storage(r, u[GPF_DEGRADATION]);
	gp_totals(r, rent);
}

/* ---- malformed evidence ------------------------------------------------------ */

static void add_bad(struct rate_result *out, const struct ev_row *r, size_t idx, char *path, char *why)
{
	out->bad = xrealloc(out->bad, (out->nbad + 1) * sizeof *out->bad);
	out->bad[out->nbad].row = r;
	out->bad[out->nbad].path = path;
	out->bad[out->nbad].why = why;
	out->row_bad[idx] = why;
	out->nbad++;
}

/* Every row that holds malformed evidence: what the loader found in its
 * observed fields, and what the figure items read for it (a document-level
 * path such as an inject timeline's times, or a figure without a unit
 * suffix). Such a row is not scored anywhere: its verdict rests on it. */
static void find_malformed(const struct rate_input *in, struct rate_result *out)
{
	const struct ev_set *s = in->ev;
	out->row_bad = xcalloc(s->nrows + 1, sizeof *out->row_bad);
	for (size_t i = 0; i < s->nrows; i++) {
		const struct ev_row *r = &s->rows[i];
		if (in->active && !in->active[i])
			continue;
		if (r->malformed) {
			const char *sep = strstr(r->malformed, ": ");
			add_bad(out, r, i, sep ? xstrndup(r->malformed, (size_t)(sep - r->malformed)) : xstrdup("observed"),
				xstrdup(sep ? sep + 2 : r->malformed));
			continue;
		}
		for (size_t c = 0; c < RATE_NCAT && !out->row_bad[i]; c++)
			for (size_t k = 0; k < in->rb->cats[c].nitems && !out->row_bad[i]; k++) {
				const struct r_item *it = &in->rb->cats[c].items[k];
				if (it->kind != IK_FIGURE || it->from == FROM_EVENT ||
				    !row_matches(it, it->rows, it->nrows, r->id))
					continue;
				char why[160];
				double d;
				if (ev_figure(figure_root(it, r), it->path, it->has_numerator ? NULL : it->unit, &d, why,
					      sizeof why) == EVV_MALFORMED) {
					add_bad(out, r, i, xstrdup(it->path), xstrdup(why));
				} else if (it->platform_path && ev_get(r->doc->root, it->platform_path) &&
					   !json_is_string(ev_get(r->doc->root, it->platform_path)) &&
					   !json_is_null(ev_get(r->doc->root, it->platform_path))) {
					add_bad(out, r, i, xstrdup(it->platform_path), xstrdup("not a platform name (a string)"));
				}
			}
	}
}

/* ---- the whole ----------------------------------------------------------- */

/* One category: score each item, then the category's score over the items
 * with evidence and its confidence over all of them. Returns whether any
 * item other than an attestation had evidence (hands-on). */
static int score_category(const struct rate_input *in, struct rate_result *out, size_t c)
{
	const struct r_category *cat = &in->rb->cats[c];
	struct cat_res *cr = &out->cats[c];
	cr->c = cat;
	cr->items = xcalloc(cat->nitems, sizeof *cr->items);
	double iw = 0, iwev = 0, isum = 0, iconf = 0;
	int measured = 0;
	for (size_t i = 0; i < cat->nitems; i++) {
		struct item_res *ir = &cr->items[i];
		ir->it = &cat->items[i];
		switch (ir->it->kind) {
		case IK_CHECKS: score_checks(in, out, ir); break;
		case IK_FIGURE: score_figure(in, out, ir); break;
		case IK_ATTEST: score_attest(in, ir); break;
		}
		iw += ir->it->weight;
		if (ir->has_evidence) {
			measured |= ir->it->kind != IK_ATTEST;
			iwev += ir->it->weight;
			iconf += ir->it->weight * ir->confidence;
			isum += ir->it->weight * ir->score;
			cr->counted++;
		} else {
			cr->missing++;
		}
	}
	cr->confidence = iw > 0 ? iconf / iw : 0;
	if (iwev > 0) {
		cr->has_score = 1;
		cr->score = isum / iwev;
	}
	return measured;
}

/* The weighted whole: score over the weighted categories with a score,
 * confidence over all weighted categories. */
static void score_categories(const struct rate_input *in, struct rate_result *out)
{
	double wsum = 0, wev = 0, ssum = 0, csum = 0;
	for (size_t c = 0; c < RATE_NCAT; c++) {
		const struct r_category *cat = &in->rb->cats[c];
		struct cat_res *cr = &out->cats[c];
		int measured = score_category(in, out, c);
		wsum += cat->weight;
		csum += cat->weight * cr->confidence;
		if (cr->has_score && cat->weight > 0) {
			wev += cat->weight;
			ssum += cat->weight * cr->score;
			out->ncats++;
			out->nmeasured += measured;
		}
	}
	out->confidence = wsum > 0 ? csum / wsum : 0;
	if (wev > 0) {
		out->has_score = 1;
		out->score = ssum / wev;
	}
}

/* The ladder: the best tier whose score and confidence are both met. */
static void tier_by_ladder(const struct rubric *rb, struct rate_result *out)
{
	enum tier t = TIER_UNDERPERFORMING, by_score = TIER_UNDERPERFORMING;
	for (int k = TIER_NRATED - 1; k >= 0; k--) {
		if (out->score >= rb->tiers[k].min_score) {
			by_score = (enum tier)k;
			if (out->confidence >= rb->tiers[k].min_confidence)
				t = (enum tier)k;
		}
	}
	out->tier = out->uncapped = t;
	if (t == TIER_UNDERPERFORMING && by_score == TIER_UNDERPERFORMING) {
		out->tier_reason = xasprintf("score %.1f is below %s (%.0f)", out->score, tier_name(TIER_RIBBON),
					     rb->tiers[TIER_RIBBON].min_score);
	} else if (t == TIER_UNDERPERFORMING) {
		/* the evidence is good but too thin for any tier: that is not underperforming */
		out->tier = out->uncapped = TIER_UNAVAILABLE;
		out->tier_reason = xasprintf("too little evidence: score %.1f meets %s (%.0f) but confidence %.2f is "
					     "below the %.2f even %s needs",
					     out->score, tier_name(by_score), rb->tiers[by_score].min_score,
					     out->confidence, rb->tiers[TIER_RIBBON].min_confidence,
					     tier_name(TIER_RIBBON));
	} else if (by_score < t) {
		out->tier_reason = xasprintf("score %.1f meets %s (%.0f) but confidence %.2f is below the %.2f that "
					     "%s needs",
					     out->score, tier_name(by_score), rb->tiers[by_score].min_score,
					     out->confidence, rb->tiers[t - 1].min_confidence, tier_name(t - 1));
	} else {
		out->tier_reason = xasprintf("score %.1f and confidence %.2f meet %s (%.0f, %.2f)", out->score,
					     out->confidence, tier_name(t), rb->tiers[t].min_score,
					     rb->tiers[t].min_confidence);
	}
}

/* tier: enough evidence first, then the ladder (the caps come after) */
static void decide_tier(const struct rubric *rb, struct rate_result *out)
{
	if (out->ncats < rb->unavail_min_categories || out->confidence < rb->unavail_min_confidence) {
		out->tier = out->uncapped = TIER_UNAVAILABLE;
		out->tier_reason = xasprintf("too little evidence: %d categor%s with evidence (%d needed), confidence "
					     "%.2f (%.2f needed)",
					     out->ncats, out->ncats == 1 ? "y" : "ies", rb->unavail_min_categories,
					     out->confidence, rb->unavail_min_confidence);
	} else if (out->nmeasured < rb->unavail_min_measured) {
		/* statements alone are not a rating: the method is hands-on */
		out->tier = out->uncapped = TIER_UNAVAILABLE;
		out->tier_reason = xasprintf("too little evidence: %d categor%s with hands-on evidence (%d needed); "
					     "an attestation alone is not a rating",
					     out->nmeasured, out->nmeasured == 1 ? "y" : "ies", rb->unavail_min_measured);
	} else {
		tier_by_ladder(rb, out);
	}
}

/* The caps: each disqualifier that applies lowers the tier to its cap. */
static void apply_disqualifiers(const struct rate_input *in, struct rate_result *out)
{
	const struct rubric *rb = in->rb;
	out->ndq = rb->ndq;
	out->dq = xcalloc(rb->ndq + 1, sizeof *out->dq);
	for (size_t i = 0; i < rb->ndq; i++) {
		struct dq_res *q = &out->dq[i];
		q->d = &rb->dq[i];
		switch (q->d->kind) {
		case DQ_ROWS: dq_rows(in, out, q); break;
		case DQ_ATTEST_ALL_FALSE:
		case DQ_ATTEST_ANY_TRUE: dq_attest(in, q); break;
		case DQ_GPU_GENERATION: dq_gpus(in, out, q); break;
		}
		if (q->state == DQS_APPLIED && out->tier != TIER_UNAVAILABLE && q->d->cap > out->tier)
			out->tier = q->d->cap;
	}
	/* what fixing each one would give: the uncapped tier under the other caps */
	for (size_t i = 0; i < out->ndq; i++) {
		if (out->dq[i].state != DQS_APPLIED)
			continue;
		enum tier t = out->uncapped;
		for (size_t j = 0; j < out->ndq; j++)
			if (j != i && out->dq[j].state == DQS_APPLIED && t != TIER_UNAVAILABLE && out->dq[j].d->cap > t)
				t = out->dq[j].d->cap;
		out->dq[i].would = t;
	}
}

void rate_compute(const struct rate_input *in, struct rate_result *out)
{
	memset(out, 0, sizeof *out);
	out->rb = in->rb;
	out->att = in->att;
	out->as = in->as;
	find_malformed(in, out);
	score_categories(in, out);
	decide_tier(in->rb, out);
	apply_disqualifiers(in, out);
	goodput(out);
}

void rate_result_free(struct rate_result *r)
{
	if (!r)
		return;
	for (size_t c = 0; c < RATE_NCAT; c++) {
		if (!r->cats[c].c)
			continue;
		for (size_t i = 0; i < r->cats[c].c->nitems; i++) {
			free(r->cats[c].items[i].uses);
			free(r->cats[c].items[i].detail);
		}
		free(r->cats[c].items);
	}
	for (size_t i = 0; i < r->ndq; i++)
		free(r->dq[i].why);
	free(r->dq);
	for (int c = 0; c < GPC__COUNT; c++) {
		free(r->gp[c].inputs);
		free(r->gp[c].note);
	}
	free(r->tier_reason);
	for (size_t i = 0; i < r->nbad; i++) {
		free(r->bad[i].path);
		free(r->bad[i].why);
	}
	free(r->bad);
	free(r->row_bad);
	memset(r, 0, sizeof *r);
}
