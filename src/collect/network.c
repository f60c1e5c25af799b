/* RDMA and fabric networking from sysfs: every RDMA device under
 * /sys/class/infiniband (firmware, ports, link layer, rate, the used GID
 * entries with their RoCE type and netdev) and every netdev backed by a
 * PCI function (operstate, type, driver); and from /etc, the interfaces an
 * address is configured for (netplan, ifupdown, ifcfg, NetworkManager,
 * networkd) and the network file systems of /etc/fstab with whether
 * /proc/mounts holds them.
 * HCAs and netdevs are tied together by PCI address, the one key both
 * trees share whatever the udev naming. Drivers come from the pci
 * collector when it knows the function, else from the driver link. */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/hostconf.h"
#include "parse/procfs.h"
#include "parse/rdma_gid.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define GID_SCAN 32

/* "4: ACTIVE" -> "ACTIVE"; a value without "N: " stays as it is. */
static char *strip_enum(char *s)
{
	if (!s)
		return NULL;
	char *p = s;
	while (isdigit((unsigned char)*p))
		p++;
	if (p != s && *p == ':') {
		p++;
		while (*p == ' ')
			p++;
		memmove(s, p, strlen(p) + 1);
	}
	return s;
}

/* The names the kernel prints as "N: NAME" (drivers/infiniband/core/sysfs.c:
 * state_show's ib_port_state names and phys_state_to_str). */
static const char *const port_states[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER", NULL };
static const char *const phys_states[] = { "Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp",
					   "LinkErrorRecovery", "Phy Test", NULL };

/* The state name of a port file, or NULL (malloc'd) when it holds none of
 * the kernel's names: garbage is an unknown state, never "down". */
static char *port_enum(const char *raw, const char *const *names)
{
	if (!raw)
		return NULL;
	char *v = strip_enum(xstrdup(raw));
	for (int i = 0; names[i]; i++)
		if (strcmp(v, names[i]) == 0)
			return v;
	free(v);
	return NULL;
}

static json_t *pci_device(json_t *pci, const char *bdf)
{
	json_t *d;
	size_t i;
	json_array_foreach(json_object_get(pci, "devices"), i, d) {
		const char *b = json_string_value(json_object_get(d, "bdf"));
		if (b && bdf && strcmp(b, bdf) == 0)
			return d;
	}
	return NULL;
}

static void read_str_fact(json_t *o, const char *key, const char *dir, const char *leaf)
{
	char *p = xasprintf("%s/%s", dir, leaf);
	char *v = col_read_quiet(p);
	fact_set_str(o, key, v);
	free(v);
	free(p);
}

/* The used entries of a port's GID table, with their RoCE type and netdev
 * (gid_attrs/, kernel 4.19+). On RoCE, entries 0/1 are the link-local
 * fe80:: pair (v1, v2) and each IP address of the netdev adds a pair;
 * NCCL picking a link-local one is the known hang. Unused slots (all
 * zero) are counted, not listed; a slot that holds no GID in the kernel's
 * format is listed as "invalid" so a check can tell garbage from absence. */
static void read_gids(json_t *o, const char *dir)
{
	char *gd = xasprintf("%s/gids", dir);
	char **names = NULL;
	size_t n = 0;
	json_t *gids = json_array();
	int rc = sr_list(gd, &names, &n);
	long long unused = 0;
	/* mlx5 RoCE tables have 255 slots and fill from the bottom: the first
	 * GID_SCAN hold 15 addresses per port beyond the link-local pair */
	for (size_t g = 0; rc == 0 && g < n && g < GID_SCAN; g++) {
		char *gp = xasprintf("%s/%zu", gd, g);
		char *v = col_read_quiet(gp);
		free(gp);
		if (!v)
			continue;
		char ip[16] = "";
		enum gid_kind k = gid_classify(v, strlen(v), ip, sizeof ip);
		if (k == GID_ZERO) {
			unused++;
			free(v);
			continue;
		}
		json_t *e = json_object();
		fact_set_int(e, "index", (long long)g);
		fact_set_str(e, "gid", v);
		fact_set_str(e, "kind", gid_kind_name(k));
		if (k == GID_IPV4)
			fact_set_str(e, "ipv4", ip);
		char *tp = xasprintf("%s/gid_attrs/types/%zu", dir, g);
		char *t = col_read_quiet(tp);
		fact_set_str(e, "type", t);
		free(t);
		free(tp);
		tp = xasprintf("%s/gid_attrs/ndevs/%zu", dir, g);
		t = col_read_quiet(tp);
		fact_set_str(e, "ndev", t);
		free(t);
		free(tp);
		json_array_append_new(gids, e);
		free(v);
	}
	sr_list_free(names, n);
	fact_set_bool(o, "gids_readable", rc == 0);
	fact_set_int(o, "gid_slots", (long long)n);
	fact_set_int(o, "gids_unused", unused);
	json_object_set_new(o, "gids", gids);
	free(gd);
}

static json_t *read_port(const char *hca, const char *port)
{
	char *dir = xasprintf("/sys/class/infiniband/%s/ports/%s", hca, port);
	json_t *o = json_object();
	char *end;
	long pn = strtol(port, &end, 10);
	if (*end == 0)
		fact_set_int(o, "port", pn);
	else
		fact_set_str(o, "port", port);

	static const char *const enums[] = { "state", "phys_state" };
	for (size_t k = 0; k < 2; k++) {
		char *p = xasprintf("%s/%s", dir, enums[k]);
		char *raw = col_read_quiet(p);
		char *v = port_enum(raw, k == 0 ? port_states : phys_states);
		fact_set_str(o, enums[k], v);
		/* read but no state the kernel prints: unknown, kept for the evidence */
		if (raw && !v) {
			char *key = xasprintf("%s_unparsed", enums[k]);
			fact_set_str(o, key, raw);
			free(key);
		}
		free(v);
		free(raw);
		free(p);
	}
	read_str_fact(o, "link_layer", dir, "link_layer");
	char *p = xasprintf("%s/rate", dir);
	char *rate = col_read_quiet(p);
	free(p);
	fact_set_str(o, "rate", rate);
	if (rate && isdigit((unsigned char)rate[0])) {
		/* "400 Gb/sec (4X NDR)"; old HCAs print "2.5 Gb/sec (1X SDR)" */
		double g = strtod(rate, NULL);
		if (g == (double)(long long)g)
			fact_set_int(o, "rate_gbps", (long long)g);
		else
			json_object_set_new(o, "rate_gbps", json_real(g));
	} else {
		fact_set_null(o, "rate_gbps");
	}
	free(rate);

	read_gids(o, dir);
	free(dir);
	return o;
}

static void collect_netdevs(struct col_run *c, json_t *f, json_t *pci)
{
	char **names = NULL;
	size_t n = 0;
	json_t *arr = json_array();
	int rc = sr_list("/sys/class/net", &names, &n);
	struct strbuf ev = STRBUF_INIT;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char *dl = xasprintf("/sys/class/net/%s/device", names[i]);
		char *bdf = sr_link_basename(dl);
		if (!bdf) {
			/* loopback, bridges, veths, bonds: no PCI function behind them */
			free(dl);
			continue;
		}
		json_t *o = json_object();
		fact_set_str(o, "name", names[i]);
		fact_set_str(o, "bdf", bdf);
		char *dir = xasprintf("/sys/class/net/%s", names[i]);
		read_str_fact(o, "operstate", dir, "operstate");
		long long type;
		char *tp = xasprintf("%s/type", dir);
		if (sr_read_ll(tp, &type) == 0)
			fact_set_int(o, "type", type);
		else
			fact_set_null(o, "type");
		free(tp);
		json_t *pd = pci_device(pci, bdf);
		const char *drv = json_string_value(json_object_get(pd, "driver"));
		char *drv2 = NULL;
		if (!drv) {
			char *p = xasprintf("%s/driver", dl);
			drv2 = sr_link_basename(p);
			free(p);
			drv = drv2;
		}
		fact_set_str(o, "driver", drv);
		sb_addf(&ev, "%s %s operstate=%s driver=%s\n", names[i], bdf,
			json_string_value(json_object_get(o, "operstate")) ?: "?", drv ? drv : "?");
		free(drv2);
		free(dir);
		free(dl);
		free(bdf);
		json_array_append_new(arr, o);
	}
	if (rc != 0)
		col_evidence_note(c, "/sys/class/net not listable: %s", strerror(-rc));
	else
		col_evidence_file(c, "/sys/class/net", ev.len ? sb_str(&ev) : "(no PCI-backed netdevs)");
	sb_free(&ev);
	sr_list_free(names, n);
	fact_set_bool(f, "net_readable", rc == 0);
	json_object_set_new(f, "netdevs", arr);
}

static void collect_hcas(struct col_run *c, json_t *f, json_t *pci)
{
	char **names = NULL;
	size_t n = 0;
	json_t *arr = json_array(), *netdevs = json_object_get(f, "netdevs");
	int rc = sr_list("/sys/class/infiniband", &names, &n);
	struct strbuf ev = STRBUF_INIT;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char *dir = xasprintf("/sys/class/infiniband/%s", names[i]);
		json_t *o = json_object();
		fact_set_str(o, "name", names[i]);
		read_str_fact(o, "fw_ver", dir, "fw_ver");
		read_str_fact(o, "hca_type", dir, "hca_type");
		read_str_fact(o, "board_id", dir, "board_id");
		read_str_fact(o, "node_guid", dir, "node_guid");
		char *dl = xasprintf("%s/device", dir);
		char *bdf = sr_link_basename(dl);
		free(dl);
		fact_set_str(o, "bdf", bdf);
		json_t *pd = pci_device(pci, bdf);
		const char *vendor = json_string_value(json_object_get(pd, "vendor"));
		const char *ht = json_string_value(json_object_get(o, "hca_type"));
		int mlx = vendor ? strcasecmp(vendor, "0x15b3") == 0
				 : (str_starts(names[i], "mlx") || (ht && str_starts(ht, "MT")));
		fact_set_bool(o, "mellanox", mlx);

		json_t *nd = json_array(), *d;
		size_t k;
		json_array_foreach(netdevs, k, d) {
			const char *b = json_string_value(json_object_get(d, "bdf"));
			if (bdf && b && strcmp(b, bdf) == 0)
				json_array_append_new(nd, json_string(json_string_value(json_object_get(d, "name"))));
		}
		json_object_set_new(o, "netdevs", nd);

		char *pdir = xasprintf("%s/ports", dir);
		char **ports = NULL;
		size_t np = 0;
		json_t *parr = json_array();
		if (sr_list(pdir, &ports, &np) == 0)
			for (size_t p = 0; p < np; p++)
				json_array_append_new(parr, read_port(names[i], ports[p]));
		sr_list_free(ports, np);
		free(pdir);
		json_object_set_new(o, "ports", parr);

		sb_addf(&ev, "%s fw=%s type=%s bdf=%s", names[i],
			json_string_value(json_object_get(o, "fw_ver")) ?: "?", ht ? ht : "?", bdf ? bdf : "?");
		json_array_foreach(parr, k, d)
			sb_addf(&ev, " port%lld=%s/%s %s %s", json_integer_value(json_object_get(d, "port")),
				json_string_value(json_object_get(d, "state")) ?: "?",
				json_string_value(json_object_get(d, "phys_state")) ?: "?",
				json_string_value(json_object_get(d, "link_layer")) ?: "?",
				json_string_value(json_object_get(d, "rate")) ?: "?");
		sb_adds(&ev, "\n");
		free(bdf);
		free(dir);
		json_array_append_new(arr, o);
	}
	if (rc == 0)
		col_evidence_file(c, "/sys/class/infiniband", ev.len ? sb_str(&ev) : "(empty)");
	else
		col_evidence_note(c, "no /sys/class/infiniband (%s): no RDMA devices registered", strerror(-rc));
	sb_free(&ev);
	sr_list_free(names, n);
	json_object_set_new(f, "hcas", arr);
	fact_set_int(f, "hca_count", (long long)json_array_size(arr));
}

/* ---- configured interfaces and network mounts ---- */

#define CONF_CAP (1 << 20)

/* A whole configuration file, or NULL (unreadable or absent). */
static char *read_conf(const char *path, size_t *len)
{
	char *buf = NULL;
	if (sr_read(path, CONF_CAP, &buf, len, NULL) != 0)
		return NULL;
	return buf;
}

/* Which parser reads the files of one directory. */
struct conf_dir {
	const char *dir, *prefix, *suffix, *format;
};

static json_t *parse_conf(const char *format, const char *name, const char *buf, size_t len)
{
	if (!strcmp(format, "netplan"))
		return parse_netplan(buf, len);
	if (!strcmp(format, "ifupdown"))
		return parse_ifupdown(buf, len);
	if (!strcmp(format, "ifcfg"))
		return parse_ifcfg(buf, len, name + strlen("ifcfg-"));
	if (!strcmp(format, "keyfile"))
		return parse_nm_keyfile(buf, len);
	return parse_networkd(buf, len);
}

static void add_conf_file(json_t *out, const char *path, const char *name, const char *format, int *nfiles)
{
	size_t len = 0;
	char *buf = read_conf(path, &len);
	if (!buf)
		return;
	(*nfiles)++;
	json_t *ifs = parse_conf(format, name, buf, len), *o;
	size_t i;
	json_array_foreach(ifs, i, o) {
		fact_set_str(o, "source", path);
		fact_set_str(o, "format", format);
		json_array_append(out, o);
	}
	json_decref(ifs);
	free(buf);
}

/* The netdev's operstate when the name is a plain netdev name (a networkd
 * glob or a netplan id that set-name did not rename may name none). */
static void conf_operstate(json_t *o, int net_readable)
{
	const char *name = fact_str(o, "name");
	if (!name || !*name || strpbrk(name, "*?[/") || !strcmp(name, ".") || !strcmp(name, "..") ||
	    json_is_true(json_object_get(o, "name_is_id"))) {
		fact_set_null(o, "operstate");
		return;
	}
	/* "eth0:1" (an ifupdown alias) is an address on eth0 */
	size_t n = strcspn(name, ":");
	char *p = xasprintf("/sys/class/net/%.*s/operstate", (int)n, name);
	char *v = col_read_quiet(p);
	char *d = xasprintf("/sys/class/net/%.*s", (int)n, name);
	/* configured but no such netdev: the NIC is gone or was renamed */
	if (!v && net_readable && !sr_exists(d))
		fact_set_str(o, "operstate", "absent");
	else
		fact_set_str(o, "operstate", v);
	free(d);
	free(v);
	free(p);
}

static const struct conf_dir conf_dirs[] = {
	{ "/etc/netplan", "", ".yaml", "netplan" },
	{ "/etc/network/interfaces.d", "", "", "ifupdown" },
	{ "/etc/sysconfig/network-scripts", "ifcfg-", "", "ifcfg" },
	{ "/etc/NetworkManager/system-connections", "", ".nmconnection", "keyfile" },
	{ "/etc/systemd/network", "", ".network", "networkd" },
	{ NULL, NULL, NULL, NULL },
};

/* Every interface an address is configured for, in the five formats. Only
 * the parsed names and addresses become evidence: keyfiles and netplan
 * files may hold Wi-Fi and 802.1X secrets. */
static void collect_netconf(struct col_run *c, json_t *f)
{
	json_t *ifs = json_array();
	int nfiles = 0;
	add_conf_file(ifs, "/etc/network/interfaces", "interfaces", "ifupdown", &nfiles);
	for (int d = 0; conf_dirs[d].dir; d++) {
		char **names = NULL;
		size_t n = 0;
		if (sr_list(conf_dirs[d].dir, &names, &n) != 0)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (!str_starts(names[i], conf_dirs[d].prefix) || !str_ends(names[i], conf_dirs[d].suffix) ||
			    names[i][0] == '.' || !strcmp(names[i], conf_dirs[d].prefix))
				continue;
			char *p = xasprintf("%s/%s", conf_dirs[d].dir, names[i]);
			add_conf_file(ifs, p, names[i], conf_dirs[d].format, &nfiles);
			free(p);
		}
		sr_list_free(names, n);
	}
	struct strbuf ev = STRBUF_INIT;
	size_t i;
	json_t *o, *a;
	int net_readable = 0;
	fact_bool(f, "net_readable", &net_readable);
	json_array_foreach(ifs, i, o) {
		conf_operstate(o, net_readable);
		sb_addf(&ev, "%s (%s, %s) operstate=%s%s", fact_str(o, "name"), fact_str(o, "format"),
			fact_str(o, "source"), fact_str(o, "operstate") ?: "?",
			json_is_true(json_object_get(o, "dhcp")) ? " dhcp" : "");
		size_t k;
		json_array_foreach(json_object_get(o, "addresses"), k, a)
			sb_addf(&ev, " %s", json_string_value(a));
		sb_adds(&ev, "\n");
	}
	col_evidence_note(c, "configured interfaces: %d configuration files read%s%s", nfiles, ev.len ? ":\n" : "",
			  sb_str(&ev));
	sb_free(&ev);
	fact_set_int(f, "netconf_files", nfiles);
	json_object_set_new(f, "configured_interfaces", ifs);
}

/* /proc/mounts, or NULL when unreadable or not the kernel's format (a
 * mount table always holds the root). */
static json_t *proc_mounts(void)
{
	char *buf = NULL;
	size_t len = 0;
	if (sr_read("/proc/mounts", 8 << 20, &buf, &len, NULL) != 0)
		return NULL;
	json_t *m = parse_mounts(buf, len), *e;
	free(buf);
	size_t i;
	int root = 0;
	json_array_foreach(m, i, e)
		root |= fact_str(e, "target") && !strcmp(fact_str(e, "target"), "/");
	if (!root) {
		json_decref(m);
		return NULL;
	}
	return m;
}

/* Something is mounted at target (an automount point counts: autofs
 * holds the place until first access). */
static int mounted_at(json_t *mounts, const char *target)
{
	size_t i, n = target ? strlen(target) : 0;
	json_t *e;
	while (n > 1 && target[n - 1] == '/')
		n--;
	json_array_foreach(mounts, i, e) {
		const char *t = fact_str(e, "target");
		if (t && strlen(t) == n && !strncmp(t, target, n))
			return 1;
	}
	return 0;
}

/* /etc/fstab's network file systems. The evidence leaves the options out
 * (a CIFS line may carry password=). */
static void collect_fstab(struct col_run *c, json_t *f)
{
	size_t len = 0;
	char *buf = read_conf("/etc/fstab", &len);
	json_t *fst = json_object();
	fact_set_bool(fst, "readable", buf != NULL);
	if (!buf) {
		col_evidence_note(c, "/etc/fstab unreadable or absent");
		json_object_set_new(fst, "network", json_array());
		json_object_set_new(f, "fstab", fst);
		return;
	}
	json_t *all = parse_fstab(buf, len), *net = json_array(), *e;
	free(buf);
	json_t *mounts = proc_mounts();
	struct strbuf ev = STRBUF_INIT;
	size_t i;
	json_array_foreach(all, i, e) {
		if (!json_is_true(json_object_get(e, "network")))
			continue;
		sb_addf(&ev, "%s %s %s\n", fact_str(e, "source"), fact_str(e, "target"), fact_str(e, "fstype"));
		json_object_set_new(e, "mounted", mounts ? json_boolean(mounted_at(mounts, fact_str(e, "target")))
							 : json_null());
		json_array_append(net, e);
	}
	json_decref(mounts);
	fact_set_int(fst, "entries", (long long)json_array_size(all));
	json_decref(all);
	col_evidence_file(c, "/etc/fstab", ev.len ? sb_str(&ev) : "(no network file systems)");
	sb_free(&ev);
	json_object_set_new(fst, "network", net);
	json_object_set_new(f, "fstab", fst);
}

void collect_network(struct audit_ctx *ctx, struct col_run *c)
{
	enum col_state pst;
	json_t *pci = facts_get(ctx, "pci", &pst);
	if (pst != COL_OK)
		pci = NULL;
	collect_netdevs(c, c->facts, pci);
	collect_hcas(c, c->facts, pci);
	collect_netconf(c, c->facts);
	collect_fstab(c, c->facts);
}
