/* The clock and the command runner of cmax inject and cmax reboot-test,
 * with one test hook: CMAX_TEST_SCHED_REPLAY=FILE.
 *
 * A real fault takes minutes to hours to play out (the method's figures:
 * detection after 67 s or 11 min, a node back after 35 min or 2 h, an NVL72
 * tray back after 8 h 40 min, reboots of 2 and 19 minutes). Tests cannot
 * wait that long, so with the hook set:
 *   - the clock is simulated: it starts at 0 (the file's "epoch" on the
 *     wall clock) and only moves when the command sleeps, by exactly the
 *     time asked for, or when a replayed command says it took time;
 *   - every command these two commands would run (scontrol, sinfo, srun,
 *     kubectl, --detect-cmd) is answered from the file instead: for the
 *     recording whose argv matches (fnmatch per argument), the entry with
 *     the latest time at or before the simulated now;
 *   - a command without a recording answers exit 97 and is logged, as
 *     tests/fakecmd does, so a test fails loudly on it.
 * Everything else is the real code: the polling loops, the node-state
 * parsers, the timeline, the grading and the JSON writers. Documents made
 * under the hook carry "test_replay" naming the file, so they can never
 * pass for a measurement. Without the variable nothing changes. The file
 * format is described in docs/reliability.md ("Replaying recorded
 * scheduler observations"). */
#ifndef CMAX_INJECT_REPLAY_H
#define CMAX_INJECT_REPLAY_H
#include <jansson.h>

#include "core/error.h"
#include "core/runner.h"

/* Load CMAX_TEST_SCHED_REPLAY when set. CE_OK when unset or loaded;
 * otherwise an error (CE_NOINPUT missing, CE_DATA malformed, as read_input
 * says) after one line on stderr naming the file and what is wrong,
 * prefixed with prog. */
enum cmax_err replay_init(const char *prog);
int replay_active(void);
/* {file, note} for the document, or NULL without the hook. */
json_t *replay_json(void);
void replay_done(void);

/* Milliseconds on a monotonic clock (the simulated one under the hook). */
long inj_clock_ms(void);
/* The same in seconds: the clock of the progress lines (core/progress.h),
 * so a replay's milestones are timed on its simulated clock. */
double inj_clock_s(void);
/* Epoch seconds with microseconds (simulated: epoch + clock). */
double inj_wall(void);
/* Sleep (or advance the simulated clock by) ms. */
void inj_sleep_ms(long ms);
/* runner_run, or the replayed answer. */
void inj_run(const char *const argv[], const struct run_opts *ro, struct cmd_result *res);
#endif
