/* src/core/jschema.c against the official JSON Schema Test Suite (Debian
 * package json-schema-test-suite, in .ci/packages), plus the messages and
 * pointers cmax's users read.
 *
 * The suite's draft2020-12 files run when the installed suite has them
 * (JSON-Schema-Test-Suite 2.0.0, Debian 12's package, stops at draft7).
 * Otherwise the draft7 files of the same keywords run, translated to
 * 2020-12 spelling: definitions -> $defs, items [array] -> prefixItems with
 * additionalItems -> items, dependencies on key lists -> dependentRequired,
 * and a $ref's siblings dropped (draft 7 ignores them). Every case that
 * does not run is in the skip list below with its reason; an entry that
 * matches nothing fails, so the list cannot go stale.
 * JSON_SCHEMA_TEST_SUITE names another suite's tests/ directory. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tap.h"
#include "config.h"
#include "core/exitcodes.h"
#include "core/jschema.h"
#include "core/policyfile.h"
#include "core/strbuf.h"
#include "core/yamljson.h"

#define SUITE_DEFAULT "/usr/share/json-schema-test-suite/tests"

/* The keywords cmax implements, by test file. */
static const char *const files_2020[] = {
	"additionalProperties", "allOf", "anyOf", "boolean_schema", "const", "default", "defs",
	"dependentRequired", "enum", "exclusiveMaximum", "exclusiveMinimum", "if-then-else",
	"infinite-loop-detection", "items", "maxItems", "maxLength", "maxProperties", "maximum",
	"minItems", "minLength", "minProperties", "minimum", "multipleOf", "not", "oneOf", "pattern",
	"patternProperties", "prefixItems", "properties", "propertyNames", "ref", "required", "type",
	"uniqueItems", NULL,
};
static const char *const files_7[] = {
	"additionalItems", "additionalProperties", "allOf", "anyOf", "boolean_schema", "const",
	"default", "definitions", "dependencies", "enum", "exclusiveMaximum", "exclusiveMinimum",
	"if-then-else", "items", "maxItems", "maxLength", "maxProperties", "maximum", "minItems",
	"minLength", "minProperties", "minimum", "multipleOf", "not", "oneOf", "pattern",
	"patternProperties", "properties", "propertyNames", "ref", "required", "type",
	"uniqueItems", NULL,
};

/* draft: "7", "2020" or "*"; test NULL: the whole group. */
struct skip {
	const char *draft, *file, *group, *test, *reason;
	int used;
};

#define R_REMOTE "remote $ref (to the meta-schema or another document): only same-document pointers are supported"
#define R_ID "embedded $id or a $ref relative to a base URI: cmax's schemas resolve $ref only as '#/...' pointers"
#define R_UNEVAL "unevaluatedProperties is not in the subset"
#define R_DEPSCH "dependentSchemas (draft 7: dependencies with schema values) is not in the subset"
#define R_UNICODE "ECMA-262 Unicode property escape \\p{...}: POSIX extended regular expressions have none"
#define R_NONKW "the $ref target sits under a key that is no keyword, which this validator refuses as an unknown keyword"

static struct skip skips[] = {
	{ "2020", "additionalProperties", "dependentSchemas with additionalProperties", NULL, R_DEPSCH, 0 },
	{ "2020", "defs", "validate definition against metaschema", NULL, R_REMOTE, 0 },
	{ "2020", "not", "collect annotations inside a 'not', even if collection is disabled", NULL, R_UNEVAL, 0 },
	{ "2020", "pattern", "pattern with Unicode property escape requires unicode mode", NULL, R_UNICODE, 0 },
	{ "2020", "patternProperties", "patternProperties with Unicode property escape", NULL, R_UNICODE, 0 },
	{ "*", "ref", "remote ref, containing refs itself", NULL, R_REMOTE, 0 },
	{ "*", "ref", "Recursive references between schemas", NULL, R_ID, 0 },
	{ "2020", "ref", "ref creates new scope when adjacent to keywords", NULL, R_UNEVAL, 0 },
	{ "2020", "ref", "refs with relative uris and defs", NULL, R_ID, 0 },
	{ "2020", "ref", "relative refs with absolute uris and defs", NULL, R_ID, 0 },
	{ "2020", "ref", "$id must be resolved against nearest parent, not just immediate parent", NULL, R_ID, 0 },
	{ "2020", "ref", "order of evaluation: $id and $ref", NULL, R_ID, 0 },
	{ "2020", "ref", "order of evaluation: $id and $anchor and $ref", NULL, R_ID " ($anchor)", 0 },
	{ "2020", "ref", "order of evaluation: $id and $ref on nested schema", NULL, R_ID, 0 },
	{ "2020", "ref", "simple URN base URI with $ref via the URN", NULL, R_ID, 0 },
	{ "2020", "ref", "URN base URI with URN and JSON pointer ref", NULL, R_ID, 0 },
	{ "2020", "ref", "URN base URI with URN and anchor ref", NULL, R_ID " ($anchor)", 0 },
	{ "2020", "ref", "URN ref with nested pointer ref", NULL, R_ID, 0 },
	{ "2020", "ref", "ref to if", NULL, R_ID, 0 },
	{ "2020", "ref", "ref to then", NULL, R_ID, 0 },
	{ "2020", "ref", "ref to else", NULL, R_ID, 0 },
	{ "2020", "ref", "ref with absolute-path-reference", NULL, R_ID, 0 },
	{ "7", "definitions", "valid definition", NULL, R_REMOTE, 0 },
	{ "7", "definitions", "invalid definition", NULL, R_REMOTE, 0 },
	{ "7", "dependencies", "multiple dependencies subschema", NULL, R_DEPSCH, 0 },
	{ "7", "dependencies", "dependencies with boolean subschemas", NULL, R_DEPSCH, 0 },
	{ "7", "ref", "escaped pointer ref", NULL, R_NONKW, 0 },
	{ NULL, NULL, NULL, NULL, NULL, 0 },
};

static struct skip *find_skip(const char *draft, const char *file, const char *group,
			      const char *test)
{
	for (struct skip *s = skips; s->file; s++) {
		if (strcmp(s->draft, "*") && strcmp(s->draft, draft))
			continue;
		if (strcmp(s->file, file) || strcmp(s->group, group))
			continue;
		if (s->test && (!test || strcmp(s->test, test)))
			continue;
		return s;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* draft 7 -> 2020-12 spelling                                          */

static json_t *tr_schema(json_t *s);

static json_t *tr_map(json_t *m)
{
	json_t *out = json_object(), *v;
	const char *k;
	if (!json_is_object(m))
		return json_incref(m);
	json_object_foreach(m, k, v)
		json_object_set_new(out, k, tr_schema(v));
	return out;
}

static json_t *tr_array(json_t *a)
{
	json_t *out = json_array(), *v;
	size_t i;
	if (!json_is_array(a))
		return json_incref(a);
	json_array_foreach(a, i, v)
		json_array_append_new(out, tr_schema(v));
	return out;
}

static char *tr_ref(const char *ref)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = ref;
	if (!strncmp(p, "#/definitions/", 14)) {
		sb_adds(&sb, "#/$defs/");
		p += 14;
	} else if (!strncmp(p, "#/items/", 8) && p[8] >= '0' && p[8] <= '9') {
		sb_adds(&sb, "#/prefixItems/");
		p += 8;
	}
	sb_adds(&sb, p);
	return sb_detach(&sb);
}

static json_t *tr_schema(json_t *s)
{
	json_t *out, *v;
	const char *k;

	if (!json_is_object(s))
		return json_incref(s);
	out = json_object();
	v = json_object_get(s, "$ref");
	if (json_is_string(v)) {
		/* draft 7: "All other properties in a $ref object MUST be ignored." */
		char *r = tr_ref(json_string_value(v));
		json_object_set_new(out, "$ref", json_string(r));
		free(r);
		if (json_object_get(s, "definitions"))
			json_object_set_new(out, "$defs", tr_map(json_object_get(s, "definitions")));
		return out;
	}
	json_object_foreach(s, k, v) {
		if (!strcmp(k, "definitions")) {
			json_object_set_new(out, "$defs", tr_map(v));
		} else if (!strcmp(k, "properties") || !strcmp(k, "patternProperties")) {
			json_object_set_new(out, k, tr_map(v));
		} else if (!strcmp(k, "allOf") || !strcmp(k, "anyOf") || !strcmp(k, "oneOf")) {
			json_object_set_new(out, k, tr_array(v));
		} else if (!strcmp(k, "not") || !strcmp(k, "if") || !strcmp(k, "then") ||
			   !strcmp(k, "else") || !strcmp(k, "additionalProperties") ||
			   !strcmp(k, "propertyNames") || !strcmp(k, "contains")) {
			json_object_set_new(out, k, tr_schema(v));
		} else if (!strcmp(k, "items")) {
			if (json_is_array(v)) {
				json_object_set_new(out, "prefixItems", tr_array(v));
				json_t *ai = json_object_get(s, "additionalItems");
				if (ai)
					json_object_set_new(out, "items", tr_schema(ai));
			} else {
				json_object_set_new(out, "items", tr_schema(v));
			}
		} else if (!strcmp(k, "additionalItems")) {
			/* handled with items; ignored without an items array */
		} else if (!strcmp(k, "dependencies")) {
			const char *dk;
			json_t *dv;
			int lists = json_is_object(v);
			json_object_foreach(v, dk, dv)
				lists &= json_is_array(dv);
			json_object_set_new(out, lists ? "dependentRequired" : "dependencies",
					    json_incref(v));
		} else {
			json_object_set(out, k, v);
		}
	}
	return out;
}

/* ------------------------------------------------------------------ */
/* Running the suite                                                    */

static int run_group(const char *draft, const char *file, json_t *group, int translate)
{
	const char *gdesc = json_string_value(json_object_get(group, "description"));
	json_t *schema = json_object_get(group, "schema");
	json_t *tests = json_object_get(group, "tests"), *t;
	struct skip *sk = find_skip(draft, file, gdesc, NULL);
	size_t i;

	if (sk && !sk->test) {
		sk->used = 1;
		T_OK(1, "# SKIP draft%s/%s: %s: %s", draft, file, gdesc, sk->reason);
		return 0;
	}
	json_t *sch = translate ? tr_schema(schema) : json_incref(schema);
	char *err = NULL;
	struct jschema *js = jschema_compile(sch, &err);
	json_decref(sch);
	if (!js) {
		T_OK(0, "draft%s/%s: %s: schema compiles", draft, file, gdesc);
		printf("#   %s\n", err);
		free(err);
		return 1;
	}
	int bad = 0;
	struct strbuf fails = STRBUF_INIT;
	json_array_foreach(tests, i, t) {
		const char *tdesc = json_string_value(json_object_get(t, "description"));
		struct skip *ts = find_skip(draft, file, gdesc, tdesc);
		if (ts) {
			ts->used = 1;
			T_OK(1, "# SKIP draft%s/%s: %s / %s: %s", draft, file, gdesc, tdesc, ts->reason);
			continue;
		}
		char *ptr = NULL, *msg = NULL;
		int invalid = jschema_validate(js, json_object_get(t, "data"), &ptr, &msg);
		int want_valid = json_is_true(json_object_get(t, "valid"));
		if (invalid == want_valid) {
			bad++;
			sb_addf(&fails, "#   %s: expected %s%s%s%s\n", tdesc,
				want_valid ? "valid, got " : "invalid, got valid", ptr ? ptr : "",
				ptr ? ": " : "", msg ? msg : "");
		}
		if (invalid && (!msg || strchr(msg, '\n')))
			sb_addf(&fails, "#   %s: the message is not one line\n", tdesc), bad++;
		free(ptr);
		free(msg);
	}
	jschema_free(js);
	T_OK(!bad, "draft%s/%s: %s (%zu cases)", draft, file, gdesc, json_array_size(tests));
	if (bad)
		printf("%s", sb_str(&fails));
	sb_free(&fails);
	return bad;
}

static void run_suite(void)
{
	const char *root = getenv("JSON_SCHEMA_TEST_SUITE");
	char dir[4096];
	struct stat st;
	const char *draft;
	const char *const *files;
	int translate;

	if (!root || !*root)
		root = SUITE_DEFAULT;
	snprintf(dir, sizeof(dir), "%s/draft2020-12", root);
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
		draft = "2020";
		files = files_2020;
		translate = 0;
	} else {
		snprintf(dir, sizeof(dir), "%s/draft7", root);
		draft = "7";
		files = files_7;
		translate = 1;
	}
	if (!T_OK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode),
		  "JSON Schema Test Suite found at %s (install the Debian package "
		  "json-schema-test-suite, or set JSON_SCHEMA_TEST_SUITE)", dir))
		return;
	for (size_t f = 0; files[f]; f++) {
		char path[4200];
		json_error_t je;
		snprintf(path, sizeof(path), "%s/%s.json", dir, files[f]);
		json_t *groups = json_load_file(path, JSON_ALLOW_NUL, &je);
		if (!T_OK(json_is_array(groups), "draft%s/%s.json loads", draft, files[f])) {
			printf("#   %s\n", je.text);
			continue;
		}
		size_t i;
		json_t *g;
		json_array_foreach(groups, i, g)
			run_group(draft, files[f], g, translate);
		json_decref(groups);
	}
	for (struct skip *s = skips; s->file; s++)
		if (!strcmp(s->draft, "*") || !strcmp(s->draft, draft))
			T_OK(s->used, "skip list entry is used: %s / %s / %s", s->file, s->group,
			     s->test ? s->test : "(group)");
}

/* ------------------------------------------------------------------ */
/* What a person reads: pointers and messages                           */

static struct jschema *compile(const char *text)
{
	char *err = NULL;
	struct jschema *js = jschema_compile_text(text, strlen(text), &err);
	if (!js)
		printf("#   schema does not compile: %s\n", err);
	free(err);
	return js;
}

static void expect_error(const char *schema, const char *doc, const char *want_ptr, const char *want_msg,
			 const char *name)
{
	struct jschema *js = compile(schema);
	json_error_t je;
	json_t *d = json_loads(doc, JSON_DECODE_ANY, &je);
	char *ptr = NULL, *msg = NULL;
	int bad = js && d ? jschema_validate(js, d, &ptr, &msg) : -1;
	if (T_OK(bad == 1, "%s: refused", name)) {
		T_STREQ(ptr, want_ptr, "%s: pointer", name);
		T_STREQ(msg, want_msg, "%s: message", name);
	}
	free(ptr);
	free(msg);
	json_decref(d);
	jschema_free(js);
}

static void expect_valid(const char *schema, const char *doc, const char *name)
{
	struct jschema *js = compile(schema);
	json_t *d = json_loads(doc, JSON_DECODE_ANY, NULL);
	char *ptr = NULL, *msg = NULL;
	int bad = js && d ? jschema_validate(js, d, &ptr, &msg) : -1;
	if (!T_OK(bad == 0, "%s: valid", name))
		printf("#   %s: %s\n", ptr ? ptr : "", msg ? msg : "");
	free(ptr);
	free(msg);
	json_decref(d);
	jschema_free(js);
}

static void expect_compile_error(const char *schema, const char *needle, const char *name)
{
	char *err = NULL;
	struct jschema *js = jschema_compile_text(schema, strlen(schema), &err);
	T_OK(!js && err && strstr(err, needle) && !strchr(err, '\n'), "%s: refused when compiled (%s)", name,
	     err ? err : "compiled");
	jschema_free(js);
	free(err);
}

#define LIMITS "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"warn_below\",\"fail_below\"]," \
	       "\"properties\":{\"warn_below\":{\"type\":\"number\"},\"fail_below\":{\"type\":\"number\"}}}"
#define BASIS "{\"oneOf\":[" \
	"{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"kind\",\"figure\"]," \
	"\"properties\":{\"kind\":{\"const\":\"method\"},\"figure\":{\"type\":\"string\"}}}," \
	"{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"kind\",\"reason\"]," \
	"\"properties\":{\"kind\":{\"const\":\"declared\"},\"reason\":{\"type\":\"string\"}}}]}"

static void messages(void)
{
	expect_error(LIMITS, "{\"warn_below\": \"20000000\", \"fail_below\": 1}", "/warn_below",
		     "expected number, got string", "a threshold written as a string");
	expect_error(LIMITS, "{\"warn_belw\": 3.5, \"fail_below\": 1.2}", "/warn_belw",
		     "unknown key 'warn_belw' (did you mean 'warn_below'?)", "a misspelt key");
	expect_error(LIMITS, "{\"warn_below\": 3.5}", "", "missing required key 'fail_below'",
		     "a deleted threshold");
	expect_error("{\"properties\":{\"fixAvailability\":{\"properties\":{\"status\":{\"enum\":[\"confirmed\",\"pending\"]}}}}}",
		     "{\"fixAvailability\": {\"status\": \"confirmd\"}}", "/fixAvailability/status",
		     "'confirmd' is not one of confirmed, pending", "a misspelt fix status");
	expect_error(BASIS, "{\"kind\": \"methd\", \"figure\": \"x\"}", "/kind",
		     "'methd' is not one of method, declared", "oneOf: the discriminators merged");
	expect_error(BASIS, "{\"kind\": \"method\"}", "", "missing required key 'figure'",
		     "oneOf: the error of the branch that applied");
	expect_error(BASIS, "{\"kind\": \"method\", \"figure\": 5}", "/figure", "expected string, got number",
		     "oneOf: a deeper error of the branch that applied");
	expect_error(BASIS, "[]", "", "expected object, got array", "oneOf: types merged");
	expect_error("{\"anyOf\":[{\"type\":\"number\"},{\"type\":\"null\"}]}", "\"x\"", "",
		     "expected number or null, got string", "anyOf: types merged");
	expect_error("{\"type\":[\"integer\",\"null\"]}", "2.5", "", "expected integer or null, got number",
		     "type list");
	expect_error("{\"items\":{\"type\":\"integer\"}}", "[1, 2, 2.5]", "/2", "expected integer, got 2.5",
		     "an array index in the pointer");
	expect_valid("{\"type\":\"integer\"}", "3.0", "3.0 is an integer (2020-12)");
	expect_error("{\"properties\":{\"a/b~c\":{\"type\":\"string\"}}}", "{\"a/b~c\": 1}", "/a~1b~0c",
		     "expected string, got number", "RFC 6901 escapes");
	expect_error("{\"patternProperties\":{\"^[0-9]+$\":{\"enum\":[\"none\",\"reboot\"]}},\"additionalProperties\":false}",
		     "{\"63\": \"explode\"}", "/63", "'explode' is not one of none, reboot", "patternProperties");
	expect_error("{\"patternProperties\":{\"^[0-9]+$\":true},\"additionalProperties\":false}",
		     "{\"6x\": 1}", "/6x", "unknown key '6x'", "a key outside the pattern");
	expect_error("{\"propertyNames\":{\"pattern\":\"^[a-z]+$\"}}", "{\"Bad\": 1}", "/Bad",
		     "key: 'Bad' does not match the pattern ^[a-z]+$", "propertyNames");
	expect_error("{\"minimum\":0,\"maximum\":100}", "101", "", "101 is above the maximum 100", "maximum");
	expect_error("{\"exclusiveMinimum\":0}", "0", "", "0 must be greater than 0", "exclusiveMinimum");
	expect_error("{\"multipleOf\":16}", "100", "", "100 is not a multiple of 16", "multipleOf");
	expect_error("{\"maxLength\":2}", "\"\\u00e9\\u00e9\\u00e9\"", "", "expected at most 2 character(s), got 3",
		     "maxLength counts code points");
	expect_valid("{\"maxLength\":3}", "\"\\u00e9\\u00e9\\u00e9\"", "three two-byte characters are three");
	expect_error("{\"uniqueItems\":true}", "[1, 2, 1.0]", "", "items 0 and 2 are equal (uniqueItems)",
		     "uniqueItems: 1 and 1.0 are equal");
	expect_error("{\"dependentRequired\":{\"absent_score\":[\"absent_if\"]}}", "{\"absent_score\": 80}", "",
		     "missing key 'absent_if' (required when 'absent_score' is present)", "dependentRequired");
	expect_error("{\"$defs\":{\"n\":{\"type\":\"number\"}},\"properties\":{\"a\":{\"$ref\":\"#/$defs/n\"}}}",
		     "{\"a\": true}", "/a", "expected number, got boolean", "$ref into $defs");
	expect_error("{\"if\":{\"properties\":{\"status\":{\"const\":\"confirmed\"}}},\"then\":{\"required\":[\"available\"]}}",
		     "{\"status\": \"confirmed\"}", "", "missing required key 'available'", "if/then");
	expect_error("{\"not\":{\"required\":[\"rows\"]}}", "{\"rows\": 1}", "",
		     "must not match the schema under 'not'", "not");
	expect_error("{\"oneOf\":[{\"minimum\":0},{\"maximum\":10}]}", "5", "",
		     "matches more than one alternative of oneOf (0 and 1)", "oneOf: two match");
	expect_error("{\"properties\":{\"k\":{\"enum\":[\"a\"]}}}", "{\"k\": \"line\\nbreak\"}", "/k",
		     "expected 'a', got 'line break'", "a value with a newline stays on one line");
	expect_error("{\"required\":[\"x\"]}", "{}", "", "missing required key 'x'", "required");
	expect_error("false", "1", "", "not allowed here", "the false schema");

	expect_compile_error("{\"requred\":[\"a\"]}", "/requred: unknown keyword 'requred'", "a misspelt keyword");
	expect_compile_error("{\"properties\":{\"a\":{\"typ\":\"string\"}}}", "/properties/a/typ: unknown keyword",
			     "a misspelt keyword deep inside");
	expect_compile_error("{\"type\":\"numbr\"}", "must be a type name", "an unknown type");
	expect_compile_error("{\"minimum\":\"5\"}", "/minimum: must be a finite number", "a limit as a string");
	expect_compile_error("{\"pattern\":\"(\"}", "not a POSIX extended regular expression", "a broken pattern");
	expect_compile_error("{\"$ref\":\"#/$defs/nope\"}", "cannot resolve $ref '#/$defs/nope'", "a dangling $ref");
	expect_compile_error("{\"$ref\":\"other.json\"}", "only '#' and '#/...' pointers", "a remote $ref");
	expect_compile_error("{\"properties\":{\"a\":{\"$id\":\"x\"}}}", "$id is only supported at the top level",
			     "an embedded $id");
	expect_compile_error("{\"required\":[\"a\",\"a\"]}", "distinct strings", "required twice");
	expect_compile_error("{\"multipleOf\":0}", "greater than 0", "multipleOf 0");
	expect_compile_error("{\"format\":\"date\"}", "unknown keyword 'format'", "format is not in the subset");
	expect_compile_error("[1]", "a schema must be an object or a boolean", "an array as schema");
	expect_compile_error("{\"minimum\": 1e999}", "not valid JSON", "an infinite number in a schema");
	expect_compile_error("{\"properties\":{\"a\\nb\":{\"x\":1}}}", "unknown keyword 'x'", "a key with a newline");

	/* non-finite numbers: JSON has none (jansson refuses 1e999), and YAML's .inf stays a string */
	char *yerr = NULL;
	json_t *y = yamljson_loadb("limit: .inf\n", 12, &yerr);
	struct jschema *js = compile("{\"properties\":{\"limit\":{\"type\":\"number\"}}}");
	char *ptr = NULL, *msg = NULL;
	T_OK(y && js && jschema_validate(js, y, &ptr, &msg) == 1 && !strcmp(msg, "expected number, got string"),
	     "YAML .inf is refused where a number belongs (%s)", msg ? msg : "valid");
	free(ptr);
	free(msg);
	free(yerr);
	json_decref(y);
	jschema_free(js);
}

/* Every embedded schema compiles, and the policy API says FILE: POINTER: message. */
static void embedded(void)
{
	int n = 0, bad = 0;
	for (const struct embedded_schema *e = embedded_schemas; e->name; e++, n++) {
		char *err = NULL;
		if (!policy_schema(e->name, &err)) {
			printf("#   %s: %s\n", e->name, err);
			bad++;
		}
		free(err);
	}
	T_OK(n >= 18 && !bad, "all %d embedded schemas compile", n);
	/* every schema file is embedded (src/core/meson.build lists them by name) */
	char *dir = xasprintf("%s/../docs/schema", CMAX_SRC_DATADIR);
	DIR *dh = opendir(dir);
	struct dirent *de;
	int files = 0, missing = 0;
	while (dh && (de = readdir(dh))) {
		size_t l = strlen(de->d_name);
		if (l <= 12 || strcmp(de->d_name + l - 12, ".schema.json"))
			continue;
		files++;
		char *name = xstrndup(de->d_name, l - 12);
		int found = 0;
		for (const struct embedded_schema *e = embedded_schemas; e->name; e++)
			found |= !strcmp(e->name, name);
		if (!found) {
			printf("#   docs/schema/%s is not embedded: add '%s' to schema_names in src/core/meson.build\n",
			       de->d_name, name);
			missing++;
		}
		free(name);
	}
	if (dh)
		closedir(dh);
	T_OK(files == n && !missing, "every docs/schema file is embedded (%d files, %d embedded)", files, n);
	free(dir);
	char *err = NULL;
	T_OK(!policy_schema("no-such-schema", &err) && err, "an unknown schema name is refused");
	free(err);

	json_t *doc = json_pack("{s:s, s:{s:s}}", "schema", "cmax.thresholds/1", "platform", "hbm_numa_min_gib", "64");
	enum cmax_err rc = policy_validate(doc, "thresholds", "data/thresholds.json", &err);
	T_INTEQ(rc, CE_DATA, "policy_validate: a violation is CE_DATA");
	T_STREQ(err, "data/thresholds.json: /platform/hbm_numa_min_gib: expected number, got string",
		"policy_validate: FILE: POINTER: message");
	free(err);
	json_decref(doc);
	doc = json_pack("[]");
	policy_validate(doc, "thresholds", "t.json", &err);
	T_STREQ(err, "t.json: top level: expected object, got array", "policy_validate: the top level named");
	free(err);
	json_decref(doc);

	char path[] = "/tmp/cmax-jschema-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f) {
		fputs("{\"overrides\": {\"63\": \"explode\"}}", f);
		fclose(f);
	}
	rc = policy_check(path, "health-policy", POLICY_JSON, &err);
	T_OK(rc == CE_DATA && err && strstr(err, ": /overrides/63: 'explode' is not one of none, restart_app"),
	     "policy_check: a file that breaks its schema is CE_DATA (%s)", err ? err : "");
	free(err);
	unlink(path);
	rc = policy_check(path, "health-policy", POLICY_JSON, &err);
	T_INTEQ(rc, CE_NOINPUT, "policy_check: a missing file is CE_NOINPUT");
	free(err);
	T_INTEQ(exit_code_for(policy_check(path, "health-policy", POLICY_JSON, &err)), EXIT_NOINPUT,
		"a command maps a missing policy file to 66");
	free(err);
	T_INTEQ(policy_check_if_present(path, "health-policy", POLICY_JSON, &err), 0,
		"policy_check_if_present: a missing file is fine");
	free(err);
	enum policy_format fmt;
	T_STREQ(policy_schema_for("accept/hgx-8gpu.yaml", &fmt), "accept-plan", "plans use accept-plan");
	T_OK(fmt == POLICY_YAML, "plans are YAML");
	T_OK(!policy_schema_for("README.md", NULL), "README.md has no schema");
}

/* test_jschema --validate FILE...: each JSON document against the embedded
 * schema its "schema" field names (cmax.rate/1 -> rate, ...), for the CLI
 * tests that check the documents cmax writes with this validator too. */
static int validate_files(int argc, char **argv)
{
	static const struct {
		const char *tag, *schema;
	} tags[] = {
		{ "cmax.audit.results/1", "audit-results" }, { "cmax.bench.results/1", "bench-results" },
		{ "cmax.rate/1", "rate" }, { "cmax.rate.compare/1", "rate-compare" },
		{ "cmax.sla/1", "sla" }, { "cmax.accept/1", "accept" },
	};
	for (int i = 0; i < argc; i++) {
		json_error_t je;
		json_t *d = json_load_file(argv[i], 0, &je);
		const char *tag = json_string_value(json_object_get(d, "schema")), *schema = NULL;
		for (size_t k = 0; tag && k < sizeof(tags) / sizeof(tags[0]); k++)
			if (!strcmp(tag, tags[k].tag))
				schema = tags[k].schema;
		char *err = NULL;
		int bad = schema ? policy_validate(d, schema, argv[i], &err) != CE_OK : 1;
		if (!T_OK(!bad, "%s validates against %s.schema.json (C validator)", argv[i], schema ? schema : "?"))
			printf("#   %s\n", err ? err : d ? "no known schema tag" : je.text);
		free(err);
		json_decref(d);
	}
	return t_done();
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--validate"))
		return validate_files(argc - 2, argv + 2);
	messages();
	embedded();
	run_suite();
	return t_done();
}
