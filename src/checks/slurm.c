/* Slurm cluster checks: run once on the login node, grading the "slurm"
 * collector's facts (the controller's view) against what the nodes
 * themselves reported (ctx->fleet: GPUs, MemTotal). Without node documents
 * a comparison with the nodes is unknown and says so. */
#include "checks/checks.h"
#include "core/jsonget.h"
#include "collect/collector.h"
#include "core/strbuf.h"
#include "core/timefmt.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------- helpers ---------- */

static json_t *slurm_facts(struct audit_ctx *ctx)
{
	return facts_get(ctx, "slurm", NULL);
}

static json_t *nodes_of(json_t *f)
{
	return json_object_get(f, "nodes");
}

static const char *node_name(const json_t *n)
{
	return json_string_value(json_object_get(n, "name"));
}

/* The fleet entries by name, made once a check: a check of thousands of
 * nodes looks each one up, and a scan of the fleet a node was quadratic.
 * byname: the scheduler's node names; bydoc: the names the documents give
 * themselves; the first entry of a name wins, as a scan from the start
 * would find it. */
struct fleet_lookup {
	json_t *byname, *bydoc;
};

static void fleet_lookup_init(struct audit_ctx *ctx, struct fleet_lookup *lk)
{
	lk->byname = json_object();
	lk->bydoc = json_object();
	size_t n = fleet_node_count(ctx);
	for (size_t i = 0; i < n; i++) {
		const char *name = fleet_node_name(ctx, i);
		json_t *doc = json_object_get(json_array_get(ctx->fleet, i), "doc");
		const char *dn = json_string_value(json_object_get(doc, "node"));
		if (name && !json_object_get(lk->byname, name))
			json_object_set_new(lk->byname, name, json_integer((json_int_t)i));
		if (dn && !json_object_get(lk->bydoc, dn))
			json_object_set_new(lk->bydoc, dn, json_integer((json_int_t)i));
	}
}

static void fleet_lookup_free(struct fleet_lookup *lk)
{
	json_decref(lk->byname);
	json_decref(lk->bydoc);
}

/* The fleet entry of a Slurm node: by node name, else by the name its
 * document gives, else (a fleet of one) by host name. */
static long fleet_index(struct audit_ctx *ctx, const struct fleet_lookup *lk, const json_t *node)
{
	const char *name = node_name(node);
	const char *host = json_string_value(json_object_get(node, "hostname"));
	json_t *at;
	if (name && ((at = json_object_get(lk->byname, name)) || (at = json_object_get(lk->bydoc, name))))
		return (long)json_integer_value(at);
	if (host && fleet_node_count(ctx) == 1) {
		json_t *doc = json_object_get(json_array_get(ctx->fleet, 0), "doc");
		const char *dh = json_string_value(json_object_get(doc, "host"));
		if (dh && !strcmp(dh, host))
			return 0;
	}
	return -1;
}

/* GPUs a node reported (PCI, else nvidia-smi, else AMD), -1 unknown. */
static long long fleet_gpus(struct audit_ctx *ctx, long i)
{
	if (i < 0 || !fleet_node_answered(ctx, (size_t)i))
		return -1;
	enum col_state st;
	long long nv, amd;
	json_t *pci = fleet_node_facts(ctx, (size_t)i, "pci", &st);
	if (pci && st == COL_OK && fact_int(pci, "nvidia_gpus", &nv) == 0 && fact_int(pci, "amd_gpus", &amd) == 0)
		return nv + amd;
	json_t *n = fleet_node_facts(ctx, (size_t)i, "nvidia", &st);
	if (n && st == COL_OK && fact_int(n, "count", &nv) == 0)
		return nv;
	return -1;
}

/* MemTotal in MiB a node reported, -1 unknown. */
static long long fleet_mem_mib(struct audit_ctx *ctx, long i)
{
	if (i < 0 || !fleet_node_answered(ctx, (size_t)i))
		return -1;
	enum col_state st;
	long long kb;
	json_t *os = fleet_node_facts(ctx, (size_t)i, "os", &st);
	if (os && st == COL_OK && fact_int(os, "mem_total_kb", &kb) == 0 && kb > 0)
		return kb / 1024;
	return -1;
}

static int has_flag(const json_t *node, const char *flag)
{
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(node, "flags"), i, v)
		if (!strcmp(json_string_value(v), flag))
			return 1;
	return 0;
}

/* "rack3" / "rack-b12" features name the rack; NULL when none. */
static const char *rack_of(const json_t *node)
{
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(node, "features"), i, v) {
		const char *s = json_string_value(v);
		if (s && !strncasecmp(s, "rack", 4) && s[4])
			return s;
	}
	return NULL;
}

/* A list "a, b, c" of at most `max` names, "+N more" after. */
static void list_add(struct strbuf *sb, int *count, const char *item, int max)
{
	if (*count < max)
		sb_addf(sb, "%s%s", *count ? ", " : "", item);
	else if (*count == max)
		sb_adds(sb, ", ...");
	(*count)++;
}

static int nodes_known(struct result *r, json_t *f)
{
	if (json_is_array(nodes_of(f)))
		return 1;
	const char *why = fact_str(f, "nodes_error");
	r_error(r, "scontrol show node -o failed: %s", why ? why : "no detail");
	return 0;
}

static const char *fleet_note(struct audit_ctx *ctx)
{
	return ctx->fleet ? "" : " (no node documents: run the fleet audit so nodes report their own facts)";
}

/* ---------- orchestration ---------- */

/* NVL72: GB200/GB300 trays reported by the nodes themselves */
static int fleet_has_nvl72(struct audit_ctx *ctx)
{
	int nvl72 = 0;
	for (size_t k = 0; k < fleet_node_count(ctx); k++) {
		json_t *nv = fleet_node_facts(ctx, k, "nvidia", NULL), *m;
		size_t j;
		json_array_foreach(fact_get(nv, "models"), j, m) {
			const char *s = json_string_value(m);
			if (s && (strstr(s, "GB200") || strstr(s, "GB300")))
				nvl72 = 1;
		}
	}
	return nvl72;
}

/* No topology plugin: fine only where the nodes share one rack or are one. */
static void topology_flat(struct result *r, const char *plugin, int nvl72, int nracks, int all_nodes)
{
	if (nvl72)
		r_fail(r, "%s on an NVL72 (GB200/GB300) cluster: jobs are not packed into NVLink domains",
		       plugin ? plugin : "no TopologyPlugin");
	else if (nracks > 1)
		r_fail(r, "%s on a cluster whose nodes sit in %d racks: jobs spread across racks and pay "
		       "inter-switch hops", plugin ? plugin : "no TopologyPlugin", nracks);
	else if (nracks == 1)
		r_pass(r, "%s, and every node is in one rack: no topology needed", plugin ? plugin : "no TopologyPlugin");
	else if (all_nodes <= 1)
		r_skip(r, "%s on a single node: no topology needed", plugin ? plugin : "no TopologyPlugin");
	else
		r_warn(r, "%s and no rack information (node Features rackN): cannot tell whether %d nodes share "
		       "one switch; a multi-switch cluster needs topology/tree or topology/block",
		       plugin ? plugin : "no TopologyPlugin", all_nodes);
}

/* The topology file names every GPU node (every node, on a cluster without GPUs). */
static void topology_coverage(struct result *r, json_t *f, const char *plugin, const char *file, int gpu_nodes)
{
	json_t *covered = fact_get(f, "topology.covered"), *n;
	struct strbuf miss = STRBUF_INIT;
	int nmiss = 0, considered = 0;
	size_t i;
	json_array_foreach(nodes_of(f), i, n) {
		if (gpu_nodes && jget_int(n, "gpus", 0) <= 0)
			continue;
		considered++;
		int found = 0;
		size_t j;
		json_t *c;
		json_array_foreach(covered, j, c)
			if (node_name(n) && !strcmp(json_string_value(c), node_name(n))) {
				found = 1;
				break;
			}
		if (!found)
			list_add(&miss, &nmiss, node_name(n) ? node_name(n) : "?", 10);
	}
	r_evidence_note(r, "%s covers %zu node names", file, json_array_size(covered));
	if (nmiss)
		r_fail(r, "%s: %d of %d %s missing from %s: %s", plugin, nmiss, considered,
		       gpu_nodes ? "GPU nodes" : "nodes", file, sb_str(&miss));
	else
		r_pass(r, "%s with %s covering all %d %s", plugin, file, considered, gpu_nodes ? "GPU nodes" : "nodes");
	sb_free(&miss);
}

void check_slurm_topology(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx), *n;
	if (!nodes_known(r, f))
		return;
	const char *plugin = fact_str(f, "topology.plugin");
	const char *file = fact_str(f, "topology.file");
	json_t *racks = json_object();
	int gpu_nodes = 0, all_nodes = 0;
	size_t i;
	json_array_foreach(nodes_of(f), i, n) {
		all_nodes++;
		gpu_nodes += jget_int(n, "gpus", 0) > 0;
		const char *rk = rack_of(n);
		if (rk)
			json_object_set_new(racks, rk, json_true());
	}
	int nvl72 = fleet_has_nvl72(ctx);
	int nracks = (int)json_object_size(racks);
	json_decref(racks);
	int flat = !plugin || !strcmp(plugin, "topology/none") || !strcmp(plugin, "topology/flat") ||
		   !strcmp(plugin, "topology/default");
	/* plugin and file are facts: already made valid UTF-8 by the collector */
	r_observed(r, json_pack("{s:s?, s:s?, s:I, s:I, s:I, s:b}", "TopologyPlugin", plugin, "file", file,
				"nodes", (json_int_t)all_nodes, "gpu_nodes", (json_int_t)gpu_nodes,
				"racks_from_features", (json_int_t)nracks, "nvl72", nvl72 != 0));
	r_expectedf(r, "topology/tree or topology/block with a topology file covering every GPU node when the cluster "
		       "spans racks or NVLink domains");
	if (flat) {
		topology_flat(r, plugin, nvl72, nracks, all_nodes);
		return;
	}
	if (!file) {
		r_fail(r, "%s but neither topology.conf nor topology.yaml is readable next to slurm.conf", plugin);
		return;
	}
	topology_coverage(r, f, plugin, file, gpu_nodes);
}

void check_slurm_gres(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx), *n;
	if (!nodes_known(r, f))
		return;
	struct strbuf bad = STRBUF_INIT, unk = STRBUF_INIT;
	int nbad = 0, nunk = 0, nok = 0, gres_nodes = 0, nmissing = 0;
	json_t *obs = json_array();
	struct fleet_lookup lk;
	fleet_lookup_init(ctx, &lk);
	size_t i;
	json_array_foreach(nodes_of(f), i, n) {
		long long g = jget_int(n, "gpus", -1);
		long fi = fleet_index(ctx, &lk, n);
		long long real = fleet_gpus(ctx, fi);
		gres_nodes += g > 0;
		json_t *o = json_object();
		fact_set_str(o, "node", node_name(n));
		fact_set_str(o, "gres", fact_str(n, "gres"));
		json_object_set_new(o, "gres_gpus", g >= 0 ? json_integer(g) : json_null());
		json_object_set_new(o, "gpus_on_node", real >= 0 ? json_integer(real) : json_null());
		json_array_append_new(obs, o);
		if (real < 0) {
			list_add(&unk, &nunk, node_name(n) ? node_name(n) : "?", 10);
			continue;
		}
		if (g == real) {
			nok++;
			continue;
		}
		char *item = g <= 0 ? xasprintf("%s has %lld GPUs but no gpu GRES", node_name(n), real)
				    : xasprintf("%s advertises %lld GPUs in GRES, has %lld", node_name(n), g, real);
		nmissing += g <= 0;
		list_add(&bad, &nbad, item, 8);
		free(item);
	}
	fleet_lookup_free(&lk);
	r_observed(r, obs);
	r_expectedf(r, "every GPU node advertises Gres=gpu:<type>:<count> equal to the GPUs it has");
	if (nbad) {
		r_fail(r, "%d node%s with GRES not matching their GPUs: %s%s", nbad, nbad == 1 ? "" : "s", sb_str(&bad),
		       nmissing ? " (jobs asking for --gpus cannot land there)" : " (jobs get too few GPUs or the node goes INVAL)");
	} else if (nok && nunk) {
		r_warn(r, "GRES matches the GPUs on %d node%s; %d not compared (no GPU facts from the node): %s", nok,
		       nok == 1 ? "" : "s", nunk, sb_str(&unk));
	} else if (nok) {
		r_pass(r, "GRES matches the GPUs on all %d nodes%s", nok, gres_nodes ? "" : " (no GPUs anywhere)");
	} else {
		r_skip(r, "GPU count of the nodes unknown%s; %d of %zu nodes advertise gpu GRES", fleet_note(ctx),
		       gres_nodes, json_array_size(nodes_of(f)));
	}
	sb_free(&bad);
	sb_free(&unk);
}

void check_slurm_realmemory(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx), *n;
	if (!nodes_known(r, f))
		return;
	struct strbuf low = STRBUF_INIT, high = STRBUF_INIT, warn = STRBUF_INIT, unk = STRBUF_INIT;
	int nlow = 0, nhigh = 0, nwarn = 0, nunk = 0, nok = 0;
	double fail_ratio = threshold(ctx, "slurm.realmemory_fail_ratio", 0.5);
	double warn_ratio = threshold(ctx, "slurm.realmemory_warn_ratio", 0.8);
	json_t *obs = json_array();
	struct fleet_lookup lk;
	fleet_lookup_init(ctx, &lk);
	size_t i;
	json_array_foreach(nodes_of(f), i, n) {
		long long rm = jget_int(n, "real_memory_mb", -1);
		long long mem = fleet_mem_mib(ctx, fleet_index(ctx, &lk, n));
		json_t *o = json_object();
		fact_set_str(o, "node", node_name(n));
		json_object_set_new(o, "RealMemory_mib", rm >= 0 ? json_integer(rm) : json_null());
		json_object_set_new(o, "MemTotal_mib", mem >= 0 ? json_integer(mem) : json_null());
		json_array_append_new(obs, o);
		if (rm < 0 || mem <= 0) {
			list_add(&unk, &nunk, node_name(n) ? node_name(n) : "?", 10);
			continue;
		}
		double ratio = (double)rm / (double)mem;
		char *item = xasprintf("%s RealMemory=%lld MiB of %lld MiB (%.0f%%)", node_name(n), rm, mem, ratio * 100);
		if (rm > mem)
			list_add(&high, &nhigh, item, 6);
		else if (ratio < fail_ratio)
			list_add(&low, &nlow, item, 6);
		else if (ratio < warn_ratio)
			list_add(&warn, &nwarn, item, 6);
		else
			nok++;
		free(item);
	}
	fleet_lookup_free(&lk);
	r_observed(r, obs);
	r_expectedf(r, "RealMemory between %.0f%% and 100%% of the node's MemTotal", warn_ratio * 100);
	if (nhigh || nlow) {
		r_fail(r, "%s%s%s%s%s", nhigh ? "RealMemory above MemTotal (the node goes INVAL or jobs are killed): " : "",
		       sb_str(&high), nhigh && nlow ? "; " : "",
		       nlow ? "RealMemory far below MemTotal (jobs cannot use the memory they paid for): " : "",
		       sb_str(&low));
	} else if (nwarn) {
		r_warn(r, "RealMemory below %.0f%% of MemTotal: %s", warn_ratio * 100, sb_str(&warn));
	} else if (nok && nunk) {
		r_warn(r, "RealMemory fits MemTotal on %d node%s; %d not compared (no memory facts): %s", nok,
		       nok == 1 ? "" : "s", nunk, sb_str(&unk));
	} else if (nok) {
		r_pass(r, "RealMemory fits the memory of all %d nodes", nok);
	} else {
		r_skip(r, "no node facts: MemTotal of the nodes unknown%s", fleet_note(ctx));
	}
	sb_free(&low);
	sb_free(&high);
	sb_free(&warn);
	sb_free(&unk);
}

/* "DefCpuPerGPU=8,DefMemPerGPU=64000" contains key with a value? */
static int in_job_defaults(const char *jd, const char *key)
{
	if (!jd)
		return 0;
	const char *p = strcasestr(jd, key);
	return p && p[strlen(key)] == '=';
}

static int mem_set(const char *v)
{
	return v && *v && strcasecmp(v, "UNLIMITED") && strcmp(v, "0");
}

void check_slurm_defaults(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx), *p, *n;
	const char *jd = fact_str(f, "defaults.JobDefaults");
	int cpu_gpu = in_job_defaults(jd, "DefCpuPerGPU"), mem_gpu = in_job_defaults(jd, "DefMemPerGPU");
	int mem_cpu = mem_set(fact_str(f, "defaults.DefMemPerCPU")), mem_node = mem_set(fact_str(f, "defaults.DefMemPerNode"));
	size_t i;
	int gpus = 0;
	json_array_foreach(nodes_of(f), i, n)
		gpus |= jget_int(n, "gpus", 0) > 0;
	/* partition-level defaults count when every partition sets them */
	int pc = 0, pcg = 0, pmg = 0, pmc = 0;
	json_array_foreach(fact_get(f, "partitions"), i, p) {
		const char *pj = fact_str(p, "job_defaults");
		pc++;
		pcg += in_job_defaults(pj, "DefCpuPerGPU");
		pmg += in_job_defaults(pj, "DefMemPerGPU");
		pmc += mem_set(fact_str(p, "def_mem_per_cpu")) || mem_set(fact_str(p, "def_mem_per_node"));
	}
	cpu_gpu |= pc && pcg == pc;
	mem_gpu |= pc && pmg == pc;
	mem_cpu |= pc && pmc == pc;
	json_t *obs = json_object();
	fact_set_str(obs, "JobDefaults", jd);
	fact_set_str(obs, "DefMemPerCPU", fact_str(f, "defaults.DefMemPerCPU"));
	fact_set_str(obs, "DefMemPerNode", fact_str(f, "defaults.DefMemPerNode"));
	fact_set_bool(obs, "gpu_cluster", gpus);
	r_observed(r, obs);
	struct strbuf miss = STRBUF_INIT;
	if (gpus) {
		r_expectedf(r, "DefCpuPerGPU and DefMemPerGPU (or DefMemPerCPU) set, cluster-wide or on every partition");
		if (!cpu_gpu)
			sb_adds(&miss, "DefCpuPerGPU (a GPU job gets one core)");
		if (!mem_gpu && !mem_cpu && !mem_node)
			sb_addf(&miss, "%sDefMemPerGPU/DefMemPerCPU (no memory default)", miss.len ? ", " : "");
	} else {
		r_expectedf(r, "DefMemPerCPU (or DefMemPerNode) set");
		if (!mem_cpu && !mem_node)
			sb_adds(&miss, "DefMemPerCPU (no memory default)");
	}
	if (miss.len)
		r_warn(r, "job defaults unset: %s; users who forget --cpus-per-task/--mem get a job that crawls or is "
		       "killed", sb_str(&miss));
	else
		r_pass(r, "job defaults set (%s%s%s)", jd ? jd : "", jd && (mem_cpu || mem_node) ? ", " : "",
		       mem_cpu ? "DefMemPerCPU" : mem_node ? "DefMemPerNode" : "");
	sb_free(&miss);
}

void check_slurm_accounting(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx);
	const char *type = fact_str(f, "accounting.storage_type");
	int ok = 0;
	fact_bool(f, "accounting.sacct_ok", &ok);
	const char *detail = fact_str(f, "accounting.detail");
	long long jobs = -1;
	fact_int(f, "accounting.jobs_last_hour", &jobs);
	r_observedf(r, "AccountingStorageType=%s; sacct %s", type ? type : "(unset)",
		    ok ? "answered" : detail ? detail : "failed");
	r_expectedf(r, "accounting_storage/slurmdbd and a working sacct");
	if (!type || !strcmp(type, "accounting_storage/none"))
		r_warn(r, "no job accounting (AccountingStorageType=%s): no job history, usage or fair-share, and "
		       "sacct cannot show what ran where", type ? type : "unset");
	else if (!ok)
		r_fail(r, "%s is configured but sacct fails: %s", type, detail ? detail : "no detail");
	else
		r_pass(r, "%s and sacct answers (%lld jobs in the last hour)", type, jobs);
}

void check_slurm_ctld_colocation(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx), *h, *n;
	if (!nodes_known(r, f))
		return;
	json_t *hosts = fact_get(f, "ctld_hosts");
	struct strbuf hit = STRBUF_INIT, ctl = STRBUF_INIT;
	int nhit = 0, nctl = 0;
	size_t i, j;
	json_array_foreach(hosts, i, h) {
		const char *hn = json_string_value(h);
		list_add(&ctl, &nctl, hn, 4);
		json_array_foreach(nodes_of(f), j, n) {
			const char *nn = node_name(n), *nh = fact_str(n, "hostname");
			if ((nn && !strcmp(nn, hn)) || (nh && !strcmp(nh, hn))) {
				char *item = xasprintf("%s (node %s)", hn, nn ? nn : "?");
				list_add(&hit, &nhit, item, 6);
				free(item);
			}
		}
	}
	r_observedf(r, "SlurmctldHost: %s", nctl ? sb_str(&ctl) : "unknown");
	r_expectedf(r, "slurmctld on hosts that run no slurmd");
	if (!nctl)
		r_skip(r, "scontrol show config names no SlurmctldHost");
	else if (nhit)
		r_warn(r, "slurmctld shares a host with compute node%s %s: jobs can starve the controller (and a node "
		       "reboot takes it down)", nhit == 1 ? "" : "s", sb_str(&hit));
	else
		r_pass(r, "slurmctld (%s) runs on no compute node", sb_str(&ctl));
	sb_free(&hit);
	sb_free(&ctl);
}

/* Age of a reason time "2026-11-30T06:20:55" (local time per Slurm; read as UTC). */
static void age_str(struct audit_ctx *ctx, const char *t, char *buf, size_t n)
{
	time_t when = t ? time_parse_iso(t) : -1;
	if (when < 0) {
		snprintf(buf, n, "age unknown");
		return;
	}
	long s = (long)(ctx->now - when);
	if (s < 0)
		s = 0;
	if (s >= 86400)
		snprintf(buf, n, "%ldd%ldh", s / 86400, s % 86400 / 3600);
	else if (s >= 3600)
		snprintf(buf, n, "%ldh%ldm", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, n, "%ldm", s / 60);
}

void check_slurm_node_states(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx), *n;
	if (!nodes_known(r, f))
		return;
	struct strbuf out = STRBUF_INIT;
	int bad = 0, total = 0;
	json_t *obs = json_array();
	size_t i;
	json_array_foreach(nodes_of(f), i, n) {
		total++;
		const char *st = fact_str(n, "state");
		int down = st && (!strcmp(st, "DOWN") || !strcmp(st, "FAIL") || !strcmp(st, "INVAL") ||
				  !strcmp(st, "FAILING") || !strcmp(st, "UNKNOWN"));
		int drain = has_flag(n, "DRAIN") || has_flag(n, "FAIL") || has_flag(n, "INVALID_REG");
		int nresp = json_is_true(json_object_get(n, "not_responding"));
		if (!down && !drain && !nresp)
			continue;
		bad++;
		char age[32];
		age_str(ctx, fact_str(n, "reason_time"), age, sizeof age);
		const char *reason = fact_str(n, "reason");
		char *what = xasprintf("%s %s%s%s%s (%s%s%s, %s)", node_name(n), st ? st : "?", drain ? "+DRAIN" : "",
				       nresp ? "*" : "", "", reason ? reason : "no reason", fact_str(n, "reason_user") ? " by " : "",
				       fact_str(n, "reason_user") ? fact_str(n, "reason_user") : "", age);
		int c = bad - 1;
		list_add(&out, &c, what, 10);
		json_t *o = json_object();
		fact_set_str(o, "node", node_name(n));
		fact_set_str(o, "state", st);
		json_object_set(o, "flags", json_object_get(n, "flags"));
		fact_set_str(o, "reason", reason);
		fact_set_str(o, "reason_user", fact_str(n, "reason_user"));
		fact_set_str(o, "reason_time", fact_str(n, "reason_time"));
		fact_set_str(o, "age", age);
		json_array_append_new(obs, o);
		free(what);
	}
	r_observed(r, obs);
	double fail_frac = threshold(ctx, "slurm.unavailable_fail_fraction", 0.25);
	r_expectedf(r, "every node up (WARN with any node DRAIN/DOWN/FAIL, FAIL above %.0f%% of nodes)", fail_frac * 100);
	if (!total)
		r_skip(r, "the controller lists no nodes");
	else if (!bad)
		r_pass(r, "all %d nodes up (no DRAIN, DOWN or FAIL)", total);
	else if ((double)bad / total > fail_frac)
		r_fail(r, "%d of %d nodes out of service: %s", bad, total, sb_str(&out));
	else
		r_warn(r, "%d of %d node%s out of service: %s", bad, total, total == 1 ? "" : "s", sb_str(&out));
	sb_free(&out);
}

/* ---------- health ---------- */

/* The compute nodes' own view of the HealthCheckProgram (slurm-node facts
 * of a fleet audit): nodes where it is missing or not executable, counts. */
struct hc_nodes {
	struct strbuf missing, noexec;
	int nviews, nbad, nunknown;
};

static void hc_nodes_free(struct hc_nodes *h)
{
	sb_free(&h->missing);
	sb_free(&h->noexec);
}

static void hc_node_views(struct audit_ctx *ctx, const char *prog, struct hc_nodes *h)
{
	memset(h, 0, sizeof *h);
	h->missing = (struct strbuf)STRBUF_INIT;
	h->noexec = (struct strbuf)STRBUF_INIT;
	for (size_t i = 0; i < fleet_node_count(ctx); i++) {
		enum col_state st;
		json_t *nf = fleet_node_answered(ctx, i) ? fleet_node_facts(ctx, i, "slurm-node", &st) : NULL;
		const char *np = nf && st == COL_OK ? fact_str(nf, "program") : NULL;
		int ex = 0, x = 0;
		if (!np || strcmp(np, prog) != 0 || fact_bool(nf, "exists", &ex) != 0 || fact_bool(nf, "executable", &x) != 0) {
			h->nunknown++; /* not looked for there: unknown, never a finding */
			continue;
		}
		h->nviews++;
		const char *name = fleet_node_name(ctx, i);
		if (!ex) {
			sb_addf(&h->missing, "%s%s", h->missing.len ? ", " : "", name ? name : "?");
			h->nbad++;
		} else if (!x) {
			sb_addf(&h->noexec, "%s%s", h->noexec.len ? ", " : "", name ? name : "?");
			h->nbad++;
		}
	}
}

void check_slurm_healthcheck(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx);
	const char *prog = fact_str(f, "healthcheck.program");
	long long iv = -1;
	fact_int(f, "healthcheck.interval_s", &iv);
	int exists = 0, exec = 0, nhc_conf = 0, diag = 0;
	fact_bool(f, "healthcheck.exists", &exists);
	fact_bool(f, "healthcheck.executable", &exec);
	fact_bool(f, "healthcheck.nhc_conf", &nhc_conf);
	fact_bool(f, "healthcheck.runs_dcgm_diag", &diag);
	json_t *mentions = fact_get(f, "healthcheck.mentions"), *m;
	int nhc = 0, dcgm = 0;
	size_t i;
	json_array_foreach(mentions, i, m) {
		nhc |= !strcmp(json_string_value(m), "nhc");
		dcgm |= !strcmp(json_string_value(m), "dcgmi");
	}
	r_observedf(r, "HealthCheckProgram=%s HealthCheckInterval=%llds HealthCheckNodeState=%s; wired to: %s%s%s",
		    prog ? prog : "(unset)", iv, fact_str(f, "healthcheck.node_state") ?: "?",
		    nhc ? "NHC " : "", dcgm ? "DCGM " : "", nhc || dcgm ? "" : "nothing known");
	r_expectedf(r, "an executable HealthCheckProgram (NHC, or a script running DCGM health checks) with HealthCheckInterval > 0");
	if (!prog || !*prog) {
		r_fail(r, "no HealthCheckProgram: a node with a failed GPU keeps taking jobs until someone notices");
		return;
	}
	if (prog)
		r_evidence_file(r, prog, NULL);
	/* slurmd runs the program on every compute node: where the fleet brought
	 * the nodes' own view back (slurm-node collector), that decides */
	struct hc_nodes hn;
	hc_node_views(ctx, prog, &hn);
	if (hn.missing.len || hn.noexec.len) {
		r_fail(r, "HealthCheckProgram %s %s%s%s%s%s (%d of %d nodes): slurmd cannot run it there, so nothing "
		       "drains those nodes on a fault", prog, hn.missing.len ? "does not exist on " : "",
		       sb_str(&hn.missing), hn.missing.len && hn.noexec.len ? "; is " : hn.noexec.len ? "is " : "",
		       hn.noexec.len ? "not executable on " : "", sb_str(&hn.noexec), hn.nbad, hn.nviews + hn.nunknown);
		r_remedy(r, "Install the health check at the same path on every compute node (image or configuration "
			 "management), executable by root (chmod 755), or correct HealthCheckProgram in slurm.conf; "
			 "then `scontrol reconfigure`.");
		hc_nodes_free(&hn);
		return;
	}
	if (hn.nviews) {
		if (!exists)
			r_evidence_note(r, "%s is not on the login node, but every one of the %d node(s) that answered has "
					"it executable, which is where slurmd runs it", prog, hn.nviews);
		exists = exec = 1;
	}
	if (hn.nunknown)
		r_evidence_note(r, "%d node(s) did not report their own view of %s (no answer, or an older cmax)",
				hn.nunknown, prog);
	int viewed = hn.nviews;
	hc_nodes_free(&hn);
	if (!exists) {
		r_fail(r, "HealthCheckProgram %s does not exist (on this host's view of the file system%s)", prog,
		       viewed ? "" : "; no compute node reported its own");
		return;
	}
	if (!exec) {
		r_fail(r, "HealthCheckProgram %s is not executable (on this host's view; no compute node reported its own)",
		       prog);
		return;
	}
	if (iv <= 0) {
		r_fail(r, "HealthCheckInterval is %s: %s never runs", iv == 0 ? "0" : "unknown", prog);
		return;
	}
	if (!nhc && !dcgm) {
		r_warn(r, "HealthCheckProgram %s runs every %llds but checks nothing known (no NHC, no DCGM): it cannot "
		       "act on GPU faults", prog, iv);
		r_remedy(r, "Run LBNL NHC (/usr/sbin/nhc with GPU, mount and daemon checks in /etc/nhc/nhc.conf) or call "
			 "`dcgmi health -c` from the health check, draining the node on failure.");
		return;
	}
	if (diag && fact_str(f, "healthcheck.node_state") && strcasestr(fact_str(f, "healthcheck.node_state"), "ANY")) {
		r_warn(r, "HealthCheckProgram %s runs `dcgmi diag` on busy nodes too (HealthCheckNodeState=ANY): a "
		       "diagnostic with a short timeout on a loaded GPU drains healthy nodes", prog);
		r_remedy(r, "Run `dcgmi diag` only on IDLE nodes (HealthCheckNodeState=IDLE or in the prolog/epilog) and "
			 "use `dcgmi health -c` for the periodic check.");
		return;
	}
	r_pass(r, "HealthCheckProgram %s every %llds, wired to %s%s%s", prog, iv, nhc ? "NHC" : "",
	       nhc && dcgm ? " and " : "", dcgm ? "DCGM" : "");
}

void check_slurm_prolog(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx);
	long long mt = 10, ms = -1;
	fact_int(f, "srun_true.message_timeout_s", &mt);
	fact_int(f, "srun_true.ms", &ms);
	int ok = 0, to = 0;
	fact_bool(f, "srun_true.ok", &ok);
	fact_bool(f, "srun_true.timed_out", &to);
	const char *pro = fact_str(f, "srun_true.prolog"), *epi = fact_str(f, "srun_true.epilog");
	const char *detail = fact_str(f, "srun_true.detail");
	double warn_frac = threshold(ctx, "slurm.prolog_warn_fraction", 0.3);
	r_observedf(r, "srun -N1 -n1 true: %s in %lld ms; MessageTimeout=%llds; Prolog=%s Epilog=%s",
		    ok ? "ok" : to ? "timed out" : "failed", ms, mt, pro ? pro : "(none)", epi ? epi : "(none)");
	r_expectedf(r, "a trivial job step well under MessageTimeout (WARN above %.0f%% of it, FAIL above it)",
		    warn_frac * 100);
	if (to) {
		r_fail(r, "srun true did not finish in %lld ms (MessageTimeout %llds): the prolog or launch path stalls",
		       ms, mt);
		return;
	}
	if (!ok) {
		r_skip(r, "srun true could not run, so prolog time is unknown: %s", detail ? detail : "no detail");
		return;
	}
	double s = (double)ms / 1000.0;
	if (s > (double)mt)
		r_fail(r, "a trivial job step takes %.1f s, longer than MessageTimeout (%llds)%s: launches time out and "
		       "nodes get drained", s, mt, pro ? " with the prolog" : "");
	else if (s > warn_frac * (double)mt)
		r_warn(r, "a trivial job step takes %.1f s, %.0f%% of MessageTimeout (%llds)%s%s", s, 100.0 * s / (double)mt,
		       mt, pro ? "; prolog " : "", pro ? pro : "");
	else
		r_pass(r, "a trivial job step takes %.2f s (MessageTimeout %llds)%s%s", s, mt, pro ? "; prolog " : "",
		       pro ? pro : "");
}

void check_slurm_return_to_service(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx);
	long long rts = -1;
	int known = fact_int(f, "return_to_service", &rts) == 0;
	const char *resume = fact_str(f, "resume_program"), *reboot = fact_str(f, "reboot_program");
	r_observedf(r, "ReturnToService=%s ResumeProgram=%s RebootProgram=%s", known ? (rts == 0 ? "0" : rts == 1 ? "1" : "2")
		    : "unknown", resume ? resume : "(none)", reboot ? reboot : "(none)");
	r_expectedf(r, "ReturnToService=1 or 2 (a repaired node rejoins by itself) or a ResumeProgram");
	if (!known && !resume)
		r_skip(r, "ReturnToService unknown");
	else if (rts > 0 || resume)
		r_pass(r, "nodes return to service automatically (%s%s%s)", rts > 0 ? "ReturnToService=" : "",
		       rts > 0 ? (rts == 1 ? "1" : "2") : "", resume ? " ResumeProgram" : "");
	else
		r_warn(r, "ReturnToService=0 and no ResumeProgram: every node that went DOWN waits for an admin, even "
		       "after it recovered");
}

/* ---------- software, containers, storage, access ---------- */

void check_slurm_pmix(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx), *m;
	json_t *list = fact_get(f, "mpi");
	if (!json_is_array(list)) {
		r_skip(r, "srun --mpi=list did not answer");
		return;
	}
	struct strbuf sb = STRBUF_INIT;
	int pmix = 0;
	size_t i;
	json_array_foreach(list, i, m) {
		sb_addf(&sb, "%s%s", i ? " " : "", json_string_value(m));
		pmix |= str_starts(json_string_value(m), "pmix");
	}
	r_observedf(r, "srun --mpi=list: %s; MpiDefault=%s", sb_str(&sb), fact_str(f, "mpi_default") ?: "?");
	r_expectedf(r, "pmix among the MPI plugins");
	if (pmix)
		r_pass(r, "PMIx available to srun (%s)", sb_str(&sb));
	else
		r_warn(r, "no PMIx plugin in srun (%s): Open MPI / HPC-X jobs cannot be launched with srun --mpi=pmix",
		       sb.len ? sb_str(&sb) : "empty list");
	sb_free(&sb);
}

void check_slurm_pyxis(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx);
	int opt = 0, spank = 0;
	int opt_known = fact_bool(f, "pyxis.container_image_option", &opt) == 0;
	fact_bool(f, "pyxis.spank_pyxis", &spank);
	const char *ps = fact_str(f, "pyxis.plugstack_config");
	size_t nfiles = json_array_size(fact_get(f, "pyxis.plugstack_files"));
	r_observedf(r, "srun --help %s --container-image; %s%s",
		    !opt_known ? "unreadable:" : opt ? "shows" : "lacks", spank ? "plugstack loads spank_pyxis" :
		    nfiles ? "plugstack has no spank_pyxis" : "plugstack unreadable or empty", ps ? "" : " (no PlugStackConfig)");
	r_expectedf(r, "Pyxis: spank_pyxis.so in plugstack.conf(.d) and --container-image in srun --help");
	if (!opt_known) {
		r_skip(r, "srun --help did not answer");
		return;
	}
	const json_t *files = fact_get(f, "pyxis.plugin_files");
	if (opt && spank) {
		r_pass(r, "Pyxis is installed: srun --container-image and spank_pyxis in %s", ps ? ps : "plugstack.conf");
	} else if (!opt && !spank && json_array_size(files)) {
		/* the field case: the package put the plugin on disk, nobody added
		 * its plugstack line, so srun never loads it */
		r_fail(r, "Pyxis is installed but not enabled: %s is on disk, but %s has no required/optional line for "
		       "it and srun --help has no --container-image", json_string_value(json_array_get(files, 0)),
		       ps ? ps : "plugstack.conf");
		r_remedy(r, "Enable the plugin: add 'required %s' to %s (or a file under plugstack.conf.d/ it includes) "
			 "on the login and compute nodes, then restart slurmd.", json_string_value(json_array_get(files, 0)),
			 ps ? ps : "plugstack.conf");
	} else if (opt)
		r_warn(r, "srun offers --container-image, but no spank_pyxis line was found in %s (read from this host)",
		       ps ? ps : "plugstack.conf");
	else if (spank)
		r_warn(r, "plugstack.conf loads spank_pyxis, but srun --help has no --container-image: the plugin does "
		       "not load in srun");
	else
		r_warn(r, "no Pyxis: srun has no --container-image and plugstack.conf has no spank_pyxis; containers "
		       "need enroot/Apptainer by hand");
}

/* enroot of one node's containers facts: 1 present, 0 missing, -1 unknown */
static int node_enroot(const json_t *ct, enum col_state st, int *conf)
{
	int bin = 0;
	*conf = 0;
	if (st != COL_OK && st != COL_FAILED)
		return -1;
	if (fact_bool(ct, "enroot.binary", &bin) != 0)
		return -1;
	fact_bool(ct, "enroot.conf", conf);
	return bin;
}

void check_slurm_pyxis_enroot(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx);
	int spank = 0;
	fact_bool(f, "pyxis.spank_pyxis", &spank);
	const char *ps = fact_str(f, "pyxis.plugstack_config");
	r_expectedf(r, "where plugstack.conf enables Pyxis, enroot (its binary and /etc/enroot/enroot.conf) on every "
		    "compute node");
	if (!spank) {
		r_skip(r, "Pyxis is not enabled in %s, so enroot is not needed by it", ps ? ps : "plugstack.conf");
		return;
	}
	struct strbuf missing = STRBUF_INIT, noconf = STRBUF_INIT, unknown = STRBUF_INIT;
	size_t n = fleet_node_count(ctx), nmiss = 0, nunk = 0, nconf = 0, seen = 0;
	for (size_t i = 0; i < (n ? n : 1); i++) {
		enum col_state st;
		int conf;
		const char *name = n ? fleet_node_name(ctx, i) : ctx->hostname;
		json_t *ct = n ? fleet_node_facts(ctx, i, "containers", &st) : facts_get(ctx, "containers", &st);
		int e = n && !fleet_node_answered(ctx, i) ? -1 : node_enroot(ct, st, &conf);
		seen++;
		if (e < 0) {
			sb_addf(&unknown, "%s%s", nunk++ ? "," : "", name ? name : "?");
		} else if (!e) {
			sb_addf(&missing, "%s%s", nmiss++ ? "," : "", name ? name : "?");
		} else if (!conf) {
			sb_addf(&noconf, "%s%s", nconf++ ? "," : "", name ? name : "?");
		}
	}
	r_observedf(r, "plugstack enables spank_pyxis (%s); enroot missing on %zu, without enroot.conf on %zu, "
		    "unknown on %zu of %zu node%s%s", ps ? ps : "plugstack.conf", nmiss, nconf, nunk, seen,
		    seen == 1 ? "" : "s", n ? "" : " (this host: no fleet audit)");
	if (nmiss) {
		r_fail(r, "Pyxis is configured without enroot: no enroot binary on %s; every srun --container-image "
		       "there fails", sb_str(&missing));
		r_remedy(r, "Install enroot (and enroot+caps) on every compute node Pyxis runs on, with "
			 "/etc/enroot/enroot.conf, or remove spank_pyxis from plugstack.conf there.");
	} else if (nconf) {
		r_warn(r, "enroot is installed but /etc/enroot/enroot.conf is missing on %s: enroot runs with its "
		       "built-in defaults (data and cache paths may land on the root file system)", sb_str(&noconf));
	} else if (nunk == seen) {
		r_skip(r, "whether enroot is installed is unknown on %s (the node's container facts were not read)",
		       sb_str(&unknown));
	} else {
		r_pass(r, "Pyxis is enabled and enroot is installed with enroot.conf on %zu node%s%s%s", seen - nunk,
		       seen - nunk == 1 ? "" : "s", nunk ? "; unknown on " : "", sb_str(&unknown));
	}
	sb_free(&missing);
	sb_free(&noconf);
	sb_free(&unknown);
}

void check_slurm_spool(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx);
	const char *path = fact_str(f, "spool.path"), *fstype = fact_str(f, "spool.fstype");
	json_t *df = fact_get(f, "spool.df");
	const char *detail = fact_str(f, "spool.detail");
	if (!path) {
		r_skip(r, "SlurmdSpoolDir unknown");
		return;
	}
	if (!json_is_object(df)) {
		r_observedf(r, "SlurmdSpoolDir=%s (%s)", path, detail ? detail : "not measured");
		r_skip(r, "free space of %s unknown: %s", path, detail ? detail : "not measured");
		return;
	}
	long long avail = -1;
	fact_int(df, "avail_kb", &avail);
	const char *mp = fact_str(f, "spool.mountpoint");
	double gib = (double)avail / (1024.0 * 1024.0);
	double min_gib = threshold(ctx, "slurm.spool_min_free_gib", 1);
	r_observedf(r, "SlurmdSpoolDir=%s on %s (%s), %.1f GiB free (node %s, measured on this host)", path, mp ? mp : "?",
		    fstype ? fstype : "fstype unknown", gib, fact_str(f, "spool.node") ?: "?");
	r_expectedf(r, "the slurmd spool on persistent local disk (not overlay/tmpfs) with >= %.0f GiB free", min_gib);
	int volatile_fs = fstype && (!strcmp(fstype, "overlay") || !strcmp(fstype, "tmpfs") || !strcmp(fstype, "ramfs"));
	if (avail >= 0 && gib < min_gib)
		r_warn(r, "slurmd spool %s has only %.2f GiB free: job scripts and step state cannot be written", path, gib);
	else if (volatile_fs)
		r_warn(r, "slurmd spool %s is on %s: spooled job state lives in RAM or an ephemeral root and is lost on "
		       "reboot", path, fstype);
	else if (avail < 0)
		r_skip(r, "df printed no free space for %s", path);
	else
		r_pass(r, "slurmd spool %s on %s with %.1f GiB free", path, fstype ? fstype : mp ? mp : "disk", gib);
}

void check_slurm_ssh(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx);
	const char *target = fact_str(f, "ssh.target"), *detail = fact_str(f, "ssh.detail");
	int ok = 0, client = 1;
	fact_bool(f, "ssh.ok", &ok);
	fact_bool(f, "ssh.client", &client);
	r_observedf(r, "ssh -o BatchMode=yes %s true: %s", target ? target : "(no node)", ok ? "ok" : detail ? detail : "failed");
	r_expectedf(r, "passwordless SSH from the login node to compute nodes");
	if (!target)
		r_skip(r, "no compute node is up to try SSH against");
	else if (!client)
		r_warn(r, "no ssh client on the login node");
	else if (ok)
		r_pass(r, "passwordless SSH to %s works", target);
	else
		r_warn(r, "no passwordless SSH to %s (%s): tenants cannot debug on their nodes or use SSH-launched MPI",
		       target, detail ? detail : "failed");
}

/* The GPU and fabric module families `module avail` should offer, by the
 * first path component of the module name; the HPC SDK module (nvhpc)
 * carries CUDA, NCCL and HPC-X in one. Appends the missing ones to miss. */
static void lmod_gpu_families(const json_t *f, struct strbuf *miss)
{
	static const struct {
		const char *family, *const names[6];
	} fam[] = {
		{ "CUDA", { "cuda", "cudatoolkit", "nvhpc", NULL } },
		{ "NCCL", { "nccl", "nvhpc", NULL } },
		{ "MPI/HPC-X", { "hpcx", "openmpi", "mpi", "nvhpc", "mvapich2", NULL } },
	};
	for (size_t k = 0; k < sizeof fam / sizeof fam[0]; k++) {
		int found = 0;
		const json_t *d, *v;
		size_t i, j;
		json_array_foreach(fact_get(f, "lmod.module_dirs"), i, d)
			json_array_foreach(json_object_get(d, "names"), j, v)
				for (int m = 0; fam[k].names[m] && !found; m++) {
					const char *s = json_string_value(v);
					size_t n = strlen(fam[k].names[m]);
					found = s && !strncasecmp(s, fam[k].names[m], n) && (!s[n] || s[n] == '-' || s[n] == '/' ||
											 s[n] == '_' || s[n] == '.');
				}
		if (!found)
			sb_addf(miss, "%s%s", miss->len ? ", " : "", fam[k].family);
	}
}

void check_slurm_lmod(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx), *d;
	size_t ninit = json_array_size(fact_get(f, "lmod.init_files"));
	long long modules = 0;
	fact_int(f, "lmod.modules", &modules);
	struct strbuf dirs = STRBUF_INIT;
	size_t i;
	json_array_foreach(fact_get(f, "lmod.module_dirs"), i, d)
		sb_addf(&dirs, "%s%s (%lld)", i ? ", " : "", fact_str(d, "dir"), (long long)json_integer_value(json_object_get(d, "entries")));
	r_observedf(r, "module init: %s; module dirs: %s", ninit ? json_string_value(json_array_get(fact_get(f, "lmod.init_files"), 0)) : "none",
		    dirs.len ? sb_str(&dirs) : "none");
	r_expectedf(r, "Lmod (or Environment Modules) with modules for CUDA, MPI/HPC-X and NCCL");
	struct strbuf miss = STRBUF_INIT;
	lmod_gpu_families(f, &miss);
	if (ninit && modules > 0 && miss.len)
		r_warn(r, "environment modules set up (%lld module%s), but none for %s: `module avail` offers no way "
		       "to load the GPU and fabric stack", modules, modules == 1 ? "" : "s", sb_str(&miss));
	else if (ninit && modules > 0)
		r_pass(r, "environment modules set up: %lld module%s, CUDA, NCCL and MPI/HPC-X among them", modules,
		       modules == 1 ? "" : "s");
	else if (ninit)
		r_warn(r, "Lmod is installed but no modules are published (MODULEPATH empty)");
	else
		r_warn(r, "no Lmod/Environment Modules on the login node%s: users must find CUDA, MPI and NCCL paths "
		       "themselves", modules > 0 ? " (module files exist but nothing loads them)" : "");
	sb_free(&dirs);
	sb_free(&miss);
}

/* ---------- access.slurm-commands ---------- */

/* One client command's outcome as {name, ok, detail}, null when not tried. */
static void slurm_cmd_row(json_t *rows, const char *name, int known, int ok, const char *detail)
{
	json_t *o = json_object();
	json_object_set_new(o, "command", json_string(name));
	json_object_set_new(o, "ok", known ? json_boolean(ok) : json_null());
	json_object_set_new(o, "detail", detail ? json_string(detail) : json_null());
	json_array_append_new(rows, o);
}

void check_slurm_commands(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = slurm_facts(ctx), *rows = json_array(), *row;
	/* scontrol show config answered, or the collector would have failed */
	slurm_cmd_row(rows, "scontrol show config", 1, 1, NULL);
	slurm_cmd_row(rows, "scontrol show node", 1, json_is_array(nodes_of(f)), fact_str(f, "nodes_error"));
	slurm_cmd_row(rows, "sinfo", 1, json_is_array(fact_get(f, "sinfo")), fact_str(f, "sinfo_error"));
	static const char *const clients[][2] = { { "squeue", "squeue" }, { "sbatch", "sbatch --test-only" } };
	for (size_t i = 0; i < sizeof clients / sizeof clients[0]; i++) {
		json_t *c = json_object_get(fact_get(f, "client_commands"), clients[i][0]);
		int ok = 0, known = c && fact_bool(c, "ok", &ok) == 0;
		slurm_cmd_row(rows, clients[i][1], known, ok, c ? fact_str(c, "detail") : NULL);
	}
	int srun_ok = 0, srun_known = fact_bool(f, "srun_true.ok", &srun_ok) == 0;
	slurm_cmd_row(rows, "srun true", srun_known, srun_ok, fact_str(f, "srun_true.detail"));

	struct strbuf bad = STRBUF_INIT, unknown = STRBUF_INIT;
	int nbad = 0, nunknown = 0, nok = 0;
	size_t i;
	json_array_foreach(rows, i, row) {
		const char *name = fact_str(row, "command"), *detail = fact_str(row, "detail");
		json_t *ok = json_object_get(row, "ok");
		if (json_is_null(ok)) {
			list_add(&unknown, &nunknown, name, 6);
		} else if (json_is_false(ok)) {
			char *item = xasprintf("%s (%s)", name, detail ? detail : "failed");
			list_add(&bad, &nbad, item, 6);
			free(item);
		} else {
			nok++;
		}
	}
	json_t *obs = json_object();
	json_object_set_new(obs, "commands", rows);
	r_observed(r, obs);
	r_expectedf(r, "scontrol, sinfo, squeue, sbatch and srun work from the login node");
	if (nbad)
		r_warn(r, "%d of %d Slurm client commands fail: %s", nbad, nbad + nok + nunknown, sb_str(&bad));
	else if (nunknown)
		r_skip(r, "not tried: %s (%d others work)", sb_str(&unknown), nok);
	else
		r_pass(r, "all %d Slurm client commands work (scontrol, sinfo, squeue, sbatch --test-only, srun)", nok);
	sb_free(&bad);
	sb_free(&unknown);
}
