/* The neutral event model, per-file parse bookkeeping, names, format
 * detection and the dispatcher to the parsers. */
#include "model.h"
#include "core/strbuf.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Every string from outside data goes through here: JSON output must stay valid. */
static char *clean(const char *s)
{
	return s ? str_sanitize(s, strlen(s)) : NULL;
}

struct sla_event *sla_events_add(struct sla_events *e, const char *node, const char *cluster, sla_ms start,
				 sla_ms end, const char *state, const char *reason, const char *user,
				 const char *source)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 32;
		e->v = xrealloc(e->v, e->cap * sizeof *e->v);
	}
	struct sla_event *x = &e->v[e->n++];
	memset(x, 0, sizeof *x);
	x->node = clean(node ? node : "");
	x->cluster = clean(cluster);
	x->start = start;
	x->end = end;
	x->state = clean(state ? state : "");
	x->reason = clean(reason ? reason : "");
	x->user = clean(user);
	x->source = clean(source ? source : "");
	return x;
}

void sla_events_free(struct sla_events *e)
{
	for (size_t i = 0; i < e->n; i++) {
		struct sla_event *x = &e->v[i];
		free(x->node);
		free(x->cluster);
		free(x->state);
		free(x->reason);
		free(x->user);
		free(x->source);
		free(x->end_source);
		free(x->note);
	}
	free(e->v);
	memset(e, 0, sizeof *e);
}

void sla_parse_init(struct sla_parse *p, const char *file, struct sla_events *out, sla_ms offset_ms)
{
	memset(p, 0, sizeof *p);
	p->file = file;
	p->out = out;
	p->offset_ms = offset_ms;
	p->malformed = json_array();
	p->notes = json_array();
	p->first = p->last = SLA_NOTIME;
}

void sla_parse_release(struct sla_parse *p)
{
	json_decref(p->malformed);
	json_decref(p->notes);
	p->malformed = p->notes = NULL;
}

static void add_item(json_t *arr, const char *key, const char *source, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	sb_vaddf(&sb, fmt, ap);
	char *why = str_sanitize(sb_str(&sb), sb.len);
	char *src = clean(source ? source : "");
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

const char *sla_time_insane(sla_ms t)
{
	if (t == SLA_NOTIME || t == SLA_OPEN)
		return NULL;
	if (t < SLA_SANE_FROM)
		return "before 2000-01-01 (a clock that was never set, or a corrupted time)";
	if (t >= SLA_SANE_TO)
		return "in 2100 or later (a typo in the year, or a corrupted time)";
	return NULL;
}

const char *sla_secs_insane(double v, double lo, double hi)
{
	if (!isfinite(v))
		return "not a finite number";
	if (v < lo)
		return lo == 0 ? "negative" : "below the range a record can hold";
	if (v > hi)
		return "beyond the range a record can hold";
	return NULL;
}

static void event_release(struct sla_event *x)
{
	free(x->node);
	free(x->cluster);
	free(x->state);
	free(x->reason);
	free(x->user);
	free(x->source);
	free(x->end_source);
	free(x->note);
}

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
		event_release(x);
		dropped++;
	}
	free(last_src);
	e->n = kept;
	return dropped;
}

/* ---- names ---- */

static const char *const fmt_names[SF__COUNT] = {
	"auto", "sacctmgr", "slurmctld-log", "k8s-events", "k8s-nodes", "cmax-timeline", "csv", "json",
};

const char *sla_format_name(enum sla_format f)
{
	return (unsigned)f < SF__COUNT ? fmt_names[f] : "?";
}

int sla_format_parse(const char *s, enum sla_format *f)
{
	for (int i = 0; i < SF__COUNT; i++)
		if (s && !strcmp(s, fmt_names[i])) {
			*f = (enum sla_format)i;
			return 0;
		}
	return -1;
}

static const char *const sys_names[SYS__COUNT] = { "hgx", "nvl72" };

const char *sla_system_name(enum sla_system s)
{
	return (unsigned)s < SYS__COUNT ? sys_names[s] : "?";
}

int sla_system_parse(const char *s, enum sla_system *out)
{
	for (int i = 0; i < SYS__COUNT; i++)
		if (s && !strcasecmp(s, sys_names[i])) {
			*out = (enum sla_system)i;
			return 0;
		}
	return -1;
}

static const char *const scope_names[SC__COUNT] = { "node", "rack", "cluster", "site" };

const char *sla_scope_name(enum sla_scope s)
{
	return (unsigned)s < SC__COUNT ? scope_names[s] : "?";
}

static const char *const class_names[CL__COUNT] = { "down", "drain", "up", "not_counted", "unmapped" };

const char *sla_class_name(enum sla_class c)
{
	return (unsigned)c < CL__COUNT ? class_names[c] : "?";
}

static const char *const issue_names[IS__COUNT] = {
	"outside_period", "clipped", "never_came_back", "merged", "unknown_node", "not_down", "unmapped_state",
	"customer_initiated", "empty_interval", "cluster_record", "exclusion_not_accepted", "exclusion_no_nodes",
};

const char *sla_issue_name(enum sla_issue_kind k)
{
	return (unsigned)k < IS__COUNT ? issue_names[k] : "?";
}

/* ---- ids ---- */

void sla_ids_add(struct sla_ids *a, size_t v)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 4;
		a->v = xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n++] = v;
}

void sla_ids_addall(struct sla_ids *a, const struct sla_ids *b)
{
	for (size_t i = 0; i < b->n; i++)
		sla_ids_add(a, b->v[i]);
}

static int cmp_size(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	return a < b ? -1 : a > b;
}

void sla_ids_uniq(struct sla_ids *a)
{
	if (a->n < 2)
		return;
	qsort(a->v, a->n, sizeof *a->v, cmp_size);
	size_t w = 1;
	for (size_t i = 1; i < a->n; i++)
		if (a->v[i] != a->v[w - 1])
			a->v[w++] = a->v[i];
	a->n = w;
}

void sla_ids_free(struct sla_ids *a)
{
	free(a->v);
	memset(a, 0, sizeof *a);
}

/* ---- detection ---- */

static const char *skip_ws(const char *s, const char *end)
{
	while (s < end && isspace((unsigned char)*s))
		s++;
	return s;
}

static enum sla_format detect_json(const char *buf, size_t len, const char **why)
{
	json_error_t je;
	json_t *doc = json_loadb(buf, len, 0, &je);
	enum sla_format f = SF_UNKNOWN;
	if (!doc) {
		*why = "looks like JSON but does not parse";
		return SF_UNKNOWN;
	}
	const json_t *items = NULL;
	if (json_is_object(doc)) {
		const char *schema = json_string_value(json_object_get(doc, "schema"));
		const char *kind = json_string_value(json_object_get(doc, "kind"));
		items = json_object_get(doc, "items");
		if (schema && (str_starts(schema, "cmax.inject/") || str_starts(schema, "cmax.reboot-test/")))
			f = SF_TIMELINE;
		else if ((schema && str_starts(schema, "cmax.sla-events/")) || json_is_array(json_object_get(doc, "events")))
			f = SF_JSON;
		else if (kind && (!strcmp(kind, "EventList") || !strcmp(kind, "Event")))
			f = SF_K8S_EVENTS;
		else if (kind && (!strcmp(kind, "NodeList") || !strcmp(kind, "Node")))
			f = SF_K8S_NODES;
		else if (json_is_array(items)) {
			const json_t *it = json_array_get(items, 0);
			const char *ik = json_string_value(json_object_get(it, "kind"));
			if ((ik && !strcmp(ik, "Event")) || json_object_get(it, "involvedObject") ||
			    json_object_get(it, "regarding"))
				f = SF_K8S_EVENTS;
			else if ((ik && !strcmp(ik, "Node")) || json_object_get(json_object_get(it, "status"), "conditions"))
				f = SF_K8S_NODES;
			else if (!it)
				*why = "a Kubernetes list with no items: say which with --format k8s-events or k8s-nodes";
		}
	} else if (json_is_array(doc)) {
		const json_t *it = json_array_get(doc, 0);
		if (json_object_get(it, "node") && json_object_get(it, "start"))
			f = SF_JSON;
		else if (!it)
			f = SF_JSON;
	}
	if (f == SF_UNKNOWN && !*why)
		*why = "JSON, but none of the documents cmax sla reads (cmax.sla-events/1, kubectl get events / nodes "
		       "-o json, cmax inject / reboot-test --json)";
	json_decref(doc);
	return f;
}

/* "[2026-11-03T04:12:55.123]" or "2026-11-03T04:12:55+0000 host slurmctld[12]:" */
static int slurmctld_line(const char *l, size_t n)
{
	if (n > 21 && l[0] == '[' && sla_time_parsen(l + 1, 19, 0) != SLA_NOTIME)
		return 1;
	if (n > 20 && sla_time_parsen(l, 19, 0) != SLA_NOTIME && memmem(l, n, "slurmctld", 9))
		return 1;
	return 0;
}

enum sla_format sla_detect(const char *buf, size_t len, const char **why)
{
	const char *end = buf + len, *p = skip_ws(buf, end);
	*why = NULL;
	if (p == end) {
		*why = "the file is empty";
		return SF_UNKNOWN;
	}
	if (*p == '{' || *p == '[') {
		/* a slurmctld log also starts with '[' */
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (*p == '[' && slurmctld_line(p, (size_t)((nl ? nl : end) - p)))
			return SF_SLURMCTLD;
		return detect_json(p, (size_t)(end - p), why);
	}
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t n = (size_t)((nl ? nl : end) - p);
	char *first = xstrndup(p, n);
	for (char *c = first; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	enum sla_format f = SF_UNKNOWN;
	if (strstr(first, "nodename") && strstr(first, "timestart"))
		f = SF_SACCTMGR;	/* with header; the parser refuses the table form */
	else if (strchr(first, '|')) {
		/* -P -n: Cluster|NodeName|TimeStart|... without a header */
		int bars = 0;
		const char *f3 = NULL;
		for (char *c = first; *c; c++)
			if (*c == '|' && ++bars == 2)
				f3 = c + 1;
		if (bars >= 4 && f3 && sla_time_parsen(f3, strcspn(f3, "|"), 0) != SLA_NOTIME)
			f = SF_SACCTMGR;
	} else if (strstr(first, "node") && strstr(first, "start") && strchr(first, ','))
		f = SF_CSV;
	free(first);
	if (f != SF_UNKNOWN)
		return f;
	/* a log: any of the first lines with a slurmctld time stamp */
	const char *l = p;
	for (int i = 0; i < 50 && l < end; i++) {
		const char *e = memchr(l, '\n', (size_t)(end - l));
		if (slurmctld_line(l, (size_t)((e ? e : end) - l)))
			return SF_SLURMCTLD;
		if (!e)
			break;
		l = e + 1;
	}
	*why = "not a format cmax sla reads (sacctmgr -P, slurmctld log, kubectl JSON, cmax timeline, CSV with a "
	       "node,start,end header, JSON events)";
	return SF_UNKNOWN;
}

int sla_parse_buffer(enum sla_format f, const char *buf, size_t len, struct sla_parse *p, char **err)
{
	size_t first = p->out->n;
	int rc;
	switch (f) {
	case SF_SACCTMGR: rc = sla_parse_sacctmgr(buf, len, p, err); break;
	case SF_SLURMCTLD: rc = sla_parse_slurmctld(buf, len, p, err); break;
	case SF_K8S_EVENTS: rc = sla_parse_k8s_events(buf, len, p, err); break;
	case SF_K8S_NODES: rc = sla_parse_k8s_nodes(buf, len, p, err); break;
	case SF_TIMELINE: rc = sla_parse_timeline(buf, len, p, err); break;
	case SF_CSV: rc = sla_parse_csv(buf, len, p, err); break;
	case SF_JSON: rc = sla_parse_json(buf, len, p, err); break;
	default:
		*err = xstrdup("no format");
		return -1;
	}
	/* every format's records pass the same test, whatever its parser checked */
	if (rc == 0)
		sla_drop_insane(p, first);
	return rc;
}
