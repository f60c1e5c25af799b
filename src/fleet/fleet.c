/* Merging a fleet: node documents into ctx->fleet, report rows, values and
 * the text report. A node that did not answer stays in every one of them,
 * named, with the reason. */
#include "fleet/fleet.h"
#include "checks/check.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include <stdlib.h>
#include <string.h>

#define COVERAGE_ID "orchestration.fleet-coverage"

void node_docs_free(struct node_doc *docs, size_t n)
{
	for (size_t i = 0; docs && i < n; i++) {
		free(docs[i].host);
		free(docs[i].error);
		json_decref(docs[i].doc);
		json_decref(docs[i].evidence);
	}
	free(docs);
}

json_t *node_docs_to_fleet(struct node_doc *docs, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "host", json_string(docs[i].host ? docs[i].host : "?"));
		json_object_set_new(o, "answered", json_boolean(docs[i].answered && docs[i].doc));
		json_object_set_new(o, "error", docs[i].error ? json_string(docs[i].error) : json_null());
		json_object_set_new(o, "doc", docs[i].doc ? docs[i].doc : json_null());
		json_object_set_new(o, "evidence", docs[i].evidence ? docs[i].evidence : json_array());
		docs[i].doc = NULL;
		docs[i].evidence = NULL;
		json_array_append_new(a, o);
	}
	return a;
}

static void push_row(struct result ***rows, size_t *n, struct result *r)
{
	*rows = xrealloc(*rows, (*n + 2) * sizeof **rows);
	(*rows)[(*n)++] = r;
	(*rows)[*n] = NULL;
}

void fleet_node_rows(const json_t *fleet, struct result ***rows, size_t *n)
{
	const struct check_def *cov = check_find(COVERAGE_ID);
	size_t i;
	json_t *node;
	json_array_foreach(fleet, i, node) {
		const char *host = json_string_value(json_object_get(node, "host"));
		json_t *doc = json_object_get(node, "doc");
		if (json_is_true(json_object_get(node, "answered")) && json_is_object(doc)) {
			size_t k;
			json_t *row;
			json_array_foreach(json_object_get(doc, "results"), k, row) {
				struct result *r = result_from_json(row);
				if (!r)
					continue;
				/* rows carry the scheduler's node name: several nodes
				 * may report one host name */
				free(r->host);
				r->host = xstrdup(host);
				push_row(rows, n, r);
			}
			continue;
		}
		struct result *r = check_result_new(cov, host);
		const char *why = json_string_value(json_object_get(node, "error"));
		r_error(r, "node %s did not answer the fleet collector: %s", host, why ? why : "no reason recorded");
		r_observedf(r, "no cmax.node/1 document from %s", host);
		r_expectedf(r, "a complete node document within the per-node timeout");
		size_t k;
		json_t *ev;
		json_array_foreach(json_object_get(node, "evidence"), k, ev)
			r_evidence(r, json_deep_copy(ev));
		push_row(rows, n, r);
	}
}

static json_t *doc_counts(const json_t *doc)
{
	json_t *c = json_object(), *dc = json_object_get(doc, "counts");
	for (int s = 0; s < ST__COUNT; s++) {
		const char *k = status_name((enum status)s);
		json_object_set_new(c, k, json_integer(json_integer_value(json_object_get(dc, k))));
	}
	return c;
}

json_t *fleet_summary_json(const json_t *fleet)
{
	json_t *a = json_array();
	size_t i;
	json_t *node;
	json_array_foreach(fleet, i, node) {
		json_t *o = json_object();
		int ans = json_is_true(json_object_get(node, "answered"));
		json_t *doc = json_object_get(node, "doc");
		json_object_set_new(o, "host", json_incref(json_object_get(node, "host")));
		json_object_set_new(o, "answered", json_boolean(ans));
		json_t *err = json_object_get(node, "error");
		json_object_set_new(o, "error", ans || !err ? json_null() : json_incref(err));
		json_object_set_new(o, "reported_host", ans ? json_incref(json_object_get(doc, "host")) : json_null());
		json_object_set_new(o, "environment",
				    ans ? json_incref(json_object_get(json_object_get(doc, "target"), "environment")) : json_null());
		json_object_set_new(o, "counts", ans ? doc_counts(doc) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

json_t *fleet_values_json(const json_t *fleet)
{
	json_t *o = json_object();
	size_t i;
	json_t *node;
	json_array_foreach(fleet, i, node) {
		const char *host = json_string_value(json_object_get(node, "host"));
		json_t *facts = json_object_get(json_object_get(node, "doc"), "facts");
		if (host)
			json_object_set_new(o, host, facts ? json_incref(facts) : json_null());
	}
	return o;
}

json_t *fleet_hosts_json(const json_t *fleet)
{
	json_t *a = json_array();
	size_t i;
	json_t *node;
	json_array_foreach(fleet, i, node)
		json_array_append(a, json_object_get(node, "host"));
	return a;
}

static void summary_table(FILE *out, const json_t *fleet)
{
	size_t i, answered = 0;
	json_t *node;
	int w = 4;
	json_array_foreach(fleet, i, node) {
		int l = (int)strlen(json_string_value(json_object_get(node, "host")) ?: "");
		if (l > w)
			w = l;
		answered += json_is_true(json_object_get(node, "answered"));
	}
	fprintf(out, "\n## fleet: %zu of %zu nodes answered\n", answered, json_array_size(fleet));
	fprintf(out, "  %-*s  %-8s %5s %5s %5s  %s\n", w, "node", "answered", "FAIL", "WARN", "ERROR", "note");
	json_array_foreach(fleet, i, node) {
		const char *host = json_string_value(json_object_get(node, "host"));
		json_t *doc = json_object_get(node, "doc");
		if (json_is_true(json_object_get(node, "answered"))) {
			json_t *c = json_object_get(doc, "counts");
			const char *env = json_string_value(json_object_get(json_object_get(doc, "target"), "environment"));
			fprintf(out, "  %-*s  %-8s %5lld %5lld %5lld  %s %s\n", w, ts_str(host), "yes",
				(long long)json_integer_value(json_object_get(c, "FAIL")),
				(long long)json_integer_value(json_object_get(c, "WARN")),
				(long long)json_integer_value(json_object_get(c, "ERROR")),
				ts_str(json_string_value(json_object_get(doc, "host")) ?: "?"), ts_str(env ? env : ""));
		} else {
			const char *e = json_string_value(json_object_get(node, "error"));
			fprintf(out, "  %-*s  %-8s %5s %5s %5s  %s\n", w, ts_str(host), "NO", "-", "-", "1", ts_str(e ? e : ""));
		}
	}
}

static void host_group(FILE *out, const char *host, const char *label, struct result *const *rows, size_t n,
		       int verbose, int color)
{
	const char *prev = NULL;
	int header = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(rows[i]->host ? rows[i]->host : "", host) != 0)
			continue;
		if (!header) {
			fprintf(out, "\n# %s %s\n", label, ts_str(host));
			header = 1;
		}
		if (!prev || strcmp(prev, rows[i]->profile) != 0) {
			fprintf(out, "\n## %s: %s\n", ts_str(host), ts_str(rows[i]->profile));
			prev = rows[i]->profile;
		}
		report_text_row(out, rows[i], verbose, color, 0);
	}
}

void fleet_report_text(FILE *out, const struct report_meta *m, const json_t *fleet, struct result *const *rows,
		       size_t n, int verbose, int color)
{
	fprintf(out, "# cmax audit report: %s\n", ts_str(m->profile));
	fprintf(out, "# cluster %s, target %s (%s harness, %s)\n", ts_str(m->host ? m->host : "?"), ts_str(m->environment),
		ts_str(m->harness), ts_str(m->selection));
	if (m->detection)
		fprintf(out, "# %s\n", ts_str(m->detection));
	summary_table(out, fleet);
	host_group(out, m->host ? m->host : "", "cluster", rows, n, verbose, color);
	size_t i;
	json_t *node;
	json_array_foreach(fleet, i, node)
		host_group(out, json_string_value(json_object_get(node, "host")) ?: "", "node", rows, n, verbose, color);
	int attention = 0;
	for (size_t k = 0; k < n; k++)
		if (rows[k]->status == ST_FAIL || rows[k]->status == ST_ERROR)
			attention++;
	if (attention) {
		fprintf(out, "\n## needs attention\n");
		for (size_t k = 0; k < n; k++)
			if (rows[k]->status == ST_FAIL || rows[k]->status == ST_ERROR) {
				fprintf(out, "[%s] ", ts_str(rows[k]->host ? rows[k]->host : "?"));
				report_text_row(out, rows[k], 0, color, 0);
			}
	}
	fputc('\n', out);
	report_text_counts(out, rows, n, color);
	if (verbose < 3)
		fprintf(out, "More detail: -v observed/expected, -vv references, -vvv remediation and evidence; "
			     "`cmax audit review` reopens this run.\n");
}
