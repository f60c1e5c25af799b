/* Collectors turn raw sources (sysroot files, commands) into typed facts,
 * stored per collector in the facts cache. Each runs at most once per audit:
 * one nvidia-smi call feeds every GPU check, and a collector that failed
 * (tool hung, garbage output) is never re-run; its dependent checks get its
 * state and evidence instead. */
#ifndef CMAX_COLLECTOR_H
#define CMAX_COLLECTOR_H
#include <jansson.h>
#include "../core/runner.h"

struct audit_ctx;

enum col_state {
	COL_OK,        /* facts are valid (some fields may still be null = unknown) */
	COL_ABSENT,    /* the source does not exist here (no nvidia-smi): checks SKIP */
	COL_DENIED,    /* exists but needs privileges we do not have: checks SKIP */
	COL_FAILED,    /* the probe broke (timeout, crash, unparseable): checks ERROR */
};

struct col_run {
	const char *name;
	enum col_state state;
	char *reason;        /* why not OK, one line */
	json_t *facts;       /* object; always non-NULL */
	json_t *evidence;    /* array of evidence objects */
	int done;
	long duration_ms;
};

typedef void (*collector_fn)(struct audit_ctx *ctx, struct col_run *c);

struct collector_def {
	const char *name;
	const char *description;
	collector_fn fn;
};

extern const struct collector_def collector_table[];
extern const size_t collector_table_len;
const struct collector_def *collector_find(const char *name);

/* --- helpers for collector implementations --- */
void col_set_state(struct col_run *c, enum col_state st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The one call through which collectors run commands: runner_run(), unless
 * test instrumentation put a replay in front of it (col_set_runner; the
 * corpus test tests/unit/test_unread.c re-grades thousands of mutations
 * without running each tool again). */
typedef int (*col_runner_fn)(const char *const argv[], const struct run_opts *o, struct cmd_result *res);
int col_runner(const char *const argv[], const struct run_opts *o, struct cmd_result *res);
void col_set_runner(col_runner_fn fn); /* NULL: runner_run */
/* Run a command through the runner and record it as evidence of this collector. */
int col_run_cmd(struct col_run *c, const char *const argv[], int timeout_ms, struct cmd_result *res);
/* Read a sysroot file and record it as evidence (excerpt). NULL when unreadable. */
char *col_read(struct col_run *c, const char *path);
/* Same without recording evidence (for bulk sysfs walks). */
char *col_read_quiet(const char *path);
void col_evidence_file(struct col_run *c, const char *path, const char *content);
void col_evidence_note(struct col_run *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* First line of a command's stderr (or stdout when stderr is empty), for a
 * one-line reason. */
char *col_cmd_first_line(const struct cmd_result *r);
/* Why a version probe broke, without timings (facts must be reproducible). */
char *col_cmd_broke_why(const struct cmd_result *r);

/* fact setters that accept NULL (stored as JSON null = unknown) */
void fact_set_str(json_t *obj, const char *key, const char *val);
void fact_set_int(json_t *obj, const char *key, long long val);
void fact_set_bool(json_t *obj, const char *key, int val);
void fact_set_null(json_t *obj, const char *key);
/* Append s to an array of strings unless it is already there; NULL is skipped. */
void fact_add_unique(json_t *arr, const char *s);
#endif
