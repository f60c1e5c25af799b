/* The metadata benchmark's correctness checkers: real locks and mkdir on
 * this machine's file system must pass; fakes that do not lock, or a mkdir
 * that answers EEXIST for a path that is not there, must FAIL, so the FAIL
 * path of the benchmark is real code, not a hope. */
#include "bench/meta.h"
#include "bench/bench.h"
#include "core/result.h"
#include "core/strbuf.h"
#include "tap.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
	struct result *r = result_new(NULL, "h");
	meta_grade_lock(r, "flock", &rep);
	T_INTEQ(r->status, ST_FAIL, "no-op lock graded FAIL");
	T_OK(r->summary && strstr(r->summary, "of 200 exclusive flock() locks violated"), "summary has the count: %s",
	     r->summary ? r->summary : "");
	result_free(r);

	struct lock_report ok = { .iterations = 100, .processes = 2 };
	r = result_new(NULL, "h");
	meta_grade_lock(r, "fcntl", &ok);
	T_INTEQ(r->status, ST_PASS, "clean report graded PASS");
	result_free(r);
	ok.errors = 3;
	ok.first_errno = ENOLCK;
	r = result_new(NULL, "h");
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
	test_mkdir(dir);
	test_grade();
	bench_rm_tree(dir);
	T_OK(access(dir, F_OK) != 0, "temp dir removed");
	return t_done();
}
