/* Collector pod progress as `kubectl get pods -o json` shows it, and the
 * tolerations built from a node's taints. */
#include "parse/k8spod.h"
#include "parse/k8s.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

static json_t *pod(const char *text)
{
	json_error_t e;
	json_t *p = json_loads(text, 0, &e);
	if (!p)
		printf("# bad test JSON: %s\n", e.text);
	return p;
}

static void check(const char *text, enum k8s_pod_verdict want, const char *reason_part, const char *what)
{
	json_t *p = pod(text);
	enum k8s_pod_verdict v = 99;
	json_t *o = k8s_pod_progress(p, &v);
	T_INTEQ(v, want, "%s: verdict", what);
	const char *r = json_string_value(json_object_get(o, "reason"));
	if (reason_part)
		T_OK(r && strstr(r, reason_part), "%s: reason mentions '%s' (got '%s')", what, reason_part, r ? r : "null");
	else
		T_OK(!r, "%s: no reason", what);
	json_decref(o);
	json_decref(p);
}

static void test_progress(void)
{
	check("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":\"Succeeded\"}}",
	      POD_SUCCEEDED, NULL, "succeeded");
	check("{\"status\":{\"phase\":\"Pending\",\"containerStatuses\":[{\"state\":{\"waiting\":{\"reason\":"
	      "\"ImagePullBackOff\",\"message\":\"Back-off pulling image \\\"reg/cmax:1\\\"\\nmore\"}}}]}}",
	      POD_STUCK, "ImagePullBackOff: Back-off pulling image", "image pull");
	check("{\"status\":{\"phase\":\"Pending\",\"containerStatuses\":[{\"state\":{\"waiting\":{\"reason\":"
	      "\"ContainerCreating\"}}}]}}",
	      POD_WAITING, "ContainerCreating", "creating");
	check("{\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\","
	      "\"reason\":\"Unschedulable\",\"message\":\"0/4 nodes\"}]}}",
	      POD_WAITING, "PodScheduled False Unschedulable: 0/4 nodes", "unschedulable");
	check("{\"status\":{\"phase\":\"Failed\",\"containerStatuses\":[{\"state\":{\"terminated\":{\"reason\":"
	      "\"Error\",\"exitCode\":70}}}]}}",
	      POD_FAILED, "Error (exit 70)", "failed container");
	check("{\"status\":{\"phase\":\"Failed\",\"reason\":\"DeadlineExceeded\",\"message\":\"too long\"}}",
	      POD_FAILED, "DeadlineExceeded: too long", "deadline");
	check("[1,2]", POD_WAITING, NULL, "not an object");
	check("{\"status\":{\"phase\":7,\"containerStatuses\":{\"x\":1}}}", POD_WAITING, NULL, "wrong types");
	json_t *o = k8s_pod_progress(NULL, NULL);
	T_OK(json_is_null(json_object_get(o, "name")), "NULL pod: an object with null fields");
	json_decref(o);
}

static void test_tolerations(void)
{
	json_t *taints = pod("[{\"key\":\"nvidia.com/gpu\",\"value\":\"present\",\"effect\":\"NoSchedule\"},"
			     "{\"key\":\"maint\",\"value\":null,\"effect\":\"NoExecute\"},{\"value\":\"x\"},3]");
	json_t *t = k8s_tolerations_for(taints);
	T_INTEQ(json_array_size(t), 2, "one toleration per taint with a key");
	json_t *a = json_array_get(t, 0), *b = json_array_get(t, 1);
	T_STREQ(json_string_value(json_object_get(a, "operator")), "Equal", "value -> Equal");
	T_STREQ(json_string_value(json_object_get(b, "operator")), "Exists", "no value -> Exists");
	size_t i;
	json_t *x;
	int all = 1;
	json_array_foreach(taints, i, x) {
		if (!json_is_object(x) || !json_object_get(x, "key"))
			continue;
		json_t *one = json_pack("[O]", x), *left = k8s_untolerated(t, one, 0);
		all &= json_array_size(left) == 0;
		json_decref(left);
		json_decref(one);
	}
	T_OK(all, "the scheduler's own rule accepts every taint");
	json_decref(t);
	json_decref(taints);
}

int main(void)
{
	test_progress();
	test_tolerations();
	return t_done();
}
