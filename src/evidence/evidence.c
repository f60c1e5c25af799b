/* Loading cmax result documents (see evidence.h). */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/exitcodes.h"
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
	free(s->rows);
	memset(s, 0, sizeof *s);
}

static const char *str_at(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

int ev_add_json(struct ev_set *s, json_t *root, const char *label, char **err)
{
	*err = NULL;
	const char *schema = json_is_object(root) ? str_at(root, "schema") : NULL;
	size_t k;
	for (k = 0; schema && k < sizeof schemas / sizeof schemas[0]; k++)
		if (!strcmp(schemas[k].schema, schema))
			break;
	if (!schema || k == sizeof schemas / sizeof schemas[0]) {
		*err = schema ? xasprintf("%s: not a result document cmax can judge (schema %s; expected %s, %s, %s or %s)",
				     label, schema, schemas[0].schema, schemas[1].schema, schemas[2].schema,
				     schemas[3].schema)
			      : xasprintf("%s: not a cmax result document (no \"schema\" field)", label);
		json_decref(root);
		return EXIT_DATAERR;
	}
	json_t *results = json_object_get(root, "results");
	if (!json_is_array(results)) {
		*err = xasprintf("%s: %s document without a \"results\" array", label, schema);
		json_decref(root);
		return EXIT_DATAERR;
	}
	/* Validate every row before adding anything: a half-loaded file would be judged. */
	size_t i;
	json_t *row;
	json_array_foreach(results, i, row) {
		enum status st;
		const char *id = json_is_object(row) ? str_at(row, "id") : NULL;
		const char *sts = json_is_object(row) ? str_at(row, "status") : NULL;
		if (!id || !*id) {
			*err = xasprintf("%s: result %zu has no id", label, i);
			json_decref(root);
			return EXIT_DATAERR;
		}
		if (!sts || status_parse(sts, &st) != 0) {
			*err = xasprintf("%s: result %s has no valid status (PASS, WARN, FAIL, SKIP or ERROR)", label, id);
			json_decref(root);
			return EXIT_DATAERR;
		}
	}
	struct ev_doc *d = calloc(1, sizeof *d);
	struct ev_doc **nd = realloc(s->docs, (s->ndocs + 1) * sizeof *nd);
	if (!d || !nd) {
		free(d);
		if (nd)
			s->docs = nd;
		*err = xasprintf("%s: out of memory", label);
		json_decref(root);
		return EXIT_OSERR;
	}
	s->docs = nd;
	d->path = strdup(label);
	d->kind = schemas[k].kind;
	d->schema = schema;
	d->root = root;
	d->started_at = str_at(root, "started_at");
	const json_t *target = json_object_get(root, "target");
	d->harness = json_is_object(target) ? str_at(target, "harness") : NULL;
	if (!d->harness)
		d->harness = str_at(root, "scheduler");
	switch (d->kind) {
	case EV_AUDIT: d->name = str_at(root, "profile"); break;
	case EV_BENCH: d->name = str_at(root, "benchmark"); break;
	default: d->name = ev_kind_name(d->kind); break;
	}
	s->docs[s->ndocs++] = d;
	json_array_foreach(results, i, row) {
		if (s->nrows == s->cap) {
			size_t nc = s->cap ? s->cap * 2 : 64;
			struct ev_row *nr = realloc(s->rows, nc * sizeof *nr);
			if (!nr) {
				*err = xasprintf("%s: out of memory", label);
				return EXIT_OSERR;
			}
			s->rows = nr;
			s->cap = nc;
		}
		struct ev_row *r = &s->rows[s->nrows++];
		r->doc = d;
		r->json = row;
		r->id = str_at(row, "id");
		r->profile = str_at(row, "profile");
		r->summary = str_at(row, "summary");
		r->host = str_at(row, "host");
		r->mode = str_at(row, "mode");
		status_parse(str_at(row, "status"), &r->status);
		r->observed = json_object_get(row, "observed");
		r->expected = json_object_get(row, "expected");
		if (json_is_null(r->observed))
			r->observed = NULL;
		if (json_is_null(r->expected))
			r->expected = NULL;
	}
	return 0;
}

int ev_load(struct ev_set *s, const char *path, char **err)
{
	*err = NULL;
	struct stat st;
	if (stat(path, &st) != 0) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		return EXIT_NOINPUT;
	}
	char *file = NULL;
	if (S_ISDIR(st.st_mode)) {
		if (asprintf(&file, "%s/audit.results.json", path) < 0)
			return EXIT_OSERR;
		if (stat(file, &st) != 0) {
			*err = xasprintf("%s: a directory without audit.results.json (not an audit run directory)", path);
			free(file);
			return EXIT_NOINPUT;
		}
	} else if (!(file = strdup(path))) {
		return EXIT_OSERR;
	}
	json_error_t je;
	json_t *root = json_load_file(file, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		*err = xasprintf("%s: not valid JSON (line %d: %s)", file, je.line, je.text);
		free(file);
		return EXIT_DATAERR;
	}
	int rc = ev_add_json(s, root, file, err);
	free(file);
	return rc;
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
