#include "parse/dcgmdiag.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Messages DCGM prints can be long and come from the GPU's error text. */
#define DD_TEXT_MAX 300

static char *clean(const char *s)
{
	return s ? ts_oneline(s, strlen(s), DD_TEXT_MAX) : NULL;
}

/* DCGM prints "Pass" / "Fail" / "Warn" / "Skip" (3.x), lower case in some
 * 4.x builds, "PASS" in the documentation's comments. */
static enum dd_status status_of(const char *s)
{
	static const struct { const char *name; enum dd_status st; } map[] = {
		{ "pass", DD_PASS }, { "passed", DD_PASS }, { "warn", DD_WARN }, { "warning", DD_WARN },
		{ "fail", DD_FAIL }, { "failed", DD_FAIL }, { "skip", DD_SKIP }, { "skipped", DD_SKIP },
		{ "not run", DD_NOTRUN }, { "notrun", DD_NOTRUN },
	};
	for (size_t i = 0; s && i < sizeof map / sizeof map[0]; i++)
		if (strcasecmp(s, map[i].name) == 0)
			return map[i].st;
	return DD_UNKNOWN;
}

const char *dd_status_name(enum dd_status s)
{
	static const char *const n[] = { "Pass", "Warn", "Fail", "Skip", "Not Run", "unknown" };
	return n[s];
}

/* The GPU of a result: 4.x entity_id with entity_group GPU; 3.x gpu_id /
 * gpu_ids as a string ("3"), a CSV of several ("0,1,2") naming none. */
static int gpu_of(const json_t *res)
{
	const char *grp = jget_str(res, "entity_group");
	json_t *eid = json_object_get(res, "entity_id");
	if (json_is_integer(eid) && (!grp || strcasecmp(grp, "GPU") == 0))
		return (int)json_integer_value(eid);
	const char *keys[] = { "gpu_id", "gpu_ids" };
	for (size_t k = 0; k < 2; k++) {
		json_t *v = json_object_get(res, keys[k]);
		if (json_is_integer(v))
			return (int)json_integer_value(v);
		const char *s = json_string_value(v);
		if (s && *s && strspn(s, "0123456789") == strlen(s) && strlen(s) < 6)
			return atoi(s);
	}
	return -1;
}

static void add_warnings(struct dd_result *d, const json_t *w)
{
	if (json_is_string(w)) { /* older builds: one string */
		d->nwarnings++;
		d->message = clean(json_string_value(w));
		return;
	}
	size_t i;
	json_t *e;
	json_array_foreach(w, i, e) {
		const char *text = json_is_string(e) ? json_string_value(e) : jget_str(e, "warning");
		/* DCGM 3.x writes a deployment test's text under "warnings" in the entry */
		if (!text && json_is_object(e))
			text = jget_str(e, "warnings");
		long id = (long)jget_int(e, "error_id", 0);
		d->nwarnings++;
		if (!d->message && text)
			d->message = clean(text);
		if (!d->error_id && id)
			d->error_id = id;
	}
}

static void add_result(struct dd_report *r, size_t *cap, const char *cat, const char *test, const json_t *res)
{
	if (r->n == *cap) {
		*cap = *cap ? *cap * 2 : 32;
		r->results = xrealloc(r->results, *cap * sizeof *r->results);
	}
	struct dd_result *d = &r->results[r->n++];
	memset(d, 0, sizeof *d);
	d->category = clean(cat);
	d->test = clean(test);
	d->gpu = gpu_of(res);
	const char *st = jget_str(res, "status");
	d->status = status_of(st);
	d->status_text = clean(st ? st : "(no status)");
	json_t *w = json_object_get(res, "warnings");
	if (w)
		add_warnings(d, w);
	json_t *eid = json_object_get(res, "error_id");
	if (!d->error_id && json_is_integer(eid))
		d->error_id = (long)json_integer_value(eid);
}

static void walk(struct dd_report *r, const json_t *cats)
{
	size_t cap = 0, i, j, k;
	json_t *c, *t, *res;
	json_array_foreach(cats, i, c) {
		const char *cat = jget_str(c, "category");
		json_array_foreach(json_object_get(c, "tests"), j, t) {
			const char *name = jget_str(t, "name");
			json_array_foreach(json_object_get(t, "results"), k, res)
				if (json_is_object(res))
					add_result(r, &cap, cat, name, res);
		}
	}
}

int dd_parse(const char *text, size_t len, struct dd_report *r, char **err)
{
	memset(r, 0, sizeof *r);
	const char *open = memchr(text, '{', len);
	const char *close = NULL;
	for (size_t i = len; i > 0 && !close; i--)
		if (text[i - 1] == '}')
			close = text + i - 1;
	if (!open || !close || close < open) {
		*err = xstrdup("no JSON object in the dcgmi output");
		return -1;
	}
	json_error_t je;
	json_t *doc = json_loadb(open, (size_t)(close - open + 1), JSON_REJECT_DUPLICATES, &je);
	if (!json_is_object(doc)) {
		*err = xasprintf("dcgmi output is not JSON: %s (line %d)", je.text, je.line);
		json_decref(doc);
		return -1;
	}
	json_t *root = json_object_get(doc, "DCGM Diagnostic");
	r->dcgm4 = root != NULL;
	if (!root)
		root = json_object_get(doc, "DCGM GPU Diagnostic");
	if (!json_is_object(root)) {
		*err = xstrdup("dcgmi JSON has neither \"DCGM Diagnostic\" (4.x) nor \"DCGM GPU Diagnostic\" (3.x)");
		json_decref(doc);
		return -1;
	}
	const char *v = jget_str(json_object_get(doc, "metadata"), "version");
	if (!v)
		v = jget_str(doc, "version");
	if (!v)
		v = jget_str(root, "version");
	r->version = clean(v);
	r->runtime_error = clean(jget_str(root, "runtime_error"));
	walk(r, json_object_get(root, "test_categories"));
	json_decref(doc);
	return 0;
}

void dd_report_free(struct dd_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->results[i].category);
		free(r->results[i].test);
		free(r->results[i].status_text);
		free(r->results[i].message);
	}
	free(r->results);
	free(r->version);
	free(r->runtime_error);
	memset(r, 0, sizeof *r);
}
