/* Fuzz the add-on extractors: the first byte picks what the rest is.
 * 'a' a List document through every per-kind extractor (Deployments,
 * Services, IngressClasses, scheduler ConfigMaps), 'b' a `kubectl auth
 * can-i --list` table. Every output must serialise as JSON. */
#include "parse/k8s_addons.h"
#include "parse/k8s.h"
#include <stdint.h>
#include <stdlib.h>

static void must_dump(json_t *j)
{
	if (!j)
		return;
	char *s = json_dumps(j, JSON_ENCODE_ANY);
	if (!s)
		abort();
	free(s);
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	if ((data[0] + 256 - 'a') % 2 == 0) {
		char *err = NULL;
		json_t *items = k8s_list_items(text, len, &err);
		free(err);
		size_t i;
		json_t *it;
		json_array_foreach(items, i, it) {
			must_dump(k8s_workload_facts(it));
			must_dump(k8s_lb_service_facts(it));
			must_dump(k8s_ingressclass_facts(it));
			must_dump(k8s_sched_config_facts(it));
		}
		json_decref(items);
	} else {
		json_t *rows = k8s_cani_list_parse(text, len);
		k8s_cani_grants(rows, "rolebindings", "rbac.authorization.k8s.io", "create");
		must_dump(rows);
	}
	return 0;
}
