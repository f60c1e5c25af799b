/* RDMA and fabric networking from sysfs: every RDMA device under
 * /sys/class/infiniband (firmware, ports, link layer, rate, the first GIDs)
 * and every netdev backed by a PCI function (operstate, type, driver).
 * HCAs and netdevs are tied together by PCI address, the one key both
 * trees share whatever the udev naming. Drivers come from the pci
 * collector when it knows the function, else from the driver link. */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GIDS 4

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

	/* GID 0/1 are link-local (fe80::), 2/3 carry the RoCE v1/v2 address of
	 * the netdev's IP; NCCL picking a link-local one is a known hang */
	json_t *gids = json_array();
	for (int g = 0; g < MAX_GIDS; g++) {
		char *gp = xasprintf("%s/gids/%d", dir, g);
		char *v = col_read_quiet(gp);
		json_array_append_new(gids, v ? json_string(v) : json_null());
		free(v);
		free(gp);
	}
	json_object_set_new(o, "gids", gids);
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

void collect_network(struct audit_ctx *ctx, struct col_run *c)
{
	enum col_state pst;
	json_t *pci = facts_get(ctx, "pci", &pst);
	if (pst != COL_OK)
		pci = NULL;
	collect_netdevs(c, c->facts, pci);
	collect_hcas(c, c->facts, pci);
}
