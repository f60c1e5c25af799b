/* The cluster's layout: sites -> clusters -> racks -> nodes, from a YAML /
 * JSON file or from the flag shorthand. Units are stored scope by scope in
 * document order, so every unit's children are one contiguous range (see
 * model.h); names are unique across the whole layout, so a record may name
 * a rack or a cluster as well as a node. */
#include "sla/model.h"
#include "core/strbuf.h"
#include "parse/hostlist.h"

#include <stdlib.h>
#include <string.h>

static const char *const sys_names[SYS__COUNT] = { "hgx", "nvl72" };

const char *sla_system_name(enum sla_system s)
{
	return (unsigned)s < SYS__COUNT ? sys_names[s] : "?";
}

int sla_system_parse(const char *s, enum sla_system *out)
{
	for (int i = 0; i < SYS__COUNT; i++)
		if (s && !strcasecmp(s, sys_names[i])) {
			*out = (enum sla_system)i;
			return 0;
		}
	return -1;
}

static const char *const scope_names[SC__COUNT] = { "node", "rack", "cluster", "site" };

const char *sla_scope_name(enum sla_scope s)
{
	return (unsigned)s < SC__COUNT ? scope_names[s] : "?";
}

void sla_layout_free(struct sla_layout *l)
{
	if (!l)
		return;
	for (int s = 0; s < SC__COUNT; s++) {
		for (size_t i = 0; i < l->n[s]; i++)
			free(l->u[s][i].name);
		free(l->u[s]);
	}
	json_decref(l->customer_users);
	json_decref(l->warnings);
	free(l->source);
	free(l->by_name);
	free(l);
}

static const struct sla_layout *g_sort;

static int cmp_node(const void *a, const void *b)
{
	return strcmp(g_sort->u[SC_NODE][*(const size_t *)a].name, g_sort->u[SC_NODE][*(const size_t *)b].name);
}

long sla_layout_find(const struct sla_layout *l, enum sla_scope s, const char *name)
{
	if (s == SC_NODE) {
		size_t lo = 0, hi = l->n[SC_NODE];
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			int c = strcmp(l->u[SC_NODE][l->by_name[mid]].name, name);
			if (!c)
				return (long)l->by_name[mid];
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		return -1;
	}
	for (size_t i = 0; i < l->n[s]; i++)
		if (!strcmp(l->u[s][i].name, name))
			return (long)i;
	return -1;
}

int sla_layout_which(const struct sla_layout *l, const char *name, long *idx)
{
	for (int s = 0; s < SC__COUNT; s++)
		if ((*idx = sla_layout_find(l, (enum sla_scope)s, name)) >= 0)
			return s;
	return -1;
}

static struct sla_unit *push(struct sla_layout *l, enum sla_scope s, size_t *cap, const char *name, size_t parent)
{
	if (l->n[s] == cap[s]) {
		cap[s] = cap[s] ? cap[s] * 2 : 16;
		l->u[s] = xrealloc(l->u[s], cap[s] * sizeof *l->u[s]);
	}
	struct sla_unit *u = &l->u[s][l->n[s]++];
	memset(u, 0, sizeof *u);
	u->name = str_sanitize(name, strlen(name));
	u->parent = parent;
	return u;
}

/* Children ranges, node ranges, GPU sums, the name index, uniqueness. */
static int finish(struct sla_layout *l, const struct sla_defs *d, char **err)
{
	for (int s = SC_RACK; s < SC__COUNT; s++) {
		for (size_t i = 0; i < l->n[s]; i++) {
			struct sla_unit *u = &l->u[s][i];
			if (!u->count) {
				*err = xasprintf("%s: %s %s has no %ss", l->source, sla_scope_name((enum sla_scope)s), u->name,
						 sla_scope_name((enum sla_scope)(s - 1)));
				return -1;
			}
			const struct sla_unit *a = &l->u[s - 1][u->first], *z = &l->u[s - 1][u->first + u->count - 1];
			u->node_first = s == SC_RACK ? u->first : a->node_first;
			u->node_count = s == SC_RACK ? u->count : z->node_first + z->node_count - u->node_first;
			u->gpus = 0;
			for (size_t k = u->first; k < u->first + u->count; k++)
				u->gpus += l->u[s - 1][k].gpus;
		}
	}
	for (size_t i = 0; i < l->n[SC_RACK]; i++) {
		const struct sla_unit *r = &l->u[SC_RACK][i];
		if (r->system == SYS_NVL72 && (int)r->count != d->nodes_per_rack[SYS_NVL72]) {
			char *w = xasprintf("NVL72 rack %s has %zu nodes, not %d (trays): the rack rule applies as written",
					    r->name, r->count, d->nodes_per_rack[SYS_NVL72]);
			json_array_append_new(l->warnings, json_string(w));
			free(w);
		}
	}
	size_t nn = l->n[SC_NODE];
	l->by_name = xcalloc(nn + 1, sizeof *l->by_name);
	for (size_t i = 0; i < nn; i++)
		l->by_name[i] = i;
	g_sort = l;
	qsort(l->by_name, nn, sizeof *l->by_name, cmp_node);
	g_sort = NULL;
	for (size_t i = 1; i < nn; i++)
		if (!strcmp(l->u[SC_NODE][l->by_name[i]].name, l->u[SC_NODE][l->by_name[i - 1]].name)) {
			*err = xasprintf("%s: node %s appears twice", l->source, l->u[SC_NODE][l->by_name[i]].name);
			return -1;
		}
	for (int s = SC_RACK; s < SC__COUNT; s++)
		for (size_t i = 0; i < l->n[s]; i++) {
			const char *nm = l->u[s][i].name;
			for (int t = SC_NODE; t <= s; t++) {
				long k = sla_layout_find(l, (enum sla_scope)t, nm);
				if (k >= 0 && !(t == s && (size_t)k == i)) {
					*err = xasprintf("%s: the name %s is used for a %s and a %s", l->source, nm,
							 sla_scope_name((enum sla_scope)t), sla_scope_name((enum sla_scope)s));
					return -1;
				}
			}
		}
	if (!nn) {
		*err = xasprintf("%s: no nodes", l->source);
		return -1;
	}
	return 0;
}

static const char *jstr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s && *s ? s : NULL;
}

/* system and gpus_per_node inherit downwards */
static int inherit(const json_t *o, enum sla_system *sys, int *gpus, int *gpus_set, const char *where,
		   const struct sla_layout *l, char **err)
{
	const json_t *s = json_object_get(o, "system"), *g = json_object_get(o, "gpus_per_node");
	if (s && (!json_is_string(s) || sla_system_parse(json_string_value(s), sys) < 0)) {
		*err = xasprintf("%s: %s: system is hgx or nvl72", l->source, where);
		return -1;
	}
	if (g) {
		json_int_t v = json_integer_value(g);
		if (!json_is_integer(g) || v < 1 || v > 1024) {
			*err = xasprintf("%s: %s: gpus_per_node is a whole number 1..1024", l->source, where);
			return -1;
		}
		*gpus = (int)v;
		*gpus_set = 1;
	}
	return 0;
}

struct walk {
	struct sla_layout *l;
	const struct sla_defs *d;
	size_t cap[SC__COUNT];
};

static int walk_racks(struct walk *w, const json_t *racks, size_t cluster, enum sla_system sys, int gpus, int gset,
		      char **err)
{
	struct sla_layout *l = w->l;
	if (!json_is_array(racks) || !json_array_size(racks)) {
		*err = xasprintf("%s: cluster %s: \"racks\" is not a non-empty list", l->source, l->u[SC_CLUSTER][cluster].name);
		return -1;
	}
	size_t i;
	const json_t *r;
	json_array_foreach(racks, i, r) {
		const char *name = jstr(r, "name");
		if (!name) {
			*err = xasprintf("%s: cluster %s: rack %zu has no name (a string: quote names that look like numbers)", l->source, l->u[SC_CLUSTER][cluster].name, i);
			return -1;
		}
		enum sla_system rs = sys;
		int g = gpus, gs = gset;
		char *where = xasprintf("rack %s", name);
		int rc = inherit(r, &rs, &g, &gs, where, l, err);
		free(where);
		if (rc < 0)
			return -1;
		if (!gs)
			g = w->d->gpus_per_node[rs];
		size_t ri = l->n[SC_RACK];
		struct sla_unit *ru = push(l, SC_RACK, w->cap, name, cluster);
		ru->system = rs;
		ru->first = l->n[SC_NODE];
		const json_t *nodes = json_object_get(r, "nodes");
		json_t *names = NULL;
		if (json_is_string(nodes)) {
			int st = HOSTLIST_OK;
			names = hostlist_expand_json(json_string_value(nodes), strlen(json_string_value(nodes)), 1000000, &st);
			if (st != HOSTLIST_OK) {
				json_decref(names);
				*err = xasprintf("%s: rack %s: nodes '%s' is not a valid host list", l->source, name,
						 json_string_value(nodes));
				return -1;
			}
		} else if (json_is_array(nodes)) {
			names = json_array();
			size_t k;
			const json_t *v;
			json_array_foreach(nodes, k, v) {
				if (!json_is_string(v)) {
					json_decref(names);
					*err = xasprintf("%s: rack %s: nodes[%zu] is not a name", l->source, name, k);
					return -1;
				}
				int st = HOSTLIST_OK;
				json_t *e = hostlist_expand_json(json_string_value(v), strlen(json_string_value(v)), 1000000, &st);
				if (st != HOSTLIST_OK) {
					json_decref(e);
					json_decref(names);
					*err = xasprintf("%s: rack %s: nodes[%zu] is not a valid host list", l->source, name, k);
					return -1;
				}
				json_array_extend(names, e);
				json_decref(e);
			}
		} else {
			*err = xasprintf("%s: rack %s: \"nodes\" is a host list or a list of names", l->source, name);
			return -1;
		}
		size_t k;
		const json_t *v;
		json_array_foreach(names, k, v) {
			struct sla_unit *nu = push(l, SC_NODE, w->cap, json_string_value(v), ri);
			nu->gpus = g;
			nu->system = rs;
		}
		json_decref(names);
		l->u[SC_RACK][ri].count = l->n[SC_NODE] - l->u[SC_RACK][ri].first;
	}
	return 0;
}

static int walk_clusters(struct walk *w, const json_t *clusters, size_t site, enum sla_system sys, int gpus,
			 int gset, char **err)
{
	struct sla_layout *l = w->l;
	if (!json_is_array(clusters) || !json_array_size(clusters)) {
		*err = xasprintf("%s: site %s: \"clusters\" is not a non-empty list", l->source, l->u[SC_SITE][site].name);
		return -1;
	}
	size_t i;
	const json_t *c;
	json_array_foreach(clusters, i, c) {
		const char *name = jstr(c, "name");
		if (!name) {
			*err = xasprintf("%s: site %s: cluster %zu has no name (a string: quote names that look like numbers)", l->source, l->u[SC_SITE][site].name, i);
			return -1;
		}
		enum sla_system cs = sys;
		int g = gpus, gs = gset;
		char *where = xasprintf("cluster %s", name);
		int rc = inherit(c, &cs, &g, &gs, where, l, err);
		free(where);
		if (rc < 0)
			return -1;
		size_t ci = l->n[SC_CLUSTER];
		struct sla_unit *cu = push(l, SC_CLUSTER, w->cap, name, site);
		cu->system = cs;
		cu->first = l->n[SC_RACK];
		if (walk_racks(w, json_object_get(c, "racks"), ci, cs, g, gs, err) < 0)
			return -1;
		l->u[SC_CLUSTER][ci].count = l->n[SC_RACK] - l->u[SC_CLUSTER][ci].first;
	}
	return 0;
}

struct sla_layout *sla_layout_from_json(const json_t *doc, const struct sla_defs *d, const char *source, char **err)
{
	struct sla_layout *l = xcalloc(1, sizeof *l);
	l->source = xstrdup(source);
	l->warnings = json_array();
	struct walk w = { .l = l, .d = d };
	if (!json_is_object(doc)) {
		*err = xasprintf("%s: not a mapping (system, sites -> clusters -> racks -> nodes)", source);
		goto fail;
	}
	enum sla_system sys = SYS_HGX;
	int gpus = 0, gset = 0;
	if (!json_object_get(doc, "system")) {
		*err = xasprintf("%s: no \"system\" (hgx or nvl72)", source);
		goto fail;
	}
	if (inherit(doc, &sys, &gpus, &gset, "top level", l, err) < 0)
		goto fail;
	l->system = sys;
	const json_t *cu = json_object_get(doc, "customer_users");
	if (cu && !json_is_array(cu)) {
		*err = xasprintf("%s: customer_users is a list of user names", source);
		goto fail;
	}
	l->customer_users = cu ? json_deep_copy(cu) : json_array();
	const json_t *sites = json_object_get(doc, "sites");
	json_t *made = NULL;
	/* shorthands: clusters without sites, racks without clusters */
	if (!sites && json_object_get(doc, "clusters")) {
		made = json_pack("[{s:s, s:O}]", "name", "site", "clusters", json_object_get(doc, "clusters"));
		sites = made;
	} else if (!sites && json_object_get(doc, "racks")) {
		made = json_pack("[{s:s, s:[{s:s, s:O}]}]", "name", "site", "clusters", "name", "cluster", "racks",
				 json_object_get(doc, "racks"));
		sites = made;
	}
	if (!json_is_array(sites) || !json_array_size(sites)) {
		json_decref(made);
		*err = xasprintf("%s: no \"sites\" (or \"clusters\", or \"racks\") list", source);
		goto fail;
	}
	size_t i;
	const json_t *s;
	json_array_foreach(sites, i, s) {
		const char *name = jstr(s, "name");
		if (!name) {
			json_decref(made);
			*err = xasprintf("%s: site %zu has no name (a string: quote names that look like numbers)", source, i);
			goto fail;
		}
		enum sla_system ss = sys;
		int g = gpus, gs = gset;
		char *where = xasprintf("site %s", name);
		int rc = inherit(s, &ss, &g, &gs, where, l, err);
		free(where);
		if (rc < 0) {
			json_decref(made);
			goto fail;
		}
		size_t si = l->n[SC_SITE];
		struct sla_unit *su = push(l, SC_SITE, w.cap, name, 0);
		su->system = ss;
		su->first = l->n[SC_CLUSTER];
		if (walk_clusters(&w, json_object_get(s, "clusters"), si, ss, g, gs, err) < 0) {
			json_decref(made);
			goto fail;
		}
		l->u[SC_SITE][si].count = l->n[SC_CLUSTER] - l->u[SC_SITE][si].first;
	}
	json_decref(made);
	if (finish(l, d, err) < 0)
		goto fail;
	return l;
fail:
	sla_layout_free(l);
	return NULL;
}

static char *numbered(const char *prefix, size_t i, size_t total)
{
	int width = 2;
	for (size_t t = total; t >= 100; t /= 10)
		width++;
	return xasprintf("%s%0*zu", prefix, width, i + 1);
}

struct sla_layout *sla_layout_from_flags(const char *hostlist, enum sla_system sys, int nodes_per_rack,
					 int racks_per_cluster, int clusters_per_site, int gpus_per_node,
					 const struct sla_defs *d, char **err)
{
	struct sla_layout *l = xcalloc(1, sizeof *l);
	l->source = xstrdup("flags");
	l->warnings = json_array();
	l->customer_users = json_array();
	l->system = sys;
	int st = HOSTLIST_OK;
	json_t *names = hostlist_expand_json(hostlist, strlen(hostlist), 1000000, &st);
	size_t nn = json_array_size(names);
	if (st != HOSTLIST_OK || !nn) {
		json_decref(names);
		*err = xasprintf("--nodes '%s' is not a valid host list", hostlist);
		sla_layout_free(l);
		return NULL;
	}
	size_t npr = nodes_per_rack > 0 ? (size_t)nodes_per_rack : (size_t)d->nodes_per_rack[sys];
	size_t nracks = (nn + npr - 1) / npr;
	size_t rpc = racks_per_cluster > 0 ? (size_t)racks_per_cluster : nracks;
	size_t nclusters = (nracks + rpc - 1) / rpc;
	size_t cps = clusters_per_site > 0 ? (size_t)clusters_per_site : nclusters;
	size_t nsites = (nclusters + cps - 1) / cps;
	int g = gpus_per_node > 0 ? gpus_per_node : d->gpus_per_node[sys];
	size_t cap[SC__COUNT] = { 0 };
	for (size_t s = 0; s < nsites; s++) {
		char *sn = numbered("site", s, nsites);
		struct sla_unit *su = push(l, SC_SITE, cap, sn, 0);
		free(sn);
		su->system = sys;
		su->first = l->n[SC_CLUSTER];
		for (size_t c = s * cps; c < nclusters && c < (s + 1) * cps; c++) {
			char *cn = numbered("cluster", c, nclusters);
			struct sla_unit *cu = push(l, SC_CLUSTER, cap, cn, s);
			free(cn);
			cu->system = sys;
			cu->first = l->n[SC_RACK];
			for (size_t r = c * rpc; r < nracks && r < (c + 1) * rpc; r++) {
				char *rn = numbered("rack", r, nracks);
				struct sla_unit *ru = push(l, SC_RACK, cap, rn, c);
				free(rn);
				ru->system = sys;
				ru->first = l->n[SC_NODE];
				for (size_t k = r * npr; k < nn && k < (r + 1) * npr; k++) {
					struct sla_unit *nu =
						push(l, SC_NODE, cap, json_string_value(json_array_get(names, k)), r);
					nu->gpus = g;
					nu->system = sys;
				}
				l->u[SC_RACK][r].count = l->n[SC_NODE] - l->u[SC_RACK][r].first;
			}
			l->u[SC_CLUSTER][c].count = l->n[SC_RACK] - l->u[SC_CLUSTER][c].first;
		}
		l->u[SC_SITE][s].count = l->n[SC_CLUSTER] - l->u[SC_SITE][s].first;
	}
	json_decref(names);
	if (finish(l, d, err) < 0) {
		sla_layout_free(l);
		return NULL;
	}
	return l;
}
