/* The metadata benchmark's correctness checkers: real locks and mkdir on
 * this machine's file system must pass; fakes that do not lock, or a mkdir
 * that answers EEXIST for a path that is not there, must FAIL, so the FAIL
 * path of the benchmark is real code, not a hope. The cross-node lock
 * worker runs here as two local processes through the same files the
 * nodes use; the srun -v parser and the per-node fio aggregation of
 * `bench storage --slurm` are checked on recorded text. */
#include "bench/meta.h"
#include "bench/bench.h"
#include "bench/slurmstep.h"
#include "core/result.h"
#include "core/strbuf.h"
#include "parse/fio.h"
#include "tap.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int no_lock(int fd)
{
	(void)fd;
	return 0;
}

static const struct lock_ops fake_nolock = { "nolock", no_lock, no_lock };

static int fake_mkdir_eexist(const char *p, mode_t m)
{
	/* the virtiofs/NFS symptom: EEXIST for every component below the root,
	 * while the directory is not (yet) visible */
	if (strstr(p, "/t/"))
		return errno = EEXIST, -1;
	return mkdir(p, m);
}

static const struct meta_fsops fake_fs = { fake_mkdir_eexist, stat };

static void test_locks(const char *dir)
{
	struct lock_report rep;
	T_OK(meta_lock_check(dir, &meta_flock_ops, 2, 50, 200, &rep) == 0, "flock: ran");
	T_INTEQ(lock_violations(&rep), 0, "flock: no violation on a local file system");
	T_INTEQ(rep.errors, 0, "flock: no errors");
	T_OK(meta_lock_check(dir, &meta_fcntl_ops, 2, 50, 200, &rep) == 0, "fcntl: ran");
	T_INTEQ(lock_violations(&rep), 0, "fcntl: no violation");

	T_OK(meta_lock_check(dir, &fake_nolock, 2, 100, 1000, &rep) == 0, "no-op lock: ran");
	T_OK(rep.overlaps > 0, "no-op lock: overlaps detected (%ld)", rep.overlaps);
	T_OK(rep.lost_updates > 0, "no-op lock: lost counter updates (%ld)", rep.lost_updates);
	struct result *r = result_new(NULL, NULL, NULL, "h");
	meta_grade_lock(r, "flock", &rep);
	T_INTEQ(r->status, ST_FAIL, "no-op lock graded FAIL");
	T_OK(r->summary && strstr(r->summary, "of 200 exclusive flock() locks violated"), "summary has the count: %s",
	     r->summary ? r->summary : "");
	result_free(r);

	struct lock_report ok = { .iterations = 100, .processes = 2 };
	r = result_new(NULL, NULL, NULL, "h");
	meta_grade_lock(r, "fcntl", &ok);
	T_INTEQ(r->status, ST_PASS, "clean report graded PASS");
	result_free(r);
	ok.errors = 3;
	ok.first_errno = ENOLCK;
	r = result_new(NULL, NULL, NULL, "h");
	meta_grade_lock(r, "fcntl", &ok);
	T_INTEQ(r->status, ST_FAIL, "ENOLCK from the lock call graded FAIL");
	result_free(r);
}

static void test_mkdir(const char *dir)
{
	struct work_out o;
	memset(&o, 0, sizeof o);
	char *p = xasprintf("%s/m/a/b/c", dir);
	meta_mkdir_p(p, &meta_real_fsops, &o);
	T_INTEQ(o.errors, 0, "real mkdir -p: no error");
	T_OK(o.extra[0] >= 4, "real mkdir -p: components created");
	memset(&o, 0, sizeof o);
	meta_mkdir_p(p, &meta_real_fsops, &o);
	T_INTEQ(o.errors, 0, "second mkdir -p: EEXIST is benign");
	T_OK(o.extra[1] >= 4, "second mkdir -p: benign EEXIST counted");
	free(p);

	memset(&o, 0, sizeof o);
	p = xasprintf("%s/t/x/y", dir);
	meta_mkdir_p(p, &fake_fs, &o);
	T_OK(o.errors >= 1, "fake EEXIST on a missing directory is spurious (%ld)", o.errors);
	T_INTEQ(o.first_errno, EEXIST, "first error EEXIST");
	T_OK(strstr(o.first_path, "/t/x") != NULL, "first path names the component: %s", o.first_path);
	free(p);
}


/* ---- cross-node lock worker, as two local processes ---------------------- */

/* Run workers 0..n-1 (only those with start[w]) in child processes, each
 * reporting its node_lock_out through a pipe. */
static void run_node_workers(const char *dir, const struct lock_ops *ops, int n, const int *start, int iterations,
			     int rendezvous_ms, struct node_lock_out *outs, int *got)
{
	int fds[8][2];
	pid_t pids[8];
	for (int w = 0; w < n; w++) {
		got[w] = 0;
		if (!start[w])
			continue;
		if (pipe(fds[w]) != 0)
			return;
		fflush(NULL);
		pids[w] = fork();
		if (pids[w] == 0) {
			close(fds[w][0]);
			struct node_lock_out o;
			memset(&o, 0, sizeof o);
			snprintf(o.node, sizeof o.node, "local%d", w);
			meta_node_lock_worker(dir, ops, w, n, iterations, 300, rendezvous_ms, &o);
			ssize_t wr = write(fds[w][1], &o, sizeof o);
			_exit(wr == (ssize_t)sizeof o ? 0 : 1);
		}
		close(fds[w][1]);
	}
	for (int w = 0; w < n; w++) {
		if (!start[w])
			continue;
		got[w] = read(fds[w][0], &outs[w], sizeof outs[w]) == (ssize_t)sizeof outs[w];
		close(fds[w][0]);
		waitpid(pids[w], NULL, 0);
	}
}

static void clear_marks(const char *dir, const char *name)
{
	for (int w = 0; w < 4; w++) {
		char p[4096];
		snprintf(p, sizeof p, "%s/%s.ready.%d", dir, name, w);
		unlink(p);
		snprintf(p, sizeof p, "%s/%s.done.%d", dir, name, w);
		unlink(p);
	}
}

static void test_node_locks(const char *dir)
{
	struct node_lock_out outs[2];
	int got[2], both[2] = { 1, 1 };
	const char *names[2] = { "node1", "node2" };

	T_OK(meta_node_lock_prepare(dir, "flock") == 0, "node lock: prepare");
	T_INTEQ(meta_node_lock_counter(dir, "flock"), 0, "node lock: fresh counter is 0");
	run_node_workers(dir, &meta_flock_ops, 2, both, 60, 5000, outs, got);
	T_OK(got[0] && got[1], "node lock flock: both workers reported");
	T_OK(outs[0].rendezvous_ok && outs[1].rendezvous_ok, "node lock flock: both met");
	T_OK(outs[0].overlap_ok && outs[1].overlap_ok, "node lock flock: rounds overlapped in time");
	T_INTEQ(outs[0].done + outs[1].done, 120, "node lock flock: 2 x 60 rounds done");
	T_INTEQ(outs[0].overlaps + outs[1].overlaps, 0, "node lock flock: no overlap");
	T_INTEQ(outs[0].errors + outs[1].errors, 0, "node lock flock: no errors");
	long final = meta_node_lock_counter(dir, "flock");
	T_INTEQ(final, 120, "node lock flock: counter is 120, no lost update");
	struct result *r = result_new(NULL, NULL, NULL, "h");
	meta_grade_node_lock(r, "flock", outs, got, names, 2, 60, final);
	T_INTEQ(r->status, ST_PASS, "node lock flock graded PASS: %s", r->summary ? r->summary : "");
	T_INTEQ(json_integer_value(json_object_get(r->observed, "violations")), 0, "observed violations 0");
	T_INTEQ(json_array_size(json_object_get(r->observed, "per_node")), 2, "observed per_node has both workers");
	T_STREQ(json_string_value(json_object_get(json_array_get(json_object_get(r->observed, "per_node"), 1), "node")),
		"local1", "per_node names the node the worker reported");
	T_INTEQ(json_integer_value(json_object_get(json_array_get(json_object_get(r->observed, "per_node"), 0), "iterations")),
		60, "per_node iterations 60");
	result_free(r);

	clear_marks(dir, "fcntl");
	T_OK(meta_node_lock_prepare(dir, "fcntl") == 0, "node lock fcntl: prepare");
	run_node_workers(dir, &meta_fcntl_ops, 2, both, 40, 5000, outs, got);
	T_INTEQ(meta_node_lock_counter(dir, "fcntl"), 80, "node lock fcntl: counter 80");
	T_INTEQ(outs[0].overlaps + outs[1].overlaps, 0, "node lock fcntl: no overlap");

	/* a lock that does not lock: the record check must see it */
	clear_marks(dir, "nolock");
	T_OK(meta_node_lock_prepare(dir, "nolock") == 0, "no-op node lock: prepare");
	run_node_workers(dir, &fake_nolock, 2, both, 100, 5000, outs, got);
	final = meta_node_lock_counter(dir, "nolock");
	T_OK(outs[0].overlap_ok && outs[1].overlap_ok, "no-op node lock: rounds overlapped");
	T_OK(outs[0].overlaps + outs[1].overlaps > 0, "no-op node lock: overlaps seen (%ld)", outs[0].overlaps + outs[1].overlaps);
	T_OK(final < 200, "no-op node lock: lost counter updates (final %ld of 200)", final);
	r = result_new(NULL, NULL, NULL, "h");
	meta_grade_node_lock(r, "flock", outs, got, names, 2, 100, final);
	T_INTEQ(r->status, ST_FAIL, "no-op node lock graded FAIL");
	T_OK(r->summary && strstr(r->summary, "of 200 exclusive flock() locks violated between 2 nodes"),
	     "summary has the count: %s", r->summary ? r->summary : "");
	T_OK(json_integer_value(json_object_get(r->observed, "violations")) > 0, "observed violations > 0");
	result_free(r);

	/* the other worker never comes: no verdict, never a PASS */
	clear_marks(dir, "flock");
	int one[2] = { 1, 0 };
	run_node_workers(dir, &meta_flock_ops, 2, one, 10, 200, outs, got);
	T_OK(got[0] && !outs[0].rendezvous_ok, "alone: rendezvous times out");
	T_INTEQ(outs[0].done, 0, "alone: no round done");
	r = result_new(NULL, NULL, NULL, "h");
	meta_grade_node_lock(r, "flock", outs, got, names, 2, 10, meta_node_lock_counter(dir, "flock"));
	T_INTEQ(r->status, ST_ERROR, "missing worker graded ERROR");
	T_OK(r->summary && strstr(r->summary, "1 of 2 lock workers sent no report (node2)"), "names the node: %s",
	     r->summary ? r->summary : "");
	result_free(r);
	got[1] = 1;
	outs[1] = outs[0];
	outs[1].worker = 1;
	r = result_new(NULL, NULL, NULL, "h");
	meta_grade_node_lock(r, "flock", outs, got, names, 2, 10, 0);
	T_INTEQ(r->status, ST_ERROR, "workers that did not meet: ERROR");
	result_free(r);

	/* start skew: the other worker had already finished -> no verdict */
	clear_marks(dir, "nolock");
	char p[4096];
	snprintf(p, sizeof p, "%s/nolock.ready.1", dir);
	close(open(p, O_WRONLY | O_CREAT, 0644));
	snprintf(p, sizeof p, "%s/nolock.done.1", dir);
	close(open(p, O_WRONLY | O_CREAT, 0644));
	T_OK(meta_node_lock_prepare(dir, "nolock") == 0, "skew: prepare");
	run_node_workers(dir, &fake_nolock, 2, one, 20, 2000, outs, got);
	T_OK(outs[0].rendezvous_ok && !outs[0].overlap_ok, "skew: worker 0 sees worker 1 finished before it began");
	T_INTEQ(outs[0].overlaps, 0, "skew: alone, a no-op lock shows no overlap...");
	outs[1] = outs[0];
	outs[1].worker = 1;
	outs[1].overlap_ok = 1;
	got[1] = 1;
	r = result_new(NULL, NULL, NULL, "h");
	meta_grade_node_lock(r, "flock", outs, got, names, 2, 20, meta_node_lock_counter(dir, "nolock"));
	T_INTEQ(r->status, ST_ERROR, "... and is ERROR, not PASS: %s", r->summary ? r->summary : "");
	T_OK(r->summary && strstr(r->summary, "did not run at the same time"), "summary says why");
	result_free(r);
	clear_marks(dir, "nolock");
	clear_marks(dir, "flock");
	clear_marks(dir, "fcntl");
	snprintf(p, sizeof p, "%s/lock-nolock", dir);
	unlink(p);
}

static void test_node_lock_lines(void)
{
	struct node_lock_out o, outs[2];
	int got[2];
	memset(&o, 0, sizeof o);
	o.worker = 1;
	o.workers = 2;
	o.iterations = 100;
	o.done = 100;
	o.overlaps = 3;
	o.others_between = 42;
	o.rendezvous_ok = o.overlap_ok = 1;
	o.noop = 1;
	snprintf(o.node, sizeof o.node, "gpu-07");
	char *line = meta_node_lock_line(&o);
	T_OK(!strncmp(line, "CMAXLOCK {", 10) && line[strlen(line) - 1] == '\n', "worker line is one CMAXLOCK line");
	char *text = xasprintf("srun noise\n%sCMAXLOCK {\"worker\": 7}\nCMAXLOCK not json\n%s", line, line);
	T_INTEQ(meta_node_lock_parse(text, strlen(text), outs, got, 2), 1, "one valid report (others ignored, duplicate dropped)");
	T_OK(!got[0] && got[1], "worker 1 found");
	T_INTEQ(outs[1].done, 100, "done round-trips");
	T_INTEQ(outs[1].overlaps, 3, "overlaps round-trip");
	T_INTEQ(outs[1].others_between, 42, "others_between round-trips");
	T_OK(outs[1].noop && outs[1].rendezvous_ok && outs[1].overlap_ok, "flags round-trip");
	T_STREQ(outs[1].node, "gpu-07", "node round-trips");
	free(text);
	const char *bad = "CMAXLOCK {\"worker\": 0, \"done\": \"x\"}\nCMAXLOCK [1]\n";
	T_INTEQ(meta_node_lock_parse(bad, strlen(bad), outs, got, 2), 0, "broken reports are not reports");
	T_INTEQ(meta_node_lock_parse(NULL, 0, outs, got, 2), 0, "no output: none");
	free(line);
}

/* ---- srun -v ----------------------------------------------------------- */

static void test_srun_parse(void)
{
	const char *err =
		"srun: defined options\n"
		"srun: jobid 2: nodes(2):`node[1-2]', cpu counts: 1(x2)\n"
		"srun: launching StepId=2.0 on host node1, 1 tasks: 0\n"
		"srun: launching StepId=2.0 on host node2, 1 tasks: 1\n"
		"srun: launch/slurm: _task_finish: node2: task 1: Completed\n"
		"srun: error: node2: task 1: Exited with exit code 3\n"
		"srun: error: node12: task 5: Killed\n";
	struct srun_info si;
	srun_parse(err, strlen(err), &si);
	T_STREQ(si.step, "2.0", "step id");
	T_STREQ(si.job, "2", "job id");
	T_INTEQ(si.ntasks, 2, "two launch lines");
	T_STREQ(srun_node_of(&si, 0), "node1", "task 0 on node1");
	T_STREQ(srun_node_of(&si, 1), "node2", "task 1 on node2");
	T_OK(srun_node_of(&si, 2) == NULL, "task 2 unknown");
	char *a = srun_errors_about(err, "node2");
	T_STREQ(a, "srun: error: node2: task 1: Exited with exit code 3", "errors about node2 (not node12)");
	free(a);
	T_OK(srun_errors_about(err, "node1") == NULL, "nothing about node1");
	a = srun_first_error(err);
	T_STREQ(a, "srun: error: node2: task 1: Exited with exit code 3", "first error line");
	free(a);
	srun_info_free(&si);

	const char *old = "srun: jobid 77: nodes(4)\nsrun: launching 77.3 on host gpu-a, 2 tasks: [0-1]\n"
			  "srun: launching 77.3 on host gpu-b, 2 tasks: 2,3\n";
	srun_parse(old, strlen(old), &si);
	T_STREQ(si.step, "77.3", "older format: step id");
	T_STREQ(si.job, "77", "older format: job id");
	T_INTEQ(si.ntasks, 4, "task ranges expanded");
	T_STREQ(srun_node_of(&si, 1), "gpu-a", "task 1 on gpu-a");
	T_STREQ(srun_node_of(&si, 3), "gpu-b", "task 3 on gpu-b");
	srun_info_free(&si);

	const char *own = "srun: error: Unable to allocate resources: Requested node configuration is not available\n";
	srun_parse(own, strlen(own), &si);
	T_OK(!si.step && !si.job && si.ntasks == 0, "no launch: nothing to cancel");
	srun_info_free(&si);
	srun_parse("srun: launching StepId=9", 24, &si);
	T_OK(!si.step && si.ntasks == 0, "a cut line is not a launch");
	srun_info_free(&si);
	/* the argv joined paste-safe: tests/unit/test_argv.c */
}

/* ---- per-node fio figures into one ----------------------------------------- */

static const char *fio_node(double bw, double iops, double p999)
{
	static char buf[1024];
	snprintf(buf, sizeof buf,
		 "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"x\", \"error\": 0, "
		 "\"write\": {\"io_bytes\": 8388608, \"bw_bytes\": %.0f, \"iops\": %.1f, \"runtime\": 10, "
		 "\"total_ios\": 8, \"clat_ns\": {\"mean\": 1000, \"max\": %.0f, \"percentile\": "
		 "{\"50.000000\": 1000, \"99.000000\": 2000, \"99.900000\": %.0f}}}}]}",
		 bw, iops, p999, p999);
	return buf;
}

static void test_fio_nodes(void)
{
	struct fio_report fr[2];
	struct fio_job sums[2], agg;
	char *err = NULL;
	T_OK(fio_parse(fio_node(400e6, 400, 5e6), strlen(fio_node(400e6, 400, 5e6)), &fr[0], &err) == 0, "node 1 JSON");
	free(err);
	err = NULL;
	T_OK(fio_parse(fio_node(300e6, 250.5, 9e6), strlen(fio_node(300e6, 250.5, 9e6)), &fr[1], &err) == 0, "node 2 JSON");
	free(err);
	fio_sum(&fr[0], &sums[0]);
	fio_sum(&fr[1], &sums[1]);
	sums[1].total_err = 2;
	fio_sum_jobs(sums, 2, &agg);
	T_INTEQ((long long)agg.dir[FIO_WRITE].bw_bytes, 700000000, "aggregate bandwidth is the sum");
	T_INTEQ((long long)(agg.dir[FIO_WRITE].iops * 10), 6505, "aggregate IOPS is the sum");
	T_INTEQ((long long)agg.dir[FIO_WRITE].clat.p999_ns, 9000000, "p99.9 is the worst node's");
	T_INTEQ((long long)agg.dir[FIO_WRITE].io_bytes, 16777216, "bytes add up");
	T_INTEQ(agg.total_err, 2, "errors add up");
	T_OK(!agg.dir[FIO_READ].present, "no read direction invented");
	fio_sum_jobs(sums, 0, &agg);
	T_OK(!agg.dir[FIO_WRITE].present && agg.dir[FIO_WRITE].bw_bytes != agg.dir[FIO_WRITE].bw_bytes,
	     "no node: unknown (NAN), not 0");
	fio_report_free(&fr[0]);
	fio_report_free(&fr[1]);
}


/* ---- which nodes: the environment of an allocation ------------------------ */

static void test_slurm_init(const char *dir)
{
	/* a stand-in srun on PATH: bench_slurm_init only looks for it */
	char *bin = xasprintf("%s/bin", dir), *fake = xasprintf("%s/bin/srun", dir);
	mkdir(bin, 0755);
	close(open(fake, O_WRONLY | O_CREAT, 0755));
	char *oldpath = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", bin, 1);
	unsetenv("SLURM_JOB_ID");
	unsetenv("SLURM_JOBID");
	struct bench_slurm S;
	char *why = NULL, *err = NULL;

	T_INTEQ(bench_slurm_init(&S, "x", 1, 0, NULL, 1, 1, NULL, &err), -1, "--slurm outside an allocation: usage error");
	T_OK(err && strstr(err, "--nodes N"), "... saying --nodes N: %s", err ? err : "");
	free(err);
	bench_slurm_free(&S);
	T_INTEQ(bench_slurm_init(&S, "x", 0, 0, NULL, 2, 0, &why, &err), 0, "probe outside an allocation: fine");
	T_OK(!S.active && why && strstr(why, "not in a Slurm allocation with 2+ nodes"), "inactive, why: %s", why ? why : "");
	free(why);
	bench_slurm_free(&S);
	T_INTEQ(bench_slurm_init(&S, "x", 0, 4, "p1", 1, 1, NULL, &err), 0, "--nodes 4 outside: srun takes them");
	T_OK(S.active && !S.in_alloc && S.max_nodes == 4 && !S.nodes, "outside: 4 nodes, none named");
	struct argv_list v = { 0 };
	bench_srun_prefix(&v, &S, 2, 100);
	char *j = argv_display(&v);
	T_OK(strstr(j, "srun -v --nodes=2 --ntasks=2 --ntasks-per-node=1 --kill-on-bad-exit=0 --wait=100 ") &&
	     strstr(j, " --immediate=30 --time=4 --partition=p1") && !strstr(j, "--overlap"), "outside: %s", j);
	free(j);
	argv_free(&v);
	bench_slurm_free(&S);

	setenv("SLURM_JOB_ID", "42", 1);
	setenv("SLURM_JOB_NODELIST", "gpu[07-09]", 1);
	T_INTEQ(bench_slurm_init(&S, "x", 1, 0, NULL, 1, 1, NULL, &err), 0, "in job 42");
	T_OK(S.active && S.in_alloc && S.max_nodes == 3, "all 3 nodes of the allocation");
	T_STREQ(bench_slurm_node(&S, 2), "gpu09", "named in order, padding kept");
	bench_srun_prefix(&v, &S, 2, 60);
	j = argv_display(&v);
	T_OK(strstr(j, " --nodelist=gpu07,gpu08 --overlap") && !strstr(j, "--immediate"), "in the allocation: %s", j);
	free(j);
	argv_free(&v);
	bench_slurm_free(&S);
	T_INTEQ(bench_slurm_init(&S, "x", 0, 5, NULL, 1, 1, NULL, &err), -1, "--nodes 5 in a 3-node job: usage error");
	T_OK(err && strstr(err, "has 3 nodes"), "says how many: %s", err ? err : "");
	free(err);
	bench_slurm_free(&S);
	setenv("SLURM_JOB_NODELIST", "gpu07", 1);
	T_INTEQ(bench_slurm_init(&S, "x", 0, 0, NULL, 2, 0, &why, &err), 0, "1-node job, probing for 2");
	T_OK(!S.active && why && strstr(why, "has 1 node"), "inactive: %s", why ? why : "");
	free(why);
	bench_slurm_free(&S);
	setenv("PATH", dir, 1); /* no srun */
	setenv("SLURM_JOB_NODELIST", "gpu[07-08]", 1);
	T_INTEQ(bench_slurm_init(&S, "x", 1, 0, NULL, 1, 1, NULL, &err), -1, "no srun on PATH: usage error");
	T_OK(err && strstr(err, "srun is not on PATH"), "says so: %s", err ? err : "");
	free(err);
	bench_slurm_free(&S);
	unsetenv("SLURM_JOB_ID");
	unsetenv("SLURM_JOB_NODELIST");
	setenv("PATH", oldpath, 1);
	unlink(fake);
	rmdir(bin);
	free(oldpath);
	free(fake);
	free(bin);
}

static void grade_case(const char *js, double v, enum status want, const char *name)
{
	json_t *th = json_loads(js, 0, NULL);
	const char *why;
	T_INTEQ(bench_grade(th, v, &why), want, "%s (%s)", name, why);
	json_decref(th);
}

static void test_grade(void)
{
	grade_case("{\"warn_below\": 10, \"fail_below\": 5}", 12, ST_PASS, "above warn_below -> PASS");
	grade_case("{\"warn_below\": 10, \"fail_below\": 5}", 7, ST_WARN, "between -> WARN");
	grade_case("{\"warn_below\": 10, \"fail_below\": 5}", 4, ST_FAIL, "below fail_below -> FAIL");
	grade_case("{\"warn_above\": 3, \"fail_above\": 10}", 11, ST_FAIL, "above fail_above -> FAIL");
	grade_case("{\"warn_above\": 3, \"fail_above\": 10}", 2, ST_PASS, "below warn_above -> PASS");
	grade_case("{\"warn_above\": 3}", 0.0 / 0.0, ST_SKIP, "unknown value -> SKIP, never PASS");
	const char *why;
	T_INTEQ(bench_grade(NULL, 5, &why), ST_SKIP, "no threshold -> SKIP");
}

int main(void)
{
	char tmpl[] = "/tmp/cmax-test-meta.XXXXXX";
	char *dir = mkdtemp(tmpl);
	if (!T_OK(dir != NULL, "temp dir"))
		return t_done();
	test_locks(dir);
	test_node_locks(dir);
	test_node_lock_lines();
	test_srun_parse();
	test_fio_nodes();
	test_slurm_init(dir);
	test_mkdir(dir);
	test_grade();
	bench_rm_tree(dir);
	T_OK(access(dir, F_OK) != 0, "temp dir removed");
	return t_done();
}
