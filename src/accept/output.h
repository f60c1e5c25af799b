/* The cmax.accept/1 document and its text rendering. The text is drawn from
 * the document, so tests carried over from an earlier attempt (--previous)
 * print exactly like the ones judged now. */
#ifndef CMAX_ACCEPT_OUTPUT_H
#define CMAX_ACCEPT_OUTPUT_H
#include <stdio.h>
#include <jansson.h>

#include "accept/judge.h"
#include "accept/plan.h"
#include "accept/verdict.h"

struct acc_report {
	const struct acc_plan *plan;
	const char *mode;            /* "run" or "from-results" */
	const char *output_dir;      /* run mode */
	json_t *inputs;              /* from-results: the paths given; borrowed, may be NULL */
	json_t *ignored;             /* from-results: files skipped in directories, with why; may be NULL */
	long day;
	const char *date_source;     /* "--date", "evidence" or "clock" */
	int attempt;
	const struct acc_prev *prev; /* may be NULL */
	const struct acc_test_res *res; /* one per plan test (unused where carried) */
	json_t *const *run;          /* one per plan test: the run record, or NULL */
	char *const *command;        /* one per plan test: the command line, or NULL */
	const int *carried;          /* one per plan test: 1 = the previous attempt's result stands */
	const struct acc_decision *dec;
	int interrupted;
	const char *started_at, *finished_at;
};

json_t *acc_report_json(const struct acc_report *r);
/* verbose 0: criteria of tests that did not pass; 1: every criterion; 2: with the rows read. */
void acc_report_text(FILE *f, const json_t *doc, int verbose);
#endif
