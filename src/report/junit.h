/* JUnit XML of a result document, for CI systems (GitLab, Jenkins, GitHub
 * test reporters): one <testsuites> with one <testsuite> per document, one
 * <testcase> per graded row (report/docrows.h says which rows).
 *
 *   FAIL   <failure message="SUMMARY" type="FAIL">detail</failure>
 *   ERROR  <error message="SUMMARY" type="ERROR">detail</error>
 *   SKIP   <skipped message="SUMMARY"/>
 *   WARN   a passing testcase with <system-out>WARN: SUMMARY, detail</system-out>,
 *          counted in the suite's property "warnings" (JUnit has no warning)
 *   PASS   a passing testcase
 *
 * Every attribute and text is escaped; characters XML 1.0 does not allow
 * (controls other than tab, newline and carriage return, U+FFFE, U+FFFF,
 * invalid UTF-8) are dropped, so any document gives a file every XML parser
 * reads. Pure: no I/O. */
#ifndef CMAX_REPORT_JUNIT_H
#define CMAX_REPORT_JUNIT_H
#include <jansson.h>

/* The XML (malloc'd, NUL-terminated, ending in a newline). */
char *junit_from_doc(const json_t *doc);

/* s escaped for an XML attribute value (attr = 1: quotes, and newlines and
 * tabs as character references, which attribute normalisation would fold
 * to spaces) or for text (attr = 0). malloc'd. */
char *junit_escape(const char *s, int attr);
#endif
