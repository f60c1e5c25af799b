/* cmax.accept/1 document and text rendering (see output.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accept/output.h"
#include "config.h"
#include "core/strbuf.h"
#include "report/report.h"
#include "core/termsafe.h"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *day_json(long day)
{
	char b[16];
	if (day < 0)
		return json_null();
	acc_format_day(day, b, sizeof b);
	return json_string(b);
}

static json_t *plan_json(const struct acc_plan *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "path", json_string(p->path));
	json_object_set_new(o, "name", json_string(p->name));
	json_object_set_new(o, "system", json_string(p->system));
	json_object_set_new(o, "acceptance_date", json_string(p->acceptance_date));
	json_object_set_new(o, "version", str_or_null(p->version));
	json_t *v = json_object();
	for (size_t i = 0; i < p->nvars; i++)
		json_object_set_new(v, p->vars[i].name, str_or_null(p->vars[i].value));
	json_object_set_new(o, "variables", v);
	json_t *r = json_object();
	json_object_set_new(r, "max_attempts", json_integer(p->max_attempts));
	json_object_set_new(r, "scope", json_string(acc_scope_name(p->scope)));
	json_object_set_new(r, "window_days", p->window_days >= 0 ? json_integer(p->window_days) : json_null());
	json_object_set_new(r, "basis", p->retest_basis ? json_deep_copy(p->retest_basis) : json_null());
	json_object_set_new(o, "retest", r);
	return o;
}

/* docs/provenance.md's basis object as the plan wrote it; {kind: declared}
 * for the older `declared: true`; null when the plan gives none. */
static json_t *basis_json(const struct acc_crit *c)
{
	if (c->basis_doc)
		return json_deep_copy(c->basis_doc);
	if (c->basis == AB_DECLARED)
		return json_pack("{s:s}", "kind", "declared");
	return json_null();
}

static json_t *test_json(const struct acc_report *r, size_t i)
{
	const struct acc_test *t = &r->plan->tests[i];
	const struct acc_test_res *res = &r->res[i];
	json_t *o = json_object();
	json_object_set_new(o, "id", json_string(t->id));
	json_object_set_new(o, "title", json_string(t->title));
	json_object_set_new(o, "group", json_string(t->group));
	json_object_set_new(o, "status", json_string(acc_st_name(res->st)));
	json_object_set_new(o, "summary", json_string(res->summary ? res->summary : ""));
	json_object_set_new(o, "attempt", json_integer(r->attempt));
	json_object_set_new(o, "carried", json_false());
	json_object_set_new(o, "command", str_or_null(r->command ? r->command[i] : NULL));
	json_object_set_new(o, "duration", json_string(t->duration_text));
	json_object_set_new(o, "duration_s", json_integer(t->duration_s));
	json_object_set_new(o, "run", r->run && r->run[i] ? json_incref(r->run[i]) : json_null());
	json_object_set_new(o, "documents", res->docs ? json_incref(res->docs) : json_array());
	json_object_set_new(o, "requires", acc_reqs_json(&t->req));
	json_object_set_new(o, "basis", t->basis_doc ? json_deep_copy(t->basis_doc) : json_null());
	json_object_set_new(o, "set_aside", res->set_aside ? json_incref(res->set_aside) : json_array());
	json_t *cs = json_array();
	for (size_t k = 0; k < res->ncr; k++) {
		const struct acc_crit_res *c = &res->cr[k];
		json_t *e = json_object();
		json_object_set_new(e, "criterion", json_string(c->what));
		json_object_set_new(e, "status", json_string(acc_st_name(c->st)));
		json_object_set_new(e, "why", json_string(c->why ? c->why : ""));
		json_object_set_new(e, "observed", c->observed ? json_incref(c->observed) : json_null());
		json_object_set_new(e, "used", c->used ? json_incref(c->used) : json_array());
		json_object_set_new(e, "note", str_or_null(t->crit[k].note));
		json_object_set_new(e, "declared", json_boolean(t->crit[k].declared));
		json_object_set_new(e, "basis", basis_json(&t->crit[k]));
		json_array_append_new(cs, e);
	}
	json_object_set_new(o, "criteria", cs);
	return o;
}

json_t *acc_report_json(const struct acc_report *r)
{
	const struct acc_plan *p = r->plan;
	json_t *o = report_doc_new(ACC_SCHEMA);
	json_object_set_new(o, "plan", plan_json(p));
	json_object_set_new(o, "mode", json_string(r->mode));
	json_object_set_new(o, "output_dir", str_or_null(r->output_dir));
	json_object_set_new(o, "inputs", r->inputs ? json_incref(r->inputs) : json_null());
	if (r->ignored && json_array_size(r->ignored))
		json_object_set_new(o, "ignored", json_incref(r->ignored));
	json_object_set_new(o, "started_at", str_or_null(r->started_at));
	json_object_set_new(o, "finished_at", str_or_null(r->finished_at));
	json_object_set_new(o, "date", day_json(r->day));
	json_object_set_new(o, "date_source", json_string(r->date_source));
	json_object_set_new(o, "days_to_acceptance_date", json_integer(r->dec->days_left));
	json_object_set_new(o, "attempt", json_integer(r->attempt));
	json_object_set_new(o, "max_attempts", json_integer(p->max_attempts));
	if (r->prev) {
		json_t *pv = json_object();
		json_object_set_new(pv, "path", json_string(r->prev->path));
		json_object_set_new(pv, "attempt", json_integer(r->prev->attempt));
		json_object_set_new(pv, "date", day_json(r->prev->day));
		json_object_set_new(pv, "verdict", json_string(r->prev->verdict));
		json_object_set_new(pv, "retest_due_by", day_json(r->dec->retest_deadline));
		json_object_set_new(o, "previous", pv);
	} else {
		json_object_set_new(o, "previous", json_null());
	}
	json_t *tests = json_array(), *retest = json_array();
	size_t counts[3] = { 0 };
	for (size_t i = 0; i < p->ntests; i++) {
		json_t *t;
		if (r->carried && r->carried[i] && r->prev) {
			t = json_deep_copy(json_object_get(r->prev->tests, p->tests[i].id));
			json_object_set_new(t, "carried", json_true());
		} else {
			t = test_json(r, i);
		}
		enum acc_st st = AS_INCOMPLETE;
		acc_st_parse(json_string_value(json_object_get(t, "status")), &st);
		counts[st]++;
		json_array_append_new(tests, t);
		if (r->dec->retest[i])
			json_array_append_new(retest, json_string(p->tests[i].id));
	}
	json_object_set_new(o, "tests", tests);
	json_t *c = json_object();
	json_object_set_new(c, "PASS", json_integer((json_int_t)counts[AS_PASS]));
	json_object_set_new(c, "FAIL", json_integer((json_int_t)counts[AS_FAIL]));
	json_object_set_new(c, "INCOMPLETE", json_integer((json_int_t)counts[AS_INCOMPLETE]));
	json_object_set_new(c, "total", json_integer((json_int_t)p->ntests));
	json_object_set_new(o, "counts", c);
	json_object_set_new(o, "retest", retest);
	json_object_set_new(o, "retest_scope", json_string(acc_scope_name(p->scope)));
	json_object_set_new(o, "retest_by", day_json(r->dec->retest_by));
	json_t *v = json_object();
	json_object_set_new(v, "status", json_string(acc_verdict_name(r->dec->v)));
	json_object_set_new(v, "summary", json_string(r->dec->summary ? r->dec->summary : ""));
	json_t *rs = json_array();
	for (size_t i = 0; i < r->dec->nreasons; i++)
		json_array_append_new(rs, json_string(r->dec->reasons[i]));
	json_object_set_new(v, "reasons", rs);
	json_object_set_new(o, "verdict", v);
	json_object_set_new(o, "interrupted", json_boolean(r->interrupted));
	return o;
}

/* ---- text ----------------------------------------------------------------------- */

/* A string of the document, escaped for the terminal: plans, results and
 * the previous verdict may come from anywhere (core/termsafe.h). */
static const char *js(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? ts_str(s) : "";
}

void acc_report_text(FILE *f, const json_t *doc, int verbose)
{
	const json_t *plan = json_object_get(doc, "plan");
	fprintf(f, "cmax accept: %s (%s)\n", js(plan, "name"), js(plan, "path"));
	long long left = json_integer_value(json_object_get(doc, "days_to_acceptance_date"));
	fprintf(f, "System %s; acceptance date %s (%lld day%s %s); attempt %lld of %lld on %s (%s)\n", js(plan, "system"),
		js(plan, "acceptance_date"), left < 0 ? -left : left, (left == 1 || left == -1) ? "" : "s",
		left < 0 ? "ago" : "left", json_integer_value(json_object_get(doc, "attempt")),
		json_integer_value(json_object_get(doc, "max_attempts")), js(doc, "date"), js(doc, "date_source"));
	if (!strcmp(js(doc, "mode"), "run"))
		fprintf(f, "Evidence: this run, documents in %s\n", js(doc, "output_dir"));
	else
		fprintf(f, "Evidence: %zu input%s given with --from-results\n", json_array_size(json_object_get(doc, "inputs")),
			json_array_size(json_object_get(doc, "inputs")) == 1 ? "" : "s");
	const json_t *prev = json_object_get(doc, "previous");
	if (json_is_object(prev))
		fprintf(f, "Previous: attempt %lld on %s, %s (%s)\n", json_integer_value(json_object_get(prev, "attempt")),
			js(prev, "date"), js(prev, "verdict"), js(prev, "path"));
	fputc('\n', f);
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		const char *st = js(t, "status");
		int carried = json_is_true(json_object_get(t, "carried"));
		char tag[48] = "";
		if (carried)
			snprintf(tag, sizeof tag, " (attempt %lld)", json_integer_value(json_object_get(t, "attempt")));
		fprintf(f, "%-10s  %-22s %s%s\n", st, js(t, "id"), js(t, "title"), tag);
		size_t k;
		json_t *c;
		/* the summary, unless it only repeats a criterion printed below */
		int repeats = 0;
		json_array_foreach(json_object_get(t, "criteria"), k, c) {
			char *line = xasprintf("%s: %s", js(c, "criterion"), js(c, "why"));
			repeats |= !strcmp(line, js(t, "summary")) && (verbose || strcmp(js(c, "status"), "PASS"));
			free(line);
		}
		if ((strcmp(st, "PASS") || verbose) && !repeats)
			fprintf(f, "            %s\n", js(t, "summary"));
		json_array_foreach(json_object_get(t, "criteria"), k, c) {
			const char *cs = js(c, "status");
			if (!verbose && !strcmp(cs, "PASS"))
				continue;
			fprintf(f, "    %-10s  %s: %s\n", cs, js(c, "criterion"), js(c, "why"));
			if (verbose >= 1 && json_is_string(json_object_get(c, "note")))
				fprintf(f, "                note: %s\n", js(c, "note"));
			const json_t *b = json_object_get(c, "basis");
			if (verbose >= 1 && json_is_object(b)) {
				if (json_is_string(json_object_get(b, "figure")))
					fprintf(f, "                basis: %s: %s\n", js(b, "kind"), js(b, "figure"));
				else if (json_is_string(json_object_get(b, "reason")))
					fprintf(f, "                basis: %s: %s (revisit: %s)\n", js(b, "kind"), js(b, "reason"),
						js(b, "revisit"));
			}
			if (verbose >= 2 && json_array_size(json_object_get(c, "used"))) {
				struct strbuf sb = STRBUF_INIT;
				size_t u;
				json_t *x;
				json_array_foreach(json_object_get(c, "used"), u, x)
					sb_addf(&sb, "%s%s", u ? ", " : "", ts_str(json_string_value(x)));
				fprintf(f, "                read: %s\n", sb_str(&sb));
				sb_free(&sb);
			}
		}
		if (verbose >= 2 && json_array_size(json_object_get(t, "documents"))) {
			size_t u;
			json_t *x;
			json_array_foreach(json_object_get(t, "documents"), u, x)
				fprintf(f, "                document: %s\n", ts_str(json_string_value(x)));
		}
	}
	const json_t *cnt = json_object_get(doc, "counts");
	fprintf(f, "\nTests: %lld PASS, %lld FAIL, %lld INCOMPLETE of %lld\n", json_integer_value(json_object_get(cnt, "PASS")),
		json_integer_value(json_object_get(cnt, "FAIL")), json_integer_value(json_object_get(cnt, "INCOMPLETE")),
		json_integer_value(json_object_get(cnt, "total")));
	const json_t *rt = json_object_get(doc, "retest");
	if (json_array_size(rt)) {
		struct strbuf sb = STRBUF_INIT;
		json_array_foreach(rt, i, t)
			sb_addf(&sb, "%s%s", i ? ", " : "", ts_str(json_string_value(t)));
		fprintf(f, "Retest (scope %s, attempt %lld of %lld, by %s): %s\n", js(doc, "retest_scope"),
			json_integer_value(json_object_get(doc, "attempt")) + 1,
			json_integer_value(json_object_get(doc, "max_attempts")), js(doc, "retest_by"), sb_str(&sb));
		sb_free(&sb);
	}
	const json_t *v = json_object_get(doc, "verdict");
	fprintf(f, "Verdict: %s: %s\n", js(v, "status"), js(v, "summary"));
	if (json_is_true(json_object_get(doc, "interrupted")))
		fprintf(f, "Interrupted: the tests not run are INCOMPLETE\n");
}
