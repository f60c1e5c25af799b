/* cmax sla output: one JSON document (cmax.sla/1) with every number and the
 * intervals, sources and exclusions behind it, and a text report that
 * shows the same figures for people (-v adds the intervals). The graded
 * rows use the common result model (core/result.h). */
#include "sla/report.h"
#include "core/result.h"
#include "core/strbuf.h"
#include "report/report.h"
#include "core/termsafe.h"
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *jtime(sla_ms t)
{
	char b[40];
	sla_time_fmt(t, b, sizeof b);
	return json_string(b);
}

static json_t *jpct(double v)
{
	return json_real(round(v * 1e6) / 1e6);
}

static json_t *jpct_or_null(int known, double v)
{
	return known ? jpct(v) : json_null();
}

static json_t *tri(int v)
{
	return v < 0 ? json_null() : json_boolean(v);
}

static const char *parent_name(const struct sla_layout *l, enum sla_scope s, size_t u)
{
	return s + 1 < SC__COUNT ? l->u[s + 1][l->u[s][u].parent].name : NULL;
}

static json_t *str_set_add(json_t *arr, const char *s)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
		if (!strcmp(json_string_value(v), s))
			return arr;
	json_array_append_new(arr, json_string(s));
	return arr;
}

static json_t *cuts_json(const struct sla_run *r, const struct sla_ival *iv)
{
	json_t *a = json_array();
	for (size_t k = 0; k < iv->ncuts; k++) {
		const struct sla_cut *c = &iv->cuts[k];
		json_t *o = json_object(), *ws = json_array();
		json_object_set_new(o, "start", jtime(c->start));
		json_object_set_new(o, "end", jtime(c->end));
		json_object_set_new(o, "seconds", sla_json_secs(c->end - c->start));
		for (size_t i = 0; i < c->windows.n; i++) {
			const struct sla_window *w = &r->w->v[c->windows.v[i]];
			json_t *wo = json_object();
			json_object_set_new(wo, "source", json_string(w->source));
			json_object_set_new(wo, "kind", json_string(w->kind));
			if (w->note)
				json_object_set_new(wo, "note", json_string(w->note));
			json_array_append_new(ws, wo);
		}
		json_object_set_new(o, "windows", ws);
		json_array_append_new(a, o);
	}
	return a;
}

static const char *rule_names[] = { "event", "nodes", "racks", "clusters" };

static json_t *ival_json(const struct sla_run *r, enum sla_scope s, const struct sla_ival *iv)
{
	json_t *o = json_object();
	json_object_set_new(o, "start", jtime(iv->start));
	json_object_set_new(o, "end", jtime(iv->end));
	json_object_set_new(o, "seconds", sla_json_secs(iv->end - iv->start));
	json_object_set_new(o, "counted_s", sla_json_secs(iv->counted));
	json_t *src = json_array(), *esrc = json_array(), *states = json_array(), *reasons = json_array(),
	       *notes = json_array();
	for (size_t i = 0; i < iv->ev.n; i++) {
		const struct sla_event *e = &r->ev->v[iv->ev.v[i]];
		str_set_add(src, e->source);
		if (e->end_source)
			str_set_add(esrc, e->end_source);
		if (s == SC_NODE || !*e->node || sla_layout_find(r->l, s, e->node) >= 0) {
			str_set_add(states, e->state);
			if (*e->reason)
				str_set_add(reasons, e->reason);
		}
		if (e->note)
			str_set_add(notes, e->note);
	}
	if (s != SC_NODE) {
		json_t *rules = json_array(), *down = json_array(), *nodes = json_array();
		for (int k = 0; k < 4; k++)
			if (iv->rules & (1u << k))
				json_array_append_new(rules, json_string(rule_names[k]));
		for (size_t i = 0; i < iv->kids.n; i++)
			json_array_append_new(down, json_string(r->l->u[s - 1][iv->kids.v[i]].name));
		for (size_t i = 0; i < iv->nodes.n; i++)
			json_array_append_new(nodes, json_string(r->l->u[SC_NODE][iv->nodes.v[i]].name));
		json_object_set_new(o, "rules", rules);
		json_object_set_new(o, "down", down);
		json_object_set_new(o, "nodes_down", nodes);
	}
	json_object_update_new(o, json_pack("{s:o, s:o, s:o, s:o, s:b}", "states", states, "reasons", reasons,
					    "sources", src, "end_sources", esrc, "never_came_back", iv->open != 0));
	json_object_set_new(o, "clipped", json_boolean(iv->clipped_start || iv->clipped_end));
	json_object_set_new(o, "merged", json_integer((json_int_t)iv->merged));
	if (json_array_size(notes))
		json_object_set_new(o, "notes", notes);
	else
		json_decref(notes);
	json_object_set_new(o, "excluded", cuts_json(r, iv));
	return o;
}

static json_t *unit_json(const struct sla_run *r, enum sla_scope s, size_t u)
{
	const struct sla_unit *un = &r->l->u[s][u];
	const struct sla_unit_result *ur = &r->res->r[s][u];
	const struct sla_level *lv = r->res->level;
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(un->name));
	const char *pn = parent_name(r->l, s, u);
	if (pn)
		json_object_set_new(o, sla_scope_name((enum sla_scope)(s + 1)), json_string(pn));
	if (s != SC_NODE)
		json_object_set_new(o, "system", json_string(sla_system_name(un->system)));
	if (s != SC_NODE) {
		json_object_set_new(o, "units", json_integer((json_int_t)un->count));
		json_object_set_new(o, "nodes", json_integer((json_int_t)un->node_count));
	}
	json_object_set_new(o, "gpus", json_integer(un->gpus));
	if (s != SC_NODE) {
		json_t *t = json_object();
		if (ur->threshold)
			json_object_set_new(t, s == SC_RACK ? "nodes" : s == SC_CLUSTER ? "racks" : "clusters",
					    json_integer(ur->threshold));
		if (ur->threshold_nodes)
			json_object_set_new(t, "nodes", json_integer(ur->threshold_nodes));
		json_object_set_new(o, "down_when", t);
	}
	json_object_set_new(o, "downtime_s", sla_json_secs(ur->downtime));
	json_object_set_new(o, "excluded_s", sla_json_secs(ur->excluded));
	json_object_set_new(o, "eligible_s", sla_json_secs(ur->eligible));
	json_object_set_new(o, "availability_pct", jpct_or_null(ur->known, ur->availability));
	json_object_set_new(o, "target_pct", lv->target[s] >= 0 ? jpct(lv->target[s]) : json_null());
	json_object_set_new(o, "below_target", tri(ur->below_target));
	json_object_set_new(o, "credit_pct", ur->credit_pct >= 0 ? jpct(ur->credit_pct) : json_null());
	json_object_set_new(o, "below_termination", tri(ur->below_termination));
	if (s == SC_NODE) {
		double c = r->res->node_credit[u];
		json_object_set_new(o, "credit_owed_pct", c >= 0 ? jpct(c) : json_null());
		json_object_set_new(o, "credit_from", json_string(sla_scope_name(r->res->node_credit_from[u])));
	}
	json_t *ivs = json_array();
	for (size_t i = 0; i < ur->niv; i++)
		json_array_append_new(ivs, ival_json(r, s, &ur->iv[i]));
	json_object_set_new(o, "intervals", ivs);
	return o;
}

/* The worst unit of a scope: lowest availability, then most downtime; -1 none known. */
static long worst(const struct sla_result *res, enum sla_scope s)
{
	long w = -1;
	for (size_t u = 0; u < res->n[s]; u++) {
		const struct sla_unit_result *x = &res->r[s][u];
		if (!x->known)
			continue;
		if (w < 0 || x->availability < res->r[s][w].availability ||
		    (x->availability == res->r[s][w].availability && x->downtime > res->r[s][w].downtime))
			w = (long)u;
	}
	return w;
}

struct scope_sum {
	size_t units, down, below, unknown;
	sla_ms downtime;
	long worst;
};

static void summarize(const struct sla_result *res, enum sla_scope s, struct scope_sum *o)
{
	memset(o, 0, sizeof *o);
	o->units = res->n[s];
	for (size_t u = 0; u < res->n[s]; u++) {
		const struct sla_unit_result *x = &res->r[s][u];
		o->down += x->downtime > 0;
		o->below += x->below_target == 1;
		o->unknown += !x->known;
		o->downtime += x->downtime;
	}
	o->worst = worst(res, s);
}

static json_t *summary_json(const struct sla_run *r, const struct sla_result *res)
{
	json_t *o = json_object();
	for (int s = 0; s < SC__COUNT; s++) {
		struct scope_sum ss;
		summarize(res, (enum sla_scope)s, &ss);
		json_t *so = json_object();
		json_object_set_new(so, "units", json_integer((json_int_t)ss.units));
		json_object_set_new(so, "with_downtime", json_integer((json_int_t)ss.down));
		json_object_set_new(so, "downtime_s", sla_json_secs(ss.downtime));
		json_object_set_new(so, "below_target", json_integer((json_int_t)ss.below));
		json_object_set_new(so, "availability_unknown", json_integer((json_int_t)ss.unknown));
		if (ss.worst >= 0) {
			const struct sla_unit_result *x = &res->r[s][ss.worst];
			json_t *w = json_object();
			json_object_set_new(w, "name", json_string(r->l->u[s][ss.worst].name));
			json_object_set_new(w, "availability_pct", jpct(x->availability));
			json_object_set_new(w, "downtime_s", sla_json_secs(x->downtime));
			json_object_set_new(so, "worst", w);
		} else {
			json_object_set_new(so, "worst", json_null());
		}
		json_object_set_new(o, sla_scope_name((enum sla_scope)s), so);
	}
	return o;
}

static double period_hours(const struct sla_result *res)
{
	return (double)(res->to - res->from) / 3600000.0;
}

static size_t total_gpus(const struct sla_layout *l)
{
	size_t g = 0;
	for (size_t n = 0; n < l->n[SC_NODE]; n++)
		g += (size_t)l->u[SC_NODE][n].gpus;
	return g;
}

static json_t *credits_json(const struct sla_run *r, const struct sla_result *res, int detail)
{
	json_t *o = json_object();
	json_object_set_new(o, "rule", json_string("per node the highest of its node, rack, cluster and site credit, "
						   "capped; a percent of that node's fee for the period"));
	json_object_set_new(o, "cap_pct", jpct(res->level->credit_cap_pct));
	json_object_set_new(o, "pct_of_fee", jpct(res->credit_pct_weighted));
	json_object_set_new(o, "gpu_hours", json_real(round(res->credit_gpu_hours * 1000) / 1000));
	json_object_set_new(o, "fee_gpu_hours", json_real(round(period_hours(res) * (double)total_gpus(r->l) * 1000) / 1000));
	if (r->price >= 0) {
		json_object_set_new(o, "price_per_gpu_hour", json_real(r->price));
		json_object_set_new(o, "amount", json_real(round(res->credit_gpu_hours * r->price * 100) / 100));
		json_object_set_new(o, "fee", json_real(round(period_hours(res) * (double)total_gpus(r->l) * r->price * 100) / 100));
	} else {
		json_object_set_new(o, "amount", json_null());
	}
	json_object_set_new(o, "nodes_unknown", json_integer(res->credit_unknown_nodes));
	if (detail) {
		json_t *a = json_array();
		for (size_t n = 0; n < res->n[SC_NODE]; n++) {
			if (res->node_credit[n] == 0)
				continue;
			json_t *x = json_object();
			json_object_set_new(x, "node", json_string(r->l->u[SC_NODE][n].name));
			json_object_set_new(x, "credit_pct", res->node_credit[n] >= 0 ? jpct(res->node_credit[n]) : json_null());
			json_object_set_new(x, "from", json_string(sla_scope_name(res->node_credit_from[n])));
			json_object_set_new(x, "gpus", json_integer(r->l->u[SC_NODE][n].gpus));
			if (res->node_credit[n] > 0)
				json_object_set_new(x, "gpu_hours",
						    json_real(round(res->node_credit[n] / 100.0 * r->l->u[SC_NODE][n].gpus *
								    period_hours(res) * 1000) / 1000));
			json_array_append_new(a, x);
		}
		json_object_set_new(o, "nodes", a);
	}
	return o;
}

static json_t *termination_json(const struct sla_run *r, const struct sla_result *res)
{
	json_t *o = json_object(), *rules = json_array();
	json_object_set_new(o, "crossed", tri(res->termination));
	for (int s = 0; s < SC__COUNT; s++) {
		if (res->level->termination[s] < 0)
			continue;
		json_t *x = json_object(), *units = json_array();
		json_object_set_new(x, "scope", json_string(sla_scope_name((enum sla_scope)s)));
		json_object_set_new(x, "below_pct", jpct(res->level->termination[s]));
		int crossed = 0;
		for (size_t u = 0; u < res->n[s]; u++)
			if (res->r[s][u].below_termination == 1) {
				crossed = 1;
				json_t *uo = json_object();
				json_object_set_new(uo, "name", json_string(r->l->u[s][u].name));
				json_object_set_new(uo, "availability_pct", jpct(res->r[s][u].availability));
				json_array_append_new(units, uo);
			}
		json_object_set_new(x, "crossed", json_boolean(crossed));
		json_object_set_new(x, "units", units);
		json_array_append_new(rules, x);
	}
	json_object_set_new(o, "rules", rules);
	return o;
}

static const char *issue_source(const struct sla_run *r, const struct sla_issue *is)
{
	if (is->event >= 0)
		return r->ev->v[is->event].source;
	if (is->window >= 0)
		return r->w->v[is->window].source;
	return "";
}

static json_t *issues_json(const struct sla_run *r)
{
	json_t *o = json_object(), *counts = json_object(), *mal = json_array(), *notes = json_array();
	size_t i;
	json_t *in;
	json_array_foreach(r->inputs, i, in) {
		json_array_extend(mal, json_object_get(in, "malformed"));
		json_array_extend(notes, json_object_get(in, "notes"));
	}
	json_object_set_new(counts, "malformed", json_integer((json_int_t)json_array_size(mal)));
	json_object_set_new(o, "malformed", mal);
	for (int k = 0; k < IS__COUNT; k++) {
		json_t *a = json_array();
		for (size_t q = 0; q < r->res->nissues; q++) {
			const struct sla_issue *is = &r->res->issues[q];
			if (is->kind != (enum sla_issue_kind)k)
				continue;
			json_t *x = json_object();
			json_object_set_new(x, "source", json_string(issue_source(r, is)));
			if (is->event >= 0) {
				const struct sla_event *e = &r->ev->v[is->event];
				json_object_set_new(x, "node", json_string(*e->node ? e->node : ""));
				json_object_set_new(x, "state", json_string(e->state));
			}
			json_object_set_new(x, "why", json_string(is->why));
			json_array_append_new(a, x);
		}
		json_object_set_new(counts, sla_issue_name((enum sla_issue_kind)k), json_integer((json_int_t)json_array_size(a)));
		json_object_set_new(o, sla_issue_name((enum sla_issue_kind)k), a);
	}
	json_object_set_new(counts, "notes", json_integer((json_int_t)json_array_size(notes)));
	json_object_set_new(o, "notes", notes);
	json_object_set_new(o, "layout_warnings", json_deep_copy(r->l->warnings));
	json_object_set_new(o, "counts", counts);
	return o;
}

int sla_report_input_problems(const struct sla_run *r)
{
	size_t i;
	json_t *in;
	json_array_foreach(r->inputs, i, in)
		if (json_array_size(json_object_get(in, "malformed")))
			return 1;
	return r->res->count[IS_UNKNOWN_NODE] || r->res->count[IS_UNMAPPED];
}

static struct result *row(const char *id, const char *title)
{
	return result_new(id, "sla", title, NULL);
}

static json_t *results_json(const struct sla_run *r)
{
	json_t *a = json_array();
	const struct sla_result *res = r->res;
	const struct sla_level *lv = res->level;
	static const char *const titles[SC__COUNT] = { "Every node meets the level's availability target",
						       "Every rack meets the level's availability target",
						       "Every cluster meets the level's availability target",
						       "Every site meets the level's availability target" };
	for (int s = 0; s < SC__COUNT; s++) {
		const char *sn = sla_scope_name((enum sla_scope)s);
		char *id = xasprintf("sla.availability.%s", sn);
		struct result *x = row(id, titles[s]);
		free(id);
		struct scope_sum ss;
		summarize(res, (enum sla_scope)s, &ss);
		if (lv->target[s] < 0) {
			r_skip(x, "level %s sets no %s target", lv->name, sn);
		} else {
			r_expectedf(x, "availability >= %g%% for every %s (level %s)", lv->target[s], sn, lv->name);
			json_t *obs = json_object(), *below = json_array();
			for (size_t u = 0; u < res->n[s]; u++)
				if (res->r[s][u].below_target == 1)
					json_array_append_new(below, json_string(r->l->u[s][u].name));
			json_object_set_new(obs, "below_target", below);
			if (ss.worst >= 0) {
				json_object_set_new(obs, "worst", json_string(r->l->u[s][ss.worst].name));
				json_object_set_new(obs, "worst_availability_pct", jpct(res->r[s][ss.worst].availability));
			}
			json_object_set_new(obs, "availability_unknown", json_integer((json_int_t)ss.unknown));
			r_observed(x, obs);
			if (ss.worst < 0)
				r_skip(x, "availability unknown for every %s (the whole period is excluded)", sn);
			else if (ss.below)
				r_fail(x, "%zu of %zu %ss below %g%%: worst %s at %.4f%%", ss.below, ss.units, sn, lv->target[s],
				       r->l->u[s][ss.worst].name, res->r[s][ss.worst].availability);
			else
				r_pass(x, "every %s at or above %g%%%s (worst %s at %.4f%%)", sn, lv->target[s],
				       ss.unknown ? ", some unknown" : "", r->l->u[s][ss.worst].name,
				       res->r[s][ss.worst].availability);
		}
		json_array_append_new(a, result_to_json(x));
		result_free(x);
	}
	struct result *t = row("sla.termination", "No termination threshold crossed");
	int any = 0;
	for (int s = 0; s < SC__COUNT; s++)
		any |= lv->termination[s] >= 0;
	if (!any)
		r_skip(t, "level %s sets no termination threshold", lv->name);
	else if (res->termination == 1)
		r_fail(t, "a termination threshold of level %s was crossed: the buyer may terminate", lv->name);
	else if (res->termination < 0)
		r_skip(t, "availability unknown where a termination threshold applies");
	else
		r_pass(t, "no termination threshold of level %s crossed", lv->name);
	json_array_append_new(a, result_to_json(t));
	result_free(t);
	struct result *in = row("sla.inputs", "Every input record was read and mapped");
	size_t mal = 0, i;
	json_t *x;
	json_array_foreach(r->inputs, i, x)
		mal += json_array_size(json_object_get(x, "malformed"));
	json_t *obs = json_object();
	json_object_set_new(obs, "malformed", json_integer((json_int_t)mal));
	json_object_set_new(obs, "unknown_node", json_integer((json_int_t)res->count[IS_UNKNOWN_NODE]));
	json_object_set_new(obs, "unmapped_state", json_integer((json_int_t)res->count[IS_UNMAPPED]));
	r_observed(in, obs);
	if (mal || res->count[IS_UNKNOWN_NODE] || res->count[IS_UNMAPPED])
		r_warn(in, "%zu malformed records, %zu records for nodes not in the layout, %zu with unmapped states: "
			   "listed under issues, not counted", mal, res->count[IS_UNKNOWN_NODE], res->count[IS_UNMAPPED]);
	else
		r_pass(in, "every record read; every node and state known");
	json_array_append_new(a, result_to_json(in));
	result_free(in);
	return a;
}

static json_t *level_json(const struct sla_run *r, const struct sla_level *lv)
{
	json_t *o = json_object(), *tg = json_object(), *tm = json_object(), *cr = json_object();
	json_object_set_new(o, "name", json_string(lv->name));
	json_object_set_new(o, "title", json_string(lv->title));
	json_object_set_new(o, "policy_file", json_string(r->pol->source));
	json_object_set_new(o, "policy_version", json_deep_copy(r->pol->version));
	for (int s = 0; s < SC__COUNT; s++) {
		const char *sn = sla_scope_name((enum sla_scope)s);
		if (lv->target[s] >= 0)
			json_object_set_new(tg, sn, jpct(lv->target[s]));
		if (lv->termination[s] >= 0)
			json_object_set_new(tm, sn, jpct(lv->termination[s]));
		json_t *ts = json_array();
		for (size_t i = 0; i < lv->ntiers[s]; i++) {
			json_t *t = json_object();
			json_object_set_new(t, "below", jpct(lv->tiers[s][i].below));
			json_object_set_new(t, "credit_pct", jpct(lv->tiers[s][i].credit_pct));
			json_array_append_new(ts, t);
		}
		json_object_set_new(cr, sn, ts);
	}
	json_object_set_new(o, "targets", tg);
	json_object_set_new(o, "credits", cr);
	json_object_set_new(o, "credit_cap_pct", jpct(lv->credit_cap_pct));
	json_object_set_new(o, "termination", tm);
	json_object_set_new(o, "exclusions_accepted", json_deep_copy(lv->exclusions_accepted));
	return o;
}

static json_t *definitions_json(const struct sla_defs *d)
{
	json_t *o = json_object(), *st = json_object(), *sys = json_object();
	for (int c = 0; c < CL_UNMAPPED; c++)
		json_object_set_new(st, sla_class_name((enum sla_class)c), json_deep_copy(d->states[c]));
	json_object_set_new(o, "states", st);
	json_object_set_new(o, "customer_reason_prefixes", json_deep_copy(d->customer_reason_prefixes));
	json_object_set_new(o, "customer_users", json_deep_copy(d->customer_users));
	for (int s = 0; s < SYS__COUNT; s++) {
		json_t *x = json_object();
		json_object_set_new(x, "gpus_per_node", json_integer(d->gpus_per_node[s]));
		json_object_set_new(x, "nodes_per_rack", json_integer(d->nodes_per_rack[s]));
		if (d->rack_min_nodes[s])
			json_object_set_new(x, "rack_down_min_nodes", json_integer(d->rack_min_nodes[s]));
		else
			json_object_set_new(x, "rack_down_min_nodes_fraction", json_real(d->rack_min_fraction[s]));
		json_object_set_new(sys, sla_system_name((enum sla_system)s), x);
	}
	json_object_set_new(o, "systems", sys);
	json_object_set_new(o, "cluster_down_min_racks_fraction",
			    d->cluster_min_racks_fraction > 0 ? json_real(d->cluster_min_racks_fraction) : json_null());
	json_object_set_new(o, "cluster_down_min_nodes_fraction",
			    d->cluster_min_nodes_fraction > 0 ? json_real(d->cluster_min_nodes_fraction) : json_null());
	json_object_set_new(o, "site_down_min_clusters_fraction", json_real(d->site_min_clusters_fraction));
	return o;
}

static json_t *windows_json(const struct sla_run *r)
{
	json_t *a = json_array();
	for (size_t j = 0; r->w && j < r->w->n; j++) {
		const struct sla_window *w = &r->w->v[j];
		json_t *o = json_object();
		json_object_set_new(o, "source", json_string(w->source));
		json_object_set_new(o, "kind", json_string(w->kind));
		json_object_set_new(o, "start", jtime(w->start));
		json_object_set_new(o, "end", jtime(w->end));
		json_object_set_new(o, "scope", json_string(w->scope));
		json_object_set_new(o, "nodes", json_integer((json_int_t)w->nmatched));
		if (w->note)
			json_object_set_new(o, "note", json_string(w->note));
		int applied = 1;
		for (size_t q = 0; q < r->res->nissues; q++)
			if (r->res->issues[q].window == (long)j && r->res->issues[q].kind != IS_WINDOW_NO_NODES)
				applied = 0;
		if (!w->nmatched)
			applied = 0;
		json_object_set_new(o, "applied", json_boolean(applied));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *comparison_json(const struct sla_run *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->nall; i++) {
		const struct sla_result *x = r->all[i];
		json_t *o = json_object(), *av = json_object();
		json_object_set_new(o, "name", json_string(x->level->name));
		for (int s = 0; s < SC__COUNT; s++) {
			struct scope_sum ss;
			summarize(x, (enum sla_scope)s, &ss);
			json_t *so = json_object();
			json_object_set_new(so, "worst_pct", ss.worst >= 0 ? jpct(x->r[s][ss.worst].availability) : json_null());
			json_object_set_new(so, "target_pct", x->level->target[s] >= 0 ? jpct(x->level->target[s]) : json_null());
			json_object_set_new(so, "below_target", json_integer((json_int_t)ss.below));
			json_object_set_new(av, sla_scope_name((enum sla_scope)s), so);
		}
		json_object_set_new(o, "scopes", av);
		json_object_set_new(o, "credits", credits_json(r, x, 0));
		json_object_set_new(o, "termination_crossed", tri(x->termination));
		json_array_append_new(a, o);
	}
	return a;
}

json_t *sla_report_json(const struct sla_run *r)
{
	const struct sla_result *res = r->res;
	json_t *doc = report_doc_new("cmax.sla/1");
	json_t *p = json_object();
	json_object_set_new(p, "label", json_string(r->period_label));
	json_object_set_new(p, "from", jtime(res->from));
	json_object_set_new(p, "to", jtime(res->to));
	json_object_set_new(p, "seconds", sla_json_secs(res->to - res->from));
	json_object_set_new(p, "hours", json_real(period_hours(res)));
	json_object_set_new(doc, "period", p);
	json_object_set_new(doc, "level", level_json(r, res->level));
	json_object_set_new(doc, "definitions", definitions_json(&r->pol->defs));
	json_t *lo = json_object();
	json_object_set_new(lo, "source", json_string(r->l->source));
	json_object_set_new(lo, "system", json_string(sla_system_name(r->l->system)));
	for (int s = SC__COUNT - 1; s >= 0; s--) {
		char *k = xasprintf("%ss", sla_scope_name((enum sla_scope)s));
		json_object_set_new(lo, k, json_integer((json_int_t)r->l->n[s]));
		free(k);
	}
	json_object_set_new(lo, "gpus", json_integer((json_int_t)total_gpus(r->l)));
	json_object_set_new(lo, "customer_users", json_deep_copy(r->l->customer_users));
	json_object_set_new(doc, "layout", lo);
	json_object_set_new(doc, "inputs", json_deep_copy(r->inputs));
	json_object_set_new(doc, "exclusions", windows_json(r));
	json_object_set_new(doc, "summary", summary_json(r, res));
	json_t *units = json_object();
	for (int s = 0; s < SC__COUNT; s++) {
		json_t *a = json_array();
		for (size_t u = 0; u < res->n[s]; u++)
			json_array_append_new(a, unit_json(r, (enum sla_scope)s, u));
		json_object_set_new(units, sla_scope_name((enum sla_scope)s), a);
	}
	json_object_set_new(doc, "units", units);
	json_object_set_new(doc, "credits", credits_json(r, res, 1));
	json_object_set_new(doc, "termination", termination_json(r, res));
	json_object_set_new(doc, "issues", issues_json(r));
	json_object_set_new(doc, "levels", comparison_json(r));
	json_object_set_new(doc, "results", results_json(r));
	return doc;
}

/* ---- text ---- */

static void pct_fmt(int known, double v, char *b, size_t n)
{
	if (known)
		snprintf(b, n, "%.4f%%", v);
	else
		snprintf(b, n, "unknown");
}

/* A value from outside data on one line of text: line breaks and tabs
 * become blanks, every other control a visible escape (core/termsafe.h). */
static const char *oneline(const char *s, char *buf, size_t n)
{
	size_t i = 0;
	for (; s && *s && i + 1 < n; s++)
		buf[i++] = *s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s;
	buf[i] = 0;
	return ts_str(buf);
}

static void print_ival(const struct sla_run *r, enum sla_scope s, const struct sla_ival *iv, FILE *f)
{
	char a[40], b[40], d[48], c[48];
	sla_time_fmt(iv->start, a, sizeof a);
	sla_time_fmt(iv->end, b, sizeof b);
	sla_dur_fmt(iv->end - iv->start, d, sizeof d);
	sla_dur_fmt(iv->counted, c, sizeof c);
	fprintf(f, "      %s .. %s  %s", a, b, d);
	if (iv->counted != iv->end - iv->start)
		fprintf(f, " (counted %s)", c);
	if (iv->open)
		fprintf(f, "  never came back");
	if (iv->clipped_start || iv->clipped_end)
		fprintf(f, "  clipped to the period");
	if (iv->merged)
		fprintf(f, "  %zu overlapping record%s merged", iv->merged, iv->merged > 1 ? "s" : "");
	fputc('\n', f);
	if (s != SC_NODE) {
		fprintf(f, "        down by:");
		for (int k = 0; k < 4; k++)
			if (iv->rules & (1u << k))
				fprintf(f, " %s", rule_names[k]);
		fprintf(f, "; %s down:", sla_scope_name((enum sla_scope)(s - 1)));
		for (size_t i = 0; i < iv->kids.n && i < 20; i++)
			fprintf(f, " %s", ts_str(r->l->u[s - 1][iv->kids.v[i]].name));
		if (iv->kids.n > 20)
			fprintf(f, " ... (%zu)", iv->kids.n);
		fputc('\n', f);
	}
	for (size_t i = 0; i < iv->ev.n && i < 30; i++) {
		const struct sla_event *e = &r->ev->v[iv->ev.v[i]];
		char rs[256];
		fprintf(f, "        %s  %s %s%s%s%s\n", ts_str(e->source), ts_str(*e->node ? e->node : "(cluster)"), ts_str(e->state),
			*e->reason ? " \"" : "", oneline(e->reason, rs, sizeof rs), *e->reason ? "\"" : "");
		if (e->end_source)
			fprintf(f, "          ended at %s\n", ts_str(e->end_source));
		if (e->note)
			fprintf(f, "          %s\n", ts_str(e->note));
	}
	if (iv->ev.n > 30)
		fprintf(f, "        ... %zu more records (see --json)\n", iv->ev.n - 30);
	for (size_t k = 0; k < iv->ncuts; k++) {
		sla_time_fmt(iv->cuts[k].start, a, sizeof a);
		sla_time_fmt(iv->cuts[k].end, b, sizeof b);
		sla_dur_fmt(iv->cuts[k].end - iv->cuts[k].start, d, sizeof d);
		fprintf(f, "        excluded %s .. %s (%s) by", a, b, d);
		for (size_t i = 0; i < iv->cuts[k].windows.n; i++) {
			const struct sla_window *w = &r->w->v[iv->cuts[k].windows.v[i]];
			fprintf(f, " %s %s", ts_str(w->kind), ts_str(w->source));
		}
		fputc('\n', f);
	}
}

/* The header: period, level, layout, inputs; then the table per scope. */
static void text_summary(const struct sla_run *r, FILE *f)
{
	const struct sla_result *res = r->res;
	const struct sla_level *lv = res->level;
	char a[40], b[40], d[48], p[32];
	sla_time_fmt(res->from, a, sizeof a);
	sla_time_fmt(res->to, b, sizeof b);
	char *ver = json_dumps(r->pol->version, JSON_ENCODE_ANY | JSON_COMPACT);
	fprintf(f, "cmax sla: %s (%s .. %s, %.0f h), level %s (%s, version %s)\n", ts_str(r->period_label), a, b,
		period_hours(res), ts_str(lv->name), ts_str(r->pol->source), ts_str(ver ? ver : "?"));
	free(ver);
	fprintf(f, "layout: %s, %zu site%s, %zu cluster%s, %zu rack%s, %zu nodes, %zu GPUs (%s)\n",
		sla_system_name(r->l->system), r->l->n[SC_SITE], r->l->n[SC_SITE] == 1 ? "" : "s", r->l->n[SC_CLUSTER],
		r->l->n[SC_CLUSTER] == 1 ? "" : "s", r->l->n[SC_RACK], r->l->n[SC_RACK] == 1 ? "" : "s", r->l->n[SC_NODE],
		total_gpus(r->l), ts_str(r->l->source));
	size_t i;
	json_t *in;
	json_array_foreach(r->inputs, i, in) {
		fprintf(f, "%s %s (%s): %lld records, %lld used, %zu malformed, %lld not about node state\n",
			i ? "      " : "input:", ts_str(json_string_value(json_object_get(in, "file"))),
			ts_str(json_string_value(json_object_get(in, "format"))),
			(long long)json_integer_value(json_object_get(in, "records")),
			(long long)json_integer_value(json_object_get(in, "used")),
			json_array_size(json_object_get(in, "malformed")),
			(long long)json_integer_value(json_object_get(in, "irrelevant")));
	}
	fprintf(f, "\n%-8s %6s %5s  %-18s %14s %13s %8s %6s %7s\n", "scope", "units", "down", "worst", "downtime",
		"availability", "target", "below", "credit");
	for (int s = 0; s < SC__COUNT; s++) {
		struct scope_sum ss;
		summarize(res, (enum sla_scope)s, &ss);
		const struct sla_unit_result *w = ss.worst >= 0 ? &res->r[s][ss.worst] : NULL;
		char tg[16] = "-", cr[16] = "-";
		if (lv->target[s] >= 0)
			snprintf(tg, sizeof tg, "%g%%", lv->target[s]);
		if (w && w->credit_pct >= 0)
			snprintf(cr, sizeof cr, "%g%%", w->credit_pct);
		sla_dur_fmt(w ? w->downtime : 0, d, sizeof d);
		pct_fmt(w != NULL, w ? w->availability : 0, p, sizeof p);
		fprintf(f, "%-8s %6zu %5zu  %-18s %14s %13s %8s %6zu %7s\n", sla_scope_name((enum sla_scope)s), ss.units,
			ss.down, ts_str(w && w->downtime ? r->l->u[s][ss.worst].name : "-"), d, p, tg, ss.below, cr);
	}
	fprintf(f, "(worst: the lowest availability of the scope; credit: its tier)\n");
}

/* Credits (in money with a price), the nodes owed, and termination. */
static void text_credits(const struct sla_run *r, FILE *f)
{
	const struct sla_result *res = r->res;
	const struct sla_level *lv = res->level;
	fprintf(f, "\ncredits: %.4f%% of the period's fee (GPU-weighted; per node the highest of its scopes, cap %g%%), "
		   "%.3f GPU-hours",
		res->credit_pct_weighted, lv->credit_cap_pct, res->credit_gpu_hours);
	if (r->price >= 0)
		fprintf(f, " = %.2f at %g per GPU-hour", res->credit_gpu_hours * r->price, r->price);
	fputc('\n', f);
	if (res->credit_unknown_nodes)
		fprintf(f, "  %d nodes: credit unknown (the whole period excluded)\n", res->credit_unknown_nodes);
	size_t shown = 0, owed = 0;
	for (size_t n = 0; n < res->n[SC_NODE]; n++) {
		if (res->node_credit[n] <= 0)
			continue;
		owed++;
		if (!r->verbose && shown >= 20)
			continue;
		shown++;
		fprintf(f, "  %-20s %g%% (from its %s)\n", ts_str(r->l->u[SC_NODE][n].name), res->node_credit[n],
			sla_scope_name(res->node_credit_from[n]));
	}
	if (owed > shown)
		fprintf(f, "  ... %zu more nodes (-v lists them all)\n", owed - shown);
	fprintf(f, "termination: %s", res->termination == 1 ? "CROSSED" : res->termination == 0 ? "not crossed" : "unknown");
	int first = 1;
	for (int s = 0; s < SC__COUNT; s++) {
		if (lv->termination[s] < 0)
			continue;
		fprintf(f, "%s%s below %g%%", first ? " (" : ", ", sla_scope_name((enum sla_scope)s), lv->termination[s]);
		for (size_t u = 0; u < res->n[s]; u++)
			if (res->r[s][u].below_termination == 1)
				fprintf(f, ": %s at %.4f%%", ts_str(r->l->u[s][u].name), res->r[s][u].availability);
		first = 0;
	}
	fprintf(f, "%s\n", first ? " (no threshold in this level)" : ")");
}

/* Every unit with downtime (or unknown availability), site first; -v:
 * with its intervals. */
static void text_units(const struct sla_run *r, FILE *f)
{
	const struct sla_result *res = r->res;
	char d[48], p[32];
	fprintf(f, "\ndowntime by unit:\n");
	int any = 0;
	for (int s = SC__COUNT - 1; s >= 0; s--)
		for (size_t u = 0; u < res->n[s]; u++) {
			const struct sla_unit_result *x = &res->r[s][u];
			if (!x->niv && x->known)
				continue;
			any = 1;
			sla_dur_fmt(x->downtime, d, sizeof d);
			pct_fmt(x->known, x->availability, p, sizeof p);
			const char *pn = parent_name(r->l, (enum sla_scope)s, u);
			fprintf(f, "  %-7s %-20s %s%s%s %s, %s", sla_scope_name((enum sla_scope)s), ts_str(r->l->u[s][u].name),
				pn ? "(" : "", ts_str(pn ? pn : ""), pn ? ")" : "", d, p);
			if (x->excluded) {
				char e[48];
				sla_dur_fmt(x->excluded, e, sizeof e);
				fprintf(f, ", %s excluded", e);
			}
			if (s == SC_RACK)
				fprintf(f, "  [down: %d of %zu nodes at once%s]", x->threshold, r->l->u[s][u].count,
					r->l->u[s][u].system == SYS_NVL72 && r->pol->defs.rack_min_nodes[SYS_NVL72] ? ", NVL64+" : "");
			fprintf(f, "  %zu interval%s\n", x->niv, x->niv == 1 ? "" : "s");
			if (r->verbose)
				for (size_t k = 0; k < x->niv; k++)
					print_ival(r, (enum sla_scope)s, &x->iv[k], f);
		}
	if (!any)
		fprintf(f, "  none: every unit was up for the whole period\n");
}

/* Malformed records, the engine's issues, layout warnings and notes. */
static void text_issues(const struct sla_run *r, FILE *f)
{
	const struct sla_result *res = r->res;
	size_t nmal = 0, nnotes = 0, i;
	json_t *in;
	json_array_foreach(r->inputs, i, in) {
		nmal += json_array_size(json_object_get(in, "malformed"));
		nnotes += json_array_size(json_object_get(in, "notes"));
	}
	if (!nmal && !res->nissues && !json_array_size(r->l->warnings) && !nnotes)
		return;
	fprintf(f, "\nissues (not counted unless said):\n");
	json_array_foreach(r->inputs, i, in) {
		size_t k;
		json_t *m;
		json_array_foreach(json_object_get(in, "malformed"), k, m)
			fprintf(f, "  %-22s %s: %s\n", "malformed", ts_str(json_string_value(json_object_get(m, "source"))),
				ts_str(json_string_value(json_object_get(m, "why"))));
	}
	size_t cap = r->verbose ? (size_t)-1 : 200;
	for (size_t q = 0; q < res->nissues && q < cap; q++) {
		const struct sla_issue *is = &res->issues[q];
		fprintf(f, "  %-22s %s: %s\n", sla_issue_name(is->kind), ts_str(issue_source(r, is)), ts_str(is->why));
	}
	if (res->nissues > cap)
		fprintf(f, "  ... %zu more (-v lists them all; --json has them)\n", res->nissues - cap);
	size_t k;
	json_t *m;
	json_array_foreach(r->l->warnings, k, m)
		fprintf(f, "  %-22s %s\n", "layout", ts_str(json_string_value(m)));
	json_array_foreach(r->inputs, i, in)
		json_array_foreach(json_object_get(in, "notes"), k, m)
			fprintf(f, "  %-22s %s: %s\n", "note", ts_str(json_string_value(json_object_get(m, "source"))),
				ts_str(json_string_value(json_object_get(m, "note"))));
}

/* Every level of the policy on the same history. */
static void text_levels(const struct sla_run *r, FILE *f)
{
	if (r->nall <= 1)
		return;
	fprintf(f, "\nlevels compared (the same history):\n");
	for (size_t q = 0; q < r->nall; q++) {
		const struct sla_result *x = r->all[q];
		fprintf(f, "  %-10s credit %8.4f%% (%.3f GPU-hours)", ts_str(x->level->name), x->credit_pct_weighted,
			x->credit_gpu_hours);
		for (int s = 0; s < SC__COUNT; s++) {
			struct scope_sum ss;
			summarize(x, (enum sla_scope)s, &ss);
			fprintf(f, ", %zu %s%s below", ss.below, sla_scope_name((enum sla_scope)s), ss.below == 1 ? "" : "s");
		}
		fprintf(f, ", termination %s\n", x->termination == 1 ? "CROSSED" : x->termination == 0 ? "no" : "unknown");
	}
}

void sla_report_text(const struct sla_run *r, FILE *f)
{
	text_summary(r, f);
	text_credits(r, f);
	text_units(r, f);
	text_issues(r, f);
	text_levels(r, f);
	if (!r->verbose)
		fprintf(f, "\n(-v lists every interval with its sources; --json has everything)\n");
}
