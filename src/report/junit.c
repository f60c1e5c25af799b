/* JUnit XML of a result document (see junit.h). */
#include "report/junit.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include "report/docrows.h"
#include <stdint.h>
#include <string.h>

/* The characters of XML 1.0 (its production Char): the rest is dropped. */
static int xml_char(uint32_t c)
{
	return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
	       (c >= 0x10000 && c <= 0x10FFFF);
}

/* The reference a character is written as, or NULL: itself. A bare CR in
 * text would reach the reader as a newline; in an attribute, newlines and
 * tabs would be folded to spaces. */
static const char *xml_ref(uint32_t c, int attr)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '\r': return "&#13;";
	case '"': return attr ? "&quot;" : NULL;
	case '\'': return attr ? "&apos;" : NULL;
	case '\n': return attr ? "&#10;" : NULL;
	case '\t': return attr ? "&#9;" : NULL;
	default: return NULL;
	}
}

static void add_escaped(struct strbuf *sb, const char *s, int attr)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t left = strlen((const char *)p);
	while (left) {
		uint32_t c = 0;
		size_t n = utf8_decode(p, left, &c);
		if (n == 0) /* not UTF-8: the byte is dropped */
			n = 1;
		else if (xml_ref(c, attr))
			sb_adds(sb, xml_ref(c, attr));
		else if (xml_char(c))
			sb_add(sb, (const char *)p, n);
		p += n, left -= n;
	}
}

char *junit_escape(const char *s, int attr)
{
	struct strbuf sb = STRBUF_INIT;
	add_escaped(&sb, s, attr);
	return sb_detach(&sb);
}

static void attr(struct strbuf *sb, const char *name, const char *value)
{
	sb_addf(sb, " %s=\"", name);
	add_escaped(sb, value, 1);
	sb_adds(sb, "\"");
}

static void property(struct strbuf *sb, const char *name, const char *value)
{
	sb_adds(sb, "      <property");
	attr(sb, "name", name);
	attr(sb, "value", value);
	sb_adds(sb, "/>\n");
}

/* The element a row's status becomes inside its testcase, if any. */
static void row_body(struct strbuf *sb, const struct doc_row *r)
{
	static const char *const elem[ST__COUNT] = { [ST_FAIL] = "failure", [ST_ERROR] = "error" };
	if (r->status == ST_SKIP) {
		sb_adds(sb, "      <skipped");
		attr(sb, "message", r->summary);
		sb_adds(sb, "/>\n");
	} else if (elem[r->status]) {
		sb_addf(sb, "      <%s", elem[r->status]);
		attr(sb, "message", r->summary);
		attr(sb, "type", status_name(r->status));
		sb_adds(sb, ">");
		add_escaped(sb, r->detail, 0);
		sb_addf(sb, "</%s>\n", elem[r->status]);
	} else if (r->status == ST_WARN) {
		sb_adds(sb, "      <system-out>WARN: ");
		add_escaped(sb, r->summary, 0);
		sb_adds(sb, "\n");
		add_escaped(sb, r->detail, 0);
		sb_adds(sb, "</system-out>\n");
	}
}

static void testcase(struct strbuf *sb, const struct doc_row *r)
{
	char t[32];
	snprintf(t, sizeof t, "%.3f", r->time_s >= 0 ? r->time_s : 0.0);
	sb_adds(sb, "    <testcase");
	attr(sb, "classname", r->group);
	attr(sb, "name", r->name);
	attr(sb, "time", t);
	if (r->status == ST_PASS) {
		sb_adds(sb, "/>\n");
		return;
	}
	sb_adds(sb, ">\n");
	row_body(sb, r);
	sb_adds(sb, "    </testcase>\n");
}

char *junit_from_doc(const json_t *doc)
{
	struct doc_rows rows;
	doc_rows_read(doc, &rows);
	struct strbuf sb = STRBUF_INIT;
	char t[32], n[4][32];
	double ms = jget_num(doc, "duration_ms", -1);
	snprintf(t, sizeof t, "%.3f", ms >= 0 ? ms / 1000.0 : 0.0);
	snprintf(n[0], sizeof n[0], "%zu", rows.n);
	snprintf(n[1], sizeof n[1], "%zu", rows.counts[ST_FAIL]);
	snprintf(n[2], sizeof n[2], "%zu", rows.counts[ST_ERROR]);
	snprintf(n[3], sizeof n[3], "%zu", rows.counts[ST_SKIP]);
	sb_adds(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
	attr(&sb, "name", rows.suite);
	attr(&sb, "tests", n[0]);
	attr(&sb, "failures", n[1]);
	attr(&sb, "errors", n[2]);
	attr(&sb, "skipped", n[3]);
	attr(&sb, "time", t);
	sb_adds(&sb, ">\n  <testsuite");
	attr(&sb, "name", rows.suite);
	attr(&sb, "tests", n[0]);
	attr(&sb, "failures", n[1]);
	attr(&sb, "errors", n[2]);
	attr(&sb, "skipped", n[3]);
	attr(&sb, "time", t);
	const char *at = jget_str(doc, "started_at");
	if (at)
		attr(&sb, "timestamp", at);
	sb_adds(&sb, ">\n    <properties>\n");
	property(&sb, "schema", rows.schema);
	property(&sb, "tool_version", jget_str_or(doc, "tool_version", ""));
	char w[32];
	snprintf(w, sizeof w, "%zu", rows.counts[ST_WARN]);
	property(&sb, "warnings", w);
	sb_adds(&sb, "    </properties>\n");
	for (size_t i = 0; i < rows.n; i++)
		testcase(&sb, &rows.v[i]);
	sb_adds(&sb, "  </testsuite>\n</testsuites>\n");
	doc_rows_release(&rows);
	return sb_detach(&sb);
}
