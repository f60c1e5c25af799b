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

/* A node row as a result. Its observed, expected and evidence are the
 * document's own values, not copies (result_from_json's): the documents
 * are read-only once decoded (their equal parts shared, parse/nodewire.c),
 * and a copy a row would be most of a large fleet's memory and time. */
static struct result *node_row(json_t *row)
{
	static const char *const keys[] = { "observed", "expected", "evidence" };
	json_t *bare = json_copy(row); /* shallow: the same values, three keys fewer */
	for (size_t i = 0; i < 3; i++)
		json_object_del(bare, keys[i]);
	struct result *r = result_from_json(bare);
	json_decref(bare);
	if (!r)
		return NULL;
	json_t *v;
	if ((v = json_object_get(row, "observed")) && !json_is_null(v))
		r->observed = json_incref(v);
	if ((v = json_object_get(row, "expected")) && !json_is_null(v))
		r->expected = json_incref(v);
	if (json_is_array(v = json_object_get(row, "evidence"))) {
		json_decref(r->evidence);
		r->evidence = json_incref(v);
	}
	return r;
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
				struct result *r = node_row(row);
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

/* The rows of every host, in report order: one pass, so that a report of
 * thousands of nodes does not scan every row once a node. */
struct host_rows {
	size_t *at;
	size_t n;
};

static struct host_rows *rows_by_host(struct result *const *rows, size_t n, json_t *index, size_t *nhosts)
{
	struct host_rows *h = NULL;
	*nhosts = 0;
	for (size_t i = 0; i < n; i++) {
		const char *host = rows[i]->host ? rows[i]->host : "";
		json_t *k = json_object_get(index, host);
		size_t j = (size_t)json_integer_value(k);
		if (!k) {
			h = xrealloc(h, (*nhosts + 1) * sizeof *h);
			h[*nhosts] = (struct host_rows){ 0 };
			j = (*nhosts)++;
			json_object_set_new_nocheck(index, host, json_integer((json_int_t)j));
		}
		if ((h[j].n & (h[j].n - 1)) == 0) /* 0, 1, 2, 4, ...: double */
			h[j].at = xrealloc(h[j].at, (h[j].n ? 2 * h[j].n : 1) * sizeof *h[j].at);
		h[j].at[h[j].n++] = i;
	}
	return h;
}

static void host_group(FILE *out, const char *host, const char *label, struct result *const *rows,
		       const struct host_rows *hr, int verbose, int color)
{
	const char *prev = NULL;
	for (size_t k = 0; hr && k < hr->n; k++) {
		const struct result *r = rows[hr->at[k]];
		if (k == 0)
			fprintf(out, "\n# %s %s\n", label, ts_str(host));
		if (!prev || strcmp(prev, r->profile) != 0) {
			fprintf(out, "\n## %s: %s\n", ts_str(host), ts_str(r->profile));
			prev = r->profile;
		}
		report_text_row(out, r, verbose, color, 0);
	}
}

static const struct host_rows *rows_of_host(const struct host_rows *h, const json_t *index, const char *host)
{
	json_t *k = json_object_get(index, host);
	return k ? &h[json_integer_value(k)] : NULL;
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
	json_t *index = json_object();
	size_t nhosts;
	struct host_rows *hr = rows_by_host(rows, n, index, &nhosts);
	const char *cluster = m->host ? m->host : "";
	host_group(out, cluster, "cluster", rows, rows_of_host(hr, index, cluster), verbose, color);
	size_t i;
	json_t *node;
	json_array_foreach(fleet, i, node) {
		const char *host = json_string_value(json_object_get(node, "host")) ?: "";
		host_group(out, host, "node", rows, rows_of_host(hr, index, host), verbose, color);
	}
	for (size_t k = 0; k < nhosts; k++)
		free(hr[k].at);
	free(hr);
	json_decref(index);
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
