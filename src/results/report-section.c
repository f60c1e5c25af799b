/* Text, tables and the common parts of a document's section, in HTML or
 * Markdown (results/report.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonget.h"
#include "core/strbuf.h"
#include "report/html.h"
#include "report/markdown.h"
#include "report/svg.h"
#include "results/report.h"

void rpt_section_begin(struct rpt *r, const char *schema, const char *source, const char *title)
{
	if (r->md) {
		sb_adds(r->sb, "\n## ");
		md_esc(r->sb, title);
		sb_adds(r->sb, "\n\nSchema `");
		md_esc(r->sb, schema);
		sb_adds(r->sb, "`, from ");
		md_esc(r->sb, source);
		sb_adds(r->sb, "\n");
		return;
	}
	sb_adds(r->sb, "<section class=\"run\"");
	html_attr(r->sb, "data-schema", schema);
	html_attr(r->sb, "data-source", source);
	sb_adds(r->sb, ">\n<h2>");
	html_esc(r->sb, title);
	sb_adds(r->sb, "</h2>\n<p>Schema <code>");
	html_esc(r->sb, schema);
	sb_adds(r->sb, "</code>, from <code>");
	html_esc(r->sb, source);
	sb_adds(r->sb, "</code></p>\n");
}

void rpt_section_end(struct rpt *r)
{
	if (!r->md)
		sb_adds(r->sb, "</section>\n");
}

void rpt_h3(struct rpt *r, const char *text)
{
	if (r->md) {
		sb_adds(r->sb, "\n### ");
		md_esc(r->sb, text);
		sb_adds(r->sb, "\n");
		return;
	}
	sb_adds(r->sb, "<h3>");
	html_esc(r->sb, text);
	sb_adds(r->sb, "</h3>\n");
}

void rpt_p(struct rpt *r, const char *text)
{
	if (r->md) {
		sb_adds(r->sb, "\n");
		md_esc(r->sb, text);
		sb_adds(r->sb, "\n");
		return;
	}
	sb_adds(r->sb, "<p>");
	html_esc(r->sb, text);
	sb_adds(r->sb, "</p>\n");
}

/* cls: the HTML table's class (the style sheet wraps long cells of "rows" and "meta") */
static void table_begin(struct rpt *r, const char *cls, const char *const *heads, size_t n)
{
	if (r->md)
		md_table_head(r->sb, heads, n);
	else
		html_table_begin(r->sb, cls, heads, n);
}

void rpt_table_begin(struct rpt *r, const char *const *heads, size_t n)
{
	table_begin(r, NULL, heads, n);
}

void rpt_row(struct rpt *r, const char *status, const char *const *cells, size_t n)
{
	if (r->md)
		md_table_row(r->sb, cells, n);
	else if (status)
		html_table_row_status(r->sb, status, cells, n);
	else
		html_table_row(r->sb, cells, n);
}

void rpt_table_end(struct rpt *r)
{
	if (!r->md)
		html_table_end(r->sb);
}

char *rpt_raw(const json_t *v)
{
	char buf[64];
	if (json_is_integer(v))
		return xasprintf("%lld", (long long)json_integer_value(v));
	if (json_is_real(v)) {
		svg_num(buf, sizeof buf, json_real_value(v));
		return xstrdup(buf);
	}
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	return NULL;
}

double rpt_num(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* hosts of a document's target: {"hosts": [...]} or a string, else NULL (malloc'd) */
static char *target_text(const json_t *t)
{
	if (json_is_string(t))
		return xstrdup(json_string_value(t));
	const json_t *h = json_object_get(t, "hosts");
	if (!json_is_array(h)) {
		const char *host = jget_str(t, "host");
		return host ? xstrdup(host) : NULL;
	}
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	const json_t *e;
	json_array_foreach(h, i, e) {
		if (!json_is_string(e))
			continue;
		if (i >= 16) {
			sb_addf(&sb, " and %zu more", json_array_size(h) - i);
			break;
		}
		sb_addf(&sb, "%s%s", sb.len ? ", " : "", json_string_value(e));
	}
	return sb_detach(&sb);
}

void rpt_meta(struct rpt *r, const json_t *doc)
{
	static const char *const heads[] = { "field", "value" };
	static const char *const keys[] = { "command", "started_at", "finished_at", "tool_version", "profile",
					    "benchmark", "node", "provider" };
	table_begin(r, "meta", heads, 2);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		char *v = rpt_raw(json_object_get(doc, keys[i]));
		if (v) {
			const char *c[] = { keys[i], v };
			rpt_row(r, NULL, c, 2);
		}
		free(v);
	}
	char *t = target_text(json_object_get(doc, "target"));
	if (t) {
		const char *c[] = { "target", t };
		rpt_row(r, NULL, c, 2);
	}
	free(t);
	rpt_table_end(r);
}

/* observed / expected as one short line */
static char *brief(const json_t *v)
{
	if (!v || json_is_null(v))
		return NULL;
	char *s = json_is_string(v) ? xstrdup(json_string_value(v)) : json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	if (!s)
		return NULL;
	char *e = str_excerpt(s, strlen(s), 400);
	free(s);
	return e;
}

/* the order rows are shown in: FAIL and ERROR, then WARN, then the rest */
static int look_rank(const char *st)
{
	if (st && (!strcmp(st, "FAIL") || !strcmp(st, "ERROR")))
		return 0;
	return st && !strcmp(st, "WARN") ? 1 : 2;
}

void rpt_rows(struct rpt *r, const json_t *rows)
{
	if (!json_is_array(rows) || !json_array_size(rows)) {
		rpt_p(r, "No result rows.");
		return;
	}
	static const char *const heads[] = { "status", "id", "host", "summary", "observed", "expected" };
	table_begin(r, "rows", heads, 6);
	for (int pass = 0; pass < 3; pass++) {
		size_t i;
		const json_t *row;
		json_array_foreach(rows, i, row) {
			const char *st = jget_str(row, "status");
			if (look_rank(st) != pass)
				continue;
			char *ob = brief(json_object_get(row, "observed")), *ex = brief(json_object_get(row, "expected"));
			const char *c[] = { st ? st : "?", jget_str_or(row, "id", ""), jget_str_or(row, "host", ""),
					    jget_str_or(row, "summary", ""), ob ? ob : "", ex ? ex : "" };
			rpt_row(r, st ? st : "none", c, 6);
			free(ob);
			free(ex);
		}
	}
	rpt_table_end(r);
}

void rpt_generic(struct rpt *r, const json_t *doc)
{
	rpt_meta(r, doc);
	const json_t *v = json_object_get(doc, "verdict");
	if (json_is_object(v)) {
		char *t = xasprintf("Verdict: %s: %s", jget_str_or(v, "status", jget_str_or(v, "verdict", "?")),
				    jget_str_or(v, "summary", ""));
		rpt_p(r, t);
		free(t);
	}
	rpt_rows(r, json_object_get(doc, "results"));
}
