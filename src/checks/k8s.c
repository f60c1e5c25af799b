/* Cluster-scope Kubernetes checks: graded once per audit from what the
 * operator's kubectl reads (the "k8s" collector), never on a node. They
 * grade what the method's testers found in the field: GPU nodes that never
 * get a DCGM pod, no default or RWX StorageClass, a LimitRange that OOMs
 * GPU pods, NetworkPolicies the CNI ignores, nodes/proxy grants, RDMA that
 * was never wired into the scheduler, clique labels nothing consumes and an
 * API server name that resolves differently inside and out; and what a
 * tenant needs around the GPUs: Helm and RBAC self-service, real nodes
 * (not vCluster fakes), gang scheduling, bin-packing, a workload queue that
 * counts the DRA claims in use, the Network and MPI operators, ingress and
 * load balancers, GPU metrics attributed to pods, and IMEX through DRA on
 * multi-node NVLink. */
#include "checks/checks.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include "collect/collector.h"
#include "parse/k8s.h"
#include "parse/k8s_addons.h"
#include "collect/collector.h"
#include "parse/k8s_addons.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

static json_t *kf(struct audit_ctx *ctx)
{
	return facts_get(ctx, "k8s", NULL);
}

/* A fact the collector could not read: SKIP with its reason. */
static int unread(struct result *r, const json_t *f, const char *key, const char *what)
{
	json_t *v = json_object_get(f, key);
	if (v && !json_is_null(v))
		return 0;
	const char *why = json_string_value(json_object_get(json_object_get(f, "unread"), key));
	r_skip(r, "%s not read: %s", what, why ? why : "no data");
	return 1;
}

/* The one fact a check reads, or NULL after the SKIP of unread(). */
static json_t *kfact(struct audit_ctx *ctx, struct result *r, const char *key, const char *what)
{
	json_t *f = kf(ctx);
	return unread(r, f, key, what) ? NULL : json_object_get(f, key);
}

static int is_gpu_node(const json_t *n)
{
	return jget_int(n, "gpu_capacity", 0) > 0;
}

static size_t count_gpu_nodes(const json_t *nodes)
{
	size_t i, n = 0;
	json_t *x;
	json_array_foreach(nodes, i, x)
		n += is_gpu_node(x);
	return n;
}

/* "a, b, c and 4 more" */
static void add_name(struct strbuf *sb, size_t *n, const char *name)
{
	if (*n < 5)
		sb_addf(sb, "%s%s", *n ? ", " : "", name ? name : "?");
	else if (*n == 5)
		sb_adds(sb, ", ...");
	(*n)++;
}

/* A DaemonSet by name first, then by image: the GPU operator's own
 * gpu-feature-discovery runs the k8s-device-plugin image, so a name match
 * anywhere wins over an image match, and feature discovery never counts as
 * a device plugin. */
static const json_t *find_ds(const json_t *dss, const char *needle, const char *image_needle)
{
	size_t i;
	json_t *d;
	json_array_foreach(dss, i, d) {
		const char *name = jget_str(d, "name");
		if (name && strstr(name, needle))
			return d;
	}
	if (!image_needle)
		return NULL;
	json_array_foreach(dss, i, d) {
		const char *name = jget_str(d, "name");
		if (name && strstr(name, "feature-discovery") && !strstr(needle, "feature-discovery"))
			continue;
		size_t j;
		json_t *im;
		json_array_foreach(json_object_get(d, "images"), j, im)
			if (json_string_value(im) && strstr(json_string_value(im), image_needle))
				return d;
	}
	return NULL;
}

/* The nodes and DaemonSets facts of a check on what runs on the GPU nodes,
 * and how many GPU nodes there are: 0 after a SKIP (a fact not read, or
 * no GPU node, then with the reason none). */
static size_t gpu_nodes_and_dss(struct audit_ctx *ctx, struct result *r, json_t **nodes, json_t **dss,
				const char *none)
{
	json_t *f = kf(ctx);
	if (unread(r, f, "nodes", "nodes") || unread(r, f, "daemonsets", "DaemonSets"))
		return 0;
	*nodes = json_object_get(f, "nodes");
	*dss = json_object_get(f, "daemonsets");
	size_t gpun = count_gpu_nodes(*nodes);
	if (!gpun)
		r_skip(r, "%s", none);
	return gpun;
}

static const char *ds_label(const json_t *d, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", jget_str(d, "namespace") ?: "?", jget_str(d, "name") ?: "?");
	return buf;
}

/* ---- orchestration ---- */

void check_k8s_gpu_nodes(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = kf(ctx);
	if (unread(r, f, "nodes", "nodes"))
		return;
	json_t *nodes = json_object_get(f, "nodes");
	size_t total = json_array_size(nodes), gpun = 0, i, nr = 0, short_n = 0, cordoned = 0;
	long long gcap = 0, galloc = 0;
	struct strbuf notready = STRBUF_INIT, shortb = STRBUF_INIT, products = STRBUF_INIT;
	json_t *n;
	json_array_foreach(nodes, i, n) {
		if (!is_gpu_node(n))
			continue;
		gpun++;
		long long c = jget_int(n, "gpu_capacity", 0), a = jget_int(n, "gpu_allocatable", -1);
		gcap += c;
		galloc += a < 0 ? 0 : a;
		if (!json_is_true(json_object_get(n, "ready")))
			add_name(&notready, &nr, jget_str(n, "name"));
		if (a >= 0 && a < c) {
			if (short_n < 5)
				sb_addf(&shortb, "%s%s %lld/%lld", short_n ? ", " : "", jget_str(n, "name") ?: "?", a, c);
			short_n++;
		}
		cordoned += json_is_true(json_object_get(n, "unschedulable"));
		const char *prod = jget_str(json_object_get(n, "labels"), "nvidia.com/gpu.product");
		if (prod && !strstr(sb_str(&products), prod))
			sb_addf(&products, "%s%s", products.len ? ", " : "", prod);
	}
	json_t *rs = json_object_get(f, "resourceslices");
	json_t *obs = json_object();
	json_object_set_new(obs, "nodes", json_integer((json_int_t)total));
	json_object_set_new(obs, "gpu_nodes", json_integer((json_int_t)gpun));
	json_object_set_new(obs, "gpus_capacity", json_integer(gcap));
	json_object_set_new(obs, "gpus_allocatable", json_integer(galloc));
	json_object_set_new(obs, "gpu_nodes_not_ready", json_integer((json_int_t)nr));
	json_object_set_new(obs, "gpu_nodes_cordoned", json_integer((json_int_t)cordoned));
	json_object_set_new(obs, "gpu_products", json_string(sb_str(&products)));
	json_object_set_new(obs, "dra_resourceslices", rs ? json_incref(rs) : json_null());
	json_object_set(obs, "computedomains", json_object_get(f, "computedomains") ?: json_null());
	r_observed(r, obs);
	r_expectedf(r, "every GPU node Ready with allocatable GPUs equal to capacity");
	const json_t *drivers = json_object_get(rs, "drivers");
	int dra_gpu = 0;
	size_t k;
	json_t *d;
	json_array_foreach(drivers, k, d)
		if (json_string_value(d) && (strstr(json_string_value(d), "gpu.nvidia.com") ||
					     strstr(json_string_value(d), "gpu.amd.com")))
			dra_gpu = 1;
	if (rs && json_is_true(json_object_get(rs, "api")))
		r_evidence_note(r, "DRA ResourceSlices: %lld (drivers: %s)", jget_int(rs, "count", 0),
				json_array_size(drivers) ? "listed in observed" : "none");
	if (json_is_integer(json_object_get(f, "computedomains")))
		r_evidence_note(r, "NVIDIA ComputeDomains: %lld", json_integer_value(json_object_get(f, "computedomains")));
	if (gpun == 0) {
		if (dra_gpu)
			r_pass(r, "%zu nodes; GPUs are published through DRA ResourceSlices, not the nvidia.com/gpu extended resource", total);
		else
			r_fail(r, "none of %zu nodes advertises GPUs (no nvidia.com/gpu or amd.com/gpu capacity, no GPU DRA driver)", total);
	} else if (nr || short_n) {
		r_warn(r, "%zu of %zu GPU nodes not Ready%s%s; %zu with fewer allocatable than installed GPUs%s%s (%lld of %lld GPUs allocatable)",
		       nr, gpun, nr ? ": " : "", sb_str(&notready), short_n, short_n ? ": " : "", sb_str(&shortb), galloc, gcap);
		r_remedy(r, "find why the nodes are NotReady (kubectl describe node) and why the device plugin marks GPUs unhealthy (XIDs, driver); drain and repair them");
	} else {
		r_pass(r, "%zu GPU nodes Ready, %lld GPUs allocatable of %lld%s%s%s", gpun, galloc, gcap,
		       products.len ? " (" : "", sb_str(&products), products.len ? ")" : "");
	}
	sb_free(&notready);
	sb_free(&shortb);
	sb_free(&products);
}

void check_k8s_gpu_operator(struct audit_ctx *ctx, struct result *r)
{
	json_t *nodes, *dss;
	size_t gpun = gpu_nodes_and_dss(ctx, r, &nodes, &dss, "no GPU nodes: nothing for a GPU operator to run on");
	if (!gpun)
		return;
	int amd = 0;
	size_t i;
	json_t *n;
	json_array_foreach(nodes, i, n)
		if (jget_str(n, "gpu_resource") && !strcmp(jget_str(n, "gpu_resource"), "amd.com/gpu"))
			amd = 1;
	const json_t *plugin = amd ? find_ds(dss, "amd-gpu-device-plugin", "k8s-device-plugin")
				   : find_ds(dss, "nvidia-device-plugin", "k8s-device-plugin");
	if (!plugin && amd)
		plugin = find_ds(dss, "amdgpu-device-plugin", NULL);
	const json_t *gfd = amd ? find_ds(dss, "node-labeller", "k8s-node-labeller")
				: find_ds(dss, "gpu-feature-discovery", "gpu-feature-discovery");
	const json_t *exporter = amd ? find_ds(dss, "metrics-exporter", "device-metrics-exporter")
				     : find_ds(dss, "dcgm-exporter", "dcgm-exporter");
	const json_t *drv = find_ds(dss, "nvidia-driver-daemonset", NULL);
	char b1[256], b2[256], b3[256], b4[256];
	json_t *obs = json_object();
	json_object_set_new(obs, "device_plugin", plugin ? json_string(ds_label(plugin, b1, sizeof b1)) : json_null());
	json_object_set_new(obs, "feature_discovery", gfd ? json_string(ds_label(gfd, b2, sizeof b2)) : json_null());
	json_object_set_new(obs, "exporter", exporter ? json_string(ds_label(exporter, b3, sizeof b3)) : json_null());
	json_object_set_new(obs, "driver_daemonset", drv ? json_string(ds_label(drv, b4, sizeof b4)) : json_null());
	r_observed(r, obs);
	r_expectedf(r, amd ? "AMD GPU operator: device plugin, node labeller and device-metrics-exporter DaemonSets"
			   : "GPU operator: nvidia-device-plugin, gpu-feature-discovery and dcgm-exporter DaemonSets");
	struct strbuf notready = STRBUF_INIT;
	const json_t *all[] = { plugin, gfd, exporter };
	for (int k = 0; k < 3; k++) {
		if (!all[k])
			continue;
		long long want = jget_int(all[k], "desired", -1), ready = jget_int(all[k], "ready", -1);
		char b[256];
		if (want >= 0 && ready >= 0 && ready < want)
			sb_addf(&notready, "%s%s %lld/%lld ready", notready.len ? ", " : "", ds_label(all[k], b, sizeof b), ready, want);
	}
	if (!plugin)
		r_fail(r, "no %s device plugin DaemonSet: GPUs are not scheduled through it (%zu GPU nodes)",
		       amd ? "AMD" : "NVIDIA", gpun);
	else if (!exporter)
		r_fail(r, "%s present but no %s: GPU health and XIDs are not exported to monitoring", b1,
		       amd ? "device-metrics-exporter" : "dcgm-exporter");
	else if (!gfd)
		r_warn(r, "device plugin and exporter present, but no %s: nodes carry no GPU model/clique labels",
		       amd ? "node labeller" : "gpu-feature-discovery");
	else if (notready.len)
		r_warn(r, "GPU operator DaemonSets not fully ready: %s", sb_str(&notready));
	else
		r_pass(r, "device plugin (%s), feature discovery (%s) and exporter (%s) deployed", b1, b2, b3);
	sb_free(&notready);
}

/* GPU-node memory the smallest GPU node can give one GPU's pod. */
static double gpu_share_bytes(const json_t *nodes)
{
	double best = 0;
	size_t i;
	json_t *n;
	json_array_foreach(nodes, i, n) {
		long long g = jget_int(n, "gpu_capacity", 0), m = jget_int(n, "allocatable_memory_bytes", -1);
		if (g <= 0 || m <= 0)
			continue;
		double share = (double)m / (double)g;
		if (best == 0 || share < best)
			best = share;
	}
	return best;
}

static int system_namespace(const char *ns)
{
	return ns && (!strcmp(ns, "kube-system") || !strcmp(ns, "kube-public") || !strcmp(ns, "kube-node-lease"));
}

void check_k8s_limitrange(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = kf(ctx);
	if (unread(r, f, "limitranges", "LimitRanges"))
		return;
	double floor_b = threshold(ctx, "k8s.limitrange_memory_min_gib", 16) * GIB;
	double share = json_is_array(json_object_get(f, "nodes")) ? gpu_share_bytes(json_object_get(f, "nodes")) : 0;
	json_t *lrs = json_object_get(f, "limitranges");
	json_t *obs = json_array();
	struct strbuf low = STRBUF_INIT, under = STRBUF_INIT;
	size_t nlow = 0, nunder = 0, i;
	json_t *lr;
	json_array_foreach(lrs, i, lr) {
		const char *ns = jget_str(lr, "namespace");
		if (system_namespace(ns))
			continue;
		size_t j;
		json_t *l;
		json_array_foreach(json_object_get(lr, "limits"), j, l) {
			const char *type = jget_str(l, "type");
			if (type && strcmp(type, "Container") && strcmp(type, "Pod"))
				continue;
			static const char *const keys[] = { "default_memory", "max_memory" };
			for (int k = 0; k < 2; k++) {
				long long b = jget_int(l, keys[k], -1);
				if (b < 0)
					continue;
				json_t *o = json_object();
				char *where = xasprintf("%s/%s %s %s", ns ? ns : "?", jget_str(lr, "name") ?: "?", type ? type : "?",
							k ? "max" : "default");
				json_object_set_new(o, "limitrange", json_string(where));
				json_object_set_new(o, "memory_gib", json_real((double)b / GIB));
				json_array_append_new(obs, o);
				char *item = xasprintf("%s = %.3g GiB", where, (double)b / GIB);
				if ((double)b < floor_b)
					add_name(&low, &nlow, item);
				else if (k == 1 && share > 0 && (double)b < share)
					add_name(&under, &nunder, item);
				free(item);
				free(where);
			}
		}
	}
	r_observed(r, obs);
	r_expectedf(r, "container memory defaults and maxima of at least %.0f GiB%s", floor_b / GIB,
		    share > 0 ? " and maxima no lower than one GPU's share of node memory" : "");
	if (share > 0)
		r_evidence_note(r, "smallest GPU node share: %.0f GiB allocatable memory per GPU", share / GIB);
	if (nlow)
		r_fail(r, "%zu LimitRange memory %s below %.0f GiB: GPU pods that set no limit are OOM-killed (%s)", nlow,
		       nlow == 1 ? "cap" : "caps", floor_b / GIB, sb_str(&low));
	else if (nunder)
		r_warn(r, "%zu LimitRange memory maximum%s below one GPU's share of node memory (%.0f GiB): %s", nunder,
		       nunder == 1 ? "" : "s", share / GIB, sb_str(&under));
	else if (json_array_size(obs) == 0)
		r_pass(r, "no LimitRange caps container memory outside the system namespaces");
	else
		r_pass(r, "%zu LimitRange memory defaults/maxima, none below %.0f GiB", json_array_size(obs), floor_b / GIB);
	sb_free(&low);
	sb_free(&under);
}

void check_k8s_topology_scheduling(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = kf(ctx);
	if (unread(r, f, "nodes", "nodes") || unread(r, f, "crds", "CustomResourceDefinitions"))
		return;
	json_t *nodes = json_object_get(f, "nodes"), *crds = json_object_get(f, "crds");
	size_t gpun = count_gpu_nodes(nodes), clique = 0, i;
	json_t *n;
	json_array_foreach(nodes, i, n)
		if (is_gpu_node(n) && jget_str(json_object_get(n, "labels"), "nvidia.com/gpu.clique"))
			clique++;
	json_t *tops = json_object_get(f, "kueue_topologies");
	long long hyper = jget_int(f, "volcano_hypernodes", -1);
	int kai = json_is_true(json_object_get(f, "kai_scheduler"));
	int kueue_crd = k8s_list_has(crds, "topologies.kueue.x-k8s.io", NULL);
	int clique_used = json_is_integer(json_object_get(f, "computedomains")); /* the DRA driver's IMEX domains */
	size_t j;
	json_t *t;
	json_array_foreach(tops, j, t) {
		size_t k;
		json_t *l;
		json_array_foreach(json_object_get(t, "levels"), k, l)
			if (json_string_value(l) && !strcmp(json_string_value(l), "nvidia.com/gpu.clique"))
				clique_used = 1;
	}
	struct strbuf have = STRBUF_INIT;
	if (json_array_size(tops))
		sb_addf(&have, "Kueue TAS (%zu Topology)", json_array_size(tops));
	if (hyper > 0)
		sb_addf(&have, "%sVolcano (%lld HyperNodes)", have.len ? ", " : "", hyper);
	if (kai)
		sb_addf(&have, "%sKAI scheduler", have.len ? ", " : "");
	json_t *obs = json_object();
	json_object_set_new(obs, "gpu_nodes", json_integer((json_int_t)gpun));
	json_object_set_new(obs, "gpu_nodes_with_clique_label", json_integer((json_int_t)clique));
	json_object_set_new(obs, "kueue_topologies", tops ? json_incref(tops) : json_null());
	json_object_set_new(obs, "volcano_hypernodes", hyper >= 0 ? json_integer(hyper) : json_null());
	json_object_set_new(obs, "kai_scheduler", json_boolean(kai));
	json_object_set_new(obs, "computedomains", json_incref(json_object_get(f, "computedomains") ?: json_null()));
	r_observed(r, obs);
	r_expectedf(r, "a topology-aware scheduler (Kueue TAS, Volcano HyperNode, KAI) that consumes the nodes' topology and nvidia.com/gpu.clique labels");
	if (gpun < 2) {
		r_skip(r, "%zu GPU node%s: no multi-node placement to optimise", gpun, gpun == 1 ? "" : "s");
	} else if (clique && !clique_used && !have.len) {
		r_warn(r, "%zu of %zu GPU nodes carry nvidia.com/gpu.clique labels that nothing consumes (no Kueue TAS, Volcano HyperNode, KAI or ComputeDomain)",
		       clique, gpun);
	} else if (clique && !clique_used && json_array_size(tops) && !hyper && !kai) {
		r_warn(r, "%s present, but no Topology level uses nvidia.com/gpu.clique: NVLink domains on %zu nodes are ignored",
		       sb_str(&have), clique);
	} else if (have.len) {
		r_pass(r, "topology-aware scheduling: %s%s", sb_str(&have),
		       clique ? (clique_used ? "; clique labels consumed" : "") : "");
	} else if (kueue_crd) {
		r_warn(r, "Kueue's Topology CRD is installed but no Topology is defined: %zu GPU nodes placed without regard to racks or NVLink domains", gpun);
	} else if (clique_used) {
		r_pass(r, "nvidia.com/gpu.clique labels consumed by NVIDIA ComputeDomains (DRA)");
	} else {
		r_warn(r, "no topology-aware scheduler (Kueue TAS, Volcano, KAI): multi-node jobs on %zu GPU nodes are placed without regard to racks or NVLink domains", gpun);
	}
	sb_free(&have);
}

/* ---- health ---- */

void check_k8s_dcgm_tolerations(struct audit_ctx *ctx, struct result *r)
{
	json_t *nodes, *dss;
	size_t gpun = gpu_nodes_and_dss(ctx, r, &nodes, &dss, "no GPU nodes");
	if (!gpun)
		return;
	const json_t *ds = find_ds(dss, "dcgm-exporter", "dcgm-exporter");
	if (!ds)
		ds = find_ds(dss, "dcgm", "/dcgm:");
	if (!ds) {
		r_skip(r, "no DCGM or dcgm-exporter DaemonSet (orchestration.k8s-gpu-operator grades its absence)");
		return;
	}
	char label[256];
	ds_label(ds, label, sizeof label);
	json_t *obs = json_object(), *blocked = json_array();
	struct strbuf sb = STRBUF_INIT;
	size_t nblocked = 0, i;
	json_t *n;
	json_array_foreach(nodes, i, n) {
		if (!is_gpu_node(n))
			continue;
		json_t *u = k8s_untolerated(json_object_get(ds, "tolerations"), json_object_get(n, "taints"), 1);
		if (json_array_size(u)) {
			json_t *t = json_array_get(u, 0);
			char *item = xasprintf("%s (%s%s%s:%s)", jget_str(n, "name") ?: "?", jget_str(t, "key") ?: "",
					       jget_str(t, "value") && *jget_str(t, "value") ? "=" : "", jget_str(t, "value") ?: "",
					       jget_str(t, "effect") ?: "");
			add_name(&sb, &nblocked, item);
			json_t *b = json_object();
			json_object_set_new(b, "node", json_string(jget_str(n, "name") ?: "?"));
			json_object_set_new(b, "untolerated_taints", json_incref(u));
			json_array_append_new(blocked, b);
			free(item);
		}
		json_decref(u);
	}
	json_object_set_new(obs, "daemonset", json_string(label));
	json_object_set(obs, "tolerations", json_object_get(ds, "tolerations"));
	json_object_set_new(obs, "gpu_nodes", json_integer((json_int_t)gpun));
	json_object_set_new(obs, "desired", json_integer(jget_int(ds, "desired", -1)));
	json_object_set_new(obs, "blocked", blocked);
	r_observed(r, obs);
	r_expectedf(r, "the DCGM DaemonSet tolerates every NoSchedule/NoExecute taint of the GPU nodes");
	if (nblocked) {
		r_fail(r, "%s does not tolerate the taints of %zu of %zu GPU nodes, so it never runs there: %s", label,
		       nblocked, gpun, sb_str(&sb));
		r_remedy(r, "add a toleration for the GPU taint to %s (e.g. key nvidia.com/gpu, operator Exists, effect NoSchedule), or set the GPU operator's dcgmExporter.tolerations / daemonsets.tolerations",
			 label);
	} else {
		r_pass(r, "%s tolerates the taints of all %zu GPU nodes", label, gpun);
	}
	sb_free(&sb);
}

/* ---- storage ---- */

/* The StorageClasses whose fact `key` is true or a string, listed into sb
 * as "name (provisioner)" or "name (provisioner, string)"; how many. */
static size_t storageclasses_with(const json_t *scs, const char *key, struct strbuf *sb)
{
	size_t n = 0, i;
	json_t *s;
	json_array_foreach(scs, i, s) {
		const json_t *v = json_object_get(s, key);
		if (!json_is_true(v) && !json_is_string(v))
			continue;
		const char *name = jget_str(s, "name") ?: "?", *prov = jget_str(s, "provisioner") ?: "?";
		char *item = json_is_string(v) ? xasprintf("%s (%s, %s)", name, prov, json_string_value(v))
					       : xasprintf("%s (%s)", name, prov);
		add_name(sb, &n, item);
		free(item);
	}
	return n;
}

void check_k8s_default_storageclass(struct audit_ctx *ctx, struct result *r)
{
	json_t *scs = kfact(ctx, r, "storageclasses", "StorageClasses");
	if (!scs)
		return;
	struct strbuf def = STRBUF_INIT;
	size_t ndef = storageclasses_with(scs, "default", &def);
	r_observed(r, json_incref(scs));
	r_expectedf(r, "exactly one StorageClass annotated storageclass.kubernetes.io/is-default-class=true");
	if (!json_array_size(scs))
		r_fail(r, "no StorageClass at all: every PersistentVolumeClaim stays Pending");
	else if (!ndef)
		r_fail(r, "%zu StorageClasses, none the default: PVCs without storageClassName stay Pending forever",
		       json_array_size(scs));
	else if (ndef > 1)
		r_warn(r, "%zu default StorageClasses (%s): the newest wins, which surprises users", ndef, sb_str(&def));
	else
		r_pass(r, "default StorageClass %s", sb_str(&def));
	sb_free(&def);
}

void check_k8s_rwx_storageclass(struct audit_ctx *ctx, struct result *r)
{
	json_t *scs = kfact(ctx, r, "storageclasses", "StorageClasses");
	if (!scs)
		return;
	struct strbuf rwx = STRBUF_INIT;
	size_t n = storageclasses_with(scs, "rwx_family", &rwx);
	r_observed(r, json_incref(scs));
	r_expectedf(r, "a StorageClass whose provisioner serves ReadWriteMany (NFS, CephFS, EFS, Filestore, Azure Files, Weka, Lustre, ...)");
	r_evidence_note(r, "ReadWriteMany support is inferred from the provisioner name; no PVC was created (an active PVC test is not part of this audit)");
	if (n)
		r_pass(r, "RWX-capable StorageClass (inferred from the provisioner): %s", sb_str(&rwx));
	else
		r_warn(r, "no StorageClass with a provisioner known to serve ReadWriteMany among %zu: multi-node jobs cannot share a dataset or checkpoint volume",
		       json_array_size(scs));
	sb_free(&rwx);
}

/* ---- networking ---- */

void check_k8s_networkpolicy(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = kf(ctx);
	if (unread(r, f, "networkpolicies", "NetworkPolicies") || unread(r, f, "daemonsets", "DaemonSets"))
		return;
	json_t *np = json_object_get(f, "networkpolicies");
	long long count = jget_int(np, "count", 0);
	json_t *dss = json_object_get(f, "daemonsets");
	const char *cni = NULL;
	int enforces = -1;
	size_t i;
	json_t *d;
	char label[256] = "";
	json_array_foreach(dss, i, d) {
		int e = -1;
		const char *c = k8s_cni_of(jget_str(d, "name"), json_object_get(d, "images"), &e);
		if (!c)
			continue;
		/* a policy engine next to a non-enforcing CNI (canal, calico for policy) wins */
		if (!cni || (e == 1 && enforces != 1)) {
			cni = c;
			enforces = e;
			ds_label(d, label, sizeof label);
		}
	}
	json_t *obs = json_object();
	json_object_set_new(obs, "networkpolicies", json_integer(count));
	json_object_set(obs, "namespaces", json_object_get(np, "namespaces") ?: json_null());
	json_object_set_new(obs, "cni", cni ? json_string(cni) : json_null());
	json_object_set_new(obs, "cni_daemonset", cni ? json_string(label) : json_null());
	json_object_set_new(obs, "cni_enforces", enforces < 0 ? json_null() : json_boolean(enforces));
	r_observed(r, obs);
	r_expectedf(r, "a CNI that enforces NetworkPolicy (Calico, Cilium, Antrea, ...) and policies that isolate tenants");
	if (!cni)
		r_warn(r, "%lld NetworkPolicies; the CNI is not recognised from the DaemonSets, so enforcement is unknown", count);
	else if (!enforces && count)
		r_warn(r, "%lld NetworkPolicies accepted but not enforced: %s (%s) does not implement NetworkPolicy", count, cni, label);
	else if (!enforces)
		r_warn(r, "%s (%s) does not enforce NetworkPolicy: pods of different tenants can always reach each other", cni, label);
	else if (count)
		r_pass(r, "%lld NetworkPolicies in %zu namespaces, enforced by %s", count,
		       json_array_size(json_object_get(np, "namespaces")), cni);
	else
		r_pass(r, "%s enforces NetworkPolicy (none defined yet)", cni);
}

void check_k8s_rdma_pattern(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = kf(ctx);
	if (unread(r, f, "nodes", "nodes"))
		return;
	json_t *nodes = json_object_get(f, "nodes"), *res = json_array();
	size_t gpun = count_gpu_nodes(nodes), with = 0, i;
	json_t *n;
	json_array_foreach(nodes, i, n) {
		if (!is_gpu_node(n))
			continue;
		int any = 0;
		size_t j;
		json_t *e;
		json_array_foreach(json_object_get(n, "extended_resources"), j, e) {
			const char *s = json_string_value(e);
			if (!s || !k8s_rdma_pattern_of(s))
				continue;
			any = 1;
			size_t k;
			json_t *x;
			int seen = 0;
			json_array_foreach(res, k, x)
				seen |= !strcmp(json_string_value(x), s);
			if (!seen)
				json_array_append_new(res, json_string(s));
		}
		with += any;
	}
	json_t *rs = json_object_get(f, "resourceslices");
	json_t *pats = k8s_rdma_patterns(res, json_object_get(f, "nicclusterpolicy"), json_object_get(f, "sriov_policies"),
					 json_object_get(rs, "drivers"));
	struct strbuf sb = STRBUF_INIT;
	size_t k;
	json_t *p;
	json_array_foreach(pats, k, p)
		sb_addf(&sb, "%s%s (%s)", k ? ", " : "", jget_str(p, "pattern"), jget_str(p, "via"));
	json_t *obs = json_object();
	json_object_set_new(obs, "patterns", pats);
	json_object_set_new(obs, "rdma_resources", res);
	json_object_set_new(obs, "gpu_nodes", json_integer((json_int_t)gpun));
	json_object_set_new(obs, "gpu_nodes_with_rdma_resource", json_integer((json_int_t)with));
	json_object_set_new(obs, "nicclusterpolicy", json_incref(json_object_get(f, "nicclusterpolicy") ?: json_null()));
	r_observed(r, obs);
	r_expectedf(r, "GPU nodes expose their RDMA NICs to pods (rdma_shared_device, sriov_*, ovs_offload, rdma_ib/rdma_roce, EFA, DOKS fabricN, GKE DRANET)");
	if (json_array_size(pats)) {
		if (with && with < gpun)
			r_warn(r, "RDMA pattern %s, but only %zu of %zu GPU nodes advertise an RDMA resource", sb_str(&sb), with, gpun);
		else
			r_pass(r, "RDMA deployment pattern: %s", sb_str(&sb));
	} else if (gpun >= 2) {
		r_warn(r, "%zu GPU nodes and no RDMA resource, NicClusterPolicy or network DRA driver: multi-node jobs fall back to TCP sockets", gpun);
		r_remedy(r, "deploy the NVIDIA Network Operator (or the provider's RDMA device plugin: EFA, fabric) and request its resource in multi-node jobs");
	} else {
		r_skip(r, "%zu GPU node%s: no scale-out fabric to expose", gpun, gpun == 1 ? "" : "s");
	}
	sb_free(&sb);
}

/* ---- isolation ---- */

void check_k8s_nodes_proxy(struct audit_ctx *ctx, struct result *r)
{
	json_t *rbac = kfact(ctx, r, "rbac", "ClusterRoles and ClusterRoleBindings");
	if (!rbac)
		return;
	json_t *grants = json_object_get(rbac, "grants"), *bad = json_array();
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0, i;
	json_t *g;
	json_array_foreach(grants, i, g) {
		if (json_is_true(json_object_get(g, "system")))
			continue;
		json_array_append(bad, g);
		const char *ns = jget_str(g, "namespace");
		char *item = xasprintf("%s %s%s%s via %s", jget_str(g, "kind") ?: "?", ns ? ns : "", ns ? "/" : "",
				       jget_str(g, "name") ?: "?", jget_str(g, "role") ?: "?");
		add_name(&sb, &n, item);
		free(item);
	}
	json_t *obs = json_object();
	json_object_set(obs, "roles", json_object_get(rbac, "roles"));
	json_object_set_new(obs, "non_system_subjects", bad);
	r_observed(r, obs);
	r_expectedf(r, "only system subjects can get nodes/proxy");
	r_ref(r, "https://kubernetes.io/docs/concepts/security/rbac-good-practices/#access-to-proxy-subresource-of-nodes");
	if (n) {
		r_fail(r, "%zu non-system subject%s can get nodes/proxy (the kubelet API: exec into any pod on any node): %s",
		       n, n == 1 ? "" : "s", sb_str(&sb));
		r_remedy(r, "remove nodes/proxy (and wildcard resources) from the ClusterRoles bound to these subjects; grant nodes/metrics or nodes/stats for monitoring instead");
	} else {
		r_pass(r, "no non-system subject can get nodes/proxy (%zu ClusterRoles grant it, all bound to system subjects)",
		       json_array_size(json_object_get(rbac, "roles")));
	}
	sb_free(&sb);
}

void check_k8s_api_private_name(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = kf(ctx);
	const char *host = jget_str(f, "server_host");
	if (!host) {
		r_skip(r, "the kubeconfig names no API server");
		return;
	}
	json_t *addrs = json_object_get(f, "server_addresses");
	const char *err = jget_str(f, "resolve_error");
	size_t priv = 0, pub = 0, loop = 0, i;
	json_t *a;
	json_array_foreach(addrs, i, a) {
		const char *c = jget_str(a, "class");
		if (c && (!strcmp(c, "private") || !strcmp(c, "link-local")))
			priv++;
		else if (c && !strcmp(c, "loopback"))
			loop++;
		else
			pub++;
	}
	json_t *obs = json_object();
	json_object_set_new(obs, "server", json_string(jget_str(f, "server_url") ?: host));
	json_object_set_new(obs, "addresses", json_incref(addrs ?: json_null()));
	json_object_set_new(obs, "lookup", json_string(jget_str(f, "resolve_source") ?: "none"));
	r_observed(r, obs);
	r_expectedf(r, "an API server name that resolves to the same public (or the same private) addresses from everywhere");
	if (json_is_true(json_object_get(f, "server_is_ip")))
		r_pass(r, "the kubeconfig uses the IP literal %s (%s): no name lookup to flip", host,
		       k8s_addr_class(host) ?: "?");
	else if (!json_array_size(addrs))
		r_skip(r, "%s", err ? err : "the API server name did not resolve");
	else if (priv && pub)
		r_warn(r, "%s resolves to private and public addresses (%zu private, %zu public): clients flip between them",
		       host, priv, pub);
	else if (priv)
		r_warn(r, "%s resolves to %zu private address%s from here: from outside the site it resolves elsewhere (or not at all); clients flip between them",
		       host, priv, priv == 1 ? "" : "es");
	else if (loop)
		r_pass(r, "%s resolves to loopback (a local tunnel or proxy)", host);
	else
		r_pass(r, "%s resolves to %zu public address%s", host, pub, pub == 1 ? "" : "es");
}

/* ---- add-ons and tenancy ---- */

/* A controller (Deployment or StatefulSet) whose name contains name_needle
 * or one of whose images contains image_needle, preferring a Ready one. */
static const json_t *find_ctl(const json_t *ctls, const char *name_needle, const char *image_needle)
{
	const json_t *hit = NULL;
	size_t i;
	json_t *d;
	json_array_foreach(ctls, i, d) {
		int m = name_needle && jget_str(d, "name") && strstr(jget_str(d, "name"), name_needle);
		size_t j;
		json_t *im;
		json_array_foreach(json_object_get(d, "images"), j, im)
			m |= image_needle && json_string_value(im) && strstr(json_string_value(im), image_needle);
		if (!m)
			continue;
		if (jget_int(d, "replicas", 1) > 0 && jget_int(d, "ready", 0) >= jget_int(d, "replicas", 1))
			return d;
		if (!hit)
			hit = d;
	}
	return hit;
}

static int ctl_ready(const json_t *d)
{
	return d && jget_int(d, "replicas", 1) > 0 && jget_int(d, "ready", 0) >= jget_int(d, "replicas", 1);
}

/* "ns/name (ready R/N)" */
static char *ctl_label(const json_t *d)
{
	return xasprintf("%s/%s (ready %lld/%lld)", jget_str(d, "namespace") ?: "?", jget_str(d, "name") ?: "?",
			 jget_int(d, "ready", 0), jget_int(d, "replicas", 1));
}

/* The tag of a controller's first image ("v0.12.3"), or NULL. */
static const char *ctl_tag(const json_t *d)
{
	const char *im = json_string_value(json_array_get(json_object_get(d, "images"), 0));
	const char *at = im ? strchr(im, '@') : NULL, *colon = im ? strrchr(im, ':') : NULL;
	if (!colon || (at && colon > at) || strchr(colon, '/'))
		return NULL;
	return colon + 1;
}

static int has_crd(const json_t *crds, const char *name)
{
	return k8s_list_has(crds, name, NULL);
}

void check_k8s_helm(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = kf(ctx);
	json_t *h = json_object_get(f, "helm"), *can = json_object_get(json_object_get(f, "tenant"), "can_create");
	if (!h || !can) {
		r_skip(r, "Helm and the tenant's rights were not read (no answer from the API server)");
		return;
	}
	const char *ns = jget_str(f, "namespace") ?: "default";
	json_t *dep = json_object_get(can, "deployments.apps"), *sec = json_object_get(can, "secrets");
	json_t *rel = json_object_get(h, "releases");
	json_t *obs = json_object();
	json_object_set_new(obs, "helm_on_path", json_incref(json_object_get(h, "on_path")));
	json_object_set_new(obs, "helm_version", json_incref(json_object_get(h, "version") ?: json_null()));
	json_object_set_new(obs, "namespace", json_string(ns));
	json_object_set_new(obs, "can_create_deployments", json_incref(dep ?: json_null()));
	json_object_set_new(obs, "can_create_secrets", json_incref(sec ?: json_null()));
	json_object_set_new(obs, "helm_releases", json_incref(rel ?: json_null()));
	r_observed(r, obs);
	r_expectedf(r, "helm on PATH and the tenant allowed to create Deployments and Secrets (Helm's release records) in its namespace");
	r_ref(r, "https://helm.sh/docs/topics/rbac/");
	r_ref(r, "https://kubernetes.io/docs/reference/access-authn-authz/authorization/#checking-api-access");
	if (json_is_array(rel)) {
		struct strbuf sb = STRBUF_INIT;
		size_t n = 0, i;
		json_t *x;
		json_array_foreach(rel, i, x) {
			char *item = xasprintf("%s/%s", jget_str(x, "namespace") ?: "?", jget_str(x, "release") ?: "?");
			add_name(&sb, &n, item);
			free(item);
		}
		r_evidence_note(r, "Helm release Secrets (owner=helm) visible: %zu%s%s", json_array_size(rel), n ? ": " : "",
				sb_str(&sb));
		sb_free(&sb);
	} else {
		r_evidence_note(r, "Helm release Secrets not listed: %s", jget_str(h, "releases_error") ?: "not read");
	}
	if (!json_is_boolean(dep) || !json_is_boolean(sec)) {
		r_skip(r, "kubectl auth can-i did not answer for namespace %s, so the tenant's right to install is unknown", ns);
	} else if (!json_is_true(json_object_get(h, "on_path"))) {
		r_warn(r, "helm is not on PATH: charts (operators, inference servers) cannot be installed from here");
		r_remedy(r, "install the helm 3 client on the login or jump host the tenant uses (https://helm.sh/docs/intro/install/)");
	} else if (!jget_str(h, "version")) {
		r_error(r, "helm version --short failed: %s", jget_str(h, "error") ?: "no output");
	} else if (!json_is_true(dep) || !json_is_true(sec)) {
		r_warn(r, "helm %s is installed, but the tenant may not create %s%s%s in namespace %s: helm install fails there",
		       jget_str(h, "version"), json_is_true(dep) ? "" : "Deployments", !json_is_true(dep) && !json_is_true(sec) ? " or " : "",
		       json_is_true(sec) ? "" : "Secrets", ns);
		r_remedy(r, "bind the tenant to the edit or admin ClusterRole in its namespace (a RoleBinding), so Helm can create workloads and its release Secrets");
	} else {
		r_pass(r, "helm %s; the tenant may create Deployments and Secrets in namespace %s", jget_str(h, "version"), ns);
	}
}

void check_k8s_rbac_self_service(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = kf(ctx);
	json_t *t = json_object_get(f, "tenant");
	json_t *rb = json_object_get(json_object_get(t, "can_create"), "rolebindings.rbac.authorization.k8s.io");
	const char *ns = jget_str(f, "namespace") ?: "default";
	json_t *rules = json_object_get(t, "rules");
	int roles = k8s_cani_grants(rules, "roles", "rbac.authorization.k8s.io", "create");
	int rbl = k8s_cani_grants(rules, "rolebindings", "rbac.authorization.k8s.io", "create");
	json_t *obs = json_object();
	json_object_set_new(obs, "namespace", json_string(ns));
	json_object_set_new(obs, "can_create_rolebindings", json_incref(rb ?: json_null()));
	json_object_set_new(obs, "rules_review_rows", json_is_array(rules) ? json_integer((json_int_t)json_array_size(rules)) : json_null());
	json_object_set_new(obs, "rules_review_roles", json_boolean(roles));
	json_object_set_new(obs, "rules_review_rolebindings", json_boolean(rbl));
	r_observed(r, obs);
	r_expectedf(r, "the tenant may create Roles and RoleBindings in its namespace (grant teammates and service accounts access without a ticket)");
	r_ref(r, "https://kubernetes.io/docs/reference/access-authn-authz/rbac/#rolebinding-and-clusterrolebinding");
	r_ref(r, "https://kubernetes.io/docs/reference/access-authn-authz/rbac/#privilege-escalation-prevention-and-bootstrapping");
	if (json_is_array(rules))
		r_evidence_note(r, "kubectl auth can-i --list in %s: %zu resource rules; create roles %s, create rolebindings %s", ns,
				json_array_size(rules), roles ? "yes" : "no", rbl ? "yes" : "no");
	else
		r_evidence_note(r, "kubectl auth can-i --list: %s", jget_str(t, "rules_error") ?: "not read");
	if (!json_is_boolean(rb)) {
		r_skip(r, "kubectl auth can-i create rolebindings did not answer for namespace %s", ns);
	} else if (!json_is_true(rb)) {
		r_warn(r, "the tenant may not create RoleBindings in namespace %s: every teammate or service account needs the provider to grant access",
		       ns);
		r_remedy(r, "bind the tenant's group to the admin ClusterRole in its namespaces (it includes Roles and RoleBindings, limited by RBAC's escalation rules)");
	} else {
		r_pass(r, "the tenant may create RoleBindings%s in namespace %s (namespaced self-service)", roles ? " and Roles" : "", ns);
	}
}

/* A node vCluster made up: its fake-node syncer labels it and reports a
 * made-up OS image and kernel. */
static int vcluster_fake_node(const json_t *n)
{
	const char *fake = jget_str(json_object_get(n, "labels"), "vcluster.loft.sh/fake-node");
	const char *os = jget_str(n, "os_image"), *kv = jget_str(n, "kernel_version");
	return (fake && !strcmp(fake, "true")) || (os && !strcmp(os, "Fake Kubernetes Image")) ||
	       (kv && strstr(kv, "-fakelinux"));
}

void check_k8s_vcluster(struct audit_ctx *ctx, struct result *r)
{
	json_t *nodes = kfact(ctx, r, "nodes", "nodes");
	if (!nodes)
		return;
	struct strbuf sb = STRBUF_INIT;
	size_t fake = 0, i;
	json_t *n;
	json_array_foreach(nodes, i, n)
		if (vcluster_fake_node(n))
			add_name(&sb, &fake, jget_str(n, "name"));
	size_t gpun = count_gpu_nodes(nodes);
	json_t *obs = json_object();
	json_object_set_new(obs, "nodes", json_integer((json_int_t)json_array_size(nodes)));
	json_object_set_new(obs, "vcluster_fake_nodes", json_integer((json_int_t)fake));
	json_object_set_new(obs, "gpu_nodes", json_integer((json_int_t)gpun));
	r_observed(r, obs);
	r_expectedf(r, "the tenant sees the real nodes with their GPU capacity (no vCluster fake nodes hiding the hosts)");
	r_ref(r, "https://www.vcluster.com/docs/vcluster/configure/vcluster-yaml/sync/from-host/nodes");
	if (fake) {
		r_warn(r, "%zu of %zu nodes are vCluster fake nodes (%s): the host nodes' GPUs, drivers and fabric are hidden, so this audit of the cluster is partial",
		       fake, json_array_size(nodes), sb_str(&sb));
		r_remedy(r, "ask the provider for host node sync (vCluster sync.fromHost.nodes with real node data) or for the audit to run against the host cluster");
	} else if (gpun) {
		r_pass(r, "%zu real nodes with GPU capacity visible; no vCluster fake node", gpun);
	} else {
		r_skip(r, "no GPU capacity visible and no vCluster fake node: host visibility cannot be judged");
	}
	sb_free(&sb);
}

/* What runs the GPU workloads' queueing and gang admission. */
struct sched_inv {
	const json_t *kueue, *volcano, *kai, *cosched, *runai;
	int kueue_crd, volcano_crd, kai_crd, cosched_crd;
};

static void sched_inventory(const json_t *f, struct sched_inv *s)
{
	const json_t *ctls = json_object_get(f, "controllers"), *crds = json_object_get(f, "crds");
	memset(s, 0, sizeof *s);
	s->kueue_crd = has_crd(crds, "clusterqueues.kueue.x-k8s.io");
	s->volcano_crd = has_crd(crds, "podgroups.scheduling.volcano.sh");
	s->kai_crd = json_is_true(json_object_get(f, "kai_scheduler"));
	s->cosched_crd = has_crd(crds, "podgroups.scheduling.x-k8s.io");
	s->kueue = find_ctl(ctls, "kueue-controller-manager", "/kueue/kueue:");
	s->volcano = find_ctl(ctls, "volcano-scheduler", "volcanosh/vc-scheduler");
	s->kai = find_ctl(ctls, "kai-scheduler", "kai-scheduler/scheduler");
	s->cosched = find_ctl(ctls, NULL, "scheduler-plugins/kube-scheduler");
	s->runai = find_ctl(ctls, "runai-scheduler", "runai/scheduler");
}

/* The scheduler configurations of one type (kube-scheduler, volcano, kueue). */
static const json_t *sched_config(const json_t *cfgs, const char *type, size_t nth, const json_t **cm)
{
	size_t i, j, seen = 0;
	json_t *m, *c;
	json_array_foreach(cfgs, i, m)
		json_array_foreach(json_object_get(m, "configs"), j, c)
			if (jget_str(c, "type") && !strcmp(jget_str(c, "type"), type) && seen++ == nth) {
				if (cm)
					*cm = m;
				return c;
			}
	return NULL;
}

void check_k8s_gang_scheduling(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = kf(ctx);
	if (unread(r, f, "controllers", "Deployments") || unread(r, f, "crds", "CustomResourceDefinitions"))
		return;
	struct sched_inv s;
	sched_inventory(f, &s);
	const json_t *cfgs = json_object_get(f, "scheduler_configs");
	if (!json_is_array(cfgs))
		cfgs = NULL;
	const json_t *vc = sched_config(cfgs, "volcano", 0, NULL), *kc = sched_config(cfgs, "kueue", 0, NULL);
	json_t *cqs = json_object_get(f, "kueue_clusterqueues");
	size_t active = 0, i;
	json_t *q;
	json_array_foreach(cqs, i, q)
		active += json_is_true(json_object_get(q, "active"));
	struct strbuf have = STRBUF_INIT, broken = STRBUF_INIT;
	json_t *obs = json_object();
	static const char *const names[] = { "kueue", "volcano", "kai", "coscheduling" };
	const json_t *ctl[] = { s.kueue, s.volcano, s.kai, s.cosched };
	int crd[] = { s.kueue_crd, s.volcano_crd, s.kai_crd, s.cosched_crd };
	for (int k = 0; k < 4; k++) {
		char *l = ctl[k] ? ctl_label(ctl[k]) : NULL;
		json_object_set_new(obs, names[k], l ? json_string(l) : json_null());
		if (ctl[k] && ctl_ready(ctl[k]) && crd[k])
			sb_addf(&have, "%s%s %s", have.len ? ", " : "", names[k], l);
		else if (ctl[k] || crd[k])
			sb_addf(&broken, "%s%s %s", broken.len ? ", " : "", names[k],
				ctl[k] ? (crd[k] ? l : "controller without its PodGroup/queue CRD") : "CRD installed, no controller running");
		free(l);
	}
	json_object_set_new(obs, "kueue_clusterqueues_active", json_integer((json_int_t)active));
	json_object_set_new(obs, "kueue_wait_for_pods_ready", kc ? json_incref(json_object_get((json_t *)kc, "wait_for_pods_ready")) : json_null());
	json_object_set_new(obs, "volcano_gang_plugin", vc ? json_incref(json_object_get((json_t *)vc, "gang")) : json_null());
	r_observed(r, obs);
	r_expectedf(r, "a gang scheduler installed and running: Kueue (ClusterQueues, waitForPodsReady), Volcano (gang plugin), scheduler-plugins coscheduling or KAI");
	r_ref(r, "https://kueue.sigs.k8s.io/docs/tasks/manage/setup_wait_for_pods_ready/");
	r_ref(r, "https://volcano.sh/en/docs/plugins/");
	r_ref(r, "https://scheduler-plugins.sigs.k8s.io/docs/plugins/coscheduling/");
	r_ref(r, "https://github.com/NVIDIA/KAI-Scheduler");
	int volcano_ok = s.volcano && ctl_ready(s.volcano) && s.volcano_crd && !(vc && !json_is_true(json_object_get((json_t *)vc, "gang")));
	int kueue_ok = s.kueue && ctl_ready(s.kueue) && s.kueue_crd && active;
	int other_ok = (s.kai && ctl_ready(s.kai) && s.kai_crd) || (s.cosched && ctl_ready(s.cosched) && s.cosched_crd);
	if (!cfgs)
		r_evidence_note(r, "scheduler ConfigMaps not read (%s): Kueue's waitForPodsReady and Volcano's plugins unknown",
				jget_str(json_object_get(f, "unread"), "scheduler_configs") ?: "no data");
	if (volcano_ok || other_ok || (kueue_ok && !(kc && !json_is_true(json_object_get((json_t *)kc, "wait_for_pods_ready"))))) {
		r_pass(r, "gang scheduling: %s", sb_str(&have));
	} else if (kueue_ok) {
		r_warn(r, "Kueue admits whole workloads (%zu active ClusterQueues), but waitForPodsReady is off: a gang whose pods do not all start holds its GPUs",
		       active);
		r_remedy(r, "enable waitForPodsReady in Kueue's Configuration (kueue-manager-config) so partially started gangs are evicted and requeued");
	} else if (s.kueue && ctl_ready(s.kueue) && s.kueue_crd) {
		r_warn(r, "Kueue runs but no ClusterQueue is active: nothing is admitted as a gang");
		r_remedy(r, "define a ResourceFlavor, a ClusterQueue with GPU quota and a LocalQueue per tenant namespace");
	} else if (broken.len) {
		r_warn(r, "a gang scheduler is installed but not usable: %s", sb_str(&broken));
		r_remedy(r, "repair the scheduler's controller (kubectl describe deployment) or remove the stale CRDs");
	} else {
		r_warn(r, "no gang scheduler (Kueue, Volcano, coscheduling, KAI): multi-pod GPU jobs start piecemeal and deadlock on partial allocations");
		r_remedy(r, "install Kueue (with waitForPodsReady), Volcano or the KAI scheduler and submit multi-node jobs through it");
	}
	sb_free(&have);
	sb_free(&broken);
}

void check_k8s_bin_packing(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = kf(ctx);
	struct sched_inv s;
	sched_inventory(f, &s);
	const json_t *cfgs = json_object_get(f, "scheduler_configs");
	if (!json_is_array(cfgs))
		cfgs = NULL;
	int kai = s.kai && ctl_ready(s.kai) && s.kai_crd;
	struct strbuf packs = STRBUF_INIT, spreads = STRBUF_INIT;
	const json_t *c, *cm;
	for (size_t k = 0; (c = sched_config(cfgs, "kube-scheduler", k, &cm)); k++) {
		size_t i;
		json_t *p;
		json_array_foreach(json_object_get((json_t *)c, "profiles"), i, p) {
			const char *sc = jget_str(p, "scoring") ?: "?";
			int pack = !strcmp(sc, "MostAllocated") || !strcmp(sc, "RequestedToCapacityRatio");
			int gpu = json_is_true(json_object_get(p, "gpu_weighted"));
			struct strbuf *sb = pack && gpu ? &packs : &spreads;
			sb_addf(sb, "%s%s/%s %s %s%s", sb->len ? ", " : "", jget_str(cm, "namespace") ?: "?", jget_str(cm, "name") ?: "?",
				jget_str(p, "scheduler") ?: "?", sc, pack && !gpu ? " (cpu/memory only)" : "");
		}
	}
	for (size_t k = 0; (c = sched_config(cfgs, "volcano", k, &cm)); k++) {
		int bp = json_is_true(json_object_get((json_t *)c, "binpack_gpu"));
		struct strbuf *sb = bp ? &packs : &spreads;
		sb_addf(sb, "%s%s/%s Volcano %s", sb->len ? ", " : "", jget_str(cm, "namespace") ?: "?", jget_str(cm, "name") ?: "?",
			bp ? "binpack (nvidia.com/gpu)" : "without GPU binpack");
	}
	if (kai)
		sb_addf(&packs, "%sKAI scheduler (bin-packs GPUs by default)", packs.len ? ", " : "");
	json_t *obs = json_object();
	json_object_set_new(obs, "bin_packing", json_string(sb_str(&packs)));
	json_object_set_new(obs, "spreading", json_string(sb_str(&spreads)));
	json_object_set_new(obs, "scheduler_configs", json_incref((json_t *)cfgs ?: json_null()));
	r_observed(r, obs);
	r_expectedf(r, "GPU pods packed onto the fewest nodes: NodeResourcesFit MostAllocated or RequestedToCapacityRatio weighting nvidia.com/gpu, Volcano binpack or KAI");
	r_ref(r, "https://kubernetes.io/docs/concepts/scheduling-eviction/resource-bin-packing/");
	r_ref(r, "https://volcano.sh/en/docs/plugins/");
	if (packs.len) {
		r_pass(r, "GPU bin-packing: %s", sb_str(&packs));
	} else if (!cfgs) {
		r_skip(r, "the scheduler configuration cannot be read: %s",
		       jget_str(json_object_get(f, "unread"), "scheduler_configs") ?: "ConfigMaps not listed");
	} else {
		r_warn(r, "only spreading is visible (%s): GPU pods scatter across nodes and fragment them, so whole-node jobs wait",
		       spreads.len ? sb_str(&spreads) : "no scheduler ConfigMap; the default scheduler scores LeastAllocated");
		r_remedy(r, "run a scheduler profile with NodeResourcesFit scoringStrategy MostAllocated (or RequestedToCapacityRatio) weighting nvidia.com/gpu, Volcano's binpack plugin, or KAI");
	}
	sb_free(&packs);
	sb_free(&spreads);
}

/* RDMA patterns the provider's own plugin serves (no NVIDIA Network Operator). */
static int provider_pattern(const char *p)
{
	return p && (!strcmp(p, "efa") || !strcmp(p, "doks_fabric") || !strcmp(p, "gke_dranet"));
}

void check_k8s_network_operator(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = kf(ctx);
	if (unread(r, f, "nodes", "nodes"))
		return;
	json_t *nodes = json_object_get(f, "nodes"), *res = json_array();
	size_t nic = 0, i;
	json_t *n;
	json_array_foreach(nodes, i, n) {
		if (!is_gpu_node(n))
			continue;
		const char *mlx = jget_str(json_object_get(n, "labels"), "feature.node.kubernetes.io/pci-15b3.present");
		int rdma = mlx && !strcmp(mlx, "true");
		size_t j;
		json_t *e;
		json_array_foreach(json_object_get(n, "extended_resources"), j, e)
			if (k8s_rdma_pattern_of(json_string_value(e))) {
				rdma = 1;
				fact_add_unique(res, json_string_value(e));
			}
		nic += rdma;
	}
	json_t *pats = k8s_rdma_patterns(res, json_object_get(f, "nicclusterpolicy"), json_object_get(f, "sriov_policies"),
					 json_object_get(json_object_get(f, "resourceslices"), "drivers"));
	int provider = json_array_size(pats) > 0;
	size_t k;
	json_t *p;
	json_array_foreach(pats, k, p)
		provider &= provider_pattern(jget_str(p, "pattern"));
	json_t *ncp = json_is_object(json_object_get(f, "nicclusterpolicy")) ? json_object_get(f, "nicclusterpolicy") : NULL;
	const char *state = jget_str(f, "nicclusterpolicy_state");
	const json_t *op = find_ctl(json_object_get(f, "controllers"), "network-operator", "/network-operator:");
	char *opl = op ? ctl_label(op) : NULL;
	json_t *obs = json_object();
	json_object_set_new(obs, "gpu_nodes_with_rdma_nics", json_integer((json_int_t)nic));
	json_object_set_new(obs, "rdma_patterns", pats);
	json_object_set_new(obs, "nicclusterpolicy", json_incref(ncp ?: json_null()));
	json_object_set_new(obs, "nicclusterpolicy_state", state ? json_string(state) : json_null());
	json_object_set_new(obs, "operator", opl ? json_string(opl) : json_null());
	r_observed(r, obs);
	json_decref(res);
	r_expectedf(r, "on GPU nodes with NVIDIA (Mellanox) RDMA NICs: the NVIDIA Network Operator with a NicClusterPolicy in state ready and its operator running");
	r_ref(r, "https://docs.nvidia.com/networking/software/cloud-orchestration/index.html");
	r_ref(r, "https://github.com/Mellanox/network-operator");
	if (!json_is_array(json_object_get(f, "controllers")))
		r_evidence_note(r, "Deployments not read (%s): the operator's own pods are not graded",
				jget_str(json_object_get(f, "unread"), "controllers") ?: "no data");
	if (provider && !ncp)
		r_skip(r, "RDMA is served by the provider's own plugin (%s): the NVIDIA Network Operator does not apply",
		       jget_str(json_array_get(pats, 0), "pattern"));
	else if (!nic && !ncp)
		r_skip(r, "no RDMA-capable GPU node (no Mellanox NIC label from node feature discovery, no RDMA resource)");
	else if (!ncp) {
		r_warn(r, "%zu GPU nodes with NVIDIA RDMA NICs but no NicClusterPolicy: the NICs' drivers, device plugins and secondary networks are wired by hand, if at all",
		       nic);
		r_remedy(r, "install the NVIDIA Network Operator and define a NicClusterPolicy (OFED/DOCA driver, RDMA shared device plugin or SR-IOV) for the GPU nodes' NICs");
	}
	else if (!state || strcmp(state, "ready"))
		r_warn(r, "NicClusterPolicy state is %s, not ready: the RDMA device plugin or OFED driver pods are failing", state ? state : "unset");
	else if (op && !ctl_ready(op))
		r_warn(r, "NicClusterPolicy ready but the operator %s is not: changes to the policy are not applied", opl);
	else
		r_pass(r, "NVIDIA Network Operator: NicClusterPolicy ready%s%s", opl ? ", operator " : "", opl ? opl : "");
	free(opl);
}

void check_k8s_mpi_operator(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = kf(ctx);
	if (unread(r, f, "crds", "CustomResourceDefinitions") || unread(r, f, "controllers", "Deployments"))
		return;
	json_t *crds = json_object_get(f, "crds"), *ctls = json_object_get(f, "controllers");
	size_t gpun = json_is_array(json_object_get(f, "nodes")) ? count_gpu_nodes(json_object_get(f, "nodes")) : 0;
	int mpi_crd = has_crd(crds, "mpijobs.kubeflow.org"), trainer_crd = has_crd(crds, "trainjobs.trainer.kubeflow.org");
	const json_t *mpi = find_ctl(ctls, "mpi-operator", "/mpi-operator:");
	const json_t *training = find_ctl(ctls, "training-operator", "/training-operator:");
	const json_t *trainer = find_ctl(ctls, "kubeflow-trainer-controller-manager", "/trainer-controller-manager:");
	char *l1 = mpi ? ctl_label(mpi) : NULL, *l2 = training ? ctl_label(training) : NULL, *l3 = trainer ? ctl_label(trainer) : NULL;
	json_t *obs = json_object();
	json_object_set_new(obs, "mpijobs_crd", json_boolean(mpi_crd));
	json_object_set_new(obs, "trainjobs_crd", json_boolean(trainer_crd));
	json_object_set_new(obs, "mpi_operator", l1 ? json_string(l1) : json_null());
	json_object_set_new(obs, "training_operator", l2 ? json_string(l2) : json_null());
	json_object_set_new(obs, "trainer", l3 ? json_string(l3) : json_null());
	r_observed(r, obs);
	r_expectedf(r, "the MPI Operator (MPIJob kubeflow.org/v2beta1) or the Kubeflow training operator / Trainer installed with its controller running");
	r_ref(r, "https://github.com/kubeflow/mpi-operator");
	r_ref(r, "https://www.kubeflow.org/docs/components/trainer/");
	if (gpun < 2) {
		r_skip(r, "%zu GPU node%s: no multi-node MPI job to launch", gpun, gpun == 1 ? "" : "s");
	} else if (mpi_crd && mpi && ctl_ready(mpi)) {
		r_pass(r, "MPI Operator: MPIJob CRD and controller %s", l1);
	} else if (mpi_crd && training && ctl_ready(training)) {
		r_pass(r, "Kubeflow training operator: MPIJob CRD and controller %s", l2);
	} else if (trainer_crd && trainer && ctl_ready(trainer)) {
		r_pass(r, "Kubeflow Trainer: TrainJob CRD and controller %s (MPI runtime)", l3);
	} else if (mpi_crd || trainer_crd || mpi || training || trainer) {
		r_warn(r, "an MPI/training operator is installed but not running: %s%s", mpi_crd || trainer_crd ? "its CRD is present" : "no CRD",
		       mpi || training || trainer ? ", its controller is not Ready" : ", no controller");
		r_remedy(r, "repair the operator's Deployment (kubectl describe deployment -n mpi-operator) or reinstall it");
	} else {
		r_warn(r, "no MPI Operator or Kubeflow training operator: multi-node MPI jobs (nccl-tests, mpirun launchers) across %zu GPU nodes need hand-built launchers",
		       gpun);
		r_remedy(r, "install the MPI Operator (kubectl apply --server-side -f https://raw.githubusercontent.com/kubeflow/mpi-operator/master/deploy/v2beta1/mpi-operator.yaml) or the Kubeflow Trainer");
	}
	free(l1);
	free(l2);
	free(l3);
}

/* "v0.12.3" -> 0, 12; -1 when the tag is not vMAJOR.MINOR... */
static int tag_version(const char *tag, long *major, long *minor)
{
	if (!tag)
		return -1;
	const char *p = tag[0] == 'v' ? tag + 1 : tag;
	char *end;
	*major = strtol(p, &end, 10);
	if (end == p || *end != '.')
		return -1;
	p = end + 1;
	*minor = strtol(p, &end, 10);
	return end == p ? -1 : 0;
}

void check_k8s_workload_scheduler(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = kf(ctx);
	if (unread(r, f, "controllers", "Deployments"))
		return;
	struct sched_inv s;
	sched_inventory(f, &s);
	struct strbuf have = STRBUF_INIT;
	static const char *const names[] = { "Kueue", "Volcano", "KAI scheduler", "Run:ai" };
	const json_t *ctl[] = { s.kueue, s.volcano, s.kai, s.runai };
	json_t *obs = json_object();
	for (int k = 0; k < 4; k++) {
		if (!ctl[k] || !ctl_ready(ctl[k]))
			continue;
		char *l = ctl_label(ctl[k]);
		sb_addf(&have, "%s%s %s%s%s", have.len ? ", " : "", names[k], l, ctl_tag(ctl[k]) ? " " : "", ctl_tag(ctl[k]) ?: "");
		free(l);
	}
	json_t *claims = json_is_object(json_object_get(f, "resourceclaims")) ? json_object_get(f, "resourceclaims") : NULL;
	long long in_use = jget_int(claims, "in_use", 0);
	long dra_min = (long)threshold(ctx, "k8s.kueue_dra_min_minor", 14);
	long major = 0, minor = 0;
	const char *tag = s.kueue ? ctl_tag(s.kueue) : NULL;
	int kv = tag_version(tag, &major, &minor) == 0;
	json_object_set_new(obs, "schedulers", json_string(sb_str(&have)));
	json_object_set_new(obs, "kueue_version", tag ? json_string(tag) : json_null());
	json_object_set_new(obs, "resourceclaims_in_use", claims ? json_integer(in_use) : json_null());
	r_observed(r, obs);
	r_expectedf(r, "a GPU-aware workload scheduler or queue (Kueue, Volcano, KAI, Run:ai) running; with DRA claims in use, Kueue v0.%ld or newer (DRA support)",
		    dra_min);
	r_ref(r, "https://kueue.sigs.k8s.io/docs/overview/");
	r_ref(r, "https://github.com/kubernetes-sigs/kueue/blob/main/CHANGELOG/CHANGELOG-0.14.md");
	r_ref(r, "https://volcano.sh/en/docs/");
	r_ref(r, "https://github.com/NVIDIA/KAI-Scheduler");
	if (!claims)
		r_evidence_note(r, "ResourceClaims not read (%s): Kueue's DRA support not graded",
				jget_str(json_object_get(f, "unread"), "resourceclaims") ?: "no data");
	if (s.kueue && ctl_ready(s.kueue) && kv && major == 0 && minor < dra_min && in_use > 0) {
		r_warn(r, "Kueue %s predates DRA support (v0.%ld) while %lld ResourceClaims are in use: workloads with DRA claims are admitted without their devices counted against quota, or rejected",
		       tag, dra_min, in_use);
		r_remedy(r, "upgrade Kueue to v0.%ld or newer and map the DRA DeviceClasses to quota (deviceClassMappings, DynamicResourceAllocation feature gate)",
			 dra_min);
	} else if (have.len) {
		r_pass(r, "workload scheduler: %s", sb_str(&have));
	} else {
		r_warn(r, "no GPU-aware workload scheduler or queue (Kueue, Volcano, KAI, Run:ai) running: GPU jobs are first come, first served, with no quota or fair sharing");
		r_remedy(r, "install Kueue (ClusterQueues with GPU quota per tenant), Volcano or the KAI scheduler");
	}
	sb_free(&have);
}

/* The Deployment or DaemonSet that serves an IngressClass's controller
 * (spec.controller), by the project names the well-known controllers use. */
static const json_t *ingress_controller(const json_t *f, const char *controller, int *cloud)
{
	static const char *const map[][2] = {
		{ "k8s.io/ingress-nginx", "ingress-nginx" }, { "nginx.org/ingress-controller", "nginx-ingress" },
		{ "traefik.io/ingress-controller", "traefik" }, { "haproxy", "haproxy" }, { "contour", "contour" },
		{ "ingress.k8s.aws/alb", "aws-load-balancer-controller" }, { "istio.io", "istiod" }, { "konghq.com", "kong" },
		{ "cilium", "cilium" },
	};
	*cloud = controller && (strstr(controller, "networking.gke.io") || strstr(controller, "azure/application-gateway"));
	for (size_t i = 0; controller && i < sizeof map / sizeof map[0]; i++) {
		if (!strstr(controller, map[i][0]))
			continue;
		const json_t *d = find_ctl(json_object_get(f, "controllers"), map[i][1], map[i][1]);
		if (!d)
			d = find_ds(json_object_get(f, "daemonsets"), map[i][1], map[i][1]);
		return d;
	}
	return NULL;
}

void check_k8s_ingress(struct audit_ctx *ctx, struct result *r)
{
	json_t *ics = kfact(ctx, r, "ingressclasses", "IngressClasses");
	if (!ics)
		return;
	json_t *f = kf(ctx);
	const json_t *def = NULL;
	size_t i;
	json_t *ic;
	json_array_foreach(ics, i, ic)
		if (json_is_true(json_object_get(ic, "default")) && !def)
			def = ic;
	const json_t *use = def ? def : json_array_get(ics, 0);
	int cloud = 0;
	const json_t *ctl = use ? ingress_controller(f, jget_str(use, "controller"), &cloud) : NULL;
	/* a DaemonSet counts ready pods as "ready" of "desired", a Deployment as ready of replicas */
	int ready = ctl && (json_object_get(ctl, "desired") ? jget_int(ctl, "ready", 0) >= jget_int(ctl, "desired", 1) &&
							   jget_int(ctl, "desired", 0) > 0
						      : ctl_ready(ctl));
	char label[256] = "";
	if (ctl)
		ds_label(ctl, label, sizeof label);
	json_t *obs = json_object();
	json_object_set_new(obs, "ingressclasses", json_incref(ics));
	json_object_set_new(obs, "default", def ? json_string(jget_str(def, "name") ?: "?") : json_null());
	json_object_set_new(obs, "controller", ctl ? json_string(label) : json_null());
	r_observed(r, obs);
	r_expectedf(r, "a default IngressClass (ingressclass.kubernetes.io/is-default-class) whose controller pods run");
	r_ref(r, "https://kubernetes.io/docs/concepts/services-networking/ingress/#default-ingress-class");
	r_ref(r, "https://kubernetes.io/docs/concepts/services-networking/ingress-controllers/");
	if (!json_array_size(ics)) {
		r_warn(r, "no IngressClass: Ingress objects (notebooks, dashboards, inference endpoints) are never served");
		r_remedy(r, "install an ingress controller (ingress-nginx, Traefik, the cloud's) and mark its IngressClass as the default");
	} else if (!def) {
		r_warn(r, "%zu IngressClass%s, none the default: Ingresses without ingressClassName are ignored", json_array_size(ics),
		       json_array_size(ics) == 1 ? "" : "es");
		r_remedy(r, "annotate one IngressClass with ingressclass.kubernetes.io/is-default-class=true");
	} else if (cloud) {
		r_pass(r, "default IngressClass %s served by the cloud's managed controller (%s)", jget_str(def, "name") ?: "?",
		       jget_str(def, "controller") ?: "?");
	} else if (!ctl || !ready) {
		r_warn(r, "default IngressClass %s (%s), but %s", jget_str(def, "name") ?: "?", jget_str(def, "controller") ?: "?",
		       ctl ? "its controller is not Ready" : "no controller pod for it is visible");
		r_remedy(r, "deploy or repair the ingress controller named by the IngressClass (kubectl get pods -A | grep ingress)");
	} else {
		r_pass(r, "default IngressClass %s served by %s", jget_str(def, "name") ?: "?", label);
	}
}

void check_k8s_load_balancer(struct audit_ctx *ctx, struct result *r)
{
	json_t *svcs = kfact(ctx, r, "lb_services", "Services");
	if (!svcs)
		return;
	json_t *f = kf(ctx);
	static const char *const impls[] = { "metallb", "kube-vip", "purelb", "openelb", "loxilb", "aws-load-balancer-controller",
					     "cloud-controller-manager", "ccm" };
	const json_t *impl = NULL;
	for (size_t i = 0; !impl && i < sizeof impls / sizeof impls[0]; i++) {
		impl = find_ctl(json_object_get(f, "controllers"), impls[i], impls[i]);
		if (!impl)
			impl = find_ds(json_object_get(f, "daemonsets"), impls[i], impls[i]);
	}
	struct strbuf pend = STRBUF_INIT;
	size_t npend = 0, i;
	json_t *s;
	json_array_foreach(svcs, i, s)
		if (!json_array_size(json_object_get(s, "ingress"))) {
			char *item = xasprintf("%s/%s", jget_str(s, "namespace") ?: "?", jget_str(s, "name") ?: "?");
			add_name(&pend, &npend, item);
			free(item);
		}
	char label[256] = "";
	if (impl)
		ds_label(impl, label, sizeof label);
	json_t *obs = json_object();
	json_object_set_new(obs, "loadbalancer_services", json_incref(svcs));
	json_object_set_new(obs, "pending", json_integer((json_int_t)npend));
	json_object_set_new(obs, "implementation", impl ? json_string(label) : json_null());
	r_observed(r, obs);
	r_expectedf(r, "Services of type LoadBalancer get an external address (MetalLB, kube-vip, the cloud controller)");
	r_ref(r, "https://kubernetes.io/docs/concepts/services-networking/service/#loadbalancer");
	r_ref(r, "https://metallb.universe.tf/concepts/");
	if (npend) {
		r_warn(r, "%zu of %zu LoadBalancer Services have no external address (pending): %s%s%s", npend, json_array_size(svcs),
		       sb_str(&pend), impl ? "; implementation " : "; no load-balancer implementation visible", impl ? label : "");
		r_remedy(r, "run a load-balancer implementation with an address pool (MetalLB IPAddressPool and L2Advertisement or BGP, kube-vip) or the cloud controller manager");
	} else if (json_array_size(svcs)) {
		r_pass(r, "%zu LoadBalancer Service%s, each with an external address", json_array_size(svcs),
		       json_array_size(svcs) == 1 ? "" : "s");
	} else if (impl) {
		r_pass(r, "load-balancer implementation %s present (no LoadBalancer Service yet)", label);
	} else {
		r_warn(r, "no LoadBalancer Service and no load-balancer implementation visible: a Service of type LoadBalancer would stay pending");
		r_remedy(r, "install MetalLB (or kube-vip) with an address pool, or confirm the provider's cloud controller serves LoadBalancer Services");
	}
	sb_free(&pend);
}

void check_k8s_gpu_job_attribution(struct audit_ctx *ctx, struct result *r)
{
	json_t *nodes, *dss;
	size_t gpun = gpu_nodes_and_dss(ctx, r, &nodes, &dss, "no GPU nodes");
	if (!gpun)
		return;
	const json_t *ds = find_ds(dss, "dcgm-exporter", "dcgm-exporter");
	if (!ds) {
		r_skip(r, "no dcgm-exporter DaemonSet (orchestration.k8s-gpu-operator grades its absence)");
		return;
	}
	char label[256];
	ds_label(ds, label, sizeof label);
	const char *env = jget_str(json_object_get(ds, "env"), "DCGM_EXPORTER_KUBERNETES");
	int flag = k8s_list_has(json_object_get(ds, "arg_flags"), "--kubernetes", "-k");
	int on = flag || (env && (!strcasecmp(env, "true") || !strcmp(env, "1")));
	int sock = 0;
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(ds, "host_paths"), i, p)
		if (json_string_value(p) && str_starts(json_string_value(p), "/var/lib/kubelet/pod-resources"))
			sock = 1;
	json_t *obs = json_object();
	json_object_set_new(obs, "daemonset", json_string(label));
	json_object_set_new(obs, "DCGM_EXPORTER_KUBERNETES", env ? json_string(env) : json_null());
	json_object_set_new(obs, "kubernetes_flag", json_boolean(flag));
	json_object_set_new(obs, "pod_resources_mounted", json_boolean(sock));
	r_observed(r, obs);
	r_expectedf(r, "dcgm-exporter with Kubernetes mapping on (DCGM_EXPORTER_KUBERNETES=true or --kubernetes) and the kubelet pod-resources socket (/var/lib/kubelet/pod-resources) mounted");
	r_ref(r, "https://docs.nvidia.com/datacenter/cloud-native/gpu-telemetry/latest/dcgm-exporter.html");
	r_ref(r, "https://kubernetes.io/docs/concepts/extend-kubernetes/compute-storage-net/device-plugins/#monitoring-device-plugin-resources");
	if (on && sock) {
		r_pass(r, "%s maps GPU metrics to pods (Kubernetes mapping on, pod-resources socket mounted)", label);
	} else {
		r_warn(r, "%s %s: GPU metrics cannot be attributed to pods, namespaces or jobs", label,
		       !on ? "runs without Kubernetes mapping (DCGM_EXPORTER_KUBERNETES unset or false, no --kubernetes)"
			   : "has Kubernetes mapping on but no /var/lib/kubelet/pod-resources mount");
		r_remedy(r, "set DCGM_EXPORTER_KUBERNETES=true on the dcgm-exporter container and mount the hostPath /var/lib/kubelet/pod-resources (the GPU Operator does both by default)");
	}
}

void check_k8s_imex_dra(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = kf(ctx);
	if (unread(r, f, "nodes", "nodes"))
		return;
	json_t *nodes = json_object_get(f, "nodes");
	/* multi-node NVLink: a clique label shared by two or more GPU nodes */
	json_t *cliques = json_object();
	size_t i;
	json_t *n;
	json_array_foreach(nodes, i, n) {
		const char *c = is_gpu_node(n) ? jget_str(json_object_get(n, "labels"), "nvidia.com/gpu.clique") : NULL;
		if (!c)
			continue;
		if (!json_object_get(cliques, c))
			json_object_set_new(cliques, c, json_array());
		json_array_append_new(json_object_get(cliques, c), json_string(jget_str(n, "name") ?: "?"));
	}
	json_t *mn = json_array();
	const char *ck;
	json_t *members;
	json_object_foreach(cliques, ck, members)
		if (json_array_size(members) >= 2) {
			size_t j;
			json_t *m;
			json_array_foreach(members, j, m)
				json_array_append(mn, m);
		}
	json_t *rs = json_is_object(json_object_get(f, "resourceslices")) ? json_object_get(f, "resourceslices") : NULL;
	json_t *cd_nodes = json_object_get(json_object_get(rs, "nodes_by_driver"), "compute-domain.nvidia.com");
	int cd_crd = has_crd(json_object_get(f, "crds"), "computedomains.resource.nvidia.com");
	const json_t *imex_ds = json_is_array(json_object_get(f, "daemonsets")) ? find_ds(json_object_get(f, "daemonsets"), "imex", NULL) : NULL;
	struct strbuf missing = STRBUF_INIT;
	size_t nmiss = 0;
	json_t *m;
	json_array_foreach(mn, i, m)
		if (!k8s_list_has(cd_nodes, json_string_value(m), NULL))
			add_name(&missing, &nmiss, json_string_value(m));
	json_t *obs = json_object();
	json_object_set_new(obs, "nvlink_cliques", cliques);
	json_object_set_new(obs, "multi_node_nvlink_nodes", json_integer((json_int_t)json_array_size(mn)));
	json_object_set_new(obs, "computedomain_crd", json_boolean(cd_crd));
	json_object_set_new(obs, "compute_domain_slice_nodes", json_incref(cd_nodes ?: json_null()));
	json_object_set_new(obs, "dra_api", rs ? json_incref(json_object_get(rs, "api")) : json_null());
	r_observed(r, obs);
	r_expectedf(r, "on multi-node NVLink (NVL72) nodes: the NVIDIA DRA driver's ComputeDomain CRD (resource.nvidia.com) and a compute-domain.nvidia.com ResourceSlice on every clique node, so pods get IMEX channels");
	r_ref(r, "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/dra-cds.html");
	r_ref(r, "https://github.com/NVIDIA/k8s-dra-driver-gpu");
	size_t nmn = json_array_size(mn);
	if (!nmn) {
		r_skip(r, "no multi-node NVLink: no nvidia.com/gpu.clique label shared by two GPU nodes");
	} else if (!rs && !cd_crd) {
		r_skip(r, "ResourceSlices not read (%s) and no ComputeDomain CRD seen",
		       jget_str(json_object_get(f, "unread"), "resourceslices") ?: "no data");
	} else if (!cd_crd && !json_array_size(cd_nodes)) {
		r_fail(r, "%zu GPU nodes share NVLink cliques, but no ComputeDomain CRD and no compute-domain.nvidia.com ResourceSlice%s: pods get no IMEX channel, so multi-node NVLink is unusable from Kubernetes",
		       nmn, imex_ds ? " (an IMEX DaemonSet runs, without per-workload isolation)" : "");
		r_remedy(r, "install the NVIDIA DRA Driver for GPUs with ComputeDomains enabled (helm chart nvidia-dra-driver-gpu, resources.computeDomains.enabled=true) on Kubernetes 1.32+ with DRA, and request a ComputeDomain in multi-node jobs");
	} else if (nmiss) {
		r_warn(r, "%zu of %zu clique nodes publish no compute-domain.nvidia.com ResourceSlice (%s): the DRA driver's kubelet plugin is not running there",
		       nmiss, nmn, sb_str(&missing));
		r_remedy(r, "check the compute-domain kubelet plugin pods of the NVIDIA DRA driver on those nodes (kubectl get pods -n nvidia-dra-driver-gpu -o wide)");
	} else {
		r_pass(r, "ComputeDomains (IMEX through DRA) available on all %zu multi-node NVLink nodes", nmn);
	}
	json_decref(mn);
	sb_free(&missing);
}
