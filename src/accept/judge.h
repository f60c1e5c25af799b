/* Judging one acceptance test: which result documents are its evidence, and
 * each pass criterion over them. Three outcomes, never more: PASS (every
 * criterion met by measured evidence), FAIL (a measured value breaks a
 * criterion), INCOMPLETE (evidence is missing: rows absent, SKIP or ERROR,
 * a figure not recorded). A measured failure outranks missing evidence; missing
 * evidence is never a pass. */
#ifndef CMAX_ACCEPT_JUDGE_H
#define CMAX_ACCEPT_JUDGE_H
#include <stddef.h>
#include <jansson.h>

#include "accept/plan.h"
#include "evidence/evidence.h"

enum acc_st { AS_PASS, AS_FAIL, AS_INCOMPLETE };
const char *acc_st_name(enum acc_st s);
int acc_st_parse(const char *s, enum acc_st *out);
/* FAIL outranks INCOMPLETE outranks PASS. */
enum acc_st acc_st_worse(enum acc_st a, enum acc_st b);

struct acc_docs {
	const struct ev_doc **d;
	size_t n;
};

struct acc_crit_res {
	enum acc_st st;
	char *what;       /* the criterion in words: "hardware.* at most WARN" */
	char *why;        /* one line: what decided it */
	json_t *observed; /* the figures and statuses seen */
	json_t *used;     /* row ids (or document paths) the criterion read */
};

struct acc_test_res {
	enum acc_st st;
	char *summary;
	struct acc_crit_res *cr; /* one per criterion when evaluated, else NULL */
	size_t ncr;
	json_t *docs;            /* array of document paths used */
	json_t *set_aside;       /* [{document, why}]: documents that did not measure what the plan asks
				    (require.h: quick where it asks for --full, fewer clients): not evidence */
};

/* The value at a dotted path: keys, array indexes, and key[field=value]
 * selecting the first array element whose field equals value
 * ("events[event=usable].offset_s"). Borrowed; NULL when absent. */
const json_t *acc_path_get(const json_t *v, const char *path);
/* 1 and *out when the path ends on a number. */
int acc_path_number(const json_t *v, const char *path, double *out);

char *acc_crit_describe(const struct acc_crit *c);
void acc_eval_crit(const struct acc_crit *c, const struct ev_set *s, const struct acc_docs *docs,
		   struct acc_crit_res *out);
void acc_crit_res_free(struct acc_crit_res *r);

/* Every criterion over docs; no document at all is INCOMPLETE, and a
 * document that says it was interrupted cannot make the test PASS. A
 * document that does not meet the test's requirements (t->req: mode, client
 * count, size) is set aside first, with the reason: its figures are neither
 * a pass nor a failure of this test. */
void acc_eval_test(const struct acc_test *t, const struct ev_set *s, const struct acc_docs *docs,
		   struct acc_test_res *out);
void acc_test_res_free(struct acc_test_res *r);

/* --from-results: the documents of s that are this test's evidence. An
 * explicit `from:` matches paths (or their base names) by glob; else a file
 * named TEST-ID.json (what a run of accept writes); else what the args
 * produce (audit profile, or a full audit; benchmark name; inject fault kind
 * and code; reboot-test). Dry-run documents are never evidence. Returns how
 * many; out->d is malloc'd. */
size_t acc_match_docs(const struct acc_test *t, const struct ev_set *s, struct acc_docs *out);
/* What --from-results would need for this test, in words (for the INCOMPLETE reason). */
char *acc_expected_doc(const struct acc_test *t);
#endif
