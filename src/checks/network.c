/* RDMA fabric checks: ConnectX firmware against the table, port state,
 * HCA naming and the operstate of fabric/storage netdevs. */
#include "checks/common.h"
#include "collect/collector.h"
#include "core/strbuf.h"
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

static int standard_hca_name(const char *s)
{
	/* kernel driver defaults, plus the rail schemes some fleets use */
	static const char *const kernel_prefixes[] = { "mlx5_", "mlx4_", "bnxt_re", "irdma", "efa_", "ionic_", "ibp", NULL };
	for (int i = 0; kernel_prefixes[i]; i++)
		if (prefixed_number(s, kernel_prefixes[i]))
			return 1;
	return rail_name(s);
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
	r_expectedf(r, "mlx5_N (or another driver default such as bnxt_reN), or rail names roce_pN_railN / ibpN");
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
