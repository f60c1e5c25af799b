/* Fleet findings: what one node cannot see about itself. Each check runs
 * once per fleet audit over every node's document (ctx->fleet), says how
 * many nodes it covers, and names the outliers against the most common
 * value. A node that did not answer or did not report the value is named
 * as such and counted out, never guessed. */
#include "checks/checks.h"
#include "collect/collector.h"
#include "core/strbuf.h"
#include "parse/hostlist.h"
#include <stdlib.h>
#include <string.h>

/* One node's value of the compared property (malloc'd), or NULL with *why
 * (malloc'd) when the node did not report it. */
typedef char *(*node_value_fn)(struct audit_ctx *ctx, size_t i, char **why);

struct drift_spec {
	const char *what;        /* "NVIDIA driver" */
	enum status on_drift;    /* FAIL or WARN */
	node_value_fn value;
};

/* The collector's own reason when a node could not read it. */
static char *col_why(struct audit_ctx *ctx, size_t i, const char *col)
{
	json_t *c = json_object_get(
		json_object_get(json_object_get(json_array_get(ctx->fleet, i), "doc"), "facts"), col);
	const char *st = json_string_value(json_object_get(c, "state"));
	const char *reason = json_string_value(json_object_get(c, "reason"));
	if (!c)
		return xasprintf("%s collector did not run there", col);
	return xasprintf("%s %s%s%s", col, st ? st : "?", reason ? ": " : "", reason ? reason : "");
}

static char *str_fact(struct audit_ctx *ctx, size_t i, const char *col, const char *path, char **why)
{
	enum col_state st;
	json_t *f = fleet_node_facts(ctx, i, col, &st);
	const char *v = st == COL_OK ? fact_str(f, path) : NULL;
	if (v && *v)
		return xstrdup(v);
	*why = st == COL_OK ? xasprintf("%s.%s unknown", col, path) : col_why(ctx, i, col);
	return NULL;
}

static char *v_driver(struct audit_ctx *ctx, size_t i, char **why)
{
	char *v = str_fact(ctx, i, "nvidia", "driver_version", why);
	if (v)
		return v;
	enum col_state st;
	json_t *a = fleet_node_facts(ctx, i, "amd", &st);
	const char *d = st == COL_OK ? fact_str(a, "driver_version") : NULL;
	if (d && *d) {
		free(*why);
		*why = NULL;
		return xasprintf("amdgpu %s", d);
	}
	return NULL;
}

static char *v_cuda(struct audit_ctx *ctx, size_t i, char **why)
{
	char *v = str_fact(ctx, i, "cuda", "default_toolkit_version", why);
	if (v)
		return v;
	enum col_state st;
	json_t *f = fleet_node_facts(ctx, i, "cuda", &st);
	const char *n = st == COL_OK ? fact_str(f, "nvcc_version") : NULL;
	if (n && *n) {
		free(*why);
		*why = NULL;
		return xasprintf("nvcc %s", n);
	}
	return NULL;
}

static char *v_kernel(struct audit_ctx *ctx, size_t i, char **why)
{
	return str_fact(ctx, i, "os", "kernel_release", why);
}

static char *v_os(struct audit_ctx *ctx, size_t i, char **why)
{
	return str_fact(ctx, i, "os", "os_pretty", why);
}

static char *v_nccl(struct audit_ctx *ctx, size_t i, char **why)
{
	enum col_state st;
	json_t *f = fleet_node_facts(ctx, i, "software", &st);
	if (st != COL_OK) {
		*why = col_why(ctx, i, "software");
		return NULL;
	}
	const char *v = fact_str(f, "nccl.version");
	int inst = 0;
	if (v && *v)
		return xstrdup(v);
	if (fact_bool(f, "nccl.installed", &inst) == 0 && !inst)
		return xstrdup("not installed");
	*why = xstrdup("NCCL version unknown");
	return NULL;
}

/* Sorted, comma-joined strings of an array (a set, order-free). */
static char *join_set(const json_t *arr)
{
	size_t n = json_array_size(arr), k = 0;
	const char **v = xcalloc(n + 1, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(arr, i));
		if (s)
			v[k++] = s;
	}
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
			const char *t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < k; i++)
		if (i == 0 || strcmp(v[i], v[i - 1]))
			sb_addf(&sb, "%s%s", sb.len ? "," : "", v[i]);
	free(v);
	return sb_detach(&sb);
}

static char *v_firmware(struct audit_ctx *ctx, size_t i, char **why)
{
	enum col_state ns, gs;
	json_t *net = fleet_node_facts(ctx, i, "network", &ns);
	json_t *nv = fleet_node_facts(ctx, i, "nvidia", &gs);
	json_t *fw = json_array();
	size_t k;
	json_t *h;
	json_array_foreach(ns == COL_OK ? json_object_get(net, "hcas") : NULL, k, h)
		if (json_is_string(json_object_get(h, "fw_ver")))
			json_array_append(fw, json_object_get(h, "fw_ver"));
	json_t *vb = gs == COL_OK ? json_object_get(nv, "vbios_versions") : NULL;
	char *result = NULL;
	if (!json_array_size(fw) && !json_array_size(vb)) {
		*why = ns != COL_OK ? col_why(ctx, i, "network") : xstrdup("no HCA firmware and no GPU VBIOS reported");
	} else {
		char *a = join_set(fw), *b = join_set(vb);
		result = xasprintf("HCA fw %s; GPU VBIOS %s", *a ? a : "none", *b ? b : "none");
		free(a);
		free(b);
	}
	json_decref(fw);
	return result;
}

static char *v_gpus(struct audit_ctx *ctx, size_t i, char **why)
{
	static const char *const cols[] = { "nvidia", "amd" };
	for (size_t c = 0; c < 2; c++) {
		enum col_state st;
		json_t *f = fleet_node_facts(ctx, i, cols[c], &st);
		long long n;
		if (st != COL_OK || fact_int(f, "count", &n) != 0)
			continue;
		char *m = join_set(json_object_get(f, "models"));
		char *v = xasprintf("%lld x %s", n, *m ? m : "unknown model");
		free(m);
		return v;
	}
	*why = col_why(ctx, i, "nvidia");
	return NULL;
}

/* Node names as a set, for hostlist_compress. */
struct names {
	const char **v;
	size_t n, cap;
};

static void names_add(struct names *s, const char *name)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = xrealloc(s->v, s->cap * sizeof *s->v);
	}
	s->v[s->n++] = name;
}

/* Nodes grouped by a string (a value, a reason), first-seen order; the
 * index finds a group in one lookup however many there are. */
struct group {
	char *key;
	struct names nodes;
};

struct groups {
	struct group *g;
	size_t n;
	json_t *index; /* key -> position in g */
};

static void groups_add(struct groups *gs, const char *key, const char *name)
{
	json_t *at = json_object_get(gs->index, key);
	size_t i = (size_t)json_integer_value(at);
	if (!at) {
		gs->g = xrealloc(gs->g, (gs->n + 1) * sizeof *gs->g);
		gs->g[gs->n] = (struct group){ .key = xstrdup(key) };
		i = gs->n++;
		json_object_set_new_nocheck(gs->index, key, json_integer((json_int_t)i));
	}
	names_add(&gs->g[i].nodes, name);
}

static void groups_free(struct groups *gs)
{
	for (size_t i = 0; i < gs->n; i++) {
		free(gs->g[i].key);
		free(gs->g[i].nodes.v);
	}
	free(gs->g);
	json_decref(gs->index);
}

static char *hostlist_of(const struct names *s)
{
	return hostlist_compress(s->v, s->n);
}

/* A hostlist in a summary: whole up to HOSTLIST_SUMMARY bytes, else cut
 * after a whole element ("gpu[001,003,...]"); the full one is in observed
 * and in the evidence. */
#define HOSTLIST_SUMMARY 160
static void add_hostlist(struct strbuf *sb, const char *hl)
{
	size_t n = strlen(hl);
	if (n <= HOSTLIST_SUMMARY) {
		sb_adds(sb, hl);
		return;
	}
	size_t cut = HOSTLIST_SUMMARY;
	while (cut > 0 && hl[cut] != ',')
		cut--;
	/* one long name: nothing to cut it after */
	if (!cut) {
		sb_adds(sb, hl);
		return;
	}
	int open = 0;
	for (size_t i = 0; i < cut; i++)
		open += hl[i] == '[' ? 1 : hl[i] == ']' ? -1 : 0;
	sb_add(sb, hl, cut);
	sb_addf(sb, ",...%s", open > 0 ? "]" : "");
}

/* "N node(s) (HOSTLIST)", the list capped. */
static void add_count_list(struct strbuf *sb, const struct names *s)
{
	char *hl = hostlist_of(s);
	sb_addf(sb, "%zu node%s (", s->n, s->n == 1 ? "" : "s");
	add_hostlist(sb, hl);
	sb_adds(sb, ")");
	free(hl);
}

/* {"nodes": N, "hostlist": "..."} for observed. */
static json_t *names_json(const struct names *s)
{
	char *hl = hostlist_of(s);
	json_t *o = json_pack("{s:I, s:s}", "nodes", (json_int_t)s->n, "hostlist", hl);
	free(hl);
	return o;
}

static json_t *groups_json(const struct groups *gs)
{
	json_t *o = json_object();
	for (size_t i = 0; i < gs->n; i++)
		json_object_set_new(o, gs->g[i].key, names_json(&gs->g[i].nodes));
	return o;
}

/* Nodes the verdict does not cover, for the summary. */
static void coverage_note(struct strbuf *sb, size_t read, size_t total, const struct names *silent,
			  const struct names *unknown)
{
	sb_addf(sb, " (covers %zu of %zu nodes", read, total);
	if (silent->n) {
		char *hl = hostlist_of(silent);
		sb_adds(sb, "; did not answer: ");
		add_hostlist(sb, hl);
		free(hl);
	}
	if (unknown->n) {
		char *hl = hostlist_of(unknown);
		sb_adds(sb, "; not reported by: ");
		add_hostlist(sb, hl);
		free(hl);
	}
	sb_adds(sb, ")");
}

static int fleet_absent(struct audit_ctx *ctx, struct result *r)
{
	if (!ctx->fleet) {
		r_skip(r, "not a fleet audit: node-to-node comparison needs --slurm or --k8s");
		return 1;
	}
	if (!fleet_node_count(ctx)) {
		r_skip(r, "no node documents to compare: %s",
		       ctx->fleet_error ? ctx->fleet_error : "the fleet has no nodes");
		return 1;
	}
	return 0;
}

/* Every node's value, grouped; the nodes that did not answer or report. */
struct drift_read {
	struct names silent, unknown;
	struct groups values, why; /* value -> nodes; reason not reported -> nodes */
	size_t read;
};

static void drift_collect(struct audit_ctx *ctx, const struct drift_spec *s, size_t total, struct drift_read *d)
{
	for (size_t i = 0; i < total; i++) {
		const char *name = fleet_node_name(ctx, i);
		if (!name)
			continue;
		if (!fleet_node_answered(ctx, i)) {
			names_add(&d->silent, name);
			continue;
		}
		char *why = NULL;
		char *v = s->value(ctx, i, &why);
		if (!v) {
			names_add(&d->unknown, name);
			groups_add(&d->why, why ? why : "unknown", name);
			free(why);
			continue;
		}
		free(why);
		d->read++;
		groups_add(&d->values, v, name);
		free(v);
	}
}

/* One evidence note a value (or reason), with the full hostlist. */
static void group_evidence(struct result *r, const char *what, const struct groups *gs)
{
	for (size_t i = 0; i < gs->n; i++) {
		char *hl = hostlist_of(&gs->g[i].nodes);
		r_evidence_note(r, "%s%s on %zu node%s: %s", what, gs->g[i].key, gs->g[i].nodes.n,
				gs->g[i].nodes.n == 1 ? "" : "s", hl);
		free(hl);
	}
}

/* More than one value: the mode is the reference; a tie has none. */
static void drift_differs(struct result *r, const struct drift_spec *s, const struct groups *gs, size_t read,
			  struct strbuf *cov)
{
	size_t mode = 0, best = 0, ties = 0;
	for (size_t i = 0; i < gs->n; i++) {
		if (gs->g[i].nodes.n > best) {
			best = gs->g[i].nodes.n;
			mode = i;
			ties = 0;
		} else if (gs->g[i].nodes.n == best) {
			ties++;
		}
	}
	struct strbuf sb = STRBUF_INIT;
	if (ties) {
		sb_addf(&sb, "%s differs across nodes with no majority:", s->what);
		for (size_t i = 0; i < gs->n; i++) {
			sb_addf(&sb, "%s %s on ", i ? ";" : "", gs->g[i].key);
			add_count_list(&sb, &gs->g[i].nodes);
		}
	} else {
		sb_addf(&sb, "%s drift: %s on %zu of %zu nodes read (", s->what, gs->g[mode].key, best, read);
		char *hl = hostlist_of(&gs->g[mode].nodes);
		add_hostlist(&sb, hl);
		free(hl);
		sb_adds(&sb, "); outliers:");
		int first = 1;
		for (size_t i = 0; i < gs->n; i++) {
			if (i == mode)
				continue;
			sb_addf(&sb, "%s %s on ", first ? "" : ";", gs->g[i].key);
			add_count_list(&sb, &gs->g[i].nodes);
			first = 0;
		}
	}
	r_status(r, s->on_drift, "%s%s", sb_str(&sb), sb_str(cov));
	sb_free(&sb);
}

static void drift(struct audit_ctx *ctx, struct result *r, const struct drift_spec *s)
{
	if (fleet_absent(ctx, r))
		return;
	size_t total = fleet_node_count(ctx);
	struct drift_read d = { .values.index = json_object(), .why.index = json_object() };
	drift_collect(ctx, s, total, &d);
	json_t *obs = json_object();
	json_object_set_new(obs, "values", groups_json(&d.values));
	json_object_set_new(obs, "not_answered", names_json(&d.silent));
	json_object_set_new(obs, "not_reported", groups_json(&d.why));
	r_observed(r, obs);
	r_expectedf(r, "one %s on every node", s->what);
	/* every value and every gap with its nodes, in full */
	group_evidence(r, "", &d.values);
	if (d.silent.n) {
		char *hl = hostlist_of(&d.silent);
		r_evidence_note(r, "did not answer: %zu node%s: %s", d.silent.n, d.silent.n == 1 ? "" : "s", hl);
		free(hl);
	}
	group_evidence(r, "not reported: ", &d.why);

	struct strbuf cov = STRBUF_INIT;
	coverage_note(&cov, d.read, total, &d.silent, &d.unknown);
	if (d.read == 0) {
		r_skip(r, "no node reported its %s%s", s->what, sb_str(&cov));
	} else if (d.read == 1) {
		r_skip(r, "only %s reported its %s: nothing to compare it with%s", d.values.g[0].nodes.v[0], s->what,
		       sb_str(&cov));
	} else if (d.values.n == 1) {
		r_pass(r, "%s %s on every node read%s", s->what, d.values.g[0].key, sb_str(&cov));
	} else {
		drift_differs(r, s, &d.values, d.read, &cov);
	}
	sb_free(&cov);
	groups_free(&d.values);
	groups_free(&d.why);
	free(d.silent.v);
	free(d.unknown.v);
}

void check_drift_driver(struct audit_ctx *ctx, struct result *r)
{
	static const struct drift_spec s = { "GPU driver", ST_FAIL, v_driver };
	drift(ctx, r, &s);
}

void check_drift_cuda(struct audit_ctx *ctx, struct result *r)
{
	static const struct drift_spec s = { "default CUDA toolkit", ST_WARN, v_cuda };
	drift(ctx, r, &s);
}

void check_drift_firmware(struct audit_ctx *ctx, struct result *r)
{
	static const struct drift_spec s = { "firmware set", ST_FAIL, v_firmware };
	drift(ctx, r, &s);
}

void check_drift_kernel(struct audit_ctx *ctx, struct result *r)
{
	static const struct drift_spec s = { "kernel", ST_FAIL, v_kernel };
	drift(ctx, r, &s);
}

void check_drift_nccl(struct audit_ctx *ctx, struct result *r)
{
	static const struct drift_spec s = { "NCCL", ST_WARN, v_nccl };
	drift(ctx, r, &s);
}

void check_drift_os(struct audit_ctx *ctx, struct result *r)
{
	static const struct drift_spec s = { "OS release", ST_WARN, v_os };
	drift(ctx, r, &s);
}

void check_drift_gpus(struct audit_ctx *ctx, struct result *r)
{
	static const struct drift_spec s = { "GPU inventory", ST_FAIL, v_gpus };
	drift(ctx, r, &s);
}

void check_fleet_coverage(struct audit_ctx *ctx, struct result *r)
{
	if (!ctx->fleet) {
		r_skip(r, "not a fleet audit (--slurm or --k8s)");
		return;
	}
	size_t total = fleet_node_count(ctx), answered = 0;
	struct names silent = { 0 };
	struct strbuf why = STRBUF_INIT;
	for (size_t i = 0; i < total; i++) {
		const char *name = fleet_node_name(ctx, i);
		if (fleet_node_answered(ctx, i)) {
			answered++;
			continue;
		}
		names_add(&silent, name ? name : "?");
		const char *e = json_string_value(json_object_get(json_array_get(ctx->fleet, i), "error"));
		if (silent.n <= 3)
			sb_addf(&why, "; %s: %s", name ? name : "?", e ? e : "no reason recorded");
	}
	json_t *obs = json_object();
	json_object_set_new(obs, "expected", json_integer((json_int_t)total));
	json_object_set_new(obs, "answered", json_integer((json_int_t)answered));
	json_object_set_new(obs, "not_answered", names_json(&silent));
	if (ctx->fleet_error)
		json_object_set_new(obs, "error", json_string(ctx->fleet_error));
	r_observed(r, obs);
	r_expectedf(r, "every node of the target answers the fleet collector");
	if (total == 0) {
		r_error(r, "%s", ctx->fleet_error ? ctx->fleet_error : "the fleet audit found no node to collect from");
	} else if (answered == total) {
		r_pass(r, "all %zu of %zu nodes answered the fleet collector", answered, total);
	} else {
		char *hl = hostlist_of(&silent);
		struct strbuf sb = STRBUF_INIT;
		add_hostlist(&sb, hl);
		r_fail(r, "%zu of %zu nodes answered; did not answer: %s%s", answered, total, sb_str(&sb), sb_str(&why));
		r_evidence_note(r, "did not answer: %zu node%s: %s", silent.n, silent.n == 1 ? "" : "s", hl);
		sb_free(&sb);
		free(hl);
	}
	sb_free(&why);
	free(silent.v);
}
