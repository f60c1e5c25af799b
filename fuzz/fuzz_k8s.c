/* Fuzz the Kubernetes helpers: the first byte picks what the rest is.
 * 'a' a List document through every per-kind extractor, 'b' a quantity,
 * 'c' an API server URL, 'd' an /etc/hosts text, 'e' a JSON array of
 * resource names for the RDMA classifier, 'f' tolerations and taints
 * (an array of two arrays), 'g' ClusterRoles and bindings (two arrays).
 * Every output must serialise as JSON. */
#include "parse/k8s.h"
#include "core/strbuf.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void must_dump(json_t *j)
{
	char *s = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
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
	char *z = xstrndup(text, len);
	json_t *doc = json_loadb(text, len, 0, NULL);
	switch ((data[0] + 256 - 'a') % 7) {
	case 0: {
		char *err = NULL;
		json_t *items = k8s_list_items(text, len, &err);
		free(err);
		size_t i;
		json_t *it;
		json_array_foreach(items, i, it) {
			must_dump(k8s_node_facts(it));
			must_dump(k8s_storageclass_facts(it));
			must_dump(k8s_limitrange_facts(it));
			must_dump(k8s_daemonset_facts(it));
		}
		json_decref(items);
		break;
	}
	case 1: {
		double v;
		k8s_quantity(z, &v);
		break;
	}
	case 2: {
		char *h = k8s_server_host(z), *r = k8s_server_redact(z);
		if (h)
			k8s_addr_class(h);
		if (h && !json_string(h))
			abort();
		free(h);
		free(r);
		break;
	}
	case 3:
		must_dump(k8s_hosts_lookup(text, len, "api.example"));
		break;
	case 4:
		must_dump(k8s_rdma_patterns(doc, json_object_get(doc, "spec"), doc, doc));
		break;
	case 5:
		must_dump(k8s_untolerated(json_array_get(doc, 0), json_array_get(doc, 1), 1));
		break;
	case 6:
		must_dump(k8s_nodes_proxy_grants(json_array_get(doc, 0), json_array_get(doc, 1)));
		break;
	}
	json_decref(doc);
	free(z);
	return 0;
}
