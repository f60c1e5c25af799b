/* Software a tenant needs on a GPU node: NCCL and its configuration, MPI,
 * everyday tools, and profiling access (perf and the two sysctls that gate
 * it). Facts come from the "software" and "sysctl" collectors.
 *
 * The software collector is FAILED when one of its probes broke (perf hung,
 * mpirun crashed); its other facts stay valid, so these checks consult it
 * themselves and only the check whose probe broke reports ERROR. */
#include "checks/common.h"
#include "core/strbuf.h"
#include "policy/minimums.h"
#include "policy/version.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Used when data/minimum-versions.json has no "nccl" component: the floor
 * the public audit applies (NCCL >= 2.21.5). */
#define NCCL_FLOOR_FALLBACK "2.21.5"

/* ---- software.nccl ---- */

void check_sw_nccl(struct audit_ctx *ctx, struct result *r)
{
	char *why;
	int nv;
	json_t *f = chk_nvidia_own_facts(ctx, r, "software", &nv, &why);
	if (!f)
		return;
	json_t *nccl = json_object_get(f, "nccl");
	r_observed(r, json_deep_copy(json_object_get(nccl, "libraries")));
	chk_attach_evidence(ctx, r, "software", "NCCL search");
	int installed = 0;
	fact_bool(nccl, "installed", &installed);
	if (!installed) {
		if (nv > 0)
			r_fail(r, "no NCCL library found on this GPU host (%s)", why);
		else
			r_warn(r, "no NCCL library found (%s)", why);
		r_expectedf(r, "libnccl.so.2 in the linker path or a python nvidia-nccl wheel");
		free(why);
		return;
	}
	free(why);
	const char *ver = fact_str(nccl, "version");
	size_t nlib = json_array_size(json_object_get(nccl, "libraries"));
	const char *where = fact_str(nccl, "libraries.0.path");
	if (!ver) {
		r_warn(r, "NCCL found (%s) but its version could not be read from the file name", where);
		return;
	}

	struct mv_verdict v;
	if (minimums_grade(ctx->minimums, "nccl", ver, NULL, ctx->now, &v) == 0) {
		r_expectedf(r, ">= %s", v.minimum ? v.minimum : "?");
		r_refs_json(r, v.cves);
		r_refs_json(r, v.advisories);
		if (v.status == MV_PASS)
			r_pass(r, "NCCL %s (%zu librar%s): %s", ver, nlib, nlib == 1 ? "y" : "ies", v.detail);
		else if (v.status == MV_FAIL)
			r_warn(r, "NCCL %s is older than %s: %s", ver, v.minimum, v.detail);
		else
			r_warn(r, "NCCL %s could not be graded: %s", ver, v.detail);
		mv_verdict_free(&v);
		return;
	}
	mv_verdict_free(&v);
	int cmp;
	r_expectedf(r, ">= %s", NCCL_FLOOR_FALLBACK);
	if (ver_compare(ver, NCCL_FLOOR_FALLBACK, &cmp) != 0)
		r_warn(r, "NCCL version '%s' could not be compared", ver);
	else if (cmp < 0)
		r_warn(r, "NCCL %s is older than %s (older NCCL lacks fixes and tuning for current GPUs and fabrics)",
		       ver, NCCL_FLOOR_FALLBACK);
	else
		r_pass(r, "NCCL %s found (%zu librar%s, newest graded)", ver, nlib, nlib == 1 ? "y" : "ies");
}

/* ---- software.nccl-conf ---- */

struct conf_finding {
	struct strbuf lines;   /* offending "KEY=VALUE (source)" lines */
	struct strbuf why;
	int n;
};

static void finding(struct conf_finding *cf, const char *key, json_t *set, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void finding(struct conf_finding *cf, const char *key, json_t *set, const char *fmt, ...)
{
	va_list ap;
	sb_addf(&cf->lines, "%s%s=%s (%s)", cf->n ? "; " : "", key,
		json_string_value(json_object_get(set, "value")),
		json_string_value(json_object_get(set, "source")));
	if (cf->n)
		sb_adds(&cf->why, "; ");
	va_start(ap, fmt);
	sb_vaddf(&cf->why, fmt, ap);
	va_end(ap);
	cf->n++;
}

/* Distinct RDMA device names from the collector's port list. */
static json_t *rdma_devices(json_t *ports)
{
	json_t *devs = json_object();
	size_t i;
	json_t *p;
	json_array_foreach(ports, i, p) {
		const char *d = fact_str(p, "device");
		if (d)
			json_object_set_new(devs, d, json_true());
	}
	return devs;
}

static void judge_ib_hca(struct conf_finding *cf, json_t *set, json_t *ports)
{
	const char *val = json_string_value(json_object_get(set, "value"));
	if (!val || *val == '^')
		return; /* an exclusion list does not force anything */
	int exact = *val == '=';
	if (exact)
		val++;
	if (!json_is_array(ports) || json_array_size(ports) == 0) {
		finding(cf, "NCCL_IB_HCA", set, "NCCL_IB_HCA forces a device list that could not be checked (this host's RDMA devices could not be listed)");
		return;
	}
	json_t *devs = rdma_devices(ports);
	json_t *matched = json_object();
	struct strbuf missing = STRBUF_INIT;
	char *list = xstrdup(val);
	for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		tok[strcspn(tok, ":")] = 0; /* "mlx5_0:1" -> device */
		tok = str_trim(tok);
		if (!*tok)
			continue;
		int hit = 0;
		const char *d;
		json_t *v;
		json_object_foreach(devs, d, v) {
			/* NCCL matches by prefix unless the list starts with '=' */
			if (exact ? strcmp(d, tok) == 0 : str_starts(d, tok)) {
				json_object_set_new(matched, d, json_true());
				hit = 1;
			}
		}
		if (!hit)
			sb_addf(&missing, "%s%s", missing.len ? ", " : "", tok);
	}
	free(list);
	size_t nd = json_object_size(devs), nm = json_object_size(matched);
	if (missing.len)
		finding(cf, "NCCL_IB_HCA", set, "NCCL_IB_HCA names HCAs that do not exist here (%s)", sb_str(&missing));
	else if (nm == 1 && nd > 1)
		finding(cf, "NCCL_IB_HCA", set, "NCCL_IB_HCA restricts NCCL to 1 of %zu RDMA devices (one rail)", nd);
	sb_free(&missing);
	json_decref(matched);
	json_decref(devs);
}

static int is_link_local_gid(const char *g)
{
	return g && (str_starts(g, "fe80:") || str_starts(g, "FE80:"));
}

static void judge_gid_index(struct conf_finding *cf, json_t *set, json_t *ports)
{
	const char *val = json_string_value(json_object_get(set, "value"));
	char *end;
	long idx = val ? strtol(val, &end, 10) : -1;
	if (!val || end == val || *end)
		return;
	size_t i;
	json_t *p;
	int eth = 0, ib = 0;
	json_array_foreach(ports, i, p) {
		const char *ll = fact_str(p, "link_layer");
		const char *g = fact_str(p, "gid");
		if (ll && strcmp(ll, "InfiniBand") == 0) {
			ib++;
			continue;
		}
		if (ll && strcmp(ll, "Ethernet") == 0)
			eth++;
		if (is_link_local_gid(g)) {
			finding(cf, "NCCL_IB_GID_INDEX", set,
				"NCCL_IB_GID_INDEX=%ld is a link-local address on %s port %s (%s), so NCCL hangs or fails across subnets (a routable RoCE v2 index, usually 3, is expected)",
				idx, fact_str(p, "device"), fact_str(p, "port"), g);
			return;
		}
	}
	if (eth == 0 && ib > 0)
		return; /* InfiniBand: the GID index only matters for routed subnets */
	if (idx <= 1)
		finding(cf, "NCCL_IB_GID_INDEX", set,
			"NCCL_IB_GID_INDEX=%ld is the link-local (fe80::) entry on RoCE ports%s (a routable RoCE v2 index, usually 3, is expected)",
			idx, eth ? "" : ", not confirmed because the GID table could not be read");
}

static void judge_socket_ifname(struct conf_finding *cf, json_t *set)
{
	const char *val = json_string_value(json_object_get(set, "value"));
	if (!val || *val == '^')
		return;
	static const char *const bad[] = { "lo", "docker", "virbr", "veth", NULL };
	char *list = xstrdup(*val == '=' ? val + 1 : val);
	for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		tok = str_trim(tok);
		for (int i = 0; bad[i]; i++)
			if (str_starts(tok, bad[i])) {
				finding(cf, "NCCL_SOCKET_IFNAME", set,
					"NCCL_SOCKET_IFNAME selects %s, a loopback or container bridge that reaches no other node",
					tok);
				free(list);
				return;
			}
	}
	free(list);
}

void check_sw_nccl_conf(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "software");
	if (!f)
		return;
	json_t *conf = json_object_get(f, "nccl_conf");
	json_t *eff = json_object_get(conf, "effective");
	json_t *ports = json_object_get(conf, "rdma_ports");
	size_t i;
	json_t *fo;
	json_array_foreach(json_object_get(conf, "files"), i, fo)
		chk_attach_evidence(ctx, r, "software", fact_str(fo, "path"));
	r_observed(r, json_deep_copy(eff));
	r_expectedf(r, "no overrides that force a wrong HCA, a link-local GID, a local interface or disable the net plugin");
	if (!json_object_size(eff)) {
		r_pass(r, "no NCCL overrides (no nccl.conf settings, no NCCL_* in the environment)");
		return;
	}

	struct conf_finding cf = { STRBUF_INIT, STRBUF_INIT, 0 };
	json_t *set;
	if ((set = json_object_get(eff, "NCCL_IB_HCA")))
		judge_ib_hca(&cf, set, ports);
	if ((set = json_object_get(eff, "NCCL_IB_GID_INDEX")))
		judge_gid_index(&cf, set, ports);
	if ((set = json_object_get(eff, "NCCL_SOCKET_IFNAME")))
		judge_socket_ifname(&cf, set);
	if ((set = json_object_get(eff, "NCCL_NET_PLUGIN"))) {
		const char *v = json_string_value(json_object_get(set, "value"));
		if (v && (!*v || strcasecmp(v, "none") == 0))
			finding(&cf, "NCCL_NET_PLUGIN", set,
				"NCCL_NET_PLUGIN disables the network plugin (the provider's tuned transport is not used)");
	}
	if ((set = json_object_get(eff, "NCCL_IB_DISABLE"))) {
		const char *v = json_string_value(json_object_get(set, "value"));
		if (v && strcmp(v, "1") == 0 && json_array_size(ports) > 0)
			finding(&cf, "NCCL_IB_DISABLE", set,
				"NCCL_IB_DISABLE=1 on a host with RDMA devices makes NCCL fall back to TCP sockets");
	}
	if (cf.n) {
		r_warn(r, "%d NCCL override%s likely to hurt: %s", cf.n, cf.n == 1 ? "" : "s", sb_str(&cf.why));
		r_evidence_note(r, "offending settings: %s", sb_str(&cf.lines));
	} else {
		r_pass(r, "%zu NCCL setting%s, none known to hurt", json_object_size(eff),
		       json_object_size(eff) == 1 ? "" : "s");
	}
	sb_free(&cf.lines);
	sb_free(&cf.why);
}

/* ---- software.mpi ---- */

void check_sw_mpi(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "software");
	if (!f)
		return;
	json_t *mpi = json_object_get(f, "mpi");
	r_observed(r, json_deep_copy(mpi));
	const char *probe = fact_str(mpi, "probe");
	const char *hpcx = fact_str(mpi, "hpcx_installs.0");
	r_expectedf(r, "mpirun on PATH (HPC-X or Open MPI)");
	if (probe && strcmp(probe, "absent") != 0) {
		chk_attach_evidence(ctx, r, "software", "mpirun");
		if (strcmp(probe, "ok") == 0) {
			const char *fl = fact_str(mpi, "flavor");
			r_pass(r, "mpirun on PATH (%s %s)%s", fl ? fl : "MPI", fact_str(mpi, "version"),
			       hpcx ? "; HPC-X installed" : "");
		} else if (strcmp(probe, "unrunnable") == 0) {
			r_warn(r, "mpirun is on PATH but does not run: %s", fact_str(mpi, "error"));
		} else {
			r_error(r, "probe failed: %s", fact_str(mpi, "error"));
		}
		return;
	}
	if (hpcx) {
		r_warn(r, "HPC-X installed but not on PATH (%s)", hpcx);
		r_remedy(r, "load it in login and batch shells: `source %s/hpcx-init.sh && hpcx_load`, or provide an hpcx module", hpcx);
		return;
	}
	r_warn(r, "no MPI found (no mpirun on PATH, no HPC-X under /opt)");
}

/* ---- software.basic-tools ---- */

void check_sw_basic_tools(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "software");
	if (!f)
		return;
	json_t *t = json_object_get(f, "tools");
	struct strbuf have = STRBUF_INIT, miss = STRBUF_INIT;
	static const char *const groups[][5] = {
		{ "git", NULL },
		{ "pip3", "pip", NULL },
		{ "vim", "vi", "nano", "emacs", NULL },
	};
	static const char *const group_name[] = { "git", "pip (pip or pip3)", "an editor (vim, vi, nano or emacs)" };
	for (size_t g = 0; g < 3; g++) {
		const char *found = NULL;
		for (int k = 0; groups[g][k] && !found; k++)
			if (json_is_true(json_object_get(t, groups[g][k])))
				found = groups[g][k];
		if (found)
			sb_addf(&have, "%s%s", have.len ? ", " : "", found);
		else
			sb_addf(&miss, "%s%s", miss.len ? ", " : "", group_name[g]);
	}
	r_observed(r, json_deep_copy(t));
	r_expectedf(r, "git, pip or pip3, and an editor on PATH");
	if (miss.len)
		r_warn(r, "missing from PATH: %s", sb_str(&miss));
	else
		r_pass(r, "%s on PATH", sb_str(&have));
	sb_free(&have);
	sb_free(&miss);
}

/* ---- software.perf ---- */

void check_sw_perf(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "software");
	if (!f)
		return;
	json_t *perf = json_object_get(f, "perf");
	const char *probe = fact_str(perf, "probe");
	r_observed(r, json_deep_copy(perf));
	r_expectedf(r, "perf on PATH and `perf --version` runs");
	chk_attach_evidence(ctx, r, "software", "perf");
	if (!probe || strcmp(probe, "absent") == 0)
		r_warn(r, "perf is not installed (not on PATH)");
	else if (strcmp(probe, "ok") == 0)
		r_pass(r, "perf %s runs", fact_str(perf, "version"));
	else if (strcmp(probe, "unrunnable") == 0)
		r_warn(r, "perf is on PATH but does not run: %s", fact_str(perf, "error"));
	else
		r_error(r, "probe failed: %s", fact_str(perf, "error"));
}

/* ---- profiling sysctls ---- */

static int sysctl_value(struct audit_ctx *ctx, struct result *r, const char *key, long long *v)
{
	json_t *f = facts_get(ctx, "sysctl", NULL);
	const char *path = json_string_value(json_object_get(json_object_get(f, "paths"), key));
	if (fact_int(f, key, v) == 0)
		return 0;
	const char *err = json_string_value(json_object_get(json_object_get(f, "errors"), key));
	r_skip(r, "could not read %s: %s", path ? path : key, err ? err : "unknown reason");
	return -1;
}

/* perf_event_paranoid: -1..2 are upstream levels, 2 (the default) still
 * lets a user profile their own processes in user space, which is what
 * perf record -e cycles:u, Nsight Systems CPU sampling and py-spy-style
 * tools need. 3 and 4 are Debian/Ubuntu patches that refuse
 * perf_event_open to unprivileged users entirely. The public audit warns
 * above 1; that flags every stock upstream kernel, so the line is drawn at
 * 2 here (data/thresholds.json software.perf_event_paranoid_max). The
 * check does not depend on perf being installed: Nsight tools hit the
 * same wall. */
void check_sw_perf_event_paranoid(struct audit_ctx *ctx, struct result *r)
{
	long long v;
	if (sysctl_value(ctx, r, "perf_event_paranoid", &v))
		return;
	long long max = (long long)threshold(ctx, "software.perf_event_paranoid_max", 2);
	r_observedf(r, "%lld", v);
	r_expectedf(r, "<= %lld", max);
	if (v <= max)
		r_pass(r, "kernel.perf_event_paranoid=%lld allows user-space profiling", v);
	else
		r_warn(r, "kernel.perf_event_paranoid=%lld blocks unprivileged profiling (perf, Nsight Systems CPU sampling)", v);
}

void check_sw_kptr_restrict(struct audit_ctx *ctx, struct result *r)
{
	long long v;
	if (sysctl_value(ctx, r, "kptr_restrict", &v))
		return;
	r_observedf(r, "%lld", v);
	r_expectedf(r, "0");
	if (v <= 0)
		r_pass(r, "kernel.kptr_restrict=0: kernel symbols resolve in perf profiles");
	else
		r_warn(r, "kernel.kptr_restrict=%lld hides kernel symbol addresses from %s: kernel frames in perf profiles stay unresolved",
		       v, v >= 2 ? "every user, root included" : "non-root users");
}
