/* Fleet findings over hand-made node documents: drift with and without a
 * majority, nodes that did not answer or did not report, the coverage row,
 * and the merge of node documents into report rows. */
#include "engine/context.h"
#include "checks/checks.h"
#include "fleet/fleet.h"
#include "core/strbuf.h"
#include "parse/hostlist.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

struct node_spec {
	const char *name;
	int answered;
	const char *driver, *kernel, *os, *cuda, *nccl, *fw, *vbios, *model;
	int gpus;
};

static json_t *col(const char *state, json_t *facts)
{
	json_t *c = json_object();
	json_object_set_new(c, "state", json_string(state));
	json_object_set_new(c, "reason", strcmp(state, "ok") ? json_string("nvidia-smi not found") : json_null());
	json_object_set_new(c, "facts", facts);
	return c;
}

static json_t *make_node(const struct node_spec *s)
{
	json_t *n = json_object();
	json_object_set_new(n, "host", json_string(s->name));
	json_object_set_new(n, "answered", json_boolean(s->answered));
	json_object_set_new(n, "error", s->answered ? json_null() : json_string("task timed out"));
	if (!s->answered) {
		json_object_set_new(n, "doc", json_null());
		return n;
	}
	json_t *f = json_object();
	json_object_set_new(f, "os", col("ok", json_pack("{s:s, s:s}", "kernel_release", s->kernel, "os_pretty", s->os)));
	if (s->driver) {
		json_t *models = json_array();
		json_array_append_new(models, json_string(s->model));
		json_t *vb = json_array();
		json_array_append_new(vb, json_string(s->vbios));
		json_object_set_new(f, "nvidia", col("ok", json_pack("{s:s, s:i, s:o, s:o}", "driver_version", s->driver,
								      "count", s->gpus, "models", models,
								      "vbios_versions", vb)));
	} else {
		json_object_set_new(f, "nvidia", col("absent", json_object()));
	}
	json_object_set_new(f, "cuda", col("ok", json_pack("{s:s}", "default_toolkit_version", s->cuda)));
	json_object_set_new(f, "software",
			    col("ok", s->nccl ? json_pack("{s:{s:s, s:b}}", "nccl", "version", s->nccl, "installed", 1)
					      : json_pack("{s:{s:n, s:b}}", "nccl", "version", "installed", 0)));
	json_object_set_new(f, "network", col("ok", json_pack("{s:[{s:s},{s:s}]}", "hcas", "fw_ver", s->fw, "fw_ver", s->fw)));
	json_t *doc = json_pack("{s:s, s:s, s:[], s:o}", "schema", "cmax.node/1", "host", s->name, "results", "facts", f);
	json_object_set_new(n, "doc", doc);
	return n;
}

#define GOOD(n) { n, 1, "580.159.03", "5.15.0-139-generic", "Ubuntu 22.04.5 LTS", "13.1.0", "2.27.7", "28.46.3048", "96.00.99.00.01", "NVIDIA H100 80GB HBM3", 8 }

static void set_fleet(struct audit_ctx *ctx, const struct node_spec *s, size_t n)
{
	json_decref(ctx->fleet);
	ctx->fleet = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(ctx->fleet, make_node(&s[i]));
}

static struct result *run(struct audit_ctx *ctx, const char *id)
{
	const struct check_def *d = check_find(id);
	struct result *r = check_result_new(d, "cluster");
	d->fn(ctx, r);
	return r;
}

/* status and summary fragments of one check */
static void expect(struct audit_ctx *ctx, const char *id, enum status st, const char *w1, const char *w2)
{
	struct result *r = run(ctx, id);
	int good = r->status_set && r->status == st && (!w1 || strstr(r->summary, w1)) && (!w2 || strstr(r->summary, w2));
	T_OK(good, "%s %s%s%s", id, status_name(st), w1 ? ": " : "", w1 ? w1 : "");
	if (!good)
		printf("#   got %s: %s\n", status_name(r->status), r->summary ? r->summary : "(none)");
	result_free(r);
}

static const char *const drift_ids[] = {
	"versions.drift-driver", "versions.drift-cuda", "versions.drift-firmware", "versions.drift-kernel",
	"versions.drift-nccl", "versions.drift-os", "hardware.drift-gpus",
};

/* 2,000 nodes: the last rack (1%) on an older driver and kernel, five
 * silent, one without nvidia-smi. Each drift check is one row that counts
 * the nodes of every value and names them as hostlist ranges. */
static void fleet_at_scale(struct audit_ctx *ctx)
{
	enum { N = 2000 };
	static char names[N][8];
	struct node_spec *s = calloc(N, sizeof *s);
	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "gpu%04zu", i + 1);
		struct node_spec g = GOOD(names[i]);
		s[i] = g;
		if (i >= N - 20) {
			s[i].driver = "570.211.01";
			s[i].kernel = "5.15.0-105-generic";
		}
		if (i >= 1000 && i < 1005)
			s[i].answered = 0;
		if (i % 10 == 9 && i < 1000)
			s[i].cuda = "12.4.1"; /* every tenth node of the first thousand */
	}
	s[499].driver = NULL;
	set_fleet(ctx, s, N);
	free(s);
	expect(ctx, "versions.drift-driver", ST_FAIL,
	       "GPU driver drift: 580.159.03 on 1974 of 1994 nodes read (gpu[0001-0499,0501-1000,1006-1980]); "
	       "outliers: 570.211.01 on 20 nodes (gpu[1981-2000]) (covers 1994 of 2000 nodes; "
	       "did not answer: gpu[1001-1005]; not reported by: gpu0500)", NULL);
	expect(ctx, "versions.drift-kernel", ST_FAIL, "5.15.0-139-generic on 1975 of 1995 nodes read (gpu[0001-1000,1006-1980])",
	       "outliers: 5.15.0-105-generic on 20 nodes (gpu[1981-2000])");
	expect(ctx, "versions.drift-os", ST_PASS, "on every node read (covers 1995 of 2000 nodes; did not answer: gpu[1001-1005])",
	       NULL);
	expect(ctx, "orchestration.fleet-coverage", ST_FAIL, "1995 of 2000 nodes answered; did not answer: gpu[1001-1005]",
	       NULL);

	expect(ctx, "versions.drift-cuda", ST_WARN, "12.4.1 on 100 nodes (gpu[0010,0020,0030,", ",...])");
	struct result *c = run(ctx, "versions.drift-cuda");
	const char *scattered = json_string_value(
		json_object_get(json_object_get(json_object_get(c->observed, "values"), "12.4.1"), "hostlist"));
	json_t *all = hostlist_expand_json(scattered ?: "", strlen(scattered ?: ""), 1000, NULL);
	T_INTEQ(json_array_size(all), 100, "scattered outliers: the summary is cut, observed holds all 100");
	json_decref(all);
	result_free(c);

	struct result *r = run(ctx, "versions.drift-driver");
	json_t *obs = r->observed;
	json_t *old = json_object_get(json_object_get(obs, "values"), "570.211.01");
	T_INTEQ(json_integer_value(json_object_get(old, "nodes")), 20, "observed: 20 nodes on the old driver");
	T_STREQ(json_string_value(json_object_get(old, "hostlist")), "gpu[1981-2000]", "observed: as one range");
	T_STREQ(json_string_value(json_object_get(json_object_get(obs, "not_answered"), "hostlist")), "gpu[1001-1005]",
		"observed: the silent nodes as a range");
	T_INTEQ(json_object_size(json_object_get(obs, "not_reported")), 1, "observed: one reason not reported");
	T_INTEQ(json_array_size(r->evidence), 4, "evidence: one note a value, the silent ones, the unreported one");
	T_OK(strstr(json_string_value(json_object_get(json_array_get(r->evidence, 0), "text")) ?: "",
		    "580.159.03 on 1974 nodes: gpu[0001-0499,0501-1000,1006-1980]") != NULL,
	     "evidence: the full hostlist of the majority");
	result_free(r);
}

int main(void)
{
	struct audit_ctx ctx = { 0 };

	for (size_t i = 0; i < 7; i++)
		expect(&ctx, drift_ids[i], ST_SKIP, "not a fleet audit", NULL);
	expect(&ctx, "orchestration.fleet-coverage", ST_SKIP, "not a fleet audit", NULL);

	/* per-node collection never happened */
	ctx.fleet = json_array();
	ctx.fleet_error = xstrdup("per-node collection did not happen (k8s): not implemented");
	expect(&ctx, "versions.drift-driver", ST_SKIP, "not implemented", NULL);
	expect(&ctx, "orchestration.fleet-coverage", ST_ERROR, "did not happen", NULL);
	free(ctx.fleet_error);
	ctx.fleet_error = NULL;

	/* three identical nodes: every drift check PASSes over 3 of 3 */
	struct node_spec same[] = { GOOD("n1"), GOOD("n2"), GOOD("n3") };
	set_fleet(&ctx, same, 3);
	for (size_t i = 0; i < 7; i++)
		expect(&ctx, drift_ids[i], ST_PASS, "covers 3 of 3 nodes", NULL);
	expect(&ctx, "orchestration.fleet-coverage", ST_PASS, "all 3 of 3 nodes", NULL);
	expect(&ctx, "hardware.drift-gpus", ST_PASS, "8 x NVIDIA H100 80GB HBM3", NULL);

	/* n3 differs in everything */
	struct node_spec odd[] = { GOOD("n1"), GOOD("n2"),
				   { "n3", 1, "570.211.01", "5.15.0-105-generic", "Ubuntu 22.04.4 LTS", "12.4.1", "2.18.5",
				     "28.39.1002", "96.00.89.00.01", "NVIDIA H100 80GB HBM3", 7 } };
	set_fleet(&ctx, odd, 3);
	expect(&ctx, "versions.drift-driver", ST_FAIL, "580.159.03 on 2 of 3 nodes read (n[1-2])",
	       "outliers: 570.211.01 on 1 node (n3)");
	expect(&ctx, "versions.drift-cuda", ST_WARN, "12.4.1 on 1 node (n3)", NULL);
	expect(&ctx, "versions.drift-firmware", ST_FAIL, "HCA fw 28.39.1002; GPU VBIOS 96.00.89.00.01 on 1 node (n3)", NULL);
	expect(&ctx, "versions.drift-kernel", ST_FAIL, "5.15.0-105-generic on 1 node (n3)", NULL);
	expect(&ctx, "versions.drift-nccl", ST_WARN, "2.18.5 on 1 node (n3)", NULL);
	expect(&ctx, "versions.drift-os", ST_WARN, "Ubuntu 22.04.4 LTS on 1 node (n3)", NULL);
	expect(&ctx, "hardware.drift-gpus", ST_FAIL, "7 x NVIDIA H100 80GB HBM3 on 1 node (n3)", NULL);

	/* two nodes, two values: no majority, both named */
	set_fleet(&ctx, odd + 1, 2);
	expect(&ctx, "versions.drift-driver", ST_FAIL, "no majority", "570.211.01 on 1 node (n3)");

	/* a silent node and one without nvidia-smi are counted out and named */
	struct node_spec gaps[] = { GOOD("n1"), GOOD("n2"), GOOD("n3"), GOOD("n4") };
	gaps[1].answered = 0;
	gaps[2].driver = NULL;
	set_fleet(&ctx, gaps, 4);
	expect(&ctx, "versions.drift-driver", ST_PASS, "covers 2 of 4 nodes", "did not answer: n2; not reported by: n3");
	expect(&ctx, "versions.drift-kernel", ST_PASS, "covers 3 of 4 nodes", "did not answer: n2)");
	expect(&ctx, "orchestration.fleet-coverage", ST_FAIL, "3 of 4 nodes answered", "n2: task timed out");

	/* one node answered: nothing to compare */
	gaps[2].answered = gaps[3].answered = 0;
	set_fleet(&ctx, gaps, 4);
	expect(&ctx, "versions.drift-os", ST_SKIP, "only n1", "covers 1 of 4 nodes");
	/* NCCL missing on a node is a value, not an unknown */
	struct node_spec nonccl[] = { GOOD("n1"), GOOD("n2"), GOOD("n3") };
	nonccl[2].nccl = NULL;
	set_fleet(&ctx, nonccl, 3);
	expect(&ctx, "versions.drift-nccl", ST_WARN, "not installed on 1 node (n3)", NULL);

	/* merge: answered nodes bring their rows with the node name, silent
	 * ones one ERROR row each */
	json_t *row = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "id", "versions.nvidia-driver", "profile", "versions",
				"title", "t", "status", "PASS", "summary", "ok", "host", "gpu-h100-001");
	json_array_append_new(json_object_get(json_object_get(json_array_get(ctx.fleet, 0), "doc"), "results"), row);
	json_object_set_new(json_array_get(ctx.fleet, 1), "answered", json_false());
	json_object_set_new(json_array_get(ctx.fleet, 1), "error", json_string("no document from the node"));
	struct result **rows = NULL;
	size_t n = 0;
	fleet_node_rows(ctx.fleet, &rows, &n);
	T_INTEQ(n, 2, "one row from n1, one ERROR row for n2, none from n3 (no rows)");
	T_STREQ(rows[0]->host, "n1", "a node's row carries the scheduler's node name, not its hostname");
	T_OK(rows[1]->status == ST_ERROR && !strcmp(rows[1]->host, "n2") && strstr(rows[1]->summary, "no document"),
	     "the silent node's ERROR row names it and says why");
	json_t *hosts = fleet_hosts_json(ctx.fleet);
	T_INTEQ(json_array_size(hosts), 3, "every expected node is a host");
	json_decref(hosts);
	json_t *sum = fleet_summary_json(ctx.fleet);
	T_OK(json_is_false(json_object_get(json_array_get(sum, 1), "answered")), "summary marks the silent node");
	json_decref(sum);
	for (size_t i = 0; i < n; i++)
		result_free(rows[i]);
	free(rows);

	/* node_docs_to_fleet takes the documents over */
	struct node_doc *docs = xcalloc(2, sizeof *docs);
	docs[0].host = xstrdup("a");
	docs[0].answered = 1;
	docs[0].doc = json_pack("{s:s}", "schema", "cmax.node/1");
	docs[1].host = xstrdup("b");
	docs[1].error = xstrdup("timed out");
	json_t *fl = node_docs_to_fleet(docs, 2);
	node_docs_free(docs, 2);
	T_OK(json_is_true(json_object_get(json_array_get(fl, 0), "answered")) &&
		     json_is_object(json_object_get(json_array_get(fl, 0), "doc")),
	     "node_docs_to_fleet keeps the document of an answered node");
	T_STREQ(json_string_value(json_object_get(json_array_get(fl, 1), "error")), "timed out", "and the reason of a silent one");
	json_decref(fl);

	fleet_at_scale(&ctx);
	json_decref(ctx.fleet);
	return t_done();
}
