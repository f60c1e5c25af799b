/* Collectors turn raw sources (sysroot files, commands) into typed facts,
 * stored per collector in the facts cache. Each runs at most once per audit:
 * one nvidia-smi call feeds every GPU check, and a collector that failed
 * (tool hung, garbage output) is never re-run; its dependent checks get its
 * state and evidence instead. */
#ifndef CMAX_COLLECTOR_H
#define CMAX_COLLECTOR_H
#include <jansson.h>
#include "core/runner.h"
#include "engine/collector.h"

struct audit_ctx;

extern const struct collector_def collector_table[];
extern const size_t collector_table_len;
const struct collector_def *collector_find(const char *name);

/* --- helpers for collector implementations (col_set_state: engine/collector.h) --- */
/* The one call through which collectors run commands: runner_run(), unless
 * test instrumentation put a replay in front of it (col_set_runner; the
 * corpus test tests/unit/test_unread.c re-grades thousands of mutations
 * without running each tool again). */
typedef int (*col_runner_fn)(const char *const argv[], const struct run_opts *o, struct cmd_result *res);
int col_runner(const char *const argv[], const struct run_opts *o, struct cmd_result *res);
void col_set_runner(col_runner_fn fn); /* NULL: runner_run */
/* Run a command through the runner and record it as evidence of this collector. */
int col_run_cmd(struct col_run *c, const char *const argv[], int timeout_ms, struct cmd_result *res);
/* Run a read of the privileged-read table (core/privilege.h) with privilege
 * and record it as evidence of this collector: the sudo policy is decided
 * first (the access collector runs `sudo -n true` once), and a tool that is
 * not installed in the sudo search path (/usr/sbin, /usr/bin, /sbin, /bin
 * under the sysroot) is not run. 0: it ran, res says how it ended; -1: not
 * run, *why (malloc'd) is the one-line reason a check turns into SKIP. */
int col_run_priv(struct audit_ctx *ctx, struct col_run *c, const char *const argv[], int timeout_ms,
		 struct cmd_result *res, char **why);
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
/* The strings of an array joined with sep, malloc'd ("" for none; "?" for
 * an entry that is not a string). */
char *fact_join(const json_t *arr, const char *sep);

/* How many GPUs the PCI inventory counted under its fact key ("nvidia_gpus",
 * "amd_gpus"), or -1 when the pci collector did not read the bus. *pci,
 * when not NULL, gets the pci facts whatever their state (NULL when none). */
long long col_pci_gpus(struct audit_ctx *ctx, const char *key, json_t **pci);
#endif
