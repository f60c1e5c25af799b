/* The JUnit writer (src/report/junit.c) and the rows it reads
 * (src/report/docrows.c): the expected XML is written from the XML 1.0
 * rules (the five predefined entities, the Char production) and from each
 * schema's rows, never copied from the writer's output. */
#include "report/docrows.h"
#include "report/junit.h"
#include "core/strbuf.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

static void test_escape(void)
{
	char *s = junit_escape("a<b>&\"c'", 1);
	T_STREQ(s, "a&lt;b&gt;&amp;&quot;c&apos;", "attribute: the five entities");
	free(s);
	s = junit_escape("a<b>&\"c'", 0);
	T_STREQ(s, "a&lt;b&gt;&amp;\"c'", "text: quotes stay");
	free(s);
	s = junit_escape("l1\nl2\tx\ry", 1);
	T_STREQ(s, "l1&#10;l2&#9;x&#13;y", "attribute: newline, tab and CR as references (not folded to spaces)");
	free(s);
	s = junit_escape("l1\nl2\tx\ry", 0);
	T_STREQ(s, "l1\nl2\tx&#13;y", "text: newline and tab kept, CR as a reference");
	free(s);
	/* controls, DEL is allowed in XML 1.0; U+FFFE/U+FFFF are not; invalid UTF-8 dropped */
	s = junit_escape("\x01\x08\x0b\x0c\x1b[31m\x7f|\xef\xbf\xbe\xef\xbf\xbf|\xff\xc3(|\xc3\xa9\xf0\x9f\x98\x80", 0);
	T_STREQ(s, "[31m\x7f||(|\xc3\xa9\xf0\x9f\x98\x80",
		"controls, U+FFFE, U+FFFF and invalid UTF-8 dropped; DEL, é and U+1F600 kept");
	free(s);
	s = junit_escape("\xed\xa0\x80x", 0);
	T_STREQ(s, "x", "an encoded surrogate is not a character: dropped");
	free(s);
	s = junit_escape(NULL, 1);
	T_STREQ(s, "", "NULL is empty");
	free(s);
}

static json_t *load(const char *text)
{
	json_error_t e;
	json_t *d = json_loads(text, 0, &e);
	if (!d)
		printf("# bad test JSON: %s\n", e.text);
	return d;
}

static void test_rows(void)
{
	json_t *audit = load("{\"schema\": \"cmax.audit.results/1\", \"profile\": \"security\", \"results\": ["
			     "{\"id\": \"a.one\", \"profile\": \"isolation\", \"status\": \"PASS\", \"host\": \"h\"},"
			     "{\"id\": \"a.two\", \"profile\": \"isolation\", \"status\": \"WARN\", \"host\": \"h\"},"
			     "{\"id\": \"a.three\", \"profile\": \"kernel\", \"status\": \"FAIL\", \"host\": \"\"},"
			     "{\"id\": \"a.four\", \"status\": \"SKIP\"}, {\"id\": \"a.five\", \"status\": \"ERROR\"},"
			     "{\"id\": \"a.six\", \"status\": \"MAYBE\"}, {\"id\": \"a.seven\"}]}");
	struct doc_rows r;
	doc_rows_read(audit, &r);
	T_INTEQ(r.n, 7, "audit: one row per result");
	T_STREQ(r.suite, "cmax audit security", "audit: the suite names the profile");
	T_STREQ(r.v[0].group, "audit.isolation", "audit: classname from the row's profile");
	T_STREQ(r.v[0].name, "a.one (h)", "audit: the host in the name");
	T_STREQ(r.v[2].name, "a.three", "audit: no host, no parentheses");
	T_INTEQ(r.counts[ST_PASS], 1, "audit: 1 PASS");
	T_INTEQ(r.counts[ST_WARN], 1, "audit: 1 WARN");
	T_INTEQ(r.counts[ST_FAIL], 1, "audit: 1 FAIL");
	T_INTEQ(r.counts[ST_SKIP], 1, "audit: 1 SKIP");
	T_INTEQ(r.counts[ST_ERROR], 3, "audit: an unknown or missing status is ERROR, never PASS");
	doc_rows_release(&r);
	json_decref(audit);

	json_t *acc = load("{\"schema\": \"cmax.accept/1\", \"tests\": ["
			   "{\"id\": \"t1\", \"group\": \"net\", \"status\": \"PASS\", \"run\": {\"elapsed_s\": 2.5}},"
			   "{\"id\": \"t2\", \"group\": \"net\", \"status\": \"FAIL\", \"criteria\": [{\"criterion\": \"c\", "
			   "\"status\": \"FAIL\", \"why\": \"too slow\"}]},"
			   "{\"id\": \"t3\", \"group\": \"gpu\", \"status\": \"INCOMPLETE\"}]}");
	doc_rows_read(acc, &r);
	T_INTEQ(r.n, 3, "accept: one row per test");
	T_STREQ(r.v[0].group, "accept.net", "accept: classname from the group");
	T_OK(r.v[0].time_s == 2.5, "accept: the time the test ran");
	T_OK(strstr(r.v[1].detail, "c: FAIL too slow") != NULL, "accept: the criteria in the detail");
	T_INTEQ(r.v[2].status, ST_ERROR, "accept: INCOMPLETE is ERROR (no verdict)");
	doc_rows_release(&r);
	json_decref(acc);

	json_t *rate = load("{\"schema\": \"cmax.rate/1\", \"provider\": \"p\", \"tier\": \"Not Recommended - Underperforming\","
			    " \"score\": 12.5, \"tier_reason\": \"why\"}");
	doc_rows_read(rate, &r);
	T_OK(r.n == 1 && r.v[0].status == ST_FAIL, "rate: one row, FAIL when not recommended");
	doc_rows_release(&r);
	json_decref(rate);
	rate = load("{\"schema\": \"cmax.rate.compare/1\", \"providers\": [{\"rank\": 1, \"provider\": \"a\", \"tier\": "
		    "\"Gold\"}, {\"rank\": 2, \"provider\": \"b\", \"tier\": \"Not Recommended - Unavailable\"}]}");
	doc_rows_read(rate, &r);
	T_OK(r.n == 2 && r.v[0].status == ST_PASS && r.v[1].status == ST_FAIL, "rate --compare: a row per provider");
	doc_rows_release(&r);
	json_decref(rate);

	json_t *inj = load("{\"schema\": \"cmax.inject/1\", \"node\": \"n1\", \"verdict\": {\"status\": \"WARN\", "
			   "\"summary\": \"late\"}}");
	doc_rows_read(inj, &r);
	T_OK(r.n == 1 && r.v[0].status == ST_WARN, "inject without results: its verdict is the row");
	doc_rows_release(&r);
	json_decref(inj);
	json_t *other = load("{\"schema\": \"cmax.audit.plan/1\", \"results\": [{\"status\": \"FAIL\"}]}");
	doc_rows_read(other, &r);
	T_INTEQ(r.n, 0, "a plan or unknown schema has no rows");
	doc_rows_release(&r);
	json_decref(other);
}

static void test_xml(void)
{
	json_t *doc = json_pack("{s:s,s:s,s:i,s:[{s:s,s:s,s:s,s:s},{s:s,s:s,s:s,s:s,s:s},{s:s,s:s,s:s},{s:s,s:s,s:s}]}",
				"schema", "cmax.bench.results/1", "benchmark", "storage", "duration_ms", 1500, "results",
				"id", "bench.a", "status", "FAIL", "summary", "1 < 2 & \"x\"", "remediation", "fix <it>",
				"id", "bench.b", "status", "WARN", "summary", "w", "host", "n1", "observed", "o",
				"id", "bench.c", "status", "SKIP", "summary", "s",
				"id", "bench.d", "status", "PASS", "summary", "p");
	/* a string jansson itself would refuse: bytes from a tool that is not text */
	json_object_set_new(json_array_get(json_object_get(doc, "results"), 2), "summary",
			    json_string_nocheck("bad\x01\xff"));
	char *x = junit_from_doc(doc);
	T_OK(str_starts(x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"), "an XML declaration, then testsuites");
	T_OK(strstr(x, "<testsuite name=\"cmax bench storage\" tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"1\" "
		       "time=\"1.500\"") != NULL, "the suite's counts and time");
	T_OK(strstr(x, "<property name=\"warnings\" value=\"1\"/>") != NULL, "WARN counted in a property");
	T_OK(strstr(x, "<failure message=\"1 &lt; 2 &amp; &quot;x&quot;\" type=\"FAIL\">remediation: fix &lt;it&gt;\n"
		       "</failure>") != NULL, "FAIL: a failure, message and body escaped");
	T_OK(strstr(x, "<testcase classname=\"bench.storage\" name=\"bench.b (n1)\" time=\"0.000\">\n"
		       "      <system-out>WARN: w\nobserved: o\n</system-out>") != NULL,
	     "WARN: a passing testcase saying WARN in system-out");
	T_OK(strstr(x, "<skipped message=\"bad\"/>") != NULL, "SKIP: skipped; a control and a bad byte dropped");
	T_OK(strstr(x, "<testcase classname=\"bench.storage\" name=\"bench.d\" time=\"0.000\"/>") != NULL,
	     "PASS: an empty testcase");
	T_OK(str_ends(x, "</testsuite>\n</testsuites>\n"), "closed");
	free(x);
	json_decref(doc);
}

int main(void)
{
	test_escape();
	test_rows();
	test_xml();
	return t_done();
}
