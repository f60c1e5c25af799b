/* Kubernetes API shapes: quantities, taints against tolerations, RBAC
 * rules, provisioner and CNI inference, RDMA patterns, server names. The
 * JSON below follows what kubectl 1.29-1.33 prints for these kinds. */
#include "parse/k8s.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

static json_t *J(const char *s)
{
	json_error_t e;
	json_t *j = json_loads(s, 0, &e);
	if (!j)
		printf("# bad test JSON: %s\n", e.text);
	return j;
}

static void test_quantity(void)
{
	static const struct { const char *s; double want; } ok[] = {
		{ "2Gi", 2147483648.0 }, { "500m", 0.5 }, { "8", 8 }, { "1.5", 1.5 }, { "129e6", 129e6 },
		{ "2113338028Ki", 2113338028.0 * 1024 }, { "1E", 1e18 }, { "100M", 1e8 }, { "0", 0 },
		{ "+4k", 4000 }, { "1e-3", 0.001 }, { ".5Gi", 536870912.0 }, { "64Mi", 67108864.0 },
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		double v = -1;
		int rc = k8s_quantity(ok[i].s, &v);
		T_OK(rc == 0 && v > ok[i].want * 0.999999 - 1e-12 && v < ok[i].want * 1.000001 + 1e-12,
		     "quantity %s = %g (got %g)", ok[i].s, ok[i].want, v);
	}
	static const char *const bad[] = { "", "Gi", "2GiB", "2 Gi", "1.2.3", "abc", "--1", "1e999", "e3", NULL };
	for (int i = 0; bad[i]; i++) {
		double v;
		T_OK(k8s_quantity(bad[i], &v) == -1, "quantity '%s' rejected", bad[i]);
	}
	double v;
	json_t *n = json_integer(4);
	T_OK(k8s_quantity_json(n, &v) == 0 && v == 4, "quantity from a JSON number");
	json_decref(n);
	T_OK(k8s_quantity_json(NULL, &v) == -1, "quantity from nothing");
}

static void test_list(void)
{
	char *err = NULL;
	const char *t = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"a\":1},{\"b\":2}],\"metadata\":{}}";
	json_t *items = k8s_list_items(t, strlen(t), &err);
	T_INTEQ(json_array_size(items), 2, "List items");
	json_decref(items);
	t = "{\"kind\":\"Status\",\"status\":\"Failure\",\"code\":403}";
	items = k8s_list_items(t, strlen(t), &err);
	T_OK(!items && err && strstr(err, "Status"), "Status document is not a list: %s", err ? err : "");
	free(err);
	err = NULL;
	items = k8s_list_items("error: You must be logged in", 28, &err);
	T_OK(!items && err && strstr(err, "not JSON"), "plain text is not a list");
	free(err);
}

static void test_node(void)
{
	json_t *n = J("{\"kind\":\"Node\",\"metadata\":{\"name\":\"gpu-a\",\"labels\":{\"nvidia.com/gpu.product\":"
		      "\"NVIDIA-H100-80GB-HBM3\",\"nvidia.com/gpu.clique\":\"cl1.0\"}},"
		      "\"spec\":{\"taints\":[{\"key\":\"nvidia.com/gpu\",\"value\":\"present\",\"effect\":\"NoSchedule\"}]},"
		      "\"status\":{\"capacity\":{\"cpu\":\"96\",\"memory\":\"2113338028Ki\",\"nvidia.com/gpu\":\"8\","
		      "\"rdma/rdma_shared_device_a\":\"63\",\"pods\":\"110\",\"hugepages-1Gi\":\"0\"},"
		      "\"allocatable\":{\"memory\":\"2100000000Ki\",\"nvidia.com/gpu\":\"7\"},"
		      "\"conditions\":[{\"type\":\"MemoryPressure\",\"status\":\"False\"},{\"type\":\"Ready\",\"status\":\"False\"}],"
		      "\"nodeInfo\":{\"kubeletVersion\":\"v1.31.4\"}}}");
	json_t *f = k8s_node_facts(n);
	T_STREQ(json_string_value(json_object_get(f, "name")), "gpu-a", "node name");
	T_OK(json_is_false(json_object_get(f, "ready")), "NotReady node");
	T_STREQ(json_string_value(json_object_get(f, "gpu_resource")), "nvidia.com/gpu", "GPU resource");
	T_INTEQ(json_integer_value(json_object_get(f, "gpu_capacity")), 8, "GPU capacity");
	T_INTEQ(json_integer_value(json_object_get(f, "gpu_allocatable")), 7, "GPU allocatable");
	T_INTEQ(json_integer_value(json_object_get(f, "memory_bytes")), 2113338028LL * 1024, "memory");
	T_INTEQ(json_array_size(json_object_get(f, "extended_resources")), 2, "extended resources: gpu and rdma only");
	T_INTEQ(json_array_size(json_object_get(f, "taints")), 1, "taints");
	json_decref(f);
	json_decref(n);
	/* a node without status at all */
	n = J("{\"metadata\":{\"name\":\"x\"}}");
	f = k8s_node_facts(n);
	T_OK(json_is_null(json_object_get(f, "ready")), "no Ready condition: unknown");
	T_INTEQ(json_integer_value(json_object_get(f, "gpu_capacity")), 0, "no GPUs");
	json_decref(f);
	json_decref(n);
	f = k8s_node_facts(NULL);
	T_OK(f != NULL, "NULL node gives an object");
	json_decref(f);
}

static void test_tolerations(void)
{
	json_t *taints = J("[{\"key\":\"nvidia.com/gpu\",\"value\":\"present\",\"effect\":\"NoSchedule\"},"
			   "{\"key\":\"node.kubernetes.io/unschedulable\",\"effect\":\"NoSchedule\"},"
			   "{\"key\":\"dedicated\",\"value\":\"ml\",\"effect\":\"PreferNoSchedule\"}]");
	json_t *none = J("[]");
	json_t *u = k8s_untolerated(none, taints, 1);
	T_INTEQ(json_array_size(u), 1, "no tolerations: the GPU taint blocks a DaemonSet");
	json_decref(u);
	u = k8s_untolerated(none, taints, 0);
	T_INTEQ(json_array_size(u), 2, "no tolerations: a plain pod is also blocked by unschedulable");
	json_decref(u);
	static const char *const good[] = {
		"[{\"key\":\"nvidia.com/gpu\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}]",
		"[{\"key\":\"nvidia.com/gpu\",\"operator\":\"Exists\"}]",
		"[{\"operator\":\"Exists\"}]",
		"[{\"key\":\"nvidia.com/gpu\",\"value\":\"present\",\"effect\":\"NoSchedule\"}]",
		"[{\"key\":\"nvidia.com/gpu\",\"operator\":\"Equal\",\"value\":\"present\"}]",
		NULL,
	};
	for (int i = 0; good[i]; i++) {
		json_t *t = J(good[i]);
		u = k8s_untolerated(t, taints, 1);
		T_INTEQ(json_array_size(u), 0, "tolerated by %s", good[i]);
		json_decref(u);
		json_decref(t);
	}
	static const char *const bad[] = {
		"[{\"key\":\"nvidia.com/gpu\",\"operator\":\"Exists\",\"effect\":\"NoExecute\"}]",
		"[{\"key\":\"nvidia.com/gpu\",\"value\":\"absent\",\"effect\":\"NoSchedule\"}]",
		"[{\"key\":\"nvidia.com/gpu\"}]",
		"[{\"key\":\"amd.com/gpu\",\"operator\":\"Exists\"}]",
		"[{\"effect\":\"NoSchedule\"}]",
		"[{\"key\":\"nvidia.com/gpu\",\"operator\":\"Gt\",\"value\":\"present\"}]",
		NULL,
	};
	for (int i = 0; bad[i]; i++) {
		json_t *t = J(bad[i]);
		u = k8s_untolerated(t, taints, 1);
		T_INTEQ(json_array_size(u), 1, "not tolerated by %s", bad[i]);
		json_decref(u);
		json_decref(t);
	}
	json_decref(none);
	json_decref(taints);
	json_t *sel = J("{\"nvidia.com/gpu.present\":\"true\"}");
	json_t *l1 = J("{\"nvidia.com/gpu.present\":\"true\",\"x\":\"y\"}"), *l2 = J("{\"x\":\"y\"}");
	T_OK(k8s_selector_matches(sel, l1), "nodeSelector matches");
	T_OK(!k8s_selector_matches(sel, l2), "nodeSelector does not match");
	T_OK(k8s_selector_matches(NULL, l2), "no nodeSelector matches all");
	json_decref(sel);
	json_decref(l1);
	json_decref(l2);
}

static void test_rbac(void)
{
	static const struct { const char *rule; int want; } rules[] = {
		{ "{\"apiGroups\":[\"\"],\"resources\":[\"nodes/proxy\"],\"verbs\":[\"get\"]}", 1 },
		{ "{\"apiGroups\":[\"*\"],\"resources\":[\"*\"],\"verbs\":[\"*\"]}", 1 },
		{ "{\"apiGroups\":[\"\"],\"resources\":[\"*/proxy\"],\"verbs\":[\"get\",\"list\"]}", 1 },
		{ "{\"apiGroups\":[\"\"],\"resources\":[\"nodes\"],\"verbs\":[\"get\"]}", 0 },
		{ "{\"apiGroups\":[\"\"],\"resources\":[\"nodes/metrics\",\"nodes/stats\"],\"verbs\":[\"get\"]}", 0 },
		{ "{\"apiGroups\":[\"\"],\"resources\":[\"nodes/proxy\"],\"verbs\":[\"list\"]}", 0 },
		{ "{\"apiGroups\":[\"apps\"],\"resources\":[\"nodes/proxy\"],\"verbs\":[\"get\"]}", 0 },
		{ "{\"apiGroups\":[\"\"],\"resources\":[\"nodes/*\"],\"verbs\":[\"get\"]}", 0 },
		{ "{\"nonResourceURLs\":[\"/metrics\"],\"verbs\":[\"get\"]}", 0 },
	};
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		json_t *r = J(rules[i].rule);
		T_INTEQ(k8s_rule_grants(r, "", "nodes", "proxy", "get"), rules[i].want, "rule %s", rules[i].rule);
		json_decref(r);
	}
	json_t *roles = J("[{\"metadata\":{\"name\":\"cluster-admin\"},\"rules\":[{\"apiGroups\":[\"*\"],\"resources\":[\"*\"],\"verbs\":[\"*\"]}]},"
			  "{\"metadata\":{\"name\":\"system:kubelet-api-admin\"},\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"nodes/proxy\"],\"verbs\":[\"*\"]}]},"
			  "{\"metadata\":{\"name\":\"view\"},\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\"]}]}]");
	json_t *bind = J("[{\"metadata\":{\"name\":\"cluster-admin\"},\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"cluster-admin\"},"
			 "\"subjects\":[{\"kind\":\"Group\",\"name\":\"system:masters\"}]},"
			 "{\"metadata\":{\"name\":\"kubelet-api\"},\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"system:kubelet-api-admin\"},"
			 "\"subjects\":[{\"kind\":\"User\",\"name\":\"alice@example.com\"},{\"kind\":\"ServiceAccount\",\"name\":\"x\",\"namespace\":\"kube-system\"}]},"
			 "{\"metadata\":{\"name\":\"v\"},\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"view\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"bob\"}]},"
			 "{\"metadata\":{\"name\":\"nosubj\"},\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"cluster-admin\"}}]");
	json_t *g = k8s_nodes_proxy_grants(roles, bind);
	T_INTEQ(json_array_size(json_object_get(g, "roles")), 2, "two roles grant nodes/proxy");
	json_t *grants = json_object_get(g, "grants");
	T_INTEQ(json_array_size(grants), 3, "three subjects hold them");
	size_t nonsys = 0, i;
	json_t *x;
	json_array_foreach(grants, i, x)
		if (!json_is_true(json_object_get(x, "system"))) {
			nonsys++;
			T_STREQ(json_string_value(json_object_get(x, "name")), "alice@example.com", "the non-system subject");
		}
	T_INTEQ(nonsys, 1, "one non-system subject");
	json_decref(g);
	json_decref(roles);
	json_decref(bind);
	g = k8s_nodes_proxy_grants(NULL, NULL);
	T_INTEQ(json_array_size(json_object_get(g, "grants")), 0, "no input, no grants");
	json_decref(g);
}

static void test_inference(void)
{
	static const struct { const char *prov, *fam; } sc[] = {
		{ "nfs.csi.k8s.io", "nfs" }, { "cephfs.csi.ceph.com", "cephfs" }, { "efs.csi.aws.com", "efs" },
		{ "filestore.csi.storage.gke.io", "filestore" }, { "file.csi.azure.com", "azurefile" },
		{ "csi.weka.io", "weka" }, { "fsx.csi.aws.com", "lustre" }, { "ebs.csi.aws.com", NULL },
		{ "rbd.csi.ceph.com", NULL }, { "rancher.io/local-path", NULL }, { "pd.csi.storage.gke.io", NULL },
		{ "driver.longhorn.io", NULL },
	};
	for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) {
		const char *f = k8s_rwx_family(sc[i].prov);
		T_OK(sc[i].fam ? (f && !strcmp(f, sc[i].fam)) : !f, "provisioner %s -> %s", sc[i].prov,
		     sc[i].fam ? sc[i].fam : "not RWX");
	}
	json_t *img = J("[\"docker.io/calico/node:v3.28.0\"]"), *none = J("[]");
	json_t *vpc = J("[\"602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.18.2\","
			"\"602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon/aws-network-policy-agent:v1.1.2\"]");
	int enf = -2;
	T_STREQ(k8s_cni_of("calico-node", img, &enf), "calico", "calico by name");
	T_INTEQ(enf, 1, "calico enforces");
	T_STREQ(k8s_cni_of("kube-flannel-ds", none, &enf), "flannel", "flannel");
	T_INTEQ(enf, 0, "flannel does not enforce");
	T_STREQ(k8s_cni_of("aws-node", vpc, &enf), "aws-vpc-cni", "VPC CNI");
	T_INTEQ(enf, 1, "VPC CNI with its policy agent enforces");
	T_STREQ(k8s_cni_of("aws-node", none, &enf), "aws-vpc-cni", "VPC CNI alone");
	T_INTEQ(enf, 0, "VPC CNI without the agent does not");
	T_OK(k8s_cni_of("nvidia-device-plugin-daemonset", none, &enf) == NULL, "not a CNI");
	json_decref(img);
	json_decref(none);
	json_decref(vpc);
}

static void test_rdma(void)
{
	static const struct { const char *r, *p; } one[] = {
		{ "rdma/rdma_shared_device_a", "rdma_shared_device" }, { "rdma/hca_shared_devices_a", "rdma_shared_device" },
		{ "rdma/ib", "rdma_ib" }, { "nvidia.com/rdma_ib", "rdma_ib" }, { "rdma/roce", "rdma_roce" },
		{ "nvidia.com/rdma_roce", "rdma_roce" }, { "vpc.amazonaws.com/efa", "efa" },
		{ "nvidia.com/sriov_rdma_vf", "sriov_legacy" }, { "nvidia.com/sriov_ib_vf", "sriov_ib" },
		{ "openshift.io/mlnx_switchdev", "ovs_offload" }, { "nvidia.com/hostdev", "sriov_host_device" },
		{ "networking.gke.io/gpu-nic0", "gke_dranet" }, { "digitalocean.com/fabric0", "doks_fabric" },
		{ "nvidia.com/gpu", NULL }, { "cpu", NULL }, { "example.com/fabricated", NULL },
	};
	for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
		const char *p = k8s_rdma_pattern_of(one[i].r);
		T_OK(one[i].p ? (p && !strcmp(p, one[i].p)) : !p, "%s -> %s", one[i].r, one[i].p ? one[i].p : "none");
	}
	json_t *res = J("[\"nvidia.com/gpu\",\"openshift.io/mlnxnics\"]");
	json_t *pol = J("[{\"metadata\":{\"name\":\"p\"},\"spec\":{\"resourceName\":\"mlnxnics\",\"eSwitchMode\":\"switchdev\"}}]");
	json_t *ps = k8s_rdma_patterns(res, NULL, pol, NULL);
	T_INTEQ(json_array_size(ps), 1, "policy decides the pattern");
	T_STREQ(json_string_value(json_object_get(json_array_get(ps, 0), "pattern")), "ovs_offload", "switchdev policy");
	json_decref(ps);
	json_t *ncp = J("{\"ofedDriver\":{},\"rdmaSharedDevicePlugin\":{\"config\":\"{}\"}}");
	json_t *dra = J("[\"gpu.nvidia.com\",\"dra.net\"]");
	json_t *none = J("[]");
	ps = k8s_rdma_patterns(none, ncp, NULL, dra);
	T_INTEQ(json_array_size(ps), 2, "NicClusterPolicy and DRA driver");
	T_STREQ(json_string_value(json_object_get(json_array_get(ps, 0), "pattern")), "gke_dranet", "sorted: dranet first");
	json_decref(ps);
	ps = k8s_rdma_patterns(NULL, NULL, NULL, NULL);
	T_INTEQ(json_array_size(ps), 0, "nothing, no pattern");
	json_decref(ps);
	json_decref(res);
	json_decref(pol);
	json_decref(ncp);
	json_decref(dra);
	json_decref(none);
}

static void test_server(void)
{
	static const struct { const char *url, *host; } u[] = {
		{ "https://api.gpu.example.internal:6443", "api.gpu.example.internal" },
		{ "https://[fd00::1]:6443/k8s", "fd00::1" }, { "https://10.0.0.5", "10.0.0.5" },
		{ "https://user:secret@host.example:443/x?token=1", "host.example" }, { "host-only", "host-only" },
		{ "https://", NULL }, { "https://[broken", NULL },
	};
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
		char *h = k8s_server_host(u[i].url);
		if (u[i].host)
			T_STREQ(h, u[i].host, "host of %s", u[i].url);
		else
			T_OK(!h, "no host in %s", u[i].url);
		free(h);
	}
	char *r = k8s_server_redact("https://user:secret@host.example:443/x?token=1");
	T_STREQ(r, "https://host.example:443/x", "user info and query dropped");
	free(r);
	static const struct { const char *a, *c; } a[] = {
		{ "10.1.2.3", "private" }, { "172.16.0.1", "private" }, { "172.32.0.1", "public" },
		{ "192.168.1.1", "private" }, { "100.64.0.1", "private" }, { "100.128.0.1", "public" },
		{ "127.0.0.1", "loopback" }, { "::1", "loopback" }, { "fd12::1", "private" }, { "fe80::1", "link-local" },
		{ "169.254.1.1", "link-local" }, { "8.8.8.8", "public" }, { "2001:db8::1", "public" },
		{ "::ffff:10.0.0.1", "private" }, { "api.example", NULL }, { "", NULL },
	};
	for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
		const char *c = k8s_addr_class(a[i].a);
		T_OK(a[i].c ? (c && !strcmp(c, a[i].c)) : !c, "%s is %s", a[i].a, a[i].c ? a[i].c : "not an address");
	}
	const char *hosts = "127.0.0.1 localhost\n# 10.9.9.9 api.gpu.example.internal\n"
			    "10.20.0.5\tapi.gpu.example.internal api # comment\nbad line\nfd00::5 API.gpu.example.internal\n";
	json_t *l = k8s_hosts_lookup(hosts, strlen(hosts), "api.gpu.example.internal");
	T_INTEQ(json_array_size(l), 2, "two addresses from /etc/hosts");
	T_STREQ(json_string_value(json_array_get(l, 0)), "10.20.0.5", "first address");
	json_decref(l);
}

/* dcgm-exporter as the GPU Operator deploys it: the Kubernetes-mapping
 * switch is kept, a token in another variable is not, flags lose values. */
static void test_daemonset_config(void)
{
	json_t *ds = J("{\"metadata\":{\"name\":\"nvidia-dcgm-exporter\",\"namespace\":\"gpu-operator\"},"
		       "\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"e\",\"image\":\"dcgm-exporter:4\","
		       "\"args\":[\"-f\",\"/etc/x.csv\",\"--web-config-file=/etc/web.yml\",\"--token\",\"s3cret\"],"
		       "\"env\":[{\"name\":\"DCGM_EXPORTER_KUBERNETES\",\"value\":\"true\"},"
		       "{\"name\":\"REMOTE_WRITE_TOKEN\",\"value\":\"hunter2\"},{\"name\":\"FROM_SECRET\",\"valueFrom\":{}}]}],"
		       "\"volumes\":[{\"name\":\"pod-gpu-resources\",\"hostPath\":{\"path\":\"/var/lib/kubelet/pod-resources\"}},"
		       "{\"name\":\"cfg\",\"configMap\":{\"name\":\"c\"}}]}}}}");
	json_t *f = k8s_daemonset_facts(ds);
	json_t *env = json_object_get(f, "env");
	T_STREQ(jget_str(env, "DCGM_EXPORTER_KUBERNETES"), "true", "boolean env value kept");
	T_OK(json_is_null(json_object_get(env, "REMOTE_WRITE_TOKEN")), "other env value withheld");
	T_OK(json_is_null(json_object_get(env, "FROM_SECRET")), "valueFrom: name only");
	char *dump = json_dumps(f, 0);
	T_OK(dump && !strstr(dump, "hunter2") && !strstr(dump, "s3cret"), "no secret value in the facts");
	free(dump);
	json_t *flags = json_object_get(f, "arg_flags");
	T_OK(k8s_list_has(flags, "-f", NULL) && k8s_list_has(flags, "--web-config-file", NULL) && k8s_list_has(flags, "--token", NULL),
	     "flags kept, cut at '='");
	T_INTEQ((long long)json_array_size(flags), 3, "values that are not flags left out");
	T_OK(k8s_list_has(json_object_get(f, "host_paths"), "/var/lib/kubelet/pod-resources", NULL), "hostPath volume");
	T_INTEQ((long long)json_array_size(json_object_get(f, "host_paths")), 1, "only hostPath volumes");
	json_decref(f);
	json_decref(ds);
}

int main(void)
{
	test_quantity();
	test_list();
	test_node();
	test_tolerations();
	test_rbac();
	test_inference();
	test_rdma();
	test_server();
	test_daemonset_config();
	return t_done();
}
