/* Fleet findings: what one node cannot see about itself. Each check runs
 * once per fleet audit over every node's document (ctx->fleet), says how
 * many nodes it covers, and names the outliers against the most common
 * value. A node that did not answer or did not report the value is named
 * as such and counted out, never guessed. */
#include "checks/checks.h"
#include "collect/collector.h"
#include "core/strbuf.h"
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

/* "node1, node2" capped so a thousand-node fleet stays one line. */
static void add_names(struct strbuf *sb, const json_t *names)
{
	size_t n = json_array_size(names);
	for (size_t i = 0; i < n && i < 8; i++)
		sb_addf(sb, "%s%s", i ? ", " : "", json_string_value(json_array_get(names, i)));
	if (n > 8)
		sb_addf(sb, " and %zu more", n - 8);
}

/* Nodes the verdict does not cover, for the summary. */
static void coverage_note(struct strbuf *sb, size_t read, size_t total, const json_t *silent, const json_t *unknown)
{
	sb_addf(sb, " (covers %zu of %zu nodes", read, total);
	if (json_array_size(silent)) {
		sb_adds(sb, "; did not answer: ");
		add_names(sb, silent);
	}
	if (json_array_size(unknown)) {
		sb_adds(sb, "; not reported by: ");
		add_names(sb, unknown);
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
	json_t *silent, *unknown, *unknown_why;
	json_t *groups; /* value -> [nodes], first-seen order */
	size_t read;
};

static void drift_collect(struct audit_ctx *ctx, const struct drift_spec *s, size_t total, struct drift_read *d)
{
	for (size_t i = 0; i < total; i++) {
		const char *name = fleet_node_name(ctx, i);
		if (!name)
			continue;
		if (!fleet_node_answered(ctx, i)) {
			json_array_append_new(d->silent, json_string(name));
			continue;
		}
		char *why = NULL;
		char *v = s->value(ctx, i, &why);
		if (!v) {
			json_array_append_new(d->unknown, json_string(name));
			json_object_set_new(d->unknown_why, name, json_string(why ? why : "unknown"));
			free(why);
			continue;
		}
		free(why);
		d->read++;
		json_t *g = json_object_get(d->groups, v);
		if (!g) {
			g = json_array();
			json_object_set_new(d->groups, v, g);
		}
		json_array_append_new(g, json_string(name));
		free(v);
	}
}

/* More than one value: the mode is the reference; a tie has none */
static void drift_differs(struct result *r, const struct drift_spec *s, json_t *groups, size_t read,
			  struct strbuf *cov)
{
	const char *mode = NULL, *k;
	size_t best = 0, ties = 0;
	json_t *g;
	json_object_foreach(groups, k, g) {
		size_t n = json_array_size(g);
		if (n > best) {
			best = n;
			mode = k;
			ties = 0;
		} else if (n == best) {
			ties++;
		}
	}
	struct strbuf sb = STRBUF_INIT;
	if (ties) {
		sb_addf(&sb, "%s differs across nodes with no majority:", s->what);
		json_object_foreach(groups, k, g) {
			sb_addf(&sb, " %s on ", k);
			add_names(&sb, g);
			sb_adds(&sb, ";");
		}
		sb.len--;
		sb.buf[sb.len] = 0;
	} else {
		sb_addf(&sb, "%s drift: %s on %zu of %zu nodes read; outliers:", s->what, mode, best, read);
		int first = 1;
		json_object_foreach(groups, k, g) {
			if (!strcmp(k, mode))
				continue;
			sb_addf(&sb, "%s ", first ? "" : ";");
			add_names(&sb, g);
			sb_addf(&sb, " (%s)", k);
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
	struct drift_read d = { json_array(), json_array(), json_object(), json_object(), 0 };
	drift_collect(ctx, s, total, &d);
	json_t *obs = json_object();
	json_object_set(obs, "values", d.groups);
	json_object_set(obs, "not_answered", d.silent);
	json_object_set(obs, "not_reported", d.unknown_why);
	r_observed(r, obs);
	r_expectedf(r, "one %s on every node", s->what);

	struct strbuf cov = STRBUF_INIT;
	coverage_note(&cov, d.read, total, d.silent, d.unknown);
	if (d.read == 0) {
		r_skip(r, "no node reported its %s%s", s->what, sb_str(&cov));
	} else if (d.read == 1) {
		const char *only = NULL;
		json_t *g;
		const char *k;
		json_object_foreach(d.groups, k, g)
			only = json_string_value(json_array_get(g, 0));
		r_skip(r, "only %s reported its %s: nothing to compare it with%s", only ? only : "one node", s->what,
		       sb_str(&cov));
	} else if (json_object_size(d.groups) == 1) {
		const char *k = json_object_iter_key(json_object_iter(d.groups));
		r_pass(r, "%s %s on every node read%s", s->what, k, sb_str(&cov));
	} else {
		drift_differs(r, s, d.groups, d.read, &cov);
	}
	sb_free(&cov);
	json_decref(d.groups);
	json_decref(d.silent);
	json_decref(d.unknown);
	json_decref(d.unknown_why);
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
	json_t *silent = json_array();
	struct strbuf why = STRBUF_INIT;
	for (size_t i = 0; i < total; i++) {
		const char *name = fleet_node_name(ctx, i);
		if (fleet_node_answered(ctx, i)) {
			answered++;
			continue;
		}
		json_array_append_new(silent, json_string(name ? name : "?"));
		const char *e = json_string_value(json_object_get(json_array_get(ctx->fleet, i), "error"));
		if (json_array_size(silent) <= 3)
			sb_addf(&why, "; %s: %s", name ? name : "?", e ? e : "no reason recorded");
	}
	json_t *obs = json_object();
	json_object_set_new(obs, "expected", json_integer((json_int_t)total));
	json_object_set_new(obs, "answered", json_integer((json_int_t)answered));
	json_object_set(obs, "not_answered", silent);
	if (ctx->fleet_error)
		json_object_set_new(obs, "error", json_string(ctx->fleet_error));
	r_observed(r, obs);
	r_expectedf(r, "every node of the target answers the fleet collector");
	if (total == 0) {
		r_error(r, "%s", ctx->fleet_error ? ctx->fleet_error : "the fleet audit found no node to collect from");
	} else if (answered == total) {
		r_pass(r, "all %zu of %zu nodes answered the fleet collector", answered, total);
	} else {
		struct strbuf sb = STRBUF_INIT;
		add_names(&sb, silent);
		r_fail(r, "%zu of %zu nodes answered; did not answer: %s%s", answered, total, sb_str(&sb), sb_str(&why));
		sb_free(&sb);
	}
	sb_free(&why);
	json_decref(silent);
}
