/* The section of a fault injection (cmax.inject/1): the timeline of the
 * run (injected, detected, drained, returned, usable, at their offsets
 * from the injection) with the phases between them, and the document's
 * own grading of each phase against the method's expectation (its rows'
 * expected and observed). A phase the run never saw is "not measured". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonget.h"
#include "core/strbuf.h"
#include "results/report.h"

static const char *const events[] = { "injected", "detected", "drained", "returned", "usable" };
#define NEV 5

/* a phase between two events: from, to, its name */
static const struct { int from, to; const char *state; } phases[] = {
	{ 0, 1, "undetected" },
	{ 2, 3, "isolated" },
	{ 3, 4, "returning" },
};

static const json_t *event_of(const json_t *evs, const char *name)
{
	size_t i;
	const json_t *e;
	json_array_foreach(evs, i, e)
		if (!strcmp(jget_str_or(e, "event", ""), name))
			return e;
	return NULL;
}

static void facts(struct rpt *r, const json_t *doc)
{
	const json_t *f = json_object_get(doc, "fault");
	char *code = rpt_raw(json_object_get(f, "code"));
	static const char *const heads[] = { "fault", "method", "platform", "scheduler", "expected action" };
	char *what = xasprintf("%s %s", jget_str_or(f, "kind", "?"), code ? code : jget_str_or(f, "block", ""));
	const char *c[] = { what, jget_str(doc, "method"), jget_str(doc, "platform"), jget_str(doc, "scheduler"),
			    jget_str(f, "action") };
	rpt_table_begin(r, heads, 5);
	rpt_row(r, NULL, c, 5);
	rpt_table_end(r);
	free(what);
	free(code);
	const json_t *v = json_object_get(doc, "verdict");
	if (json_is_object(v)) {
		char *t = xasprintf("Verdict: %s: %s", jget_str_or(v, "status", "?"), jget_str_or(v, "summary", ""));
		rpt_p(r, t);
		free(t);
	}
}

void rpt_inject(struct rpt *r, const json_t *doc)
{
	rpt_meta(r, doc);
	facts(r, doc);
	const json_t *evs = json_object_get(json_object_get(doc, "timeline"), "events");
	const char *node = jget_str_or(doc, "node", "node");
	struct rchart *c = rchart_new("inject-timeline", RC_TIMELINE, "Injection timeline", "time since injection (s)",
				      "node (name)");
	size_t s = rchart_series(c, node);
	const json_t *at[NEV];
	struct strbuf missing = STRBUF_INIT;
	for (int k = 0; k < NEV; k++) {
		at[k] = event_of(evs, events[k]);
		const json_t *off = json_object_get(at[k], "offset_s");
		if (!json_is_number(off)) {
			sb_addf(&missing, "%s%s", missing.len ? ", " : "", events[k]);
			at[k] = NULL;
		}
	}
	for (size_t p = 0; p < sizeof phases / sizeof phases[0]; p++) {
		const json_t *a = at[phases[p].from], *b = at[phases[p].to];
		if (!a || !b)
			continue;
		char *x0 = rpt_raw(json_object_get(a, "offset_s")), *x1 = rpt_raw(json_object_get(b, "offset_s"));
		double v0 = rpt_num(json_object_get(a, "offset_s")), v1 = rpt_num(json_object_get(b, "offset_s"));
		if (v1 > v0)
			rchart_span(c, s, v0, v1, x0, x1, phases[p].state);
		free(x0);
		free(x1);
	}
	for (int k = 0; k < NEV; k++) {
		if (!at[k])
			continue;
		char *x = rpt_raw(json_object_get(at[k], "offset_s"));
		double v = rpt_num(json_object_get(at[k], "offset_s"));
		rchart_span(c, s, v, v, x, x, events[k]);
		free(x);
	}
	c->xmin = 0;
	/* the method's limits, shaded from the injection to the deadline
	 * (fault.expect_*_s; a document of an older cmax has only the words of
	 * its rows, and then no window is drawn) */
	static const struct { const char *key, *what; } limits[] = {
		{ "expect_detect_s", "detected within" },
		{ "expect_return_s", "back in service within" },
	};
	const json_t *f = json_object_get(doc, "fault");
	double right = 0;
	for (int k = 0; k < NEV; k++)
		if (at[k])
			right = fmax(right, rpt_num(json_object_get(at[k], "offset_s")));
	int nlim = 0;
	for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
		const json_t *v = json_object_get(f, limits[i].key);
		if (!json_is_number(v) || rpt_num(v) <= 0)
			continue;
		char *raw = rpt_raw(v), *label = xasprintf("%s %s s (the method's limit)", limits[i].what, raw);
		rchart_window(c, 0, rpt_num(v), "0", raw, label);
		right = fmax(right, rpt_num(v));
		nlim++;
		free(raw);
		free(label);
	}
	if (nlim && right > 0)
		c->xmax = right;
	char *cap = xasprintf("events at their offsets from the injection (timeline.events[].offset_s)%s%s%s",
			      nlim ? "; shaded: the method's limits from the injection (fault.expect_*_s)" : "",
			      missing.len ? "; not measured: " : "", missing.len ? missing.buf : "");
	rchart_caption(c, cap);
	free(cap);
	sb_free(&missing);
	rchart_emit(r, c);
	rpt_h3(r, "Each phase against the method's expectation");
	rpt_rows(r, json_object_get(doc, "results"));
}
