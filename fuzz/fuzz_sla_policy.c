/* Fuzz the cmax sla files a person writes (YAML or JSON through the YAML
 * loader): 'a' a layout, 'b' exclusion windows (against a fixed layout),
 * 'c' a levels file, 'd' a custom level over the fixed policy; other
 * bytes wrap around. A file is either refused with a message or yields a
 * structure the engine can run on. */
#include "sla/engine.h"
#include "core/yamljson.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char policy_json[] =
	"{\"version\": 1, \"definitions\": {\"states\": {\"down\": [\"DOWN\"], \"drain\": [\"DRAIN\"], \"up\": [\"IDLE\"], "
	"\"not_counted\": []}, \"systems\": {\"hgx\": {\"gpus_per_node\": 8, \"nodes_per_rack\": 2, \"rack_down\": "
	"{\"min_nodes_down_fraction\": 1}}, \"nvl72\": {\"gpus_per_node\": 4, \"nodes_per_rack\": 18, \"rack_down\": "
	"{\"min_nodes_down\": 3}}}, \"cluster_down\": {\"min_racks_down_fraction\": 0.5}, \"site_down\": "
	"{\"min_clusters_down_fraction\": 1}}, \"levels\": [{\"name\": \"x\", \"targets\": {\"node\": 99}, "
	"\"exclusions_accepted\": [\"maintenance\"]}]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned sel = ((unsigned)data[0] + 256 - 'a') % 4;
	char *err = NULL;
	json_t *doc = yamljson_loadb((const char *)data + 1, size - 1, &err);
	free(err);
	err = NULL;
	if (!doc)
		return 0;
	json_t *pd = json_loads(policy_json, 0, NULL);
	struct sla_policy *pol = sla_policy_from_json(pd, "policy", &err);
	if (!pol)
		abort();
	struct sla_layout *base = sla_layout_from_flags("n[1-4]", SYS_NVL72, 2, 0, 0, 0, &pol->defs, &err);
	if (!base)
		abort();
	sla_ms from = sla_time_parse("2026-11-01", 0), to = sla_time_parse("2026-12-01", 0);
	struct sla_events ev = { 0 };
	sla_events_add(&ev, "n1", NULL, from + 1000, to - 1000, "DOWN", "x", NULL, "s");
	switch (sel) {
	case 0: {
		struct sla_layout *l = sla_layout_from_json(doc, &pol->defs, "layout", &err);
		if (!l && !err)
			abort();
		if (l) {
			if (!l->n[SC_NODE] || !l->n[SC_SITE])
				abort();
			struct sla_result *r = sla_compute(l, &ev, NULL, &pol->defs, &pol->levels[0], from, to);
			sla_result_free(r);
		}
		sla_layout_free(l);
		break;
	}
	case 1: {
		struct sla_windows w;
		if (sla_windows_from_json(doc, base, "w", &w, &err) == 0) {
			struct sla_result *r = sla_compute(base, &ev, &w, &pol->defs, &pol->levels[0], from, to);
			sla_result_free(r);
			sla_windows_free(&w);
		} else if (!err) {
			abort();
		}
		break;
	}
	case 2: {
		struct sla_policy *p = sla_policy_from_json(doc, "levels", &err);
		if (!p && !err)
			abort();
		if (p) {
			struct sla_result *r = sla_compute(base, &ev, NULL, &p->defs, &p->levels[0], from, to);
			sla_result_free(r);
		}
		sla_policy_free(p);
		break;
	}
	default:
		if (sla_policy_custom_level(pol, doc, "level", &err) == 0) {
			struct sla_result *r = sla_compute(base, &ev, NULL, &pol->defs, &pol->levels[0], from, to);
			sla_result_free(r);
		} else if (!err) {
			abort();
		}
		break;
	}
	free(err);
	sla_events_free(&ev);
	sla_layout_free(base);
	sla_policy_free(pol);
	json_decref(pd);
	json_decref(doc);
	return 0;
}
