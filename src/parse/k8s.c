#include "parse/k8s.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const k8s_gpu_resources[] = { "nvidia.com/gpu", "amd.com/gpu", NULL };

/* A string copy safe for JSON output (kubectl output is UTF-8, but a proxy
 * in between may not be). */
static json_t *jsafe(const char *s)
{
	if (!s)
		return json_null();
	char *c = str_sanitize(s, strlen(s));
	json_t *j = json_string(c);
	free(c);
	return j ? j : json_null();
}

json_t *k8s_jstr(const char *s)
{
	return jsafe(s);
}

int k8s_quantity(const char *s, double *out)
{
	if (!s || !*s)
		return -1;
	const char *p = s;
	double sign = 1;
	if (*p == '+' || *p == '-')
		sign = *p++ == '-' ? -1 : 1;
	if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
		return -1;
	double v = 0;
	while (isdigit((unsigned char)*p))
		v = v * 10 + (*p++ - '0');
	if (*p == '.') {
		double f = 0.1;
		for (p++; isdigit((unsigned char)*p); p++, f /= 10)
			v += (*p - '0') * f;
	}
	static const struct { const char *suf; double mul; } sufs[] = {
		{ "Ki", 1024.0 }, { "Mi", 1048576.0 }, { "Gi", 1073741824.0 }, { "Ti", 1099511627776.0 },
		{ "Pi", 1125899906842624.0 }, { "Ei", 1152921504606846976.0 },
		{ "n", 1e-9 }, { "u", 1e-6 }, { "m", 1e-3 }, { "k", 1e3 }, { "M", 1e6 }, { "G", 1e9 },
		{ "T", 1e12 }, { "P", 1e15 }, { "E", 1e18 }, { "", 1 },
	};
	/* "1e3" / "1E3" is an exponent; a lone "E" is exa */
	if ((*p == 'e' || *p == 'E') && (isdigit((unsigned char)p[1]) ||
					 ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
		char *end;
		long e = strtol(p + 1, &end, 10);
		if (*end || e > 300 || e < -300)
			return -1;
		double m = 1;
		for (long k = e < 0 ? -e : e; k > 0; k--)
			m *= 10;
		*out = sign * (e < 0 ? v / m : v * m);
		return isfinite(*out) ? 0 : -1;
	}
	for (size_t i = 0; i < sizeof sufs / sizeof sufs[0]; i++)
		if (strcmp(p, sufs[i].suf) == 0) {
			*out = sign * v * sufs[i].mul;
			return isfinite(*out) ? 0 : -1;
		}
	return -1;
}

int k8s_quantity_json(const json_t *v, double *out)
{
	if (json_is_string(v))
		return k8s_quantity(json_string_value(v), out);
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return 0;
	}
	return -1;
}

json_t *k8s_list_items(const char *text, size_t len, char **err)
{
	json_error_t je;
	json_t *doc = text ? json_loadb(text, len, 0, &je) : NULL;
	if (!doc) {
		*err = xasprintf("not JSON (%s)", text ? je.text : "no output");
		return NULL;
	}
	json_t *items = json_object_get(doc, "items");
	if (!json_is_array(items)) {
		const char *kind = jget_str(doc, "kind");
		*err = xasprintf("no items array in the response (kind %s)", kind ? kind : "unknown");
		json_decref(doc);
		return NULL;
	}
	json_incref(items);
	json_decref(doc);
	return items;
}

static json_t *quantity_or_null(const json_t *map, const char *key)
{
	double v;
	if (k8s_quantity_json(json_object_get(map, key), &v) != 0)
		return json_null();
	if (!(v > -9e18 && v < 9e18))
		return json_null();
	return json_integer((json_int_t)(v < 0 ? v - 0.5 : v + 0.5));
}

static int is_basic_resource(const char *r)
{
	return !strcmp(r, "cpu") || !strcmp(r, "memory") || !strcmp(r, "pods") || !strcmp(r, "ephemeral-storage") ||
	       str_starts(r, "hugepages-") || str_starts(r, "attachable-volumes-");
}

static json_t *copy_taints(const json_t *taints)
{
	json_t *out = json_array();
	size_t i;
	json_t *t;
	json_array_foreach(taints, i, t) {
		if (!json_is_object(t))
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "key", jsafe(jget_str(t, "key")));
		json_object_set_new(o, "value", jsafe(jget_str(t, "value")));
		json_object_set_new(o, "effect", jsafe(jget_str(t, "effect")));
		json_array_append_new(out, o);
	}
	return out;
}

static json_t *copy_string_map(const json_t *m)
{
	json_t *out = json_object();
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)m, k, v) {
		if (!json_is_string(v))
			continue;
		char *sk = str_sanitize(k, strlen(k));
		json_object_set_new(out, sk, jsafe(json_string_value(v)));
		free(sk);
	}
	return out;
}

json_t *k8s_node_facts(const json_t *node)
{
	json_t *o = json_object();
	json_t *md = json_object_get(node, "metadata");
	json_t *spec = json_object_get(node, "spec");
	json_t *st = json_object_get(node, "status");
	json_t *cap = json_object_get(st, "capacity");
	json_t *alloc = json_object_get(st, "allocatable");
	json_object_set_new(o, "name", jsafe(jget_str(md, "name")));
	json_t *ready = json_null();
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(st, "conditions"), i, c)
		if (jget_str(c, "type") && !strcmp(jget_str(c, "type"), "Ready") && jget_str(c, "status"))
			ready = json_boolean(!strcmp(jget_str(c, "status"), "True"));
	json_object_set_new(o, "ready", ready);
	json_object_set_new(o, "unschedulable", json_boolean(json_is_true(json_object_get(spec, "unschedulable"))));
	json_object_set_new(o, "labels", copy_string_map(json_object_get(md, "labels")));
	json_object_set_new(o, "taints", copy_taints(json_object_get(spec, "taints")));
	const char *gres = NULL;
	for (int k = 0; k8s_gpu_resources[k]; k++)
		if (json_object_get(cap, k8s_gpu_resources[k]) && !gres)
			gres = k8s_gpu_resources[k];
	json_object_set_new(o, "gpu_resource", jsafe(gres));
	json_object_set_new(o, "gpu_capacity", gres ? quantity_or_null(cap, gres) : json_integer(0));
	json_object_set_new(o, "gpu_allocatable", gres ? quantity_or_null(alloc, gres) : json_integer(0));
	json_object_set_new(o, "memory_bytes", quantity_or_null(cap, "memory"));
	json_object_set_new(o, "allocatable_memory_bytes", quantity_or_null(alloc, "memory"));
	json_t *ext = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(cap, k, v)
		if (!is_basic_resource(k))
			json_array_append_new(ext, jsafe(k));
	json_object_set_new(o, "extended_resources", ext);
	json_t *ni = json_object_get(st, "nodeInfo");
	json_object_set_new(o, "kubelet_version", jsafe(jget_str(ni, "kubeletVersion")));
	json_object_set_new(o, "os_image", jsafe(jget_str(ni, "osImage")));
	json_object_set_new(o, "kernel_version", jsafe(jget_str(ni, "kernelVersion")));
	return o;
}

json_t *k8s_storageclass_facts(const json_t *sc)
{
	json_t *o = json_object();
	json_t *md = json_object_get(sc, "metadata");
	json_t *ann = json_object_get(md, "annotations");
	const char *prov = jget_str(sc, "provisioner");
	const char *d1 = jget_str(ann, "storageclass.kubernetes.io/is-default-class");
	const char *d2 = jget_str(ann, "storageclass.beta.kubernetes.io/is-default-class");
	json_object_set_new(o, "name", jsafe(jget_str(md, "name")));
	json_object_set_new(o, "provisioner", jsafe(prov));
	json_object_set_new(o, "default", json_boolean((d1 && !strcmp(d1, "true")) || (d2 && !strcmp(d2, "true"))));
	json_object_set_new(o, "rwx_family", jsafe(k8s_rwx_family(prov)));
	json_object_set_new(o, "binding_mode", jsafe(jget_str(sc, "volumeBindingMode")));
	return o;
}

json_t *k8s_limitrange_facts(const json_t *lr)
{
	json_t *o = json_object();
	json_t *md = json_object_get(lr, "metadata");
	json_object_set_new(o, "namespace", jsafe(jget_str(md, "namespace")));
	json_object_set_new(o, "name", jsafe(jget_str(md, "name")));
	json_t *limits = json_array();
	size_t i;
	json_t *l;
	json_array_foreach(json_object_get(json_object_get(lr, "spec"), "limits"), i, l) {
		json_t *e = json_object();
		json_object_set_new(e, "type", jsafe(jget_str(l, "type")));
		json_object_set_new(e, "default_memory", quantity_or_null(json_object_get(l, "default"), "memory"));
		json_object_set_new(e, "default_request_memory",
				    quantity_or_null(json_object_get(l, "defaultRequest"), "memory"));
		json_object_set_new(e, "max_memory", quantity_or_null(json_object_get(l, "max"), "memory"));
		json_array_append_new(limits, e);
	}
	json_object_set_new(o, "limits", limits);
	return o;
}

static int boolean_word(const char *v)
{
	static const char *const words[] = { "true", "false", "yes", "no", "1", "0" };
	for (size_t i = 0; v && i < sizeof words / sizeof words[0]; i++)
		if (!strcasecmp(v, words[i]))
			return 1;
	return 0;
}

/* The containers' env names (values only for boolean words) and argument
 * flags, and the pod's hostPath volumes, into o. */
static void pod_config_facts(json_t *o, const json_t *pspec)
{
	json_t *env = json_object(), *flags = json_array(), *paths = json_array();
	size_t i, j;
	json_t *c, *e;
	json_array_foreach(json_object_get(pspec, "containers"), i, c) {
		json_array_foreach(json_object_get(c, "env"), j, e) {
			const char *n = jget_str(e, "name"), *v = jget_str(e, "value");
			if (!n)
				continue;
			char *sn = str_sanitize(n, strlen(n));
			json_object_set_new(env, sn, boolean_word(v) ? jsafe(v) : json_null());
			free(sn);
		}
		static const char *const lists[] = { "command", "args" };
		for (int k = 0; k < 2; k++)
			json_array_foreach(json_object_get(c, lists[k]), j, e) {
				const char *a = json_string_value(e);
				if (!a || a[0] != '-')
					continue;
				char *f = xstrndup(a, strcspn(a, "="));
				json_array_append_new(flags, jsafe(f));
				free(f);
			}
	}
	json_array_foreach(json_object_get(pspec, "volumes"), i, e) {
		const char *path = jget_str(json_object_get(e, "hostPath"), "path");
		if (path)
			json_array_append_new(paths, jsafe(path));
	}
	json_object_set_new(o, "env", env);
	json_object_set_new(o, "arg_flags", flags);
	json_object_set_new(o, "host_paths", paths);
}

json_t *k8s_daemonset_facts(const json_t *ds)
{
	json_t *o = json_object();
	json_t *md = json_object_get(ds, "metadata");
	json_t *pspec = json_object_get(json_object_get(json_object_get(ds, "spec"), "template"), "spec");
	json_t *st = json_object_get(ds, "status");
	json_object_set_new(o, "namespace", jsafe(jget_str(md, "namespace")));
	json_object_set_new(o, "name", jsafe(jget_str(md, "name")));
	json_t *images = json_array(), *names = json_array();
	static const char *const lists[] = { "initContainers", "containers" };
	for (int k = 0; k < 2; k++) {
		size_t i;
		json_t *c;
		json_array_foreach(json_object_get(pspec, lists[k]), i, c) {
			if (jget_str(c, "image"))
				json_array_append_new(images, jsafe(jget_str(c, "image")));
			if (jget_str(c, "name"))
				json_array_append_new(names, jsafe(jget_str(c, "name")));
		}
	}
	json_object_set_new(o, "images", images);
	json_object_set_new(o, "containers", names);
	json_t *tols = json_array();
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(pspec, "tolerations"), i, t) {
		if (!json_is_object(t))
			continue;
		json_t *c = json_object();
		static const char *const keys[] = { "key", "operator", "value", "effect" };
		for (int k = 0; k < 4; k++)
			if (jget_str(t, keys[k]))
				json_object_set_new(c, keys[k], jsafe(jget_str(t, keys[k])));
		json_array_append_new(tols, c);
	}
	json_object_set_new(o, "tolerations", tols);
	json_object_set_new(o, "node_selector", copy_string_map(json_object_get(pspec, "nodeSelector")));
	json_object_set_new(o, "host_network", json_boolean(json_is_true(json_object_get(pspec, "hostNetwork"))));
	pod_config_facts(o, pspec);
	static const char *const counts[][2] = { { "desired", "desiredNumberScheduled" }, { "ready", "numberReady" } };
	for (int k = 0; k < 2; k++) {
		json_t *v = json_object_get(st, counts[k][1]);
		json_object_set_new(o, counts[k][0], json_is_integer(v) ? json_integer(json_integer_value(v)) : json_null());
	}
	return o;
}

int k8s_toleration_matches(const json_t *tol, const json_t *taint)
{
	const char *te = jget_str(tol, "effect"), *ne = jget_str(taint, "effect");
	if (te && *te && (!ne || strcmp(te, ne)))
		return 0;
	const char *tk = jget_str(tol, "key"), *nk = jget_str(taint, "key");
	const char *op = jget_str(tol, "operator");
	int exists = op && !strcmp(op, "Exists");
	if (!tk || !*tk)
		return exists; /* an empty key only goes with Exists: tolerates everything */
	if (!nk || strcmp(tk, nk))
		return 0;
	if (exists)
		return 1;
	if (op && *op && strcmp(op, "Equal"))
		return 0;
	const char *tv = jget_str(tol, "value"), *nv = jget_str(taint, "value");
	return !strcmp(tv ? tv : "", nv ? nv : "");
}

json_t *k8s_untolerated(const json_t *tolerations, const json_t *taints, int daemonset)
{
	json_t *out = json_array();
	size_t i;
	json_t *taint;
	json_array_foreach(taints, i, taint) {
		const char *eff = jget_str(taint, "effect");
		const char *key = jget_str(taint, "key");
		if (!eff || (strcmp(eff, "NoSchedule") && strcmp(eff, "NoExecute")))
			continue;
		if (daemonset && key && str_starts(key, "node.kubernetes.io/"))
			continue;
		int ok = 0;
		size_t j;
		json_t *tol;
		json_array_foreach(tolerations, j, tol)
			if (k8s_toleration_matches(tol, taint))
				ok = 1;
		if (!ok)
			json_array_append(out, taint);
	}
	return out;
}

int k8s_selector_matches(const json_t *selector, const json_t *labels)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)selector, k, v) {
		const char *have = jget_str(labels, k);
		if (!have || !json_is_string(v) || strcmp(have, json_string_value(v)))
			return 0;
	}
	return 1;
}

int k8s_list_has(const json_t *arr, const char *a, const char *b)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v) {
		const char *s = json_string_value(v);
		if (s && (!strcmp(s, a) || (b && !strcmp(s, b))))
			return 1;
	}
	return 0;
}

int k8s_rule_grants(const json_t *rule, const char *group, const char *resource, const char *sub, const char *verb)
{
	if (!k8s_list_has(json_object_get(rule, "verbs"), verb, "*"))
		return 0;
	if (!k8s_list_has(json_object_get(rule, "apiGroups"), group, "*"))
		return 0;
	/* RBAC matches "*", the exact "resource/sub" and "* /sub"; nothing else */
	char *full = sub ? xasprintf("%s/%s", resource, sub) : xstrdup(resource);
	char *any = sub ? xasprintf("*/%s", sub) : NULL;
	int ok = k8s_list_has(json_object_get(rule, "resources"), full, "*") ||
		 (any && k8s_list_has(json_object_get(rule, "resources"), any, NULL));
	free(full);
	free(any);
	if (ok && json_array_size(json_object_get(rule, "resourceNames")) > 0)
		ok = 0; /* limited to named nodes: not "any node" but still a grant */
	return ok;
}

int k8s_subject_is_system(const char *kind, const char *name, const char *ns)
{
	if (name && str_starts(name, "system:"))
		return 1;
	return kind && !strcmp(kind, "ServiceAccount") && ns && !strcmp(ns, "kube-system");
}

json_t *k8s_nodes_proxy_grants(const json_t *clusterroles, const json_t *bindings)
{
	json_t *roles = json_array(), *grants = json_array();
	size_t i;
	json_t *cr;
	json_array_foreach(clusterroles, i, cr) {
		const char *name = jget_str(json_object_get(cr, "metadata"), "name");
		size_t j;
		json_t *rule;
		int hit = 0;
		json_array_foreach(json_object_get(cr, "rules"), j, rule)
			if (k8s_rule_grants(rule, "", "nodes", "proxy", "get"))
				hit = 1;
		if (hit && name)
			json_array_append_new(roles, jsafe(name));
	}
	json_t *b;
	json_array_foreach(bindings, i, b) {
		json_t *ref = json_object_get(b, "roleRef");
		const char *rk = jget_str(ref, "kind"), *rn = jget_str(ref, "name");
		if (!rk || strcmp(rk, "ClusterRole") || !rn || !k8s_list_has(roles, rn, NULL))
			continue;
		size_t j;
		json_t *s;
		json_array_foreach(json_object_get(b, "subjects"), j, s) {
			json_t *g = json_object();
			const char *kind = jget_str(s, "kind"), *name = jget_str(s, "name"), *ns = jget_str(s, "namespace");
			json_object_set_new(g, "binding", jsafe(jget_str(json_object_get(b, "metadata"), "name")));
			json_object_set_new(g, "role", jsafe(rn));
			json_object_set_new(g, "kind", jsafe(kind));
			json_object_set_new(g, "name", jsafe(name));
			json_object_set_new(g, "namespace", jsafe(ns));
			json_object_set_new(g, "system", json_boolean(k8s_subject_is_system(kind, name, ns)));
			json_array_append_new(grants, g);
		}
	}
	json_t *o = json_object();
	json_object_set_new(o, "roles", roles);
	json_object_set_new(o, "grants", grants);
	return o;
}

const char *k8s_rwx_family(const char *p)
{
	static const struct { const char *needle, *family; } known[] = {
		{ "cephfs", "cephfs" }, { "nfs", "nfs" }, { "efs.csi.aws.com", "efs" },
		{ "fsx.csi.aws.com", "lustre" }, { "lustre", "lustre" }, { "filestore.csi.storage.gke.io", "filestore" },
		{ "lustre.csi.storage.gke.io", "lustre" }, { "file.csi.azure.com", "azurefile" },
		{ "kubernetes.io/azure-file", "azurefile" }, { "azurelustre", "lustre" }, { "weka", "weka" },
		{ "vast", "vast" }, { "spectrumscale", "gpfs" }, { "gpfs", "gpfs" }, { "beegfs", "beegfs" },
		{ "juicefs", "juicefs" }, { "glusterfs", "glusterfs" }, { "ddn", "lustre" }, { "exa", "lustre" },
		{ "longhorn", NULL }, { "purestorage", "pure-file" }, { "netapp", "nfs" }, { "trident", "nfs" },
		{ "isilon", "nfs" }, { "powerscale", "nfs" }, { "qumulo", "nfs" },
	};
	if (!p)
		return NULL;
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcasestr(p, known[i].needle))
			return known[i].family;
	return NULL;
}

static int images_have(const json_t *images, const char *needle)
{
	size_t i;
	json_t *v;
	json_array_foreach(images, i, v)
		if (json_string_value(v) && strstr(json_string_value(v), needle))
			return 1;
	return 0;
}

const char *k8s_cni_of(const char *name, const json_t *images, int *enforces)
{
	static const struct { const char *needle, *cni; int enforces; } known[] = {
		{ "calico", "calico", 1 }, { "canal", "calico", 1 }, { "cilium", "cilium", 1 }, { "anetd", "cilium", 1 },
		{ "antrea", "antrea", 1 }, { "kube-router", "kube-router", 1 }, { "weave", "weave", 1 },
		{ "ovnkube", "ovn-kubernetes", 1 }, { "azure-npm", "azure-npm", 1 }, { "flannel", "flannel", 0 },
		{ "kindnet", "kindnet", 0 }, { "aws-node", "aws-vpc-cni", -1 }, { "kube-ovn", "kube-ovn", 1 },
	};
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		if (!strstr(name, known[i].needle) && !images_have(images, known[i].needle))
			continue;
		*enforces = known[i].enforces;
		/* the VPC CNI enforces only with its network-policy agent container */
		if (*enforces < 0)
			*enforces = images_have(images, "network-policy-agent") ? 1 : 0;
		return known[i].cni;
	}
	return NULL;
}

const char *k8s_rdma_pattern_of(const char *r)
{
	if (!r)
		return NULL;
	const char *slash = strchr(r, '/');
	const char *nm = slash ? slash + 1 : r;
	if (!strcmp(r, "vpc.amazonaws.com/efa"))
		return "efa";
	if (str_starts(r, "networking.gke.io/"))
		return "gke_dranet";
	if (str_starts(r, "rdma/") && (strstr(nm, "shared") || str_starts(nm, "hca")))
		return "rdma_shared_device";
	if (!strcmp(r, "rdma/ib") || !strcmp(r, "nvidia.com/rdma_ib"))
		return "rdma_ib";
	if (!strcmp(r, "rdma/roce") || !strcmp(r, "nvidia.com/rdma_roce"))
		return "rdma_roce";
	if (!strncmp(nm, "fabric", 6) && (nm[6] == 0 || isdigit((unsigned char)nm[6])))
		return "doks_fabric";
	if (str_starts(nm, "hostdev"))
		return "sriov_host_device";
	if (str_starts(r, "nvidia.com/sriov") || str_starts(r, "openshift.io/") || str_starts(r, "intel.com/sriov")) {
		if (strstr(nm, "switchdev") || strstr(nm, "ovs"))
			return "ovs_offload";
		if (strstr(nm, "_ib") || strstr(nm, "ib_") || str_starts(nm, "ib"))
			return "sriov_ib";
		return "sriov_legacy";
	}
	if (str_starts(r, "rdma/"))
		return "rdma_shared_device"; /* the k8s-rdma-shared-dev-plugin's own prefix */
	return NULL;
}

static void add_pattern(json_t *acc, const char *pattern, const char *via)
{
	if (!json_object_get(acc, pattern))
		json_object_set_new(acc, pattern, jsafe(via));
}

/* The SR-IOV operator's policy decides what a resource really is. */
static const char *sriov_policy_pattern(const json_t *pol)
{
	json_t *spec = json_object_get(pol, "spec");
	const char *mode = jget_str(spec, "eSwitchMode"), *link = jget_str(spec, "linkType");
	if (mode && !strcasecmp(mode, "switchdev"))
		return "ovs_offload";
	if (link && !strcasecmp(link, "ib"))
		return "sriov_ib";
	return "sriov_legacy";
}

json_t *k8s_rdma_patterns(const json_t *resources, const json_t *ncp_spec, const json_t *sriov_policies,
			  const json_t *dra_drivers)
{
	json_t *acc = json_object();
	size_t i;
	json_t *v;
	json_array_foreach(resources, i, v) {
		const char *r = json_string_value(v);
		const char *p = k8s_rdma_pattern_of(r);
		if (!p)
			continue;
		/* a resource an SR-IOV policy names is graded by that policy */
		const char *nm = strchr(r, '/') ? strchr(r, '/') + 1 : r;
		size_t j;
		json_t *pol;
		json_array_foreach(sriov_policies, j, pol) {
			const char *rn = jget_str(json_object_get(pol, "spec"), "resourceName");
			if (rn && !strcmp(rn, nm))
				p = sriov_policy_pattern(pol);
		}
		char *via = xasprintf("node resource %s", r);
		add_pattern(acc, p, via);
		free(via);
	}
	if (json_is_object(ncp_spec)) {
		if (json_object_get(ncp_spec, "rdmaSharedDevicePlugin"))
			add_pattern(acc, "rdma_shared_device", "NicClusterPolicy spec.rdmaSharedDevicePlugin");
		if (json_object_get(ncp_spec, "sriovDevicePlugin"))
			add_pattern(acc, json_object_get(ncp_spec, "ibKubernetes") ? "sriov_ib" : "sriov_host_device",
				    "NicClusterPolicy spec.sriovDevicePlugin");
	}
	json_array_foreach(sriov_policies, i, v) {
		char *via = xasprintf("SriovNetworkNodePolicy %s", jget_str(json_object_get(v, "metadata"), "name") ?: "?");
		add_pattern(acc, sriov_policy_pattern(v), via);
		free(via);
	}
	json_array_foreach(dra_drivers, i, v) {
		const char *d = json_string_value(v);
		if (d && (!strcmp(d, "dra.net") || strstr(d, "networking.gke.io"))) {
			char *via = xasprintf("DRA driver %s", d);
			add_pattern(acc, "gke_dranet", via);
			free(via);
		}
	}
	json_t *out = json_array();
	const char *k;
	/* jansson keeps object keys unordered: sort for stable reports */
	size_t n = json_object_size(acc), m = 0;
	const char **keys = xcalloc(n + 1, sizeof *keys);
	json_object_foreach(acc, k, v)
		keys[m++] = k;
	for (size_t a = 1; a < m; a++)
		for (size_t b = a; b > 0 && strcmp(keys[b - 1], keys[b]) > 0; b--) {
			const char *t = keys[b];
			keys[b] = keys[b - 1];
			keys[b - 1] = t;
		}
	for (size_t a = 0; a < m; a++) {
		json_t *e = json_object();
		json_object_set_new(e, "pattern", json_string(keys[a]));
		json_object_set(e, "via", json_object_get(acc, keys[a]));
		json_array_append_new(out, e);
	}
	free(keys);
	json_decref(acc);
	return out;
}

/* Split "scheme://userinfo@host:port/path?q#f" and return host. */
static char *url_host(const char *url, const char **rest_out)
{
	if (!url)
		return NULL;
	const char *p = strstr(url, "://");
	p = p ? p + 3 : url;
	const char *auth_end = p + strcspn(p, "/?#");
	const char *at = memchr(p, '@', (size_t)(auth_end - p));
	if (at)
		p = at + 1;
	const char *h_end;
	char *host;
	if (*p == '[') {
		h_end = memchr(p, ']', (size_t)(auth_end - p));
		if (!h_end)
			return NULL;
		host = xstrndup(p + 1, (size_t)(h_end - p - 1));
		h_end++;
	} else {
		h_end = p + strcspn(p, ":/?#");
		if (h_end > auth_end)
			h_end = auth_end;
		host = xstrndup(p, (size_t)(h_end - p));
	}
	if (rest_out)
		*rest_out = p;
	if (!*host) {
		free(host);
		return NULL;
	}
	return host;
}

char *k8s_server_host(const char *url)
{
	char *h = url_host(url, NULL);
	if (!h)
		return NULL;
	char *s = str_sanitize(h, strlen(h));
	free(h);
	return s;
}

char *k8s_server_redact(const char *url)
{
	if (!url)
		return NULL;
	const char *sch = strstr(url, "://");
	const char *hostpart = NULL;
	char *h = url_host(url, &hostpart);
	free(h);
	struct strbuf sb = STRBUF_INIT;
	if (sch)
		sb_add(&sb, url, (size_t)(sch + 3 - url));
	const char *from = hostpart ? hostpart : (sch ? sch + 3 : url);
	sb_add(&sb, from, strcspn(from, "?#"));
	char *raw = sb_detach(&sb);
	char *s = str_sanitize(raw, strlen(raw));
	free(raw);
	return s;
}

const char *k8s_addr_class(const char *s)
{
	unsigned char a[16];
	if (!s)
		return NULL;
	if (inet_pton(AF_INET, s, a) == 1) {
		if (a[0] == 127)
			return "loopback";
		if (a[0] == 10 || (a[0] == 172 && (a[1] & 0xf0) == 16) || (a[0] == 192 && a[1] == 168) ||
		    (a[0] == 100 && (a[1] & 0xc0) == 64))
			return "private";
		if (a[0] == 169 && a[1] == 254)
			return "link-local";
		return "public";
	}
	if (inet_pton(AF_INET6, s, a) == 1) {
		static const unsigned char lo[16] = { [15] = 1 };
		static const unsigned char v4map[12] = { [10] = 0xff, [11] = 0xff };
		if (!memcmp(a, lo, 16))
			return "loopback";
		if (!memcmp(a, v4map, 12)) {
			char v4[INET_ADDRSTRLEN];
			inet_ntop(AF_INET, a + 12, v4, sizeof v4);
			return k8s_addr_class(v4);
		}
		if ((a[0] & 0xfe) == 0xfc)
			return "private";
		if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
			return "link-local";
		return "public";
	}
	return NULL;
}

json_t *k8s_hosts_lookup(const char *text, size_t len, const char *name)
{
	json_t *out = json_array();
	if (!text || !name)
		return out;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = xstrndup(p, n);
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *save = NULL;
		char *addr = strtok_r(line, " \t\r", &save);
		if (addr && k8s_addr_class(addr))
			for (char *t = strtok_r(NULL, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save))
				if (!strcasecmp(t, name)) {
					json_array_append_new(out, json_string(addr));
					break;
				}
		free(line);
		p = nl ? nl + 1 : end;
	}
	return out;
}
