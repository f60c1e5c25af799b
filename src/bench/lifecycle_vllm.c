/* `cmax bench lifecycle --vllm-cmd`: a vLLM server started in its own
 * process group, timed until /v1/models answers, then killed with its
 * whole group. */
#include "bench/bench.h"
#include "core/clock.h"
#include "bench/lifecycle.h"
#include "core/numparse.h"
#include "core/argv.h"
#include "core/exitcodes.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "core/redact.h"
#include "core/termsafe.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- vLLM time to /v1/models --------------------------------------------
 * The method's figure: from the start of `vllm serve` until /v1/models
 * answers, with everything the server does before it listens (weights
 * load, torch.compile, CUDA graph capture) included: 10-40 s is good, over
 * 2 minutes bad (vllm_ready_s in data/bench-thresholds.json). The clock
 * starts before the fork, so nothing the server does is left out. */

/* One poll. 1 when it answered 200 with a JSON object (*body set), 0 not
 * yet, -1 curl is missing. */
static int poll_models(int port, json_t **body, int *http)
{
	char *url = xasprintf("http://127.0.0.1:%d/v1/models", port);
	const char *argv[] = { "curl", "-s", "--max-time", "2", "-w", "\n%{http_code}", "--url", url, NULL };
	struct run_opts ro = { .timeout_ms = 5000, .cap_out = 1u << 20 };
	struct cmd_result cr;
	runner_run(argv, &ro, &cr);
	int res = 0;
	*http = 0;
	if (cr.outcome == RUN_NOT_FOUND) {
		res = -1;
	} else if (cr.outcome == RUN_EXITED && cr.exit_code == 0) {
		char *nl = strrchr(cr.out, '\n');
		*http = nl ? atoi(nl + 1) : 0;
		if (*http == 200 && nl) {
			json_t *j = json_loadb(cr.out, (size_t)(nl - cr.out), 0, NULL);
			if (json_is_object(j)) {
				*body = j;
				res = 1;
			} else {
				json_decref(j);
			}
		}
	}
	cmd_result_free(&cr);
	free(url);
	return res;
}

/* The runner puts the server in its own group, with the group id its pid:
 * the only child of our helper process. */
static pid_t server_pgid(pid_t helper)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)helper, (int)helper);
	for (int tries = 0; tries < 50; tries++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return 0;
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			return (pid_t)atol(buf);
		}
		lifecycle_sleep_ms(20);
	}
	return 0;
}

/* Live (not zombie) members of a process group. kill(-pgid, 0) would count
 * zombies that a non-reaping init has not collected yet. */
static int group_alive(pid_t pgid)
{
	if (pgid <= 0 || (kill(-pgid, 0) != 0 && errno == ESRCH))
		return 0;
	DIR *d = opendir("/proc");
	if (!d)
		return 1;
	int live = 0;
	struct dirent *e;
	while (!live && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		char path[300], buf[1024];
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		/* "pid (comm) S ppid pgrp ...": comm may hold anything but ')' ends it last */
		char *rp = strrchr(buf, ')'), state = 0;
		int ppid = 0, pgrp = 0;
		if (rp && sscanf(rp + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid && state != 'Z' &&
		    state != 'X')
			live = 1;
	}
	closedir(d);
	return live;
}

/* Stops the server: TERM to its group, KILL after 10 s; then strays that
 * closed the runner's pipes. Its process group (0: it had exited). */
static pid_t stop_server(pid_t helper, int exited, int *killed)
{
	int status;
	pid_t pg = exited ? 0 : server_pgid(helper);
	if (!exited) {
		if (pg > 0)
			kill(-pg, SIGTERM);
		for (int i = 0; i < 100 && !exited; i++) {
			if (waitpid(helper, &status, WNOHANG) == helper)
				exited = 1;
			else
				lifecycle_sleep_ms(100);
		}
		if (!exited) {
			*killed = 1;
			if (pg > 0)
				kill(-pg, SIGKILL);
			kill(helper, SIGKILL);
			waitpid(helper, &status, 0);
		}
	}
	if (group_alive(pg)) /* strays that closed the runner's pipes */
		kill(-pg, SIGKILL);
	for (int i = 0; i < 20 && group_alive(pg); i++)
		lifecycle_sleep_ms(50);
	return pg;
}

/* The helper's record of the server's run, as evidence. */
static void read_evidence(struct result *r, int fd)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		sb_add(&sb, buf, (size_t)n);
	close(fd);
	json_t *ev = json_loads(sb_str(&sb), 0, NULL);
	sb_free(&sb);
	if (json_is_object(ev))
		r_evidence(r, ev);
	else
		json_decref(ev);
}

/* What was observed, and the verdict: the time to ready against vllm_ready_s. */
static void vllm_verdict(struct bench_run *b, const struct lopts *o, struct result *r, json_t *ob, json_t *body,
			 double ready, int polls, int early, pid_t pg, int killed)
{
	json_object_set_new(ob, "ready_s", lifecycle_jnum(ready, 1e3));
	json_object_set_new(ob, "polls", json_integer(polls));
	json_object_set_new(ob, "process_group", pg > 0 ? json_integer(pg) : json_null());
	json_object_set_new(ob, "group_gone", json_boolean(!group_alive(pg)));
	json_object_set_new(ob, "needed_sigkill", json_boolean(killed));
	json_t *models = json_array();
	size_t i;
	json_t *m;
	json_array_foreach(json_object_get(body, "data"), i, m)
		if (json_is_string(json_object_get(m, "id")))
			json_array_append(models, json_object_get(m, "id"));
	json_object_set_new(ob, "models", models);
	if (bench_interrupted()) {
		r_skip(r, "interrupted; the server was stopped");
	} else if (isnan(ready)) {
		if (early)
			r_error(r, "the server exited before /v1/models answered (see the evidence for its output)");
		else if (polls == 0)
			r_error(r, "no poll was made");
		else
			r_fail(r, "no answer on http://127.0.0.1:%d/v1/models within %ld s (%d polls); server stopped",
			       o->vllm_port, o->vllm_timeout_s, polls);
	} else {
		const char *why;
		enum status s = bench_grade(bench_th(b, "vllm_ready_s"), ready, &why);
		if (s == ST_SKIP)
			s = ST_PASS;
		r_status(r, s, "/v1/models answered %.2f s after the start (%d polls, %zu model%s); server stopped%s%s", ready,
			 polls, json_array_size(models), json_array_size(models) == 1 ? "" : "s",
			 s == ST_PASS ? "" : "; ", s == ST_PASS ? "" : why);
	}
}

void lifecycle_run_vllm(struct bench_run *b, const struct lopts *o)
{
	struct result *r = bench_row_in(b, "software", "bench.lifecycle-vllm-ready",
					"time from starting a vLLM server until /v1/models answers (compilation included)");
	r_expected(r, json_deep_copy(bench_th(b, "vllm_ready_s")));
	r_reproduce(r, o->vllm_cmd);
	struct argv_list cmd = { 0 };
	argv_add_words(&cmd, o->vllm_cmd);
	char **argv = cmd.v;
	json_t *ob = json_object(), *body = NULL;
	json_object_set_new(ob, "command", json_string(o->vllm_cmd));
	json_object_set_new(ob, "port", json_integer(o->vllm_port));
	r_observed(r, ob);
	char *exe = runner_which(argv[0]);
	int http = 0, pr;
	if (!exe) {
		r_skip(r, "%s is not on PATH: no server started", argv[0]);
		goto out;
	}
	pr = poll_models(o->vllm_port, &body, &http);
	if (pr < 0) {
		r_skip(r, "curl is not on PATH (needed to poll /v1/models): no server started");
		goto out;
	}
	if (pr > 0 || http) {
		r_error(r, "port %d already answers HTTP before the server was started: another server runs there; "
			   "choose --vllm-port", o->vllm_port);
		goto out;
	}
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		r_error(r, "pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	double t0 = clock_mono_s();
	pid_t self = getpid();
	pid_t helper = fork();
	if (helper < 0) {
		close(pfd[0]);
		close(pfd[1]);
		r_error(r, "fork: %s", strerror(errno));
		goto out;
	}
	if (helper == 0) {
		/* The helper only waits on the runner; its record goes back
		 * to the parent as one JSON evidence object. It dies with cmax
		 * (and the server, its runner child, with it). */
		runner_forked_child(self);
		close(pfd[0]);
		struct run_opts ro = { .timeout_ms = (o->vllm_timeout_s + 60) * 1000, .cap_out = 256u << 10 };
		struct cmd_result cr;
		runner_run((const char *const *)argv, &ro, &cr);
		char *s = json_dumps(cmd_evidence(&cr, 1500), JSON_COMPACT);
		if (s)
			(void)!write(pfd[1], s, strlen(s));
		_exit(0);
	}
	close(pfd[1]);
	double ready = NAN;
	int polls = 0, exited = 0, early = 0, status;
	while (!bench_interrupted() && clock_mono_s() - t0 < o->vllm_timeout_s) {
		polls++;
		if (poll_models(o->vllm_port, &body, &http) > 0) {
			ready = clock_mono_s() - t0;
			break;
		}
		if (waitpid(helper, &status, WNOHANG) == helper) {
			exited = early = 1;
			break;
		}
		lifecycle_sleep_ms(100);
	}
	int killed = 0;
	pid_t pg = stop_server(helper, exited, &killed);
	read_evidence(r, pfd[0]);
	vllm_verdict(b, o, r, ob, body, ready, polls, early, pg, killed);
	if (group_alive(pg))
		r_evidence_note(r, "process group %d still had members after SIGKILL", (int)pg);
out:
	json_decref(body);
	free(exe);
	argv_free(&cmd);
}
