/* The SLA policy: definitions (which states are downtime, when a rack,
 * cluster or site is down) and levels (targets, credit schedules, the
 * termination threshold, the exclusion kinds accepted), from
 * data/sla-levels.json or files of the same shape; state classification;
 * exclusion windows. A broken file is refused with one line saying where. */
#include "sla/model.h"
#include "core/strbuf.h"
#include "parse/hostlist.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_names[CL__COUNT] = { "down", "drain", "up", "not_counted", "unmapped" };

const char *sla_class_name(enum sla_class c)
{
	return (unsigned)c < CL__COUNT ? class_names[c] : "?";
}

static const char *const class_keys[CL__COUNT] = { "down", "drain", "up", "not_counted", NULL };

static int num(const json_t *v, double lo, double hi, double *out)
{
	if (!json_is_number(v))
		return -1;
	double d = json_number_value(v);
	if (!(d >= lo && d <= hi))
		return -1;
	*out = d;
	return 0;
}

static int str_array(const json_t *v)
{
	size_t i;
	const json_t *x;
	if (!json_is_array(v))
		return 0;
	json_array_foreach(v, i, x)
		if (!json_is_string(x))
			return 0;
	return 1;
}

static void set_arr(json_t **slot, const json_t *v)
{
	json_decref(*slot);
	*slot = json_deep_copy(v);
}

/* Apply a "definitions" object onto d: every key given replaces that part. */
static int defs_apply(struct sla_defs *d, const json_t *o, const char *src, char **err)
{
	if (!json_is_object(o)) {
		*err = xasprintf("%s: \"definitions\" is not an object", src);
		return -1;
	}
	const json_t *st = json_object_get(o, "states");
	if (st) {
		for (int c = 0; class_keys[c]; c++) {
			const json_t *a = json_object_get(st, class_keys[c]);
			if (!a)
				continue;
			if (!str_array(a)) {
				*err = xasprintf("%s: definitions.states.%s is not an array of state names", src,
						 class_keys[c]);
				return -1;
			}
			set_arr(&d->states[c], a);
		}
	}
	const json_t *cu = json_object_get(o, "customer_initiated");
	if (cu) {
		const json_t *rp = json_object_get(cu, "reason_prefixes"), *us = json_object_get(cu, "users");
		if ((rp && !str_array(rp)) || (us && !str_array(us))) {
			*err = xasprintf("%s: definitions.customer_initiated: reason_prefixes and users are arrays of "
					 "strings", src);
			return -1;
		}
		if (rp)
			set_arr(&d->customer_reason_prefixes, rp);
		if (us)
			set_arr(&d->customer_users, us);
	}
	const json_t *sys = json_object_get(o, "systems");
	for (int s = 0; sys && s < SYS__COUNT; s++) {
		const json_t *so = json_object_get(sys, sla_system_name((enum sla_system)s));
		if (!so)
			continue;
		double g, npr, mn = 0, mf = 0;
		const json_t *rd = json_object_get(so, "rack_down");
		const json_t *jmn = json_object_get(rd, "min_nodes_down"), *jmf = json_object_get(rd, "min_nodes_down_fraction");
		if (num(json_object_get(so, "gpus_per_node"), 1, 1024, &g) < 0 ||
		    num(json_object_get(so, "nodes_per_rack"), 1, 100000, &npr) < 0 || !json_is_object(rd) ||
		    (jmn && num(jmn, 1, 100000, &mn) < 0) || (jmf && num(jmf, 0.000001, 1, &mf) < 0) || (!jmn == !jmf)) {
			*err = xasprintf("%s: definitions.systems.%s needs gpus_per_node, nodes_per_rack and rack_down with "
					 "one of min_nodes_down (a count) or min_nodes_down_fraction (0..1]", src,
					 sla_system_name((enum sla_system)s));
			return -1;
		}
		d->gpus_per_node[s] = (int)g;
		d->nodes_per_rack[s] = (int)npr;
		d->rack_min_nodes[s] = (int)mn;
		d->rack_min_fraction[s] = mf;
	}
	const json_t *cd = json_object_get(o, "cluster_down");
	if (cd) {
		double r = 0, n = 0;
		const json_t *jr = json_object_get(cd, "min_racks_down_fraction"), *jn = json_object_get(cd, "min_nodes_down_fraction");
		if ((jr && !json_is_null(jr) && num(jr, 0.000001, 1, &r) < 0) ||
		    (jn && !json_is_null(jn) && num(jn, 0.000001, 1, &n) < 0)) {
			*err = xasprintf("%s: definitions.cluster_down: fractions in (0, 1], or null for a rule not used", src);
			return -1;
		}
		d->cluster_min_racks_fraction = r;
		d->cluster_min_nodes_fraction = n;
	}
	const json_t *sd = json_object_get(o, "site_down");
	if (sd) {
		double f;
		if (num(json_object_get(sd, "min_clusters_down_fraction"), 0.000001, 1, &f) < 0) {
			*err = xasprintf("%s: definitions.site_down.min_clusters_down_fraction: a fraction in (0, 1]", src);
			return -1;
		}
		d->site_min_clusters_fraction = f;
	}
	return 0;
}

static int defs_complete(const struct sla_defs *d, const char *src, char **err)
{
	for (int c = 0; class_keys[c]; c++)
		if (!d->states[c]) {
			*err = xasprintf("%s: definitions.states.%s is missing", src, class_keys[c]);
			return -1;
		}
	for (int s = 0; s < SYS__COUNT; s++)
		if (!d->gpus_per_node[s]) {
			*err = xasprintf("%s: definitions.systems.%s is missing", src, sla_system_name((enum sla_system)s));
			return -1;
		}
	if (!d->site_min_clusters_fraction) {
		*err = xasprintf("%s: definitions.site_down is missing", src);
		return -1;
	}
	if (!d->cluster_min_nodes_fraction && !d->cluster_min_racks_fraction) {
		*err = xasprintf("%s: definitions.cluster_down needs at least one rule", src);
		return -1;
	}
	return 0;
}

static void defs_free(struct sla_defs *d)
{
	for (int c = 0; c < CL__COUNT; c++)
		json_decref(d->states[c]);
	json_decref(d->customer_reason_prefixes);
	json_decref(d->customer_users);
	memset(d, 0, sizeof *d);
}

static void level_free(struct sla_level *l)
{
	free(l->name);
	free(l->title);
	for (int s = 0; s < SC__COUNT; s++)
		free(l->tiers[s]);
	json_decref(l->exclusions_accepted);
	memset(l, 0, sizeof *l);
}

static int level_parse(const json_t *o, const char *src, struct sla_level *l, char **err)
{
	static const char *const keys[] = { "name", "title", "targets", "credits", "credit_cap_pct", "termination",
					    "exclusions_accepted", "note", "comment", "definitions", "version",
					    "schema", "sources",
					    /* where the level's numbers come from (docs/provenance.md) */
					    "basis", NULL };
	memset(l, 0, sizeof *l);
	const char *name = json_string_value(json_object_get(o, "name"));
	if (!json_is_object(o) || !name || !*name) {
		*err = xasprintf("%s: a level needs a \"name\"", src);
		return -1;
	}
	const char *k;
	const json_t *v;
	json_object_foreach((json_t *)o, k, v) {
		int known = 0;
		for (int i = 0; keys[i]; i++)
			known |= !strcmp(k, keys[i]);
		if (!known) {
			*err = xasprintf("%s: level %s: unknown key \"%s\"", src, name, k);
			return -1;
		}
	}
	l->name = xstrdup(name);
	const char *title = json_string_value(json_object_get(o, "title"));
	l->title = xstrdup(title ? title : name);
	const json_t *tg = json_object_get(o, "targets"), *cr = json_object_get(o, "credits"),
		     *te = json_object_get(o, "termination");
	if (!json_is_object(tg) || (cr && !json_is_object(cr)) || (te && !json_is_object(te))) {
		*err = xasprintf("%s: level %s: \"targets\" (and \"credits\", \"termination\") are objects keyed by "
				 "scope", src, name);
		goto fail;
	}
	for (int s = 0; s < SC__COUNT; s++) {
		const char *sn = sla_scope_name((enum sla_scope)s);
		const json_t *t = json_object_get(tg, sn), *tm = te ? json_object_get(te, sn) : NULL;
		l->target[s] = -1;
		l->termination[s] = -1;
		if (t && num(t, 0, 100, &l->target[s]) < 0) {
			*err = xasprintf("%s: level %s: targets.%s is not a percentage", src, name, sn);
			goto fail;
		}
		if (tm && num(tm, 0, 100, &l->termination[s]) < 0) {
			*err = xasprintf("%s: level %s: termination.%s is not a percentage", src, name, sn);
			goto fail;
		}
		const json_t *ts = cr ? json_object_get(cr, sn) : NULL;
		if (!ts)
			continue;
		if (!json_is_array(ts)) {
			*err = xasprintf("%s: level %s: credits.%s is not an array of {below, credit_pct}", src, name, sn);
			goto fail;
		}
		l->ntiers[s] = json_array_size(ts);
		l->tiers[s] = xcalloc(l->ntiers[s] + 1, sizeof *l->tiers[s]);
		for (size_t i = 0; i < l->ntiers[s]; i++) {
			const json_t *ti = json_array_get(ts, i);
			if (num(json_object_get(ti, "below"), 0, 100, &l->tiers[s][i].below) < 0 ||
			    num(json_object_get(ti, "credit_pct"), 0, 100, &l->tiers[s][i].credit_pct) < 0) {
				*err = xasprintf("%s: level %s: credits.%s[%zu] needs below and credit_pct, percentages",
						 src, name, sn, i);
				goto fail;
			}
		}
	}
	const json_t *cap = json_object_get(o, "credit_cap_pct");
	l->credit_cap_pct = 100;
	if (cap && num(cap, 0, 100, &l->credit_cap_pct) < 0) {
		*err = xasprintf("%s: level %s: credit_cap_pct is not a percentage", src, name);
		goto fail;
	}
	const json_t *ex = json_object_get(o, "exclusions_accepted");
	if (!str_array(ex)) {
		*err = xasprintf("%s: level %s: \"exclusions_accepted\" is an array of window kinds (may be empty)", src,
				 name);
		goto fail;
	}
	l->exclusions_accepted = json_deep_copy(ex);
	return 0;
fail:
	level_free(l);
	return -1;
}

void sla_policy_free(struct sla_policy *p)
{
	if (!p)
		return;
	free(p->source);
	json_decref(p->version);
	defs_free(&p->defs);
	for (size_t i = 0; i < p->nlevels; i++)
		level_free(&p->levels[i]);
	free(p->levels);
	free(p);
}

struct sla_policy *sla_policy_from_json(const json_t *doc, const char *source, char **err)
{
	if (!json_is_object(doc)) {
		*err = xasprintf("%s: not an object", source);
		return NULL;
	}
	const json_t *ver = json_object_get(doc, "version"), *lv = json_object_get(doc, "levels");
	if (!ver) {
		*err = xasprintf("%s: no \"version\"", source);
		return NULL;
	}
	if (!json_is_array(lv) || json_array_size(lv) == 0) {
		*err = xasprintf("%s: \"levels\" is not a non-empty array", source);
		return NULL;
	}
	struct sla_policy *p = xcalloc(1, sizeof *p);
	p->source = xstrdup(source);
	p->version = json_deep_copy(ver);
	if (!json_object_get(doc, "definitions")) {
		*err = xasprintf("%s: no \"definitions\" (states, systems, cluster_down, site_down)", source);
		sla_policy_free(p);
		return NULL;
	}
	if (defs_apply(&p->defs, json_object_get(doc, "definitions"), source, err) < 0 ||
	    defs_complete(&p->defs, source, err) < 0) {
		sla_policy_free(p);
		return NULL;
	}
	p->nlevels = json_array_size(lv);
	p->levels = xcalloc(p->nlevels, sizeof *p->levels);
	for (size_t i = 0; i < p->nlevels; i++) {
		if (level_parse(json_array_get(lv, i), source, &p->levels[i], err) < 0) {
			p->nlevels = i;
			sla_policy_free(p);
			return NULL;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcasecmp(p->levels[j].name, p->levels[i].name)) {
				*err = xasprintf("%s: level %s appears twice", source, p->levels[i].name);
				p->nlevels = i + 1;
				sla_policy_free(p);
				return NULL;
			}
	}
	return p;
}

int sla_policy_custom_level(struct sla_policy *p, const json_t *doc, const char *source, char **err)
{
	const json_t *lo = doc;
	if (json_is_object(doc) && json_is_array(json_object_get(doc, "levels"))) {
		if (json_array_size(json_object_get(doc, "levels")) != 1) {
			*err = xasprintf("%s: a level file holds one level (for several: --levels FILE --level NAME)", source);
			return -1;
		}
		lo = json_array_get(json_object_get(doc, "levels"), 0);
	}
	struct sla_level l;
	if (level_parse(lo, source, &l, err) < 0)
		return -1;
	const json_t *defs = json_object_get(doc, "definitions");
	if (!defs)
		defs = json_object_get(lo, "definitions");
	if (defs && (defs_apply(&p->defs, defs, source, err) < 0 || defs_complete(&p->defs, source, err) < 0)) {
		level_free(&l);
		return -1;
	}
	for (size_t i = 0; i < p->nlevels; i++)
		level_free(&p->levels[i]);
	p->levels = xrealloc(p->levels, sizeof *p->levels);
	p->levels[0] = l;
	p->nlevels = 1;
	free(p->source);
	p->source = xstrdup(source);
	json_decref(p->version);
	p->version = json_deep_copy(json_object_get(doc, "version") ? json_object_get(doc, "version") : json_null());
	return 0;
}

const struct sla_level *sla_policy_level(const struct sla_policy *p, const char *name)
{
	for (size_t i = 0; i < p->nlevels; i++)
		if (!strcasecmp(p->levels[i].name, name))
			return &p->levels[i];
	return NULL;
}

/* ---- classification ---- */

static int in_list(const json_t *arr, const char *s)
{
	size_t i;
	const json_t *v;
	json_array_foreach(arr, i, v)
		if (!strcasecmp(json_string_value(v), s))
			return 1;
	return 0;
}

/* Slurm's state suffixes, as the state each one means. */
static const char *suffix_state(char c)
{
	switch (c) {
	case '*': return "NOT_RESPONDING";
	case '~': return "POWERED_DOWN";
	case '#': return "POWERING_UP";
	case '%': return "POWERING_DOWN";
	case '!': return "POWER_DOWN";
	case '$': return "MAINT";
	case '@': return "REBOOT_REQUESTED";
	case '^': return "REBOOT_ISSUED";
	case '-': return "PLANNED";
	default: return NULL;
	}
}

enum sla_class sla_classify(const struct sla_defs *d, const char *state, char part[64])
{
	static const int rank[CL__COUNT] = { [CL_DOWN] = 4, [CL_DRAIN] = 3, [CL_UNMAPPED] = 2, [CL_NOT_COUNTED] = 1,
					     [CL_UP] = 0 };
	enum sla_class best = CL_UNMAPPED;
	int best_rank = -1;
	char buf[64] = "";
	char *s = xstrdup(state ? state : ""), *save = NULL;
	for (char *tok = strtok_r(s, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		tok = str_trim(tok);
		size_t n = strlen(tok);
		/* the suffixes first, then the base */
		while (n && suffix_state(tok[n - 1])) {
			const char *ss = suffix_state(tok[n - 1]);
			tok[--n] = 0;
			for (int c = 0; c < CL_UNMAPPED; c++)
				if (in_list(d->states[c], ss) && rank[c] > best_rank) {
					best = (enum sla_class)c;
					best_rank = rank[c];
					snprintf(buf, sizeof buf, "%s", ss);
				}
		}
		if (!n)
			continue;
		enum sla_class c = CL_UNMAPPED;
		for (int k = 0; k < CL_UNMAPPED; k++)
			if (in_list(d->states[k], tok))
				c = (enum sla_class)k;
		if (rank[c] > best_rank) {
			best = c;
			best_rank = rank[c];
			snprintf(buf, sizeof buf, "%s", tok);
		}
	}
	free(s);
	if (best_rank < 0)
		snprintf(buf, sizeof buf, "%s", "(empty)");
	if (part)
		memcpy(part, buf, 64);
	return best;
}

int sla_customer_initiated(const struct sla_defs *d, const struct sla_layout *l, const char *reason,
			   const char *user)
{
	size_t i;
	const json_t *v;
	if (reason)
		json_array_foreach(d->customer_reason_prefixes, i, v) {
			const char *pf = json_string_value(v);
			if (*pf && !strncasecmp(reason, pf, strlen(pf)))
				return 1;
		}
	if (user && *user) {
		if (in_list(d->customer_users, user))
			return 1;
		if (l && in_list(l->customer_users, user))
			return 1;
	}
	return 0;
}

/* ---- exclusion windows ---- */

void sla_windows_free(struct sla_windows *w)
{
	for (size_t i = 0; i < w->n; i++) {
		free(w->v[i].kind);
		free(w->v[i].scope);
		free(w->v[i].note);
		free(w->v[i].source);
		free(w->v[i].nodes);
		json_decref(w->v[i].unknown);
	}
	free(w->v);
	memset(w, 0, sizeof *w);
}

/* Mark the nodes a scope names: "all", or a comma list of host lists and unit names. */
static int window_scope(struct sla_window *x, const struct sla_layout *l, const char *scope, char **why)
{
	size_t nn = l->n[SC_NODE];
	x->unknown = json_array();
	if (!strcasecmp(scope, "all")) {
		x->nodes = NULL;
		x->nmatched = nn;
		return 0;
	}
	x->nodes = xcalloc(nn ? nn : 1, 1);
	int st = HOSTLIST_OK;
	json_t *names = hostlist_expand_json(scope, strlen(scope), 1000000, &st);
	if (st != HOSTLIST_OK) {
		json_decref(names);
		*why = xasprintf("scope '%s' is not a host list or unit names", scope);
		return -1;
	}
	size_t i;
	json_t *v;
	json_array_foreach(names, i, v) {
		const char *nm = json_string_value(v);
		long idx;
		int sc = sla_layout_which(l, nm, &idx);
		if (sc < 0) {
			json_array_append(x->unknown, v);
			continue;
		}
		const struct sla_unit *u = &l->u[sc][idx];
		size_t first = sc == SC_NODE ? (size_t)idx : u->node_first, cnt = sc == SC_NODE ? 1 : u->node_count;
		for (size_t k = first; k < first + cnt; k++)
			x->nodes[k] = 1;
	}
	json_decref(names);
	for (size_t k = 0; k < nn; k++)
		x->nmatched += x->nodes[k];
	return 0;
}

int sla_windows_from_json(const json_t *doc, const struct sla_layout *l, const char *source,
			  struct sla_windows *out, char **err)
{
	memset(out, 0, sizeof *out);
	const json_t *arr = json_is_array(doc) ? doc : json_object_get(doc, "windows");
	if (!json_is_array(arr)) {
		*err = xasprintf("%s: no \"windows\" array", source);
		return -1;
	}
	const char *base = json_is_array(doc) ? "" : "/windows";
	out->v = xcalloc(json_array_size(arr) + 1, sizeof *out->v);
	size_t i;
	const json_t *o;
	json_array_foreach(arr, i, o) {
		const char *s = json_string_value(json_object_get(o, "start")), *e = json_string_value(json_object_get(o, "end"));
		const char *kind = json_string_value(json_object_get(o, "kind"));
		const json_t *sc = json_object_get(o, "scope");
		const char *note = json_string_value(json_object_get(o, "note"));
		sla_ms ts = sla_time_parse(s, 0), te = sla_time_parse(e, 0);
		const char *why = NULL;
		if (!json_is_object(o))
			why = "not an object";
		else if (ts == SLA_NOTIME || te == SLA_NOTIME)
			why = "start and end must be RFC 3339 times (quote them in YAML)";
		else if (te <= ts)
			why = "end is not after start";
		else if (!kind || !*kind)
			why = "no kind (maintenance, security-patch, upgrade)";
		else if (sc && !json_is_string(sc))
			why = "scope is \"all\" or a host list / unit names, as a string";
		if (why) {
			*err = xasprintf("%s#%s/%zu: %s", source, base, i, why);
			sla_windows_free(out);
			return -1;
		}
		struct sla_window *x = &out->v[out->n++];
		x->start = ts;
		x->end = te;
		x->kind = str_sanitize(kind, strlen(kind));
		const char *scope = sc ? json_string_value(sc) : "all";
		x->scope = str_sanitize(scope, strlen(scope));
		x->note = note ? str_sanitize(note, strlen(note)) : NULL;
		x->source = xasprintf("%s#%s/%zu", source, base, i);
		char *w = NULL;
		if (window_scope(x, l, x->scope, &w) < 0) {
			*err = xasprintf("%s: %s", x->source, w);
			free(w);
			sla_windows_free(out);
			return -1;
		}
	}
	return 0;
}
