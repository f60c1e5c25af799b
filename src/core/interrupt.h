/* SIGINT, SIGTERM and SIGHUP for every long-running command, in one place.
 *
 * A command calls interrupt_install() once it starts work (after any
 * confirmation prompt, so Ctrl-C at the prompt still declines). The handler
 * records the first signal and passes it on to the process group of every
 * child the runner has running (each child has its own group, so the
 * terminal's Ctrl-C never reaches it otherwise): srun then cancels its step,
 * fio stops its jobs, a child cmax writes its partial report. A second
 * signal sends SIGKILL to those groups. The runner stops waiting for a
 * child once an interrupt arrives during its run (see runner.h,
 * RUN_INTERRUPTED); the command then skips what is left, writes what it
 * gathered marked partial, and exits interrupt_exit_code(): 128 + the
 * signal, as a shell reports a process killed by it. */
#ifndef CMAX_INTERRUPT_H
#define CMAX_INTERRUPT_H
#include <sys/types.h>

/* Catch SIGINT, SIGTERM and SIGHUP (a SIGHUP already ignored, as under
 * nohup, stays ignored). Idempotent; clears nothing. */
void interrupt_install(void);
/* A daemon whose commands are actions (health watch drains a node) lets
 * the one in flight finish: with 0 the signal is only recorded, neither
 * passed on nor acted on by the runner. Default 1. */
void interrupt_set_forwarding(int on);
int interrupt_forwarding(void);
/* Put back what interrupt_install replaced; the recorded signal stays. */
void interrupt_restore(void);
/* A signal arrived since the process started (0: none). */
int interrupt_pending(void);
int interrupt_signal(void);
/* How many have arrived: the runner tells one that arrived during a
 * command from one that arrived before it (clean-up commands still run). */
unsigned interrupt_count(void);
/* 130 SIGINT, 143 SIGTERM, 129 SIGHUP (exitcodes.h); 0 when none. An exit
 * code, not a library error (core/error.h): it exists to compute the
 * status of a command a signal stopped, the same for every command. */
int interrupt_exit_code(void);
/* "SIGINT", "SIGTERM", "SIGHUP", or "signal" for anything else. */
const char *interrupt_signal_name(int sig);
/* Forget the recorded signal (a daemon that handled it and goes on; tests). */
void interrupt_reset(void);
/* Leave cmax the way the signal means after a clean-up: restore the
 * default action and raise it (the exit status then is 128 + sig). */
void interrupt_reraise(void);

/* The runner's side: a child's process group to pass signals on to while
 * it runs. Returns a slot for interrupt_unwatch_group, or -1 when full (the
 * runner then still stops the child itself when it sees the interrupt). */
int interrupt_watch_group(pid_t pgid);
void interrupt_unwatch_group(int slot);
/* Async-signal-safe: send sig to every watched group (a command's own
 * timer, e.g. accept's budget alarm, asking the running child to stop). */
void interrupt_forward(int sig);
#endif
