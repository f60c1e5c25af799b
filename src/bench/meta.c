#include "bench/meta.h"
#include "core/jsonget.h"
#include "core/clock.h"
#include "bench/bench.h"
#include "core/result.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int meta_run_workers(int n, work_fn fn, void *arg, struct work_out *total, double *wall_s)
{
	memset(total, 0, sizeof *total);
	*wall_s = 0;
	int go[2], res[2];
	if (pipe2(go, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(res, O_CLOEXEC) != 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	pid_t *pids = calloc((size_t)n, sizeof *pids);
	int started = 0, rc = 0;
	fflush(NULL);
	pid_t self = getpid();
	for (int w = 0; w < n; w++) {
		pid_t p = fork();
		if (p < 0) {
			rc = -1;
			break;
		}
		if (p == 0) {
			runner_forked_child(self); /* dies with cmax, even by SIGKILL */
			close(go[1]);
			close(res[0]);
			char c;
			while (read(go[0], &c, 1) < 0 && errno == EINTR)
				;
			struct work_out o;
			memset(&o, 0, sizeof o);
			fn(w, n, arg, &o);
			ssize_t wr = write(res[1], &o, sizeof o);
			_exit(wr == (ssize_t)sizeof o ? 0 : 1);
		}
		pids[started++] = p;
	}
	close(go[0]);
	close(res[1]);
	double t0 = clock_mono_s();
	close(go[1]);           /* every worker's read returns 0: go */
	int got = 0;
	while (got < started) {
		struct work_out o;
		ssize_t r = read(res[0], &o, sizeof o);
		if (r < 0 && errno == EINTR && !bench_interrupted())
			continue;
		if (r != (ssize_t)sizeof o)
			break;
		if (!total->first_errno && o.first_errno) {
			total->first_errno = o.first_errno;
			memcpy(total->first_path, o.first_path, sizeof o.first_path);
		}
		total->ops += o.ops;
		total->errors += o.errors;
		for (int i = 0; i < 4; i++)
			total->extra[i] += o.extra[i];
		got++;
	}
	*wall_s = clock_mono_s() - t0;
	close(res[0]);
	for (int i = 0; i < started; i++) {
		if (got < started)
			kill(pids[i], SIGKILL);
		while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(pids);
	if (got < started || bench_interrupted())
		rc = -1;
	return rc;
}

const struct meta_fsops meta_real_fsops = { mkdir, stat };

static void note_err(struct work_out *o, int e, const char *path)
{
	o->errors++;
	if (!o->first_errno) {
		o->first_errno = e ? e : EIO;
		work_note_path(o, path);
	}
}

void meta_mkdir_p(const char *path, const struct meta_fsops *ops, struct work_out *out)
{
	char buf[4096];
	size_t n = strlen(path);
	if (n >= sizeof buf)
		return;
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != 0)
			continue;
		char saved = buf[i];
		buf[i] = 0;
		out->ops++;
		if (ops->mkdir(buf, 0755) == 0) {
			out->extra[0]++;
		} else if (errno == EEXIST) {
			struct stat st;
			if (ops->stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
				out->extra[1]++;
			else
				note_err(out, EEXIST, buf);  /* what mkdir -p would report */
		} else {
			note_err(out, errno, buf);
		}
		buf[i] = saved;
	}
}

/* ---- locks ------------------------------------------------------------ */

static int do_flock(int fd)
{
	int rc;
	while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
		;
	return rc;
}

static int do_funlock(int fd)
{
	return flock(fd, LOCK_UN);
}

static int do_fcntl(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
	int rc;
	while ((rc = fcntl(fd, F_SETLKW, &fl)) != 0 && errno == EINTR)
		;
	return rc;
}

static int do_fcntl_unlock(int fd)
{
	struct flock fl = { .l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
	return fcntl(fd, F_SETLK, &fl);
}

const struct lock_ops meta_flock_ops = { "flock", do_flock, do_funlock };
const struct lock_ops meta_fcntl_ops = { "fcntl", do_fcntl, do_fcntl_unlock };

struct lock_arg {
	const char *file;
	const struct lock_ops *ops;
	int iterations, hold_us;
	long *inside;            /* shared memory */
};

static void lock_worker(int w, int n, void *arg, struct work_out *o)
{
	(void)w;
	(void)n;
	struct lock_arg *a = arg;
	int fd = open(a->file, O_RDWR);
	if (fd < 0) {
		note_err(o, errno, a->file);
		return;
	}
	for (int i = 0; i < a->iterations; i++) {
		if (a->ops->lock(fd) != 0) {
			note_err(o, errno, a->file);
			continue;
		}
		if (__atomic_add_fetch(a->inside, 1, __ATOMIC_SEQ_CST) > 1)
			o->extra[0]++;   /* someone else holds the "exclusive" lock */
		char c[32] = "";
		long v = 0;
		ssize_t r = pread(fd, c, sizeof c - 1, 0);
		if (r > 0) {
			c[r] = 0;
			v = strtol(c, NULL, 10);
		}
		struct timespec ts = { 0, (long)a->hold_us * 1000 };
		nanosleep(&ts, NULL);
		int len = snprintf(c, sizeof c, "%-20ld\n", v + 1);
		if (pwrite(fd, c, (size_t)len, 0) != len)
			note_err(o, errno, a->file);
		__atomic_sub_fetch(a->inside, 1, __ATOMIC_SEQ_CST);
		if (a->ops->unlock(fd) != 0)
			note_err(o, errno, a->file);
		o->ops++;
	}
	close(fd);
}

int meta_lock_check(const char *dir, const struct lock_ops *ops, int processes, int iterations, int hold_us,
		    struct lock_report *rep)
{
	memset(rep, 0, sizeof *rep);
	rep->iterations = iterations;
	rep->processes = processes;
	char file[4096];
	snprintf(file, sizeof file, "%s/lock-%s", dir, ops->name);
	int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		rep->first_errno = errno;
		return -1;
	}
	if (write(fd, "0\n", 2) != 2) {
		rep->first_errno = errno;
		close(fd);
		return -1;
	}
	close(fd);
	long *inside = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (inside == MAP_FAILED) {
		rep->first_errno = errno;
		return -1;
	}
	*inside = 0;
	struct lock_arg a = { file, ops, iterations, hold_us, inside };
	struct work_out tot;
	int rc = meta_run_workers(processes, lock_worker, &a, &tot, &rep->wall_s);
	munmap(inside, sizeof(long));
	rep->overlaps = tot.extra[0];
	rep->errors = tot.errors;
	rep->first_errno = tot.first_errno;
	char c[32] = "";
	long final = 0;
	fd = open(file, O_RDONLY);
	if (fd >= 0) {
		ssize_t r = read(fd, c, sizeof c - 1);
		if (r > 0) {
			c[r] = 0;
			final = strtol(c, NULL, 10);
		}
		close(fd);
	}
	long expected = (long)processes * iterations - rep->errors;
	rep->lost_updates = expected > final ? expected - final : 0;
	return rc;
}

void meta_grade_lock(struct result *r, const char *name, const struct lock_report *rep)
{
	long v = lock_violations(rep);
	long total = (long)rep->iterations * rep->processes;
	if (v > 0)
		r_fail(r, "%ld of %ld exclusive %s() locks violated (%ld overlaps seen, %ld lost counter updates): "
			  "the file system does not enforce them", v, total, name, rep->overlaps, rep->lost_updates);
	else if (rep->errors)
		r_fail(r, "%ld of %ld %s() lock calls failed (%s)", rep->errors, total, name,
		       strerror(rep->first_errno ? rep->first_errno : EIO));
	else
		r_pass(r, "%ld exclusive %s() locks from %d processes, no violation (%.2f s)", total, name,
		       rep->processes, rep->wall_s);
}

/* ---- locks across nodes ------------------------------------------------ */

static void note_err_node(struct node_lock_out *o, int e)
{
	o->errors++;
	if (!o->first_errno)
		o->first_errno = e ? e : EIO;
}

#define REC_LEN 32

static int read_rec(int fd, long *owner, long *counter)
{
	char c[REC_LEN + 1];
	ssize_t r = pread(fd, c, REC_LEN, 0);
	if (r != REC_LEN)
		return -1;
	c[REC_LEN] = 0;
	char *end;
	*owner = strtol(c, &end, 10);
	if (end == c || *end != ' ')
		return -1;
	char *p = end;
	*counter = strtol(p, &end, 10);
	if (end == p || (*end != ' ' && *end != '\n'))
		return -1;
	return 0;
}

static int write_rec(int fd, long owner, long counter)
{
	char c[64];
	if (snprintf(c, sizeof c, "%11ld %19ld\n", owner, counter) != REC_LEN) {
		errno = ERANGE;
		return -1;
	}
	return pwrite(fd, c, REC_LEN, 0) == REC_LEN ? 0 : -1;
}

int meta_node_lock_prepare(const char *dir, const char *name)
{
	char file[4096];
	snprintf(file, sizeof file, "%s/lock-%s", dir, name);
	int fd = open(file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	int rc = write_rec(fd, -1, 0);
	int e = errno;
	if (fsync(fd) != 0 && rc == 0)
		e = errno, rc = -1;
	close(fd);
	errno = e;
	return rc;
}

long meta_node_lock_counter(const char *dir, const char *name)
{
	char file[4096];
	snprintf(file, sizeof file, "%s/lock-%s", dir, name);
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	long owner, counter;
	int rc = read_rec(fd, &owner, &counter);
	close(fd);
	return rc == 0 ? counter : -1;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	fsync(fd);
	close(fd);
	return 0;
}

static int mark_exists(const char *dir, const char *name, const char *what, int id)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s.%s.%d", dir, name, what, id);
	struct stat st;
	return stat(p, &st) == 0;
}

void meta_node_lock_worker(const char *dir, const struct lock_ops *ops, int id, int workers, int iterations,
			   int hold_us, int rendezvous_ms, struct node_lock_out *out)
{
	char node[sizeof out->node];
	memcpy(node, out->node, sizeof node); /* the caller may have named the node */
	memset(out, 0, sizeof *out);
	memcpy(out->node, node, sizeof node);
	out->worker = id;
	out->workers = workers;
	out->iterations = iterations;
	char file[4096], mark[4096];
	snprintf(file, sizeof file, "%s/lock-%s", dir, ops->name);
	int fd = open(file, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		out->errors++;
		out->first_errno = errno;
		return;
	}
	snprintf(mark, sizeof mark, "%s/%s.ready.%d", dir, ops->name, id);
	if (touch(mark) != 0) {
		out->errors++;
		out->first_errno = errno;
		close(fd);
		return;
	}
	double t0 = clock_mono_s();
	for (;;) {
		int all = 1;
		for (int j = 0; j < workers && all; j++)
			if (j != id && !mark_exists(dir, ops->name, "ready", j))
				all = 0;
		if (all) {
			out->rendezvous_ok = 1;
			break;
		}
		if ((clock_mono_s() - t0) * 1000 >= rendezvous_ms)
			break;
		/* poll fast first: the others are usually there within ms */
		sleep_us(clock_mono_s() - t0 < 1 ? 500 : 10000);
	}
	out->wait_s = clock_mono_s() - t0;
	snprintf(mark, sizeof mark, "%s/%s.done.%d", dir, ops->name, id);
	if (!out->rendezvous_ok) {
		touch(mark); /* a late worker must not think it ran beside us */
		close(fd);
		return;
	}
	out->overlap_ok = 1;
	for (int j = 0; j < workers; j++)
		if (j != id && mark_exists(dir, ops->name, "done", j))
			out->overlap_ok = 0;
	double l0 = clock_mono_s();
	long last = -1;
	for (int i = 0; i < iterations; i++) {
		if (ops->lock(fd) != 0) {
			note_err_node(out, errno);
			continue;
		}
		long owner = -1, cnt = 0, owner2 = -1, cnt2 = 0;
		if (read_rec(fd, &owner, &cnt) != 0) {
			/* a torn record: two writers at once */
			out->overlaps++;
			owner = -1;
			cnt = last > 0 ? last : 0;
		} else if (owner != -1) {
			out->overlaps++;
		}
		if (last >= 0 && cnt != last)
			out->others_between++;
		if (write_rec(fd, id, cnt) != 0)
			note_err_node(out, errno);
		sleep_us(hold_us);
		if (read_rec(fd, &owner2, &cnt2) != 0 || owner2 != id)
			out->overlaps++;
		if (write_rec(fd, -1, cnt + 1) != 0)
			note_err_node(out, errno);
		last = cnt + 1;
		if (ops->unlock(fd) != 0)
			note_err_node(out, errno);
		out->done++;
	}
	out->loop_s = clock_mono_s() - l0;
	close(fd);
	touch(mark);
}

char *meta_node_lock_line(const struct node_lock_out *o)
{
	json_t *j = json_object();
	json_object_set_new(j, "worker", json_integer(o->worker));
	json_object_set_new(j, "workers", json_integer(o->workers));
	json_object_set_new(j, "node", json_string(o->node));
	json_object_set_new(j, "iterations", json_integer(o->iterations));
	json_object_set_new(j, "done", json_integer(o->done));
	json_object_set_new(j, "overlaps", json_integer(o->overlaps));
	json_object_set_new(j, "others_between", json_integer(o->others_between));
	json_object_set_new(j, "errors", json_integer(o->errors));
	json_object_set_new(j, "first_errno", json_integer(o->first_errno));
	json_object_set_new(j, "rendezvous_ok", json_boolean(o->rendezvous_ok));
	json_object_set_new(j, "overlap_ok", json_boolean(o->overlap_ok));
	json_object_set_new(j, "noop", json_boolean(o->noop));
	json_object_set_new(j, "wait_s", json_real(round(o->wait_s * 1e4) / 1e4));
	json_object_set_new(j, "loop_s", json_real(round(o->loop_s * 1e4) / 1e4));
	char *s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	char *line = xasprintf("CMAXLOCK %s\n", s ? s : "{}");
	free(s);
	return line;
}

static long jlong(json_t *o, const char *k, int *bad)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_integer(v)) {
		*bad = 1;
		return 0;
	}
	return (long)json_integer_value(v);
}

int meta_node_lock_parse(const char *text, size_t len, struct node_lock_out *outs, int *got, int max)
{
	int n = 0;
	for (int i = 0; i < max; i++)
		got[i] = 0;
	const char *end = text ? text + len : NULL;
	for (const char *p = text; p && p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		const char *tag = NULL;
		for (const char *q = p; q + 9 <= e; q++)
			if (!memcmp(q, "CMAXLOCK ", 9)) {
				tag = q + 9;
				break;
			}
		json_t *j = tag ? json_loadb(tag, (size_t)(e - tag), 0, NULL) : NULL;
		int bad = 0;
		long w = j ? jlong(j, "worker", &bad) : -1;
		if (json_is_object(j) && !bad && w >= 0 && w < max && !got[w]) {
			struct node_lock_out o;
			memset(&o, 0, sizeof o);
			o.worker = (int)w;
			o.workers = (int)jlong(j, "workers", &bad);
			o.iterations = (int)jlong(j, "iterations", &bad);
			o.done = jlong(j, "done", &bad);
			o.overlaps = jlong(j, "overlaps", &bad);
			o.others_between = jlong(j, "others_between", &bad);
			o.errors = jlong(j, "errors", &bad);
			o.first_errno = (int)jlong(j, "first_errno", &bad);
			o.rendezvous_ok = json_is_true(json_object_get(j, "rendezvous_ok"));
			o.overlap_ok = json_is_true(json_object_get(j, "overlap_ok"));
			o.noop = json_is_true(json_object_get(j, "noop"));
			o.wait_s = jget_num(j, "wait_s", 0);
			o.loop_s = jget_num(j, "loop_s", 0);
			const char *nd = json_string_value(json_object_get(j, "node"));
			snprintf(o.node, sizeof o.node, "%s", nd ? nd : "");
			if (!bad && o.done >= 0 && o.overlaps >= 0 && o.errors >= 0) {
				outs[w] = o;
				got[w] = 1;
				n++;
			}
		}
		json_decref(j);
		p = e + 1;
	}
	return n;
}

void meta_grade_node_lock(struct result *r, const char *name, const struct node_lock_out *outs, const int *got,
			  const char *const *nodes, int workers, int iterations, long final_counter)
{
	long done = 0, overlaps = 0, errors = 0, between = 0;
	int first_errno = 0, missing = 0, met = 1, overlapped = 1, noop = 0;
	struct strbuf miss = STRBUF_INIT, late = STRBUF_INIT, who = STRBUF_INIT;
	json_t *per = json_array(), *names = json_array();
	for (int w = 0; w < workers; w++) {
		const char *nd = got[w] && *outs[w].node ? outs[w].node : nodes && nodes[w] ? nodes[w] : NULL;
		char fallback[32];
		snprintf(fallback, sizeof fallback, "worker %d", w);
		json_array_append_new(names, json_string(nd ? nd : fallback));
		sb_addf(&who, "%s%s", who.len ? ", " : "", nd ? nd : fallback);
		if (!got[w]) {
			missing++;
			sb_addf(&miss, "%s%s", miss.len ? ", " : "", nd ? nd : fallback);
			continue;
		}
		const struct node_lock_out *o = &outs[w];
		done += o->done;
		overlaps += o->overlaps;
		errors += o->errors;
		between += o->others_between;
		if (!first_errno)
			first_errno = o->first_errno;
		met &= o->rendezvous_ok;
		if (o->rendezvous_ok && !o->overlap_ok) {
			overlapped = 0;
			sb_addf(&late, "%s%s", late.len ? ", " : "", nd ? nd : fallback);
		}
		noop |= o->noop;
		json_t *e = json_object();
		json_object_set_new(e, "node", json_string(nd ? nd : fallback));
		json_object_set_new(e, "worker", json_integer(w));
		json_object_set_new(e, "iterations", json_integer(o->done));
		json_object_set_new(e, "overlaps", json_integer(o->overlaps));
		json_object_set_new(e, "others_between", json_integer(o->others_between));
		json_object_set_new(e, "errors", json_integer(o->errors));
		json_object_set_new(e, "rendezvous_ok", json_boolean(o->rendezvous_ok));
		json_object_set_new(e, "overlap_ok", json_boolean(o->overlap_ok));
		json_object_set_new(e, "wait_s", json_real(o->wait_s));
		json_object_set_new(e, "loop_s", json_real(o->loop_s));
		json_array_append_new(per, e);
	}
	long lost = final_counter >= 0 && done > final_counter ? done - final_counter : 0;
	long violations = overlaps > lost ? overlaps : lost;
	long total = (long)iterations * workers;
	json_t *ob = json_object();
	json_object_set_new(ob, "nodes", names);
	json_object_set_new(ob, "workers", json_integer(workers));
	json_object_set_new(ob, "iterations", json_integer(iterations));
	json_object_set_new(ob, "rounds_done", json_integer(done));
	json_object_set_new(ob, "final_counter", final_counter >= 0 ? json_integer(final_counter) : json_null());
	json_object_set_new(ob, "overlaps", json_integer(overlaps));
	json_object_set_new(ob, "lost_updates", json_integer(lost));
	json_object_set_new(ob, "violations", json_integer(violations));
	json_object_set_new(ob, "errors", json_integer(errors));
	json_object_set_new(ob, "others_between", json_integer(between));
	json_object_set_new(ob, "per_node", per);
	json_object_set_new(ob, "scope", json_string("one process on each of two nodes, through srun"));
	if (noop)
		json_object_set_new(ob, "test_hook", json_string("CMAX_BENCH_LOCK_NOOP=1: the workers took no lock"));
	r_observed(r, ob);
	const char *hook = noop ? " [test hook CMAX_BENCH_LOCK_NOOP: no lock was taken]" : "";
	int unusable = -1; /* a worker that could not even open the shared file */
	for (int w = 0; w < workers && unusable < 0; w++)
		if (got[w] && !outs[w].rendezvous_ok && outs[w].errors && outs[w].first_errno)
			unusable = w;
	if (missing)
		r_error(r, "%d of %d lock workers sent no report (%s): no verdict", missing, workers, sb_str(&miss));
	else if (unusable >= 0)
		r_error(r, "the lock worker on %s could not use the shared lock file: %s (is --path on a file system "
			   "both nodes share?): no verdict", json_string_value(json_array_get(names, (size_t)unusable)),
			strerror(outs[unusable].first_errno));
	else if (!met)
		r_error(r, "the lock workers did not all start within the rendezvous timeout: no verdict");
	else if (!overlapped)
		r_error(r, "the lock workers did not run at the same time (%s began after another had finished): no verdict",
			sb_str(&late));
	else if (final_counter < 0)
		r_error(r, "the shared lock file could not be read back at the end: no verdict");
	else if (violations > 0)
		r_fail(r, "%ld of %ld exclusive %s() locks violated between %d nodes (%ld overlaps seen, %ld lost counter "
			  "updates): the file system does not enforce them across nodes%s", violations, total, name, workers,
		       overlaps, lost, hook);
	else if (errors)
		r_fail(r, "%ld of %ld %s() lock calls failed across nodes (%s)%s", errors, total, name,
		       strerror(first_errno ? first_errno : EIO), hook);
	else
		r_pass(r, "%ld exclusive %s() locks from %d nodes at once (%s), no violation", done, name, workers,
		       sb_str(&who));
	sb_free(&who);
	sb_free(&miss);
	sb_free(&late);
}
