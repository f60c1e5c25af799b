/* The graded rows of any cmax result document (see docrows.h). */
#include "report/docrows.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <string.h>

/* An evidence item can hold a whole tool output; a CI page shows a line of it. */
#define DETAIL_VALUE_MAX 2000

static void add_row(struct doc_rows *r, const char *group, const char *id, const char *host, enum status st,
		    const char *summary, char *detail, double time_s)
{
	r->v = xrealloc(r->v, (r->n + 1) * sizeof *r->v);
	struct doc_row *d = &r->v[r->n++];
	d->group = xstrdup(group);
	d->name = host && *host ? xasprintf("%s (%s)", id, host) : xstrdup(id);
	d->status = st;
	d->summary = xstrdup(summary ? summary : "");
	d->detail = detail ? detail : xstrdup("");
	d->time_s = time_s;
	r->counts[st]++;
}

static enum status status_of(const json_t *o, const char *key)
{
	enum status st;
	const char *s = jget_str(o, key);
	if (s && !strcmp(s, "INCOMPLETE"))
		return ST_ERROR;
	return s && status_parse(s, &st) == 0 ? st : ST_ERROR;
}

/* "label: value" on its own line: a string as it is, any other value as compact JSON, cut. */
static void add_value(struct strbuf *sb, const char *label, const json_t *v)
{
	if (!v || json_is_null(v))
		return;
	char *text = json_is_string(v) ? xstrdup(json_string_value(v))
				       : json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	if (!text || !*text) {
		free(text);
		return;
	}
	char *cut = str_excerpt(text, strlen(text), DETAIL_VALUE_MAX);
	sb_addf(sb, "%s: %s\n", label, cut);
	free(cut);
	free(text);
}

static char *row_detail(const json_t *row)
{
	struct strbuf sb = STRBUF_INIT;
	add_value(&sb, "observed", json_object_get(row, "observed"));
	add_value(&sb, "expected", json_object_get(row, "expected"));
	add_value(&sb, "remediation", json_object_get(row, "remediation"));
	add_value(&sb, "reproduce", json_object_get(row, "reproduce"));
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(row, "evidence"), i, e)
		add_value(&sb, "evidence", e);
	return sb_detach(&sb);
}

/* results[] of the documents graded in the one result model (core/result.h) */
static void read_results(struct doc_rows *r, const json_t *doc, const char *kind, int by_profile)
{
	size_t i;
	json_t *row;
	json_array_foreach(json_object_get(doc, "results"), i, row) {
		const char *prof = jget_str(row, "profile");
		char *group = by_profile && prof ? xasprintf("%s.%s", kind, prof) : xstrdup(kind);
		add_row(r, group, jget_str_or(row, "id", "row"), jget_str(row, "host"), status_of(row, "status"),
			jget_str(row, "summary"), row_detail(row), -1);
		free(group);
	}
	json_t *v = json_object_get(doc, "verdict");
	if (!json_array_size(json_object_get(doc, "results")) && json_is_object(v))
		add_row(r, kind, "verdict", jget_str(doc, "node"), status_of(v, "status"), jget_str(v, "summary"), NULL,
			-1);
}

static void read_accept(struct doc_rows *r, const json_t *doc)
{
	size_t i, j;
	json_t *t, *c;
	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		struct strbuf sb = STRBUF_INIT;
		json_array_foreach(json_object_get(t, "criteria"), j, c)
			sb_addf(&sb, "%s: %s %s\n", jget_str_or(c, "criterion", "?"), jget_str_or(c, "status", "?"),
				jget_str_or(c, "why", ""));
		add_value(&sb, "command", json_object_get(t, "command"));
		json_array_foreach(json_object_get(t, "documents"), j, c)
			add_value(&sb, "document", c);
		json_t *run = json_object_get(t, "run");
		char *group = xasprintf("accept.%s", jget_str_or(t, "group", "tests"));
		add_row(r, group, jget_str_or(t, "id", "test"), NULL, status_of(t, "status"), jget_str(t, "summary"),
			sb_detach(&sb), jget_num(run, "elapsed_s", -1));
		free(group);
	}
}

/* A rating that recommends against the provider is what a gate on a rating stops. */
static enum status tier_status(const char *tier)
{
	if (!tier)
		return ST_ERROR;
	return str_starts(tier, "Not Recommended") ? ST_FAIL : ST_PASS;
}

static char *rating_summary(const json_t *rating)
{
	json_t *score = json_object_get(rating, "score");
	const char *reason = jget_str(rating, "tier_reason");
	char sc[32] = "no score";
	if (json_is_number(score))
		snprintf(sc, sizeof sc, "score %.1f", json_number_value(score));
	return xasprintf("%s, %s%s%s", jget_str_or(rating, "tier", "no tier"), sc, reason ? ": " : "",
			 reason ? reason : "");
}

static void read_rate(struct doc_rows *r, const json_t *doc)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *d;
	json_array_foreach(json_object_get(doc, "disqualifiers"), i, d)
		if (!strcmp(jget_str_or(d, "state", ""), "applied"))
			sb_addf(&sb, "disqualifier %s: %s\n", jget_str_or(d, "name", "?"), jget_str_or(d, "why", ""));
	add_value(&sb, "tier_uncapped", json_object_get(doc, "tier_uncapped"));
	add_value(&sb, "confidence", json_object_get(doc, "confidence"));
	char *summary = rating_summary(doc);
	add_row(r, "rate", jget_str_or(doc, "provider", "rating"), NULL, tier_status(jget_str(doc, "tier")), summary,
		sb_detach(&sb), -1);
	free(summary);
}

static void read_compare(struct doc_rows *r, const json_t *doc)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(doc, "providers"), i, p) {
		/* the provider's own rating holds the tier's reason; the entry itself the tier and score */
		const json_t *rating = json_object_get(p, "rating");
		char *summary = rating_summary(json_is_object(rating) ? rating : p);
		long long rank = jget_int(p, "rank", (long long)i + 1);
		char *name = xasprintf("%lld. %s", rank, jget_str_or(p, "provider", "?"));
		add_row(r, "rate.compare", name, NULL, tier_status(jget_str(p, "tier")), summary, NULL, -1);
		free(name);
		free(summary);
	}
}

void doc_rows_read(const json_t *doc, struct doc_rows *out)
{
	memset(out, 0, sizeof *out);
	const char *schema = jget_str_or(doc, "schema", "");
	out->schema = schema;
	if (!strcmp(schema, "cmax.audit.results/1")) {
		out->suite = xasprintf("cmax audit %s", jget_str_or(doc, "profile", "full"));
		read_results(out, doc, "audit", 1);
	} else if (!strcmp(schema, "cmax.bench.results/1")) {
		out->suite = xasprintf("cmax bench %s", jget_str_or(doc, "benchmark", "?"));
		char *kind = xasprintf("bench.%s", jget_str_or(doc, "benchmark", "?"));
		read_results(out, doc, kind, 0);
		free(kind);
	} else if (!strcmp(schema, "cmax.inject/1") || !strcmp(schema, "cmax.reboot-test/1") ||
		   !strcmp(schema, "cmax.sla/1")) {
		const char *kind = schema[5] == 'i' ? "inject" : schema[5] == 'r' ? "reboot-test" : "sla";
		out->suite = xasprintf("cmax %s", kind);
		read_results(out, doc, kind, 0);
	} else if (!strcmp(schema, "cmax.accept/1")) {
		out->suite = xstrdup("cmax accept");
		read_accept(out, doc);
	} else if (!strcmp(schema, "cmax.rate/1")) {
		out->suite = xstrdup("cmax rate");
		read_rate(out, doc);
	} else if (!strcmp(schema, "cmax.rate.compare/1")) {
		out->suite = xstrdup("cmax rate --compare");
		read_compare(out, doc);
	} else {
		out->suite = xstrdup("cmax");
	}
}

void doc_rows_release(struct doc_rows *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].group);
		free(r->v[i].name);
		free(r->v[i].summary);
		free(r->v[i].detail);
	}
	free(r->v);
	free(r->suite);
	memset(r, 0, sizeof *r);
}
