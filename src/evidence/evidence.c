/* Loading cmax result documents (see evidence.h). */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/exitcodes.h"
#include "core/jsonget.h"
#include "core/readfile.h"
#include "core/strbuf.h"
#include "evidence/evidence.h"

static const struct {
	const char *schema;
	enum ev_kind kind;
} schemas[] = {
	{ "cmax.audit.results/1", EV_AUDIT },
	{ "cmax.bench.results/1", EV_BENCH },
	{ "cmax.inject/1", EV_INJECT },
	{ "cmax.reboot-test/1", EV_REBOOT },
};

const char *ev_kind_name(enum ev_kind k)
{
	static const char *names[EV__COUNT] = { "audit", "bench", "inject", "reboot-test" };
	return k < EV__COUNT ? names[k] : "?";
}

void ev_init(struct ev_set *s)
{
	memset(s, 0, sizeof *s);
}

void ev_free(struct ev_set *s)
{
	for (size_t i = 0; i < s->ndocs; i++) {
		json_decref(s->docs[i]->root);
		free(s->docs[i]->path);
		free(s->docs[i]);
	}
	free(s->docs);
	for (size_t i = 0; i < s->nrows; i++)
		free(s->rows[i].malformed);
	free(s->rows);
	memset(s, 0, sizeof *s);
}

/* Everything a document must be before anything of it is added: a known
 * schema, a results array whose every row has an id and a status, and a
 * timeline that holds. CE_DATA with *err otherwise; *k is the schema's index. */
static enum cmax_err ev_validate(const json_t *root, const char *label, size_t *kp, char **err)
{
	const char *schema = json_is_object(root) ? jget_str(root, "schema") : NULL;
	size_t k;
	for (k = 0; schema && k < sizeof schemas / sizeof schemas[0]; k++)
		if (!strcmp(schemas[k].schema, schema))
			break;
	if (!schema || k == sizeof schemas / sizeof schemas[0]) {
		*err = schema ? xasprintf("%s: not a result document cmax can judge (schema %s; expected %s, %s, %s or %s)",
				     label, schema, schemas[0].schema, schemas[1].schema, schemas[2].schema,
				     schemas[3].schema)
			      : xasprintf("%s: not a cmax result document (no \"schema\" field)", label);
		return CE_DATA;
	}
	const json_t *results = json_object_get(root, "results");
	if (!json_is_array(results)) {
		*err = xasprintf("%s: %s document without a \"results\" array", label, schema);
		return CE_DATA;
	}
	/* Validate every row before adding anything: a half-loaded file would be judged. */
	size_t i;
	json_t *row;
	json_array_foreach(results, i, row) {
		enum status st;
		const char *id = json_is_object(row) ? jget_str(row, "id") : NULL;
		const char *sts = json_is_object(row) ? jget_str(row, "status") : NULL;
		if (!id || !*id) {
			*err = xasprintf("%s: result %zu has no id", label, i);
			return CE_DATA;
		}
		if (!sts || status_parse(sts, &st) != 0) {
			*err = xasprintf("%s: result %s has no valid status (PASS, WARN, FAIL, SKIP or ERROR)", label, id);
			return CE_DATA;
		}
	}
	/* The timeline every row was derived from: broken, nothing in the document holds. */
	char *broken = ev_doc_check(root, schemas[k].kind);
	if (broken) {
		*err = xasprintf("%s: malformed evidence: %s", label, broken);
		free(broken);
		return CE_DATA;
	}
	*kp = k;
	return CE_OK;
}

/* The document's own fields: kind, schema, start, harness, name. */
static void ev_doc_fill(struct ev_doc *d, json_t *root, const char *label, size_t k)
{
	d->path = strdup(label);
	d->kind = schemas[k].kind;
	d->schema = jget_str(root, "schema");
	d->root = root;
	d->started_at = jget_str(root, "started_at");
	const json_t *target = json_object_get(root, "target");
	d->harness = json_is_object(target) ? jget_str(target, "harness") : NULL;
	if (!d->harness)
		d->harness = jget_str(root, "scheduler");
	switch (d->kind) {
	case EV_AUDIT: d->name = jget_str(root, "profile"); break;
	case EV_BENCH: d->name = jget_str(root, "benchmark"); break;
	default: d->name = ev_kind_name(d->kind); break;
	}
}

/* One row of d into s. CE_OS when the rows cannot grow. */
static enum cmax_err ev_add_row(struct ev_set *s, struct ev_doc *d, json_t *row, const char *label, char **err)
{
	if (s->nrows == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 64;
		struct ev_row *nr = realloc(s->rows, nc * sizeof *nr);
		if (!nr) {
			*err = xasprintf("%s: out of memory", label);
			return CE_OS;
		}
		s->rows = nr;
		s->cap = nc;
	}
	struct ev_row *r = &s->rows[s->nrows++];
	r->doc = d;
	r->json = row;
	r->id = jget_str(row, "id");
	r->profile = jget_str(row, "profile");
	r->summary = jget_str(row, "summary");
	r->host = jget_str(row, "host");
	r->mode = jget_str(row, "mode");
	status_parse(jget_str(row, "status"), &r->status);
	r->malformed = ev_row_check(row);
	r->observed = json_object_get(row, "observed");
	r->expected = json_object_get(row, "expected");
	if (json_is_null(r->observed))
		r->observed = NULL;
	if (json_is_null(r->expected))
		r->expected = NULL;
	return CE_OK;
}

enum cmax_err ev_add_json(struct ev_set *s, json_t *root, const char *label, char **err)
{
	*err = NULL;
	size_t k = 0;
	enum cmax_err rc = ev_validate(root, label, &k, err);
	if (rc != CE_OK) {
		json_decref(root);
		return rc;
	}
	struct ev_doc *d = calloc(1, sizeof *d);
	struct ev_doc **nd = realloc(s->docs, (s->ndocs + 1) * sizeof *nd);
	if (!d || !nd) {
		free(d);
		if (nd)
			s->docs = nd;
		*err = xasprintf("%s: out of memory", label);
		json_decref(root);
		return CE_OS;
	}
	s->docs = nd;
	ev_doc_fill(d, root, label, k);
	s->docs[s->ndocs++] = d;
	size_t i;
	json_t *row;
	json_array_foreach(json_object_get(root, "results"), i, row)
		if ((rc = ev_add_row(s, d, row, label, err)) != CE_OK)
			return rc;
	return CE_OK;
}

enum cmax_err ev_load(struct ev_set *s, const char *path, char **err)
{
	*err = NULL;
	struct stat st;
	if (stat(path, &st) != 0) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		return CE_NOINPUT;
	}
	char *file = NULL;
	if (S_ISDIR(st.st_mode)) {
		if (asprintf(&file, "%s/audit.results.json", path) < 0)
			return CE_OS;
		if (stat(file, &st) != 0) {
			*err = xasprintf("%s: a directory without audit.results.json (not an audit run directory)", path);
			free(file);
			return CE_NOINPUT;
		}
	} else if (!(file = strdup(path))) {
		return CE_OS;
	}
	json_t *root = NULL;
	enum cmax_err rc = ev_load_json(file, &root, err);
	if (rc) {
		free(file);
		return rc;
	}
	rc = ev_add_json(s, root, file, err);
	free(file);
	return rc;
}

enum cmax_err ev_load_json(const char *path, json_t **root, char **err)
{
	char *buf = NULL;
	size_t len = 0;
	json_error_t je;
	*root = NULL;
	enum cmax_err rc = read_input(path, INPUT_RESULTS, &buf, &len, err);
	if (rc)
		return rc;
	*root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	free(buf);
	if (!*root) {
		*err = xasprintf("%s: not valid JSON (line %d: %s)", path, je.line, je.text);
		return CE_DATA;
	}
	return CE_OK;
}

const struct ev_row *ev_next(const struct ev_set *s, const char *pattern, size_t *pos)
{
	while (*pos < s->nrows) {
		const struct ev_row *r = &s->rows[(*pos)++];
		if (!pattern || fnmatch(pattern, r->id, 0) == 0)
			return r;
	}
	return NULL;
}

size_t ev_count(const struct ev_set *s, const char *pattern, size_t counts[ST__COUNT])
{
	size_t pos = 0, n = 0;
	const struct ev_row *r;
	if (counts)
		memset(counts, 0, ST__COUNT * sizeof counts[0]);
	while ((r = ev_next(s, pattern, &pos))) {
		n++;
		if (counts)
			counts[r->status]++;
	}
	return n;
}

const json_t *ev_get(const json_t *v, const char *path)
{
	const char *p = path;
	while (v && *p) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		char key[256];
		if (len == 0 || len >= sizeof key)
			return NULL;
		memcpy(key, p, len);
		key[len] = 0;
		if (json_is_object(v)) {
			v = json_object_get(v, key);
		} else if (json_is_array(v)) {
			char *end;
			errno = 0;
			unsigned long idx = strtoul(key, &end, 10);
			if (*end || errno || key[0] == '-')
				return NULL;
			v = json_array_get(v, idx);
		} else {
			return NULL;
		}
		p += len;
		if (*p == '.')
			p++;
	}
	return v;
}

int ev_number(const json_t *v, const char *path, double *out)
{
	const json_t *x = ev_get(v, path);
	if (!json_is_number(x))
		return 0;
	*out = json_number_value(x);
	return 1;
}

/* ---- malformed evidence ----------------------------------------------------- */

#define YEAR_S 31536000.0 /* 365 days */

/* Every bound is cmax's declared choice: far outside what any real run
 * records, so that only a broken writer, a broken clock or a hand-edited
 * file falls outside. Most specific suffix first. */
static const struct ev_bound bounds[] = {
	{ "epoch", "_epoch_s", NULL, 0, 4102444800.0,
	  "declared: seconds since 1970-01-01; no cmax run happened before 1970 or after 2100 (revisit in 2099)" },
	{ "network rate", "_gbit_s", NULL, 0, 1e5,
	  "declared: 100 Tbit/s is 125 times an 800G NIC and beyond any port or host link built; the method's figures "
	  "run from 0.25 Gbit/s (WAN) to 800 Gbit/s (CX-8 rails)" },
	{ "bandwidth", "_gb_s", "GB/s", 0, 1e5,
	  "declared: 100 TB/s is about ten times the fastest file system in production and beyond any host's storage or "
	  "NVLink domain; the method's largest figure is 91.7 GB/s aggregate over 32 clients" },
	{ "bandwidth", "_mb_s", "MB/s", 0, 1e8, "declared: 100 TB/s, as for GB/s" },
	{ "bandwidth", "_bytes_per_s", "B/s", 0, 1e14, "declared: 100 TB/s, as for GB/s" },
	{ "operation rate", "_per_s", "/s", 0, 1e10,
	  "declared: ten billion operations a second is a thousand times a fast NVMe's random IOPS; metadata, S3 and "
	  "lock rates are far lower" },
	{ "operation rate", "_iops", "IOPS", 0, 1e10, "declared: as for operations per second" },
	{ "duration", "_ns", "ns", 0, YEAR_S * 1e9, "declared: one year, as for seconds" },
	{ "duration", "_us", "us", 0, YEAR_S * 1e6, "declared: one year, as for seconds" },
	{ "duration", "_ms", "ms", 0, YEAR_S * 1e3, "declared: one year, as for seconds" },
	{ "duration", "_s", "s", 0, YEAR_S,
	  "declared: nothing cmax times (an import, a model load, a pull, a detection, a return to service, a reboot, a "
	  "benchmark phase) is observed for a year, and no duration is negative; the method's longest figure is 8 h 40 min" },
	{ "line-rate ratio", "_line_ratio", "x line rate", 0, 2,
	  "declared: a share of a link's rate; in-network reduction (SHARP, NVLS) at most halves the bytes each NIC "
	  "carries, so bus bandwidth can reach but not pass twice the line rate" },
	{ "ratio", "_ratio", NULL, 0, 1e9,
	  "declared: a ratio of two non-negative measurements; above 10^9 the baseline was a near-zero division, not a "
	  "measurement" },
	{ "degradation", "_degradation_pct", NULL, -1e4, 100,
	  "declared: 100 x (1 - later / first bandwidth) cannot lose more than everything (100) and may be negative when "
	  "the first interval was cold; a hundredfold rise (-10000) is a broken first interval" },
	{ "percentage", "_pct", "%", -100, 100,
	  "declared: a share or a change of a whole; beyond -100..100 it is not a percentage of anything measured" },
	{ "size", "_bytes", "bytes", 0, 1e18, "declared: an exabyte; nothing cmax moves or counts is larger or negative" },
};

const struct ev_bound *ev_bounds(size_t *n)
{
	*n = sizeof bounds / sizeof bounds[0];
	return bounds;
}

static int name_has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);
	/* "gb_s" is the bare unit of "_gb_s": a field named only by its unit */
	if (!strcmp(name, suffix + 1))
		return 1;
	return n > k && !strcmp(name + n - k, suffix);
}

const struct ev_bound *ev_bound_of(const char *path, const char *unit)
{
	const char *last = path ? strrchr(path, '.') : NULL;
	last = last ? last + 1 : path;
	for (size_t i = 0; last && *last && i < sizeof bounds / sizeof bounds[0]; i++)
		if (name_has_suffix(last, bounds[i].suffix))
			return &bounds[i];
	for (size_t i = 0; unit && i < sizeof bounds / sizeof bounds[0]; i++)
		if (bounds[i].unit && !strcmp(bounds[i].unit, unit))
			return &bounds[i];
	return NULL;
}

static const char *json_kind_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "a mapping";
	case JSON_ARRAY: return "a list";
	case JSON_STRING: return "a string";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "a number";
	}
}

enum ev_val ev_value(const json_t *v, const char *path, const char *unit, double *out, char *why, size_t whyn)
{
	if (!v || json_is_null(v))
		return EVV_ABSENT;
	const struct ev_bound *b = ev_bound_of(path, unit);
	if (!json_is_number(v)) {
		if (json_is_string(v))
			snprintf(why, whyn, "\"%.40s\" is a string, not a number%s", json_string_value(v),
				 b ? "" : " (a figure is a number or null)");
		else
			snprintf(why, whyn, "%s, not a number (a figure is a number or null)", json_kind_name(v));
		return EVV_MALFORMED;
	}
	double d = json_number_value(v);
	if (!isfinite(d)) {
		snprintf(why, whyn, "not a finite number");
		return EVV_MALFORMED;
	}
	if (d == 0)
		d = 0; /* -0 is 0 */
	if (b && (d < b->lo || d > b->hi)) {
		snprintf(why, whyn, "%g is %s %g%s%s (%s)", d, d < b->lo ? "below" : "above", d < b->lo ? b->lo : b->hi,
			 b->unit ? " " : "", b->unit ? b->unit : "", b->quantity);
		return EVV_MALFORMED;
	}
	if (!b && fabs(d) > EV_MAX_MAGNITUDE) {
		snprintf(why, whyn, "%g is beyond %g, more than any figure cmax records", d, EV_MAX_MAGNITUDE);
		return EVV_MALFORMED;
	}
	*out = d;
	return EVV_OK;
}

enum ev_val ev_figure(const json_t *root, const char *path, const char *unit, double *out, char *why, size_t whyn)
{
	return ev_value(ev_get(root, path), path, unit, out, why, whyn);
}

static char *walk_observed(const json_t *o, struct strbuf *path, int depth)
{
	const char *k;
	json_t *x;
	if (depth > 4)
		return NULL;
	json_object_foreach((json_t *)o, k, x) {
		size_t mark = path->len;
		sb_addf(path, ".%s", k);
		char *bad = NULL;
		if (json_is_object(x)) {
			bad = walk_observed(x, path, depth + 1);
		} else if (!json_is_array(x) && ev_bound_of(k, NULL)) {
			/* only unit-named fields: their meaning is known */
			char why[160];
			double d;
			if (ev_value(x, k, NULL, &d, why, sizeof why) == EVV_MALFORMED)
				bad = xasprintf("%s: %s", sb_str(path), why);
		}
		if (bad)
			return bad;
		path->len = mark;
		path->buf[mark] = 0;
	}
	return NULL;
}

char *ev_row_check(const json_t *row)
{
	const json_t *ob = json_object_get(row, "observed");
	if (!json_is_object(ob))
		return NULL;
	struct strbuf path = STRBUF_INIT;
	sb_adds(&path, "observed");
	char *bad = walk_observed(ob, &path, 0);
	sb_free(&path);
	return bad;
}

/* Event lists: offset_s (and epoch_s) of each event. */
static char *check_events(const json_t *evs, const char *where)
{
	size_t i;
	json_t *e;
	json_array_foreach(evs, i, e) {
		static const char *const keys[] = { "offset_s", "epoch_s" };
		for (size_t k = 0; k < 2; k++) {
			char why[160];
			double d;
			if (ev_figure(e, keys[k], NULL, &d, why, sizeof why) == EVV_MALFORMED)
				return xasprintf("%s.%zu.%s: %s", where, i, keys[k], why);
		}
	}
	return NULL;
}

char *ev_doc_check(const json_t *root, enum ev_kind kind)
{
	if (kind == EV_INJECT)
		return check_events(ev_get(root, "timeline.events"), "timeline.events");
	if (kind == EV_REBOOT)
		return check_events(json_object_get(root, "events"), "events");
	return NULL;
}
