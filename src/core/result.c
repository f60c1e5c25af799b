#include "core/result.h"
#include "core/strbuf.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = { "PASS", "WARN", "FAIL", "SKIP", "ERROR" };

const char *status_name(enum status s)
{
	return (unsigned)s < ST__COUNT ? names[s] : "ERROR";
}

int status_parse(const char *s, enum status *out)
{
	for (int i = 0; i < ST__COUNT; i++)
		if (s && strcmp(s, names[i]) == 0) {
			*out = (enum status)i;
			return 0;
		}
	return -1;
}

struct result *result_new(const char *id, const char *profile, const char *title, const char *host)
{
	struct result *r = xcalloc(1, sizeof *r);
	r->id = xstrdup(id ? id : "");
	r->profile = xstrdup(profile ? profile : "");
	r->title = xstrdup(title ? title : "");
	r->host = xstrdup(host ? host : "");
	r->evidence = json_array();
	r->references = json_array();
	r->status = ST_ERROR;
	return r;
}

void result_free(struct result *r)
{
	if (!r)
		return;
	free(r->host);
	free(r->summary);
	json_decref(r->observed);
	json_decref(r->expected);
	json_decref(r->evidence);
	free(r->remediation);
	json_decref(r->references);
	free(r->reproduce);
	free(r->mode);
	free(r->id);
	free(r->profile);
	free(r->title);
	free(r);
}

void r_status(struct result *r, enum status st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	str_vset_sanitized(&r->summary, fmt, ap);
	va_end(ap);
	r->status = st;
	r->status_set = 1;
}

static json_t *fmt_json(const char *fmt, va_list ap)
{
	char *c = str_vformat_sanitized(fmt, ap);
	json_t *v = json_string(c);
	free(c);
	return v;
}

void r_observed(struct result *r, json_t *v)
{
	json_decref(r->observed);
	r->observed = v;
}

void r_observedf(struct result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	r_observed(r, fmt_json(fmt, ap));
	va_end(ap);
}

void r_expected(struct result *r, json_t *v)
{
	json_decref(r->expected);
	r->expected = v;
}

void r_expectedf(struct result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	r_expected(r, fmt_json(fmt, ap));
	va_end(ap);
}

void r_remedy(struct result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(r->remediation);
	r->remediation = xvasprintf(fmt, ap);
	va_end(ap);
}

void r_ref(struct result *r, const char *ref)
{
	size_t i;
	json_t *v;
	json_array_foreach(r->references, i, v)
		if (strcmp(json_string_value(v), ref) == 0)
			return;
	json_array_append_new(r->references, json_string(ref));
}

void r_refs_json(struct result *r, const json_t *arr)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
		if (json_is_string(v))
			r_ref(r, json_string_value(v));
}

void r_reproduce(struct result *r, const char *cmd)
{
	free(r->reproduce);
	r->reproduce = xstrdup(cmd);
}

void r_evidence(struct result *r, json_t *ev)
{
	if (ev)
		json_array_append_new(r->evidence, ev);
}

void r_evidence_file(struct result *r, const char *path, const char *excerpt)
{
	json_t *e = json_object();
	json_object_set_new(e, "kind", json_string("file"));
	json_object_set_new(e, "path", json_string(path));
	if (excerpt) {
		char *x = str_excerpt(excerpt, strlen(excerpt), 512);
		json_object_set_new(e, "excerpt", json_string(x));
		free(x);
	}
	r_evidence(r, e);
}

json_t *evidence_note_v(const char *fmt, va_list ap)
{
	json_t *e = json_object();
	json_object_set_new(e, "kind", json_string("note"));
	json_object_set_new(e, "text", fmt_json(fmt, ap));
	return e;
}

void r_evidence_note(struct result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	r_evidence(r, evidence_note_v(fmt, ap));
	va_end(ap);
}

void r_mode(struct result *r, const char *mode)
{
	free(r->mode);
	r->mode = mode ? xstrdup(mode) : NULL;
}

/* s as a JSON string, from pool when there is one; NULL stays NULL (the
 * key is left out, as json_string(NULL) leaves it). */
static json_t *pooled(json_t *pool, const char *s)
{
	if (!s || !pool)
		return json_string(s);
	json_t *v = json_object_get(pool, s);
	if (!v) {
		v = json_string(s);
		json_object_set_nocheck(pool, s, v);
		return v;
	}
	return json_incref(v);
}

json_t *result_to_json_pooled(const struct result *r, json_t *pool)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", pooled(pool, r->id));
	json_object_set_new(o, "profile", pooled(pool, r->profile));
	json_object_set_new(o, "title", pooled(pool, r->title));
	json_object_set_new(o, "status", pooled(pool, status_name(r->status)));
	json_object_set_new(o, "summary", pooled(pool, r->summary ? r->summary : ""));
	json_object_set_new(o, "observed", r->observed ? json_incref(r->observed) : json_null());
	json_object_set_new(o, "expected", r->expected ? json_incref(r->expected) : json_null());
	json_object_set_new(o, "evidence", json_incref(r->evidence));
	json_object_set_new(o, "remediation", r->remediation ? pooled(pool, r->remediation) : json_null());
	json_object_set_new(o, "references", json_incref(r->references));
	json_object_set_new(o, "reproduce", r->reproduce ? pooled(pool, r->reproduce) : json_null());
	json_object_set_new(o, "host", pooled(pool, r->host));
	if (r->mode)
		json_object_set_new(o, "mode", pooled(pool, r->mode));
	return o;
}

json_t *result_to_json(const struct result *r)
{
	return result_to_json_pooled(r, NULL);
}

static char *dup_field(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? xstrdup(s) : NULL;
}

struct result *result_from_json(const json_t *o)
{
	if (!json_is_object(o))
		return NULL;
	const char *id = json_string_value(json_object_get(o, "id"));
	const char *st = json_string_value(json_object_get(o, "status"));
	enum status s;
	if (!id || !st || status_parse(st, &s) != 0)
		return NULL;
	const char *title = json_string_value(json_object_get(o, "title"));
	struct result *r = result_new(id, json_string_value(json_object_get(o, "profile")), title ? title : id,
				      json_string_value(json_object_get(o, "host")));
	r->status = s;
	r->status_set = 1;
	r->summary = dup_field(o, "summary");
	json_t *v;
	if ((v = json_object_get(o, "observed")) && !json_is_null(v))
		r->observed = json_deep_copy(v);
	if ((v = json_object_get(o, "expected")) && !json_is_null(v))
		r->expected = json_deep_copy(v);
	if (json_is_array(v = json_object_get(o, "evidence"))) {
		json_decref(r->evidence);
		r->evidence = json_deep_copy(v);
	}
	r->remediation = dup_field(o, "remediation");
	if (json_is_array(v = json_object_get(o, "references")))
		r_refs_json(r, v);
	r->reproduce = dup_field(o, "reproduce");
	r->mode = dup_field(o, "mode");
	return r;
}
