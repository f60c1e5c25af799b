/* What a tenant on this node can see of the boundaries between tenants:
 * the InfiniBand partitions its ports belong to and whether it can talk to
 * the subnet manager (MAD devices, `sminfo`), a BlueField DPU's RShim and
 * virtio-net emulation as the host sees them, NVLink fabric registration
 * and the IMEX channels that share GPU memory across an NVLink domain, the
 * metrics exporters listening on the node, and the Grace SMMU's command
 * queue virtualisation. Everything is read as the account the audit runs
 * under: a device node it cannot open is recorded as such, never opened
 * with privilege, and no command here writes (sminfo without -s is one
 * SubnGet(SMInfo) MAD). */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "collect/prom_probe.h"
#include "core/sysroot.h"
#include "parse/fabric.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define IB_CLASS "/sys/class/infiniband"
#define PCI_DEVICES "/sys/bus/pci/devices"
#define IMEX_CHANNELS "/dev/nvidia-caps-imex-channels"
#define IMEX_NODES "/etc/nvidia-imex/nodes_config.cfg"
#define NET_TCP_CAP (8u << 20) /* a socket line is ~150 bytes: 50,000 sockets */

/* ---- InfiniBand partitions ---------------------------------------------- */

/* The non-empty entries of one port's P_Key table, [{index, pkey}]; NULL
 * when the table is not readable. */
static json_t *port_pkeys(const char *port_dir, size_t *slots)
{
	char *d = xasprintf("%s/pkeys", port_dir);
	char **names = NULL;
	size_t n = 0;
	int rc = sr_list(d, &names, &n);
	*slots = 0;
	if (rc != 0) {
		free(d);
		return NULL;
	}
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", d, names[i]);
		char *s = col_read_quiet(p);
		free(p);
		long v = s ? fab_parse_pkey(s, strlen(s)) : -1;
		free(s);
		if (v < 0)
			continue;
		(*slots)++;
		if ((v & 0x7fff) == 0)
			continue; /* an empty slot (0x0000, or 0x8000 which the spec also treats as invalid) */
		char *e = NULL;
		long idx = strtol(names[i], &e, 10);
		json_t *o = json_object();
		json_object_set_new(o, "index", e != names[i] && !*e ? json_integer(idx) : json_null());
		char hex[24];
		snprintf(hex, sizeof hex, "0x%04lx", v);
		json_object_set_new(o, "pkey", json_string(hex));
		json_array_append_new(arr, o);
	}
	sr_list_free(names, n);
	free(d);
	if (*slots == 0) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

/* A port's LID file ("0x1c"), or -1. */
static long long port_lid(const char *base, const char *name)
{
	char *p = xasprintf("%s/%s", base, name);
	char *s = col_read_quiet(p);
	free(p);
	char *e = NULL;
	long long v = s && str_starts(s, "0x") ? strtoll(s + 2, &e, 16) : -1;
	if (!e || *e || v < 0 || v > 0xffff)
		v = -1;
	free(s);
	return v;
}

/* One port's facts: link layer, P_Key table, its LID and the SM's. */
static json_t *ib_port(struct col_run *c, const char *dev, const char *port, const char *base)
{
	char *ll_path = xasprintf("%s/link_layer", base);
	char *ll = col_read_quiet(ll_path);
	size_t slots;
	json_t *pk = port_pkeys(base, &slots);
	json_t *o = json_object();
	fact_set_str(o, "device", dev);
	fact_set_str(o, "port", port);
	fact_set_str(o, "link_layer", ll);
	json_object_set_new(o, "pkeys", pk ? pk : json_null());
	long long lid = port_lid(base, "lid"), sm = port_lid(base, "sm_lid");
	json_object_set_new(o, "lid", lid < 0 ? json_null() : json_integer(lid));
	json_object_set_new(o, "sm_lid", sm < 0 ? json_null() : json_integer(sm));
	if (pk)
		col_evidence_note(c, "%s/pkeys: %zu readable slots, %zu in use", base, slots, json_array_size(pk));
	free(ll);
	free(ll_path);
	return o;
}

static void collect_ib_ports(struct col_run *c, json_t *f)
{
	json_t *ports = json_array();
	char **devs = NULL;
	size_t nd = 0;
	long ib = 0, eth = 0;
	int listed = sr_list(IB_CLASS, &devs, &nd) == 0;
	for (size_t i = 0; listed && i < nd; i++) {
		char *pd = xasprintf(IB_CLASS "/%s/ports", devs[i]);
		char **pn = NULL;
		size_t np = 0;
		if (sr_list(pd, &pn, &np) == 0) {
			for (size_t k = 0; k < np; k++) {
				char *base = xasprintf("%s/%s", pd, pn[k]);
				json_t *o = ib_port(c, devs[i], pn[k], base);
				const char *ll = fact_str(o, "link_layer");
				ib += ll && !strcmp(ll, "InfiniBand");
				eth += ll && !strcmp(ll, "Ethernet");
				json_array_append_new(ports, o);
				free(base);
			}
			sr_list_free(pn, np);
		}
		free(pd);
	}
	if (listed)
		sr_list_free(devs, nd);
	json_object_set_new(f, "ib_ports", ports);
	fact_set_int(f, "ib_port_count", ib);
	fact_set_int(f, "eth_port_count", eth);
}

/* ---- MAD access and the subnet manager ---------------------------------- */

/* /dev/infiniband/umadN and issmN, and whether this account can open them
 * read-write (libibumad opens O_RDWR). */
static int collect_umad(struct col_run *c, json_t *f)
{
	json_t *o = json_object(), *arr = json_array();
	char **names = NULL;
	size_t n = 0;
	int any = 0, open_rw = 0, listed = sr_list("/dev/infiniband", &names, &n) == 0;
	for (size_t i = 0; listed && i < n; i++) {
		if (!str_starts(names[i], "umad") && !str_starts(names[i], "issm"))
			continue;
		char *p = xasprintf("/dev/infiniband/%s", names[i]);
		int rw = sr_access(p, R_OK | W_OK) == 0;
		json_t *d = json_object();
		fact_set_str(d, "path", p);
		fact_set_bool(d, "read_write", rw);
		json_array_append_new(arr, d);
		if (str_starts(names[i], "umad")) {
			any = 1;
			open_rw |= rw;
		}
		col_evidence_note(c, "%s exists; this account %s open it read-write", p, rw ? "can" : "cannot");
		free(p);
	}
	if (listed)
		sr_list_free(names, n);
	fact_set_bool(o, "dev_dir", listed);
	json_object_set_new(o, "devices", arr);
	fact_set_bool(o, "umad_present", any);
	fact_set_bool(o, "umad_open", open_rw);
	json_object_set_new(f, "mad", o);
	return open_rw;
}

static void collect_sminfo(struct col_run *c, json_t *f)
{
	json_t *o = json_object();
	const char *argv[] = { "sminfo", NULL };
	struct cmd_result r;
	col_run_cmd(c, argv, 10000, &r);
	if (r.outcome == RUN_NOT_FOUND) {
		fact_set_str(o, "tool", "missing");
	} else {
		json_t *sm = fab_parse_sminfo(r.out, r.out_len);
		fact_set_str(o, "tool", cmd_ok(&r) && json_object_size(sm) ? "answered" : "failed");
		if (!cmd_ok(&r) || !json_object_size(sm)) {
			char *why = col_cmd_first_line(&r);
			fact_set_str(o, "message", why);
			free(why);
		}
		json_object_update(o, sm);
		json_decref(sm);
	}
	cmd_result_free(&r);
	json_object_set_new(f, "sminfo", o);
}

/* An opensm.conf on this node: the SM_Key it configures (opensm's default
 * is 0, which protects nothing). */
static void collect_opensm_conf(struct col_run *c, json_t *f)
{
	static const char *const paths[] = { "/etc/opensm/opensm.conf", "/etc/rdma/opensm.conf", NULL };
	json_t *o = json_object();
	for (int i = 0; paths[i]; i++) {
		if (!sr_exists(paths[i]))
			continue;
		char *s = col_read(c, paths[i]);
		unsigned long long key = 0;
		fact_set_str(o, "path", paths[i]);
		if (s && fab_parse_opensm_smkey(s, strlen(s), &key))
			fact_set_bool(o, "sm_key_zero", key == 0);
		else
			fact_set_null(o, "sm_key_zero");
		free(s);
		break;
	}
	json_object_set_new(f, "opensm_conf", o);
}

/* ---- BlueField ----------------------------------------------------------- */

/* PCI ids of vendor 15b3 that are BlueField functions (pci.ids, 2023.04.10):
 * the integrated ConnectX ("nic"), the SoC management interface the host's
 * rshim driver binds to ("rshim"), the SoC itself ("soc") and its bridges. */
static const struct { unsigned id; const char *role, *name; } bf_ids[] = {
	{ 0xa2d2, "nic", "BlueField integrated ConnectX-5" },
	{ 0xa2d6, "nic", "BlueField-2 integrated ConnectX-6 Dx" },
	{ 0xa2d9, "nic", "BlueField-3 Lx integrated ConnectX-7" },
	{ 0xa2dc, "nic", "BlueField-3 integrated ConnectX-7" },
	{ 0xa2df, "nic", "BlueField-4 integrated network controller" },
	{ 0xc2d2, "rshim", "BlueField SoC management interface" },
	{ 0xc2d3, "rshim", "BlueField-2 SoC management interface" },
	{ 0xc2d4, "rshim", "BlueField-3 Lx SoC management interface" },
	{ 0xc2d5, "rshim", "BlueField-3 SoC management interface" },
	{ 0xc2d6, "rshim", "BlueField-4 SoC management interface" },
	{ 0xa2d0, "soc", "BlueField SoC" }, { 0xa2d1, "soc", "BlueField SoC" },
	{ 0xa2d4, "soc", "BlueField-2 SoC" }, { 0xa2d5, "soc", "BlueField-2 SoC" },
	{ 0xa2d7, "soc", "BlueField-3 Lx SoC" }, { 0xa2d8, "soc", "BlueField-3 Lx SoC" },
	{ 0xa2da, "soc", "BlueField-3 SoC" }, { 0xa2db, "soc", "BlueField-3 SoC" },
	{ 0x1975, "bridge", "BlueField SoC PCIe bridge" }, { 0x1978, "bridge", "BlueField-2 SoC PCIe bridge" },
	{ 0x197a, "bridge", "BlueField-3 Lx SoC PCIe bridge" }, { 0x197b, "bridge", "BlueField-3 SoC PCIe bridge" },
	{ 0x2021, "bridge", "BlueField-2 SoC emulated PCIe bridge" },
	{ 0x2024, "bridge", "BlueField-3 SoC emulated PCIe bridge" },
};

static int bf_lookup(const json_t *d)
{
	const char *v = fact_str(d, "vendor"), *dev = fact_str(d, "device");
	if (!v || !dev || strcasecmp(v, "0x15b3") != 0)
		return -1;
	unsigned long id = strtoul(dev, NULL, 16);
	for (size_t i = 0; i < sizeof bf_ids / sizeof *bf_ids; i++)
		if (bf_ids[i].id == id)
			return (int)i;
	return -1;
}

static void collect_bluefield_pci(json_t *pci_devs, json_t *o)
{
	json_t *fns = json_array();
	size_t i;
	json_t *d;
	long nic = 0, rshim = 0;
	json_array_foreach(pci_devs, i, d) {
		int k = bf_lookup(d);
		if (k < 0)
			continue;
		json_t *e = json_object();
		fact_set_str(e, "bdf", fact_str(d, "bdf"));
		fact_set_str(e, "device", fact_str(d, "device"));
		fact_set_str(e, "role", bf_ids[k].role);
		fact_set_str(e, "name", bf_ids[k].name);
		fact_set_str(e, "driver", fact_str(d, "driver"));
		json_array_append_new(fns, e);
		nic += !strcmp(bf_ids[k].role, "nic");
		rshim += !strcmp(bf_ids[k].role, "rshim");
	}
	json_object_set_new(o, "functions", fns);
	fact_set_int(o, "nic_functions", nic);
	fact_set_int(o, "rshim_functions", rshim);
}

/* INTERNAL_CPU_RSHIM of each BlueField network function, read with
 * privilege (mlxconfig needs root to reach the configuration space):
 * {bdf: "ENABLED(0)"|"DISABLED(1)"|null}, and why not when not read. */
static void collect_rshim_config(struct audit_ctx *ctx, struct col_run *c, json_t *o)
{
	json_t *cfg = json_object();
	char *why_not = NULL;
	size_t i;
	json_t *fn;
	json_array_foreach(fact_get(o, "functions"), i, fn) {
		const char *bdf = fact_str(fn, "bdf"), *role = fact_str(fn, "role");
		if (!bdf || !role || strcmp(role, "nic") || why_not)
			continue;
		const char *argv[] = { "mlxconfig", "-d", bdf, "q", "INTERNAL_CPU_RSHIM", NULL };
		struct cmd_result r;
		char *why = NULL;
		if (col_run_priv(ctx, c, argv, 30000, &r, &why) != 0) {
			why_not = why; /* the same reason holds for every function */
			continue;
		}
		char *v = cmd_ok(&r) ? fab_parse_mlxconfig_value(r.out, r.out_len, "INTERNAL_CPU_RSHIM") : NULL;
		fact_set_str(cfg, bdf, v);
		if (!v) {
			char *line = col_cmd_first_line(&r);
			col_evidence_note(c, "mlxconfig -d %s: INTERNAL_CPU_RSHIM not read: %s", bdf, line);
			free(line);
		}
		free(v);
		cmd_result_free(&r);
	}
	json_object_set_new(o, "rshim_config", cfg);
	fact_set_str(o, "rshim_config_why_not", why_not);
	free(why_not);
}

static void collect_bluefield(struct audit_ctx *ctx, struct col_run *c, json_t *f, json_t *pci_devs)
{
	json_t *o = json_object();
	if (pci_devs) {
		collect_bluefield_pci(pci_devs, o);
		collect_rshim_config(ctx, c, o);
	} else {
		fact_set_null(o, "functions");
	}

	/* the rshim user-space driver (and the older kernel one) make one
	 * directory per DPU: /dev/rshim0/{boot,console,misc,rshim} */
	json_t *rdev = json_array();
	char **names = NULL;
	size_t n = 0;
	if (sr_list("/dev", &names, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			if (!str_starts(names[i], "rshim"))
				continue;
			char *p = xasprintf("/dev/%s", names[i]);
			json_array_append_new(rdev, json_string(p));
			col_evidence_note(c, "%s exists (RShim: boot stream, console and registers of the DPU)", p);
			free(p);
		}
		sr_list_free(names, n);
	}
	json_object_set_new(o, "rshim_devices", rdev);
	int tm = sr_exists("/sys/class/net/tmfifo_net0");
	fact_set_bool(o, "tmfifo_net0", tm);
	if (tm)
		col_evidence_note(c, "/sys/class/net/tmfifo_net0 exists (the host end of the RShim network)");

	enum col_state ms;
	json_t *mods = facts_get(ctx, "modules", &ms);
	if (ms == COL_OK)
		fact_set_bool(o, "rshim_module", fact_get(mods, "loaded.rshim_pcie") != NULL ||
						 fact_get(mods, "loaded.rshim_net") != NULL);
	else
		fact_set_null(o, "rshim_module");
	json_object_set_new(f, "bluefield", o);
}

/* virtio-net functions (1af4:1041 modern, 1af4:1000 transitional) and
 * whether a BlueField emulates them: subsystem vendor 15b3, or a BlueField
 * bridge upstream. */
static void collect_virtio_net(json_t *f, json_t *pci_devs)
{
	json_t *o = json_object(), *arr = json_array();
	size_t i, k;
	json_t *d, *u;
	long emulated = 0, unread = 0;
	json_array_foreach(pci_devs, i, d) {
		const char *v = fact_str(d, "vendor"), *dev = fact_str(d, "device"), *bdf = fact_str(d, "bdf");
		if (!v || !dev || !bdf || strcasecmp(v, "0x1af4") || (strcasecmp(dev, "0x1041") && strcasecmp(dev, "0x1000")))
			continue;
		char *p = xasprintf(PCI_DEVICES "/%s/subsystem_vendor", bdf);
		char *sv = col_read_quiet(p);
		free(p);
		int behind_bf = 0;
		json_array_foreach(fact_get(d, "upstream"), k, u) {
			json_t *up;
			size_t j;
			json_array_foreach(pci_devs, j, up)
				if (json_string_value(u) && fact_str(up, "bdf") && !strcasecmp(fact_str(up, "bdf"), json_string_value(u)) &&
				    bf_lookup(up) >= 0)
					behind_bf = 1;
		}
		int by_subsys = sv && !strcasecmp(sv, "0x15b3");
		json_t *e = json_object();
		fact_set_str(e, "bdf", bdf);
		fact_set_str(e, "device", dev);
		fact_set_str(e, "subsystem_vendor", sv);
		fact_set_str(e, "driver", fact_str(d, "driver"));
		fact_set_bool(e, "behind_bluefield", behind_bf);
		fact_set_bool(e, "bluefield_emulated", by_subsys || behind_bf);
		json_array_append_new(arr, e);
		emulated += by_subsys || behind_bf;
		unread += !sv && !behind_bf;
		free(sv);
	}
	json_object_set_new(o, "functions", arr);
	fact_set_int(o, "bluefield_emulated", emulated);
	fact_set_int(o, "unread", unread);
	json_object_set_new(f, "virtio_net", o);
}

/* ---- NVLink fabric and IMEX ---------------------------------------------- */

static void collect_nvlink_query(struct col_run *c, json_t *o)
{
	const char *argv[] = { "nvidia-smi", "--query-gpu=pci.bus_id,fabric.state,fabric.status,fabric.cliqueId,fabric.clusterUuid",
			       "--format=csv,noheader", NULL };
	struct cmd_result r;
	col_run_cmd(c, argv, 30000, &r);
	json_t *gpus = r.outcome == RUN_EXITED ? fab_parse_smi_fabric(r.out, r.out_len) : json_array();
	if (json_array_size(gpus)) {
		fact_set_str(o, "query", "answered");
		fact_set_null(o, "message");
	} else {
		char *why = col_cmd_first_line(&r);
		fact_set_str(o, "query", r.outcome == RUN_NOT_FOUND ? "missing" : "failed");
		fact_set_str(o, "message", why);
		free(why);
	}
	json_object_set_new(o, "gpus", gpus);
	cmd_result_free(&r);
}

static void collect_imex(struct col_run *c, json_t *o)
{
	json_t *ch = json_array();
	char **names = NULL;
	size_t n = 0;
	int listed = sr_list(IMEX_CHANNELS, &names, &n) == 0;
	for (size_t i = 0; listed && i < n; i++) {
		if (!str_starts(names[i], "channel"))
			continue;
		char *p = xasprintf(IMEX_CHANNELS "/%s", names[i]);
		int rw = sr_access(p, R_OK | W_OK) == 0;
		json_t *e = json_object();
		fact_set_str(e, "path", p);
		fact_set_bool(e, "read_write", rw);
		json_array_append_new(ch, e);
		col_evidence_note(c, "%s exists; this account %s open it", p, rw ? "can" : "cannot");
		free(p);
	}
	if (listed)
		sr_list_free(names, n);
	fact_set_bool(o, "imex_channel_dir", listed);
	json_object_set_new(o, "imex_channels", ch);
	char *cfg = sr_exists(IMEX_NODES) ? col_read(c, IMEX_NODES) : NULL;
	json_object_set_new(o, "imex_nodes", cfg ? fab_parse_imex_nodes(cfg, strlen(cfg)) : json_null());
	free(cfg);
}

static void collect_nvlink(struct audit_ctx *ctx, struct col_run *c, json_t *f)
{
	json_t *o = json_object();
	enum col_state ns;
	json_t *nv = facts_get(ctx, "nvidia", &ns);
	long long count = 0;
	/* one more nvidia-smi call only where the first one saw GPUs */
	if (ns == COL_OK && fact_int(nv, "count", &count) == 0 && count > 0) {
		collect_nvlink_query(c, o);
	} else {
		fact_set_str(o, "query", "not_run");
		fact_set_str(o, "message", ns == COL_OK ? "nvidia-smi lists no GPUs" : "the nvidia collector has no GPU list");
		json_object_set_new(o, "gpus", json_null());
	}
	collect_imex(c, o);
	json_object_set_new(f, "nvlink", o);
}

/* ---- listeners ------------------------------------------------------------ */

/* Ports of the metrics stack a tenant would query: dcgm-exporter,
 * node_exporter, Prometheus, Grafana (their documented defaults). */
static const struct { int port; const char *what; } metric_ports[] = {
	{ 9400, "dcgm-exporter" }, { 9100, "node_exporter" }, { 9090, "Prometheus" }, { 3000, "Grafana" },
};

static void add_listeners(struct col_run *c, const char *path, int ipv6, json_t *socks, int *read_any)
{
	char *s = NULL;
	size_t len = 0;
	int trunc = 0;
	if (sr_read(path, NET_TCP_CAP, &s, &len, &trunc) != 0)
		return;
	struct parse_count pc;
	json_t *all = fab_parse_proc_net_tcp(s, len, ipv6, &pc);
	col_evidence_note(c, "%s: %zu sockets, %zu listening%s", path, pc.recognised, json_array_size(all),
			  trunc ? " (truncated)" : "");
	if (pc.lines == 0 || pc.recognised > 0)
		*read_any = 1;
	size_t i;
	json_t *l;
	json_array_foreach(all, i, l) {
		json_int_t port = json_integer_value(json_object_get(l, "port"));
		for (size_t k = 0; k < sizeof metric_ports / sizeof *metric_ports; k++)
			if (metric_ports[k].port == port) {
				json_t *e = json_deep_copy(l);
				fact_set_str(e, "service", metric_ports[k].what);
				json_array_append_new(socks, e);
			}
	}
	json_decref(all);
	free(s);
}

static void collect_listeners(struct col_run *c, json_t *f)
{
	json_t *o = json_object(), *socks = json_array();
	int read_any = 0;
	add_listeners(c, "/proc/net/tcp", 0, socks, &read_any);
	add_listeners(c, "/proc/net/tcp6", 1, socks, &read_any);
	fact_set_bool(o, "socket_table_read", read_any);
	json_object_set_new(o, "metrics_listeners", socks);
	json_object_set_new(f, "listeners", o);
}

/* ---- Grace SMMU ------------------------------------------------------------ */

static json_t *list_prefixed(const char *dir, const char *prefix, int *listed)
{
	json_t *arr = json_array();
	char **names = NULL;
	size_t n = 0;
	*listed = sr_list(dir, &names, &n) == 0;
	for (size_t i = 0; *listed && i < n; i++)
		if (str_starts(names[i], prefix))
			json_array_append_new(arr, json_string(names[i]));
	if (*listed)
		sr_list_free(names, n);
	return arr;
}

/* CONFIG_TEGRA241_CMDQV in the running kernel's config: "y", "m", "n", or
 * NULL when there is no config to read. */
static void kernel_cmdqv_config(struct col_run *c, json_t *o, const char *release)
{
	char *p = release ? xasprintf("/boot/config-%s", release) : NULL;
	char *s = p && sr_exists(p) ? sr_read_str(p) : NULL;
	const char *v = NULL;
	if (s) {
		char *hit = strstr(s, "CONFIG_TEGRA241_CMDQV=");
		v = hit ? (hit[22] == 'y' ? "y" : hit[22] == 'm' ? "m" : NULL) :
			  strstr(s, "# CONFIG_TEGRA241_CMDQV is not set") ? "n" : NULL;
		col_evidence_note(c, "%s: CONFIG_TEGRA241_CMDQV %s", p, v ? v : "not mentioned");
	}
	fact_set_str(o, "kernel_config", v);
	free(s);
	free(p);
}

static void collect_smmu(struct audit_ctx *ctx, struct col_run *c, json_t *f)
{
	json_t *o = json_object();
	enum col_state os_st;
	json_t *os = facts_get(ctx, "os", &os_st);
	const char *arch = os_st == COL_OK ? fact_str(os, "arch") : NULL;
	const char *part = os_st == COL_OK ? fact_str(os, "cpu.part") : NULL;
	fact_set_str(o, "arch", arch);
	fact_set_str(o, "cpu_part", part);
	if (!arch || strcmp(arch, "aarch64") != 0) {
		json_object_set_new(f, "smmu", o);
		return;
	}
	int l1, l2, l3;
	json_object_set_new(o, "smmu3", list_prefixed("/sys/class/iommu", "smmu3.", &l1));
	fact_set_bool(o, "iommu_class_read", l1);
	json_t *cmdqv = list_prefixed("/sys/bus/platform/devices", "NVDA200C:", &l2);
	json_t *acpi = list_prefixed("/sys/bus/acpi/devices", "NVDA200C:", &l3);
	size_t i;
	json_t *v;
	json_array_foreach(acpi, i, v)
		fact_add_unique(cmdqv, json_string_value(v));
	json_decref(acpi);
	json_object_set_new(o, "cmdqv_devices", cmdqv);
	fact_set_bool(o, "device_lists_read", l2 || l3);
	col_evidence_note(c, "SMMUv3 instances under /sys/class/iommu: %zu; NVDA200C (Tegra241 CMDQV) devices: %zu",
			  json_array_size(json_object_get(o, "smmu3")), json_array_size(cmdqv));
	kernel_cmdqv_config(c, o, fact_str(os, "kernel_release"));
	json_object_set_new(f, "smmu", o);
}

void collect_fabric(struct audit_ctx *ctx, struct col_run *c)
{
	json_t *f = c->facts;
	enum col_state ps;
	json_t *pci = facts_get(ctx, "pci", &ps);
	json_t *pci_devs = ps == COL_OK ? fact_get(pci, "devices") : NULL;

	collect_ib_ports(c, f);
	long long ib = 0;
	fact_int(f, "ib_port_count", &ib);
	int mad_open = collect_umad(c, f);
	/* sminfo needs a MAD device it can open; without one it only says so */
	if (ib > 0 && mad_open)
		collect_sminfo(c, f);
	else
		fact_set_null(f, "sminfo");
	collect_opensm_conf(c, f);
	collect_bluefield(ctx, c, f, pci_devs);
	if (pci_devs)
		collect_virtio_net(f, pci_devs);
	else
		fact_set_null(f, "virtio_net");
	collect_nvlink(ctx, c, f);
	collect_listeners(c, f);
	prom_probe(c, f);
	collect_smmu(ctx, c, f);
}
