/* report_json writes JSON itself (src/report/json.c); its bytes must stay
 * the ones json_dumpf gives with JSON_INDENT(2) | JSON_ENSURE_ASCII, which
 * every golden and reader of cmax's documents was made with. */
#include "report/report.h"
#include "core/strbuf.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

/* report_json's output for doc, malloc'd. */
static char *ours(const json_t *doc, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	*rc = report_json(f, doc);
	fclose(f);
	return buf;
}

static void same(const json_t *doc, const char *what)
{
	char *want = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	char *want_nl = xasprintf("%s\n", want ? want : "");
	int rc;
	char *got = ours(doc, &rc);
	T_OK(rc == 0, "%s: written", what);
	T_STREQ(got, want_nl, "%s: the bytes json_dumps gives", what);
	free(want);
	free(want_nl);
	free(got);
}

static void test_values(void)
{
	json_error_t je;
	json_t *doc = json_loads(
		"{\"s\": \"plain\", \"esc\": \"q\\\" b\\\\ s/ \\b\\f\\n\\r\\t \\u0001 \\u001f \\u007f\", "
		"\"uni\": \"\\u00e9 \\u20ac \\ud83d\\ude00 \\uffff\", \"\\u00fcber key\": 1, \"\": \"empty key\", "
		"\"ints\": [0, -1, 9223372036854775807, -9223372036854775808], "
		"\"reals\": [0.1, 1.5, 100.0, -0.0, 1e30, -2e-7, 1e-300, 5e-324, 1.7976931348623157e308, 123456789.125, 1e21], "
		"\"lit\": [true, false, null], \"empty\": {\"o\": {}, \"a\": []}, "
		"\"nest\": [[[{\"k\": [1, {\"x\": \"y\"}]}]]]}",
		0, &je);
	T_OK(doc != NULL, "the sample parses (%s)", doc ? "" : je.text);
	same(doc, "every kind of value");
	json_t *shared = json_pack("{s:s}", "same", "object");
	json_t *dag = json_pack("[O,O,{s:O}]", shared, shared, "again", shared);
	same(dag, "one value in three places");
	json_t *arr = json_array();
	same(arr, "an empty array at the top");
	json_t *embedded = json_object();
	json_object_set_new(embedded, "nul", json_stringn("a\0b", 3));
	same(embedded, "a string holding a NUL");
	struct strbuf deep = STRBUF_INIT;
	for (int i = 0; i < 40; i++)
		sb_adds(&deep, "[");
	sb_adds(&deep, "\"indent past sixty-four spaces\"");
	for (int i = 0; i < 40; i++)
		sb_adds(&deep, "]");
	json_t *d = json_loads(deep.buf, 0, &je);
	same(d, "deep indentation");
	int rc;
	json_t *scalar = json_integer(1);
	free(ours(scalar, &rc));
	T_OK(rc != 0, "a bare scalar is refused, as json_dumpf refuses it");
	json_decref(scalar);
	json_decref(d);
	sb_free(&deep);
	json_decref(embedded);
	json_decref(arr);
	json_decref(dag);
	json_decref(shared);
	json_decref(doc);
}

int main(void)
{
	test_values();
	return t_done();
}
