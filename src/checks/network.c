/* RDMA fabric checks: ConnectX firmware against the table, port state,
 * HCA naming and the operstate of fabric/storage netdevs. */
#include "checks/common.h"
#include "collect/collector.h"
#include "core/strbuf.h"
#include "parse/hostconf.h"
#include "parse/rdma_gid.h"
#include "policy/minimums.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static enum status worse(enum status a, enum status b)
{
	static const int rank[ST__COUNT] = { [ST_PASS] = 0, [ST_SKIP] = 1, [ST_WARN] = 2, [ST_ERROR] = 3, [ST_FAIL] = 4 };
	return rank[b] > rank[a] ? b : a;
}

/* The HCAs graded so far. */
struct cx_grade {
	json_t *devs;
	json_t *groups; /* "fw < floor" -> the devices on it */
	enum status st;
	int n, nfail, nunk;
	struct strbuf unk;
	char *floor; /* the first floor a passing HCA met, for the summary */
};

static void cx_grade_hca(struct audit_ctx *ctx, struct result *r, const json_t *h, struct cx_grade *g)
{
	const char *name = fact_str(h, "name"), *fw = fact_str(h, "fw_ver");
	struct mv_verdict v;
	minimums_grade(ctx->minimums, "connectxFirmware", fw, NULL, ctx->now, &v);
	json_t *d = json_object();
	fact_set_str(d, "device", name);
	fact_set_str(d, "hca_type", fact_str(h, "hca_type"));
	fact_set_str(d, "board_id", fact_str(h, "board_id"));
	fact_set_str(d, "fw_ver", fw);
	fact_set_str(d, "status", mv_status_name(v.status));
	fact_set_str(d, "minimum", v.minimum);
	fact_set_str(d, "detail", v.detail);
	json_array_append_new(g->devs, d);
	switch (v.status) {
	case MV_FAIL: {
		g->nfail++;
		g->st = worse(g->st, ST_FAIL);
		/* group devices on the same firmware: a fleet flashes them together */
		char *k = xasprintf("%s < %s", fw, v.minimum ? v.minimum : "?");
		json_t *grp = json_object_get(g->groups, k);
		if (!grp) {
			grp = json_array();
			json_object_set_new(g->groups, k, grp);
		}
		json_array_append_new(grp, json_string(name));
		free(k);
		r_refs_json(r, v.cves);
		r_refs_json(r, v.advisories);
		break;
	}
	case MV_UNKNOWN:
		g->nunk++;
		g->st = worse(g->st, ST_WARN);
		sb_addf(&g->unk, "%s%s %s", g->unk.len ? ", " : "", name, fw ? fw : "(fw_ver unreadable)");
		break;
	default:
		if (!g->floor && v.minimum)
			g->floor = xstrdup(v.minimum);
		break;
	}
	mv_verdict_free(&v);
}

/* "a, b at fw < floor; c at ..." */
static void cx_groups_text(const json_t *groups, struct strbuf *bad)
{
	const char *gk;
	json_t *gv;
	json_object_foreach((json_t *)groups, gk, gv) {
		size_t gi;
		json_t *nm;
		sb_addf(bad, "%s", bad->len ? "; " : "");
		json_array_foreach(gv, gi, nm)
			sb_addf(bad, "%s%s", gi ? ", " : "", json_string_value(nm));
		sb_addf(bad, " at %s", gk);
	}
}

void check_net_connectx_fw(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "network", NULL), *h;
	size_t i;
	struct strbuf bad = STRBUF_INIT;

	if (!ctx->minimums) {
		r_warn(r, "ConnectX firmware read but not graded: cmax's minimum-version table is unavailable (%s). "
		       "This is a cmax installation problem, not the provider's",
		       ctx->minimums_error ? ctx->minimums_error : "no reason recorded");
		return;
	}
	struct cx_grade g = { .devs = json_array(), .groups = json_object(), .st = ST_PASS, .unk = STRBUF_INIT };
	json_array_foreach(fact_get(f, "hcas"), i, h) {
		int mlx = 0;
		if (fact_bool(h, "mellanox", &mlx) != 0 || !mlx)
			continue;
		g.n++;
		cx_grade_hca(ctx, r, h, &g);
	}
	cx_groups_text(g.groups, &bad);
	json_decref(g.groups);
	if (!g.n) {
		json_decref(g.devs);
		sb_free(&bad);
		sb_free(&g.unk);
		r_skip(r, "not applicable: no Mellanox/NVIDIA ConnectX or BlueField HCA");
		return;
	}
	r_observed(r, g.devs);
	r_expectedf(r, "each HCA at or above the floor of its firmware train (connectxFirmware trainMap)");
	if (g.st == ST_FAIL) {
		r_fail(r, "%d of %d ConnectX HCAs run firmware below their train's floor: %s", g.nfail, g.n, sb_str(&bad));
		r_remedy(r, "Update the HCA firmware (mlxfwmanager --online -u, or the OEM package) to the fixed "
			 "release of its train, then reset the HCA (mlxfwreset) or reboot.");
	} else if (g.st == ST_WARN) {
		r_warn(r, "%d of %d ConnectX HCAs could not be graded: %s", g.nunk, g.n, sb_str(&g.unk));
	} else {
		if (g.floor)
			r_pass(r, "all %d ConnectX HCAs meet the firmware floor of their train (e.g. >= %s)", g.n, g.floor);
		else
			r_pass(r, "all %d ConnectX HCAs meet the firmware floor of their train", g.n);
	}
	free(g.floor);
	sb_free(&bad);
	sb_free(&g.unk);
}

static int port_up(json_t *p)
{
	const char *s = fact_str(p, "state"), *ph = fact_str(p, "phys_state");
	return s && strcmp(s, "ACTIVE") == 0 && (!ph || strcmp(ph, "LinkUp") == 0);
}

/* A port whose state file was unreadable or held no state the kernel
 * prints: neither up nor down. (An ACTIVE port with an unreadable
 * phys_state is up: ACTIVE needs the physical link.) */
static int port_unknown(json_t *p)
{
	return !fact_str(p, "state");
}

/* The RDMA ports by state. */
struct rdma_ports {
	json_t *obs;
	json_t *kinds; /* "link_layer rate" -> how many ports up */
	struct strbuf down_nd, down_other, unk;
	int nports, nup, fail, warn, nunk;
};

/* One port: into the observation, and counted as up, unknown, or down
 * (a failure where the HCA has a netdev, a warning where it has none). */
static void rdma_port(const json_t *h, json_t *p, struct rdma_ports *rp)
{
	const char *name = fact_str(h, "name");
	int has_nd = json_array_size(fact_get(h, "netdevs")) > 0;
	rp->nports++;
	json_t *o = json_object();
	fact_set_str(o, "hca", name);
	json_object_set(o, "port", json_object_get(p, "port"));
	fact_set_str(o, "state", fact_str(p, "state"));
	fact_set_str(o, "phys_state", fact_str(p, "phys_state"));
	fact_set_str(o, "link_layer", fact_str(p, "link_layer"));
	fact_set_str(o, "rate", fact_str(p, "rate"));
	json_object_set(o, "netdevs", fact_get(h, "netdevs"));
	json_array_append_new(rp->obs, o);
	char *tag = xasprintf("%s/%lld %s/%s", name, (long long)json_integer_value(json_object_get(p, "port")),
			      fact_str(p, "state") ?: "?", fact_str(p, "phys_state") ?: "?");
	if (port_up(p)) {
		rp->nup++;
		char *kind = xasprintf("%s %s", fact_str(p, "link_layer") ?: "?", fact_str(p, "rate") ?: "rate ?");
		json_t *c = json_object_get(rp->kinds, kind);
		json_object_set_new(rp->kinds, kind, json_integer(c ? json_integer_value(c) + 1 : 1));
		free(kind);
	} else if (port_unknown(p)) {
		rp->nunk++;
		sb_addf(&rp->unk, "%s%s/%lld", rp->unk.len ? ", " : "", name,
			(long long)json_integer_value(json_object_get(p, "port")));
	} else if (has_nd) {
		rp->fail++;
		sb_addf(&rp->down_nd, "%s%s", rp->down_nd.len ? ", " : "", tag);
	} else {
		rp->warn++;
		sb_addf(&rp->down_other, "%s%s", rp->down_other.len ? ", " : "", tag);
	}
	free(tag);
}

static void rdma_verdict(struct result *r, struct rdma_ports *rp, size_t nh, struct strbuf *sum)
{
	if (!rp->nports) {
		r_warn(r, "%zu RDMA devices but no ports readable under /sys/class/infiniband/*/ports", nh);
	} else if (rp->fail) {
		r_fail(r, "%d of %d RDMA ports are not ACTIVE/LinkUp on HCAs with a netdev: %s%s%s", rp->fail, rp->nports,
		       sb_str(&rp->down_nd), rp->warn ? "; also down without a netdev: " : "", sb_str(&rp->down_other));
		r_remedy(r, "Check cabling, transceivers and the switch port (ibstat, mlxlink -d <dev> -p 1), and "
			 "that a subnet manager serves the fabric; drain the node until every rail is up.");
	} else if (rp->warn) {
		r_warn(r, "%d of %d RDMA ports are down on HCAs without a netdev (unused or unconfigured?): %s; "
		       "up: %s%s%s", rp->warn, rp->nports, sb_str(&rp->down_other), sb_str(sum),
		       rp->nunk ? "; state unreadable: " : "", sb_str(&rp->unk));
	} else if (rp->nunk == rp->nports) {
		r_skip(r, "the state of none of the %d RDMA ports could be read (unreadable or not the kernel's "
		       "format): %s", rp->nports, sb_str(&rp->unk));
	} else if (rp->nunk) {
		r_warn(r, "could not confirm every RDMA port: state of %d of %d unreadable or not the kernel's format "
		       "(%s); up: %s", rp->nunk, rp->nports, sb_str(&rp->unk), sb_str(sum));
	} else {
		r_pass(r, "%zu RDMA devices, %d ports ACTIVE/LinkUp: %s", nh, rp->nup, sb_str(sum));
	}
}

void check_net_rdma_devices(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "network", NULL), *h, *p;
	json_t *hcas = fact_get(f, "hcas");
	size_t i, k;
	if (!json_array_size(hcas)) {
		int g = chk_gpu_node(ctx);
		if (g == 0) {
			r_skip(r, "not applicable: no GPU and no RDMA device on this node");
		} else {
			r_warn(r, "no RDMA device (/sys/class/infiniband is empty or absent)%s: multi-node "
			       "NCCL falls back to TCP sockets", g < 0 ? "; GPU presence unknown" : " on a GPU node");
			r_remedy(r, "Expose the InfiniBand/RoCE HCAs to this node (driver mlx5_ib / bnxt_re loaded, "
				 "SR-IOV VF or passthrough in a VM, rdma device plugin in Kubernetes).");
		}
		r_observed(r, json_array());
		return;
	}
	struct rdma_ports rp = { .obs = json_array(), .kinds = json_object(), .down_nd = STRBUF_INIT,
				 .down_other = STRBUF_INIT, .unk = STRBUF_INIT };
	struct strbuf sum = STRBUF_INIT;
	json_array_foreach(hcas, i, h)
		json_array_foreach(fact_get(h, "ports"), k, p)
			rdma_port(h, p, &rp);
	const char *kk;
	json_t *kv;
	json_object_foreach(rp.kinds, kk, kv)
		sb_addf(&sum, "%s%lld x %s", sum.len ? ", " : "", (long long)json_integer_value(kv), kk);
	json_decref(rp.kinds);
	r_observed(r, rp.obs);
	r_expectedf(r, "every RDMA port ACTIVE / LinkUp");
	rdma_verdict(r, &rp, json_array_size(hcas), &sum);
	sb_free(&rp.down_nd);
	sb_free(&rp.down_other);
	sb_free(&sum);
	sb_free(&rp.unk);
}

/* "<prefix><digits>" */
static int prefixed_number(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);
	if (strncmp(s, prefix, n) != 0 || !s[n])
		return 0;
	for (s += n; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* roce_p0_rail3 / ib_p1_rail0 style rail naming */
static int rail_name(const char *s)
{
	const char *p = NULL;
	if (str_starts(s, "roce_p"))
		p = s + 6;
	else if (str_starts(s, "ib_p"))
		p = s + 4;
	if (!p || !isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (!str_starts(p, "_rail"))
		return 0;
	return prefixed_number(p, "_rail");
}

/* digits, then the rest; NULL when no digit comes first */
static const char *skip_digits(const char *s)
{
	if (!isdigit((unsigned char)*s))
		return NULL;
	while (isdigit((unsigned char)*s))
		s++;
	return s;
}

/* rdma-core's persistent names (rdma_rename, the NAME_FALLBACK / NAME_PCI
 * policies of 60-rdma-persistent-naming.rules): the link layer's prefix
 * (ib, roce, iw, or rdma when it has none, as AWS EFA's rdmap16s27), an
 * optional P<domain>, then p<bus>s<slot>[f<function>]. */
static int persistent_name(const char *s)
{
	static const char *const prefixes[] = { "ib", "roce", "iw", "rdma", NULL };
	for (int i = 0; prefixes[i]; i++) {
		if (!str_starts(s, prefixes[i]))
			continue;
		const char *p = s + strlen(prefixes[i]);
		if (*p == 'P' && !(p = skip_digits(p + 1)))
			continue;
		if (*p != 'p' || !(p = skip_digits(p + 1)) || *p != 's' || !(p = skip_digits(p + 1)))
			continue;
		if (*p == 'f' && !(p = skip_digits(p + 1)))
			continue;
		if (!*p)
			return 1;
	}
	return 0;
}

static int standard_hca_name(const char *s)
{
	/* kernel driver defaults (smiN: the mlx5 multi-plane SMI sub-devices
	 * the kernel names itself), rdma-core's persistent names, and the rail
	 * schemes some fleets use */
	static const char *const kernel_prefixes[] = { "mlx5_", "mlx4_", "bnxt_re", "irdma", "efa_", "ionic_", "ibp",
						       "smi", NULL };
	for (int i = 0; kernel_prefixes[i]; i++)
		if (prefixed_number(s, kernel_prefixes[i]))
			return 1;
	return persistent_name(s) || rail_name(s);
}

void check_net_hca_naming(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "network", NULL), *h;
	json_t *hcas = fact_get(f, "hcas");
	if (!json_array_size(hcas)) {
		r_skip(r, "no RDMA devices to name");
		return;
	}
	json_t *names = json_array();
	struct strbuf bad = STRBUF_INIT, ok = STRBUF_INIT;
	size_t i;
	int nbad = 0;
	json_array_foreach(hcas, i, h) {
		const char *n = fact_str(h, "name");
		json_array_append_new(names, json_string(n));
		if (standard_hca_name(n)) {
			sb_addf(&ok, "%s%s", ok.len ? ", " : "", n);
		} else {
			nbad++;
			sb_addf(&bad, "%s%s", bad.len ? ", " : "", n);
		}
	}
	r_observed(r, names);
	r_expectedf(r, "mlx5_N (or another driver default such as bnxt_reN), rdma-core persistent names (ibp12s0, rdmap16s27), or rail names roce_pN_railN / ibpN");
	if (nbad) {
		r_warn(r, "%d of %zu RDMA devices have non-standard names: %s; NCCL_IB_HCA lists, topology "
		       "files and tenants' scripts that expect mlx5_N will not match", nbad, json_array_size(hcas),
		       sb_str(&bad));
		r_remedy(r, "Drop the udev/rdma rename rules (or use rail names consistently across the fleet) "
			 "and publish the NIC-to-GPU mapping.");
	} else {
		r_pass(r, "RDMA devices use standard names: %s", sb_str(&ok));
	}
	sb_free(&bad);
	sb_free(&ok);
}

static const char *const fabric_drivers[] = { "mlx5_core", "mlx4_core", "ice", "bnxt_en", "ionic", NULL };

static int fabric_driver(const char *d)
{
	for (int i = 0; d && fabric_drivers[i]; i++)
		if (strcmp(d, fabric_drivers[i]) == 0)
			return 1;
	return 0;
}

static int bdf_is_hca(json_t *hcas, const char *bdf)
{
	json_t *h;
	size_t i;
	json_array_foreach(hcas, i, h) {
		const char *b = fact_str(h, "bdf");
		if (b && bdf && strcmp(b, bdf) == 0)
			return 1;
	}
	return 0;
}

void check_net_netdev_operstate(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "network", NULL), *d;
	json_t *hcas = fact_get(f, "hcas");
	size_t i;
	json_t *obs = json_array();
	struct strbuf down = STRBUF_INIT;
	int n = 0, ndown = 0, nunknown = 0;
	json_array_foreach(fact_get(f, "netdevs"), i, d) {
		const char *drv = fact_str(d, "driver"), *bdf = fact_str(d, "bdf");
		/* an RDMA-capable function is fabric or storage whatever its driver */
		if (!fabric_driver(drv) && !bdf_is_hca(hcas, bdf))
			continue;
		n++;
		const char *os = fact_str(d, "operstate");
		json_t *o = json_object();
		fact_set_str(o, "netdev", fact_str(d, "name"));
		fact_set_str(o, "driver", drv);
		fact_set_str(o, "bdf", bdf);
		fact_set_str(o, "operstate", os);
		json_array_append_new(obs, o);
		if (os && (strcmp(os, "down") == 0 || strcmp(os, "lowerlayerdown") == 0)) {
			ndown++;
			sb_addf(&down, "%s%s (%s, %s)", down.len ? ", " : "", fact_str(d, "name"), drv ? drv : "?", os);
		} else if (!os) {
			nunknown++;
		}
	}
	if (!n) {
		json_decref(obs);
		sb_free(&down);
		r_skip(r, "no netdev backed by a fabric/storage NIC (mlx5_core, mlx4_core, ice, bnxt_en, ionic or an RDMA function)");
		return;
	}
	r_observed(r, obs);
	r_expectedf(r, "operstate up on every fabric/storage netdev");
	if (ndown) {
		r_warn(r, "%d of %d fabric/storage netdevs are down: %s", ndown, n, sb_str(&down));
		r_remedy(r, "Bring the links up (ip link set <dev> up, check cabling and the switch port) or remove "
			 "them from the storage/NCCL configuration; a down storage NIC silently halves bandwidth.");
	} else if (nunknown) {
		r_warn(r, "%d of %d fabric/storage netdevs have an unreadable operstate", nunknown, n);
	} else {
		r_pass(r, "all %d fabric/storage netdevs are up", n);
	}
	sb_free(&down);
}

/* ---- networking.storage-nic ---- */

static int nic_down(const char *os)
{
	/* operstate (Documentation/ABI/testing/sysfs-class-net): down,
	 * lowerlayerdown, notpresent; "absent": configured, no such netdev */
	return os && (!strcmp(os, "down") || !strcmp(os, "lowerlayerdown") || !strcmp(os, "notpresent") ||
		      !strcmp(os, "absent"));
}

static int has_opt(const char *opts, const char *want)
{
	size_t n = strlen(want);
	for (const char *p = opts; p && *p;) {
		size_t k = strcspn(p, ",");
		if (k == n && !strncmp(p, want, n))
			return 1;
		p += k + (p[k] == ',');
	}
	return 0;
}

/* The configured interfaces whose IPv4 subnet holds server, as "name (addr, operstate)". */
static int storage_via(json_t *ifs, const char *server, struct strbuf *via, int *ndown)
{
	size_t i, k;
	json_t *o, *a;
	int n = 0;
	json_array_foreach(ifs, i, o) {
		json_array_foreach(json_object_get(o, "addresses"), k, a) {
			if (ipv4_in_cidr(json_string_value(a), server) != 1)
				continue;
			n++;
			*ndown += nic_down(fact_str(o, "operstate"));
			sb_addf(via, "%s%s (%s, operstate %s, %s)", via->len ? ", " : "", fact_str(o, "name"),
				json_string_value(a), fact_str(o, "operstate") ?: "unreadable", fact_str(o, "source"));
			break;
		}
	}
	return n;
}

/* Configured interfaces with a static address that are down. */
static int down_configured(json_t *ifs, struct strbuf *sb)
{
	size_t i;
	json_t *o;
	int n = 0;
	json_array_foreach(ifs, i, o) {
		if (!json_array_size(json_object_get(o, "addresses")) || !nic_down(fact_str(o, "operstate")))
			continue;
		n++;
		sb_addf(sb, "%s%s (%s, operstate %s, %s)", sb->len ? ", " : "", fact_str(o, "name"),
			json_string_value(json_array_get(json_object_get(o, "addresses"), 0)), fact_str(o, "operstate"),
			fact_str(o, "source"));
	}
	return n;
}

struct storage_grade {
	struct strbuf fail, warn, ok, unk;
	int nfail, nwarn, nok, nunk;
};

static void storage_entry(json_t *e, json_t *ifs, struct storage_grade *g, json_t *obs)
{
	const char *src = fact_str(e, "source"), *tgt = fact_str(e, "target"), *fs = fact_str(e, "fstype");
	const char *srv = fact_str(e, "server");
	struct strbuf via = STRBUF_INIT, down = STRBUF_INIT;
	int ndown = 0, nvia = srv ? storage_via(ifs, srv, &via, &ndown) : 0;
	int mounted = -1;
	json_t *m = json_object_get(e, "mounted");
	if (json_is_boolean(m))
		mounted = json_is_true(m);
	json_t *o = json_object();
	fact_set_str(o, "fstab", src);
	fact_set_str(o, "target", tgt);
	fact_set_str(o, "fstype", fs);
	fact_set_str(o, "server", srv);
	json_object_set_new(o, "mounted", mounted < 0 ? json_null() : json_boolean(mounted));
	fact_set_str(o, "via", via.len ? sb_str(&via) : NULL);
	json_array_append_new(obs, o);
	char *what = xasprintf("%s %s (%s)", src, tgt, fs);
	if (mounted < 0) {
		g->nunk++;
		sb_addf(&g->unk, "%s%s", g->unk.len ? "; " : "", what);
	} else if (mounted) {
		g->nok++;
		sb_addf(&g->ok, "%s%s%s%s", g->ok.len ? "; " : "", what, nvia ? " via " : "", sb_str(&via));
	} else if (nvia && ndown) {
		g->nfail++;
		sb_addf(&g->fail, "%sstorage NIC %s is down and fstab entry %s is not mounted", g->fail.len ? "; " : "",
			sb_str(&via), what);
	} else if (!nvia && down_configured(ifs, &down)) {
		g->nfail++;
		sb_addf(&g->fail, "%sfstab entry %s is not mounted while configured NIC %s is down%s", g->fail.len ? "; " : "",
			what, sb_str(&down), srv ? " (its server is in no configured subnet)" : "");
	} else {
		g->nwarn++;
		sb_addf(&g->warn, "%sfstab entry %s is not mounted%s%s", g->warn.len ? "; " : "", what,
			nvia ? " although its NIC is up: " : "", sb_str(&via));
	}
	free(what);
	sb_free(&via);
	sb_free(&down);
}

void check_net_storage_nic(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "network");
	if (!f)
		return;
	chk_attach_evidence(ctx, r, "network", "/etc/fstab");
	chk_attach_evidence(ctx, r, "network", "configured interfaces");
	int readable = 0;
	if (fact_bool(f, "fstab.readable", &readable) != 0 || !readable) {
		r_skip(r, "/etc/fstab is absent or unreadable: no configured network mounts to check");
		return;
	}
	json_t *net = fact_get(f, "fstab.network"), *ifs = fact_get(f, "configured_interfaces"), *e;
	if (!json_array_size(net)) {
		r_skip(r, "not applicable: no network file system in /etc/fstab");
		return;
	}
	struct storage_grade g = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, 0, 0, 0, 0 };
	json_t *obs = json_array();
	size_t i;
	int noauto = 0;
	json_array_foreach(net, i, e) {
		/* noauto: not mounted at boot by design */
		if (has_opt(fact_str(e, "options"), "noauto")) {
			noauto++;
			continue;
		}
		storage_entry(e, ifs, &g, obs);
	}
	r_observed(r, obs);
	r_expectedf(r, "every network file system of /etc/fstab mounted, and the NIC that reaches its server up");
	r_ref(r, "fstab(5), netplan(5), systemd.network(5): the mounts and addresses a node is configured with");
	if (g.nfail) {
		r_fail(r, "%s%s%s", sb_str(&g.fail), g.nwarn ? "; also " : "", sb_str(&g.warn));
		r_remedy(r, "Bring the storage NIC up (ip link set <dev> up; check the cable, transceiver and switch port), "
			 "then mount the file system (mount <target>) and confirm jobs see it; until then the node has no "
			 "shared storage and should be drained.");
	} else if (g.nwarn) {
		r_warn(r, "%s", sb_str(&g.warn));
		r_remedy(r, "Mount the missing file systems (mount -a, journalctl -u <target>.mount for the reason).");
	} else if (g.nunk == g.nok + g.nunk && g.nunk) {
		r_skip(r, "whether the fstab network mounts are mounted is unknown (/proc/mounts unreadable): %s", sb_str(&g.unk));
	} else if (!g.nok) {
		r_skip(r, "not applicable: every network file system in /etc/fstab is noauto (%d)", noauto);
	} else {
		r_pass(r, "%d network file system%s of /etc/fstab mounted: %s%s", g.nok, g.nok == 1 ? "" : "s", sb_str(&g.ok),
		       g.nunk ? "; mount state unknown for some" : "");
	}
	sb_free(&g.fail);
	sb_free(&g.warn);
	sb_free(&g.ok);
	sb_free(&g.unk);
}

/* ---- networking.roce-gid ---- */

/* One RoCE port's GID table: routable RoCE v2 entries, routable of
 * another or unread type, link-local ones and entries not in the kernel's
 * format. */
struct gid_tally {
	int v2, routable_other, link_local, invalid;
	const char *v2_gid;
};

static void gid_tally(json_t *p, struct gid_tally *t)
{
	size_t i;
	json_t *g;
	memset(t, 0, sizeof *t);
	json_array_foreach(fact_get(p, "gids"), i, g) {
		const char *k = fact_str(g, "kind");
		if (!k || !strcmp(k, "invalid")) {
			t->invalid++;
		} else if (!strcmp(k, "link-local")) {
			t->link_local++;
		} else if (!strcmp(k, "ipv4-mapped") || !strcmp(k, "global")) {
			if (gid_type_version(fact_str(g, "type")) == 2) {
				if (!t->v2++)
					t->v2_gid = fact_str(g, "ipv4") ?: fact_str(g, "gid");
			} else {
				t->routable_other++;
			}
		}
	}
}

void check_net_roce_gid(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "network");
	if (!f)
		return;
	json_t *obs = json_array(), *h, *p;
	struct strbuf bad = STRBUF_INIT, warn = STRBUF_INIT, ok = STRBUF_INIT, unk = STRBUF_INIT;
	int nroce = 0, nbad = 0, nwarn = 0, nunk = 0;
	size_t i, k;
	json_array_foreach(fact_get(f, "hcas"), i, h) {
		json_array_foreach(fact_get(h, "ports"), k, p) {
			const char *ll = fact_str(p, "link_layer");
			if (!ll || strcmp(ll, "Ethernet"))
				continue; /* InfiniBand: the subnet manager's prefix, not graded here */
			nroce++;
			struct gid_tally t;
			gid_tally(p, &t);
			char *tag = xasprintf("%s/%lld", fact_str(h, "name"),
					      (long long)json_integer_value(json_object_get(p, "port")));
			json_t *o = json_object();
			fact_set_str(o, "port", tag);
			json_object_set(o, "netdevs", fact_get(h, "netdevs"));
			json_object_set(o, "gids", fact_get(p, "gids"));
			json_array_append_new(obs, o);
			int readable = 0;
			fact_bool(p, "gids_readable", &readable);
			if (t.v2) {
				sb_addf(&ok, "%s%s %s", ok.len ? ", " : "", tag, t.v2_gid);
			} else if (!readable || t.invalid) {
				nunk++;
				sb_addf(&unk, "%s%s", unk.len ? ", " : "", tag);
			} else if (t.routable_other) {
				nwarn++;
				sb_addf(&warn, "%s%s", warn.len ? ", " : "", tag);
			} else {
				nbad++;
				sb_addf(&bad, "%s%s (%s)", bad.len ? ", " : "", tag,
					t.link_local ? "link-local fe80:: GIDs only" : "no GID at all");
			}
			free(tag);
		}
	}
	if (!nroce) {
		json_decref(obs);
		r_skip(r, "not applicable: no RoCE port (no RDMA device, or InfiniBand link layer only)");
		goto out;
	}
	r_observed(r, obs);
	r_expectedf(r, "a RoCE v2 GID with an IPv4-mapped or global IPv6 address on every RoCE port");
	r_ref(r, "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-gid-index");
	r_ref(r, "Linux Documentation/ABI/stable/sysfs-class-infiniband (ports/N/gids, gid_attrs/types, gid_attrs/ndevs)");
	chk_attach_evidence(ctx, r, "network", "/sys/class/infiniband");
	if (nbad) {
		r_fail(r, "%d of %d RoCE ports have no routable GID: %s. NCCL picks a link-local GID and hangs; set an "
		       "address on the netdev, or NCCL_IB_GID_INDEX", nbad, nroce, sb_str(&bad));
		r_remedy(r, "Configure an IPv4 (or global IPv6) address on each RoCE netdev (netplan, ifcfg, NetworkManager) so "
			 "the kernel adds its RoCE v2 GID (show_gids lists them), then point NCCL at it with "
			 "NCCL_IB_GID_INDEX (3 on mlx5 for the first IPv4 address) or NCCL_IB_ADDR_FAMILY=AF_INET.");
	} else if (nwarn) {
		r_warn(r, "%d of %d RoCE ports have routable GIDs but none of type RoCE v2 (or its type is unreadable): %s",
		       nwarn, nroce, sb_str(&warn));
		r_remedy(r, "Enable RoCE v2 (cma_roce_mode, or the NIC's default RoCE mode) and check gid_attrs/types.");
	} else if (nunk == nroce) {
		r_skip(r, "the GID tables of the %d RoCE ports could not be read or hold entries not in the kernel's "
		       "format: %s", nroce, sb_str(&unk));
	} else if (nunk) {
		r_warn(r, "the GID table of %d of %d RoCE ports could not be read or holds entries not in the kernel's "
		       "format: %s%s%s", nunk, nroce, sb_str(&unk), ok.len ? "; routable: " : "", sb_str(&ok));
	} else {
		r_pass(r, "every RoCE port has a routable RoCE v2 GID: %s", sb_str(&ok));
	}
out:
	sb_free(&bad);
	sb_free(&warn);
	sb_free(&ok);
	sb_free(&unk);
}

/* ---- networking.multiplane-gid ---- */

/* A multi-plane NIC (ConnectX-8 XDR in multi-plane mode) as Linux shows
 * it: the mlx5 driver registers one logical RDMA device whose port
 * aggregates the physical planes (kernel commit 2a5db20fa532, "RDMA/mlx5:
 * Add support to multi-plane device and port", 6.11) and, for the subnet
 * manager, a plane sub-device of type SMI (026a425990af, "rdma dev add
 * NAME type SMI parent DEV") with one port per plane. The sub-device
 * shares its parent's mlx5 core device, so both /sys/class/infiniband
 * entries link to the same PCI function: that shared function is the
 * signal, and the device with the fewest ports is the aggregate. Any other
 * sharing (several devices of one port each) is not a topology this check
 * knows and is reported as such. */
static int port_count(const json_t *h)
{
	return (int)json_array_size(fact_get(h, "ports"));
}

/* A usable GID on the aggregate: on InfiniBand any valid entry (index 0 is
 * the subnet prefix and port GUID NCCL uses), on Ethernet a routable one. */
static int agg_usable(const json_t *h, int *unknown)
{
	size_t k, g;
	json_t *p, *e;
	*unknown = 0;
	json_array_foreach(fact_get(h, "ports"), k, p) {
		int readable = 0;
		fact_bool(p, "gids_readable", &readable);
		if (!readable)
			*unknown = 1;
		int eth = fact_str(p, "link_layer") && !strcmp(fact_str(p, "link_layer"), "Ethernet");
		json_array_foreach(fact_get(p, "gids"), g, e) {
			const char *kind = fact_str(e, "kind");
			if (!kind || !strcmp(kind, "invalid"))
				*unknown = 1;
			else if (!eth || strcmp(kind, "link-local"))
				return 1;
		}
	}
	return 0;
}

/* The HCAs grouped by the PCI function their device link names. */
static json_t *hcas_by_function(json_t *f)
{
	json_t *by_bdf = json_object(), *h;
	size_t i;
	json_array_foreach(fact_get(f, "hcas"), i, h) {
		const char *b = fact_str(h, "bdf");
		if (!b)
			continue;
		json_t *a = json_object_get(by_bdf, b);
		if (!a) {
			a = json_array();
			json_object_set_new(by_bdf, b, a);
		}
		json_array_append(a, h);
	}
	return by_bdf;
}

struct mp_state {
	json_t *obs;
	struct strbuf bad, ok, odd, unk;
	int ngroups, nbad, nunk;
};

/* The aggregate of a group: the one device with the fewest ports (the
 * plane devices have one per plane), or NULL when no single one is. */
static const json_t *mp_aggregate(json_t *devs)
{
	const json_t *agg = NULL;
	int amb = 0;
	size_t i;
	json_t *h;
	json_array_foreach(devs, i, h) {
		if (!agg || port_count(h) < port_count(agg)) {
			agg = h;
			amb = 0;
		} else if (port_count(h) == port_count(agg)) {
			amb = 1;
		}
	}
	return amb || !agg || port_count(agg) < 1 ? NULL : agg;
}

static void mp_group(const char *bdf, json_t *devs, struct mp_state *m)
{
	size_t i;
	json_t *h;
	const json_t *agg = mp_aggregate(devs);
	if (!agg) {
		sb_addf(&m->odd, "%s%s (", m->odd.len ? "; " : "", bdf);
		json_array_foreach(devs, i, h)
			sb_addf(&m->odd, "%s%s %d port%s", i ? ", " : "", fact_str(h, "name"), port_count(h),
				port_count(h) == 1 ? "" : "s");
		sb_adds(&m->odd, ")");
		return;
	}
	m->ngroups++;
	json_t *o = json_object();
	fact_set_str(o, "pci", bdf);
	fact_set_str(o, "aggregate", fact_str(agg, "name"));
	json_t *planes = json_array();
	json_array_foreach(devs, i, h)
		if (h != agg)
			json_array_append_new(planes, json_string(fact_str(h, "name")));
	json_object_set_new(o, "plane_devices", planes);
	json_object_set(o, "aggregate_ports", fact_get(agg, "ports"));
	json_array_append_new(m->obs, o);
	int unknown = 0;
	if (agg_usable(agg, &unknown)) {
		sb_addf(&m->ok, "%s%s (%s)", m->ok.len ? ", " : "", fact_str(agg, "name"), bdf);
	} else if (unknown) {
		m->nunk++;
		sb_addf(&m->unk, "%s%s (%s)", m->unk.len ? ", " : "", fact_str(agg, "name"), bdf);
	} else {
		m->nbad++;
		sb_addf(&m->bad, "%s%s (%s, planes %s)", m->bad.len ? ", " : "", fact_str(agg, "name"), bdf,
			json_string_value(json_array_get(planes, 0)));
	}
}

static void mp_verdict(struct audit_ctx *ctx, struct result *r, struct mp_state *m)
{
	if (!m->ngroups) {
		json_decref(m->obs);
		if (m->odd.len)
			r_skip(r, "RDMA devices share a PCI function in a way that is not a recognised multi-plane NIC "
			       "(no single aggregate with fewer ports than its plane devices): %s", sb_str(&m->odd));
		else
			r_skip(r, "not applicable: no multi-plane NIC recognised (no two RDMA devices under "
			       "/sys/class/infiniband link to one PCI function, as a multi-plane aggregate and its "
			       "SMI plane device do)");
		return;
	}
	r_observed(r, m->obs);
	r_expectedf(r, "a usable GID on the aggregate (logical) device of every multi-plane NIC");
	chk_attach_evidence(ctx, r, "network", "/sys/class/infiniband");
	if (m->nbad) {
		r_fail(r, "%d of %d multi-plane NICs have no usable GID on their aggregate device: %s; NCCL and "
		       "every verbs application use the aggregate, so this NIC carries no traffic", m->nbad, m->ngroups,
		       sb_str(&m->bad));
		r_remedy(r, "Check that the subnet manager configured every plane (ibstat on the plane device, "
			 "smpquery), that the NIC firmware and the kernel both enable multi-plane (a kernel with the "
			 "HCA_CAP2.multiplane fix), and re-probe the driver; on RoCE set an address on the netdev.");
	} else if (m->nunk) {
		r_skip(r, "the GID table of %d of %d multi-plane aggregates could not be read: %s", m->nunk, m->ngroups,
		       sb_str(&m->unk));
	} else {
		r_pass(r, "%d multi-plane NIC%s, each aggregate with a usable GID: %s", m->ngroups,
		       m->ngroups == 1 ? "" : "s", sb_str(&m->ok));
	}
}

void check_net_multiplane_gid(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "network");
	if (!f)
		return;
	json_t *by_bdf = hcas_by_function(f), *devs;
	struct mp_state m = { json_array(), STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, 0, 0, 0 };
	const char *bdf;
	json_object_foreach(by_bdf, bdf, devs)
		if (json_array_size(devs) >= 2)
			mp_group(bdf, devs, &m);
	json_decref(by_bdf);
	r_ref(r, "https://git.kernel.org/torvalds/c/2a5db20fa532 (RDMA/mlx5: multi-plane device and port)");
	r_ref(r, "https://man7.org/linux/man-pages/man8/rdma-dev.8.html (type SMI plane devices)");
	mp_verdict(ctx, r, &m);
	sb_free(&m.bad);
	sb_free(&m.ok);
	sb_free(&m.odd);
	sb_free(&m.unk);
}

/* ---- networking.nccl-ib-qps ---- */

/* NCCL_IB_QPS_PER_CONNECTION on a RoCE multi-rail fabric: one QP per
 * connection is one 5-tuple, so ECMP hashes a rail's whole flow onto one
 * uplink. The public audit (nccl-ib-qps-entropy) warns on the default on a
 * multi-tier fabric; a single node cannot count the fabric's tiers, so
 * this check takes several active RoCE rails as the sign of a routed
 * rail-optimised fabric (data/thresholds.json networking). InfiniBand's
 * adaptive routing does not depend on it. */
void check_net_nccl_ib_qps(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "network");
	if (!f)
		return;
	json_t *sw = facts_get(ctx, "software", NULL), *h, *p;
	size_t i, k;
	int roce = 0, ib = 0;
	json_array_foreach(fact_get(f, "hcas"), i, h)
		json_array_foreach(fact_get(h, "ports"), k, p) {
			const char *ll = fact_str(p, "link_layer"), *st = fact_str(p, "state");
			if (!ll || !st || strcmp(st, "ACTIVE"))
				continue;
			roce += !strcmp(ll, "Ethernet");
			ib += !strcmp(ll, "InfiniBand");
		}
	long long min_rails = (long long)threshold(ctx, "networking.nccl_ib_qps_roce_rails", 2);
	long long want = (long long)threshold(ctx, "networking.nccl_ib_qps_min", 2);
	r_ref(r, "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-qps-per-connection");
	if (!roce) {
		r_skip(r, "not applicable: %s", ib ? "InfiniBand only (adaptive routing spreads the flows)"
						 : "no active RDMA port");
		return;
	}
	if (roce < min_rails) {
		r_skip(r, "not applicable: %d active RoCE port%s (one rail: no ECMP across rails to balance)", roce,
		       roce == 1 ? "" : "s");
		return;
	}
	json_t *set = fact_get(sw, "nccl_conf.effective.NCCL_IB_QPS_PER_CONNECTION");
	const char *v = fact_str(set, "value"), *src = fact_str(set, "source");
	r_observedf(r, "%s%s%s%s (%d active RoCE ports)", v ? "NCCL_IB_QPS_PER_CONNECTION=" : "unset (NCCL default 1)",
		    v ? v : "", src ? " from " : "", src ? src : "", roce);
	r_expectedf(r, "NCCL_IB_QPS_PER_CONNECTION >= %lld on a RoCE multi-rail fabric", want);
	chk_attach_evidence(ctx, r, "software", "/etc/nccl.conf");
	char *end = NULL;
	long long n = v ? strtoll(v, &end, 10) : 1;
	if (v && (end == v || *end)) {
		r_warn(r, "NCCL_IB_QPS_PER_CONNECTION=%s (%s) is not a number; NCCL falls back to one QP", v, src);
	} else if (n < want) {
		r_warn(r, "NCCL_IB_QPS_PER_CONNECTION is %s on %d active RoCE rails: one QP per connection gives ECMP "
		       "one flow to hash per rail, so collisions on the leaf-spine uplinks cut bus bandwidth",
		       v ? v : "unset (1)", roce);
		r_remedy(r, "Set NCCL_IB_QPS_PER_CONNECTION=%lld or more in /etc/nccl.conf (the NCCL documentation: "
			 "multi-level fabrics need several QPs for good routing entropy) and confirm with an "
			 "nccl-tests sweep across leaves.", want);
	} else {
		r_pass(r, "NCCL_IB_QPS_PER_CONNECTION=%s (%s) spreads each connection over %lld QPs on %d RoCE rails", v,
		       src, n, roce);
	}
}
