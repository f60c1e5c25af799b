/* The sections of a rating (cmax.rate/1: the tier card, a bar per
 * category with its confidence beside it) and of a comparison of ratings
 * (cmax.rate.compare/1: grouped bars, a group per category, a bar per
 * provider). A category without evidence has a null score in the
 * document: it is drawn and listed as "not measured", never as zero. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonget.h"
#include "core/strbuf.h"
#include "report/html.h"
#include "results/report.h"

static void tier_card(struct rpt *r, const json_t *doc)
{
	char *score = rpt_raw(json_object_get(doc, "score")), *conf = rpt_raw(json_object_get(doc, "confidence"));
	const char *tier = jget_str_or(doc, "tier", "not rated");
	if (r->md) {
		char *t = xasprintf("Tier: %s; score %s; confidence %s. %s", tier, score ? score : "not measured",
				    conf ? conf : "not measured", jget_str_or(doc, "tier_reason", ""));
		rpt_p(r, t);
		free(t);
	} else {
		sb_adds(r->sb, "<div class=\"tier\"><strong>");
		html_esc(r->sb, tier);
		sb_adds(r->sb, "</strong><br>score ");
		html_esc(r->sb, score ? score : "not measured");
		sb_adds(r->sb, ", confidence ");
		html_esc(r->sb, conf ? conf : "not measured");
		sb_adds(r->sb, "<br>");
		html_esc(r->sb, jget_str_or(doc, "tier_reason", ""));
		sb_adds(r->sb, "</div>\n");
	}
	free(score);
	free(conf);
}

void rpt_rate(struct rpt *r, const json_t *doc)
{
	rpt_meta(r, doc);
	tier_card(r, doc);
	struct rchart *c = rchart_new("tier-card", RC_BARS, "Score per category", "category (name)", "score (points of 100)");
	c->ymax = 100;
	size_t s = rchart_series(c, "score"), i;
	const json_t *cat;
	static const char *const heads[] = { "category", "weight", "score", "confidence", "items counted",
					     "items missing" };
	rpt_h3(r, "Categories");
	rpt_table_begin(r, heads, 6);
	json_array_foreach(json_object_get(doc, "categories"), i, cat) {
		const char *name = jget_str_or(cat, "name", jget_str_or(cat, "id", "?"));
		const json_t *sv = json_object_get(cat, "score");
		char *v[5] = { rpt_raw(json_object_get(cat, "weight")), rpt_raw(sv), rpt_raw(json_object_get(cat, "confidence")),
			       rpt_raw(json_object_get(cat, "items_counted")), rpt_raw(json_object_get(cat, "items_missing")) };
		struct rchart_mark *m = rchart_bar(c, s, rchart_cat(c, name), rpt_num(sv), json_is_number(sv) ? v[1] : NULL);
		if (m->yraw && v[2])
			m->note = xasprintf("conf. %s", v[2]);
		const char *cells[] = { name, v[0], v[1], v[2], v[3], v[4] };
		rpt_row(r, NULL, cells, 6);
		for (int k = 0; k < 5; k++)
			free(v[k]);
	}
	rpt_table_end(r);
	rchart_caption(c, "categories[].score, with each category's confidence (0 to 1) above its bar");
	rchart_emit(r, c);
	const json_t *caps = json_object_get(doc, "disqualifiers");
	if (json_array_size(caps)) {
		static const char *const dh[] = { "disqualifier", "state", "cap", "why" };
		rpt_h3(r, "Disqualifiers");
		rpt_table_begin(r, dh, 4);
		json_array_foreach(caps, i, cat) {
			const char *cells[] = { jget_str_or(cat, "name", "?"), jget_str_or(cat, "state", "?"),
						jget_str_or(cat, "cap", ""), jget_str_or(cat, "why", "") };
			rpt_row(r, NULL, cells, 4);
		}
		rpt_table_end(r);
	}
}

void rpt_rate_compare(struct rpt *r, const json_t *doc)
{
	rpt_p(r, jget_str_or(doc, "ranked_by", ""));
	const json_t *cats = json_object_get(doc, "categories"), *provs = json_object_get(doc, "providers");
	static const char *const heads[] = { "rank", "provider", "tier", "score", "confidence" };
	rpt_table_begin(r, heads, 5);
	struct rchart *c = rchart_new("rate-compare", RC_BARS, "Score per category and provider", "category (name)",
				      "score (points of 100)");
	c->ymax = 100;
	size_t i, j;
	const json_t *p, *cat;
	json_array_foreach(cats, j, cat)
		if (json_is_string(cat))
			rchart_cat(c, json_string_value(cat));
	json_array_foreach(provs, i, p) {
		char *v[3] = { rpt_raw(json_object_get(p, "rank")), rpt_raw(json_object_get(p, "score")),
			       rpt_raw(json_object_get(p, "confidence")) };
		const char *name = jget_str_or(p, "provider", "?");
		const char *cells[] = { v[0], name, jget_str(p, "tier"), v[1], v[2] };
		rpt_row(r, NULL, cells, 5);
		char *sname = xasprintf("%s. %s", v[0] ? v[0] : "?", name);
		size_t s = rchart_series(c, sname);
		free(sname);
		for (size_t k = 0; k < c->ncats; k++) {
			const json_t *sv = json_object_get(json_object_get(json_object_get(p, "categories"), c->cats[k]),
							   "score");
			char *y = rpt_raw(sv);
			rchart_bar(c, s, k, rpt_num(sv), json_is_number(sv) ? y : NULL);
			free(y);
		}
		for (int k = 0; k < 3; k++)
			free(v[k]);
	}
	rpt_table_end(r);
	rchart_caption(c, "providers[].categories[CATEGORY].score, in the document's ranking order");
	rchart_emit(r, c);
}
