/* The command runner: argv, timeout that kills the group, caps, records. */
#include "tap.h"
#include "core/clock.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <time.h>

int main(void)
{
	struct cmd_result r;
	const char *echo[] = { "printf", "%s", "hello", NULL };
	T_OK(runner_run(echo, NULL, &r) == 0, "printf runs");
	T_STREQ(r.out, "hello", "stdout captured");
	T_INTEQ(r.exit_code, 0, "exit 0");
	cmd_result_free(&r);

	const char *loc[] = { "sh", "-c", "echo $LC_ALL", NULL };
	runner_run(loc, NULL, &r);
	T_STREQ(r.out, "C\n", "LC_ALL=C in the child");
	cmd_result_free(&r);

	const char *nf[] = { "cmax-no-such-tool-xyz", NULL };
	T_OK(runner_run(nf, NULL, &r) != 0 && r.outcome == RUN_NOT_FOUND, "missing tool is NOT_FOUND");
	cmd_result_free(&r);

	const char *ex[] = { "sh", "-c", "echo oops >&2; exit 3", NULL };
	runner_run(ex, NULL, &r);
	T_OK(r.outcome == RUN_EXITED && r.exit_code == 3, "exit code recorded");
	T_STREQ(r.err, "oops\n", "stderr captured");
	cmd_result_free(&r);

	/* a child that forks a grandchild holding the pipe open: the group dies */
	const char *hang[] = { "sh", "-c", "sleep 30 & sleep 30", NULL };
	struct run_opts o = { .timeout_ms = 300 };
	long t0 = clock_mono_ms();
	runner_run(hang, &o, &r);
	long took = clock_mono_ms() - t0;
	T_OK(r.outcome == RUN_TIMEOUT, "hung tool times out");
	T_OK(took < 3000, "and costs about its timeout (%ld ms)", took);
	json_t *e = cmd_evidence(&r, 100);
	T_STREQ(json_string_value(json_object_get(e, "outcome")), "timeout", "evidence says timeout");
	json_decref(e);
	cmd_result_free(&r);

	const char *big[] = { "sh", "-c", "head -c 5000000 /dev/zero | tr '\\0' x", NULL };
	struct run_opts cap = { .timeout_ms = 5000, .cap_out = 1000 };
	runner_run(big, &cap, &r);
	T_OK(r.out_len == 1000 && r.out_truncated && r.outcome == RUN_EXITED, "output capped, tool not killed");
	cmd_result_free(&r);

	const char *sig[] = { "sh", "-c", "kill -SEGV $$", NULL };
	runner_run(sig, NULL, &r);
	T_OK(r.outcome == RUN_SIGNALED && r.term_signal == 11, "signal recorded");
	char *d = cmd_describe(&r);
	T_OK(strstr(d, "signal 11") != NULL, "described: %s", d);
	free(d);
	cmd_result_free(&r);

	const char *garbage[] = { "printf", "\\377\\376abc\\001", NULL };
	runner_run(garbage, NULL, &r);
	e = cmd_evidence(&r, 100);
	T_OK(json_string_value(json_object_get(e, "stdout")) != NULL, "invalid UTF-8 still makes a JSON string");
	json_decref(e);
	cmd_result_free(&r);

	runner_set_budget_ms(1);
	struct timespec ts = { 0, 5000000 };
	nanosleep(&ts, NULL);
	runner_run(echo, NULL, &r);
	T_OK(r.outcome == RUN_SKIPPED_BUDGET, "spent budget: command not started");
	cmd_result_free(&r);
	runner_set_budget_ms(0);
	return t_done();
}
