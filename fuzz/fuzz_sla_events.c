/* Fuzz the cmax sla history parsers, then the engine and the JSON report
 * on what they produced. The first byte picks the parser: 'a' sacctmgr,
 * 'b' slurmctld log, 'c' kubectl events, 'd' kubectl nodes, 'e' cmax
 * timeline, 'f' CSV, 'g' JSON events, 'h' detection then that parser;
 * other bytes wrap around. Every string kept must be valid for JSON, every
 * interval inside the period, every number finite. */
#include "parse/sla_formats.h"
#include "sla/report.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char policy_json[] =
	"{\"version\": 1, \"definitions\": {\"states\": {\"down\": [\"DOWN\", \"FAIL\", \"NOT_RESPONDING\", \"NotReady\", "
	"\"NodeStatusUnknown\"], \"drain\": [\"DRAIN\", \"Cordoned\"], \"up\": [\"IDLE\"], \"not_counted\": [\"POWERED_DOWN\"]},"
	"\"customer_initiated\": {\"reason_prefixes\": [\"customer:\"], \"users\": [\"alice\"]},"
	"\"systems\": {\"hgx\": {\"gpus_per_node\": 8, \"nodes_per_rack\": 2, \"rack_down\": {\"min_nodes_down_fraction\": 1}},"
	"\"nvl72\": {\"gpus_per_node\": 4, \"nodes_per_rack\": 18, \"rack_down\": {\"min_nodes_down\": 3}}},"
	"\"cluster_down\": {\"min_racks_down_fraction\": 0.5, \"min_nodes_down_fraction\": 0.5},"
	"\"site_down\": {\"min_clusters_down_fraction\": 1}},"
	"\"levels\": [{\"name\": \"x\", \"targets\": {\"node\": 99, \"rack\": 99, \"cluster\": 99, \"site\": 99},"
	"\"credits\": {\"node\": [{\"below\": 99, \"credit_pct\": 10}], \"site\": [{\"below\": 99.9, \"credit_pct\": 50}]},"
	"\"termination\": {\"cluster\": 95}, \"exclusions_accepted\": [\"maintenance\"]}]}";

static const char windows_json[] =
	"[{\"start\": \"2026-11-02T00:00:00Z\", \"end\": \"2026-11-03T00:00:00Z\", \"kind\": \"maintenance\", \"scope\": \"n[1-2]\"},"
	"{\"start\": \"2026-11-04T00:00:00Z\", \"end\": \"2026-11-05T00:00:00Z\", \"kind\": \"upgrade\"}]";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned sel = ((unsigned)data[0] + 256 - 'a') % 8;
	size_t len = size - 1;
	char *text = malloc(len + 1);
	memcpy(text, data + 1, len);
	text[len] = 0;
	enum sla_format f = (enum sla_format)(sel + 1);
	if (sel == 7) {
		const char *why;
		f = sla_detect(text, len, &why);
		if (f == SF_UNKNOWN && !why)
			abort();
	}
	struct sla_events ev = { 0 };
	struct sla_parse p;
	sla_parse_init(&p, "fuzz", &ev, 0);
	char *err = NULL;
	if (f != SF_UNKNOWN && sla_parse_buffer(f, text, len, &p, &err) < 0 && !err)
		abort();
	free(err);
	for (size_t i = 0; i < ev.n; i++)
		if (ev.v[i].end != SLA_OPEN && ev.v[i].end < ev.v[i].start)
			abort();

	json_t *pd = json_loads(policy_json, 0, NULL), *wd = json_loads(windows_json, 0, NULL);
	struct sla_policy *pol = sla_policy_from_json(pd, "policy", &err);
	if (!pol)
		abort();
	struct sla_layout *l = sla_layout_from_flags("n[1-8]", SYS_HGX, 0, 2, 0, 0, &pol->defs, &err);
	struct sla_windows w;
	if (!l || sla_windows_from_json(wd, l, "w", &w, &err) < 0)
		abort();
	sla_ms from = sla_time_parse("2026-11-01", 0), to = sla_time_parse("2026-12-01", 0);
	struct sla_result *r = sla_compute(l, &ev, &w, &pol->defs, &pol->levels[0], from, to);
	for (int s = 0; s < SC__COUNT; s++)
		for (size_t u = 0; u < r->n[s]; u++) {
			const struct sla_unit_result *x = &r->r[s][u];
			if (x->downtime < 0 || x->downtime > x->eligible || (x->known && !isfinite(x->availability)))
				abort();
			for (size_t i = 0; i < x->niv; i++)
				if (x->iv[i].start < from || x->iv[i].end > to || x->iv[i].end <= x->iv[i].start)
					abort();
		}
	json_t *inputs = json_array();
	json_t *in = json_object();
	json_object_set_new(in, "file", json_string("fuzz"));
	json_object_set_new(in, "format", json_string(sla_format_name(f)));
	json_object_set(in, "malformed", p.malformed);
	json_object_set(in, "notes", p.notes);
	json_array_append_new(inputs, in);
	struct sla_run run = { .l = l, .ev = &ev, .w = &w, .pol = pol, .res = r, .all = &r, .nall = 1,
			       .inputs = inputs, .period_label = "2026-11", .price = 1.5 };
	json_t *doc = sla_report_json(&run);
	char *s = json_dumps(doc, 0);
	if (!s)
		abort();
	free(s);
	FILE *null = fopen("/dev/null", "w");
	if (null) {
		run.verbose = 1;
		sla_report_text(&run, null);
		fclose(null);
	}
	json_decref(doc);
	json_decref(inputs);
	sla_result_free(r);
	sla_windows_free(&w);
	sla_layout_free(l);
	sla_policy_free(pol);
	json_decref(pd);
	json_decref(wd);
	sla_parse_release(&p);
	sla_events_free(&ev);
	free(text);
	return 0;
}
