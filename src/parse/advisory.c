#include "parse/advisory.h"
#include "core/strbuf.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* The date part of an RFC 3339 time ("2026-06-13T10:00:00Z" -> "2026-06-13"). */
static json_t *date_of(const char *t)
{
	if (!t || strlen(t) < 10 || t[4] != '-' || t[7] != '-')
		return json_null();
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !isdigit((unsigned char)t[i]))
			return json_null();
	return json_stringn(t, 10);
}

static void add_fix(json_t *fixes, const char *package, const char *ecosystem, const char *version)
{
	if (!package || !version || !*version || strlen(version) > 64)
		return;
	json_t *f = json_object();
	json_object_set_new(f, "package", json_string(package));
	if (ecosystem)
		json_object_set_new(f, "ecosystem", json_string(ecosystem));
	json_object_set_new(f, "version", json_string(version));
	json_array_append_new(fixes, f);
}

static void add_cve(json_t *cves, const char *s)
{
	if (!s || strncmp(s, "CVE-", 4) != 0)
		return;
	size_t i;
	json_t *v;
	json_array_foreach(cves, i, v)
		if (!strcmp(json_string_value(v), s))
			return;
	json_array_append_new(cves, json_string(s));
}

static json_t *parse_osv(json_t *doc)
{
	json_t *a = json_object(), *cves = json_array(), *fixes = json_array(), *v, *af;
	size_t i, j, k;
	json_object_set_new(a, "feed", json_string("OSV"));
	json_object_set_new(a, "id", json_string(jstr(doc, "id")));
	const char *title = jstr(doc, "summary");
	json_object_set_new(a, "title", json_string(title ? title : jstr(doc, "id")));
	const char *url = NULL;
	json_array_foreach(json_object_get(doc, "references"), i, v)
		if (!url || (jstr(v, "type") && !strcmp(jstr(v, "type"), "ADVISORY")))
			url = jstr(v, "url");
	json_object_set_new(a, "url", url ? json_string(url) : json_null());
	json_object_set_new(a, "published", date_of(jstr(doc, "published")));
	add_cve(cves, jstr(doc, "id"));
	json_array_foreach(json_object_get(doc, "aliases"), i, v)
		add_cve(cves, json_string_value(v));
	json_array_foreach(json_object_get(doc, "upstream"), i, v)
		add_cve(cves, json_string_value(v));
	/* a withdrawn record fixes nothing any more */
	if (!jstr(doc, "withdrawn")) {
		json_array_foreach(json_object_get(doc, "affected"), i, af) {
			json_t *pkg = json_object_get(af, "package"), *range;
			json_array_foreach(json_object_get(af, "ranges"), j, range) {
				json_t *ev;
				json_array_foreach(json_object_get(range, "events"), k, ev)
					add_fix(fixes, jstr(pkg, "name"), jstr(pkg, "ecosystem"), jstr(ev, "fixed"));
			}
		}
	}
	json_object_set_new(a, "cves", cves);
	json_object_set_new(a, "fixes", fixes);
	return a;
}

/* product_id -> {package, version}: the branch names down to the product,
 * the product_version branch as its version. Depth-bounded. */
static void csaf_walk(json_t *branches, const char *path, const char *version, json_t *ids, int depth)
{
	if (depth > 16)
		return;
	size_t i;
	json_t *b;
	json_array_foreach(branches, i, b) {
		const char *cat = jstr(b, "category"), *name = jstr(b, "name");
		if (!name)
			continue;
		int is_version = cat && (!strcmp(cat, "product_version") || !strcmp(cat, "product_version_range"));
		char *p = is_version ? xstrdup(path) : xasprintf("%s%s%s", path, *path ? " " : "", name);
		const char *ver = is_version && !strcmp(cat, "product_version") ? name : version;
		json_t *prod = json_object_get(b, "product");
		const char *pid = jstr(prod, "product_id");
		if (pid) {
			json_t *e = json_object();
			json_object_set_new(e, "package", json_string(p));
			json_object_set_new(e, "version", ver ? json_string(ver) : json_null());
			json_object_set_new(e, "name", json_string(jstr(prod, "name") ? jstr(prod, "name") : p));
			json_object_set_new(ids, pid, e);
		}
		csaf_walk(json_object_get(b, "branches"), p, ver, ids, depth + 1);
		free(p);
	}
}

/* "NVIDIA GPU Display Driver R580 for Linux 580.159.03" -> "580.159.03" */
static char *last_version_word(const char *name)
{
	char *best = NULL;
	const char *p = name;
	while (p && *p) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (n && isdigit((unsigned char)*p) && memchr(p, '.', n)) {
			free(best);
			best = xstrndup(p, n);
		}
		p += n;
	}
	return best;
}

static json_t *parse_csaf(json_t *doc)
{
	json_t *d = json_object_get(doc, "document"), *a = json_object(), *cves = json_array(), *fixes = json_array();
	json_t *tr = json_object_get(d, "tracking"), *v, *vul;
	size_t i, j;
	const char *pub = jstr(json_object_get(d, "publisher"), "name");
	json_object_set_new(a, "feed", json_string(pub && strstr(pub, "NVIDIA") ? "NVIDIA CSAF" : "CSAF"));
	json_object_set_new(a, "id", json_string(jstr(tr, "id") ? jstr(tr, "id") : "?"));
	json_object_set_new(a, "title", json_string(jstr(d, "title") ? jstr(d, "title") : "?"));
	const char *url = NULL;
	json_array_foreach(json_object_get(d, "references"), i, v)
		if (!url || (jstr(v, "category") && !strcmp(jstr(v, "category"), "self")))
			url = jstr(v, "url");
	json_object_set_new(a, "url", url ? json_string(url) : json_null());
	json_object_set_new(a, "published", date_of(jstr(tr, "initial_release_date")));
	json_t *ids = json_object();
	csaf_walk(json_object_get(json_object_get(doc, "product_tree"), "branches"), "", NULL, ids, 0);
	json_t *seen = json_object();
	json_array_foreach(json_object_get(doc, "vulnerabilities"), i, vul) {
		add_cve(cves, jstr(vul, "cve"));
		json_t *st = json_object_get(vul, "product_status");
		static const char *const lists[] = { "fixed", "first_fixed" };
		for (size_t l = 0; l < 2; l++) {
			json_array_foreach(json_object_get(st, lists[l]), j, v) {
				const char *pid = json_string_value(v);
				json_t *e = pid ? json_object_get(ids, pid) : NULL;
				if (!e || json_object_get(seen, pid))
					continue;
				json_object_set_new(seen, pid, json_true());
				const char *ver = jstr(e, "version");
				char *guess = ver ? NULL : last_version_word(jstr(e, "name"));
				add_fix(fixes, jstr(e, "package"), NULL, ver ? ver : guess);
				free(guess);
			}
		}
	}
	json_decref(seen);
	json_decref(ids);
	json_object_set_new(a, "cves", cves);
	json_object_set_new(a, "fixes", fixes);
	return a;
}

json_t *advisory_parse(const char *buf, size_t len, char **err)
{
	json_error_t je;
	json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		*err = xasprintf("not JSON (line %d: %s)", je.line, je.text);
		return NULL;
	}
	json_t *out = NULL;
	json_t *d = json_object_get(doc, "document");
	if (json_is_object(d) && jstr(d, "csaf_version") && json_is_object(json_object_get(d, "tracking"))) {
		out = parse_csaf(doc);
	} else if (json_is_object(doc) && jstr(doc, "id") && (json_is_array(json_object_get(doc, "affected")) ||
							    jstr(doc, "withdrawn"))) {
		out = parse_osv(doc);
	} else {
		*err = xstrdup("neither an OSV record (id, affected) nor a CSAF document (document.csaf_version)");
	}
	json_decref(doc);
	return out;
}
