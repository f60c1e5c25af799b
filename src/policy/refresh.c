#include "policy/refresh.h"
#include "core/strbuf.h"
#include "policy/version.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Which advisories speak for which component. OSV names the package
 * exactly (and its ecosystem); CSAF names products in words, so a CSAF
 * product matches when its branch path contains `match` (and `also`,
 * e.g. the Linux driver, not the Windows one). Declared from the feeds'
 * own naming: the GitHub advisory database's Go module paths, NVIDIA's
 * product names in its bulletins, Ubuntu's OSV ecosystems. */
struct feed_map {
	const char *component;
	const char *feed;      /* "OSV" or "CSAF" */
	const char *match;     /* OSV: package name (NULL = any, with ecosystem); CSAF: words in the product path */
	const char *ecosystem; /* OSV: exact ecosystem */
	const char *also;      /* CSAF: a second word the path must have */
};

static const struct feed_map feed_maps[] = {
	{ "runc", "OSV", "github.com/opencontainers/runc", "Go", NULL },
	{ "docker", "OSV", "github.com/docker/docker", "Go", NULL },
	{ "docker", "OSV", "github.com/moby/moby", "Go", NULL },
	{ "nvidiaContainerToolkit", "OSV", "github.com/NVIDIA/nvidia-container-toolkit", "Go", NULL },
	{ "nvidiaContainerToolkit", "CSAF", "Container Toolkit", NULL, NULL },
	{ "nvidiaDriver", "CSAF", "GPU Display Driver", NULL, "Linux" },
	{ "cudaToolkit", "CSAF", "CUDA Toolkit", NULL, NULL },
	{ "dcgm", "CSAF", "Data Center GPU Manager", NULL, NULL },
	{ "ubuntuNoble", "OSV", NULL, "Ubuntu:24.04:LTS", NULL },
};

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static int fix_matches(const struct feed_map *m, const json_t *adv, const json_t *fix)
{
	const char *feed = jstr(adv, "feed"), *pkg = jstr(fix, "package"), *eco = jstr(fix, "ecosystem");
	if (!feed || !pkg)
		return 0;
	if (!strcmp(m->feed, "OSV"))
		return !strcmp(feed, "OSV") && eco && !strcmp(eco, m->ecosystem) && (!m->match || !strcmp(pkg, m->match));
	return strstr(feed, "CSAF") && strstr(pkg, m->match) && (!m->also || strstr(pkg, m->also));
}

/* -1, 0, 1; unparseable versions sort below everything (never raise a floor). */
static int vcmp(const char *a, const char *b)
{
	int res;
	if (!a)
		return -1;
	if (!b)
		return 1;
	return ver_compare(a, b, &res) == 0 ? res : -1;
}

static void note(json_t *changes, const char *component, const char *entry, const char *from, const char *to,
		 const json_t *adv)
{
	json_t *c = json_object();
	json_object_set_new(c, "component", json_string(component));
	json_object_set_new(c, "entry", entry ? json_string(entry) : json_null());
	json_object_set_new(c, "from", from ? json_string(from) : json_null());
	json_object_set_new(c, "to", json_string(to));
	json_object_set_new(c, "feed", json_string(jstr(adv, "feed")));
	json_object_set_new(c, "advisory", json_string(jstr(adv, "id")));
	json_object_set_new(c, "file", jstr(adv, "file") ? json_string(jstr(adv, "file")) : json_null());
	json_object_set_new(c, "url", jstr(adv, "url") ? json_string(jstr(adv, "url")) : json_null());
	json_array_append_new(changes, c);
}

/* Where the moved floor now comes from, on the object that holds it. */
static void set_provenance(json_t *obj, const json_t *adv, const char *version, const char *today)
{
	const char *url = jstr(adv, "url"), *pub = jstr(adv, "published"), *feed = jstr(adv, "feed");
	json_t *src = json_object();
	json_object_set_new(src, "feed", json_string(feed));
	json_object_set_new(src, "title", json_string(jstr(adv, "title")));
	json_object_set_new(src, "url", json_string(url ? url : "unknown"));
	json_object_set_new(src, "released", pub ? json_string(pub) : json_null());
	json_object_set_new(obj, "source", src);
	if (url)
		json_object_set_new(obj, "advisory", json_string(url));
	json_t *fa = json_object();
	json_object_set_new(fa, "available", pub ? json_string(pub) : json_null());
	if (pub)
		json_object_set_new(fa, "bulletinReleased", json_string(pub));
	json_object_set_new(fa, "feed", json_string(feed));
	/* the advisory names the fixed release, so the fix exists */
	json_object_set_new(fa, "status", json_string(pub ? "confirmed" : "pending"));
	json_object_set_new(fa, "version", json_string(version));
	json_object_set_new(obj, "fixAvailability", fa);
	json_t *cves = json_object_get(obj, "cves"), *v;
	if (!json_is_array(cves)) {
		cves = json_array();
		json_object_set_new(obj, "cves", cves);
	}
	size_t i, j;
	json_array_foreach(json_object_get(adv, "cves"), i, v) {
		int have = 0;
		json_t *w;
		json_array_foreach(cves, j, w)
			have |= json_equal(v, w);
		if (!have)
			json_array_append(cves, v);
	}
	json_t *ads = json_object_get(obj, "advisories");
	if (!json_is_array(ads)) {
		ads = json_array();
		json_object_set_new(obj, "advisories", ads);
	}
	json_array_append_new(ads, json_string(jstr(adv, "id")));
	char *fig = xasprintf("%s %s '%s' (saved feed file %s): fixed in %s; applied offline by cmax minimums refresh",
			      feed, jstr(adv, "id"), jstr(adv, "title"), jstr(adv, "file") ? jstr(adv, "file") : "?", version);
	json_t *basis = json_pack("{s:s, s:s, s:s, s:s}", "kind", "source", "url", url ? url : "unknown", "checked",
				  today, "figure", fig);
	free(fig);
	json_object_set_new(obj, "basis", basis);
}

/* One fixed version of one advisory against one component entry. */
static void apply_fix(json_t *comp, const char *name, const json_t *adv, const json_t *fix, const char *today,
		      json_t *changes)
{
	const char *kind = jstr(comp, "kind"), *ver = jstr(fix, "version");
	if (!kind || !ver)
		return;
	if (!strcmp(kind, "minimum")) {
		const char *cur = jstr(comp, "minimum");
		if (vcmp(ver, cur) > 0) {
			note(changes, name, NULL, cur, ver, adv);
			json_object_set_new(comp, "minimum", json_string(ver));
			set_provenance(comp, adv, ver, today);
		}
	} else if (!strcmp(kind, "ladder") || !strcmp(kind, "branchMap")) {
		int ladder = !strcmp(kind, "ladder");
		json_t *map = json_object_get(comp, ladder ? "ladder" : "branches");
		struct ver v;
		if (!json_is_object(map) || ver_parse(ver, &v) != 0)
			return;
		char key[VER_MM_MAX];
		if (ladder)
			snprintf(key, sizeof key, "%ld.%ld", v.part[0], v.part[1]);
		else
			snprintf(key, sizeof key, "%ld", v.part[0]);
		const char *cur = jstr(map, key);
		if (vcmp(ver, cur) > 0) {
			note(changes, name, key, cur, ver, adv);
			json_object_set_new(map, key, json_string(ver));
			set_provenance(comp, adv, ver, today);
		}
	} else if (!strcmp(kind, "distroPackages")) {
		const char *k;
		json_t *p;
		json_object_foreach(json_object_get(comp, "packages"), k, p) {
			const char *pkg = jstr(p, "package"), *cur = jstr(p, "fixed");
			if (!pkg || strcmp(pkg, jstr(fix, "package")) || dpkg_version_cmp(ver, cur) <= 0)
				continue;
			/* a distribution fixes many CVEs per notice: the notice moves
			 * this entry only when it fixes one of the entry's CVEs */
			int hit = 0;
			size_t i, j;
			json_t *a, *b;
			json_array_foreach(json_object_get(adv, "cves"), i, a)
				json_array_foreach(json_object_get(p, "cves"), j, b)
					hit |= json_equal(a, b);
			if (!hit)
				continue;
			note(changes, name, k, cur, ver, adv);
			json_object_set_new(p, "fixed", json_string(ver));
			const char *dash = strchr(ver, '-');
			if (json_object_get(p, "abi") && dash)
				json_object_set_new(p, "abi", json_integer(strtol(dash + 1, NULL, 10)));
			set_provenance(p, adv, ver, today);
		}
	}
}

json_t *minimums_refresh(const json_t *table, const json_t *advisories, const char *today, json_t **changes)
{
	json_t *out = json_deep_copy(table), *comps = json_object_get(out, "components"), *adv, *fix;
	*changes = json_array();
	const char *newest = jstr(out, "generated");
	size_t i, j;
	json_array_foreach(advisories, i, adv) {
		json_array_foreach(json_object_get(adv, "fixes"), j, fix)
			for (size_t m = 0; m < sizeof feed_maps / sizeof feed_maps[0]; m++) {
				json_t *comp = json_object_get(comps, feed_maps[m].component);
				if (comp && fix_matches(&feed_maps[m], adv, fix))
					apply_fix(comp, feed_maps[m].component, adv, fix, today, *changes);
			}
		const char *pub = jstr(adv, "published");
		if (pub && (!newest || strncmp(pub, newest, 10) > 0))
			newest = pub;
	}
	/* the table is as fresh as the newest advisory it was built from, not
	 * as the day it was rebuilt: old feed files keep a stale table stale */
	if (newest && strlen(newest) == 10) {
		char *g = xasprintf("%sT00:00:00Z", newest);
		json_object_set_new(out, "generated", json_string(g));
		free(g);
	}
	return out;
}
