/* Fuzz the collector pod progress reader and the tolerations builder:
 * whatever `kubectl get pods` or `get nodes` returns, the answer
 * serialises and the verdict is one of the four. */
#include "parse/k8spod.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *in = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
	enum k8s_pod_verdict v = 99;
	json_t *o = k8s_pod_progress(in, &v);
	if (v > POD_STUCK)
		abort();
	char *s = json_dumps(o, 0);
	if (!s)
		abort();
	free(s);
	json_decref(o);
	json_t *t = k8s_tolerations_for(in);
	s = json_dumps(t, 0);
	if (!s)
		abort();
	free(s);
	json_decref(t);
	json_decref(in);
	return 0;
}
