/* Reading the --active probes' objects, events and pod logs. */
#include "parse/k8sprobe.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES 300

/* One sanitized line of at most LINE_MAX_BYTES, or NULL for NULL. */
static char *one_line(const char *s, size_t n)
{
	if (!s)
		return NULL;
	size_t len = 0;
	while (len < n && s[len] && s[len] != '\n' && s[len] != '\r')
		len++;
	return str_sanitize(s, len > LINE_MAX_BYTES ? LINE_MAX_BYTES : len);
}

static json_t *jline(const char *s)
{
	char *l = s ? one_line(s, strlen(s)) : NULL;
	json_t *v = l ? json_string(l) : json_null();
	free(l);
	return v ? v : json_null();
}

static int named(const json_t *obj, const char *kind, const char *name)
{
	const char *k = jget_str(obj, "kind"), *n = jget_str(json_object_get(obj, "metadata"), "name");
	return k && n && name && !strcmp(k, kind) && !strcmp(n, name);
}

json_t *k8sprobe_pvc(const json_t *items, const char *name)
{
	size_t i;
	json_t *it;
	json_array_foreach(items, i, it) {
		if (!named(it, "PersistentVolumeClaim", name))
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "phase", jline(jget_str(json_object_get(it, "status"), "phase")));
		json_object_set_new(o, "volume", jline(jget_str(json_object_get(it, "spec"), "volumeName")));
		json_object_set_new(o, "storageclass", jline(jget_str(json_object_get(it, "spec"), "storageClassName")));
		return o;
	}
	return NULL;
}

json_t *k8sprobe_events(const json_t *items, const char *kind, const char *name, size_t max)
{
	json_t *out = json_array();
	size_t i;
	json_t *ev;
	json_array_foreach(items, i, ev) {
		if (json_array_size(out) >= max)
			break;
		json_t *io = json_object_get(ev, "involvedObject");
		const char *k = jget_str(io, "kind"), *n = jget_str(io, "name");
		if (!k || !n || !name || strcmp(k, kind) || strcmp(n, name))
			continue;
		json_t *e = json_object();
		json_object_set_new(e, "type", jline(jget_str(ev, "type")));
		json_object_set_new(e, "reason", jline(jget_str(ev, "reason")));
		json_object_set_new(e, "message", jline(jget_str(ev, "message")));
		json_t *c = json_object_get(ev, "count");
		json_object_set_new(e, "count", json_is_integer(c) ? json_integer(json_integer_value(c)) : json_null());
		json_array_append_new(out, e);
	}
	return out;
}

int k8sprobe_has_reason(const json_t *events, const char *reason)
{
	size_t i;
	json_t *e;
	json_array_foreach(events, i, e) {
		const char *r = jget_str(e, "reason");
		if (r && reason && !strcmp(r, reason))
			return 1;
	}
	return 0;
}

char *k8sprobe_marker(const char *log, size_t len, const char *prefix)
{
	size_t pl = prefix ? strlen(prefix) : 0;
	if (!log || !pl)
		return NULL;
	const char *p = log, *end = log + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n >= pl && !memcmp(p, prefix, pl))
			return one_line(p + pl, n - pl);
		p += n + 1;
	}
	return NULL;
}
