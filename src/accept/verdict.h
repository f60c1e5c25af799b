/* The retest rule and the overall verdict (docs/accept.md), and the earlier
 * accept document (--previous) that gives the attempt number and the tests
 * that already passed. Pure: dates are day numbers, nothing is read from the
 * clock here. */
#ifndef CMAX_ACCEPT_VERDICT_H
#define CMAX_ACCEPT_VERDICT_H
#include "core/error.h"
#include <stddef.h>
#include <jansson.h>

#include "accept/judge.h"
#include "accept/plan.h"

#define ACC_SCHEMA "cmax.accept/1"

struct acc_prev {
	char *path;
	char *plan_name;
	int attempt;
	long day;           /* the date of that attempt */
	char *verdict;
	char **retest;      /* test ids that attempt asked to retest */
	size_t nretest;
	json_t *tests;      /* object: id -> that attempt's test object (owned) */
};

/* 0, or CE_DATA with a one-line *err. */
enum cmax_err acc_prev_from_json(const json_t *root, const char *label, struct acc_prev *p, char **err);
/* 0, CE_NOINPUT or CE_DATA. */
enum cmax_err acc_prev_load(const char *path, struct acc_prev *p, char **err);
void acc_prev_free(struct acc_prev *p);
/* The same plan (name and test ids): 0, or CE_DATA. */
enum cmax_err acc_prev_check(const struct acc_prev *p, const struct acc_plan *plan, char **err);
int acc_prev_wants(const struct acc_prev *p, const char *id);

enum acc_verdict { AV_ACCEPTED, AV_NOT_ACCEPTED, AV_RETEST };
const char *acc_verdict_name(enum acc_verdict v);

struct acc_decide_in {
	const struct acc_plan *plan;
	const enum acc_st *st; /* one per plan test, carried results included */
	int attempt;
	long day;              /* the date of this attempt */
	long prev_day;         /* the previous attempt's date, -1 for the first */
};

struct acc_decision {
	enum acc_verdict v;
	int *retest;           /* one per plan test: 1 = to retest */
	size_t nretest;
	long retest_by;        /* day, -1 when no retest */
	long retest_deadline;  /* this attempt's own deadline (previous + window, capped by the date); -1 none */
	long days_left;        /* acceptance date - this attempt's date (negative: missed) */
	char **reasons;
	size_t nreasons;
	char *summary;
};

void acc_decide(const struct acc_decide_in *in, struct acc_decision *out);
void acc_decision_free(struct acc_decision *d);
#endif
