/* Every shipped policy file (the JSON files in data/, the plans in data/accept/) validates
 * against its embedded schema, and every systematic breakage of it does
 * not:
 *   - every value swapped for another type (number -> "number", string ->
 *     true, boolean -> "true", null -> true, object -> [], array -> {});
 *   - every string replaced by an unknown value ("zz not a value"): it must
 *     fail unless its key is free text (the list below, with the reason);
 *   - every object key copied under a misspelt name, and every key deleted.
 * Deleting a free-text documentation key (notes, note, comment, ...) or a
 * `basis` is allowed; any other key that may be left out, and the maps
 * keyed by data (GPU models, Xid codes, components, ...), are listed below
 * with the reason. An entry that matches nothing fails: the lists cannot go
 * stale. A data file without a schema fails too. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tap.h"
#include "config.h"
#include "core/jschema.h"
#include "core/policyfile.h"
#include "core/strbuf.h"
#include "core/yamljson.h"

enum mut { M_TYPE = 1, M_ENUM = 2, M_MISSPELL = 4, M_DELETE = 8 };

/* file: the data file's name relative to data/ ("accept/" for the plans);
 * pointer: segments, "*" matches any one segment, a trailing "**" any rest. */
struct allow {
	const char *file, *pointer;
	int muts;
	const char *reason;
};

static struct allow allowed[] = {
	/* ---- maps keyed by data: any key of the right shape is a new entry */
	{ "thresholds.json", "/gpu/idle_power_w_max/*", M_MISSPELL | M_DELETE,
	  "keyed by GPU model: a model without a ceiling is SKIP, never graded" },
	{ "thresholds.json", "/probes/budget_s/*", M_MISSPELL | M_DELETE,
	  "keyed by probe check id: a probe without an entry keeps its PROBE line's budget (checks/probes.def)" },
	{ "minimum-versions.json", "/components/*", M_MISSPELL | M_DELETE,
	  "keyed by component id: a component not in the table is UNKNOWN" },
	{ "kernel-series.json", "/faults/*", M_MISSPELL | M_DELETE,
	  "keyed by fault id: a fix naming an unlisted fault is shown by its id" },
	{ "minimum-versions.json", "/components/*/branches/*", M_MISSPELL | M_DELETE,
	  "keyed by driver branch: an unlisted branch takes the nearest rule" },
	{ "minimum-versions.json", "/components/*/trains/*", M_MISSPELL | M_DELETE,
	  "keyed by firmware train" },
	{ "minimum-versions.json", "/components/*/ladder/*", M_MISSPELL | M_DELETE,
	  "keyed by runc major.minor line" },
	{ "minimum-versions.json", "/components/*/lines/*", M_MISSPELL | M_DELETE,
	  "keyed by BlueField release line" },
	{ "minimum-versions.json", "/components/*/programs/*", M_MISSPELL | M_DELETE,
	  "keyed by AMD GPU program" },
	{ "minimum-versions.json", "/components/*/packages/*", M_MISSPELL | M_DELETE,
	  "keyed by distro package key" },
	{ "xid-catalog.json", "/bucket_actions/*", M_MISSPELL | M_DELETE,
	  "keyed by NVIDIA bucket name (the loader checks every xid's bucket is listed)" },
	{ "gpu-models.json", "/architectures/*", M_MISSPELL | M_DELETE, "keyed by sm_NN architecture" },
	{ "gpu-specs.json", "/models/*", M_MISSPELL | M_DELETE,
	  "keyed by GPU model: a model without a spec is measured, not graded" },
	{ "rubric.json", "/categories/*/items/*/map/*", M_MISSPELL | M_DELETE,
	  "keyed by attestation value (the loader checks each is a value of the field)" },
	{ "accept/*", "/variables/*", M_MISSPELL | M_DELETE, "keyed by variable name" },

	/* ---- keys that may be left out: the reader has a documented default */
	{ "thresholds.json", "/probes", M_DELETE, "optional: every probe keeps its PROBE line's budget (checks/probes.def)" },
	{ "minimum-versions.json", "/deferredBulletins", M_DELETE,
	  "refresh state of the published table; cmax does not read it (docs/minimum-versions.md)" },
	{ "minimum-versions.json", "/source", M_DELETE, "optional provenance string (docs/minimum-versions.md)" },
	{ "minimum-versions.json", "/components/*/fixAvailability/bulletinReleased", M_DELETE,
	  "optional: the bulletin date falls back to source.released (docs/minimum-versions.md, grace period)" },
	{ "minimum-versions.json", "/components/*/fixAvailability/version", M_DELETE,
	  "optional record of the fixed release" },
	{ "minimum-versions.json", "/components/*/fixAvailability/tag", M_DELETE, "optional record of the fixed tag" },
	{ "minimum-versions.json", "/components/*/fixAvailability/feed", M_DELETE, "optional record of the feed" },
	{ "minimum-versions.json", "/components/*/source/aId", M_DELETE, "NVIDIA's answer id, where there is one" },
	{ "minimum-versions.json", "/components/*/advisoryRanges", M_DELETE,
	  "optional OSV provenance of a ladder; the ladder decides the grade" },
	{ "minimum-versions.json", "/components/*/advisoryRanges/*/cve", M_DELETE, "an advisory may have no CVE" },
	{ "minimum-versions.json", "/components/*/advisoryRanges/*/introduced", M_DELETE,
	  "optional in OSV ranges" },
	{ "minimum-versions.json", "/components/*/lines/*/legacyAffectedThrough", M_DELETE,
	  "optional per release line" },
	{ "minimum-versions.json", "/components/*/packages/*/abi", M_DELETE,
	  "optional: the ABI falls back to the one in 'fixed'" },
	{ "minimum-versions.json", "/components/*/packages/*/**", M_DELETE,
	  "a package's advisory, cves, advisories, source and fixAvailability are optional: the component's apply" },
	{ "minimum-versions.json", "/deferredBulletins/*/aId", M_DELETE, "NVIDIA's answer id, where there is one" },
	{ "minimum-versions.json", "/deferredBulletins/*/title", M_DELETE, "optional" },
	{ "gpu-models.json", "/models/*/names", M_DELETE, "exact names are optional: prefixes match too" },
	{ "gpu-models.json", "/models/*/host_link", M_DELETE,
	  "only Grace superchips (nvlink-c2c) have one; absent means a PCIe host link" },
	{ "gpu-models.json", "/architectures/*/removed_in", M_DELETE, "only a dropped architecture has one" },
	{ "gpu-models.json", "/architectures/*/method_min_cuda", M_DELETE,
	  "only the architectures the method states a CUDA release for (Blackwell sm_100/sm_103: 13.0+) have one" },
	{ "gemm-shapes.json", "/schema", M_DELETE, "a --shapes file may leave out the schema tag" },
	{ "gemm-shapes.json", "/token_counts/*", M_DELETE,
	  "a --shapes file may hold one mode only: the other is not measured (an ERROR row)" },
	{ "gemm-shapes.json", "/mamf/quick", M_DELETE, "one mode only: the other has no grid (an ERROR row)" },
	{ "gemm-shapes.json", "/mamf/full", M_DELETE, "one mode only: the other has no grid (an ERROR row)" },
	{ "gemm-shapes.json", "/copy/*", M_DELETE, "one mode only: the other has no copy size (an ERROR row)" },
	{ "gemm-shapes.json", "/moe_models/*/shared_experts", M_DELETE, "documentation: shared experts are not run" },
	{ "gemm-shapes.json", "/moe_models/*/source", M_DELETE, "documentation of the shape" },
	{ "gemm-shapes.json", "/mamf/source", M_DELETE, "documentation of the grid" },
	{ "gemm-shapes.json", "/gemv/source", M_DELETE, "documentation of the shape" },
	{ "health-policy.json", "/version", M_DELETE, "not read: the file format has one version" },
	{ "health-policy.json", "/resume_when_clear", M_DELETE, "default false (docs/health.md)" },
	{ "xid-catalog.json", "/xids/*/action_note", M_DELETE,
	  "only a blank bucket needs one (the loader enforces it)" },
	{ "xid-catalog.json", "/sxid_ranges/*/always_fatal", M_DELETE, "default false" },
	{ "xid-catalog.json", "/sxid_notable/*/always_fatal", M_DELETE, "default false" },
	{ "rubric.json", "/categories/*/items/*/exclude", M_DELETE, "optional: no row excluded" },
	{ "rubric.json", "/categories/*/items/*/from", M_DELETE, "default row (docs/rate.md)" },
	{ "rubric.json", "/categories/*/items/*/numerator", M_DELETE, "only a figure that is a time per size has one" },
	{ "rubric.json", "/categories/*/items/*/fail_is_never", M_DELETE, "default false" },
	{ "rubric.json", "/categories/*/items/*/platforms/anchors/*", M_DELETE,
	  "a platform without anchors is scored with the default platform's (the default's are required)" },
	{ "rubric.json", "/categories/*/items/*/platforms/anchors/*/floor", M_DELETE, "default 0: no floor" },
	{ "rubric.json", "/categories/*/items/*/platforms/anchors/*/absent_why", M_DELETE,
	  "optional words for the absent score" },
	{ "rubric.json", "/disqualifiers/*/statuses", M_DELETE, "default [FAIL]" },
	{ "rubric.json", "/disqualifiers/*/rows", M_DELETE,
	  "a gpu_generation disqualifier needs rows or fields, not both" },
	{ "rubric.json", "/disqualifiers/*/fields", M_DELETE,
	  "a gpu_generation disqualifier needs rows or fields, not both" },
	{ "accept/*", "/version", M_DELETE, "optional plan version (docs/accept.md)" },
	{ "accept/*", "/variables", M_DELETE, "optional: a plan without variables" },
	{ "accept/*", "/retest/scope", M_DELETE, "default failed (docs/accept.md)" },
	{ "accept/*", "/retest/window_days", M_DELETE, "optional: no retest window" },
	{ "accept/*", "/tests/*/group", M_DELETE, "default: the test's id (docs/accept.md)" },
	{ "accept/*", "/tests/*/criteria/*/aggregate", M_DELETE, "default each (docs/accept.md)" },

	/* ---- values of more than one type */
	{ "accept/*", "/tests/*/args/*", M_TYPE, "a command argument may be a string or a number" },
	{ "accept/*", "/variables/*", M_TYPE | M_ENUM, "a variable's default: any string or number" },
	{ "accept/*", "/version", M_TYPE, "a plan version may be a string or a number" },
	{ "sla-levels.json", "/version", M_TYPE, "an integer or a string" },
	{ NULL, NULL, 0, NULL },
};
static int allow_used[sizeof(allowed) / sizeof(allowed[0])];

/* Keys whose string values are free text (or data of any shape): an
 * unknown value is not an error there. Matched by the key (for strings in
 * an array, the array's key). */
static const struct {
	const char *key, *reason;
} free_text[] = {
	{ "notes", "documentation" },
	{ "note", "documentation" },
	{ "comment", "documentation" },
	{ "_comment", "documentation" },
	{ "description", "documentation" },
	{ "sources", "documentation" },
	{ "figure", "basis: the figure quoted" },
	{ "reason", "basis and deferred bulletins: why" },
	{ "revisit", "basis: what would change it" },
	{ "title", "a name for people" },
	{ "name", "a name for people" },
	{ "what", "documentation of a source" },
	{ "ref", "documentation of a source" },
	{ "source", "documentation of a source" },
	{ "version", "a version label printed with results" },
	{ "method", "the method's name printed with ratings" },
	{ "mnemonic", "NVIDIA's name of an Xid" },
	{ "investigatory", "NVIDIA's investigatory action, as the catalog words it" },
	{ "class", "the reference's grouping of an Xid, for people" },
	{ "action_note", "documentation" },
	{ "feed", "the upstream feed's name" },
	{ "tag", "the upstream release tag" },
	{ "aId", "NVIDIA's answer id" },
	{ "advisory", "a bulletin reference" },
	{ "advisories", "bulletin references (GHSA, USN, AMD-SB ids or URLs)" },
	{ "id", "an identifier of the file's own choosing (advisory, item, test ids)" },
	{ "package", "a distro package name" },
	{ "prefixes", "names the vendor tool prints" },
	{ "names", "names the vendor tool prints" },
	{ "family", "a GPU family label" },
	{ "rows", "row id patterns" },
	{ "exclude", "row id patterns" },
	{ "path", "a dotted path into a result row" },
	{ "metric", "a dotted path into a result row" },
	{ "doc_metric", "a dotted path into a result document" },
	{ "event", "a timeline event name" },
	{ "absent_if", "a dotted path into a result document" },
	{ "absent_why", "words for people" },
	{ "unit", "a unit label printed with figures" },
	{ "required", "entries the provider's list must hold" },
	{ "args", "command arguments" },
	{ "group", "a retest group name of the plan's choosing" },
	{ "from", "file name patterns (accept) or the figure's origin" },
	{ "reason_prefixes", "reasons the contract calls the customer's" },
	{ "users", "user names" },
	{ "down", "scheduler state names" },
	{ "drain", "scheduler state names" },
	{ "up", "scheduler state names" },
	{ "not_counted", "scheduler state names" },
	{ "key", "a shape key of the file's own choosing" },
	{ "default_level", "a level name (the loader checks it is one of the levels)" },
	{ "url", "a URL" },
	{ NULL, NULL },
};

static int is_doc_key(const char *k)
{
	static const char *const keys[] = { "notes", "note", "comment", "_comment", "description", "sources",
					    "basis", NULL };
	for (int i = 0; keys[i]; i++)
		if (!strcmp(keys[i], k))
			return 1;
	return 0;
}

static int glob_file(const char *pat, const char *file)
{
	size_t n = strlen(pat);
	if (n && pat[n - 1] == '*')
		return !strncmp(pat, file, n - 1);
	return !strcmp(pat, file);
}

/* A pattern such as "/levels/STAR/name" (STAR being "*") against a pointer
 * such as "/levels/0/name"; segments are compared raw. */
static int glob_pointer(const char *pat, const char *ptr)
{
	while (*pat && *ptr) {
		if (*pat != '/' || *ptr != '/')
			return 0;
		pat++;
		ptr++;
		const char *pe = strchr(pat, '/'), *qe = strchr(ptr, '/');
		size_t pl = pe ? (size_t)(pe - pat) : strlen(pat), ql = qe ? (size_t)(qe - ptr) : strlen(ptr);
		if (pl == 2 && !strncmp(pat, "**", 2))
			return 1;
		if (!(pl == 1 && *pat == '*') && (pl != ql || strncmp(pat, ptr, pl)))
			return 0;
		pat += pl;
		ptr += ql;
	}
	return !*pat && !*ptr;
}

static struct allow *find_allow(const char *file, const char *ptr, int mut)
{
	for (struct allow *a = allowed; a->file; a++)
		if ((a->muts & mut) && glob_file(a->file, file) && glob_pointer(a->pointer, ptr)) {
			allow_used[a - allowed] = 1;
			return a;
		}
	return NULL;
}

static int is_free_text(const char *key)
{
	for (int i = 0; key && free_text[i].key; i++)
		if (!strcmp(free_text[i].key, key))
			return 1;
	return 0;
}

struct ctx {
	const char *file;
	const struct jschema *schema;
	json_t *root;
	int tried, survived;
	struct strbuf report;
};

static void expect_invalid(struct ctx *c, const char *ptr, int mut, const char *what)
{
	c->tried++;
	if (jschema_validate(c->schema, c->root, NULL, NULL))
		return;
	if (find_allow(c->file, ptr, mut))
		return;
	c->survived++;
	if (c->survived <= 40)
		sb_addf(&c->report, "#   %s %s: %s still validates\n", c->file, ptr, what);
}

static json_t *swapped(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return json_array();
	case JSON_ARRAY:
		return json_object();
	case JSON_STRING:
		return json_true();
	case JSON_INTEGER:
	case JSON_REAL: {
		char buf[64];
		if (json_is_integer(v))
			snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
		else
			snprintf(buf, sizeof buf, "%.17g", json_real_value(v));
		return json_string(buf);
	}
	case JSON_TRUE:
	case JSON_FALSE:
		return json_string("true");
	case JSON_NULL:
		break;
	}
	return json_true();
}

static char *misspelt(const char *k)
{
	size_t n = strlen(k);
	if (n < 3)
		return xasprintf("%sx", k);
	/* drop the second-to-last character: "warn_below" -> "warn_belw" */
	return xasprintf("%.*s%s", (int)(n - 2), k, k + n - 1);
}

/* Replace parent[key|idx] with nv, validate, restore. */
static void try_value(struct ctx *c, json_t *parent, const char *key, size_t idx, json_t *nv, const char *ptr,
		      int mut, const char *what)
{
	json_t *old = json_incref(json_is_object(parent) ? json_object_get(parent, key) : json_array_get(parent, idx));
	if (json_is_object(parent))
		json_object_set_new(parent, key, nv);
	else
		json_array_set_new(parent, idx, nv);
	expect_invalid(c, ptr, mut, what);
	if (json_is_object(parent))
		json_object_set_new(parent, key, old);
	else
		json_array_set_new(parent, idx, old);
}

static void walk(struct ctx *c, json_t *parent, const char *key, size_t idx, const char *text_key,
		 struct strbuf *ptr);

/* Long arrays of objects (the 172 Xids, the rubric's items) share one item
 * schema: their first SAMPLE entries, the last, and every entry of a shape
 * (keys and types, all the way down) not seen before are mutated, which keeps the test at seconds
 * (also under ASan); every entry is still validated unmutated. Arrays of
 * other values are mutated entirely. */
#define SAMPLE 4

/* The keys and types of a value, all the way down (an array by the distinct
 * shapes of its items). */
static void shape(const json_t *x, struct strbuf *sb)
{
	const char *k;
	json_t *y;
	size_t i;
	if (json_is_array(x)) {
		json_t *seen = json_object();
		sb_adds(sb, "[");
		json_array_foreach((json_t *)x, i, y) {
			struct strbuf one = STRBUF_INIT;
			shape(y, &one);
			if (!json_object_get(seen, sb_str(&one))) {
				json_object_set_new(seen, sb_str(&one), json_true());
				sb_addf(sb, "%s;", sb_str(&one));
			}
			sb_free(&one);
		}
		sb_adds(sb, "]");
		json_decref(seen);
	} else if (json_is_object(x)) {
		sb_adds(sb, "{");
		json_object_foreach((json_t *)x, k, y) {
			sb_addf(sb, "%s:", k);
			shape(y, sb);
			sb_adds(sb, ",");
		}
		sb_adds(sb, "}");
	} else {
		sb_addf(sb, "%d", (int)json_typeof(x));
	}
}

static int sampled(const json_t *a, size_t i, json_t *seen)
{
	size_t n = json_array_size(a);
	const json_t *x = json_array_get(a, i);
	if (n <= 2 * SAMPLE || !json_is_object(x))
		return 1;
	struct strbuf sig = STRBUF_INIT;
	shape(x, &sig);
	int fresh = !json_object_get(seen, sb_str(&sig));
	json_object_set_new(seen, sb_str(&sig), json_true());
	sb_free(&sig);
	return fresh || i < SAMPLE || i + 1 == n;
}

/* The members of v (at ptr): for objects, a misspelt copy and the deletion
 * of every key, then each member's own mutations. */
static void walk_members(struct ctx *c, json_t *v, const char *text_key, struct strbuf *ptr)
{
	if (json_is_object(v)) {
		/* keys first: restoring a deleted key moves it to the end */
		size_t n = json_object_size(v), i = 0;
		char **keys = xcalloc(n + 1, sizeof *keys);
		const char *k;
		json_t *x;
		json_object_foreach(v, k, x)
			keys[i++] = xstrdup(k);
		for (i = 0; i < n; i++) {
			size_t len = ptr->len;
			jschema_pointer_append(ptr, keys[i]);
			char *mk = misspelt(keys[i]);
			json_t *val = json_object_get(v, keys[i]);
			if (!json_object_get(v, mk)) {
				json_object_set(v, mk, val);
				expect_invalid(c, sb_str(ptr), M_MISSPELL, "a misspelt copy of the key");
				json_object_del(v, mk);
			}
			free(mk);
			if (!is_doc_key(keys[i])) {
				json_incref(val);
				json_object_del(v, keys[i]);
				expect_invalid(c, sb_str(ptr), M_DELETE, "deleting the key");
				json_object_set_new(v, keys[i], val);
			}
			walk(c, v, keys[i], 0, keys[i], ptr);
			ptr->len = len;
			ptr->buf[len] = 0;
			free(keys[i]);
		}
		free(keys);
	} else if (json_is_array(v)) {
		json_t *seen = json_object();
		for (size_t i = 0; i < json_array_size(v); i++) {
			if (!sampled(v, i, seen))
				continue;
			size_t len = ptr->len;
			sb_addf(ptr, "/%zu", i);
			walk(c, v, NULL, i, text_key, ptr);
			ptr->len = len;
			ptr->buf[len] = 0;
		}
		json_decref(seen);
	}
}

/* The value parent[key] (or parent[idx]) at ptr: a type swap, an unknown
 * string, then its members. */
static void walk(struct ctx *c, json_t *parent, const char *key, size_t idx, const char *text_key,
		 struct strbuf *ptr)
{
	json_t *v = json_is_object(parent) ? json_object_get(parent, key) : json_array_get(parent, idx);
	const char *p = sb_str(ptr);

	try_value(c, parent, key, idx, swapped(v), p, M_TYPE, "a type swap");
	if (json_is_string(v) && !is_free_text(text_key))
		try_value(c, parent, key, idx, json_string("zz not a value"), p, M_ENUM, "an unknown value");
	/* try_value put the same value back */
	walk_members(c, v, text_key, ptr);
}

static void check_file(const char *dir, const char *rel)
{
	enum policy_format fmt;
	const char *schema = policy_schema_for(rel, &fmt);
	char *path = xasprintf("%s/%s", dir, rel), *err = NULL;
	enum cmax_err rc;

	if (!T_OK(schema, "data/%s has a schema", rel)) {
		free(path);
		return;
	}
	json_t *doc = policy_load(path, schema, fmt, &rc, &err);
	if (!T_OK(doc, "data/%s validates against %s.schema.json", rel, schema)) {
		printf("#   %s\n", err ? err : "?");
		free(err);
		free(path);
		return;
	}
	struct ctx c = { .file = rel, .schema = policy_schema(schema, NULL), .root = doc,
			 .report = STRBUF_INIT };
	struct strbuf ptr = STRBUF_INIT;
	sb_adds(&ptr, "");
	json_t *swap = swapped(doc);
	c.root = swap;
	expect_invalid(&c, "", M_TYPE, "a type swap of the top level");
	json_decref(swap);
	c.root = doc;
	walk_members(&c, doc, NULL, &ptr);
	T_OK(c.survived == 0, "data/%s: all %d mutations fail validation", rel, c.tried);
	if (c.survived)
		printf("%s#   (%d survived)\n", sb_str(&c.report), c.survived);
	/* every mutation was undone: the document still validates */
	char *pp = NULL, *mm = NULL;
	T_OK(!jschema_validate(c.schema, doc, &pp, &mm), "data/%s: restored after the mutations", rel);
	free(pp);
	free(mm);
	sb_free(&c.report);
	sb_free(&ptr);
	json_decref(doc);
	free(path);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void each_file(const char *dir, const char *sub)
{
	char *d = xasprintf("%s%s%s", dir, *sub ? "/" : "", sub);
	DIR *dh = opendir(d);
	struct dirent *de;
	char *names[256];
	int n = 0;
	while (dh && (de = readdir(dh)) && n < 256) {
		struct stat st;
		char *full = xasprintf("%s/%s", d, de->d_name);
		if (de->d_name[0] != '.' && stat(full, &st) == 0 && S_ISREG(st.st_mode) &&
		    strcmp(de->d_name, "README.md"))
			names[n++] = xasprintf("%s%s%s", sub, *sub ? "/" : "", de->d_name);
		free(full);
	}
	if (dh)
		closedir(dh);
	qsort(names, (size_t)n, sizeof *names, cmp);
	for (int i = 0; i < n; i++) {
		check_file(dir, names[i]);
		free(names[i]);
	}
	free(d);
}

int main(void)
{
	const char *dir = getenv("CMAX_DATADIR") && *getenv("CMAX_DATADIR") ? getenv("CMAX_DATADIR")
									 : CMAX_SRC_DATADIR;
	each_file(dir, "");
	each_file(dir, "accept");
	for (struct allow *a = allowed; a->file; a++)
		if (a->muts)
			T_OK(allow_used[a - allowed], "allow-list entry is used: %s %s", a->file, a->pointer);
	return t_done();
}
