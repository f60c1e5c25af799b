#include "meta.h"
#include "bench.h"
#include "../core/result.h"
#include <errno.h>
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

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

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
	for (int w = 0; w < n; w++) {
		pid_t p = fork();
		if (p < 0) {
			rc = -1;
			break;
		}
		if (p == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
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
	double t0 = now_s();
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
	*wall_s = now_s() - t0;
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
