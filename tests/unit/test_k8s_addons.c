/* The add-on extractors against the shapes kubectl 1.29-1.33 prints:
 * Deployments, LoadBalancer Services, IngressClasses, scheduler
 * configurations in ConfigMaps (KubeSchedulerConfiguration v1, Volcano's
 * volcano-scheduler.conf, Kueue's Configuration) and the `kubectl auth
 * can-i --list` table (SelfSubjectRulesReview as kubectl renders it). */
#include "parse/k8s_addons.h"
#include "parse/k8s.h"
#include "core/jsonget.h"
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

static void test_workloads(void)
{
	json_t *d = J("{\"kind\":\"Deployment\",\"metadata\":{\"name\":\"kueue-controller-manager\",\"namespace\":\"kueue-system\"},"
		      "\"spec\":{\"replicas\":2,\"template\":{\"spec\":{\"containers\":[{\"name\":\"manager\","
		      "\"image\":\"registry.k8s.io/kueue/kueue:v0.14.4\"}]}}},\"status\":{\"replicas\":2,\"readyReplicas\":1}}");
	json_t *f = k8s_workload_facts(d);
	T_STREQ(jget_str(f, "name"), "kueue-controller-manager", "deployment name");
	T_STREQ(json_string_value(json_array_get(json_object_get(f, "images"), 0)), "registry.k8s.io/kueue/kueue:v0.14.4", "image");
	T_INTEQ(jget_int(f, "replicas", -1), 2, "replicas");
	T_INTEQ(jget_int(f, "ready", -1), 1, "ready");
	json_decref(f);
	json_decref(d);
	d = J("{\"kind\":\"Deployment\",\"metadata\":{\"name\":\"x\"},\"spec\":{},\"status\":{\"replicas\":1}}");
	f = k8s_workload_facts(d);
	T_INTEQ(jget_int(f, "replicas", -1), 1, "replicas default 1");
	T_INTEQ(jget_int(f, "ready", -1), 0, "readyReplicas omitted = 0");
	json_decref(f);
	json_decref(d);
}

static void test_services(void)
{
	json_t *s = J("{\"metadata\":{\"name\":\"ingress-nginx-controller\",\"namespace\":\"ingress-nginx\"},"
		      "\"spec\":{\"type\":\"LoadBalancer\"},\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\"203.0.113.20\",\"ipMode\":\"VIP\"}]}}}");
	json_t *f = k8s_lb_service_facts(s);
	T_STREQ(json_string_value(json_array_get(json_object_get(f, "ingress"), 0)), "203.0.113.20", "LB address");
	json_decref(f);
	json_decref(s);
	s = J("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"type\":\"LoadBalancer\"},\"status\":{\"loadBalancer\":{}}}");
	f = k8s_lb_service_facts(s);
	T_OK(f && json_array_size(json_object_get(f, "ingress")) == 0, "pending LB: no address");
	json_decref(f);
	json_decref(s);
	s = J("{\"metadata\":{\"name\":\"kubernetes\"},\"spec\":{\"type\":\"ClusterIP\"}}");
	T_OK(k8s_lb_service_facts(s) == NULL, "ClusterIP service is not a LB");
	json_decref(s);
	json_t *ic = J("{\"metadata\":{\"name\":\"nginx\",\"annotations\":{\"ingressclass.kubernetes.io/is-default-class\":\"true\"}},"
		       "\"spec\":{\"controller\":\"k8s.io/ingress-nginx\"}}");
	f = k8s_ingressclass_facts(ic);
	T_OK(json_is_true(json_object_get(f, "default")), "default IngressClass");
	T_STREQ(jget_str(f, "controller"), "k8s.io/ingress-nginx", "controller");
	json_decref(f);
	json_decref(ic);
}

static json_t *cm(const char *key, const char *yaml)
{
	json_t *c = json_pack("{s:{s:s,s:s},s:{s:s}}", "metadata", "name", "cfg", "namespace", "ns", "data", key, yaml);
	json_t *f = k8s_sched_config_facts(c);
	json_decref(c);
	return f;
}

static void test_sched_configs(void)
{
	json_t *f = cm("scheduler-config.yaml",
		       "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
		       "- schedulerName: gpu-binpack\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
		       "      scoringStrategy:\n        type: MostAllocated\n        resources:\n        - name: cpu\n"
		       "          weight: 1\n        - name: nvidia.com/gpu\n          weight: 5\n"
		       "- schedulerName: default-scheduler\n");
	json_t *p = json_object_get(json_array_get(json_object_get(f, "configs"), 0), "profiles");
	T_STREQ(jget_str(json_array_get(p, 0), "scoring"), "MostAllocated", "MostAllocated profile");
	T_OK(json_is_true(json_object_get(json_array_get(p, 0), "gpu_weighted")), "weights nvidia.com/gpu");
	T_STREQ(jget_str(json_array_get(p, 1), "scoring"), "LeastAllocated", "unset strategy is LeastAllocated");
	json_decref(f);
	f = cm("volcano-scheduler.conf", "actions: \"enqueue, allocate, backfill\"\ntiers:\n- plugins:\n  - name: priority\n"
					 "  - name: gang\n- plugins:\n  - name: binpack\n    arguments:\n"
					 "      binpack.weight: 10\n      binpack.resources: nvidia.com/gpu\n");
	json_t *v = json_array_get(json_object_get(f, "configs"), 0);
	T_STREQ(jget_str(v, "type"), "volcano", "volcano config");
	T_OK(json_is_true(json_object_get(v, "gang")) && json_is_true(json_object_get(v, "binpack_gpu")), "gang and GPU binpack");
	json_decref(f);
	f = cm("controller_manager_config.yaml", "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
						 "waitForPodsReady:\n  enable: true\n  timeout: 10m\n");
	T_OK(json_is_true(json_object_get(json_array_get(json_object_get(f, "configs"), 0), "wait_for_pods_ready")),
	     "Kueue waitForPodsReady");
	json_decref(f);
	T_OK(cm("ca.crt", "-----BEGIN CERTIFICATE-----\nMIIB\n") == NULL, "a CA bundle is no scheduler config");
	T_OK(cm("x.yaml", "kind: KubeSchedulerConfiguration\n  bad: [\n") == NULL, "broken YAML: none");
}

static void test_cani(void)
{
	static const char table[] =
		"Resources                                       Non-Resource URLs   Resource Names   Verbs\n"
		"pods.*                                          []                  []               [get list watch create delete]\n"
		"deployments.apps                                []                  []               [*]\n"
		"rolebindings.rbac.authorization.k8s.io          []                  []               [get list create]\n"
		"secrets                                         []                  [helm-token]     [get]\n"
		"selfsubjectaccessreviews.authorization.k8s.io   []                  []               [create]\n"
		"                                                [/api/*]            []               [get]\n"
		"                                                [/healthz]          []               [get]\n";
	json_t *rows = k8s_cani_list_parse(table, strlen(table));
	T_INTEQ((long long)json_array_size(rows), 5, "five resource rows (URL rows left out)");
	T_OK(k8s_cani_grants(rows, "rolebindings", "rbac.authorization.k8s.io", "create"), "create rolebindings");
	T_OK(k8s_cani_grants(rows, "deployments", "apps", "create"), "deployments.apps [*]");
	T_OK(k8s_cani_grants(rows, "pods", "", "create"), "pods.* covers the core group");
	T_OK(!k8s_cani_grants(rows, "secrets", "", "get"), "a named secret is not every secret");
	T_OK(!k8s_cani_grants(rows, "roles", "rbac.authorization.k8s.io", "create"), "no roles");
	json_decref(rows);
	rows = k8s_cani_list_parse("*.*   []   []   [*]\n", 19);
	T_OK(k8s_cani_grants(rows, "rolebindings", "rbac.authorization.k8s.io", "create"), "*.* [*] grants all");
	json_decref(rows);
	rows = k8s_cani_list_parse("garbage [ no close\n[x] [y]\n", 26);
	T_INTEQ((long long)json_array_size(rows), 0, "garbage: no rows");
	json_decref(rows);
}

int main(void)
{
	test_workloads();
	test_services();
	test_sched_configs();
	test_cani();
	return t_done();
}
