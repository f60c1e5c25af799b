/* The acceptance plan (docs/accept.md): which cmax commands to run, how long
 * each may take, and the pass criteria over the document each produces.
 * Loading validates everything before anything runs: a typo found after an
 * eight-hour burn-in costs a day, so every key and value is checked and the
 * first problem is reported as "FILE: tests[2].duration: why". */
#ifndef CMAX_ACCEPT_PLAN_H
#define CMAX_ACCEPT_PLAN_H
#include "core/error.h"
#include <stddef.h>
#include <jansson.h>

#include "accept/require.h"

#define ACC_PLAN_SCHEMA "cmax.accept.plan/1"
#define ACC_MAX_DURATION_S (7L * 86400)

/* The cmax commands whose documents accept can judge (src/evidence). */
enum acc_cmd { AC_AUDIT, AC_BENCH, AC_INJECT, AC_REBOOT };

enum acc_crit_kind {
	CK_STATUS,     /* rows + max_status / status */
	CK_COUNT,      /* rows + count (+ min / max) */
	CK_METRIC,     /* rows + metric (+ min / max, aggregate) */
	CK_DOC_METRIC, /* doc_metric (+ min / max, aggregate) */
};

/* Where a criterion's number comes from (docs/provenance.md): the method's
 * own figure, the plan author's choice with the reason and what would change
 * it, a source (a contract annex, a datasheet) or an estimate. Plans that
 * only say `declared: true` (the older spelling) have AB_DECLARED without a
 * basis object. */
enum acc_basis_kind { AB_NONE, AB_METHOD, AB_DECLARED, AB_SOURCE, AB_ESTIMATED };

enum acc_agg { AG_EACH, AG_MIN, AG_MAX, AG_MEAN, AG_SUM };
enum acc_scope { RS_FAILED, RS_GROUP, RS_ALL };

struct acc_crit {
	enum acc_crit_kind kind;
	char **rows;        /* fnmatch patterns (any may match); NULL for doc_metric */
	size_t nrows;
	char *path;         /* metric / doc_metric: dotted path, [key=value] selects in arrays */
	int status;         /* CK_STATUS: the bound, an enum status (PASS, WARN or FAIL) */
	int exact;          /* CK_STATUS: `status:` (exactly that) rather than `max_status:` */
	unsigned count_mask; /* CK_COUNT: 1u << enum status for every status counted */
	int has_min, has_max;
	double min, max;
	enum acc_agg agg;
	int skipped_incomplete; /* a SKIP row makes the criterion INCOMPLETE (else it is ignored) */
	int min_rows;       /* rows that must be graded (glob patterns); default 1 */
	char *note;
	int declared;       /* the threshold is a choice of the plan's author, not the method's */
	enum acc_basis_kind basis;
	json_t *basis_doc;  /* the basis object as written; NULL without one */
};

struct acc_test {
	char *id, *title, *group, *notes;
	char **args;        /* as written, ${VAR} unresolved; args[0] is the cmax command */
	size_t nargs;
	long duration_s;
	char *duration_text;
	char **from;        /* --from-results: path globs naming this test's documents */
	size_t nfrom;
	struct acc_crit *crit;
	size_t ncrit;
	/* what the args produce, for matching documents */
	enum acc_cmd cmd;
	char *produces;     /* audit profile ("full" when none), benchmark name, inject fault kind */
	long fault_code;    /* inject xid/sxid CODE; -1 otherwise */
	/* what the evidence must have measured (require.h): from `requires:`
	 * and the args as written; acc_test_resolve_reqs redoes the args part
	 * once the variables are set */
	struct acc_reqs req;
	json_t *basis_doc;  /* where the numbers in args and the budget come from; NULL */
};

struct acc_var {
	char *name;
	char *value;        /* NULL: no default, must come from --var */
	int from_cli;
};

struct acc_plan {
	char *path;
	char *name, *system, *acceptance_date, *version, *notes;
	json_t *sources;    /* array of strings, or NULL */
	struct acc_var *vars;
	size_t nvars;
	int max_attempts;
	enum acc_scope scope;
	int window_days;    /* -1: no window, only the acceptance date bounds a retest */
	json_t *retest_basis; /* where the retest rule's numbers come from; NULL */
	struct acc_test *tests;
	size_t ntests;
};

/* 0, or CE_DATA with a malloc'd one-line *err ("LABEL: key: why"). */
enum cmax_err acc_plan_from_json(const json_t *root, const char *label, struct acc_plan *p, char **err);
/* YAML or JSON file: 0, CE_NOINPUT (missing) or CE_DATA. */
enum cmax_err acc_plan_load(const char *path, struct acc_plan *p, char **err);
void acc_plan_free(struct acc_plan *p);

/* --var KEY=VALUE: 0, or CE_USAGE (not KEY=VALUE, or a variable the plan does not declare). */
enum cmax_err acc_plan_set_var(struct acc_plan *p, const char *kv, char **err);
/* The test's argv with variables substituted (NULL-terminated, malloc'd,
 * without the program); NULL with *err naming the variable that has no value. */
char **acc_test_argv(const struct acc_plan *p, const struct acc_test *t, char **err);
void acc_argv_free(char **argv);
/* The same checks as at load time on the expanded argv (a --var value can
 * make a CODE non-numeric or name another benchmark): 0, or CE_USAGE. */
enum cmax_err acc_check_resolved(const struct acc_plan *p, const struct acc_test *t, char **argv, char **err);
/* The requirements from the expanded argv (a --var can set --clients). */
void acc_test_resolve_reqs(struct acc_test *t, char **argv);
const struct acc_test *acc_plan_test(const struct acc_plan *p, const char *id);

/* "90s", "15m", "8h", "1h30m", "2d", or a bare number of seconds: 0 and *secs, else -1. */
int acc_parse_duration(const char *s, long *secs);
/* "8h", "1h30m", "45s": the shortest exact spelling. */
void acc_format_duration(long secs, char *buf, size_t n);
/* Days since 1970-01-01 (time_parse_day, core/timefmt.h) as YYYY-MM-DD. */
void acc_format_day(long day, char *buf, size_t n);

/* NULL for a read-only test, else what it changes ("writes files", ...). */
const char *acc_test_effect(const struct acc_test *t);
const char *acc_cmd_name(enum acc_cmd c);
const char *acc_scope_name(enum acc_scope s);
const char *acc_agg_name(enum acc_agg a);
#endif
