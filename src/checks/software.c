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

/* ---- software.nccl-net-plugin ---- */

/* "AWS Libfabric", "gIB", ...: NCCL_NET names a network module; IB and
 * Socket are NCCL's own, anything else comes from a plugin. */
static int builtin_net(const char *v)
{
	return !strcasecmp(v, "IB") || !strcasecmp(v, "Socket");
}

/* A plugin whose path holds one of the needles. */
static const char *plugin_with(json_t *plugins, const char *const *needles)
{
	size_t i;
	json_t *p;
	json_array_foreach(plugins, i, p) {
		const char *s = json_string_value(p);
		for (int k = 0; s && needles[k]; k++)
			if (strstr(s, needles[k]))
				return s;
	}
	return NULL;
}

/* AWS with EFA devices (rdmapNsM RDMA devices, or an EFA function on the
 * PCI bus: vendor 0x1d0f device 0xefaN). */
static int aws_efa(struct audit_ctx *ctx)
{
	json_t *net = facts_get(ctx, "network", NULL), *pci = facts_get(ctx, "pci", NULL), *d;
	size_t i;
	json_array_foreach(fact_get(net, "hcas"), i, d)
		if (fact_str(d, "name") && str_starts(fact_str(d, "name"), "rdmap"))
			return 1;
	json_array_foreach(fact_get(pci, "devices"), i, d) {
		const char *v = fact_str(d, "vendor"), *dv = fact_str(d, "device"), *drv = fact_str(d, "driver");
		if ((v && dv && !strcmp(v, "0x1d0f") && str_starts(dv, "0xefa")) || (drv && !strcmp(drv, "efa")))
			return 1;
	}
	return 0;
}

/* GCP with RDMA NICs: A3 Ultra and A4 (RoCE through gIB); A3 High/Mega
 * have no RDMA devices (GPUDirect-TCPX/TCPXO) and are not graded here. */
static int gcp_rdma(struct audit_ctx *ctx)
{
	const char *prod = fact_str(facts_get(ctx, "os", NULL), "dmi.product_name");
	long long n = 0;
	return prod && !strcmp(prod, "Google Compute Engine") &&
	       fact_int(facts_get(ctx, "network", NULL), "hca_count", &n) == 0 && n > 0;
}

/* The provider's plugin on the clouds whose fabric needs one: 1 when this
 * host is one, with a finding in bad or ok. */
static int provider_plugins(struct audit_ctx *ctx, json_t *net, struct strbuf *bad, struct strbuf *ok, int *nbad)
{
	json_t *plugins = json_object_get(net, "plugins");
	int need = 0;
	if (aws_efa(ctx)) {
		need = 1;
		static const char *const ofi[] = { "/opt/amazon/ofi-nccl/", "/opt/aws-ofi-nccl/", "libnccl-net-ofi",
						   "libnccl-net-aws-ofi", NULL };
		const char *p = plugin_with(plugins, ofi);
		if (p) {
			sb_addf(ok, "%saws-ofi-nccl %s for EFA", ok->len ? "; " : "", p);
		} else {
			(*nbad)++;
			sb_addf(bad, "%sAWS EFA devices but no aws-ofi-nccl plugin (libnccl-net-ofi.so under "
				"/opt/amazon/ofi-nccl): NCCL falls back to TCP sockets", bad->len ? "; " : "");
		}
	}
	if (gcp_rdma(ctx)) {
		need = 1;
		static const char *const gib[] = { "/usr/local/gib/", "gib", NULL };
		const char *p = plugin_with(plugins, gib);
		if (p) {
			sb_addf(ok, "%sgIB %s", ok->len ? "; " : "", p);
		} else {
			(*nbad)++;
			sb_addf(bad, "%sGoogle Compute Engine with RDMA NICs (A3 Ultra / A4) but no gIB NCCL plugin "
				"under /usr/local/gib%s", bad->len ? "; " : "",
				json_is_true(json_object_get(net, "gib_dir")) ? " (the directory exists, the plugin does not)" : "");
		}
	}
	return need;
}

void check_sw_nccl_net_plugin(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "software");
	if (!f)
		return;
	json_t *net = json_object_get(f, "nccl_net"), *plugins = json_object_get(net, "plugins");
	json_t *sel = json_object_get(net, "selected");
	json_t *eff = fact_get(f, "nccl_conf.effective");
	const char *nnet = fact_str(eff, "NCCL_NET.value"), *nsrc = fact_str(eff, "NCCL_NET.source");
	chk_attach_evidence(ctx, r, "software", "NCCL net plugins");
	json_t *obs = json_object();
	json_object_set(obs, "plugins", plugins);
	json_object_set(obs, "NCCL_NET_PLUGIN", sel ? sel : json_null());
	json_object_set_new(obs, "NCCL_NET", nnet ? json_string(nnet) : json_null());
	r_observed(r, obs);
	r_ref(r, "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-net-plugin");
	struct strbuf bad = STRBUF_INIT, ok = STRBUF_INIT;
	int nbad = 0;
	if (sel) {
		const char *found = fact_str(sel, "found");
		if (found) {
			sb_addf(&ok, "NCCL_NET_PLUGIN=%s loads %s", fact_str(sel, "value"), found);
		} else {
			nbad++;
			sb_addf(&bad, "NCCL_NET_PLUGIN=%s (%s) selects %s, which is in none of the %zu loader and provider "
				"directories", fact_str(sel, "value"), fact_str(eff, "NCCL_NET_PLUGIN.source"),
				fact_str(sel, "library"), json_array_size(json_object_get(net, "dirs")));
		}
	}
	if (nnet && !builtin_net(nnet) && !json_array_size(plugins)) {
		nbad++;
		sb_addf(&bad, "%sNCCL_NET=%s (%s) names a plugin network but no libnccl-net*.so is installed",
			bad.len ? "; " : "", nnet, nsrc);
	}
	int need = provider_plugins(ctx, net, &bad, &ok, &nbad);
	r_expectedf(r, "every configured NCCL net plugin installed, and the provider's plugin where the fabric needs one");
	if (nbad) {
		r_fail(r, "%s", sb_str(&bad));
		r_remedy(r, "Install the plugin the configuration or the provider needs (AWS: the EFA installer's "
			 "aws-ofi-nccl in /opt/amazon/ofi-nccl; GCP A3 Ultra/A4: the gIB package in /usr/local/gib and "
			 "its set_nccl_env.sh; HPC-X: ncclnet_plugin) and put its lib directory in ld.so.conf.d, or "
			 "remove the NCCL_NET/NCCL_NET_PLUGIN setting.");
	} else if (ok.len) {
		r_pass(r, "%s", sb_str(&ok));
	} else if (need) {
		r_pass(r, "the provider's plugin is installed");
	} else {
		r_skip(r, "not applicable: no NCCL net plugin configured (NCCL_NET_PLUGIN, NCCL_NET) and no provider "
		       "fabric that needs one (AWS EFA, GCP gIB)");
	}
	sb_free(&bad);
	sb_free(&ok);
}

/* ---- containers.nccl-topo-file ---- */

/* The container path where an enroot mount puts host file path, malloc'd,
 * or NULL: a mount of the file itself or of a directory above it. */
static char *mounted_as(json_t *mounts, const char *path)
{
	size_t i;
	json_t *m;
	json_array_foreach(mounts, i, m) {
		const char *src = fact_str(m, "source"), *dst = fact_str(m, "target");
		if (!src || !dst || *src != '/')
			continue;
		size_t n = strlen(src);
		while (n > 1 && src[n - 1] == '/')
			n--;
		if (!strncmp(path, src, n) && (path[n] == 0 || path[n] == '/' || n == 1))
			return xasprintf("%s%s", dst, path + n);
	}
	return NULL;
}

void check_ct_nccl_topo_file(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "software");
	if (!f)
		return;
	json_t *t = json_object_get(f, "nccl_topo"), *files = json_object_get(t, "files"), *v;
	const char *setting = fact_str(t, "topo_file_setting"), *ssrc = fact_str(t, "topo_file_source");
	r_observed(r, json_deep_copy(t));
	r_ref(r, "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-topo-file");
	r_ref(r, "https://github.com/NVIDIA/enroot/blob/master/doc/configuration.md (mounts.d, environ.d)");
	if (!json_array_size(files)) {
		if (setting)
			r_warn(r, "NCCL_TOPO_FILE=%s (%s) names a file that does not exist on this host", setting, ssrc);
		else
			r_skip(r, "not applicable: no NCCL topology file on the host (/etc/nccl/*.xml, NCCL_TOPO_FILE)");
		return;
	}
	int enroot = 0;
	if (fact_bool(t, "enroot", &enroot) != 0 || !enroot) {
		r_skip(r, "not applicable: no enroot here (Pyxis containers), so no container mount configuration to check");
		return;
	}
	chk_attach_evidence(ctx, r, "software", "/etc/enroot/mounts.d");
	json_t *mounts = json_object_get(t, "enroot_mounts");
	struct strbuf miss = STRBUF_INIT, ok = STRBUF_INIT;
	size_t i;
	json_array_foreach(files, i, v) {
		char *in = mounted_as(mounts, json_string_value(v));
		if (in)
			sb_addf(&ok, "%s%s as %s", ok.len ? ", " : "", json_string_value(v), in);
		else
			sb_addf(&miss, "%s%s", miss.len ? ", " : "", json_string_value(v));
		free(in);
	}
	/* the host's /etc/nccl.conf stays outside the container: a setting
	 * made there reaches it only through environ.d or a mount of the file */
	int env_lost = setting && ssrc && strcmp(ssrc, "environment") && !json_array_size(json_object_get(t, "enroot_env"));
	if (env_lost) {
		char *in = mounted_as(mounts, ssrc);
		env_lost = in == NULL;
		free(in);
	}
	r_expectedf(r, "every host topology file mounted into Pyxis/enroot containers (mounts.d) and NCCL_TOPO_FILE set there (environ.d)");
	if (miss.len || env_lost) {
		r_warn(r, "%s%s%s%s%s", miss.len ? "host NCCL topology file not mounted into enroot containers: " : "",
		       sb_str(&miss), miss.len && env_lost ? "; " : "",
		       env_lost ? "NCCL_TOPO_FILE is set only in " : "", env_lost ? ssrc : "");
		r_remedy(r, "Add an enroot mount (/etc/enroot/mounts.d/50-nccl-topo.fstab: '%s %s none x-create=file,bind,ro,nosuid,nodev,noexec') "
			 "and NCCL_TOPO_FILE=<that path> in /etc/enroot/environ.d/50-nccl.env, so NCCL inside the container "
			 "sees the same PCIe/NIC topology as the host (on VMs the virtual topology is wrong without it).",
			 miss.len ? json_string_value(json_array_get(files, 0)) : setting,
			 miss.len ? json_string_value(json_array_get(files, 0)) : setting);
	} else {
		r_pass(r, "host NCCL topology mounted into enroot containers: %s", sb_str(&ok));
	}
	sb_free(&miss);
	sb_free(&ok);
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

/* ---- software.cuda-default: /usr/local/cuda is the newest toolkit ---- */

void check_sw_cuda_default(struct audit_ctx *ctx, struct result *r)
{
	enum col_state st;
	json_t *f = facts_get(ctx, "cuda", &st);
	const json_t *tks = fact_get(f, "toolkits");
	if (st == COL_ABSENT || !json_array_size(tks)) {
		r_skip(r, "no CUDA toolkit under /usr/local/cuda*: nothing to choose a default from");
		return;
	}
	size_t n = json_array_size(tks);
	/* the collector lists toolkits oldest first */
	const json_t *newest = json_array_get(tks, n - 1);
	const char *nv = fact_str(newest, "version"), *np = fact_str(newest, "path");
	const char *def = fact_str(f, "default_toolkit"), *dv = fact_str(f, "default_toolkit_version");
	struct strbuf all = STRBUF_INIT;
	const json_t *t;
	const char *unversioned = NULL;
	size_t i;
	json_array_foreach(tks, i, t) {
		sb_addf(&all, "%s%s (%s)", i ? ", " : "", fact_str(t, "path"),
			fact_str(t, "version") ? fact_str(t, "version") : "version unknown");
		if (!fact_str(t, "version"))
			unversioned = fact_str(t, "path");
	}
	r_observedf(r, "/usr/local/cuda -> %s (CUDA %s); installed: %s", def ? def : "(no link)", dv ? dv : "?",
		    sb_str(&all));
	r_expectedf(r, "/usr/local/cuda points at the newest installed toolkit (CUDA %s, %s)", nv ? nv : "?", np);
	int cmp = 0;
	if (unversioned) {
		/* an unread version could be the newest: no verdict on the default */
		r_skip(r, "the CUDA version of %s is unknown (no readable version.json or version.txt), so which "
		       "toolkit is newest is unknown", unversioned);
	} else if (!def) {
		r_warn(r, "no /usr/local/cuda: %zu toolkit%s installed (newest CUDA %s at %s), but builds that look "
		       "for the default (CMake, CUDA_HOME-less setups) find none", n, n == 1 ? "" : "s", nv ? nv : "?", np);
		r_remedy(r, "Link /usr/local/cuda to the newest toolkit (update-alternatives --set cuda %s).", np);
	} else if (!dv || !nv || ver_compare(dv, nv, &cmp) != 0) {
		r_skip(r, "the version of the default toolkit %s or of the newest one is unknown, so they cannot be "
		       "compared", def);
	} else if (cmp < 0) {
		r_warn(r, "/usr/local/cuda points at CUDA %s (%s) while CUDA %s is installed at %s: builds and jobs "
		       "that use the default get the older toolkit", dv, def, nv, np);
		r_remedy(r, "Point /usr/local/cuda at the newest toolkit (update-alternatives --set cuda %s, or "
			 "ln -sfn %s /usr/local/cuda) and remove toolkits nobody needs.", np, np);
	} else {
		r_pass(r, "/usr/local/cuda is CUDA %s (%s)%s", dv, def, n > 1 ? ", the newest installed" : ", the only toolkit");
	}
	sb_free(&all);
}

/* ---- software.hpc-sdk: NVIDIA HPC SDK within the release window ---- */

void check_sw_hpc_sdk(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "software", NULL);
	const json_t *h = fact_get(f, "hpc_sdk");
	const char *newest = fact_str(h, "newest");
	struct strbuf all = STRBUF_INIT;
	const json_t *e;
	size_t i;
	json_array_foreach(fact_get(h, "installs"), i, e)
		sb_addf(&all, "%s%s (%s%s)", i ? ", " : "", fact_str(e, "version"), fact_str(e, "arch"),
			json_is_true(json_object_get(e, "compilers")) ? "" : ", no nvc++");
	r_observedf(r, "/opt/nvidia/hpc_sdk: %s", all.len ? sb_str(&all) : "no release directory");
	sb_free(&all);
	if (!newest) {
		r_skip(r, "no NVIDIA HPC SDK under /opt/nvidia/hpc_sdk/<arch>/<release>/ (nvc, nvc++, nvfortran "
		       "are not installed here)");
		return;
	}
	struct mv_verdict v;
	minimums_grade(ctx->minimums, "nvhpc", newest, NULL, ctx->now, &v);
	r_expectedf(r, "the HPC SDK release window of the minimum table (%s)", v.minimum ? v.minimum : "unavailable");
	if (v.status == MV_PASS) {
		r_pass(r, "NVIDIA HPC SDK %s: %s", newest, v.detail);
	} else if (v.status == MV_FAIL) {
		/* a release window, not a security floor: an old compiler costs
		 * features and fixes, not safety */
		r_warn(r, "NVIDIA HPC SDK %s is outside the release window: %s", newest, v.detail);
		r_remedy(r, "Install the current HPC SDK (nvhpc-%s packages or the tarball under /opt/nvidia/hpc_sdk) "
			 "and its modulefile.", v.minimum ? v.minimum : "current");
	} else {
		r_skip(r, "NVIDIA HPC SDK %s could not be graded: %s", newest, v.detail ? v.detail : "no window in the table");
	}
	r_refs_json(r, v.advisories);
	mv_verdict_free(&v);
}
