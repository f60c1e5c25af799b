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
	/* Each piece of stdout as it arrives, besides keeping it as usual: for
	 * a caller that reports progress from a long command's output (a fleet
	 * audit's srun step). NULL: none. */
	void (*on_stdout)(void *ctx, const char *data, size_t n);
	void *on_stdout_ctx;
};

enum run_outcome {
	RUN_EXITED,     /* exit_code is valid */
	RUN_SIGNALED,   /* term_signal is valid */
	RUN_TIMEOUT,    /* killed at its timeout (or at the global deadline) */
	RUN_NOT_FOUND,  /* not on PATH */
	RUN_SPAWN_FAILED, /* fork/exec/pipe failed: spawn_errno */
	RUN_SKIPPED_BUDGET, /* not started: the global budget was already spent */
	RUN_INTERRUPTED, /* cmax got SIGINT/SIGTERM/SIGHUP while it ran (core/interrupt.h):
			  * the signal went to its group, then SIGKILL after the grace;
			  * or, with not_started, it was never started (runner_refuse_interrupted) */
};

/* After an interrupt arrives during a command, how long the command has to
 * end by itself once the signal was passed on (srun cancels its step, a
 * child cmax writes its partial report) before its group is killed.
 * Declared: srun's step cancel and fio's stop take well under a second here;
 * 3 s leaves room on a loaded node. A command whose children need longer
 * (accept runs benchmarks that remove their files) sets its own. */
#define RUNNER_INTERRUPT_GRACE_MS 3000
/* The direct child exited but its stdout/stderr is still open (a
 * grandchild that called setsid holds it): output written before the exit is
 * in the pipe at once, so after this much reading stops and the leftovers are
 * killed; the command is reported as exited, not timed out. Declared: 150 ms
 * is 1000x a pipe hand-over and short against any tool's own run time. */
#define RUNNER_EXIT_GRACE_MS 150
/* Longest poll() sleep: bounds how late an exit or a signal that came just
 * before the poll is noticed (EINTR wakes it otherwise). */
#define RUNNER_POLL_MS 100

struct cmd_result {
	char *cmdline;        /* argv joined for display */
	char *path;           /* resolved executable, NULL when not found */
	enum run_outcome outcome;
	int exit_code;
	int term_signal;
	int spawn_errno;
	int interrupt_signal; /* RUN_INTERRUPTED: the signal cmax got (exit_code/term_signal
			       * then say how the child ended, when it was reaped) */
	int not_started;      /* RUN_INTERRUPTED before the start */
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
/* Fill res as a command not started because cmax was interrupted (for
 * callers that must not start new work after a signal, e.g. collectors). */
void runner_refuse_interrupted(const char *const argv[], struct cmd_result *res);
/* Longer or shorter than RUNNER_INTERRUPT_GRACE_MS; 0 = back to it. */
void runner_set_interrupt_grace_ms(int ms);
/* In a process cmax has just forked (the runner's children, benchmark
 * workers, background servers), with parent = getpid() taken before fork():
 * it gets SIGTERM when cmax dies, even by SIGKILL (PR_SET_PDEATHSIG), exits
 * at once if cmax is already gone, and has the default action for INT, TERM,
 * HUP and PIPE. */
void runner_forked_child(pid_t parent);
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
#endif
