/* The one way cmax runs an external command: argv only (no shell), found on
 * PATH, LC_ALL=C, its own process group killed at the timeout, stdout and
 * stderr capped, and a record (exit code or signal, timeout, duration) that
 * becomes evidence. A global deadline (--timeout) bounds every command. */
#ifndef CMAX_RUNNER_H
#define CMAX_RUNNER_H
#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>

struct run_opts {
	int timeout_ms;     /* 0 = default (10 s); always clipped to the global deadline */
	size_t cap_out;     /* 0 = default (1 MiB); output past it is read and dropped */
	size_t cap_err;     /* 0 = default (64 KiB) */
};

enum run_outcome {
	RUN_EXITED,     /* exit_code is valid */
	RUN_SIGNALED,   /* term_signal is valid */
	RUN_TIMEOUT,    /* killed at its timeout (or at the global deadline) */
	RUN_NOT_FOUND,  /* not on PATH */
	RUN_SPAWN_FAILED, /* fork/exec/pipe failed: spawn_errno */
	RUN_SKIPPED_BUDGET, /* not started: the global budget was already spent */
};

struct cmd_result {
	char *cmdline;        /* argv joined for display */
	char *path;           /* resolved executable, NULL when not found */
	enum run_outcome outcome;
	int exit_code;
	int term_signal;
	int spawn_errno;
	long duration_ms;
	int timeout_ms;
	char *out;            /* NUL-terminated, possibly truncated */
	size_t out_len;
	int out_truncated;
	char *err;
	size_t err_len;
	int err_truncated;
};

/* Absolute path of `name` on $PATH, or NULL. Names containing '/' are checked as is. */
char *runner_which(const char *name);
/* This program's own path (/proc/self/exe), malloc'd; NULL when unreadable.
 * For what starts cmax again: workers on the nodes, the data directory. */
char *runner_self_exe(void);
int runner_run(const char *const argv[], const struct run_opts *o, struct cmd_result *res);
void cmd_result_free(struct cmd_result *res);
/* Exit 0 and not timed out. */
int cmd_ok(const struct cmd_result *res);
/* A one-line description: "exit 0 in 12 ms", "timed out after 10000 ms", "not found on PATH". */
char *cmd_describe(const struct cmd_result *res);
/* Evidence object {kind:"command", command, outcome, exit_code|signal, duration_ms, stdout, stderr...}. */
json_t *cmd_evidence(const struct cmd_result *res, size_t excerpt_max);

/* fn for each child of pid (/proc/PID/task/PID/children), with
 * async-signal-safe calls only: for signal handlers that pass a signal on
 * to the process groups the runner made. */
void runner_each_child(pid_t pid, void (*fn)(pid_t child, void *arg), void *arg);

/* Global deadline in ms since an arbitrary monotonic epoch; 0 = none. */
void runner_set_budget_ms(long budget_ms);
/* Upper bound on every command's own timeout (--tool-timeout): sites with
 * wedged tools trade completeness for a shorter worst case. 0 = no cap. */
void runner_set_tool_timeout_cap_ms(int cap_ms);
long runner_budget_left_ms(void); /* LONG_MAX when no budget */
int runner_budget_exhausted(void);
long mono_ms(void);
#endif
