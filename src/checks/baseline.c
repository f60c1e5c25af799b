/* versions.baseline-*: this run's facts against a stored run of the same
 * host (`cmax audit --baseline RUN`, src/audit/baseline.h), in the spirit
 * of NHC's generated configuration: the node's state is pinned, and any
 * change is a finding. One check per category (driver, firmware, OS,
 * software, settings), each WARN with before -> after for what changed,
 * PASS when nothing did, SKIP without a baseline. A value not read in one
 * of the two runs is not compared: unknown is never a change. The baseline
 * was loaded by the command; nothing here reads a file. */
#include "checks/checks.h"
#include "collect/collector.h"
#include "parse/hostlist.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <string.h>

/* One side of the comparison: this run (facts_get, or one fleet node's
 * document) or the stored one. */
struct bl_side {
	struct audit_ctx *ctx;
	const json_t *stored; /* NULL: this run */
	long node;            /* this run of a fleet: the node's index in ctx->fleet; -1 for this host */
};

/* A collector's facts on that side, NULL when it was not OK there. */
static const json_t *side_facts(const struct bl_side *s, const char *collector)
{
	if (!s->stored && s->node >= 0) {
		enum col_state st;
		json_t *f = fleet_node_facts(s->ctx, (size_t)s->node, collector, &st);
		return st == COL_OK ? f : NULL;
	}
	if (!s->stored) {
		enum col_state st;
		json_t *f = facts_get(s->ctx, collector, &st);
		return st == COL_OK ? f : NULL;
	}
	const json_t *c = json_object_get(s->stored, collector);
	const char *st = json_string_value(json_object_get(c, "state"));
	return st && strcmp(st, "ok") == 0 ? json_object_get(c, "facts") : NULL;
}

static char *str_at(const struct bl_side *s, const char *collector, const char *path)
{
	const char *v = fact_str(side_facts(s, collector), path);
	return v ? xstrdup(v) : NULL;
}

static char *nv_driver(const struct bl_side *s)
{
	return str_at(s, "nvidia", "driver_version");
}

static char *nv_vbios(const struct bl_side *s)
{
	const json_t *a = fact_get(side_facts(s, "nvidia"), "vbios_versions");
	return json_is_array(a) && json_array_size(a) ? fact_join(a, ", ") : NULL;
}

/* The distinct values of one field over the GPUs, sorted as they come. */
static char *gpu_field(const struct bl_side *s, const char *field)
{
	const json_t *gpus = fact_get(side_facts(s, "nvidia"), "gpus");
	if (!json_is_array(gpus) || !json_array_size(gpus))
		return NULL;
	json_t *set = json_array();
	size_t i;
	json_t *g;
	json_array_foreach(gpus, i, g)
		fact_add_unique(set, json_string_value(json_object_get(g, field)));
	char *out = json_array_size(set) ? fact_join(set, ", ") : NULL;
	json_decref(set);
	return out;
}

static char *gpu_persistence(const struct bl_side *s)
{
	return gpu_field(s, "persistence_mode");
}

static char *gpu_ecc(const struct bl_side *s)
{
	return gpu_field(s, "ecc.mode.current");
}

/* "40.46.3048 on 8 HCAs": the distinct firmware versions with how many
 * HCAs run each, in the order the HCAs come. */
static char *hca_fw(const struct bl_side *s)
{
	const json_t *hcas = fact_get(side_facts(s, "network"), "hcas");
	if (!json_is_array(hcas) || !json_array_size(hcas))
		return NULL;
	json_t *vers = json_array();
	size_t i, k;
	json_t *h, *v;
	json_array_foreach(hcas, i, h)
		fact_add_unique(vers, fact_str(h, "fw_ver") ? fact_str(h, "fw_ver") : "?");
	struct strbuf sb = STRBUF_INIT;
	json_array_foreach(vers, k, v) {
		size_t n = 0;
		json_array_foreach(hcas, i, h)
			n += strcmp(fact_str(h, "fw_ver") ? fact_str(h, "fw_ver") : "?", json_string_value(v)) == 0;
		sb_addf(&sb, "%s%s on %zu HCA%s", k ? ", " : "", json_string_value(v), n, n == 1 ? "" : "s");
	}
	json_decref(vers);
	return sb_detach(&sb);
}

static char *bios(const struct bl_side *s)
{
	return str_at(s, "dmi", "bios.version");
}

static char *kernel(const struct bl_side *s)
{
	return str_at(s, "os", "kernel_release");
}

static char *os_release(const struct bl_side *s)
{
	return str_at(s, "os", "os_pretty");
}

static char *cuda_default(const struct bl_side *s)
{
	return str_at(s, "cuda", "default_toolkit_version");
}

static char *nccl(const struct bl_side *s)
{
	return str_at(s, "software", "nccl.version");
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* An object's keys (with_values: "key=value" for string values) sorted and
 * joined: the stored run may have been written with its keys in another
 * order. NULL for a non-object, empty for an empty one. */
static char *keys_sorted(const json_t *o, int with_values, const char *sep)
{
	if (!json_is_object(o))
		return NULL;
	size_t n = json_object_size(o), i = 0;
	char **v = xcalloc(n ? n : 1, sizeof *v);
	const char *k;
	json_t *x;
	json_object_foreach((json_t *)o, k, x) {
		const char *s = with_values ? json_string_value(x) : NULL;
		v[i++] = s && *s ? xasprintf("%s=%s", k, s) : xstrdup(k);
	}
	qsort(v, n, sizeof *v, cmp_strp);
	struct strbuf sb = STRBUF_INIT;
	for (i = 0; i < n; i++) {
		sb_addf(&sb, "%s%s", i ? sep : "", v[i]);
		free(v[i]);
	}
	free(v);
	return sb_detach(&sb);
}

static char *governor(const struct bl_side *s)
{
	const json_t *g = fact_get(side_facts(s, "cpufreq"), "governors");
	if (!json_is_object(g) || !json_object_size(g))
		return NULL;
	return keys_sorted(g, 0, ", ");
}

static char *sysctl_int(const struct bl_side *s, const char *key)
{
	long long v;
	if (fact_int(side_facts(s, "sysctl"), key, &v) != 0)
		return NULL;
	return xasprintf("%lld", v);
}

static char *perf_paranoid(const struct bl_side *s)
{
	return sysctl_int(s, "perf_event_paranoid");
}

static char *kptr(const struct bl_side *s)
{
	return sysctl_int(s, "kptr_restrict");
}

static char *userns(const struct bl_side *s)
{
	return sysctl_int(s, "max_user_namespaces");
}

static char *iommu_cmdline(const struct bl_side *s)
{
	char *out = keys_sorted(fact_get(side_facts(s, "pci"), "iommu.cmdline"), 1, " ");
	if (out && !*out) {
		free(out);
		out = xstrdup("(none)");
	}
	return out;
}

struct bl_item {
	const char *label;
	char *(*get)(const struct bl_side *s); /* malloc'd; NULL: not read on that side */
};

static const struct bl_item driver_items[] = {
	{ "NVIDIA driver", nv_driver }, { NULL, NULL },
};
static const struct bl_item firmware_items[] = {
	{ "GPU VBIOS", nv_vbios }, { "HCA firmware", hca_fw }, { "BIOS", bios }, { NULL, NULL },
};
static const struct bl_item os_items[] = {
	{ "kernel", kernel }, { "OS release", os_release }, { NULL, NULL },
};
static const struct bl_item software_items[] = {
	{ "CUDA default toolkit", cuda_default }, { "NCCL", nccl }, { NULL, NULL },
};
static const struct bl_item settings_items[] = {
	{ "GPU persistence mode", gpu_persistence }, { "GPU ECC", gpu_ecc }, { "CPU governor", governor },
	{ "kernel.perf_event_paranoid", perf_paranoid }, { "kernel.kptr_restrict", kptr },
	{ "user.max_user_namespaces", userns }, { "IOMMU kernel parameters", iommu_cmdline }, { NULL, NULL },
};

/* Compare one category's items and grade the row. */
static void bl_grade(struct audit_ctx *ctx, struct result *r, const char *what, const struct bl_item *items)
{
	r_reproduce(r, "cmax audit --yes --baseline RUN -v");
	if (!ctx->baseline_facts) {
		r_skip(r, "no --baseline given: nothing to compare the %s with (cmax audit --baseline RUN, RUN a "
		       "previous run of this host; a fleet audit compares its nodes in versions.baseline-fleet)", what);
		return;
	}
	struct bl_side now = { ctx, NULL, -1 }, before = { ctx, ctx->baseline_facts, -1 };
	json_t *changed = json_array(), *same = json_array(), *unread = json_array();
	struct strbuf sum = STRBUF_INIT;
	for (size_t i = 0; items[i].label; i++) {
		char *b = items[i].get(&before), *a = items[i].get(&now);
		if (!a || !b) {
			json_array_append_new(unread, json_string(items[i].label));
		} else if (strcmp(a, b) != 0) {
			json_array_append_new(changed, json_pack("{s:s,s:s,s:s}", "item", items[i].label, "before", b,
								 "after", a));
			sb_addf(&sum, "%s%s %s -> %s", sum.len ? "; " : "", items[i].label, b, a);
			r_evidence_note(r, "%s: %s in the baseline, %s now", items[i].label, b, a);
		} else {
			json_array_append_new(same, json_pack("{s:s,s:s}", "item", items[i].label, "value", a));
		}
		free(a);
		free(b);
	}
	json_t *obs = json_pack("{s:s,s:O,s:O,s:O}", "baseline", ctx->baseline_desc ? ctx->baseline_desc : "?",
				"changed", changed, "unchanged", same, "not_compared", unread);
	r_observed(r, obs);
	r_expectedf(r, "the %s as in the baseline", what);
	if (json_array_size(changed)) {
		r_warn(r, "%s changed since the baseline %s: %s", what, ctx->baseline_desc, sb_str(&sum));
	} else if (!json_array_size(same)) {
		char *l = fact_join(unread, ", ");
		r_skip(r, "the %s could not be compared: %s not read in both runs", what, l);
		free(l);
	} else {
		char *l = fact_join(unread, ", ");
		r_pass(r, "%s unchanged since the baseline %s (%zu compared%s%s)", what, ctx->baseline_desc,
		       json_array_size(same), json_array_size(unread) ? "; not read in both runs: " : "",
		       json_array_size(unread) ? l : "");
		free(l);
	}
	sb_free(&sum);
	json_decref(changed);
	json_decref(same);
	json_decref(unread);
}

void check_baseline_driver(struct audit_ctx *ctx, struct result *r)
{
	bl_grade(ctx, r, "GPU driver", driver_items);
}

void check_baseline_firmware(struct audit_ctx *ctx, struct result *r)
{
	bl_grade(ctx, r, "firmware (GPU VBIOS, HCA, BIOS)", firmware_items);
}

void check_baseline_os(struct audit_ctx *ctx, struct result *r)
{
	bl_grade(ctx, r, "kernel and OS release", os_items);
}

void check_baseline_software(struct audit_ctx *ctx, struct result *r)
{
	bl_grade(ctx, r, "CUDA default toolkit and NCCL", software_items);
}

void check_baseline_settings(struct audit_ctx *ctx, struct result *r)
{
	bl_grade(ctx, r, "settings (persistence, ECC, governor, sysctls, IOMMU parameters)", settings_items);
}

/* ---- versions.baseline-fleet --------------------------------------------- */

static const struct {
	const struct bl_item *items;
} bl_categories[] = {
	{ driver_items }, { firmware_items }, { os_items }, { software_items }, { settings_items },
};

/* The names of a JSON array of strings as a hostlist ("gpu[001-004]"). */
static char *names_compressed(const json_t *arr)
{
	size_t n = json_array_size(arr);
	const char **v = xcalloc(n ? n : 1, sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = json_string_value(json_array_get(arr, i));
	char *s = hostlist_compress(v, n);
	free(v);
	return s;
}

/* One node against its stored self: every changed item, as "label before
 * -> after", appended to the nodes of that change in changes. */
static int bl_node_changes(struct audit_ctx *ctx, size_t i, const json_t *stored, json_t *changes)
{
	struct bl_side now = { ctx, NULL, (long)i }, before = { ctx, stored, -1 };
	const char *name = fleet_node_name(ctx, i);
	int any = 0;
	for (size_t c = 0; c < sizeof bl_categories / sizeof bl_categories[0]; c++) {
		for (const struct bl_item *it = bl_categories[c].items; it->label; it++) {
			char *b = it->get(&before), *a = it->get(&now);
			if (a && b && strcmp(a, b) != 0) {
				char *k = xasprintf("%s %s -> %s", it->label, b, a);
				json_t *arr = json_object_get(changes, k);
				if (!arr)
					json_object_set_new(changes, k, arr = json_array());
				json_array_append_new(arr, json_string(name));
				free(k);
				any = 1;
			}
			free(a);
			free(b);
		}
	}
	return any;
}

/* Every change, with the nodes it covers as a hostlist; the summary names
 * the first few. */
static json_t *bl_change_rows(const json_t *changes, struct strbuf *sum)
{
	json_t *rows = json_array();
	const char *k;
	json_t *nodes;
	size_t shown = 0;
	json_object_foreach((json_t *)changes, k, nodes) {
		char *hl = names_compressed(nodes);
		json_array_append_new(rows, json_pack("{s:s,s:s,s:I}", "change", k, "nodes", hl, "count",
						      (json_int_t)json_array_size(nodes)));
		if (shown++ < 6)
			sb_addf(sum, "%s%s on %s", sum->len ? "; " : "", k, hl);
		free(hl);
	}
	if (shown > 6)
		sb_addf(sum, "; and %zu more changes", shown - 6);
	return rows;
}

void check_baseline_fleet(struct audit_ctx *ctx, struct result *r)
{
	r_reproduce(r, "cmax audit --slurm --yes --baseline RUN -v");
	if (!ctx->baseline_nodes) {
		r_skip(r, "no --baseline given: nothing to compare the nodes with (cmax audit --slurm --baseline RUN, RUN "
		       "a previous fleet run)");
		return;
	}
	json_t *changes = json_object(), *changed = json_array(), *same = json_array(), *fresh = json_array(),
	       *silent = json_array(), *gone = json_array();
	size_t n = fleet_node_count(ctx);
	for (size_t i = 0; i < n; i++) {
		const char *name = fleet_node_name(ctx, i);
		const json_t *stored = json_object_get(ctx->baseline_nodes, name ? name : "");
		if (!fleet_node_answered(ctx, i))
			json_array_append_new(silent, json_string(name ? name : "?"));
		else if (!json_is_object(stored))
			json_array_append_new(fresh, json_string(name ? name : "?"));
		else
			json_array_append_new(bl_node_changes(ctx, i, stored, changes) ? changed : same,
					      json_string(name));
	}
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)ctx->baseline_nodes, k, v) {
		int here = 0;
		for (size_t i = 0; i < n && !here; i++)
			here = fleet_node_name(ctx, i) && strcmp(fleet_node_name(ctx, i), k) == 0;
		if (!here)
			json_array_append_new(gone, json_string(k));
	}
	struct strbuf sum = STRBUF_INIT;
	json_t *rows = bl_change_rows(changes, &sum);
	char *hs = names_compressed(same), *hf = names_compressed(fresh), *hg = names_compressed(gone),
	     *hq = names_compressed(silent);
	r_observed(r, json_pack("{s:s,s:o,s:s,s:s,s:s,s:s}", "baseline", ctx->baseline_desc ? ctx->baseline_desc : "?",
				"changes", rows, "unchanged_nodes", hs, "not_in_baseline", hf, "not_in_this_run", hg,
				"not_answering", hq));
	r_expectedf(r, "every node's driver, firmware, kernel, OS, CUDA, NCCL and settings as in the baseline");
	size_t compared = json_array_size(changed) + json_array_size(same);
	if (json_array_size(changed))
		r_warn(r, "%zu of %zu nodes compared changed since the baseline %s: %s", json_array_size(changed), compared,
		       ctx->baseline_desc, sb_str(&sum));
	else if (!compared)
		r_skip(r, "no node of this run answered and is in the baseline %s%s%s", ctx->baseline_desc,
		       *hf ? "; not in it: " : "", hf);
	else
		r_pass(r, "%zu nodes unchanged since the baseline %s%s%s%s%s", compared, ctx->baseline_desc,
		       *hf ? "; not in the baseline: " : "", hf, *hg ? "; in the baseline, not in this run: " : "", hg);
	free(hs);
	free(hf);
	free(hg);
	free(hq);
	sb_free(&sum);
	json_decref(changes);
	json_decref(changed);
	json_decref(same);
	json_decref(fresh);
	json_decref(silent);
	json_decref(gone);
}
