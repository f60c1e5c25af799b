/* Xid catalog loader.  The JSON tree stays alive with the catalog and the
 * lookup structures point into it, so no string is copied. */
#include "xid/catalog.h"
#include "core/readfile.h"
#include "core/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CATALOG_SCHEMA "cmax.xid-catalog/1"
#define MAX_CODE 100000		/* SXids are 5 digits; anything larger is a typo */

struct sxid_range {
	int first, last;
	const char *unit, *notes;
	int always_fatal;
};

struct sxid_note {
	int code;
	const char *name, *bucket;
	int fatal, always_fatal;
	enum xid_action action;
};

struct xid_catalog {
	json_t *root;
	const char *date, *generated;
	json_t *buckets;		/* bucket -> action name, validated */
	struct xid_info *xids;		/* sorted by code */
	size_t nxids;
	struct sxid_range *ranges;
	size_t nranges;
	struct sxid_note *notes;
	size_t nnotes;
};

static const char *const action_names[XA_COUNT] = {
	[XA_NONE] = "none",
	[XA_RESTART_APP] = "restart_app",
	[XA_RESET_GPU] = "reset_gpu",
	[XA_DRAIN_AND_RESET] = "drain_and_reset",
	[XA_REBOOT] = "reboot",
	[XA_CONTACT_SUPPORT] = "contact_support",
};

const char *xid_action_name(enum xid_action a)
{
	if ((unsigned)a >= XA_COUNT)
		return "none";
	return action_names[a];
}

int xid_action_parse(const char *s, enum xid_action *out)
{
	for (int i = 0; s && i < XA_COUNT; i++)
		if (!strcmp(s, action_names[i])) {
			*out = (enum xid_action)i;
			return 0;
		}
	return -1;
}

/* Only the first failure is kept: it is the one that explains the rest. */
__attribute__((format(printf, 2, 3)))
static int fail(char **err, const char *fmt, ...)
{
	if (err && !*err) {
		struct strbuf sb = STRBUF_INIT;
		va_list ap;
		va_start(ap, fmt);
		sb_vaddf(&sb, fmt, ap);
		va_end(ap);
		*err = sb_detach(&sb);
	}
	return -1;
}

static int is_date(const char *s)
{
	static const char pat[] = "dddd-dd-dd";
	if (strlen(s) != sizeof(pat) - 1)
		return 0;
	for (size_t i = 0; pat[i]; i++)
		if (pat[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != pat[i])
			return 0;
	return 1;
}

/* Member `key` of `o` as a string; NULL (and *err) when missing or not one. */
static const char *get_str(json_t *o, const char *key, const char *where, char **err)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_string(v)) {
		fail(err, "%s.%s: %s", where, key, v ? "must be a string" : "missing");
		return NULL;
	}
	return json_string_value(v);
}

static int get_int(json_t *o, const char *key, const char *where, int lo, int hi,
		   int *out, char **err)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_integer(v))
		return fail(err, "%s.%s: %s", where, key, v ? "must be an integer" : "missing");
	json_int_t i = json_integer_value(v);
	if (i < lo || i > hi)
		return fail(err, "%s.%s: %lld out of range %d..%d", where, key, (long long)i, lo, hi);
	*out = (int)i;
	return 0;
}

static int get_action(json_t *o, const char *key, const char *where, enum xid_action *out,
		      char **err)
{
	const char *s = get_str(o, key, where, err);
	if (!s)
		return -1;
	if (xid_action_parse(s, out) < 0)
		return fail(err, "%s.%s: unknown action '%.40s'", where, key, s);
	return 0;
}

/* Optional boolean member; absent reads as 0. */
static int get_opt_bool(json_t *o, const char *key, const char *where, int *out, char **err)
{
	json_t *v = json_object_get(o, key);
	*out = 0;
	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return fail(err, "%s.%s: must be true or false", where, key);
	*out = json_is_true(v);
	return 0;
}

static int cmp_xid(const void *a, const void *b)
{
	const struct xid_info *x = a, *y = b;
	return (x->code > y->code) - (x->code < y->code);
}

static int load_buckets(struct xid_catalog *c, char **err)
{
	const char *k;
	json_t *v;

	c->buckets = json_object_get(c->root, "bucket_actions");
	if (!json_is_object(c->buckets))
		return fail(err, "bucket_actions: missing or not an object");
	json_object_foreach(c->buckets, k, v) {
		enum xid_action a;
		if (!json_is_string(v) || xid_action_parse(json_string_value(v), &a) < 0)
			return fail(err, "bucket_actions.%.40s: not a cmax action", k);
	}
	return 0;
}

static int load_xid(struct xid_catalog *c, json_t *o, size_t i, struct xid_info *x, char **err)
{
	static const char *const gpus[XID_NGPU] = { "A100", "H100", "B100", "GB200" };
	char where[32];
	json_t *v;

	snprintf(where, sizeof(where), "xids[%zu]", i);
	if (!json_is_object(o))
		return fail(err, "%s: must be an object", where);
	if (get_int(o, "code", where, 1, MAX_CODE, &x->code, err) < 0)
		return -1;
	x->mnemonic = get_str(o, "mnemonic", where, err);
	x->description = get_str(o, "description", where, err);
	x->immediate = get_str(o, "immediate", where, err);
	x->investigatory = get_str(o, "investigatory", where, err);
	x->xid154 = get_str(o, "xid154", where, err);
	x->klass = get_str(o, "class", where, err);
	if (!x->mnemonic || !x->description || !x->immediate || !x->investigatory ||
	    !x->xid154 || !x->klass)
		return -1;
	if (!x->mnemonic[0])
		return fail(err, "%s.mnemonic: empty", where);
	if (get_action(o, "action", where, &x->action, err) < 0)
		return -1;

	v = json_object_get(o, "applies");
	if (!json_is_object(v))
		return fail(err, "%s.applies: missing or not an object", where);
	for (int g = 0; g < XID_NGPU; g++) {
		json_t *b = json_object_get(v, gpus[g]);
		if (!json_is_boolean(b))
			return fail(err, "%s.applies.%s: must be true or false", where, gpus[g]);
		x->applies[g] = json_is_true(b);
	}

	v = json_object_get(o, "legacy_causes");
	if (!v)
		return fail(err, "%s.legacy_causes: missing", where);
	if (!json_is_null(v)) {
		size_t j;
		json_t *s;
		if (!json_is_array(v))
			return fail(err, "%s.legacy_causes: must be an array or null", where);
		json_array_foreach(v, j, s)
			if (!json_is_string(s))
				return fail(err, "%s.legacy_causes[%zu]: must be a string", where, j);
	}

	v = json_object_get(o, "action_note");
	if (v && !json_is_string(v))
		return fail(err, "%s.action_note: must be a string", where);
	x->action_note = v ? json_string_value(v) : NULL;

	/* The catalog's own bucket decides the default; a hand edit that
	 * disagrees belongs in a policy override, not here. */
	if (x->immediate[0]) {
		enum xid_action a;
		if (xid_catalog_bucket_action(c, x->immediate, &a) < 0)
			return fail(err, "%s (xid %d): bucket '%.40s' not in bucket_actions",
				    where, x->code, x->immediate);
		if (a != x->action)
			return fail(err, "%s (xid %d): action %s disagrees with bucket %.40s (%s)",
				    where, x->code, xid_action_name(x->action), x->immediate,
				    xid_action_name(a));
	} else if (!x->action_note || !x->action_note[0]) {
		return fail(err, "%s (xid %d): blank bucket needs an action_note", where, x->code);
	}
	return 0;
}

static int load_xids(struct xid_catalog *c, char **err)
{
	json_t *arr = json_object_get(c->root, "xids"), *o;
	size_t i;

	if (!json_is_array(arr) || !json_array_size(arr))
		return fail(err, "xids: missing, empty or not an array");
	c->nxids = json_array_size(arr);
	c->xids = xcalloc(c->nxids, sizeof(*c->xids));
	json_array_foreach(arr, i, o)
		if (load_xid(c, o, i, &c->xids[i], err) < 0)
			return -1;
	qsort(c->xids, c->nxids, sizeof(*c->xids), cmp_xid);
	for (i = 1; i < c->nxids; i++)
		if (c->xids[i].code == c->xids[i - 1].code)
			return fail(err, "xids: code %d listed twice", c->xids[i].code);
	return 0;
}

static int load_sxids(struct xid_catalog *c, char **err)
{
	json_t *arr, *o;
	size_t i;
	char where[40];

	arr = json_object_get(c->root, "sxid_ranges");
	if (!json_is_array(arr))
		return fail(err, "sxid_ranges: missing or not an array");
	c->nranges = json_array_size(arr);
	c->ranges = xcalloc(c->nranges, sizeof(*c->ranges));
	json_array_foreach(arr, i, o) {
		struct sxid_range *r = &c->ranges[i];
		snprintf(where, sizeof(where), "sxid_ranges[%zu]", i);
		if (!json_is_object(o))
			return fail(err, "%s: must be an object", where);
		if (get_int(o, "first", where, 1, MAX_CODE, &r->first, err) < 0 ||
		    get_int(o, "last", where, 1, MAX_CODE, &r->last, err) < 0)
			return -1;
		if (r->last < r->first)
			return fail(err, "%s: last %d before first %d", where, r->last, r->first);
		if (!(r->unit = get_str(o, "unit", where, err)) ||
		    !(r->notes = get_str(o, "notes", where, err)))
			return -1;
		if (get_opt_bool(o, "always_fatal", where, &r->always_fatal, err) < 0)
			return -1;
	}

	arr = json_object_get(c->root, "sxid_notable");
	if (!json_is_array(arr))
		return fail(err, "sxid_notable: missing or not an array");
	c->nnotes = json_array_size(arr);
	c->notes = xcalloc(c->nnotes, sizeof(*c->notes));
	json_array_foreach(arr, i, o) {
		struct sxid_note *n = &c->notes[i];
		json_t *f;
		snprintf(where, sizeof(where), "sxid_notable[%zu]", i);
		if (!json_is_object(o))
			return fail(err, "%s: must be an object", where);
		if (get_int(o, "code", where, 1, MAX_CODE, &n->code, err) < 0)
			return -1;
		if (!(n->name = get_str(o, "name", where, err)) ||
		    !(n->bucket = get_str(o, "bucket", where, err)))
			return -1;
		f = json_object_get(o, "fatal");
		if (!json_is_boolean(f))
			return fail(err, "%s.fatal: must be true or false", where);
		n->fatal = json_is_true(f);
		if (get_opt_bool(o, "always_fatal", where, &n->always_fatal, err) < 0)
			return -1;
		if (json_object_get(o, "action")) {
			if (get_action(o, "action", where, &n->action, err) < 0)
				return -1;
		} else {
			n->action = n->always_fatal ? XA_REBOOT : XA_RESET_GPU;
		}
		for (size_t j = 0; j < i; j++)
			if (c->notes[j].code == n->code)
				return fail(err, "%s: sxid %d listed twice", where, n->code);
	}
	return 0;
}

struct xid_catalog *xid_catalog_parse(const char *buf, size_t len, char **err)
{
	struct xid_catalog *c;
	json_error_t je;
	json_t *v;
	size_t i;

	if (err)
		*err = NULL;
	c = xcalloc(1, sizeof(*c));
	c->root = json_loadb(buf ? buf : "", buf ? len : 0, JSON_REJECT_DUPLICATES, &je);
	if (!c->root) {
		fail(err, "invalid JSON at line %d: %s", je.line, je.text);
		goto bad;
	}
	if (!json_is_object(c->root)) {
		fail(err, "top level must be an object");
		goto bad;
	}
	v = json_object_get(c->root, "schema");
	if (!json_is_string(v) || strcmp(json_string_value(v), CATALOG_SCHEMA)) {
		fail(err, "schema: expected \"%s\"", CATALOG_SCHEMA);
		goto bad;
	}
	if (!(c->date = get_str(c->root, "catalog_date", "catalog", err)) ||
	    !(c->generated = get_str(c->root, "generated", "catalog", err)))
		goto bad;
	if (!is_date(c->date) || !is_date(c->generated)) {
		fail(err, "catalog_date and generated must be YYYY-MM-DD");
		goto bad;
	}
	v = json_object_get(c->root, "sources");
	if (!json_is_array(v)) {
		fail(err, "sources: missing or not an array");
		goto bad;
	}
	for (i = 0; i < json_array_size(v); i++)
		if (!json_is_string(json_array_get(v, i))) {
			fail(err, "sources[%zu]: must be a string", i);
			goto bad;
		}
	if (load_buckets(c, err) < 0 || load_xids(c, err) < 0 || load_sxids(c, err) < 0)
		goto bad;
	return c;
bad:
	xid_catalog_free(c);
	return NULL;
}

struct xid_catalog *xid_catalog_load(const char *path, char **err)
{
	char *text = NULL, *rerr = NULL;
	size_t len = 0;

	if (err)
		*err = NULL;
	/* the one input reader (core/readfile.h): capped, no device or FIFO hang */
	if (read_input(path, INPUT_POLICY, &text, &len, &rerr) != 0) {
		if (err)
			*err = rerr;
		else
			free(rerr);
		return NULL;
	}
	struct strbuf sb = { text, len, len + 1 };
	struct xid_catalog *c = xid_catalog_parse(sb_str(&sb), sb.len, err);
	sb_free(&sb);
	if (!c && err && *err) {
		char *m = xasprintf("%s: %s", path, *err);
		free(*err);
		*err = m;
	}
	return c;
}

void xid_catalog_free(struct xid_catalog *c)
{
	if (!c)
		return;
	json_decref(c->root);
	free(c->xids);
	free(c->ranges);
	free(c->notes);
	free(c);
}

const struct xid_info *xid_catalog_lookup(const struct xid_catalog *c, int code)
{
	struct xid_info key = { .code = code };
	if (!c)
		return NULL;
	return bsearch(&key, c->xids, c->nxids, sizeof(*c->xids), cmp_xid);
}

int xid_catalog_sxid(const struct xid_catalog *c, int code, struct sxid_info *out)
{
	int found = 0;

	memset(out, 0, sizeof(*out));
	out->code = code;
	if (!c)
		return -1;
	for (size_t i = 0; i < c->nranges; i++) {
		const struct sxid_range *r = &c->ranges[i];
		if (code >= r->first && code <= r->last) {
			out->unit = r->unit;
			out->range_notes = r->notes;
			out->always_fatal = r->always_fatal;
			found = 1;
			break;
		}
	}
	for (size_t i = 0; i < c->nnotes; i++) {
		const struct sxid_note *n = &c->notes[i];
		if (n->code == code) {
			out->notable = 1;
			out->name = n->name;
			out->bucket = n->bucket;
			out->fatal = n->fatal;
			out->action = n->action;
			out->always_fatal |= n->always_fatal;
			found = 1;
			break;
		}
	}
	return found ? 0 : -1;
}

int xid_catalog_bucket_action(const struct xid_catalog *c, const char *bucket,
			      enum xid_action *out)
{
	json_t *v = c && bucket ? json_object_get(c->buckets, bucket) : NULL;
	if (!json_is_string(v))
		return -1;
	return xid_action_parse(json_string_value(v), out);
}

const char *xid_catalog_date(const struct xid_catalog *c)
{
	return c ? c->date : NULL;
}

const char *xid_catalog_generated(const struct xid_catalog *c)
{
	return c ? c->generated : NULL;
}

size_t xid_catalog_count(const struct xid_catalog *c)
{
	return c ? c->nxids : 0;
}
