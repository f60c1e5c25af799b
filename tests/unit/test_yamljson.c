/* src/core/yamljson.c: typing of plain scalars, structure, and the refusals. */
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "core/yamljson.h"

static char *dump(const char *yaml)
{
	char *err = NULL;
	json_t *v = yamljson_loadb(yaml, strlen(yaml), &err);
	if (!v) {
		char *r = NULL;
		if (asprintf(&r, "ERR %s", err ? err : "?") < 0)
			r = NULL;
		free(err);
		return r;
	}
	char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_REAL_PRECISION(12));
	json_decref(v);
	return s;
}

static void expect(const char *yaml, const char *want, const char *name)
{
	char *got = dump(yaml);
	T_STREQ(got, want, "%s", name);
	free(got);
}

static void expect_err(const char *yaml, const char *needle, const char *name)
{
	char *got = dump(yaml);
	T_OK(got && !strncmp(got, "ERR ", 4) && strstr(got, needle), "%s (%s)", name, got ? got : "null");
	free(got);
}

int main(void)
{
	expect("a: 1\nb: -2\nc: 0x1f\nd: 0o17\n", "{\"a\":1,\"b\":-2,\"c\":31,\"d\":15}", "integers");
	expect("a: 1.5\nb: -.5\nc: 1e3\nd: 2.\n", "{\"a\":1.5,\"b\":-0.5,\"c\":1000.0,\"d\":2.0}", "floats");
	expect("a: true\nb: False\nc: ~\nd:\ne: null\n", "{\"a\":true,\"b\":false,\"c\":null,\"d\":null,\"e\":null}",
	       "booleans and nulls");
	expect("a: '1'\nb: \"true\"\nc: yes\nd: 1e\ne: 1.2.3\nf: 2026-11-30\n",
	       "{\"a\":\"1\",\"b\":\"true\",\"c\":\"yes\",\"d\":\"1e\",\"e\":\"1.2.3\",\"f\":\"2026-11-30\"}",
	       "quoted scalars and YAML 1.1 words stay strings");
	expect("tests:\n  - id: storage\n    limits: {min: 0.9, max: 2}\n  - [1, two]\n",
	       "{\"tests\":[{\"id\":\"storage\",\"limits\":{\"max\":2,\"min\":0.9}},[1,\"two\"]]}", "nesting, flow style");
	expect("{\"json\": [1, 2.5, \"x\", null, true]}", "{\"json\":[1,2.5,\"x\",null,true]}", "JSON is YAML");
	expect("- 99999999999999999999\n", "[1e20]", "an integer too large for 64 bits is a float");
	expect("1: a\n", "{\"1\":\"a\"}", "a numeric key becomes its text");
	expect("--- \nplain\n", "\"plain\"", "a scalar document");
	expect_err("", "empty", "empty input");
	expect_err("a: [1, 2\n", "line", "unclosed flow sequence names a line");
	expect_err("a: &x 1\nb: *x\n", "aliases", "aliases refused");
	expect_err("a: 1\na: 2\n", "duplicate key 'a'", "duplicate keys refused");
	expect_err("? [1]\n: x\n", "mapping key must be a scalar", "complex keys refused");
	expect_err("a: 1\n---\nb: 2\n", "more than one", "several documents refused");
	char deep[400];
	size_t n = 0;
	for (int i = 0; i < 100; i++)
		deep[n++] = '[';
	deep[n] = 0;
	expect_err(deep, "deeper than", "nesting limit");

	char *err = NULL;
	int missing = 0;
	T_OK(!yamljson_load_file2("/nonexistent/x.yaml", &err, &missing) && missing && err &&
		     strstr(err, "/nonexistent/x.yaml"),
	     "a missing file is reported as missing, with its name");
	free(err);
	return t_done();
}
