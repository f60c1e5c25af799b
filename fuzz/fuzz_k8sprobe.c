/* Fuzz the --active probes' readers: whatever `kubectl get -o json` or a
 * pod's log holds, the answers serialise and nothing crashes. */
#include "parse/k8sprobe.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *m = k8sprobe_marker((const char *)data, size, "CMAX-PVC-");
	free(m);
	json_t *in = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
	json_t *items = json_object_get(in, "items");
	json_t *pvc = k8sprobe_pvc(items, "cmax-probe-rwo");
	json_t *ev = k8sprobe_events(items, "Pod", "cmax-probe-rwo", 8);
	if (!ev || json_array_size(ev) > 8)
		abort();
	(void)k8sprobe_has_reason(ev, "FailedMount");
	char *s = json_dumps(ev, 0), *p = pvc ? json_dumps(pvc, 0) : NULL;
	if (!s || (pvc && !p))
		abort();
	free(s);
	free(p);
	json_decref(pvc);
	json_decref(ev);
	json_decref(in);
	return 0;
}
