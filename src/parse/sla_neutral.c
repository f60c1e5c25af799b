/* The neutral formats (docs/sla.md), for histories from anywhere else:
 *
 * CSV (RFC 4180): a header naming the columns, node, start and end
 * required; state, reason, user, cluster optional. Times RFC 3339; an empty
 * end = still down; an empty state = DOWN. node may be a host list or the
 * name of a rack, cluster or site of the layout. Quoted fields may hold
 * commas, doubled quotes and newlines.
 *
 * JSON: {"schema": "cmax.sla-events/1", "events": [{"node", "start",
 * "end", "state", "reason", "user", "cluster"}]} or the bare array; end
 * null or absent = still down. */
#include "parse/sla_parse_util.h"
#include "core/strbuf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- CSV ---- */

struct rec {
	char **f;
	size_t n, cap;
	long line;	/* where the record starts */
};

static void rec_free(struct rec *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->f[i]);
	free(r->f);
	memset(r, 0, sizeof *r);
}

static void rec_push(struct rec *r, struct strbuf *sb)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 8;
		r->f = xrealloc(r->f, r->cap * sizeof *r->f);
	}
	r->f[r->n++] = sb_detach(sb);
	sb_add(sb, "", 0);
}

/* One record from *pos; 0 at the end, -1 on an unterminated quote (*why). */
static int csv_record(const char *buf, size_t len, size_t *pos, long *line, struct rec *r, const char **why)
{
	memset(r, 0, sizeof *r);
	if (*pos >= len)
		return 0;
	r->line = *line;
	struct strbuf sb = STRBUF_INIT;
	sb_add(&sb, "", 0);
	int quoted = 0, was_quoted = 0;
	size_t i = *pos;
	for (; i < len; i++) {
		char c = buf[i];
		if (quoted) {
			if (c == '"') {
				if (i + 1 < len && buf[i + 1] == '"') {
					sb_add(&sb, "\"", 1);
					i++;
				} else {
					quoted = 0;
				}
			} else {
				if (c == '\n')
					(*line)++;
				sb_add(&sb, &c, 1);
			}
			continue;
		}
		if (c == '"' && sb.len == 0 && !was_quoted) {
			quoted = was_quoted = 1;
		} else if (c == ',') {
			rec_push(r, &sb);
			was_quoted = 0;
		} else if (c == '\n') {
			(*line)++;
			i++;
			break;
		} else if (c == '\r' && i + 1 < len && buf[i + 1] == '\n') {
			continue;
		} else {
			sb_add(&sb, &c, 1);
		}
	}
	*pos = i;
	if (quoted) {
		sb_free(&sb);
		rec_free(r);
		*why = "a quoted field is not closed";
		return -1;
	}
	rec_push(r, &sb);
	sb_free(&sb);
	return 1;
}

static int blank_rec(const struct rec *r)
{
	for (size_t i = 0; i < r->n; i++)
		for (const char *c = r->f[i]; *c; c++)
			if (!isspace((unsigned char)*c))
				return 0;
	return 1;
}

enum { K_NODE, K_START, K_END, K_STATE, K_REASON, K_USER, K_CLUSTER, K__COUNT };
static const char *const knames[K__COUNT] = { "node", "start", "end", "state", "reason", "user", "cluster" };

/* One neutral record (CSV row or JSON object) into events. */
static int neutral_one(struct sla_parse *p, const char *src, const char *node, const char *start, const char *end,
		       const char *state, const char *reason, const char *user, const char *cluster)
{
	if (!node || !*node) {
		sla_bad(p, src, "no node");
		return -1;
	}
	sla_ms s = start ? sla_time_parse(start, p->offset_ms) : SLA_NOTIME, e = SLA_OPEN;
	if (s == SLA_NOTIME) {
		sla_bad(p, src, "start '%s' is not an RFC 3339 time", start ? start : "");
		return -1;
	}
	if (end && *end && (e = sla_time_parse(end, p->offset_ms)) == SLA_NOTIME) {
		sla_bad(p, src, "end '%s' is not an RFC 3339 time (empty = still down)", end);
		return -1;
	}
	if (e != SLA_OPEN && e < s) {
		sla_bad(p, src, "end %s is before start %s", end, start);
		return -1;
	}
	const char *why;
	json_t *names = sla_node_names(node, &why);
	if (!names) {
		sla_bad(p, src, "node '%s': %s", node, why);
		return -1;
	}
	size_t i;
	json_t *v;
	json_array_foreach(names, i, v)
		sla_events_add(p->out, json_string_value(v), cluster && *cluster ? cluster : NULL, s, e,
			       state && *state ? state : "DOWN", reason, user && *user ? user : NULL, src);
	json_decref(names);
	sla_seen(p, s);
	sla_seen(p, e);
	p->used++;
	return 0;
}

static int parse_csv(const char *buf, size_t len, struct sla_parse *p, char **err)
{
	size_t pos = 0;
	long line = 1;
	struct rec r;
	const char *why = NULL;
	int col[K__COUNT];
	size_t ncols = 0;
	int rc;
	/* the header: the first non-blank record */
	for (;;) {
		rc = csv_record(buf, len, &pos, &line, &r, &why);
		if (rc <= 0) {
			*err = rc < 0 ? xasprintf("%s:%ld: %s", p->file, line, why)
				      : xasprintf("%s: no header line (node,start,end,state,reason)", p->file);
			return -1;
		}
		if (!blank_rec(&r))
			break;
		rec_free(&r);
	}
	for (int k = 0; k < K__COUNT; k++)
		col[k] = -1;
	for (size_t i = 0; i < r.n; i++) {
		char *h = str_trim(r.f[i]);
		for (char *c = h; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		for (int k = 0; k < K__COUNT; k++)
			if (!strcmp(h, knames[k]))
				col[k] = (int)i;
	}
	ncols = r.n;
	long hline = r.line;
	rec_free(&r);
	if (col[K_NODE] < 0 || col[K_START] < 0 || col[K_END] < 0) {
		*err = xasprintf("%s:%ld: the header needs node, start and end columns (node,start,end,state,reason)",
				 p->file, hline);
		return -1;
	}
	while ((rc = csv_record(buf, len, &pos, &line, &r, &why)) != 0) {
		if (rc < 0) {
			char *src = sla_src_line(p, line);
			p->records++;
			sla_bad(p, src, "%s", why);
			free(src);
			break;
		}
		if (blank_rec(&r)) {
			rec_free(&r);
			continue;
		}
		p->records++;
		char *src = sla_src_line(p, r.line);
		if (r.n != ncols) {
			sla_bad(p, src, "%zu fields, the header has %zu (quote a reason that holds a comma)", r.n, ncols);
		} else {
			const char *v[K__COUNT];
			for (int k = 0; k < K__COUNT; k++)
				v[k] = col[k] >= 0 ? str_trim(r.f[col[k]]) : NULL;
			neutral_one(p, src, v[K_NODE], v[K_START], v[K_END], v[K_STATE], v[K_REASON], v[K_USER],
				    v[K_CLUSTER]);
		}
		free(src);
		rec_free(&r);
	}
	return 0;
}

/* ---- JSON ---- */

static int parse_json(const char *buf, size_t len, struct sla_parse *p, char **err)
{
	json_error_t je;
	json_t *doc = json_loadb(buf, len, 0, &je);
	if (!doc) {
		*err = xasprintf("%s: not JSON (line %d: %s)", p->file, je.line, je.text);
		return -1;
	}
	const json_t *evs = json_is_array(doc) ? doc : json_object_get(doc, "events");
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	if (!json_is_array(evs)) {
		*err = xasprintf("%s: no \"events\" array (cmax.sla-events/1)", p->file);
		json_decref(doc);
		return -1;
	}
	if (schema && strcmp(schema, "cmax.sla-events/1")) {
		*err = xasprintf("%s: schema %s, this cmax reads cmax.sla-events/1", p->file, schema);
		json_decref(doc);
		return -1;
	}
	const char *base = json_is_array(doc) ? "" : "/events";
	size_t i;
	const json_t *e;
	json_array_foreach(evs, i, e) {
		p->records++;
		char *src = sla_src_ptr(p, "%s/%zu", base, i);
		if (!json_is_object(e)) {
			sla_bad(p, src, "not an object");
			free(src);
			continue;
		}
		const json_t *end = json_object_get(e, "end");
		const char *bad = NULL;
		for (int k = 0; k < K__COUNT && !bad; k++) {
			const json_t *v = json_object_get(e, knames[k]);
			if (v && !json_is_string(v) && !(json_is_null(v) && k != K_NODE && k != K_START))
				bad = knames[k];
		}
		if (bad) {
			sla_bad(p, src, "\"%s\" is not a string", bad);
			free(src);
			continue;
		}
		neutral_one(p, src, json_string_value(json_object_get(e, "node")),
			    json_string_value(json_object_get(e, "start")), json_is_string(end) ? json_string_value(end) : NULL,
			    json_string_value(json_object_get(e, "state")), json_string_value(json_object_get(e, "reason")),
			    json_string_value(json_object_get(e, "user")), json_string_value(json_object_get(e, "cluster")));
		free(src);
	}
	json_decref(doc);
	return 0;
}

/* ---- detection ---- */

/* A header with node and start, comma-separated (a '|' line is sacctmgr's,
 * earlier in the table, or nothing cmax reads). */
static int detect_csv(const struct sla_sniff *s)
{
	return !s->json && !strchr(s->lower, '|') && strstr(s->lower, "node") && strstr(s->lower, "start") &&
	       strchr(s->lower, ',');
}

/* The schema or an "events" array; a bare array of {node, start}, or an
 * empty one. */
static int detect_json(const struct sla_sniff *s)
{
	if (json_is_object(s->doc)) {
		const char *schema = json_string_value(json_object_get(s->doc, "schema"));
		return (schema && str_starts(schema, "cmax.sla-events/")) || json_is_array(json_object_get(s->doc, "events"));
	}
	if (!json_is_array(s->doc))
		return 0;
	const json_t *it = json_array_get(s->doc, 0);
	return !it || (json_object_get(it, "node") && json_object_get(it, "start"));
}

const struct sla_parser sla_parser_csv = { SF_CSV, detect_csv, parse_csv };
const struct sla_parser sla_parser_json = { SF_JSON, detect_json, parse_json };
