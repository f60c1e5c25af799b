/* --baseline: the loader (a run directory or its audit.values.json; missing,
 * garbage, not a values document; one host's run or a fleet's) and
 * versions.baseline-fleet over hand-made node documents against a stored
 * fleet run: unchanged nodes, changes folded into hostlists, nodes new to
 * the fleet or gone from it, silent nodes. */
#include "tap.h"
#include "audit/baseline.h"
#include "checks/checks.h"
#include "core/strbuf.h"
#include "engine/context.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/cmax-baseline-XXXXXX";

static char *put(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	return p;
}

/* The facts of one node, as node-collect reports them. */
static json_t *node_facts(const char *driver, const char *kernel, const char *fw)
{
	return json_pack("{s:{s:s,s:n,s:i,s:{s:s,s:s}},s:{s:s,s:n,s:i,s:{s:s,s:[s]}},s:{s:s,s:n,s:i,s:{s:[{s:s,s:s}]}}}",
			 "os", "state", "ok", "reason", "duration_ms", 0, "facts", "kernel_release", kernel, "os_pretty",
			 "Ubuntu 22.04.5 LTS",
			 "nvidia", "state", "ok", "reason", "duration_ms", 0, "facts", "driver_version", driver,
			 "vbios_versions", "96.00.99.00.01",
			 "network", "state", "ok", "reason", "duration_ms", 0, "facts", "hcas", "name", "mlx5_0", "fw_ver", fw);
}

static void test_load(void)
{
	struct baseline b;
	char *err = NULL;
	char *missing = xasprintf("%s/nowhere", dir);
	T_INTEQ(baseline_load(missing, &b, &err), CE_NOINPUT, "a missing path: CE_NOINPUT");
	T_OK(err && strstr(err, "--baseline ") && !strchr(err, '\n'), "one line naming it: %s", err ? err : "");
	free(err);
	err = NULL;
	free(missing);

	T_INTEQ(baseline_load(dir, &b, &err), CE_NOINPUT, "a directory without audit.values.json: CE_NOINPUT");
	free(err);
	err = NULL;

	char *g = put("garbage.json", "{\"schema\": ");
	T_INTEQ(baseline_load(g, &b, &err), CE_DATA, "garbage: CE_DATA");
	T_OK(err && strstr(err, "not JSON"), "says not JSON: %s", err ? err : "");
	free(err);
	err = NULL;
	free(g);

	char *o = put("other.json", "{\"schema\": \"cmax.audit.results/1\", \"results\": []}");
	T_INTEQ(baseline_load(o, &b, &err), CE_DATA, "another document: CE_DATA");
	T_OK(err && strstr(err, "not a cmax audit.values.json document"), "says so: %s", err ? err : "");
	free(err);
	err = NULL;
	free(o);

	char *v = put("audit.values.json",
		      "{\"schema\": \"cmax.audit.values/1\", \"tool_version\": \"0.1.0\", \"started_at\": "
		      "\"2026-11-30T12:00:00Z\", \"host\": \"gpu-h100-001\", \"sysroot\": \"/\", \"facts\": {\"os\": "
		      "{\"state\": \"ok\", \"reason\": null, \"duration_ms\": 0, \"facts\": {\"kernel_release\": "
		      "\"5.15.0-139-generic\"}, \"evidence\": []}}}");
	T_INTEQ(baseline_load(dir, &b, &err), CE_OK, "a run directory: its audit.values.json");
	T_STREQ(b.host, "gpu-h100-001", "the host");
	T_STREQ(b.started_at, "2026-11-30T12:00:00Z", "when");
	T_OK(b.facts && !b.nodes, "one host's facts, no nodes");
	baseline_release(&b);
	unlink(v);
	free(v);
}

static struct result *run(struct audit_ctx *ctx)
{
	const struct check_def *d = check_find("versions.baseline-fleet");
	struct result *r = check_result_new(d, "cluster");
	d->fn(ctx, r);
	return r;
}

static json_t *node(const char *name, json_t *facts)
{
	json_t *n = json_pack("{s:s,s:b,s:n}", "host", name, "answered", facts != NULL, "error");
	json_object_set_new(n, "doc", facts ? json_pack("{s:s,s:s,s:[],s:o}", "schema", "cmax.node/1", "host", name,
							"results", "facts", facts)
					    : json_null());
	return n;
}

static void test_fleet(void)
{
	struct audit_ctx ctx = { 0 };
	struct result *r = run(&ctx);
	T_INTEQ(r->status, ST_SKIP, "no --baseline: SKIP");
	result_free(r);

	json_t *stored = json_object();
	const char *names[] = { "gpu001", "gpu002", "gpu003", "gpu004", "gpu005" };
	for (int i = 0; i < 5; i++)
		json_object_set_new(stored, names[i], node_facts("580.159.03", "5.15.0-139-generic", "28.46.3048"));
	ctx.baseline_nodes = stored;
	ctx.baseline_desc = "run1/audit.values.json (2026-11-30T12:00:00Z)";

	ctx.fleet = json_array();
	for (int i = 0; i < 4; i++)
		json_array_append_new(ctx.fleet, node(names[i], node_facts("580.159.03", "5.15.0-139-generic", "28.46.3048")));
	r = run(&ctx);
	T_INTEQ(r->status, ST_PASS, "four nodes as stored: PASS");
	T_OK(strstr(r->summary, "4 nodes unchanged") && strstr(r->summary, "not in this run: gpu005"),
	     "names the node gone from the fleet: %s", r->summary);
	result_free(r);

	json_decref(ctx.fleet);
	ctx.fleet = json_array();
	json_array_append_new(ctx.fleet, node("gpu001", node_facts("590.48.01", "5.15.0-139-generic", "28.46.3048")));
	json_array_append_new(ctx.fleet, node("gpu002", node_facts("590.48.01", "5.15.0-139-generic", "28.46.3048")));
	json_array_append_new(ctx.fleet, node("gpu003", node_facts("580.159.03", "5.15.0-170-generic", "28.46.3048")));
	json_array_append_new(ctx.fleet, node("gpu004", NULL));
	json_array_append_new(ctx.fleet, node("gpu005", node_facts("580.159.03", "5.15.0-139-generic", "28.46.3048")));
	json_array_append_new(ctx.fleet, node("gpu006", node_facts("580.159.03", "5.15.0-139-generic", "28.46.3048")));
	r = run(&ctx);
	T_INTEQ(r->status, ST_WARN, "changed nodes: WARN");
	T_OK(strstr(r->summary, "3 of 4 nodes compared") != NULL, "counts the nodes compared: %s", r->summary);
	T_OK(strstr(r->summary, "NVIDIA driver 580.159.03 -> 590.48.01 on gpu[001-002]") != NULL,
	     "one change, its nodes as a hostlist");
	T_OK(strstr(r->summary, "kernel 5.15.0-139-generic -> 5.15.0-170-generic on gpu003") != NULL, "the other change");
	json_t *obs = r->observed;
	T_STREQ(json_string_value(json_object_get(obs, "not_in_baseline")), "gpu006", "a node new to the fleet");
	T_STREQ(json_string_value(json_object_get(obs, "not_answering")), "gpu004", "a node that did not answer");
	T_STREQ(json_string_value(json_object_get(obs, "unchanged_nodes")), "gpu005", "the unchanged node");
	T_INTEQ(json_array_size(json_object_get(obs, "changes")), 2, "two distinct changes, not one row per node");
	result_free(r);

	json_decref(ctx.fleet);
	ctx.fleet = json_array();
	json_array_append_new(ctx.fleet, node("other01", node_facts("580.159.03", "5.15.0-139-generic", "28.46.3048")));
	r = run(&ctx);
	T_INTEQ(r->status, ST_SKIP, "no node of the run in the baseline: SKIP");
	result_free(r);
	json_decref(ctx.fleet);
	json_decref(stored);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	test_load();
	test_fleet();
	char *p = xasprintf("%s/garbage.json", dir);
	unlink(p);
	free(p);
	p = xasprintf("%s/other.json", dir);
	unlink(p);
	free(p);
	rmdir(dir);
	return t_done();
}
