/* The section of an availability month (cmax.sla/1): per rack and per
 * node, the downtime intervals the document counted, on the period's time
 * axis, with the exclusion windows the level accepted shaded. On NVL64+
 * systems a rack is down when enough of its trays are (the document's
 * units.rack[].intervals say when, with rules and nodes_down): those rack
 * outages are drawn in their own rows, so they are seen even when each
 * tray alone met its target. Then the availability per unit. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonget.h"
#include "core/strbuf.h"
#include "core/timefmt.h"
#include "results/report.h"

/* days since the period's start of an ISO time; NAN when it is not one */
static double day_of(const char *iso, int64_t from_ms)
{
	int64_t ms;
	if (!iso || time_parse_rfc3339(iso, &ms) < 0)
		return NAN;
	return (double)(ms - from_ms) / 86400000.0;
}

static char *joined(const json_t *arr)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	const json_t *e;
	json_array_foreach(arr, i, e)
		if (json_is_string(e))
			sb_addf(&sb, "%s%s", sb.len ? "," : "", json_string_value(e));
	return sb_detach(&sb);
}

static void add_unit(struct rchart *c, const json_t *u, int64_t from_ms, int rack)
{
	const json_t *ivs = json_object_get(u, "intervals");
	size_t s = rchart_series(c, jget_str_or(u, "name", "?"));
	size_t i;
	const json_t *iv;
	json_array_foreach(ivs, i, iv) {
		const char *a = jget_str(iv, "start"), *b = jget_str(iv, "end");
		char *st = joined(json_object_get(iv, rack ? "rules" : "states"));
		char *state = rack ? xasprintf("rack down (%s)", *st ? st : "rule") : xstrdup(*st ? st : "down");
		rchart_span(c, s, day_of(a, from_ms), day_of(b, from_ms), a, b, state);
		free(st);
		free(state);
	}
}

static void windows(struct rchart *c, const json_t *excl, int64_t from_ms)
{
	size_t i;
	const json_t *w;
	json_array_foreach(excl, i, w) {
		if (!json_is_true(json_object_get(w, "applied")))
			continue;
		const char *a = jget_str(w, "start"), *b = jget_str(w, "end");
		char *label = xasprintf("%s %s: %s", jget_str_or(w, "kind", "?"), jget_str_or(w, "scope", "?"),
					jget_str_or(w, "note", ""));
		rchart_window(c, day_of(a, from_ms), day_of(b, from_ms), a, b, label);
		free(label);
	}
}

static struct rchart *timeline(const char *title, const char *rows, const json_t *doc, int64_t from_ms, double days)
{
	struct rchart *c = rchart_new("sla-timeline", RC_TIMELINE, title, "day of the period (d)", rows);
	c->xmin = 0;
	c->xmax = days;
	windows(c, json_object_get(doc, "exclusions"), from_ms);
	return c;
}

static void unit_table(struct rpt *r, const json_t *units, const char *scope)
{
	static const char *const heads[] = { "unit", "availability (%)", "target (%)", "downtime (s)", "excluded (s)",
					     "credit (%)" };
	rpt_table_begin(r, heads, 6);
	size_t i;
	const json_t *u;
	json_array_foreach(json_object_get(units, scope), i, u) {
		if (!strcmp(scope, "node") && !json_array_size(json_object_get(u, "intervals")) &&
		    !json_is_true(json_object_get(u, "below_target")))
			continue;
		char *v[5] = { rpt_raw(json_object_get(u, "availability_pct")), rpt_raw(json_object_get(u, "target_pct")),
			       rpt_raw(json_object_get(u, "downtime_s")), rpt_raw(json_object_get(u, "excluded_s")),
			       rpt_raw(json_object_get(u, "credit_pct")) };
		const char *c[] = { jget_str_or(u, "name", "?"), v[0], v[1], v[2], v[3], v[4] };
		rpt_row(r, json_is_true(json_object_get(u, "below_target")) ? "FAIL" : "PASS", c, 6);
		for (int k = 0; k < 5; k++)
			free(v[k]);
	}
	rpt_table_end(r);
}

void rpt_sla(struct rpt *r, const json_t *doc)
{
	const json_t *per = json_object_get(doc, "period"), *units = json_object_get(doc, "units");
	int64_t from_ms = 0;
	if (time_parse_rfc3339(jget_str_or(per, "from", ""), &from_ms) < 0) {
		rpt_p(r, "The document has no period (period.from): the timeline is not measured.");
		rpt_rows(r, json_object_get(doc, "results"));
		return;
	}
	double days = day_of(jget_str(per, "to"), from_ms);
	char *head = xasprintf("Period %s (%s to %s), level %s, layout %s", jget_str_or(per, "label", "?"),
			       jget_str_or(per, "from", "?"), jget_str_or(per, "to", "?"),
			       jget_str_or(json_object_get(doc, "level"), "name", "?"),
			       jget_str_or(json_object_get(doc, "layout"), "system", "?"));
	rpt_p(r, head);
	free(head);
	struct rchart *rk = timeline("Rack outages", "rack (name)", doc, from_ms, days);
	size_t i, quiet = 0;
	const json_t *u;
	json_array_foreach(json_object_get(units, "rack"), i, u)
		add_unit(rk, u, from_ms, 1);
	rchart_caption(rk, "every rack; a bar is an interval the rack counted as down (units.rack[].intervals); shaded: "
			   "exclusion windows the level accepted");
	rchart_emit(r, rk);
	struct rchart *nd = timeline("Node downtime", "node (name)", doc, from_ms, days);
	json_array_foreach(json_object_get(units, "node"), i, u) {
		if (json_array_size(json_object_get(u, "intervals")))
			add_unit(nd, u, from_ms, 0);
		else
			quiet++;
	}
	char *cap = xasprintf("nodes with downtime (units.node[].intervals); %zu other node%s had none; shaded: "
			      "exclusion windows the level accepted", quiet, quiet == 1 ? "" : "s");
	rchart_caption(nd, cap);
	free(cap);
	rchart_emit(r, nd);
	rpt_h3(r, "Racks");
	unit_table(r, units, "rack");
	rpt_h3(r, "Nodes with downtime or below target");
	unit_table(r, units, "node");
	rpt_h3(r, "Clusters");
	unit_table(r, units, "cluster");
	rpt_h3(r, "Exclusion windows");
	static const char *const wh[] = { "kind", "scope", "start", "end", "applied", "note" };
	rpt_table_begin(r, wh, 6);
	json_array_foreach(json_object_get(doc, "exclusions"), i, u) {
		const char *c[] = { jget_str_or(u, "kind", "?"), jget_str_or(u, "scope", "?"), jget_str_or(u, "start", "?"),
				    jget_str_or(u, "end", "?"), json_is_true(json_object_get(u, "applied")) ? "yes" : "no",
				    jget_str_or(u, "note", "") };
		rpt_row(r, NULL, c, 6);
	}
	rpt_table_end(r);
	rpt_h3(r, "Rows (FAIL, ERROR and WARN first)");
	rpt_rows(r, json_object_get(doc, "results"));
}
