/* Retest rule, verdict and the --previous document (see verdict.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accept/verdict.h"
#include "core/timefmt.h"
#include "core/error.h"
#include "core/exitcodes.h"
#include "evidence/evidence.h"
#include "core/strbuf.h"

const char *acc_verdict_name(enum acc_verdict v)
{
	return v == AV_ACCEPTED ? "ACCEPTED" : v == AV_RETEST ? "RETEST REQUIRED" : "NOT ACCEPTED";
}

/* ---- --previous ------------------------------------------------------------- */

static int perr(char **err, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int perr(char **err, const char *label, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s: ", label);
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	*err = sb_detach(&sb);
	return CE_DATA;
}

enum cmax_err acc_prev_from_json(const json_t *root, const char *label, struct acc_prev *p, char **err)
{
	memset(p, 0, sizeof *p);
	*err = NULL;
	p->path = xstrdup(label);
	p->day = -1;
	if (!json_is_object(root))
		return perr(err, label, "not a cmax accept document (not a JSON object)");
	const char *schema = json_string_value(json_object_get(root, "schema"));
	if (!schema || strcmp(schema, ACC_SCHEMA))
		return perr(err, label, "not a cmax accept document (schema %s, expected %s)", schema ? schema : "missing",
			    ACC_SCHEMA);
	const char *name = json_string_value(json_object_get(json_object_get(root, "plan"), "name"));
	if (!name)
		return perr(err, label, "plan.name missing");
	p->plan_name = xstrdup(name);
	const json_t *at = json_object_get(root, "attempt");
	if (!json_is_integer(at) || json_integer_value(at) < 1 || json_integer_value(at) > 1000)
		return perr(err, label, "attempt must be a whole number from 1");
	p->attempt = (int)json_integer_value(at);
	const char *date = json_string_value(json_object_get(root, "date"));
	if ((p->day = time_parse_day(date)) < 0)
		return perr(err, label, "date must be YYYY-MM-DD");
	const char *v = json_string_value(json_object_get(json_object_get(root, "verdict"), "status"));
	if (!v || (strcmp(v, "ACCEPTED") && strcmp(v, "NOT ACCEPTED") && strcmp(v, "RETEST REQUIRED")))
		return perr(err, label, "verdict.status must be ACCEPTED, NOT ACCEPTED or RETEST REQUIRED");
	p->verdict = xstrdup(v);
	const json_t *tests = json_object_get(root, "tests");
	if (!json_is_array(tests) || json_array_size(tests) == 0)
		return perr(err, label, "tests must be a non-empty list");
	p->tests = json_object();
	size_t i;
	json_t *t;
	json_array_foreach(tests, i, t) {
		const char *id = json_string_value(json_object_get(t, "id"));
		const char *st = json_string_value(json_object_get(t, "status"));
		const json_t *ta = json_object_get(t, "attempt");
		enum acc_st s;
		if (!id || !*id)
			return perr(err, label, "tests[%zu] has no id", i);
		if (acc_st_parse(st, &s) != 0)
			return perr(err, label, "test %s: status must be PASS, FAIL or INCOMPLETE", id);
		if (!json_is_integer(ta) || json_integer_value(ta) < 1 || json_integer_value(ta) > p->attempt)
			return perr(err, label, "test %s: attempt must be a whole number from 1 to %d", id, p->attempt);
		if (json_object_get(p->tests, id))
			return perr(err, label, "test %s appears twice", id);
		json_object_set_new(p->tests, id, json_deep_copy(t));
	}
	const json_t *rt = json_object_get(root, "retest");
	if (!json_is_array(rt))
		return perr(err, label, "retest must be a list of test ids");
	p->retest = xcalloc(json_array_size(rt) + 1, sizeof *p->retest);
	json_array_foreach(rt, i, t) {
		const char *id = json_string_value(t);
		if (!id || !json_object_get(p->tests, id))
			return perr(err, label, "retest[%zu] is not one of its tests", i);
		p->retest[p->nretest++] = xstrdup(id);
	}
	return 0;
}

enum cmax_err acc_prev_load(const char *path, struct acc_prev *p, char **err)
{
	memset(p, 0, sizeof *p);
	json_t *root = NULL;
	/* the one input reader (core/readfile.h): capped, no device or FIFO hang */
	enum cmax_err rc = ev_load_json(path, &root, err);
	if (rc)
		return rc;
	rc = acc_prev_from_json(root, path, p, err);
	json_decref(root);
	return rc;
}

void acc_prev_free(struct acc_prev *p)
{
	for (size_t i = 0; i < p->nretest; i++)
		free(p->retest[i]);
	free(p->retest);
	free(p->path);
	free(p->plan_name);
	free(p->verdict);
	json_decref(p->tests);
	memset(p, 0, sizeof *p);
}

enum cmax_err acc_prev_check(const struct acc_prev *p, const struct acc_plan *plan, char **err)
{
	if (strcmp(p->plan_name, plan->name))
		return perr(err, p->path, "an attempt of plan '%s', not of '%s'", p->plan_name, plan->name);
	for (size_t i = 0; i < plan->ntests; i++)
		if (!json_object_get(p->tests, plan->tests[i].id))
			return perr(err, p->path, "has no test %s: the plan changed since that attempt", plan->tests[i].id);
	if (json_object_size(p->tests) != plan->ntests) {
		const char *id;
		json_t *x;
		json_object_foreach(p->tests, id, x) {
			(void)x;
			if (!acc_plan_test(plan, id))
				return perr(err, p->path, "has test %s, which the plan does not: the plan changed since that attempt", id);
		}
	}
	if (p->attempt > plan->max_attempts + 1)
		return perr(err, p->path, "attempt %d is beyond the plan's max_attempts %d", p->attempt, plan->max_attempts);
	return 0;
}

int acc_prev_wants(const struct acc_prev *p, const char *id)
{
	for (size_t i = 0; i < p->nretest; i++)
		if (!strcmp(p->retest[i], id))
			return 1;
	return 0;
}

/* ---- the verdict ------------------------------------------------------------------ */

static void reason(struct acc_decision *d, char *r)
{
	d->reasons = xrealloc(d->reasons, (d->nreasons + 1) * sizeof *d->reasons);
	d->reasons[d->nreasons++] = r;
}

void acc_decide(const struct acc_decide_in *in, struct acc_decision *out)
{
	const struct acc_plan *p = in->plan;
	memset(out, 0, sizeof *out);
	out->retest = xcalloc(p->ntests + 1, sizeof *out->retest);
	out->retest_by = -1;
	out->retest_deadline = -1;
	long due = time_parse_day(p->acceptance_date);
	out->days_left = due - in->day;
	size_t nfail = 0, ninc = 0;
	for (size_t i = 0; i < p->ntests; i++) {
		nfail += in->st[i] == AS_FAIL;
		ninc += in->st[i] == AS_INCOMPLETE;
	}
	char d1[16], d2[16], d3[16];
	acc_format_day(due, d1, sizeof d1);
	acc_format_day(in->day, d2, sizeof d2);
	int late = in->day > due, window_missed = 0;
	if (in->prev_day >= 0 && p->window_days >= 0) {
		out->retest_deadline = in->prev_day + p->window_days;
		if (out->retest_deadline > due)
			out->retest_deadline = due;
		window_missed = in->day > out->retest_deadline && !late;
	}
	int allpass = !nfail && !ninc;
	if (late)
		reason(out, xasprintf("acceptance date missed (%s, this attempt %s): termination right per the plan", d1, d2));
	if (window_missed) {
		acc_format_day(in->prev_day, d3, sizeof d3);
		char dl[16];
		acc_format_day(out->retest_deadline, dl, sizeof dl);
		reason(out, xasprintf("retest window missed: attempt %d was on %s and the retest was due by %s (window %d days)",
				      in->attempt - 1, d3, dl, p->window_days));
	}
	if (nfail)
		reason(out, xasprintf("%zu test%s failed", nfail, nfail == 1 ? "" : "s"));
	if (ninc)
		reason(out, xasprintf("%zu test%s incomplete (evidence missing: not a pass)", ninc, ninc == 1 ? "" : "s"));
	int exhausted = !allpass && in->attempt >= p->max_attempts;
	if (exhausted)
		reason(out, xasprintf("attempt %d of %d: no retest left", in->attempt, p->max_attempts));
	if (allpass && !late && !window_missed) {
		out->v = AV_ACCEPTED;
		out->summary = xasprintf("all %zu tests passed (attempt %d of %d, %ld day%s before the acceptance date)", p->ntests,
					 in->attempt, p->max_attempts, out->days_left, out->days_left == 1 ? "" : "s");
		return;
	}
	if (late || window_missed || exhausted) {
		out->v = AV_NOT_ACCEPTED;
	} else {
		out->v = AV_RETEST;
		int *bad_group = xcalloc(p->ntests + 1, sizeof *bad_group);
		for (size_t i = 0; i < p->ntests; i++)
			if (in->st[i] != AS_PASS) {
				out->retest[i] = 1;
				for (size_t j = 0; j < p->ntests; j++)
					if (!strcmp(p->tests[j].group, p->tests[i].group))
						bad_group[j] = 1;
			}
		for (size_t i = 0; i < p->ntests; i++) {
			if (p->scope == RS_ALL || (p->scope == RS_GROUP && bad_group[i]))
				out->retest[i] = 1;
			out->nretest += out->retest[i];
		}
		free(bad_group);
		out->retest_by = due;
		if (p->window_days >= 0 && in->day + p->window_days < due)
			out->retest_by = in->day + p->window_days;
	}
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < out->nreasons; i++)
		sb_addf(&sb, "%s%s", i ? "; " : "", out->reasons[i]);
	out->summary = sb_detach(&sb);
}

void acc_decision_free(struct acc_decision *d)
{
	for (size_t i = 0; i < d->nreasons; i++)
		free(d->reasons[i]);
	free(d->reasons);
	free(d->retest);
	free(d->summary);
	memset(d, 0, sizeof *d);
}
