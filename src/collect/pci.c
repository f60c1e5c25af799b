/* The PCI topology as sysfs shows it: every function under
 * /sys/bus/pci/devices with its ids, class, bound driver, NUMA node, IOMMU
 * group (and the group's default domain type), link speed and width, the
 * chain of bridges above it (from the canonical sysfs path), and for bridges
 * the port type and ACS state decoded from `config`. One walk feeds the ACS,
 * IOMMU, NUMA-affinity, GPUDirect and GPU link checks.
 *
 * Facts: {devices: [{bdf, vendor, device, class, kind, driver, numa_node,
 * iommu_group, iommu_group_type, current_link_speed, max_link_speed,
 * current_link_width, max_link_width, upstream: [bdf...], port_type?,
 * acs?}], nvidia_gpus, amd_gpus, mellanox_nics, rdma_nics, gpus, nics,
 * unidentified (functions whose vendor or class could not be read: the
 * counts are lower bounds by that much),
 * iommu: {groups, types: {type: n}, cmdline: {...}}}. numa_node keeps the
 * kernel's -1 ("no proximity information"); null means unreadable. */
#include "collect/collectors.h"
#include "collect/pci_acs.h"
#include "core/privilege.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/lspci_hex.h"
#include "parse/procfs.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PCI_DEVICES "/sys/bus/pci/devices"
#define IOMMU_GROUPS "/sys/kernel/iommu_groups"

/* dddd:bb:dd.f */
static int is_bdf(const char *s)
{
	static const char pat[] = "xxxx:xx:xx.x";
	if (strlen(s) != sizeof pat - 1)
		return 0;
	for (size_t i = 0; pat[i]; i++) {
		if (pat[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != pat[i])
			return 0;
	}
	return 1;
}

static long hexval(const char *s, int *ok)
{
	char *end;
	*ok = 0;
	if (!s)
		return 0;
	errno = 0;
	long v = strtol(s, &end, 16);
	if (end == s || errno || *end)
		return 0;
	*ok = 1;
	return v;
}

/* sysfs prints "0x10de": keep that form, but only when it parses */
static long read_hex_fact(json_t *o, const char *key, const char *path, int width)
{
	char *s = col_read_quiet(path);
	int ok;
	long v = hexval(s, &ok);
	free(s);
	if (!ok) {
		fact_set_null(o, key);
		return -1;
	}
	char *t = xasprintf("0x%0*lx", width, v);
	fact_set_str(o, key, t);
	free(t);
	return v;
}

static int is_gpu(long vendor, long cls)
{
	long base = cls >> 8;
	if (vendor != 0x10de && vendor != 0x1002)
		return 0;
	/* VGA, 3D controller, other display (older Instinct), processing accelerator */
	return base == 0x0300 || base == 0x0302 || base == 0x0380 || base == 0x1200;
}

static int is_nic(long cls)
{
	return (cls >> 16) == 0x02;
}

/* NICs that speak RDMA verbs out of the box: Mellanox/NVIDIA ConnectX and
 * BlueField, AWS EFA, AMD Pensando. Other vendors' RoCE parts are counted
 * as plain NICs: whether their RDMA driver is in use is not a PCI fact. */
static int is_rdma_nic(long vendor, long device, long cls)
{
	long base = cls >> 8;
	if (vendor == 0x15b3)
		return base == 0x0200 || base == 0x0207;
	if (vendor == 0x1d0f)
		return (device & 0xfff0) == 0xefa0;
	if (vendor == 0x1dd8)
		return is_nic(cls);
	return 0;
}

static void link_fact(json_t *o, const char *key, const char *path)
{
	char *s = col_read_quiet(path);
	if (!s || !*s || strcmp(s, "Unknown") == 0)
		fact_set_null(o, key);
	else
		fact_set_str(o, key, s);
	free(s);
}

static void width_fact(json_t *o, const char *key, const char *path)
{
	long long v;
	/* 0 is what the kernel prints when it has no link registers to read */
	if (sr_read_ll(path, &v) == 0 && v > 0)
		fact_set_int(o, key, v);
	else
		fact_set_null(o, key);
}

/* The port type and ACS facts of decoded configuration space read from
 * path (a file, or the privileged command that printed it). */
static void acs_facts(json_t *d, json_t *acs, const struct pci_cfg_info *ci, const char *path, int *short_reads)
{
	size_t len = ci->len;
	fact_set_str(d, "port_type", pci_port_type_name(ci->port_type));
	fact_set_int(acs, "config_len", (long long)len);
	if (ci->acs < 0) {
		fact_set_bool(acs, "readable", 0);
		char *why;
		if (len <= 64) {
			why = xasprintf("%s: the kernel returned %zu bytes; the extended configuration space "
					"(where ACS lives) is only readable with CAP_SYS_ADMIN", path, len);
			(*short_reads)++;
		} else if (len <= 256) {
			why = xasprintf("%s: %zu bytes, no extended configuration space exposed "
					"(no ECAM/MMCONFIG access)", path, len);
		} else {
			why = xasprintf("%s: unparseable configuration space (%zu bytes)", path, len);
		}
		fact_set_str(acs, "why", why);
		free(why);
	} else {
		fact_set_bool(acs, "readable", 1);
		fact_set_bool(acs, "present", ci->acs == 1);
		if (ci->acs == 1) {
			char *cap = pci_acs_flags_str(ci->acs_cap), *ctl = pci_acs_flags_str(ci->acs_ctl);
			fact_set_int(acs, "offset", ci->acs_offset);
			fact_set_int(acs, "cap_bits", ci->acs_cap);
			fact_set_int(acs, "ctl_bits", ci->acs_ctl);
			fact_set_str(acs, "cap", cap);
			fact_set_str(acs, "ctl", ctl);
			fact_set_bool(acs, "redirect", (ci->acs_ctl & ACS_REDIRECT_MASK) != 0);
			free(cap);
			free(ctl);
		}
	}
}

/* Bridges: decode config space for the port type and ACS. */
static void bridge_facts(json_t *d, const char *base, int *short_reads)
{
	char *path = xasprintf("%s/config", base);
	char *buf = NULL;
	size_t len = 0;
	int rc = sr_read(path, 4096, &buf, &len, NULL);
	json_t *acs = json_object();
	if (rc != 0) {
		fact_set_null(d, "port_type");
		fact_set_bool(acs, "readable", 0);
		fact_set_null(acs, "config_len");
		char *why = xasprintf("%s: %s", path, strerror(-rc));
		fact_set_str(acs, "why", why);
		free(why);
		json_object_set_new(d, "acs", acs);
		free(path);
		return;
	}
	struct pci_cfg_info ci;
	pci_cfg_decode((const unsigned char *)buf, len, &ci);
	free(buf);
	acs_facts(d, acs, &ci, path, short_reads);
	json_object_set_new(d, "acs", acs);
	free(path);
}

/* The bridges above a GPU or a NIC: the ones hardware.pcie-acs grades. */
static int on_gpu_nic_path(const json_t *devs, const char *bdf)
{
	size_t i, k;
	json_t *d, *u;
	json_array_foreach(devs, i, d) {
		const char *kind = fact_str(d, "kind");
		if (!kind || (strcmp(kind, "gpu") && strcmp(kind, "nic")))
			continue;
		json_array_foreach(json_object_get(d, "upstream"), k, u)
			if (json_string_value(u) && strcasecmp(json_string_value(u), bdf) == 0)
				return 1;
	}
	return 0;
}

/* A bridge whose sysfs config stopped before the extended space (a tenant
 * gets 64 bytes) is read again as root reads it, when the sudo policy
 * allows (core/privilege.h): `lspci -xxxx -s BDF`. */
static void bridge_privileged(struct audit_ctx *ctx, struct col_run *c, json_t *d, int *priv_reads, int *short_reads)
{
	json_t *acs = json_object_get(d, "acs");
	int rd = 0;
	long long len = 0;
	if (fact_bool(acs, "readable", &rd) != 0 || rd || fact_int(acs, "config_len", &len) != 0 || len > 256)
		return;
	const char *bdf = fact_str(d, "bdf");
	const char *argv[] = { "lspci", "-xxxx", "-s", bdf, NULL };
	struct cmd_result r;
	char *why = NULL, *perr = NULL;
	if (col_run_priv(ctx, c, argv, 5000, &r, &why) != 0) {
		char *w = xasprintf("%s; not read with privilege: %s", fact_str(acs, "why"), why);
		fact_set_str(acs, "why", w);
		free(w);
		free(why);
		return;
	}
	unsigned char cfg[4096];
	size_t n = 0;
	if (!cmd_ok(&r) || lspci_hex_parse(r.out, r.out_len, cfg, sizeof cfg, &n, &perr) != 0) {
		char *how = cmd_ok(&r) ? perr : col_cmd_first_line(&r);
		char *w = xasprintf("%s; %s: %s", fact_str(acs, "why"), r.cmdline, how ? how : "failed");
		if (!cmd_ok(&r))
			free(how);
		fact_set_str(acs, "why", w);
		free(w);
		free(perr);
		cmd_result_free(&r);
		return;
	}
	char *src = xasprintf("%s -xxxx -s %s", priv_get_mode() == PRIV_DIRECT ? "lspci" : "sudo -n lspci", bdf);
	struct pci_cfg_info ci;
	pci_cfg_decode(cfg, n, &ci);
	json_t *nacs = json_object();
	fact_set_str(nacs, "source", src);
	if (len <= 64)
		(*short_reads)--; /* the sysfs read no longer stands */
	acs_facts(d, nacs, &ci, src, short_reads);
	json_object_set_new(d, "acs", nacs);
	(*priv_reads)++;
	free(src);
	cmd_result_free(&r);
}

static void iommu_facts(struct col_run *c, json_t *f, json_t *group_types)
{
	json_t *io = json_object();
	char **names = NULL;
	size_t n = 0;
	int rc = sr_list(IOMMU_GROUPS, &names, &n);
	fact_set_bool(io, "groups_dir", rc == 0);
	fact_set_int(io, "groups", rc == 0 ? (long long)n : 0);
	json_t *types = json_object();
	const char *k;
	json_t *v;
	json_object_foreach(group_types, k, v) {
		const char *t = json_string_value(v);
		if (!t)
			t = "unknown";
		json_t *cnt = json_object_get(types, t);
		json_object_set_new(types, t, json_integer(cnt ? json_integer_value(cnt) + 1 : 1));
	}
	json_object_set_new(io, "types", types);
	if (rc == 0)
		sr_list_free(names, n);

	/* The kernel parameters that decide the default domain and ACS. */
	json_t *cmd = json_object();
	char *cl = col_read(c, "/proc/cmdline");
	if (cl) {
		json_t *p = parse_cmdline(cl, strlen(cl));
		json_t *params = json_object_get(p, "params");
		static const char *const keys[] = {
			"iommu", "intel_iommu", "amd_iommu", "iommu.passthrough", "iommu.strict",
			"pci", NULL,
		};
		for (int i = 0; keys[i]; i++) {
			json_t *pv = json_object_get(params, keys[i]);
			if (json_is_string(pv) || json_is_true(pv))
				json_object_set_new(cmd, keys[i],
						    json_is_string(pv) ? json_copy(pv) : json_string(""));
		}
		json_decref(p);
		free(cl);
		fact_set_bool(io, "cmdline_read", 1);
	} else {
		fact_set_bool(io, "cmdline_read", 0);
	}
	json_object_set_new(io, "cmdline", cmd);
	json_object_set_new(f, "iommu", io);
}

static void upstream_chain(json_t *d, const char *bdf)
{
	char *p = xasprintf(PCI_DEVICES "/%s", bdf);
	char *real = sr_realpath(p);
	free(p);
	json_t *up = json_array();
	if (!real) {
		json_object_set_new(d, "upstream", json_null());
		json_decref(up);
		return;
	}
	char *save = NULL;
	for (char *t = strtok_r(real, "/", &save); t; t = strtok_r(NULL, "/", &save))
		if (is_bdf(t) && strcasecmp(t, bdf) != 0)
			json_array_append_new(up, json_string(t));
	free(real);
	json_object_set_new(d, "upstream", up);
}

/* What the functions add up to, over the whole bus. */
struct pci_tally {
	long nv, amd, mlx, rdma, gpus, nics, unidentified;
	int short_reads, bridges;
	json_t *group_types; /* IOMMU group -> its type, each read once */
};

/* vendor, device, class, and from them the function's kind. */
static const char *pci_kind(json_t *d, const char *base, struct pci_tally *t)
{
	char *p = xasprintf("%s/vendor", base);
	long vendor = read_hex_fact(d, "vendor", p, 4);
	free(p);
	p = xasprintf("%s/device", base);
	long device = read_hex_fact(d, "device", p, 4);
	free(p);
	p = xasprintf("%s/class", base);
	long cls = read_hex_fact(d, "class", p, 6);
	free(p);

	const char *kind = "other";
	/* vendor or class unread: the function could be anything, so the
	 * counts below are lower bounds (the unidentified fact says by how much) */
	if (vendor < 0 || cls < 0) {
		kind = "unidentified";
		t->unidentified++;
	}
	if (vendor >= 0 && cls >= 0) {
		if (is_gpu(vendor, cls)) {
			kind = "gpu";
			t->gpus++;
			t->nv += vendor == 0x10de;
			t->amd += vendor == 0x1002;
		} else if (is_nic(cls)) {
			kind = "nic";
			t->nics++;
			t->mlx += vendor == 0x15b3 && ((cls >> 8) == 0x0200 || (cls >> 8) == 0x0207);
			t->rdma += is_rdma_nic(vendor, device, cls);
		} else if ((cls >> 8) == 0x0604) {
			kind = "bridge";
		}
	}
	fact_set_str(d, "kind", kind);
	if (strcmp(kind, "nic") == 0)
		fact_set_bool(d, "rdma", is_rdma_nic(vendor, device, cls));
	return kind;
}

static void pci_iommu_group(json_t *d, const char *base, json_t *group_types)
{
	char *p = xasprintf("%s/iommu_group", base);
	char *grp = sr_link_basename(p);
	free(p);
	char *end = NULL;
	long g = grp ? strtol(grp, &end, 10) : -1;
	if (grp && end != grp && *end == 0) {
		fact_set_int(d, "iommu_group", g);
		json_t *t = json_object_get(group_types, grp);
		if (!t) {
			char *tp = xasprintf(IOMMU_GROUPS "/%s/type", grp);
			char *ts = col_read_quiet(tp);
			t = ts ? json_string(ts) : json_null();
			json_object_set_new(group_types, grp, t);
			free(ts);
			free(tp);
		}
		json_object_set(d, "iommu_group_type", t);
	} else {
		fact_set_null(d, "iommu_group");
		fact_set_null(d, "iommu_group_type");
	}
	free(grp);
}

/* One function's facts, read from its sysfs directory. */
static json_t *pci_device(const char *bdf, struct pci_tally *t)
{
	char *base = xasprintf(PCI_DEVICES "/%s", bdf);
	json_t *d = json_object();
	fact_set_str(d, "bdf", bdf);
	const char *kind = pci_kind(d, base, t);

	char *p = xasprintf("%s/driver", base);
	char *drv = sr_link_basename(p);
	fact_set_str(d, "driver", drv);
	free(drv);
	free(p);

	long long numa;
	p = xasprintf("%s/numa_node", base);
	if (sr_read_ll(p, &numa) == 0)
		fact_set_int(d, "numa_node", numa);
	else
		fact_set_null(d, "numa_node");
	free(p);

	pci_iommu_group(d, base, t->group_types);

	static const char *const speeds[] = { "current_link_speed", "max_link_speed" };
	static const char *const widths[] = { "current_link_width", "max_link_width" };
	for (int k = 0; k < 2; k++) {
		p = xasprintf("%s/%s", base, speeds[k]);
		link_fact(d, speeds[k], p);
		free(p);
		p = xasprintf("%s/%s", base, widths[k]);
		width_fact(d, widths[k], p);
		free(p);
	}
	upstream_chain(d, bdf);
	if (strcmp(kind, "bridge") == 0) {
		t->bridges++;
		bridge_facts(d, base, &t->short_reads);
	}
	free(base);
	return d;
}

void collect_pci(struct audit_ctx *ctx, struct col_run *c)
{
	char **names = NULL;
	size_t n = 0;
	int rc = sr_list(PCI_DEVICES, &names, &n);
	if (rc != 0 || n == 0) {
		if (rc == 0)
			sr_list_free(names, n);
		if (rc == -EACCES || rc == -EPERM)
			col_set_state(c, COL_DENIED, "%s is not readable: %s", PCI_DEVICES, strerror(-rc));
		else
			col_set_state(c, COL_ABSENT, "no PCI devices visible under %s%s", PCI_DEVICES,
				      rc ? " (directory missing: PCI topology not exposed here)" : "");
		return;
	}

	json_t *f = c->facts, *devs = json_array();
	struct pci_tally t = { .group_types = json_object() };
	for (size_t i = 0; i < n; i++)
		if (is_bdf(names[i]))
			json_array_append_new(devs, pci_device(names[i], &t));
	sr_list_free(names, n);
	int priv_reads = 0;
	size_t i;
	json_t *d;
	json_array_foreach(devs, i, d)
		if (fact_str(d, "kind") && strcmp(fact_str(d, "kind"), "bridge") == 0 &&
		    on_gpu_nic_path(devs, fact_str(d, "bdf")))
			bridge_privileged(ctx, c, d, &priv_reads, &t.short_reads);

	json_object_set_new(f, "devices", devs);
	fact_set_int(f, "nvidia_gpus", t.nv);
	fact_set_int(f, "amd_gpus", t.amd);
	fact_set_int(f, "gpus", t.gpus);
	fact_set_int(f, "nics", t.nics);
	fact_set_int(f, "mellanox_nics", t.mlx);
	fact_set_int(f, "rdma_nics", t.rdma);
	fact_set_int(f, "bridges", t.bridges);
	fact_set_int(f, "unidentified", t.unidentified);
	fact_set_int(f, "config_short_reads", t.short_reads);
	fact_set_int(f, "config_privileged_reads", priv_reads);
	iommu_facts(c, f, t.group_types);
	json_decref(t.group_types);
	col_evidence_note(c, "%zu PCI functions under %s: %ld GPU (%ld NVIDIA, %ld AMD), %ld NIC (%ld RDMA), %d bridges%s%s%s",
			  json_array_size(devs), PCI_DEVICES, t.gpus, t.nv, t.amd, t.nics, t.rdma, t.bridges,
			  t.short_reads ? "; bridge config space truncated to 64 bytes (unprivileged read)" : "",
			  priv_reads ? "; the configuration space of bridges between GPUs and NICs read with privilege "
				       "(lspci -xxxx)" : "",
			  t.unidentified ? "; some functions unidentified (vendor or class unreadable)" : "");
}
