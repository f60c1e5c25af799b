/* Tenant boundaries on the fabrics, graded from what the tenant itself can
 * read (collect/fabric.c): InfiniBand partitions and subnet-manager
 * exposure, a BlueField DPU's RShim and virtio-net emulation, NVLink
 * fabric registration and IMEX channels, metrics exporters reachable by
 * every tenant, and the Grace SMMU's command-queue virtualisation. What a
 * tenant node cannot prove (the switch side, the SM's keys, the other nodes
 * of a clique) is said in the row, never assumed. The rules and their
 * sources: docs/fabric-isolation.md. */
#include "checks/common.h"
#include "core/strbuf.h"
#include "policy/minimums.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- isolation.ib-pkey ---------------------------------------------------- */

struct pkey_tally {
	int ports, read, default_full, default_limited, tenant;
	struct strbuf seen;
};

static void pkey_port(json_t *p, struct pkey_tally *t)
{
	json_t *pk = fact_get(p, "pkeys"), *e;
	size_t i;
	if (!json_is_array(pk))
		return;
	t->read++;
	int full = 0, limited = 0, other = 0;
	sb_addf(&t->seen, "%s%s/%s:", t->seen.len ? "; " : "", fact_str(p, "device"), fact_str(p, "port"));
	json_array_foreach(pk, i, e) {
		const char *s = fact_str(e, "pkey");
		unsigned long v = s ? strtoul(s, NULL, 16) : 0;
		sb_addf(&t->seen, " %s", s ? s : "?");
		if ((v & 0x7fff) == 0x7fff && (v & 0x8000))
			full = 1;
		else if ((v & 0x7fff) == 0x7fff)
			limited = 1;
		else
			other = 1;
	}
	t->default_full += full;
	t->default_limited += limited && !full;
	t->tenant += other;
}

void check_fab_ib_pkey(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "fabric");
	if (!f)
		return;
	long long ib = 0;
	fact_int(f, "ib_port_count", &ib);
	r_expectedf(r, "on a fabric shared between tenants: each port in the tenant's own partition, with the default "
		       "partition at limited membership (0x7fff) or absent");
	if (ib == 0) {
		r_skip(r, "no InfiniBand port (RoCE or no RDMA): partitions are an InfiniBand mechanism");
		return;
	}
	struct pkey_tally t = { .seen = STRBUF_INIT };
	size_t i;
	json_t *p;
	json_array_foreach(fact_get(f, "ib_ports"), i, p) {
		const char *ll = fact_str(p, "link_layer");
		if (!ll || strcmp(ll, "InfiniBand"))
			continue;
		t.ports++;
		pkey_port(p, &t);
	}
	r_observedf(r, "%s", t.read ? sb_str(&t.seen) : "no P_Key table readable");
	chk_attach_evidence(ctx, r, "fabric", "/sys/class/infiniband");
	if (t.read == 0) {
		r_skip(r, "%d InfiniBand port%s, but no P_Key table was readable under /sys/class/infiniband/*/ports/*/pkeys",
		       t.ports, t.ports == 1 ? "" : "s");
	} else if (t.default_full && !t.tenant) {
		r_warn(r, "%d of %d InfiniBand ports hold only the default partition with full membership (0xffff): on a "
		       "fabric shared with other tenants, every node of it is reachable from this one",
		       t.default_full, t.read);
		r_remedy(r, "Put each tenant's ports in its own partition (UFM: a PKey per tenant with its GUIDs as full "
			 "members; opensm: partitions.conf) and make the default partition limited (0x7fff) for "
			 "tenant ports, so that nodes of different tenants cannot talk.");
	} else if (t.default_full) {
		r_warn(r, "a tenant partition is present, but %d of %d ports are still full members of the default "
		       "partition (0xffff): full members talk to every other full member of the fabric",
		       t.default_full, t.read);
		r_remedy(r, "Make the default partition limited (0x7fff) on tenant ports, in UFM or opensm partitions.conf.");
	} else if (t.tenant) {
		r_pass(r, "%d InfiniBand port%s in a non-default partition, default partition limited or absent", t.read,
		       t.read == 1 ? "" : "s");
	} else {
		r_pass(r, "the ports are limited members of the default partition only: they can reach full members "
		       "(the SM and services) but no other limited member");
	}
	r_ref(r, "https://docs.nvidia.com/networking/display/ufmenterpriseumv6212/appendix+%E2%80%93+partitioning");
	r_ref(r, "https://docs.nvidia.com/infra-controller/documentation/playbooks/infini-band-setup");
	r_ref(r, "InfiniBand Architecture Specification vol. 1, 10.9 Partitioning (P_Key membership bit)");
	sb_free(&t.seen);
}

/* ---- isolation.ib-ufm ------------------------------------------------------ */

/* Whether the master SM that answered is this node: one of its ports holds
 * the SM's LID. Then a local opensm.conf is the SM's own configuration. */
static int sm_is_local(json_t *f, long long sm_lid)
{
	size_t i;
	json_t *p;
	json_array_foreach(fact_get(f, "ib_ports"), i, p) {
		long long lid = -1;
		if (sm_lid > 0 && fact_int(p, "lid", &lid) == 0 && lid == sm_lid)
			return 1;
	}
	return 0;
}

static int os_is_root(struct audit_ctx *ctx)
{
	int root = 0;
	enum col_state st;
	json_t *os = facts_get(ctx, "os", &st);
	return st == COL_OK && fact_bool(os, "is_root", &root) == 0 && root;
}

void check_fab_ib_ufm(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "fabric");
	if (!f)
		return;
	long long ib = 0;
	fact_int(f, "ib_port_count", &ib);
	json_t *mad = fact_get(f, "mad"), *sm = fact_get(f, "sminfo"), *conf = fact_get(f, "opensm_conf");
	json_t *obs = json_object();
	json_object_set(obs, "mad", mad ? mad : json_null());
	json_object_set(obs, "sminfo", sm ? sm : json_null());
	json_object_set(obs, "opensm_conf", conf ? conf : json_null());
	r_observed(r, obs);
	r_expectedf(r, "tenants cannot send MADs to the subnet (no MAD device they can open), or the subnet is keyed "
		       "(UFM Secured Bare Metal Cloud: SM_Key, M_Key per port, SA_Key, limited default membership)");
	if (ib == 0) {
		r_skip(r, "no InfiniBand port: the subnet manager and UFM apply to InfiniBand fabrics only");
		return;
	}
	chk_attach_evidence(ctx, r, "fabric", "/dev/infiniband");
	chk_attach_evidence(ctx, r, "fabric", "sminfo");
	int present = 0, open_rw = 0, zero = 0;
	fact_bool(mad, "umad_present", &present);
	fact_bool(mad, "umad_open", &open_rw);
	int zero_known = fact_bool(conf, "sm_key_zero", &zero) == 0;
	const char *tool = fact_str(sm, "tool");
	int answered = tool && !strcmp(tool, "answered");
	long long lid = -1, pri = -1;
	fact_int(sm, "lid", &lid);
	fact_int(sm, "priority", &pri);
	if (!present) {
		r_pass(r, "no MAD device (/dev/infiniband/umad*) on this node: a tenant cannot query or program the "
		       "subnet from here");
	} else if (!open_rw && !os_is_root(ctx)) {
		r_pass(r, "MAD devices exist but this account cannot open them: only root sends MADs from this node");
	} else if (zero_known && zero && answered && sm_is_local(f, lid)) {
		r_fail(r, "this account can send MADs (umad open read-write), the master SM runs on this node (lid %lld, "
		       "priority %lld) and its %s sets sm_key 0x0000000000000000: the subnet is not keyed, so a tenant "
		       "can query and reprogram it (partitions, routes, port states)", lid, pri, fact_str(conf, "path"));
	} else if (answered) {
		if (zero_known && zero)
			r_evidence_note(r, "%s on this node sets sm_key 0, but the master SM (lid %lld) runs elsewhere: "
					   "its own key is not readable from here", fact_str(conf, "path"), lid);
		r_warn(r, "this account can send MADs and the SM answers (lid %lld, priority %lld, %s): whether SM_Key, "
		       "M_Key and SA_Key protect the subnet (UFM Secured Bare Metal Cloud) is not readable from a tenant "
		       "node", lid, pri, fact_str(sm, "state_name") ? fact_str(sm, "state_name") : "state unknown");
	} else if (tool && !strcmp(tool, "failed")) {
		r_warn(r, "this account can open a MAD device, but sminfo failed (%s): the SM's protection is unknown",
		       fact_str(sm, "message") ? fact_str(sm, "message") : "no message");
	} else {
		r_skip(r, "this account can open a MAD device, but sminfo (infiniband-diags) is not installed: the "
		       "subnet manager's reachability and keys were not read (ibdiagnet is never run by the audit)");
	}
	if (r->status == ST_WARN || r->status == ST_FAIL)
		r_remedy(r, "Run the subnet in UFM's secured multi-tenant mode: random SM_Key/SA_Key, M_Key per port with "
			 "protection level 2, default_membership = limited, and keep /dev/infiniband/umad* root-only "
			 "(udev MODE=\"0600\") or ib_umad unloaded on nodes tenants control.");
	r_ref(r, "https://docs.nvidia.com/infra-controller/documentation/playbooks/infini-band-setup");
	r_ref(r, "https://docs.nvidia.com/networking/display/ufmsdnappcliv4160/MKey");
}

/* ---- isolation.dpu-rshim ----------------------------------------------------- */

void check_fab_dpu_rshim(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "fabric");
	if (!f)
		return;
	json_t *bf = fact_get(f, "bluefield");
	r_observed(r, json_deep_copy(bf ? bf : json_null()));
	r_expectedf(r, "BlueField in restricted host mode: no RShim PCI function, no /dev/rshim*, no tmfifo_net0 on the host");
	json_t *fns = fact_get(bf, "functions");
	if (!json_is_array(fns)) {
		r_skip(r, "the PCI bus was not readable: whether a BlueField DPU is installed is unknown");
		return;
	}
	long long nic = 0, rsh = 0;
	fact_int(bf, "nic_functions", &nic);
	fact_int(bf, "rshim_functions", &rsh);
	size_t ndev = json_array_size(fact_get(bf, "rshim_devices"));
	int tm = 0, mod = 0;
	fact_bool(bf, "tmfifo_net0", &tm);
	fact_bool(bf, "rshim_module", &mod);
	if (json_array_size(fns) == 0 && !ndev && !tm) {
		r_skip(r, "no BlueField PCI function (15b3:a2d2/a2d6/a2d9/a2dc/a2df, c2d2-c2d6) on this host");
		return;
	}
	chk_attach_evidence(ctx, r, "fabric", "/dev/rshim");
	chk_attach_evidence(ctx, r, "fabric", "/sys/class/net/tmfifo_net0");
	struct strbuf why = STRBUF_INIT;
	if (rsh)
		sb_addf(&why, "%lld RShim PCI function%s (SoC management interface)", rsh, rsh == 1 ? "" : "s");
	if (ndev)
		sb_addf(&why, "%s%zu /dev/rshim* device%s", why.len ? ", " : "", ndev, ndev == 1 ? "" : "s");
	if (tm)
		sb_addf(&why, "%stmfifo_net0", why.len ? ", " : "");
	if (mod)
		sb_addf(&why, "%srshim kernel module loaded", why.len ? ", " : "");
	const char *k;
	json_t *v;
	int disabled = 0;
	json_object_foreach(fact_get(bf, "rshim_config"), k, v) {
		const char *val = json_string_value(v);
		if (val && !strncasecmp(val, "ENABLED", 7))
			sb_addf(&why, "%sINTERNAL_CPU_RSHIM %s on %s", why.len ? ", " : "", val, k);
		disabled += val && !strncasecmp(val, "DISABLED", 8);
	}
	if (why.len) {
		r_warn(r, "the DPU's RShim is exposed to the host: %s; from it the host (and a tenant with root on it) "
		       "can push a boot image to the DPU, reach its console and its registers",
		       sb_str(&why));
		r_remedy(r, "Put the BlueField in restricted host mode from the DPU side (`mlxprivhost -d <dev> r "
			 "--disable_rshim`, then power-cycle), or disable the host RShim through the DPU BMC "
			 "(Redfish HostRshim Disabled).");
	} else {
		r_pass(r, "%lld BlueField network function%s and no RShim function, /dev/rshim* or tmfifo_net0%s: the "
		       "host has no RShim path to the DPU", nic, nic == 1 ? "" : "s",
		       disabled ? "; INTERNAL_CPU_RSHIM DISABLED" : "");
	}
	chk_attach_evidence(ctx, r, "fabric", "mlxconfig");
	chk_attach_evidence(ctx, r, "fabric", "sudo -n mlxconfig");
	/* INTERNAL_CPU_RSHIM lives in the NIC's non-volatile configuration:
	 * mlxconfig reads it only as root, so without privilege it is one
	 * fact short, which the row says instead of guessing */
	if (fact_str(bf, "rshim_config_why_not"))
		r_evidence_note(r, "INTERNAL_CPU_RSHIM not read (`mlxconfig -d <dev> q INTERNAL_CPU_RSHIM` needs root): %s; "
				   "graded from the host-side PCI function and device nodes, which a tenant sees",
				   fact_str(bf, "rshim_config_why_not"));
	sb_free(&why);
	r_ref(r, "https://docs.nvidia.com/networking/display/MFTv4230/mlxprivhost+-+NIC+Configuration+by+the+Host+Restriction+Tool");
	r_ref(r, "https://docs.nvidia.com/networking/display/bluefieldbmcv2601/NIC-Subsystem-Management");
}

/* ---- isolation.bluefield-virtio-net ----------------------------------------- */

void check_fab_virtio_net(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "fabric");
	if (!f)
		return;
	json_t *vn = fact_get(f, "virtio_net");
	r_observed(r, json_deep_copy(vn ? vn : json_null()));
	r_expectedf(r, "no BlueField-emulated virtio-net device, or its controller (virtnet) at or above the floor of "
		       "its release line");
	if (!json_is_object(vn)) {
		r_skip(r, "the PCI bus was not readable: virtio-net functions unknown");
		return;
	}
	long long emu = 0, unread = 0;
	fact_int(vn, "bluefield_emulated", &emu);
	fact_int(vn, "unread", &unread);
	if (emu == 0 && unread > 0) {
		r_skip(r, "%lld virtio-net function%s whose subsystem vendor could not be read: whether a BlueField "
		       "emulates them is unknown", unread, unread == 1 ? "" : "s");
		return;
	}
	if (emu == 0) {
		r_pass(r, "no virtio-net function emulated by a BlueField (%zu virtio-net function%s, none with subsystem "
		       "vendor 15b3 or behind a BlueField bridge)", json_array_size(fact_get(vn, "functions")),
		       json_array_size(fact_get(vn, "functions")) == 1 ? "" : "s");
		return;
	}
	/* the controller's version is `virtnet version` on the DPU's Arm side:
	 * not reachable from the host, so this is the "unread" case of the four */
	struct mv_verdict v;
	minimums_grade(ctx->minimums, "virtioNetBluefield", NULL, NULL, ctx->now, &v);
	r_refs_json(r, v.cves);
	r_refs_json(r, v.advisories);
	r_warn(r, "%lld virtio-net function%s emulated by a BlueField: latent exposure, the virtio-net controller's "
	       "version (`virtnet version` on the DPU) is not readable from the host, so it cannot be held to the "
	       "table's floor for its release line", emu, emu == 1 ? "" : "s");
	r_remedy(r, "Have the provider attest the DPU's virtio-net controller version (virtnet version) at or above the "
		 "fixed release of its line, or disable virtio-net emulation on the BlueField if it is not used.");
	if (v.detail)
		r_evidence_note(r, "minimum table: %s", v.detail);
	mv_verdict_free(&v);
}

/* ---- isolation.nvlink-partition ---------------------------------------------- */

static int uuid_zero(const char *u)
{
	for (; u && *u; u++)
		if (*u != '0' && *u != '-')
			return 0;
	return 1;
}

struct nvl_tally {
	int gpus, na, completed, multi_node;
	struct strbuf bad, cliques;
};

static void nvl_gpu(json_t *g, struct nvl_tally *t)
{
	const char *st = fact_str(g, "state"), *status = fact_str(g, "status");
	const char *uuid = fact_str(g, "cluster_uuid"), *clique = fact_str(g, "clique_id");
	t->gpus++;
	if (!st || !strcmp(st, "Not Supported")) {
		t->na++;
		return;
	}
	if (!strcmp(st, "Completed") && status && !strcmp(status, "Success")) {
		t->completed++;
		if (uuid && !uuid_zero(uuid)) {
			t->multi_node++;
			char *c = xasprintf("%s/%s", uuid, clique ? clique : "?");
			if (!strstr(sb_str(&t->cliques), c))
				sb_addf(&t->cliques, "%s%s", t->cliques.len ? ", " : "", c);
			free(c);
		}
		return;
	}
	sb_addf(&t->bad, "%s%s: %s%s%s", t->bad.len ? ", " : "", fact_str(g, "bus_id") ? fact_str(g, "bus_id") : "?",
		st, status ? " / " : "", status ? status : "");
}

/* IMEX channels this account can open, as a list; 0 when none. */
static int imex_open(json_t *nvl, struct strbuf *sb)
{
	size_t i;
	json_t *c;
	int n = 0;
	json_array_foreach(fact_get(nvl, "imex_channels"), i, c) {
		int rw = 0;
		fact_bool(c, "read_write", &rw);
		if (rw) {
			sb_addf(sb, "%s%s", n ? ", " : "", fact_str(c, "path"));
			n++;
		}
	}
	return n;
}

static void nvl_grade(struct result *r, json_t *nvl, struct nvl_tally *t)
{
	struct strbuf ch = STRBUF_INIT;
	int nopen = imex_open(nvl, &ch);
	json_t *nodes = fact_get(nvl, "imex_nodes");
	size_t nn = json_array_size(nodes);
	if (t->bad.len) {
		r_fail(r, "NVLink fabric registration not complete on %d of %d GPUs (%s): these GPUs cannot use NVLink "
		       "until the fabric manager / NVLink Switch registers them", t->gpus - t->completed - t->na, t->gpus,
		       sb_str(&t->bad));
		r_remedy(r, "Check nvidia-fabricmanager (HGX) or the NVLink Switch tray's NMX/fabric manager (NVL72), then "
			 "reset the GPUs; the state must read Completed / Success on every GPU.");
	} else if (!t->multi_node) {
		r_pass(r, "%d GPU%s registered with the NVLink fabric (Completed / Success) and a zero ClusterUUID: the "
		       "NVLink domain is this node's baseboard, no other tenant's GPU is on it", t->completed,
		       t->completed == 1 ? "" : "s");
	} else if (nopen) {
		r_warn(r, "multi-node NVLink domain (cluster/clique %s) and IMEX channel%s %s open to this account%s: any "
		       "process that can open a channel can import GPU memory exported on the same channel by any node "
		       "of the IMEX domain", sb_str(&t->cliques), nopen == 1 ? "" : "s", sb_str(&ch),
		       nn ? "" : " (nodes_config.cfg not readable)");
		if (nn)
			r_evidence_note(r, "the IMEX domain (nodes_config.cfg) lists %zu nodes", nn);
		r_remedy(r, "Do not create a shared default channel (no NVreg_CreateImexChannel0=1, no world-writable "
			 "channel0): give each job or user its own channel (Slurm/DRA ComputeDomains create them per "
			 "workload) and keep each tenant's trays in their own NVLink partition.");
	} else {
		r_pass(r, "multi-node NVLink domain (cluster/clique %s) with no IMEX channel this account can open "
		       "outside a workload: channels are per job. One node cannot prove the other members of its clique "
		       "belong to the same tenant; that is the NVLink partition the provider configures", sb_str(&t->cliques));
	}
	sb_free(&ch);
}

void check_fab_nvlink_partition(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "fabric");
	if (!f)
		return;
	json_t *nvl = fact_get(f, "nvlink");
	r_observed(r, json_deep_copy(nvl ? nvl : json_null()));
	r_expectedf(r, "every GPU's NVLink fabric state Completed / Success; on multi-node NVLink (NVL72) the clique is "
		       "the tenant's own partition and IMEX channels are not open to every process");
	const char *q = fact_str(nvl, "query");
	chk_attach_evidence(ctx, r, "fabric", "nvidia-smi");
	chk_attach_evidence(ctx, r, "fabric", "/dev/nvidia-caps-imex-channels");
	if (!q || strcmp(q, "answered")) {
		r_skip(r, "NVLink fabric state not read: %s", fact_str(nvl, "message") ? fact_str(nvl, "message") : "no GPUs");
		return;
	}
	struct nvl_tally t = { .bad = STRBUF_INIT, .cliques = STRBUF_INIT };
	size_t i;
	json_t *g;
	json_array_foreach(fact_get(nvl, "gpus"), i, g)
		nvl_gpu(g, &t);
	if (t.na == t.gpus)
		r_skip(r, "no NVSwitch fabric: nvidia-smi reports fabric state N/A on all %d GPU%s (PCIe or NVLink-bridge "
		       "GPUs)", t.gpus, t.gpus == 1 ? "" : "s");
	else
		nvl_grade(r, nvl, &t);
	sb_free(&t.bad);
	sb_free(&t.cliques);
	r_ref(r, "https://docs.nvidia.com/multi-node-nvlink-systems/imex-guide/imexchannels.html");
	r_ref(r, "https://docs.nvidia.com/multi-node-nvlink-systems/imex-guide");
}

/* ---- isolation.observability ------------------------------------------------- */

/* What the site's Prometheus (PROMETHEUS_URL) told an anonymous client: 1
 * when it answered `up` with the series of more than one target, i.e. any
 * tenant can read every node's metrics. */
static int prom_open(json_t *p, struct strbuf *sb)
{
	const char *probe = fact_str(p, "probe");
	long long series = 0;
	fact_int(p, "series", &series);
	size_t ni = json_array_size(fact_get(p, "instances"));
	if (!probe || strcmp(probe, "answered") || ni < 2)
		return 0;
	sb_addf(sb, "Prometheus at %s answers queries without credentials (%lld series of `up` from %zu targets:",
		fact_str(p, "url"), series, ni);
	size_t i;
	json_t *v;
	json_array_foreach(fact_get(p, "instances"), i, v) {
		if (i == 4) {
			sb_addf(sb, " and %zu more", ni - i);
			break;
		}
		sb_addf(sb, "%s %s", i ? "," : "", json_string_value(v) ? json_string_value(v) : "?");
	}
	sb_adds(sb, ")");
	return 1;
}

void check_fab_observability(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "fabric");
	if (!f)
		return;
	json_t *l = fact_get(f, "listeners"), *p = fact_get(f, "prometheus");
	json_t *obs = json_object();
	json_object_set(obs, "listeners", l ? l : json_null());
	json_object_set(obs, "prometheus", p ? p : json_null());
	r_observed(r, obs);
	r_expectedf(r, "metrics endpoints (dcgm-exporter 9400, node_exporter 9100, Prometheus 9090, Grafana 3000) bound "
		       "to loopback or a management address, or behind authentication; none on every address, and the "
		       "site's Prometheus (PROMETHEUS_URL) not answering anonymous queries");
	int read = 0;
	fact_bool(l, "socket_table_read", &read);
	chk_attach_evidence(ctx, r, "fabric", "/proc/net/tcp");
	chk_attach_evidence(ctx, r, "fabric", "GET ");
	chk_attach_evidence(ctx, r, "fabric", "PROMETHEUS_URL");
	struct strbuf open = STRBUF_INIT, local = STRBUF_INIT, prom = STRBUF_INIT;
	int prom_is_open = prom_open(p, &prom);
	const char *probe = fact_str(p, "probe");
	if (!read && !prom_is_open) {
		r_skip(r, "/proc/net/tcp and /proc/net/tcp6 not readable%s: which metrics ports listen is unknown",
		       !probe || !strcmp(probe, "not_configured") ? " and no PROMETHEUS_URL to ask" :
		       !strcmp(probe, "denied") ? " (the site's Prometheus asks for credentials)" : "");
		sb_free(&prom);
		return;
	}
	size_t i;
	json_t *s;
	json_array_foreach(fact_get(l, "metrics_listeners"), i, s) {
		const char *scope = fact_str(s, "scope");
		long long port = 0;
		fact_int(s, "port", &port);
		struct strbuf *into = scope && !strcmp(scope, "any") ? &open : &local;
		const char *a = fact_str(s, "addr");
		int v6 = a && strchr(a, ':');
		sb_addf(into, "%s%s %s%s%s:%lld", into->len ? ", " : "", fact_str(s, "service"), v6 ? "[" : "", a,
			v6 ? "]" : "", port);
	}
	if (open.len || prom_is_open) {
		r_warn(r, "%s%s%s%s: any tenant that reaches them can read GPU, process and host metrics of other "
		       "tenants' jobs without credentials", open.len ? "metrics endpoints (by their default ports) "
		       "listen on every address: " : "", sb_str(&open), open.len && prom_is_open ? "; " : "", sb_str(&prom));
		r_remedy(r, "Bind exporters to loopback or the management network (dcgm-exporter -a 127.0.0.1:9400, "
			 "node_exporter --web.listen-address), put Prometheus and the exporters behind a proxy with TLS "
			 "and authentication, or firewall them from tenant networks; give tenants a per-tenant view "
			 "(labels by job) instead.");
	} else if (local.len) {
		r_pass(r, "metrics endpoints bound to one address only: %s%s", sb_str(&local),
		       probe && !strcmp(probe, "denied") ? "; the site's Prometheus asks for credentials" : "");
	} else {
		r_pass(r, "no dcgm-exporter, node_exporter, Prometheus or Grafana listener on this node%s",
		       probe && !strcmp(probe, "denied") ? "; the site's Prometheus asks for credentials" : "");
	}
	if (probe && !strcmp(probe, "not_configured"))
		r_evidence_note(r, "PROMETHEUS_URL not set: no Prometheus query endpoint was asked");
	sb_free(&open);
	sb_free(&local);
	sb_free(&prom);
	r_ref(r, "https://docs.nvidia.com/datacenter/dcgm/latest/reference/command-line-reference/dcgm-exporter.html");
	r_ref(r, "https://prometheus.io/docs/prometheus/latest/querying/api/");
}

/* ---- hardware.arm-smmu-cmdqv ------------------------------------------------- */

/* NVIDIA GPUs whose DMA the SMMU translates (an IOMMU group of type DMA or
 * DMA-FQ): only translated mappings are invalidated through the command
 * queue. -1 when the PCI facts do not say. */
static int gpus_translated(struct audit_ctx *ctx)
{
	enum col_state st;
	json_t *pci = facts_get(ctx, "pci", &st);
	if (st != COL_OK)
		return -1;
	int n = 0, seen = 0;
	size_t i;
	json_t *d;
	json_array_foreach(fact_get(pci, "devices"), i, d) {
		const char *kind = fact_str(d, "kind"), *v = fact_str(d, "vendor"), *t = fact_str(d, "iommu_group_type");
		if (!kind || strcmp(kind, "gpu") || !v || strcasecmp(v, "0x10de"))
			continue;
		seen++;
		n += t && (!strcmp(t, "DMA") || !strcmp(t, "DMA-FQ"));
	}
	return seen ? n : -1;
}

/* identity: a bare-metal host whose GPUs are all in identity domains, where
 * no GPU mapping is ever invalidated, so a missing CMDQV costs nothing. */
static void cmdqv_grade(struct result *r, json_t *s, int vm, int identity)
{
	const char *cfg = fact_str(s, "kernel_config");
	size_t nsmmu = json_array_size(fact_get(s, "smmu3")), ncq = json_array_size(fact_get(s, "cmdqv_devices"));
	int lists = 0, iommu = 0;
	fact_bool(s, "device_lists_read", &lists);
	fact_bool(s, "iommu_class_read", &iommu);
	int missing = ncq == 0 || (cfg && !strcmp(cfg, "n"));
	if (!iommu || !lists) {
		r_skip(r, "/sys/class/iommu or the platform/ACPI device lists not readable");
	} else if (nsmmu == 0) {
		r_skip(r, "no SMMUv3 registered under /sys/class/iommu (IOMMU off or passthrough): nothing to virtualise");
	} else if (missing && identity) {
		r_skip(r, "no CMDQV in use, but this bare-metal Grace keeps its GPUs in identity (passthrough) IOMMU "
		       "domains: no GPU mapping is invalidated through the SMMU command queue (CMDQV bears on VMs and "
		       "translated domains)");
	} else if (ncq == 0) {
		r_warn(r, "Grace %s: %zu SMMUv3 instance%s and no Tegra241 CMDQV device (NVDA200C): every TLB and ATC "
		       "invalidation goes through the one shared command queue%s, which bottlenecks GPU and NIC DMA "
		       "mapping", vm ? "VM" : "host with translated GPU DMA", nsmmu, nsmmu == 1 ? "" : "s",
		       vm ? " and traps to the hypervisor" : "");
		r_remedy(r, "Boot a kernel with CONFIG_TEGRA241_CMDQV (6.12+, or the NVIDIA kernel) and firmware that "
			 "publishes NVDA200C; for VMs, a host kernel and VMM (QEMU with the accelerated SMMUv3 / "
			 "tegra241-cmdqv vIOMMU) that expose VCMDQs to the guest.");
	} else if (missing) {
		r_warn(r, "the firmware publishes %zu CMDQV device%s but the running kernel is built without "
		       "CONFIG_TEGRA241_CMDQV: the SMMU falls back to its single command queue", ncq, ncq == 1 ? "" : "s");
		r_remedy(r, "Boot a kernel built with CONFIG_TEGRA241_CMDQV=y (the NVIDIA kernels for Grace have it).");
	} else {
		r_pass(r, "%zu SMMUv3 instance%s with %zu Tegra241 CMDQV device%s%s", nsmmu, nsmmu == 1 ? "" : "s", ncq,
		       ncq == 1 ? "" : "s", cfg ? (strcmp(cfg, "y") ? " (CONFIG_TEGRA241_CMDQV=m)" : " (CONFIG_TEGRA241_CMDQV=y)") : "");
	}
}

void check_fab_arm_smmu_cmdqv(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "fabric");
	if (!f)
		return;
	json_t *s = fact_get(f, "smmu");
	r_observed(r, json_deep_copy(s ? s : json_null()));
	r_expectedf(r, "on Grace: the SMMUv3 with its Tegra241 CMDQV (ACPI NVDA200C) in use, kernel built with "
		       "CONFIG_TEGRA241_CMDQV");
	const char *arch = fact_str(s, "arch"), *part = fact_str(s, "cpu_part");
	if (!arch) {
		r_skip(r, "CPU architecture unknown");
		return;
	}
	if (strcmp(arch, "aarch64") || !part || strcasecmp(part, "0xd4f")) {
		r_skip(r, "not a Grace CPU (%s%s%s): CMDQV is an NVIDIA Grace (Tegra241) SMMU extension", arch,
		       part ? ", CPU part " : "", part ? part : "");
		return;
	}
	if (chk_nvidia_gpus(ctx) == 0) {
		r_skip(r, "Grace without NVIDIA GPUs: no GPU DMA goes through the SMMU");
		return;
	}
	enum col_state ost;
	int vm = 0;
	json_t *os = facts_get(ctx, "os", &ost);
	fact_bool(os, "is_vm", &vm);
	chk_attach_evidence(ctx, r, "fabric", "SMMUv3");
	chk_attach_evidence(ctx, r, "fabric", "/boot/config-");
	cmdqv_grade(r, s, vm, !vm && gpus_translated(ctx) == 0);
	r_ref(r, "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id=918eb5c856f6ce4cf93b4b38e4b5e156905c5943");
	r_ref(r, "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id=4dc0d12474f9d4833c3dd96b73d61e406d3f5dc7");
}
