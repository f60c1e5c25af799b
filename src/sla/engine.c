/* The interval engine: events -> per-node down intervals (classified,
 * clipped to the period, merged) -> exclusions subtracted -> rack, cluster
 * and site down intervals by the definitions (a sweep that counts units
 * down at once) -> downtime, availability, credits, termination. Pure;
 * every interval keeps the events that produced it and every cut the
 * windows that made it. */
#include "sla/engine.h"
#include "core/strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const issue_names[IS__COUNT] = {
	"outside_period", "clipped", "never_came_back", "merged", "unknown_node", "not_down", "unmapped_state",
	"customer_initiated", "empty_interval", "cluster_record", "exclusion_not_accepted", "exclusion_no_nodes",
};

const char *sla_issue_name(enum sla_issue_kind k)
{
	return (unsigned)k < IS__COUNT ? issue_names[k] : "?";
}

/* ---- ids ---- */

void sla_ids_add(struct sla_ids *a, size_t v)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 4;
		a->v = xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n++] = v;
}

void sla_ids_addall(struct sla_ids *a, const struct sla_ids *b)
{
	for (size_t i = 0; i < b->n; i++)
		sla_ids_add(a, b->v[i]);
}

static int cmp_size(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	return a < b ? -1 : a > b;
}

void sla_ids_uniq(struct sla_ids *a)
{
	if (a->n < 2)
		return;
	qsort(a->v, a->n, sizeof *a->v, cmp_size);
	size_t w = 1;
	for (size_t i = 1; i < a->n; i++)
		if (a->v[i] != a->v[w - 1])
			a->v[w++] = a->v[i];
	a->n = w;
}

void sla_ids_free(struct sla_ids *a)
{
	free(a->v);
	memset(a, 0, sizeof *a);
}

/* ---- small sets ---- */

struct piece {
	sla_ms s, e;
	size_t iv;	/* the unit's interval it belongs to */
};

struct pset {
	struct piece *v;
	size_t n, cap;
};

static void pset_add(struct pset *p, sla_ms s, sla_ms e, size_t iv)
{
	if (e <= s)
		return;
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		p->v = xrealloc(p->v, p->cap * sizeof *p->v);
	}
	p->v[p->n++] = (struct piece){ s, e, iv };
}

static int cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;
	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return x->e < y->e ? -1 : x->e > y->e;
}

/* Sort and join overlapping or touching pieces (iv of the first kept). */
static void pset_union(struct pset *p)
{
	if (p->n < 2)
		return;
	qsort(p->v, p->n, sizeof *p->v, cmp_piece);
	size_t w = 0;
	for (size_t i = 1; i < p->n; i++) {
		if (p->v[i].s <= p->v[w].e) {
			if (p->v[i].e > p->v[w].e)
				p->v[w].e = p->v[i].e;
		} else {
			p->v[++w] = p->v[i];
		}
	}
	p->n = w + 1;
}

static sla_ms pset_total(const struct pset *p)
{
	sla_ms t = 0;
	for (size_t i = 0; i < p->n; i++)
		t += p->v[i].e - p->v[i].s;
	return t;
}

struct edge {
	sla_ms t;
	int d;
};

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->d - y->d;	/* ends before starts at the same instant */
}

/* Where at least k of the sets cover time at once. Each set is disjoint. */
static void sweep(struct pset *const *sets, size_t nsets, size_t k, struct pset *out)
{
	size_t ne = 0;
	for (size_t i = 0; i < nsets; i++)
		ne += 2 * sets[i]->n;
	if (!ne || !k)
		return;
	struct edge *e = xmalloc(ne * sizeof *e);
	size_t j = 0;
	for (size_t i = 0; i < nsets; i++)
		for (size_t q = 0; q < sets[i]->n; q++) {
			e[j++] = (struct edge){ sets[i]->v[q].s, +1 };
			e[j++] = (struct edge){ sets[i]->v[q].e, -1 };
		}
	qsort(e, ne, sizeof *e, cmp_edge);
	size_t c = 0;
	sla_ms start = 0;
	for (size_t i = 0; i < ne; i++) {
		size_t before = c;
		c = e[i].d > 0 ? c + 1 : c - 1;
		if (before < k && c >= k)
			start = e[i].t;
		else if (before >= k && c < k)
			pset_add(out, start, e[i].t, 0);
	}
	free(e);
	pset_union(out);
}

/* ---- candidates: intervals before merging ---- */

struct cand {
	sla_ms s, e;
	unsigned rules;
	int open, cs, ce;
	long ev;	/* the event, -1 for derived */
};

struct cands {
	struct cand *v;
	size_t n, cap;
};

static void cand_add(struct cands *c, struct cand x)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 8;
		c->v = xrealloc(c->v, c->cap * sizeof *c->v);
	}
	c->v[c->n++] = x;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	if (x->e != y->e)
		return x->e < y->e ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

struct ctx {
	const struct sla_layout *l;
	const struct sla_events *ev;
	const struct sla_windows *w;
	const struct sla_defs *d;
	const struct sla_level *lv;
	sla_ms from, to;
	struct sla_result *r;
	struct cands *cand[SC__COUNT];
	struct pset *net[SC__COUNT];	/* down minus excluded, per unit */
	struct pset *excl[SC__COUNT];	/* excluded time, per unit */
	struct pset **wins;		/* per node: accepted windows' pieces, iv = window index */
};

static void issue(struct sla_result *r, enum sla_issue_kind k, long ev, long win, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void issue(struct sla_result *r, enum sla_issue_kind k, long ev, long win, const char *fmt, ...)
{
	if (r->nissues % 64 == 0)
		r->issues = xrealloc(r->issues, (r->nissues + 64) * sizeof *r->issues);
	struct sla_issue *x = &r->issues[r->nissues++];
	x->kind = k;
	x->event = ev;
	x->window = win;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	x->why = sb_detach(&sb);
	r->count[k]++;
}

/* Merge a unit's candidates into intervals; for records (not derived
   pieces) an overlap is reported. */
static void merge(struct ctx *c, enum sla_scope s, size_t u)
{
	struct cands *cs = &c->cand[s][u];
	struct sla_unit_result *ur = &c->r->r[s][u];
	if (!cs->n)
		return;
	qsort(cs->v, cs->n, sizeof *cs->v, cmp_cand);
	ur->iv = xcalloc(cs->n, sizeof *ur->iv);
	struct sla_ival *cur = NULL;
	for (size_t i = 0; i < cs->n; i++) {
		const struct cand *x = &cs->v[i];
		if (cur && x->s <= cur->end) {
			if (x->s < cur->end && x->ev >= 0 && cur->ev.n) {
				const struct sla_event *first = &c->ev->v[cur->ev.v[0]];
				cur->merged++;
				issue(c->r, IS_MERGED, x->ev, -1, "%s: overlaps the record at %s: merged, counted once",
				      c->l->u[s][u].name, first->source);
			}
			if (x->e > cur->end)
				cur->end = x->e;
		} else {
			cur = &ur->iv[ur->niv++];
			cur->start = x->s;
			cur->end = x->e;
		}
		cur->rules |= x->rules;
		cur->open |= x->open;
		cur->clipped_start |= x->cs;
		cur->clipped_end |= x->ce;
		if (x->ev >= 0)
			sla_ids_add(&cur->ev, (size_t)x->ev);
	}
}

/* Cuts, counted time and net pieces of every interval of a unit. */
static void subtract(struct ctx *c, enum sla_scope s, size_t u)
{
	struct sla_unit_result *ur = &c->r->r[s][u];
	const struct pset *ex = &c->excl[s][u];
	const struct sla_unit *un = &c->l->u[s][u];
	for (size_t i = 0; i < ur->niv; i++) {
		struct sla_ival *iv = &ur->iv[i];
		sla_ms at = iv->start, cut = 0;
		for (size_t k = 0; k < ex->n; k++) {
			sla_ms a = ex->v[k].s > iv->start ? ex->v[k].s : iv->start;
			sla_ms b = ex->v[k].e < iv->end ? ex->v[k].e : iv->end;
			if (b <= a)
				continue;
			pset_add(&c->net[s][u], at, a, i);
			at = b;
			cut += b - a;
			iv->cuts = xrealloc(iv->cuts, (iv->ncuts + 1) * sizeof *iv->cuts);
			struct sla_cut *ct = &iv->cuts[iv->ncuts++];
			memset(ct, 0, sizeof *ct);
			ct->start = a;
			ct->end = b;
			/* which windows: those over this piece for any node of the unit */
			for (size_t n = un->node_first; n < un->node_first + (s == SC_NODE ? 1 : un->node_count); n++) {
				size_t node = s == SC_NODE ? u : n;
				const struct pset *wp = c->wins[node];
				for (size_t q = 0; q < wp->n; q++)
					if (wp->v[q].s < b && wp->v[q].e > a)
						sla_ids_add(&ct->windows, wp->v[q].iv);
			}
			sla_ids_uniq(&ct->windows);
		}
		pset_add(&c->net[s][u], at, iv->end, i);
		iv->counted = iv->end - iv->start - cut;
		ur->downtime += iv->counted;
	}
}

/* Scope intervals: which children and nodes were down, which events. Both
   the unit's intervals and every child's pieces are sorted and disjoint:
   one pass over each pair. */
static void attribute(struct ctx *c, enum sla_scope s, size_t u)
{
	struct sla_unit_result *ur = &c->r->r[s][u];
	const struct sla_unit *un = &c->l->u[s][u];
	if (!ur->niv)
		return;
	for (int pass = 0; pass < 2; pass++) {
		enum sla_scope cs = pass ? SC_NODE : (enum sla_scope)(s - 1);
		size_t first = pass ? un->node_first : un->first, count = pass ? un->node_count : un->count;
		for (size_t k = first; k < first + count; k++) {
			const struct pset *np = &c->net[cs][k];
			size_t i = 0;
			for (size_t q = 0; q < np->n; q++) {
				while (i < ur->niv && ur->iv[i].end <= np->v[q].s)
					i++;
				for (size_t j = i; j < ur->niv && ur->iv[j].start < np->v[q].e; j++) {
					struct sla_ival *iv = &ur->iv[j];
					if (!pass) {
						if (!iv->kids.n || iv->kids.v[iv->kids.n - 1] != k)
							sla_ids_add(&iv->kids, k);
						continue;
					}
					if (!iv->nodes.n || iv->nodes.v[iv->nodes.n - 1] != k)
						sla_ids_add(&iv->nodes, k);
					sla_ids_addall(&iv->ev, &c->r->r[SC_NODE][k].iv[np->v[q].iv].ev);
				}
			}
		}
	}
	for (size_t i = 0; i < ur->niv; i++)
		sla_ids_uniq(&ur->iv[i].ev);
}

static size_t need(size_t n, double frac)
{
	size_t k = (size_t)ceil(frac * (double)n - 1e-9);
	return k < 1 ? 1 : k;
}

/* Where at least k of base[first .. first + count) cover time at once. */
static void sweep_range(struct pset *base, size_t first, size_t count, size_t k, struct pset *out)
{
	struct pset **sets = xmalloc(count * sizeof *sets);
	for (size_t i = 0; i < count; i++)
		sets[i] = &base[first + i];
	sweep(sets, count, k, out);
	free(sets);
}

/* Candidates of unit u of scope s where k of the children in base[first ..
   first + count) are down at once, marked with the rule that made them. */
static void derive_rule(struct ctx *c, enum sla_scope s, size_t u, struct pset *base, size_t first, size_t count,
			size_t k, unsigned rule)
{
	struct pset out = { 0 };
	sweep_range(base, first, count, k, &out);
	for (size_t i = 0; i < out.n; i++)
		cand_add(&c->cand[s][u], (struct cand){ out.v[i].s, out.v[i].e, rule, 0, 0, 0, -1 });
	free(out.v);
}

/* Derived candidates of a scope unit: k children down at once (rule), and
   the intersection of its nodes' exclusions. */
static void derive(struct ctx *c, enum sla_scope s, size_t u)
{
	const struct sla_unit *un = &c->l->u[s][u];
	struct sla_unit_result *ur = &c->r->r[s][u];
	if (s == SC_RACK) {
		enum sla_system sys = un->system;
		size_t k = c->d->rack_min_nodes[sys] ? (size_t)c->d->rack_min_nodes[sys] : need(un->count, c->d->rack_min_fraction[sys]);
		ur->threshold = (int)k;
		derive_rule(c, s, u, c->net[SC_NODE], un->first, un->count, k, RULE_NODES);
	} else if (s == SC_CLUSTER) {
		double fr = c->d->cluster_min_racks_fraction, fn = c->d->cluster_min_nodes_fraction;
		if (fr > 0) {
			size_t k = need(un->count, fr);
			ur->threshold = (int)k;
			derive_rule(c, s, u, c->net[SC_RACK], un->first, un->count, k, RULE_RACKS);
		}
		if (fn > 0) {
			size_t k = need(un->node_count, fn);
			ur->threshold_nodes = (int)k;
			derive_rule(c, s, u, c->net[SC_NODE], un->node_first, un->node_count, k, RULE_NODES);
		}
	} else {
		size_t k = need(un->count, c->d->site_min_clusters_fraction);
		ur->threshold = (int)k;
		derive_rule(c, s, u, c->net[SC_CLUSTER], un->first, un->count, k, RULE_CLUSTERS);
	}
	/* the unit is excluded when every node of it is */
	sweep_range(c->excl[SC_NODE], un->node_first, un->node_count, un->node_count, &c->excl[s][u]);
}

static int accepted(const struct sla_level *lv, const char *kind)
{
	size_t i;
	const json_t *v;
	json_array_foreach(lv->exclusions_accepted, i, v)
		if (!strcasecmp(json_string_value(v), kind))
			return 1;
	return 0;
}

double sla_tier_credit(const struct sla_level *lv, enum sla_scope s, double availability)
{
	double best = 0;
	for (size_t i = 0; i < lv->ntiers[s]; i++)
		if (availability < lv->tiers[s][i].below && lv->tiers[s][i].credit_pct > best)
			best = lv->tiers[s][i].credit_pct;
	return best;
}

/* One event into candidates of the unit it names (and, for a scope event, of
   every node below). */
static void place(struct ctx *c, size_t i)
{
	const struct sla_event *e = &c->ev->v[i];
	char tbuf[40];
	if (e->end != SLA_OPEN && e->end <= e->start) {
		issue(c->r, IS_ZERO, (long)i, -1, "empty interval (end is not after start)");
		return;
	}
	long idx = -1;
	int sc;
	if (!*e->node) {
		/* a cluster event: the Cluster column names it */
		sc = SC_CLUSTER;
		idx = e->cluster ? sla_layout_find(c->l, SC_CLUSTER, e->cluster) : -1;
		if (idx < 0 && c->l->n[SC_CLUSTER] == 1)
			idx = 0;
		if (!*e->state) {
			issue(c->r, IS_CLUSTER_INFO, (long)i, -1,
			      "cluster record without a state (sacctmgr records TRES changes so): not an outage");
			return;
		}
		if (idx < 0) {
			issue(c->r, IS_UNKNOWN_NODE, (long)i, -1, "cluster %s is not in the layout",
			      e->cluster ? e->cluster : "(unnamed)");
			return;
		}
	} else {
		sc = sla_layout_which(c->l, e->node, &idx);
		if (sc < 0) {
			issue(c->r, IS_UNKNOWN_NODE, (long)i, -1, "%s is not in the layout: not counted", e->node);
			return;
		}
	}
	char part[64];
	enum sla_class cl = sla_classify(c->d, e->state, part);
	if (cl == CL_UNMAPPED) {
		issue(c->r, IS_UNMAPPED, (long)i, -1, "state '%s' (%s) is in no list of the definitions: not counted",
		      e->state, part);
		return;
	}
	if (cl == CL_UP || cl == CL_NOT_COUNTED) {
		issue(c->r, IS_NOT_DOWN, (long)i, -1, "state '%s' is %s (%s): not downtime", e->state,
		      cl == CL_UP ? "in service" : "not counted by the definitions", part);
		return;
	}
	if (sla_customer_initiated(c->d, c->l, e->reason, e->user)) {
		issue(c->r, IS_CUSTOMER, (long)i, -1, "%s by the customer (reason '%s'%s%s): not counted", e->state,
		      e->reason, e->user ? ", user " : "", e->user ? e->user : "");
		return;
	}
	sla_ms end = e->end == SLA_OPEN ? c->to : e->end;
	sla_ms s = e->start > c->from ? e->start : c->from, t = end < c->to ? end : c->to;
	if (t <= s) {
		sla_time_fmt(e->start, tbuf, sizeof tbuf);
		issue(c->r, IS_OUTSIDE, (long)i, -1, "%s from %s: outside the period", *e->node ? e->node : "cluster", tbuf);
		return;
	}
	struct cand x = { s, t, *e->node && sc == SC_NODE ? 0 : RULE_EVENT, e->end == SLA_OPEN, e->start < c->from,
			  e->end != SLA_OPEN && e->end > c->to, (long)i };
	if (x.cs || x.ce)
		issue(c->r, IS_CLIPPED, (long)i, -1, "%s: partly outside the period: only the inside counts",
		      *e->node ? e->node : c->l->u[SC_CLUSTER][idx].name);
	if (x.open)
		issue(c->r, IS_NEVER_BACK, (long)i, -1, "%s: still %s when the record ended: counted to the end of the period",
		      *e->node ? e->node : c->l->u[SC_CLUSTER][idx].name, e->state);
	cand_add(&c->cand[sc][idx], x);
	if (sc != SC_NODE) {
		const struct sla_unit *u = &c->l->u[sc][idx];
		x.rules = 0;
		for (size_t n = u->node_first; n < u->node_first + u->node_count; n++)
			cand_add(&c->cand[SC_NODE][n], x);
	}
}

static void windows(struct ctx *c)
{
	char a[40], b[40];
	for (size_t j = 0; c->w && j < c->w->n; j++) {
		const struct sla_window *w = &c->w->v[j];
		if (!accepted(c->lv, w->kind)) {
			issue(c->r, IS_WINDOW_REFUSED, -1, (long)j, "kind '%s' is not an exclusion level %s accepts: not applied",
			      w->kind, c->lv->name);
			continue;
		}
		if (!w->nmatched) {
			issue(c->r, IS_WINDOW_NO_NODES, -1, (long)j, "scope '%s' names no node of the layout: not applied",
			      w->scope);
			continue;
		}
		if (json_array_size(w->unknown)) {
			char *names = json_dumps(w->unknown, JSON_COMPACT);
			issue(c->r, IS_WINDOW_NO_NODES, -1, (long)j, "scope names %s, not in the layout: applied to the rest",
			      names);
			free(names);
		}
		sla_ms s = w->start > c->from ? w->start : c->from, e = w->end < c->to ? w->end : c->to;
		if (e <= s) {
			sla_time_fmt(w->start, a, sizeof a);
			sla_time_fmt(w->end, b, sizeof b);
			issue(c->r, IS_OUTSIDE, -1, (long)j, "window %s .. %s is outside the period", a, b);
			continue;
		}
		for (size_t n = 0; n < c->l->n[SC_NODE]; n++)
			if (!w->nodes || w->nodes[n])
				pset_add(c->wins[n], s, e, j);
	}
	for (size_t n = 0; n < c->l->n[SC_NODE]; n++) {
		struct pset *x = &c->excl[SC_NODE][n];
		for (size_t q = 0; q < c->wins[n]->n; q++)
			pset_add(x, c->wins[n]->v[q].s, c->wins[n]->v[q].e, 0);
		pset_union(x);
	}
}

static void grade(struct ctx *c)
{
	struct sla_result *r = c->r;
	sla_ms period = c->to - c->from;
	for (int s = 0; s < SC__COUNT; s++)
		for (size_t u = 0; u < c->l->n[s]; u++) {
			struct sla_unit_result *ur = &r->r[s][u];
			ur->excluded = pset_total(&c->excl[s][u]);
			ur->eligible = period - ur->excluded;
			ur->known = ur->eligible > 0;
			ur->credit_pct = -1;
			ur->below_target = ur->below_termination = -1;
			if (!ur->known)
				continue;
			ur->availability = 100.0 * (1.0 - (double)ur->downtime / (double)ur->eligible);
			ur->credit_pct = sla_tier_credit(c->lv, (enum sla_scope)s, ur->availability);
			if (c->lv->target[s] >= 0)
				ur->below_target = ur->availability < c->lv->target[s];
			if (c->lv->termination[s] >= 0)
				ur->below_termination = ur->availability < c->lv->termination[s];
		}
	size_t nn = c->l->n[SC_NODE];
	r->node_credit = xcalloc(nn + 1, sizeof *r->node_credit);
	r->node_credit_from = xcalloc(nn + 1, sizeof *r->node_credit_from);
	double hours = (double)period / 3600000.0, gsum = 0, wsum = 0;
	for (size_t n = 0; n < nn; n++) {
		size_t idx[SC__COUNT];
		idx[SC_NODE] = n;
		for (int s = SC_RACK; s < SC__COUNT; s++)
			idx[s] = c->l->u[s - 1][idx[s - 1]].parent;
		double best = -1;
		enum sla_scope from = SC_NODE;
		for (int s = 0; s < SC__COUNT; s++) {
			double cp = r->r[s][idx[s]].credit_pct;
			if (cp > best) {
				best = cp;
				from = (enum sla_scope)s;
			}
		}
		if (best > c->lv->credit_cap_pct)
			best = c->lv->credit_cap_pct;
		r->node_credit[n] = best;
		r->node_credit_from[n] = from;
		int g = c->l->u[SC_NODE][n].gpus;
		if (best < 0) {
			r->credit_unknown_nodes++;
			continue;
		}
		r->credit_gpu_hours += best / 100.0 * g * hours;
		wsum += best * g;
		gsum += g;
	}
	r->credit_pct_weighted = gsum > 0 ? wsum / gsum : 0;
	int crossed = 0, unknown = 0;
	for (int s = 0; s < SC__COUNT; s++) {
		if (c->lv->termination[s] < 0)
			continue;
		for (size_t u = 0; u < c->l->n[s]; u++) {
			crossed |= r->r[s][u].below_termination == 1;
			unknown |= r->r[s][u].below_termination < 0;
		}
	}
	r->termination = crossed ? 1 : unknown ? -1 : 0;
}

struct sla_result *sla_compute(const struct sla_layout *l, const struct sla_events *ev,
			       const struct sla_windows *w, const struct sla_defs *d, const struct sla_level *lv,
			       sla_ms from, sla_ms to)
{
	struct sla_result *r = xcalloc(1, sizeof *r);
	r->level = lv;
	r->from = from;
	r->to = to;
	struct ctx c = { .l = l, .ev = ev, .w = w, .d = d, .lv = lv, .from = from, .to = to, .r = r };
	for (int s = 0; s < SC__COUNT; s++) {
		size_t n = l->n[s] ? l->n[s] : 1;
		r->n[s] = l->n[s];
		r->r[s] = xcalloc(n, sizeof *r->r[s]);
		c.cand[s] = xcalloc(n, sizeof *c.cand[s]);
		c.net[s] = xcalloc(n, sizeof *c.net[s]);
		c.excl[s] = xcalloc(n, sizeof *c.excl[s]);
	}
	c.wins = xcalloc(l->n[SC_NODE] + 1, sizeof *c.wins);
	for (size_t n = 0; n < l->n[SC_NODE]; n++)
		c.wins[n] = xcalloc(1, sizeof **c.wins);
	windows(&c);
	for (size_t i = 0; i < ev->n; i++)
		place(&c, i);
	for (size_t n = 0; n < l->n[SC_NODE]; n++) {
		merge(&c, SC_NODE, n);
		subtract(&c, SC_NODE, n);
	}
	for (int s = SC_RACK; s < SC__COUNT; s++)
		for (size_t u = 0; u < l->n[s]; u++) {
			derive(&c, (enum sla_scope)s, u);
			merge(&c, (enum sla_scope)s, u);
			subtract(&c, (enum sla_scope)s, u);
			attribute(&c, (enum sla_scope)s, u);
		}
	grade(&c);
	for (int s = 0; s < SC__COUNT; s++) {
		for (size_t u = 0; u < l->n[s]; u++) {
			free(c.cand[s][u].v);
			free(c.net[s][u].v);
			free(c.excl[s][u].v);
		}
		free(c.cand[s]);
		free(c.net[s]);
		free(c.excl[s]);
	}
	for (size_t n = 0; n < l->n[SC_NODE]; n++) {
		free(c.wins[n]->v);
		free(c.wins[n]);
	}
	free(c.wins);
	return r;
}

void sla_result_free(struct sla_result *r)
{
	if (!r)
		return;
	for (int s = 0; s < SC__COUNT; s++) {
		for (size_t u = 0; u < r->n[s]; u++) {
			struct sla_unit_result *ur = &r->r[s][u];
			for (size_t i = 0; i < ur->niv; i++) {
				struct sla_ival *iv = &ur->iv[i];
				sla_ids_free(&iv->ev);
				sla_ids_free(&iv->kids);
				sla_ids_free(&iv->nodes);
				for (size_t k = 0; k < iv->ncuts; k++)
					sla_ids_free(&iv->cuts[k].windows);
				free(iv->cuts);
			}
			free(ur->iv);
		}
		free(r->r[s]);
	}
	for (size_t i = 0; i < r->nissues; i++)
		free(r->issues[i].why);
	free(r->issues);
	free(r->node_credit);
	free(r->node_credit_from);
	free(r);
}
