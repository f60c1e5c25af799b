/* The --active probes' readers: a PVC among `kubectl get
 * persistentvolumeclaims,pods -o json` items, the events about one object,
 * and the marker line of a probe pod's log. */
#include "parse/k8sprobe.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

static json_t *load(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);
	if (!j)
		printf("# bad test JSON: %s\n", e.text);
	return j;
}

static void test_pvc(void)
{
	json_t *items = load("[{\"kind\":\"Pod\",\"metadata\":{\"name\":\"cmax-probe-rwo\"}},"
			     "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"cmax-probe-rwo\"},"
			     "\"spec\":{\"storageClassName\":\"ceph-block\",\"volumeName\":\"pvc-1f2e\"},"
			     "\"status\":{\"phase\":\"Bound\"}},"
			     "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"cmax-probe-rwx\"},"
			     "\"spec\":{\"storageClassName\":7},\"status\":{\"phase\":\"Pending\\nline two\"}}]");
	json_t *p = k8sprobe_pvc(items, "cmax-probe-rwo");
	T_STREQ(json_string_value(json_object_get(p, "phase")), "Bound", "the claim, not the pod of the same name");
	T_STREQ(json_string_value(json_object_get(p, "volume")), "pvc-1f2e", "its volume");
	json_decref(p);
	p = k8sprobe_pvc(items, "cmax-probe-rwx");
	T_STREQ(json_string_value(json_object_get(p, "phase")), "Pending", "one line of the phase");
	T_OK(json_is_null(json_object_get(p, "storageclass")), "a class that is not a string is unknown");
	json_decref(p);
	T_OK(k8sprobe_pvc(items, "absent") == NULL, "a claim not in the list: NULL");
	T_OK(k8sprobe_pvc(NULL, "x") == NULL, "no list: NULL");
	json_decref(items);
}

static void test_events(void)
{
	json_t *items = load(
		"[{\"kind\":\"Event\",\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"cmax-probe-rwo\"},\"type\":\"Warning\","
		"\"reason\":\"FailedMount\",\"message\":\"MountVolume.MountDevice failed\",\"count\":12},"
		"{\"kind\":\"Event\",\"involvedObject\":{\"kind\":\"PersistentVolumeClaim\",\"name\":\"cmax-probe-rwo\"},"
		"\"type\":\"Normal\",\"reason\":\"ProvisioningSucceeded\"},"
		"{\"kind\":\"Event\",\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"cmax-probe-rwo\"},\"type\":\"Warning\","
		"\"reason\":\"FailedAttachVolume\",\"message\":\"AttachVolume.Attach failed\",\"count\":\"3\"},"
		"{\"involvedObject\":{\"kind\":\"Pod\"}}, 5]");
	json_t *ev = k8sprobe_events(items, "Pod", "cmax-probe-rwo", 8);
	T_INTEQ(json_array_size(ev), 2, "the pod's two events, not the claim's");
	T_OK(k8sprobe_has_reason(ev, "FailedMount") && k8sprobe_has_reason(ev, "FailedAttachVolume"), "both reasons");
	T_OK(!k8sprobe_has_reason(ev, "ProvisioningSucceeded"), "not the claim's reason");
	T_INTEQ(json_integer_value(json_object_get(json_array_get(ev, 0), "count")), 12, "count kept");
	T_OK(json_is_null(json_object_get(json_array_get(ev, 1), "count")), "a count that is a string is unknown");
	json_decref(ev);
	ev = k8sprobe_events(items, "Pod", "cmax-probe-rwo", 1);
	T_INTEQ(json_array_size(ev), 1, "at most max");
	json_decref(ev);
	ev = k8sprobe_events(NULL, "Pod", "x", 8);
	T_OK(ev && json_array_size(ev) == 0, "no list: empty array");
	json_decref(ev);
	json_decref(items);
}

static void test_marker(void)
{
	const char *log = "starting\nCMAX-PVC-OK cmax-t1-rwo\nCMAX-PVC-OK second\n";
	char *m = k8sprobe_marker(log, strlen(log), "CMAX-PVC-");
	T_STREQ(m, "OK cmax-t1-rwo", "the first marker line, after the prefix");
	free(m);
	m = k8sprobe_marker("CMAX-NP-BLOCKED attempt 1", 25, "CMAX-NP-");
	T_STREQ(m, "BLOCKED attempt 1", "a last line without newline");
	free(m);
	m = k8sprobe_marker("xCMAX-PVC-OK\n", 13, "CMAX-PVC-");
	T_OK(m == NULL, "only at the start of a line");
	free(m);
	m = k8sprobe_marker("CMAX-PVC-OK \x1b[31mred\r\n", 22, "CMAX-PVC-");
	T_OK(m && !strchr(m, '\x1b') && !strchr(m, '\r'), "sanitized, one line (got '%s')", m ? m : "null");
	free(m);
	T_OK(k8sprobe_marker(NULL, 0, "CMAX-") == NULL, "no log: NULL");
}

int main(void)
{
	test_pvc();
	test_events();
	test_marker();
	return t_done();
}
