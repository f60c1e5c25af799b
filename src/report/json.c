#include "report/report.h"
#include <errno.h>
#include <string.h>
#include "core/exitcodes.h"
#include "core/outfile.h"
#include "core/strbuf.h"
#include "config.h"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *report_doc_new(const char *schema)
{
	json_t *o = json_object();
	json_object_set_new(o, "schema", json_string(schema));
	json_object_set_new(o, "tool", json_string("cmax"));
	json_object_set_new(o, "tool_version", json_string(CMAX_VERSION));
	return o;
}

json_t *report_results_json(const struct report_meta *m, struct result *const *rows, size_t n)
{
	json_t *o = report_doc_new(RESULTS_SCHEMA);
	json_object_set_new(o, "profile", json_string(m->profile));
	json_object_set_new(o, "command", str_or_null(m->command));
	json_object_set_new(o, "started_at", str_or_null(m->started_at));
	json_object_set_new(o, "finished_at", str_or_null(m->finished_at));
	json_object_set_new(o, "duration_ms", json_integer(m->duration_ms));
	json_t *t = json_object();
	json_object_set_new(t, "harness", json_string(m->harness));
	json_object_set_new(t, "environment", json_string(m->environment));
	json_object_set_new(t, "selection", json_string(m->selection));
	json_object_set_new(t, "detection", str_or_null(m->detection));
	json_t *hosts = json_array();
	json_array_append_new(hosts, json_string(m->host ? m->host : ""));
	json_object_set_new(t, "hosts", hosts);
	json_object_set_new(t, "sysroot", json_string(m->sysroot ? m->sysroot : "/"));
	json_object_set_new(o, "target", t);
	json_object_set_new(o, "active", json_boolean(m->active));
	json_object_set_new(o, "policy", m->policy ? json_incref(m->policy) : json_object());
	json_object_set_new(o, "collectors", m->collectors ? json_incref(m->collectors) : json_array());
	json_t *res = json_array();
	int counts[ST__COUNT] = { 0 };
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(res, result_to_json(rows[i]));
		counts[rows[i]->status]++;
	}
	json_object_set_new(o, "results", res);
	json_t *c = json_object();
	for (int s = 0; s < ST__COUNT; s++)
		json_object_set_new(c, status_name((enum status)s), json_integer(counts[s]));
	json_object_set_new(c, "total", json_integer((json_int_t)n));
	json_object_set_new(o, "counts", c);
	return o;
}

int report_json(FILE *out, const json_t *doc)
{
	if (json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII) != 0)
		return -1;
	fputc('\n', out);
	return ferror(out) ? -1 : 0;
}

enum cmax_err report_json_file(const char *path, const json_t *doc, const char *who)
{
	char *err = NULL;
	struct outfile *of = outfile_open(path, OUTFILE_REPLACE, &err);
	enum cmax_err rc = CE_CANTCREAT;
	if (of) {
		FILE *f = outfile_stream(of);
		if (f && report_json(f, doc) == 0) {
			rc = outfile_commit(of, &err) ? CE_CANTCREAT : CE_OK;
		} else {
			err = xasprintf("cannot write %s: %s", path, strerror(errno));
			outfile_abort(of);
		}
	}
	if (rc)
		fprintf(stderr, "cmax %s: %s\n", who, err);
	free(err);
	return rc;
}
