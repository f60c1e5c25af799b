/* Kubernetes, two documents:
 *
 * `kubectl get events -A -o json` (core/v1 Events; the events.k8s.io/v1
 * shape with regarding / note / eventTime too). Node events only:
 * NodeNotReady (node controller) .. NodeReady (kubelet) is "NotReady";
 * NodeNotSchedulable .. NodeSchedulable (cordon, uncordon) is "Cordoned".
 * Rebooted and the rest are listed or counted, not turned into time. An
 * event seen several times (count > 1) has only its first and last times:
 * both are used, and a note says what is lost. The API server keeps events
 * for an hour by default: a history needs an event exporter.
 *
 * `kubectl get nodes -o json` (or one Node): a node whose Ready condition is
 * False is "NotReady" since the condition's lastTransitionTime, Unknown is
 * "NodeStatusUnknown" likewise, both still open; a cordoned node is
 * "Cordoned" since its unschedulable taint's timeAdded, when there is one. */
#include "parse/sla_parse_util.h"
#include "core/strbuf.h"

#include <stdlib.h>
#include <string.h>

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s && *s ? s : NULL;
}

static json_t *load(const char *buf, size_t len, struct sla_parse *p, char **err)
{
	json_error_t je;
	json_t *doc = json_loadb(buf, len, 0, &je);
	if (!doc)
		*err = xasprintf("%s: not JSON (line %d: %s)", p->file, je.line, je.text);
	return doc;
}

/* ---- events ---- */

struct kev {
	sla_ms t;
	size_t idx;		/* item index */
	int occurrence;		/* 0 first, 1 last */
	const json_t *item;
};

static int cmp_kev(const void *a, const void *b)
{
	const struct kev *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return x->occurrence - y->occurrence;
}

static sla_ms first_time(const json_t *it, sla_ms off)
{
	static const char *const keys[] = { "firstTimestamp", "deprecatedFirstTimestamp", "eventTime", "lastTimestamp",
					    "deprecatedLastTimestamp", NULL };
	for (int i = 0; keys[i]; i++) {
		const char *s = str(it, keys[i]);
		if (s)
			return sla_time_parse(s, off);
	}
	const char *c = str(json_object_get(it, "metadata"), "creationTimestamp");
	return c ? sla_time_parse(c, off) : SLA_NOTIME;
}

static sla_ms last_time(const json_t *it, sla_ms off)
{
	const char *s = str(json_object_get(it, "series"), "lastObservedTime");
	if (!s)
		s = str(it, "lastTimestamp");
	if (!s)
		s = str(it, "deprecatedLastTimestamp");
	return s ? sla_time_parse(s, off) : first_time(it, off);
}

static const json_t *event_object(const json_t *it)
{
	const json_t *obj = json_object_get(it, "involvedObject");
	return obj ? obj : json_object_get(it, "regarding");
}

/* Each Node event's first and (when different) last time into kv; the
 * rest counted or reported. Returns how many times were kept. */
static size_t event_times(const json_t *items, struct sla_parse *p, struct kev *kv)
{
	size_t n = json_array_size(items), nk = 0;
	for (size_t i = 0; i < n; i++) {
		const json_t *it = json_array_get(items, i);
		char *src = sla_src_ptr(p, "/items/%zu", i);
		p->records++;
		const json_t *obj = event_object(it);
		if (!json_is_object(it) || !json_is_object(obj)) {
			sla_bad(p, src, "not an event (no involvedObject or regarding)");
			free(src);
			continue;
		}
		const char *kind = str(obj, "kind");
		if (!kind || strcmp(kind, "Node")) {
			p->irrelevant++;
			free(src);
			continue;
		}
		sla_ms t0 = first_time(it, p->offset_ms), t1 = last_time(it, p->offset_ms);
		if (t0 == SLA_NOTIME || t1 == SLA_NOTIME) {
			sla_bad(p, src, "no readable time (firstTimestamp, lastTimestamp, eventTime)");
			free(src);
			continue;
		}
		if (!str(obj, "name")) {
			sla_bad(p, src, "a Node event without the node's name");
			free(src);
			continue;
		}
		kv[nk++] = (struct kev){ t0, i, 0, it };
		json_int_t count = json_integer_value(json_object_get(it, "count"));
		const json_t *series = json_object_get(it, "series");
		if (series)
			count = json_integer_value(json_object_get(series, "count"));
		if (t1 != t0)
			kv[nk++] = (struct kev){ t1, i, 1, it };
		if (count > 2)
			sla_note(p, src, "seen %lld times: only the first and the last are known, the %lld between are lost",
				 (long long)count, (long long)(count - 2));
		sla_seen(p, t0);
		sla_seen(p, t1);
		free(src);
	}
	return nk;
}

/* One occurrence, in time order: open or close the node's state. */
static void event_apply(struct sla_parse *p, struct sla_tracks *t, const struct kev *ke)
{
	const json_t *it = ke->item;
	const json_t *obj = event_object(it);
	const char *node = str(obj, "name"), *reason = str(it, "reason");
	const char *msg = str(it, "message") ? str(it, "message") : str(it, "note");
	char *src = sla_src_ptr(p, "/items/%zu", ke->idx);
	int used = 1;
	if (!reason)
		used = 0;
	else if (!strcmp(reason, "NodeNotReady"))
		sla_tracks_set(t, node, "NotReady", ke->t, msg ? msg : reason, src);
	else if (!strcmp(reason, "NodeReady"))
		sla_tracks_clear(t, p, node, "NotReady", ke->t, src, 0);
	else if (!strcmp(reason, "NodeNotSchedulable"))
		sla_tracks_set(t, node, "Cordoned", ke->t, msg ? msg : reason, src);
	else if (!strcmp(reason, "NodeSchedulable"))
		sla_tracks_clear(t, p, node, "Cordoned", ke->t, src, 0);
	else if (!strcmp(reason, "Rebooted") && ke->occurrence == 0) {
		sla_note(p, src, "%s rebooted (%s): the downtime is what NodeNotReady .. NodeReady records", node,
			 msg ? msg : "no message");
	} else
		used = 0;
	if (ke->occurrence == 0) {
		if (used)
			p->used++;
		else
			p->irrelevant++;
	}
	free(src);
}

static int parse_events(const char *buf, size_t len, struct sla_parse *p, char **err)
{
	json_t *doc = load(buf, len, p, err);
	if (!doc)
		return -1;
	const json_t *items = json_is_array(doc) ? doc : json_object_get(doc, "items");
	json_t *single = NULL;
	if (!json_is_array(items)) {
		const char *kind = str(doc, "kind");
		if (kind && !strcmp(kind, "Event")) {
			single = json_array();
			json_array_append(single, doc);
			items = single;
		} else {
			*err = xasprintf("%s: no \"items\" array (kubectl get events -A -o json)", p->file);
			json_decref(doc);
			return -1;
		}
	}
	struct kev *kv = xcalloc(json_array_size(items) * 2 + 1, sizeof *kv);
	size_t nk = event_times(items, p, kv);
	qsort(kv, nk, sizeof *kv, cmp_kev);
	struct sla_tracks *t = sla_tracks_new();
	for (size_t k = 0; k < nk; k++)
		event_apply(p, t, &kv[k]);
	sla_tracks_finish(t, p);
	sla_tracks_free(t);
	free(kv);
	json_decref(single);
	json_decref(doc);
	return 0;
}

/* ---- nodes ---- */

static void one_node(struct sla_parse *p, const json_t *it, const char *src)
{
	const char *name = str(json_object_get(it, "metadata"), "name");
	p->records++;
	if (!name) {
		sla_bad(p, src, "a Node without metadata.name");
		return;
	}
	const json_t *conds = json_object_get(json_object_get(it, "status"), "conditions");
	const json_t *ready = NULL, *c;
	size_t i;
	json_array_foreach(conds, i, c) {
		const char *ty = str(c, "type");
		if (ty && !strcmp(ty, "Ready"))
			ready = c;
	}
	int used = 0;
	if (!ready) {
		sla_note(p, src, "%s has no Ready condition: state unknown, not counted", name);
	} else {
		const char *st = str(ready, "status"), *lt = str(ready, "lastTransitionTime");
		sla_ms t = lt ? sla_time_parse(lt, p->offset_ms) : SLA_NOTIME;
		if (st && strcmp(st, "True")) {
			if (t == SLA_NOTIME) {
				sla_bad(p, src, "%s is not Ready but its lastTransitionTime is missing or unreadable", name);
			} else {
				const char *why = str(ready, "message") ? str(ready, "message") : str(ready, "reason");
				struct sla_event *e = sla_events_add(p->out, name, NULL, t, SLA_OPEN,
								     strcmp(st, "False") ? "NodeStatusUnknown" : "NotReady",
								     why, NULL, src);
				e->note = xstrdup("not Ready when the node list was taken");
				sla_seen(p, t);
				used = 1;
			}
		} else {
			sla_seen(p, t);
			used = 1;
		}
	}
	if (json_is_true(json_object_get(json_object_get(it, "spec"), "unschedulable"))) {
		const json_t *taints = json_object_get(json_object_get(it, "spec"), "taints"), *tn;
		sla_ms t = SLA_NOTIME;
		json_array_foreach(taints, i, tn) {
			const char *k = str(tn, "key");
			if (k && !strcmp(k, "node.kubernetes.io/unschedulable") && str(tn, "timeAdded"))
				t = sla_time_parse(str(tn, "timeAdded"), p->offset_ms);
		}
		if (t == SLA_NOTIME) {
			sla_note(p, src, "%s is cordoned since a time the node object does not record: not counted "
				 "(the events NodeNotSchedulable .. NodeSchedulable carry it)", name);
		} else {
			struct sla_event *e = sla_events_add(p->out, name, NULL, t, SLA_OPEN, "Cordoned",
							     "spec.unschedulable", NULL, src);
			e->note = xstrdup("cordoned when the node list was taken");
			sla_seen(p, t);
			used = 1;
		}
	}
	if (used)
		p->used++;
}

static int parse_nodes(const char *buf, size_t len, struct sla_parse *p, char **err)
{
	json_t *doc = load(buf, len, p, err);
	if (!doc)
		return -1;
	const json_t *items = json_object_get(doc, "items");
	const char *kind = str(doc, "kind");
	if (kind && !strcmp(kind, "Node")) {
		char *src = sla_src_ptr(p, "%s", "");
		one_node(p, doc, src);
		free(src);
	} else if (json_is_array(items)) {
		size_t i;
		const json_t *it;
		json_array_foreach(items, i, it) {
			char *src = sla_src_ptr(p, "/items/%zu", i);
			if (!json_is_object(it)) {
				p->records++;
				sla_bad(p, src, "not a Node object");
			} else {
				one_node(p, it, src);
			}
			free(src);
		}
	} else {
		*err = xasprintf("%s: neither a Node nor a list with \"items\" (kubectl get nodes -o json)", p->file);
		json_decref(doc);
		return -1;
	}
	json_decref(doc);
	return 0;
}

/* ---- detection ---- */

static int kind_is(const json_t *o, const char *a, const char *b)
{
	const char *k = json_string_value(json_object_get(o, "kind"));
	return k && (!strcmp(k, a) || !strcmp(k, b));
}

/* The first item of a list ("items"); NULL when there is none. */
static const json_t *first_item(const json_t *doc)
{
	const json_t *items = json_object_get(doc, "items");
	return json_is_array(items) ? json_array_get(items, 0) : NULL;
}

/* The kind says so; or a list whose kind is not Node's and whose first
 * item is an Event, in either API's shape. */
static int detect_events(const struct sla_sniff *s)
{
	if (!json_is_object(s->doc))
		return 0;
	if (kind_is(s->doc, "EventList", "Event"))
		return 1;
	if (kind_is(s->doc, "NodeList", "Node"))
		return 0;
	const json_t *it = first_item(s->doc);
	return kind_is(it, "Event", "Event") || json_object_get(it, "involvedObject") || json_object_get(it, "regarding");
}

/* After events in the table: the kind says so, or the first item is a Node. */
static int detect_nodes(const struct sla_sniff *s)
{
	if (!json_is_object(s->doc))
		return 0;
	if (kind_is(s->doc, "NodeList", "Node"))
		return 1;
	const json_t *it = first_item(s->doc);
	return kind_is(it, "Node", "Node") || json_object_get(json_object_get(it, "status"), "conditions");
}

const struct sla_parser sla_parser_k8s_events = { SF_K8S_EVENTS, detect_events, parse_events };
const struct sla_parser sla_parser_k8s_nodes = { SF_K8S_NODES, detect_nodes, parse_nodes };
