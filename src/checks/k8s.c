/* Cluster-scope Kubernetes checks: graded once per audit from what the
 * operator's kubectl reads (the "k8s" collector), never on a node. They
 * grade what the method's testers found in the field: GPU nodes that never
 * get a DCGM pod, no default or RWX StorageClass, a LimitRange that OOMs
 * GPU pods, NetworkPolicies the CNI ignores, nodes/proxy grants, RDMA that
 * was never wired into the scheduler, clique labels nothing consumes and an
 * API server name that resolves differently inside and out. */
#include "checks/checks.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include "parse/k8s.h"
#include <stdlib.h>
#include <string.h>

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
