/* Shared by the cmax sla parsers (parse/sla_parse_util.h): the per-file
 * bookkeeping, lines, node names, source references, and the tracker that
 * pairs "entered state" with "left state" records. */
#include "parse/sla_parse_util.h"
#include "core/strbuf.h"
#include "parse/hostlist.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- the file's bookkeeping ---- */

static void add_item(json_t *arr, const char *key, const char *source, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	sb_vaddf(&sb, fmt, ap);
	/* outside data: JSON output must stay valid */
	const char *s = source ? source : "";
	char *why = str_sanitize(sb_str(&sb), sb.len), *src = str_sanitize(s, strlen(s));
	json_t *o = json_object();
	json_object_set_new(o, "source", json_string(src));
	json_object_set_new(o, key, json_string(why));
	json_array_append_new(arr, o);
	free(why);
	free(src);
	sb_free(&sb);
}

void sla_bad(struct sla_parse *p, const char *source, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_item(p->malformed, "why", source, fmt, ap);
	va_end(ap);
}

void sla_note(struct sla_parse *p, const char *source, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_item(p->notes, "note", source, fmt, ap);
	va_end(ap);
}

void sla_seen(struct sla_parse *p, sla_ms t)
{
	if (t == SLA_NOTIME || t == SLA_OPEN || sla_time_insane(t))
		return;
	if (p->first == SLA_NOTIME || t < p->first)
		p->first = t;
	if (p->last == SLA_NOTIME || t > p->last)
		p->last = t;
}

/* ---- malformed records ---- */

size_t sla_drop_insane(struct sla_parse *p, size_t first)
{
	struct sla_events *e = p->out;
	size_t kept = first, dropped = 0;
	char *last_src = NULL;
	for (size_t i = first; i < e->n; i++) {
		struct sla_event *x = &e->v[i];
		char a[40], b[40], why[200] = "";
		const char *ws = sla_time_insane(x->start), *we = sla_time_insane(x->end);
		sla_time_fmt(x->start, a, sizeof a);
		sla_time_fmt(x->end, b, sizeof b);
		if (ws)
			snprintf(why, sizeof why, "start %s is %s", a, ws);
		else if (we)
			snprintf(why, sizeof why, "end %s is %s", b, we);
		else if (x->end != SLA_OPEN && x->end < x->start)
			snprintf(why, sizeof why, "end %s is before start %s", b, a);
		else if (x->end != SLA_OPEN && x->end - x->start > SLA_MAX_INTERVAL_MS)
			snprintf(why, sizeof why, "%s to %s is longer than ten years: not a record of one outage", a, b);
		if (!*why) {
			if (kept != i)
				e->v[kept] = *x;
			kept++;
			continue;
		}
		/* one record can give several events (a host list): list it once */
		if (!last_src || strcmp(last_src, x->source)) {
			sla_bad(p, x->source, "%s%s%s: malformed, not counted", *x->node ? x->node : "", *x->node ? ": " : "", why);
			if (p->used > 0)
				p->used--;
			free(last_src);
			last_src = xstrdup(x->source);
		}
		sla_event_release(x);
		dropped++;
	}
	free(last_src);
	e->n = kept;
	return dropped;
}

/* ---- lines, names, sources ---- */

int sla_next_line(const char *buf, size_t len, size_t *pos, const char **line, size_t *n)
{
	if (*pos >= len)
		return 0;
	const char *s = buf + *pos;
	const char *nl = memchr(s, '\n', len - *pos);
	size_t k = nl ? (size_t)(nl - s) : len - *pos;
	*pos += k + (nl ? 1 : 0);
	if (k && s[k - 1] == '\r')
		k--;
	*line = s;
	*n = k;
	return 1;
}

int sla_next_text_line(const char *buf, size_t len, size_t *pos, long *lineno, const char **line, size_t *n)
{
	while (sla_next_line(buf, len, pos, line, n)) {
		++*lineno;
		for (size_t k = 0; k < *n; k++)
			if (!isspace((unsigned char)(*line)[k]))
				return 1;
	}
	return 0;
}

json_t *sla_node_names(const char *expr, const char **why)
{
	*why = NULL;
	if (!strpbrk(expr, "[],")) {
		json_t *a = json_array();
		char *c = str_sanitize(expr, strlen(expr));
		json_array_append_new(a, json_string(c));
		free(c);
		return a;
	}
	int st = HOSTLIST_OK;
	json_t *a = hostlist_expand_json(expr, strlen(expr), 100000, &st);
	if (st != HOSTLIST_OK || json_array_size(a) == 0) {
		json_decref(a);
		*why = st == HOSTLIST_TRUNCATED ? "the host list names more than 100000 nodes" : "not a valid host list";
		return NULL;
	}
	return a;
}

char *sla_src_line(const struct sla_parse *p, long line)
{
	return xasprintf("%s:%ld", p->file, line);
}

char *sla_src_ptr(const struct sla_parse *p, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	sb_addf(&sb, "%s#", p->file);
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	return sb_detach(&sb);
}

/* ---- tracker: a small chained hash on (node, state) ---- */

#define NBUCKETS 4096

struct track {
	char *node, *state, *reason, *source;
	sla_ms start;
	int open;
	struct track *next;
	struct track *all;	/* insertion order, for a stable finish */
};

struct sla_tracks {
	struct track *b[NBUCKETS];
	struct track *head, **tail;
};

struct sla_tracks *sla_tracks_new(void)
{
	struct sla_tracks *t = xcalloc(1, sizeof *t);
	t->tail = &t->head;
	return t;
}

void sla_tracks_free(struct sla_tracks *t)
{
	if (!t)
		return;
	struct track *k = t->head;
	while (k) {
		struct track *n = k->all;
		free(k->node);
		free(k->state);
		free(k->reason);
		free(k->source);
		free(k);
		k = n;
	}
	free(t);
}

static unsigned hash(const char *a, const char *b)
{
	unsigned h = 2166136261u;
	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 16777619u;
	h = (h ^ 0xffu) * 16777619u;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 16777619u;
	return h % NBUCKETS;
}

static struct track *find(const struct sla_tracks *t, const char *node, const char *state)
{
	for (struct track *k = t->b[hash(node, state)]; k; k = k->next)
		if (!strcmp(k->node, node) && !strcmp(k->state, state))
			return k;
	return NULL;
}

void sla_tracks_set(struct sla_tracks *t, const char *node, const char *state, sla_ms at, const char *reason,
		    const char *source)
{
	struct track *k = find(t, node, state);
	if (!k) {
		k = xcalloc(1, sizeof *k);
		k->node = xstrdup(node);
		k->state = xstrdup(state);
		unsigned h = hash(node, state);
		k->next = t->b[h];
		t->b[h] = k;
		*t->tail = k;
		t->tail = &k->all;
	}
	if (k->open) {
		if ((!k->reason || !*k->reason) && reason && *reason) {
			free(k->reason);
			k->reason = xstrdup(reason);
		}
		return;
	}
	k->open = 1;
	k->start = at;
	free(k->reason);
	free(k->source);
	k->reason = xstrdup(reason ? reason : "");
	k->source = xstrdup(source);
}

int sla_tracks_open(const struct sla_tracks *t, const char *node, const char *state)
{
	const struct track *k = find(t, node, state);
	return k && k->open;
}

int sla_tracks_clear(struct sla_tracks *t, struct sla_parse *p, const char *node, const char *state, sla_ms at,
		     const char *source, int count_unknown_start)
{
	struct track *k = find(t, node, state);
	if (k && k->open && at < k->start) {
		char a[40], b[40];
		sla_time_fmt(k->start, a, sizeof a);
		sla_time_fmt(at, b, sizeof b);
		sla_bad(p, source, "%s left %s at %s, before entering it at %s (%s): time goes backwards, not counted",
			node, state, b, a, k->source);
		k->open = 0;
		return 0;
	}
	if (k && k->open) {
		struct sla_event *e =
			sla_events_add(p->out, node, NULL, k->start, at, state, k->reason, NULL, k->source);
		e->end_source = xstrdup(source);
		k->open = 0;
		return 1;
	}
	if (!count_unknown_start || p->first == SLA_NOTIME || at < p->first) {
		sla_note(p, source, "%s left %s without a record of entering it here: start unknown, not counted",
			 node, state);
		return 0;
	}
	struct sla_event *e = sla_events_add(p->out, node, NULL, p->first, at, state, "", NULL, source);
	e->end_source = xstrdup(source);
	e->start_before_log = 1;
	e->note = xasprintf("entered %s before the log began: counted from the log's first record", state);
	sla_note(p, source, "%s left %s without a record of entering it: counted from the log's first record (a lower bound)",
		 node, state);
	return 1;
}

void sla_tracks_finish(struct sla_tracks *t, struct sla_parse *p)
{
	for (struct track *k = t->head; k; k = k->all) {
		if (!k->open)
			continue;
		struct sla_event *e =
			sla_events_add(p->out, k->node, NULL, k->start, SLA_OPEN, k->state, k->reason, NULL, k->source);
		e->note = xstrdup("still in that state when the log ended");
		k->open = 0;
	}
}
