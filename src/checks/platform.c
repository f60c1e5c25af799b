/* The platform around the GPU: PCIe ACS on the GPU-NIC path, IOMMU domain
 * type, GPU HBM exposed as host NUMA memory, the GPUDirect RDMA path,
 * GDRCopy, CPU frequency governors and the GPUs' NUMA affinity. Facts come
 * from the pci, modules, numa, cpufreq and gdrcopy collectors (and, where
 * present, the os and nvidia collectors, which may be absent or broken:
 * every use below handles that). */
#include "checks/common.h"
#include "collect/collector.h"
#include "collect/pci_acs.h"
#include "core/strbuf.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NCCL_ACS_DOC "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html#pci-access-control-services-acs"
#define GDR_DOC "https://docs.nvidia.com/cuda/gpudirect-rdma/"
#define GDRCOPY_DOC "https://github.com/NVIDIA/gdrcopy"
#define GRACE_DOC "https://docs.nvidia.com/grace-perf-tuning-guide/"

/* ---- shared helpers ---------------------------------------------------- */

/* os facts, or NULL when that collector is not usable */
static json_t *os_facts(struct audit_ctx *ctx)
{
	enum col_state st;
	json_t *os = facts_get(ctx, "os", &st);
	return st == COL_OK ? os : NULL;
}

static int host_is_vm(struct audit_ctx *ctx)
{
	int b;
	if (ctx->target.mask & TGT_VM)
		return 1;
	return fact_bool(os_facts(ctx), "is_vm", &b) == 0 && b;
}

static int host_is_container(struct audit_ctx *ctx)
{
	int b;
	if (ctx->target.mask & TGT_CONTAINER)
		return 1;
	return fact_bool(os_facts(ctx), "is_container", &b) == 0 && b;
}

static json_t *pci_facts(struct audit_ctx *ctx)
{
	enum col_state st;
	json_t *f = facts_get(ctx, "pci", &st);
	return st == COL_OK ? f : NULL;
}

static long long count_fact(const json_t *f, const char *key)
{
	long long v;
	return f && fact_int(f, key, &v) == 0 ? v : -1;
}

static const json_t *device_by_bdf(const json_t *devs, const char *bdf)
{
	size_t i;
	json_t *d;
	json_array_foreach(devs, i, d) {
		const char *b = fact_str(d, "bdf");
		if (b && strcasecmp(b, bdf) == 0)
			return d;
	}
	return NULL;
}

static int dev_is(const json_t *d, const char *kind)
{
	const char *k = fact_str(d, "kind");
	return k && strcmp(k, kind) == 0;
}

static int dev_is_rdma_nic(const json_t *d)
{
	int b;
	return dev_is(d, "nic") && fact_bool(d, "rdma", &b) == 0 && b;
}

static void add_count(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	json_object_set_new(o, k, json_integer(v ? json_integer_value(v) + 1 : 1));
}

/* "a, b, c" of at most `max` strings of an array, with "and N more" */
static char *join_some(const json_t *arr, size_t max)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v) {
		if (i == max) {
			sb_addf(&sb, " and %zu more", json_array_size(arr) - max);
			break;
		}
		sb_addf(&sb, "%s%s", i ? ", " : "", json_string_value(v) ? json_string_value(v) : "?");
	}
	return sb_detach(&sb);
}

/* ---- hardware.pcie-acs --------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Ports below the lowest common ancestor of a GPU and a NIC: the switch ports
 * a peer-to-peer transfer between them crosses without going up to the root
 * complex. Returns the length of the common prefix (0 = they only meet in
 * the root complex, or in different host bridges). */
static size_t common_prefix(const json_t *a, const json_t *b)
{
	size_t k = 0;
	while (k < json_array_size(a) && k < json_array_size(b) &&
	       strcasecmp(json_string_value(json_array_get(a, k)), json_string_value(json_array_get(b, k))) == 0)
		k++;
	return k;
}

/* GPU-NIC pairs and the switch ports between them. */
struct acs_scan {
	json_t *ports; /* port bdf -> {gpu, nic} of the first pair that crosses it */
	long pairs, scoped, unresolved;
};

static void acs_scan_pairs(const json_t *gpus, const json_t *nics, struct acs_scan *sc)
{
	size_t i, j;
	json_t *g, *n;
	sc->ports = json_object();
	json_array_foreach(gpus, i, g) {
		json_array_foreach(nics, j, n) {
			const json_t *ug = json_object_get(g, "upstream"), *un = json_object_get(n, "upstream");
			sc->pairs++;
			if (!json_is_array(ug) || !json_is_array(un)) {
				sc->unresolved++;
				continue;
			}
			size_t k = common_prefix(ug, un);
			if (k == 0)
				continue;
			sc->scoped++;
			const json_t *sides[2] = { ug, un };
			for (int s = 0; s < 2; s++)
				for (size_t x = k; x < json_array_size(sides[s]); x++) {
					const char *p = json_string_value(json_array_get(sides[s], x));
					if (json_object_get(sc->ports, p))
						continue;
					json_t *via = json_object();
					json_object_set(via, "gpu", json_object_get(g, "bdf"));
					json_object_set(via, "nic", json_object_get(n, "bdf"));
					json_object_set_new(sc->ports, p, via);
				}
		}
	}
}

/* The ports by what their ACS control says. */
struct acs_lists {
	json_t *redirect, *clean, *unread;
	char *why_unread; /* the first unreadable port's reason */
	size_t privileged; /* ports whose ACS was read with privilege (collect/pci.c: lspci -xxxx) */
};

/* One port's row of the observation; the port goes to one of the lists. */
static json_t *acs_port_row(struct result *r, const json_t *devs, const char *k, const json_t *via,
			    struct acs_lists *L)
{
	const json_t *pd = device_by_bdf(devs, k);
	const json_t *acs = pd ? json_object_get(pd, "acs") : NULL;
	json_t *row = json_object();
	json_object_set_new(row, "port", json_string(k));
	json_object_set(row, "port_type", pd ? json_object_get(pd, "port_type") : json_null());
	json_object_set(row, "gpu", json_object_get(via, "gpu"));
	json_object_set(row, "nic", json_object_get(via, "nic"));
	int b;
	if (!acs) {
		/* not a bridge we decoded (should not happen below a switch) */
		json_array_append_new(L->unread, json_string(k));
		json_object_set_new(row, "acs_ctl", json_null());
	} else if (fact_bool(acs, "readable", &b) != 0 || !b) {
		json_array_append_new(L->unread, json_string(k));
		json_object_set_new(row, "acs_ctl", json_null());
		if (!L->why_unread && fact_str(acs, "why"))
			L->why_unread = xstrdup(fact_str(acs, "why"));
	} else if (fact_bool(acs, "present", &b) == 0 && !b) {
		json_array_append_new(L->clean, json_string(k));
		json_object_set_new(row, "acs_ctl", json_string("no ACS capability"));
	} else {
		const char *ctl = fact_str(acs, "ctl"), *src = fact_str(acs, "source");
		json_object_set_new(row, "acs_ctl", json_string(ctl ? ctl : "?"));
		if (src) {
			json_object_set_new(row, "read_by", json_string(src));
			L->privileged++;
		}
		long long bits = 0;
		fact_int(acs, "ctl_bits", &bits);
		if (bits & ACS_REDIRECT_MASK) {
			char *names = pci_acs_redirect_str((unsigned)bits);
			char *s = xasprintf("%s (%s)", k, names);
			json_array_append_new(L->redirect, json_string(s));
			if (json_array_size(L->redirect) <= 4) {
				char *path = xasprintf("/sys/bus/pci/devices/%s/config", k);
				char *ex = xasprintf("ACSCtl: %s (between GPU %s and NIC %s)", ctl ? ctl : "?",
						     fact_str(via, "gpu"), fact_str(via, "nic"));
				if (src)
					r_evidence_note(r, "%s: %s", src, ex);
				else
					r_evidence_file(r, path, ex);
				free(ex);
				free(path);
			}
			free(s);
			free(names);
		} else {
			json_array_append_new(L->clean, json_string(k));
		}
	}
	return row;
}

/* Every port between a GPU and a NIC, in bdf order so reports are stable
 * and readable: the observation's rows, and the lists the verdict reads. */
static json_t *acs_read_ports(struct result *r, const json_t *devs, const json_t *ports, struct acs_lists *L)
{
	size_t nports = json_object_size(ports);
	const char **order = xcalloc(nports ? nports : 1, sizeof *order);
	size_t oi = 0;
	const char *k;
	json_t *via;
	json_object_foreach((json_t *)ports, k, via)
		order[oi++] = k;
	qsort(order, nports, sizeof *order, cmp_str);
	json_t *detail = json_array();
	for (oi = 0; oi < nports; oi++)
		json_array_append_new(detail, acs_port_row(r, devs, order[oi], json_object_get(ports, order[oi]), L));
	free(order);
	return detail;
}

static void acs_verdict(struct result *r, const struct acs_lists *L, size_t nports, long scoped)
{
	if (json_array_size(L->redirect)) {
		char *list = join_some(L->redirect, 4);
		r_fail(r, "ACS P2P redirect enabled on %zu of %zu PCIe switch ports between GPUs and NICs: %s; "
		       "peer-to-peer traffic (GPUDirect RDMA) is forced up through the root complex",
		       json_array_size(L->redirect), nports, list);
		free(list);
		r_ref(r, NCCL_ACS_DOC);
	} else if (json_array_size(L->unread)) {
		char *list = join_some(L->unread, 4);
		r_skip(r, "needs root to read PCIe extended config space: ACS state of %zu of %zu switch ports "
		       "between GPUs and NICs unknown (%s)%s%s", json_array_size(L->unread), nports, list,
		       L->why_unread ? "; " : "", L->why_unread ? L->why_unread : "");
		free(list);
	} else {
		r_pass(r, "ACS P2P redirect off on all %zu PCIe switch ports between GPUs and NICs "
		       "(%ld GPU-NIC pairs share a switch)", nports, scoped);
	}
	if (L->privileged && r->status != ST_SKIP)
		r_evidence_note(r, "the ACS control of %zu of these ports was read with privilege (lspci -xxxx, "
			     "core/privilege.h): the tenant's sysfs view of their configuration space stops at 64 bytes",
			     L->privileged);
}

void check_pcie_acs(struct audit_ctx *ctx, struct result *r)
{
	r_reproduce(r, "sudo lspci -vvv | grep -E '^[0-9a-f]|ACSCtl'");
	if (host_is_vm(ctx)) {
		r_skip(r, "host matter: ACS is set on the physical host's PCIe switch ports, which a VM guest does not see");
		return;
	}
	json_t *pci = facts_get(ctx, "pci", NULL);
	json_t *devs = json_object_get(pci, "devices");
	json_t *gpus = json_array(), *nics = json_array();
	size_t i;
	json_t *d;
	json_array_foreach(devs, i, d) {
		if (dev_is(d, "gpu"))
			json_array_append(gpus, d);
		else if (dev_is(d, "nic"))
			json_array_append(nics, d);
	}
	if (!json_array_size(gpus) || !json_array_size(nics)) {
		r_skip(r, "not applicable: %s on this host, so there is no GPU-NIC PCIe path",
		       !json_array_size(gpus) ? "no GPU" : "no NIC");
		json_decref(gpus);
		json_decref(nics);
		return;
	}
	struct acs_scan sc = { 0 };
	acs_scan_pairs(gpus, nics, &sc);
	json_decref(gpus);
	json_decref(nics);

	json_t *obs = json_object();
	json_object_set_new(obs, "gpu_nic_pairs", json_integer(sc.pairs));
	json_object_set_new(obs, "pairs_sharing_a_switch", json_integer(sc.scoped));
	if (sc.scoped == 0) {
		json_decref(sc.ports);
		if (sc.unresolved == sc.pairs) {
			r_observed(r, obs);
			r_skip(r, "could not resolve the sysfs paths of the GPUs and NICs to their upstream bridges");
			return;
		}
		r_observed(r, obs);
		r_pass(r, "no GPU shares a PCIe switch with a NIC (%ld pairs): GPU-NIC traffic meets in the CPU "
		       "root complex, where switch-port ACS redirect does not reroute it", sc.pairs);
		return;
	}
	struct acs_lists L = { json_array(), json_array(), json_array(), NULL, 0 };
	size_t nports = json_object_size(sc.ports);
	json_object_set_new(obs, "ports", acs_read_ports(r, devs, sc.ports, &L));
	json_decref(sc.ports);
	r_observed(r, obs);
	r_expectedf(r, "ACSCtl ReqRedir- CmpltRedir- EgressCtrl- on every switch port between a GPU and a NIC");
	acs_verdict(r, &L, nports, sc.scoped);
	free(L.why_unread);
	json_decref(L.redirect);
	json_decref(L.clean);
	json_decref(L.unread);
}

/* ---- hardware.iommu-mode ------------------------------------------------- */

static char *cmdline_summary(const json_t *cmd)
{
	struct strbuf sb = STRBUF_INIT;
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)cmd, k, v) {
		const char *s = json_string_value(v);
		sb_addf(&sb, "%s%s%s%s", sb.len ? " " : "", k, s && *s ? "=" : "", s ? s : "");
	}
	char *out = sb_detach(&sb);
	if (!*out) {
		free(out);
		out = xstrdup("no IOMMU parameters");
	}
	return out;
}

static int cmdline_passthrough(const json_t *cmd)
{
	const char *pt = fact_str(cmd, "iommu"), *arm = fact_str(cmd, "iommu.passthrough");
	return (pt && strcmp(pt, "pt") == 0) ||
	       (arm && (strcmp(arm, "1") == 0 || strcasecmp(arm, "on") == 0 || strcasecmp(arm, "y") == 0));
}

void check_iommu_mode(struct audit_ctx *ctx, struct result *r)
{
	r_reproduce(r, "for d in /sys/bus/pci/devices/*; do g=$(readlink $d/iommu_group) && "
		       "echo \"${d##*/} $(cat $d/class) $(cat $d/iommu_group/type)\"; done; cat /proc/cmdline");
	if (host_is_vm(ctx)) {
		r_skip(r, "host matter: IOMMU translation of a passed-through device is configured on the physical host");
		return;
	}
	json_t *pci = facts_get(ctx, "pci", NULL);
	json_t *devs = json_object_get(pci, "devices");
	json_t *io = json_object_get(pci, "iommu");
	json_t *cmd = json_object_get(io, "cmdline");
	char *cl = cmdline_summary(cmd);
	long long groups = count_fact(io, "groups");

	json_t *types = json_object(), *translated = json_array(), *odd = json_array();
	long considered = 0, unknown = 0, ungrouped = 0;
	size_t i;
	json_t *d;
	json_array_foreach(devs, i, d) {
		if (!dev_is(d, "gpu") && !dev_is_rdma_nic(d))
			continue;
		considered++;
		const char *bdf = fact_str(d, "bdf");
		if (json_is_null(json_object_get(d, "iommu_group")) || !json_object_get(d, "iommu_group")) {
			ungrouped++;
			continue;
		}
		const char *t = fact_str(d, "iommu_group_type");
		if (!t) {
			unknown++;
			continue;
		}
		add_count(types, t);
		if (strcmp(t, "identity") == 0)
			continue;
		char *s = xasprintf("%s (%s)", bdf, t);
		json_array_append_new(strcmp(t, "DMA") == 0 || strcmp(t, "DMA-FQ") == 0 ? translated : odd,
				      json_string(s));
		free(s);
	}
	json_t *obs = json_object();
	json_object_set_new(obs, "gpu_and_rdma_nic_devices", json_integer(considered));
	json_object_set_new(obs, "domain_types", types);
	json_object_set_new(obs, "kernel_cmdline", json_string(cl));
	json_object_set_new(obs, "iommu_groups", groups >= 0 ? json_integer(groups) : json_null());
	r_observed(r, obs);
	r_expectedf(r, "identity (passthrough) default domain for GPUs and RDMA NICs, e.g. iommu=pt, or the IOMMU off");
	r_evidence_note(r, "kernel command line IOMMU parameters: %s", cl);

	if (considered == 0) {
		r_skip(r, "not applicable: no GPU or RDMA NIC on this host");
	} else if (groups <= 0 || ungrouped == considered) {
		r_pass(r, "IOMMU off: %s, so GPU and NIC DMA is not translated (%s)",
		       groups <= 0 ? "no IOMMU groups" : "no GPU or RDMA NIC is in an IOMMU group", cl);
	} else if (json_array_size(translated)) {
		char *list = join_some(translated, 4);
		r_warn(r, "IOMMU translates DMA for %zu of %ld GPU/RDMA NIC devices (%s; %s): GPUDirect RDMA and "
		       "peer-to-peer transfers pay for address translation",
		       json_array_size(translated), considered, list, cl);
		free(list);
		r_remedy(r, "Boot with iommu=pt (x86: with intel_iommu=on or amd_iommu=on) or "
			 "iommu.passthrough=1 (Arm) so GPUs and NICs get identity domains, or turn the IOMMU off "
			 "where no device is assigned to VMs; reboot and check "
			 "/sys/kernel/iommu_groups/*/type reads 'identity'.");
	} else if (json_array_size(odd)) {
		char *list = join_some(odd, 4);
		r_warn(r, "unexpected IOMMU domain type for %zu GPU/RDMA NIC devices: %s (%s)",
		       json_array_size(odd), list, cl);
		free(list);
	} else if (unknown) {
		if (cmdline_passthrough(cmd))
			r_pass(r, "passthrough requested on the kernel command line (%s); the group type of %ld "
			       "devices is not exposed by this kernel", cl, unknown);
		else
			r_skip(r, "could not read the IOMMU default domain type of %ld of %ld GPU/RDMA NIC devices "
			       "(/sys/kernel/iommu_groups/N/type needs Linux 5.11+) and the command line does not "
			       "request passthrough (%s)", unknown, considered, cl);
	} else {
		r_pass(r, "IOMMU passthrough (identity domain) for all %ld GPU/RDMA NIC devices in IOMMU groups (%s)",
		       considered - ungrouped, cl);
	}
	free(cl);
	json_decref(translated);
	json_decref(odd);
}

/* ---- hardware.hbm-numa --------------------------------------------------- */

void check_hbm_numa(struct audit_ctx *ctx, struct result *r)
{
	r_reproduce(r, "grep -H . /sys/devices/system/node/node*/cpulist; grep MemTotal /sys/devices/system/node/node*/meminfo");
	int nvidia = chk_nvidia_gpus(ctx);
	long long amd = count_fact(pci_facts(ctx), "amd_gpus");
	if (nvidia != 1 && amd <= 0) {
		r_skip(r, "not applicable: no GPU seen on this host");
		return;
	}
	enum col_state nst;
	json_t *numa = facts_get(ctx, "numa", &nst);
	if (nst != COL_OK) {
		struct col_run *cr = facts_run(ctx, "numa");
		r_skip(r, "could not read the NUMA layout: %s", cr && cr->reason ? cr->reason : "numa collector failed");
		return;
	}
	const char *arch = fact_str(os_facts(ctx), "arch");
	int grace = arch && strcmp(arch, "aarch64") == 0 && nvidia == 1;
	double min_gib = threshold(ctx, "platform.hbm_numa_min_gib", 64);
	long long min_kb = (long long)(min_gib * 1024 * 1024);

	json_t *layout = json_array(), *big = json_array();
	size_t i;
	json_t *nd;
	long unknown = 0;
	json_array_foreach(json_object_get(numa, "nodes"), i, nd) {
		long long id = -1, cpus = -1, kb = -1;
		fact_int(nd, "node", &id);
		int has_cpus = fact_int(nd, "cpus", &cpus) == 0;
		int has_mem = fact_int(nd, "mem_total_kb", &kb) == 0;
		struct strbuf sb = STRBUF_INIT;
		sb_addf(&sb, "node%lld: ", id);
		if (has_cpus)
			sb_addf(&sb, "%lld CPUs, ", cpus);
		else
			sb_adds(&sb, "? CPUs, ");
		if (has_mem)
			sb_addf(&sb, "%.0f GiB", kb / 1048576.0);
		else
			sb_adds(&sb, "? GiB");
		json_array_append_new(layout, json_string(sb_str(&sb)));
		sb_free(&sb);
		if (!has_cpus || !has_mem) {
			unknown++;
			continue;
		}
		if (cpus == 0 && kb >= min_kb) {
			char *b = xasprintf("node%lld (%.0f GiB, no CPUs)", id, kb / 1048576.0);
			json_array_append_new(big, json_string(b));
			free(b);
		}
	}
	json_t *obs = json_object();
	json_object_set_new(obs, "nodes", layout);
	json_object_set_new(obs, "arch", arch ? json_string(arch) : json_null());
	json_object_set_new(obs, "memory_only_nodes_over_threshold", json_copy(big));
	r_observed(r, obs);
	r_expectedf(r, "no memory-only NUMA node of %.0f GiB or more on Grace systems (CDMM: HBM managed by the driver)",
		    min_gib);
	char *lay = join_some(layout, 8);

	if (json_array_size(big) && grace) {
		char *list = join_some(big, 4);
		r_fail(r, "GPU HBM onlined as host memory: %zu memory-only NUMA node(s) of %.0f GiB or more (%s); "
		       "the kernel can place page cache and host allocations in GPU memory", json_array_size(big),
		       min_gib, list);
		free(list);
		r_remedy(r, "Run the driver in Coherent Driver-based Memory Management mode "
			 "(NVreg_CoherentGPUMemoryMode=driver, driver 580+) so HBM is not onlined as system RAM, "
			 "or keep host work off those nodes (numactl --membind to the Grace nodes) until then.");
		r_ref(r, GRACE_DOC);
	} else if (json_array_size(big)) {
		char *list = join_some(big, 4);
		r_pass(r, "%s: memory-only NUMA node(s) %s are not GPU HBM on this %s host (CXL or PMEM "
		       "expanders show up this way)", lay, list, arch ? arch : "non-Grace");
		free(list);
	} else if (unknown && grace) {
		r_skip(r, "could not read the CPUs or memory of %ld NUMA node(s) (%s)", unknown, lay);
	} else if (grace) {
		r_pass(r, "no memory-only NUMA node of %.0f GiB or more: HBM is not onlined as host memory (%s)",
		       min_gib, lay);
	} else {
		r_pass(r, "NUMA layout %s; no memory-only node of %.0f GiB or more", lay, min_gib);
	}
	free(lay);
	json_decref(big);
}

/* ---- hardware.numa-gpu-affinity ------------------------------------------ */

void check_numa_gpu_affinity(struct audit_ctx *ctx, struct result *r)
{
	r_reproduce(r, "for d in /sys/bus/pci/devices/*; do case $(cat $d/class) in 0x0302*|0x0300*|0x1200*) "
		       "echo \"${d##*/} $(cat $d/vendor) numa_node=$(cat $d/numa_node)\";; esac; done");
	if (host_is_vm(ctx)) {
		r_skip(r, "host matter: a guest's view of GPU NUMA placement is whatever the hypervisor presents");
		return;
	}
	json_t *pci = facts_get(ctx, "pci", NULL);
	enum col_state nst;
	json_t *numa = facts_get(ctx, "numa", &nst);
	long long with_cpus = nst == COL_OK ? count_fact(numa, "with_cpus") : -1;

	json_t *by_node = json_object(), *neg = json_array(), *unread = json_array();
	long gpus = 0;
	size_t i;
	json_t *d;
	json_array_foreach(json_object_get(pci, "devices"), i, d) {
		if (!dev_is(d, "gpu"))
			continue;
		gpus++;
		const char *bdf = fact_str(d, "bdf");
		long long node;
		if (fact_int(d, "numa_node", &node) != 0) {
			json_array_append_new(unread, json_string(bdf));
		} else if (node < 0) {
			json_array_append_new(neg, json_string(bdf));
		} else {
			char key[32];
			snprintf(key, sizeof key, "node%lld", node);
			json_t *l = json_object_get(by_node, key);
			if (!l)
				json_object_set_new(by_node, key, l = json_array());
			json_array_append_new(l, json_string(bdf));
		}
	}
	if (gpus == 0) {
		json_decref(by_node);
		json_decref(neg);
		json_decref(unread);
		r_skip(r, "not applicable: no GPU on this host");
		return;
	}
	json_t *obs = json_object();
	json_object_set(obs, "gpus_by_node", by_node);
	json_object_set(obs, "numa_node_minus_one", neg);
	json_object_set_new(obs, "numa_nodes_with_cpus", with_cpus >= 0 ? json_integer(with_cpus) : json_null());
	r_observed(r, obs);
	r_expectedf(r, "every GPU reports the NUMA node it is attached to (numa_node >= 0) on multi-socket hosts");

	struct strbuf lay = STRBUF_INIT;
	const char *k;
	json_t *l;
	json_object_foreach(by_node, k, l)
		sb_addf(&lay, "%s%s: %zu GPU%s", lay.len ? ", " : "", k, json_array_size(l),
			json_array_size(l) == 1 ? "" : "s");

	if (json_array_size(unread) == (size_t)gpus) {
		r_skip(r, "could not read numa_node of any of the %ld GPUs", gpus);
	} else if (json_array_size(neg)) {
		char *list = join_some(neg, 4);
		if (with_cpus == 1)
			r_pass(r, "single NUMA node with CPUs: numa_node -1 on %s is harmless here", list);
		else
			r_warn(r, "%zu of %ld GPUs report numa_node -1 (%s) on a host with %s NUMA nodes: the "
			       "firmware gives their PCIe root complex no proximity domain, so the CPU/memory placement "
			       "of GPU processes (NCCL, DataLoader workers) cannot follow the hardware",
			       json_array_size(neg), gpus, list,
			       with_cpus > 1 ? "several" : "an unknown number of");
		free(list);
		r_remedy(r, "Ask the provider to fix the ACPI SRAT/_PXM tables (BIOS update or NUMA/SNC settings) "
			 "so every PCIe root complex reports its node; until then pin GPU ranks with numactl or "
			 "the topology from `nvidia-smi topo -m`.");
	} else if (json_array_size(unread)) {
		char *list = join_some(unread, 4);
		r_skip(r, "could not read numa_node of %zu GPUs (%s); the others: %s", json_array_size(unread),
		       list, sb_str(&lay));
		free(list);
	} else {
		r_pass(r, "every GPU reports its NUMA node (%s)", sb_str(&lay));
	}
	sb_free(&lay);
	json_decref(by_node);
	json_decref(neg);
	json_decref(unread);
}

/* ---- hardware.cpu-governor ----------------------------------------------- */

void check_cpu_governor(struct audit_ctx *ctx, struct result *r)
{
	r_reproduce(r, "cat /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor | sort | uniq -c");
	json_t *cf = facts_get(ctx, "cpufreq", NULL);
	json_t *govs = json_object_get(cf, "governors"), *drvs = json_object_get(cf, "drivers");
	long long with = count_fact(cf, "with_cpufreq"), unread = count_fact(cf, "unreadable");
	long long perf = count_fact(govs, "performance");
	if (perf < 0)
		perf = 0;

	struct strbuf gs = STRBUF_INIT, ds = STRBUF_INIT;
	const char *k;
	json_t *v;
	json_object_foreach(govs, k, v)
		sb_addf(&gs, "%s%s on %lld", gs.len ? ", " : "", k, (long long)json_integer_value(v));
	json_object_foreach(drvs, k, v)
		sb_addf(&ds, "%s%s", ds.len ? ", " : "", k);
	json_t *obs = json_object();
	json_object_set(obs, "governors", govs ? govs : json_null());
	json_object_set(obs, "drivers", drvs ? drvs : json_null());
	json_object_set_new(obs, "cpus_with_cpufreq", json_integer(with));
	r_observed(r, obs);
	r_expectedf(r, "scaling_governor 'performance' on every CPU");

	if (with > 0 && unread == with) {
		r_skip(r, "could not read scaling_governor of any of %lld CPUs", with);
	} else if (perf == with && unread == 0) {
		r_pass(r, "performance governor on all %lld CPUs (%s)", with, sb_str(&ds));
	} else {
		r_warn(r, "CPU frequency governor is not 'performance' everywhere: %s of %lld CPUs (%s)%s",
		       sb_str(&gs), with, sb_str(&ds), unread > 0 ? "; some CPUs unreadable" : "");
		r_remedy(r, "Set the performance governor on every CPU (`cpupower frequency-set -g performance`, "
			 "or `tuned-adm profile accelerator-performance`/`throughput-performance`) and make it "
			 "persistent; host-side stages (data loading, NCCL proxy threads, kernel launches) slow down "
			 "under powersave/ondemand.");
	}
	sb_free(&gs);
	sb_free(&ds);
}

/* ---- hardware.gpudirect-rdma --------------------------------------------- */

/* "6.8.0-110-generic" -> 6*1000+8; -1 when unparseable */
static long kernel_version(const char *rel)
{
	if (!rel)
		return -1;
	char *end;
	long maj = strtol(rel, &end, 10);
	if (end == rel || *end != '.')
		return -1;
	const char *p = end + 1;
	long min = strtol(p, &end, 10);
	if (end == p)
		return -1;
	return maj * 1000 + min;
}

/* What the GPUDirect RDMA grade reads. */
struct gdr {
	long long rdma;     /* RDMA NICs; -1: PCI not visible here */
	json_t *mods;       /* the modules facts, NULL when unread */
	int nv_loaded, peermem, nvfs;
	int open;           /* the open kernel module: 1, 0, -1 unknown */
	const char *source; /* what said so */
	const char *krel;
	int dmabuf_kernel;  /* Linux 5.12+: 1, 0, -1 unknown */
};

static const char gdr_remedy[] =
	"Use the NVIDIA open GPU kernel modules (nvidia-open / kernel-open packages; Blackwell requires "
	"them) on Linux 5.12+ with an RDMA stack that supports dma-buf (rdma-core 34+/DOCA-OFED), so NCCL "
	"and UCX register GPU memory through dma-buf; load nvidia_peermem only as the legacy fallback.";

static void gdr_read(struct audit_ctx *ctx, struct gdr *g)
{
	enum col_state mst;
	g->mods = facts_get(ctx, "modules", &mst);
	if (mst != COL_OK)
		g->mods = NULL;
	json_t *loaded = json_object_get(g->mods, "loaded");
	g->nv_loaded = json_object_get(loaded, "nvidia") != NULL;
	g->peermem = json_object_get(loaded, "nvidia_peermem") != NULL;
	g->nvfs = json_object_get(loaded, "nvidia_fs") != NULL;

	/* open module: the driver's own report first, the taint letters second */
	g->open = -1;
	g->source = NULL;
	enum col_state nst;
	json_t *nv = facts_get(ctx, "nvidia", &nst);
	int b;
	if (nv && nst == COL_OK && fact_bool(nv, "open_module", &b) == 0) {
		g->open = b;
		g->source = "/proc/driver/nvidia/version";
	} else if (g->nv_loaded && fact_bool(g->mods, "nvidia_proprietary", &b) == 0) {
		g->open = !b;
		g->source = "taint flags of the nvidia module in /proc/modules";
	}
	g->krel = fact_str(os_facts(ctx), "kernel_release");
	long kv = kernel_version(g->krel);
	g->dmabuf_kernel = kv < 0 ? -1 : kv >= 5012;
}

static json_t *gdr_observed(const struct gdr *g)
{
	json_t *obs = json_object();
	json_object_set_new(obs, "open_module", g->open < 0 ? json_null() : json_boolean(g->open));
	json_object_set_new(obs, "open_module_source", g->source ? json_string(g->source) : json_null());
	json_object_set_new(obs, "nvidia_peermem_loaded", json_boolean(g->peermem));
	json_object_set_new(obs, "nvidia_fs_loaded", json_boolean(g->nvfs));
	json_object_set_new(obs, "kernel", g->krel ? json_string(g->krel) : json_null());
	json_object_set_new(obs, "rdma_nics", g->rdma >= 0 ? json_integer(g->rdma) : json_null());
	return obs;
}

/* The open module on a kernel without dma-buf peer-to-peer, or the
 * proprietary module: only nvidia_peermem is left. */
static void gdr_legacy(struct result *r, const struct gdr *g)
{
	if (g->open == 1) {
		if (g->peermem)
			r_warn(r, "kernel %s predates dma-buf peer-to-peer (5.12): only the legacy nvidia_peermem path works",
			       g->krel);
		else if (!g->mods)
			r_skip(r, "kernel %s predates dma-buf (5.12) and whether nvidia_peermem is loaded could not be read",
			       g->krel);
		else
			r_fail(r, "GPUDirect RDMA not enabled: kernel %s predates dma-buf (5.12) and nvidia_peermem is not loaded",
			       g->krel);
	} else if (g->peermem) {
		r_warn(r, "only the legacy GPUDirect RDMA path: proprietary NVIDIA kernel module (no dma-buf) "
		       "with nvidia_peermem");
	} else if (!g->mods) {
		r_skip(r, "proprietary NVIDIA kernel module (no dma-buf); whether nvidia_peermem is loaded "
		       "could not be read (/proc/modules unavailable)");
	} else if (g->rdma < 0) {
		r_warn(r, "GPUDirect RDMA not enabled: proprietary NVIDIA kernel module (no dma-buf) and "
		       "nvidia_peermem not loaded (RDMA NICs could not be counted: PCI not visible here)");
	} else {
		r_fail(r, "GPUDirect RDMA not enabled: proprietary NVIDIA kernel module (no dma-buf) and "
		       "nvidia_peermem not loaded; NIC transfers bounce through host memory");
	}
	r_remedy(r, "%s", gdr_remedy);
}

void check_gpudirect_rdma(struct audit_ctx *ctx, struct result *r)
{
	r_reproduce(r, "grep -E '^(nvidia|nvidia_peermem|nvidia_fs) ' /proc/modules; cat /proc/driver/nvidia/version");
	int nvidia = chk_nvidia_gpus(ctx);
	if (nvidia == 0) {
		r_skip(r, "not applicable: no NVIDIA GPU");
		return;
	}
	struct gdr g = { 0 };
	/* -1: PCI not visible here, so the RDMA NICs could not be counted */
	g.rdma = count_fact(pci_facts(ctx), "rdma_nics");
	if (g.rdma == 0) {
		r_skip(r, "not applicable: no RDMA NIC (ConnectX/BlueField, EFA, Pensando) on this host, so "
		       "there is no GPUDirect RDMA path to use");
		return;
	}
	gdr_read(ctx, &g);
	r_observed(r, gdr_observed(&g));
	r_expectedf(r, "dma-buf GPUDirect RDMA: NVIDIA open kernel module on Linux 5.12+ (nvidia_peermem only as legacy fallback)");
	r_ref(r, GDR_DOC);

	if (!g.mods && g.open < 0) {
		struct col_run *cr = facts_run(ctx, "modules");
		r_skip(r, "could not read the loaded kernel modules: %s", cr && cr->reason ? cr->reason : "modules collector failed");
		return;
	}
	if (!g.nv_loaded && g.open < 0) {
		r_skip(r, "the nvidia kernel module is not loaded (the GPU driver checks cover that): no GPUDirect path to grade");
		return;
	}
	if (g.open == 1 && g.dmabuf_kernel != 0) {
		r_pass(r, "modern GPUDirect RDMA path: NVIDIA open kernel module (dma-buf)%s%s%s",
		       g.krel ? " on kernel " : "", g.krel ? g.krel : "",
		       g.peermem ? "; nvidia_peermem also loaded (legacy path, harmless)" : "");
		return;
	}
	if ((g.open == 1 && g.dmabuf_kernel == 0) || g.open == 0) {
		gdr_legacy(r, &g);
		return;
	}
	if (g.peermem) {
		r_warn(r, "nvidia_peermem (legacy path) loaded; could not tell whether the open kernel module "
		       "(dma-buf) is in use");
		r_remedy(r, "%s", gdr_remedy);
	} else {
		r_skip(r, "could not tell whether the NVIDIA open kernel module is loaded, and nvidia_peermem is not");
	}
}

/* ---- hardware.gdrcopy ---------------------------------------------------- */

void check_gdrcopy(struct audit_ctx *ctx, struct result *r)
{
	r_reproduce(r, "grep ^gdrdrv /proc/modules; ls -l /dev/gdrdrv; ldconfig -p | grep libgdrapi");
	int nvidia = chk_nvidia_gpus(ctx);
	if (nvidia == 0) {
		r_skip(r, "not applicable: no NVIDIA GPU (GDRCopy is NVIDIA-only)");
		return;
	}
	json_t *gf = facts_get(ctx, "gdrcopy", NULL);
	long long rdma = count_fact(pci_facts(ctx), "rdma_nics");
	int mod = -1, dev = 0;
	fact_bool(gf, "module_loaded", &mod);
	fact_bool(gf, "dev_node", &dev);
	json_t *libs = json_object_get(gf, "libraries");
	const char *ver = fact_str(gf, "version");
	size_t nlibs = json_array_size(libs);

	json_t *obs = json_object();
	json_object_set_new(obs, "gdrdrv_loaded", mod < 0 ? json_null() : json_boolean(mod));
	json_object_set_new(obs, "dev_gdrdrv", json_boolean(dev));
	json_object_set(obs, "libgdrapi", libs ? libs : json_null());
	json_object_set_new(obs, "version", ver ? json_string(ver) : json_null());
	r_observed(r, obs);
	r_expectedf(r, "gdrdrv loaded, /dev/gdrdrv present, libgdrapi.so where the loader finds it");

	struct strbuf miss = STRBUF_INIT;
	if (mod == 0)
		sb_adds(&miss, "gdrdrv module not loaded");
	if (!dev)
		sb_addf(&miss, "%s/dev/gdrdrv absent", miss.len ? ", " : "");
	if (!nlibs)
		sb_addf(&miss, "%slibgdrapi.so not found in the library path", miss.len ? ", " : "");

	if (!miss.len) {
		r_pass(r, "GDRCopy ready: gdrdrv %s, /dev/gdrdrv, %s%s%s%s", mod == 1 ? "loaded" : "state unknown",
		       json_string_value(json_array_get(libs, 0)), ver ? " (version " : "", ver ? ver : "",
		       ver ? ")" : "");
	} else {
		int hint = host_is_container(ctx) && mod == 1 && !dev;
		if (rdma > 0)
			r_fail(r, "GDRCopy missing on a GPU node with %lld RDMA NICs: %s%s", rdma, sb_str(&miss),
			       hint ? " (the host has gdrdrv loaded; the device was not passed into this container)" : "");
		else
			r_warn(r, "GDRCopy missing: %s%s", sb_str(&miss),
			       hint ? " (the host has gdrdrv loaded; the device was not passed into this container)" : "");
		if (hint)
			r_remedy(r, "Pass the device into the container (docker run --device=/dev/gdrdrv, or the "
				 "NVIDIA container toolkit / GPU operator GDRCopy option) and ship libgdrapi.so in the image.");
		else
			r_remedy(r, "Install GDRCopy (gdrdrv-dkms and libgdrapi packages, or build from source), load "
				 "gdrdrv at boot and make sure /dev/gdrdrv exists; NCCL and UCX use it for low-latency "
				 "GPU memory copies.");
		r_ref(r, GDRCOPY_DOC);
	}
	sb_free(&miss);
}

/* ---- hardware.nic-pcie-link ---- */

static double width_of(const json_t *d, const char *key)
{
	long long v;
	return d && fact_int(d, key, &v) == 0 ? (double)v : NAN;
}

/* One rail NIC's link against its own and its upstream port's capability
 * (the port's max_link_* is the slot's): "BDF x8 of x16 at Gen5", or NULL
 * when its link registers are not readable (VFs have none). */
static char *nic_link(const json_t *devs, const json_t *d, unsigned *flags, json_t *obs)
{
	const json_t *up = NULL;
	json_t *chain = fact_get(d, "upstream");
	if (json_array_size(chain))
		up = device_by_bdf(devs, json_string_value(json_array_get(chain, json_array_size(chain) - 1)));
	double cap = pcie_speed_gen(fact_str(d, "max_link_speed"));
	double port = up ? pcie_speed_gen(fact_str(up, "max_link_speed")) : NAN;
	double wport = up ? width_of(up, "max_link_width") : NAN;
	struct pcie_link l = {
		width_of(d, "current_link_width"), width_of(d, "max_link_width"),
		pcie_speed_gen(fact_str(d, "current_link_speed")), isnan(port) || port > cap ? cap : port, cap,
	};
	if (!isnan(wport) && !isnan(l.width_max) && wport < l.width_max)
		l.width_max = wport;
	json_t *o = json_object();
	fact_set_str(o, "bdf", fact_str(d, "bdf"));
	fact_set_str(o, "driver", fact_str(d, "driver"));
	fact_set_str(o, "current_link_speed", fact_str(d, "current_link_speed"));
	fact_set_str(o, "max_link_speed", fact_str(d, "max_link_speed"));
	json_object_set(o, "current_link_width", json_object_get(d, "current_link_width"));
	json_object_set(o, "max_link_width", json_object_get(d, "max_link_width"));
	fact_set_str(o, "upstream_port", up ? fact_str(up, "bdf") : NULL);
	fact_set_str(o, "upstream_max_link_speed", up ? fact_str(up, "max_link_speed") : NULL);
	json_object_set(o, "upstream_max_link_width", up ? json_object_get(up, "max_link_width") : json_null());
	json_array_append_new(obs, o);
	if (isnan(l.width) || isnan(l.width_max) || isnan(l.gen) || isnan(cap))
		return NULL;
	*flags = pcie_link_judge(&l);
	if (*flags & PCIE_SLOT_LIMITED)
		return xasprintf("%s x%.0f of x%.0f at Gen%.0f of Gen%.0f, the NIC supports Gen%.0f", fact_str(d, "bdf"),
				 l.width, l.width_max, l.gen, l.gen_max, cap);
	return xasprintf("%s x%.0f of x%.0f at Gen%.0f of Gen%.0f", fact_str(d, "bdf"), l.width, l.width_max, l.gen,
			 l.gen_max);
}

void check_nic_pcie_link(struct audit_ctx *ctx, struct result *r)
{
	json_t *pci = pci_facts(ctx), *d;
	if (!pci) {
		r_skip(r, "PCI topology not readable here (no /sys/bus/pci/devices)");
		return;
	}
	json_t *devs = fact_get(pci, "devices"), *obs = json_array();
	long long unident = count_fact(pci, "unidentified");
	struct strbuf bad = STRBUF_INIT, slow = STRBUF_INIT, ok = STRBUF_INIT;
	int n = 0, nbad = 0, nslow = 0, nunk = 0;
	size_t i;
	json_array_foreach(devs, i, d) {
		int rdma = 0;
		if (!dev_is(d, "nic") || fact_bool(d, "rdma", &rdma) != 0 || !rdma)
			continue;
		n++;
		unsigned fl = 0;
		char *link = nic_link(devs, d, &fl, obs);
		if (!link) {
			nunk++;
		} else if (fl & (PCIE_NARROW | PCIE_BELOW_GEN)) {
			nbad++;
			sb_addf(&bad, "%s%s", bad.len ? "; " : "", link);
		} else if (fl & PCIE_SLOT_LIMITED) {
			nslow++;
			sb_addf(&slow, "%s%s", slow.len ? "; " : "", link);
		} else if (!ok.len) {
			sb_adds(&ok, link);
		}
		free(link);
	}
	r_ref(r, "https://www.kernel.org/doc/Documentation/ABI/testing/sysfs-bus-pci (current_link_speed, max_link_width)");
	if (!n) {
		json_decref(obs);
		r_skip(r, "not applicable: no RDMA NIC (ConnectX/BlueField, EFA, Pensando) on the PCI bus");
	} else {
		r_observed(r, obs);
		r_expectedf(r, "every RDMA NIC trained at the widest width and fastest generation both it and its port support");
		if (nbad) {
			r_fail(r, "%d of %d RDMA NICs trained below their PCIe width or generation: %s%s%s", nbad, n, sb_str(&bad),
			       nslow ? "; also slot-limited: " : "", sb_str(&slow));
			r_remedy(r, "Reseat the NIC (or its riser/cable), check the slot and the BIOS PCIe speed setting; a rail "
				 "at half width or one generation down halves its host bandwidth and GPUDirect RDMA throughput.");
		} else if (nslow) {
			r_warn(r, "%d of %d RDMA NICs sit in a slot slower than the NIC: %s", nslow, n, sb_str(&slow));
			r_remedy(r, "Move the NIC to a slot (or behind a switch port) of its own PCIe generation.");
		} else if (nunk == n) {
			r_skip(r, "the PCIe link of none of the %d RDMA NICs is readable (virtual functions and "
			       "VM-emulated functions expose none)", n);
		} else if (nunk) {
			r_warn(r, "could not read the PCIe link of %d of %d RDMA NICs; the others run at full width and generation",
			       nunk, n);
		} else if (unident > 0) {
			r_warn(r, "%d RDMA NIC%s at full PCIe width and generation, but %lld PCI function%s could not be identified "
			       "(vendor or class unreadable) and may be NICs too", n, n == 1 ? "" : "s", unident,
			       unident == 1 ? "" : "s");
		} else {
			r_pass(r, "%d RDMA NIC%s at full PCIe width and generation (e.g. %s)", n, n == 1 ? "" : "s", sb_str(&ok));
		}
	}
	sb_free(&bad);
	sb_free(&slow);
	sb_free(&ok);
}
