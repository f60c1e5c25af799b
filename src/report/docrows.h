/* The graded rows of any cmax result document, in one shape, for what
 * reads a document without knowing its schema: the JUnit writer
 * (report/junit.h) and the --fail-on gate (store/sink.h).
 *
 * Where each schema keeps its verdicts:
 *   cmax.audit.results/1, cmax.bench.results/1, cmax.inject/1,
 *   cmax.reboot-test/1, cmax.sla/1   results[] (status PASS ... ERROR);
 *                                    a document without results[] but with
 *                                    a verdict {status, summary} is one row
 *   cmax.accept/1                    tests[] (PASS, FAIL; INCOMPLETE is
 *                                    ERROR: the test gave no verdict)
 *   cmax.rate/1                      one row, the rating: FAIL when the tier
 *                                    is "Not Recommended - ...", else PASS
 *   cmax.rate.compare/1              one row per provider, the same rule
 * A status a row does not hold, or one the model does not know, is ERROR:
 * a row that cannot be read is never a PASS. */
#ifndef CMAX_REPORT_DOCROWS_H
#define CMAX_REPORT_DOCROWS_H
#include <stddef.h>
#include <jansson.h>
#include "core/result.h"

struct doc_row {
	char *group;          /* "audit.security", "bench.storage", "accept.network": JUnit classname */
	char *name;           /* the row's id, with " (host)" when it names one */
	enum status status;
	char *summary;        /* one line, may be "" */
	char *detail;         /* observed, expected, remediation, evidence as text; may be "" */
	double time_s;        /* how long the row took, or -1 when the document does not say */
};

struct doc_rows {
	char *suite;          /* "cmax audit", "cmax bench storage", "cmax accept" */
	const char *schema;   /* borrowed from the document; "" when it has none */
	struct doc_row *v;
	size_t n;
	size_t counts[ST__COUNT];
};

/* Fills *out (owned: doc_rows_release) from doc; a document of no known
 * schema gives no rows. Never fails. */
void doc_rows_read(const json_t *doc, struct doc_rows *out);
void doc_rows_release(struct doc_rows *r);
#endif
