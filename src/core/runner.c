#include "core/runner.h"
#include "core/clock.h"
#include "core/argv.h"
#include "core/strbuf.h"
#include "core/interrupt.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static long g_deadline; /* clock_mono_ms() value, 0 = none */
static int g_tool_cap;  /* ms; 0 = each command keeps its own timeout */

void runner_set_tool_timeout_cap_ms(int cap_ms)
{
	g_tool_cap = cap_ms > 0 ? cap_ms : 0;
}

void runner_set_budget_ms(long budget_ms)
{
	g_deadline = budget_ms > 0 ? clock_mono_ms() + budget_ms : 0;
}

long runner_budget_left_ms(void)
{
	if (!g_deadline)
		return LONG_MAX;
	long left = g_deadline - clock_mono_ms();
	return left > 0 ? left : 0;
}

int runner_budget_exhausted(void)
{
	return g_deadline && runner_budget_left_ms() == 0;
}

static int is_exec(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

char *runner_which(const char *name)
{
	if (!name || !*name)
		return NULL;
	if (strchr(name, '/'))
		return is_exec(name) ? xstrdup(name) : NULL;
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
	const char *p = path;
	while (*p) {
		const char *c = strchr(p, ':');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		if (n) {
			char *cand = xasprintf("%.*s/%s", (int)n, p, name);
			if (is_exec(cand))
				return cand;
			free(cand);
		}
		if (!c)
			break;
		p = c + 1;
	}
	return NULL;
}

char *runner_self_exe(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	return xstrdup(buf);
}

static void put_num(char *p, size_t *at, long v)
{
	char num[24];
	int n = 0;
	do {
		num[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < 20);
	while (n)
		p[(*at)++] = num[--n];
}

void runner_each_child(pid_t pid, void (*fn)(pid_t child, void *arg), void *arg)
{
	char path[96] = "/proc/";
	size_t p = strlen(path);
	put_num(path, &p, pid);
	memcpy(path + p, "/task/", 6);
	p += 6;
	put_num(path, &p, pid);
	memcpy(path + p, "/children", 10);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[2048];
	ssize_t len = read(fd, buf, sizeof buf - 1);
	close(fd);
	long v = 0;
	int in = 0;
	for (ssize_t i = 0; i <= len; i++) {
		if (i < len && buf[i] >= '0' && buf[i] <= '9') {
			v = v * 10 + (buf[i] - '0');
			in = 1;
		} else if (in) {
			fn((pid_t)v, arg);
			v = 0;
			in = 0;
		}
	}
}

/* Build the child's environment: ours, with the locale forced to C. */
static char **child_env(void)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = xcalloc(n + 3, sizeof *env);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (str_starts(environ[i], "LC_ALL=") || str_starts(environ[i], "LANG=") ||
		    str_starts(environ[i], "LANGUAGE="))
			continue;
		env[k++] = environ[i];
	}
	env[k++] = "LC_ALL=C";
	env[k++] = "LANG=C";
	env[k] = NULL;
	return env;
}

struct capbuf {
	char *buf;
	size_t len, cap, limit;
	int truncated;
};

static void cap_add(struct capbuf *b, const char *s, size_t n)
{
	if (b->len + n > b->limit) {
		b->truncated = 1;
		n = b->limit > b->len ? b->limit - b->len : 0;
	}
	if (!n)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 4096;
		while (c < b->len + n + 1)
			c *= 2;
		b->buf = xrealloc(b->buf, c);
		b->cap = c;
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = 0;
}

/* Orphans: a tool may leave descendants behind that are in no group the
 * runner knows, e.g. a grandchild that called setsid(2) and still holds the
 * tool's stdout. cmax is a child subreaper (PR_SET_CHILD_SUBREAPER, set
 * once, at the first command), so such orphans are re-parented to cmax
 * instead of init: they then show up in /proc/self/task/ * /children, and
 * every child that was not there before the command started is the
 * command's leftover, killed (with its own group and descendants) and
 * reaped after the command. Children cmax made itself (benchmark workers,
 * servers started in the background) were there before and are left alone. */
#define PIDSET_MAX 256
struct pidset {
	pid_t v[PIDSET_MAX];
	size_t n;
};

static void pidset_add(pid_t pid, void *arg)
{
	struct pidset *s = arg;
	if (s->n < PIDSET_MAX)
		s->v[s->n++] = pid;
}

static int pidset_has(const struct pidset *s, pid_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == pid)
			return 1;
	return 0;
}

/* Every child of this process, whichever of its threads is the parent. */
static void self_children(struct pidset *s)
{
	s->n = 0;
	DIR *d = opendir("/proc/self/task");
	if (!d) {
		runner_each_child(getpid(), pidset_add, s);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		char path[300];
		snprintf(path, sizeof path, "/proc/self/task/%.32s/children", e->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		long v;
		while (fscanf(f, "%ld", &v) == 1)
			pidset_add((pid_t)v, s);
		fclose(f);
	}
	closedir(d);
}

static void kill_tree(pid_t pid, int depth);

static void kill_tree_child(pid_t child, void *depth)
{
	kill_tree(child, *(int *)depth + 1);
}

/* Stop first so that it makes no new children while we look, then the
 * descendants, then its group and itself. */
static void kill_tree(pid_t pid, int depth)
{
	kill(pid, SIGSTOP);
	if (depth < 6)
		runner_each_child(pid, kill_tree_child, &depth);
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

/* Reap pid, waiting at most ms (a process in uninterruptible sleep cannot
 * be reaped at once; it stays a zombie of cmax rather than hang it). */
static int reap_within(pid_t pid, int *status, long ms)
{
	long until = clock_mono_ms() + ms;
	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -1;
		if (clock_mono_ms() >= until)
			return -1;
		struct timespec ts = { 0, 2 * 1000000 };
		nanosleep(&ts, NULL);
	}
}

/* Kill and reap the children that were not there before (see above);
 * each one killed may leave orphans of its own, hence the rounds. */
static void sweep_orphans(const struct pidset *before)
{
	for (int round = 0; round < 8; round++) {
		struct pidset now;
		self_children(&now);
		size_t killed = 0;
		for (size_t i = 0; i < now.n; i++)
			if (!pidset_has(before, now.v[i])) {
				kill_tree(now.v[i], 0);
				now.v[killed++] = now.v[i];
			}
		if (!killed)
			return;
		for (size_t i = 0; i < killed; i++)
			reap_within(now.v[i], NULL, 1000);
	}
}

static void become_subreaper(void)
{
	static int done;
	if (!done) {
		done = 1;
		prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L);
	}
}

void runner_forked_child(pid_t parent)
{
	/* SIGTERM, not SIGKILL: srun then cancels its step and fio stops its
	 * job processes, which a SIGKILL of their parent would leave running
	 * (the death signal is not inherited by the tool's own children). */
	prctl(PR_SET_PDEATHSIG, SIGTERM, 0L, 0L, 0L);
	/* cmax may have died before prctl: then no signal would ever come */
	if (getppid() != parent)
		_exit(127);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
}

/* ---- the guardian ----------------------------------------------------
 * The runner's child is not the tool itself but a small fork of cmax that
 * starts the tool and waits for it: a guardian. cmax can die by SIGKILL,
 * which nothing catches, and PR_SET_PDEATHSIG reaches only the process that
 * set it: fio's job processes (each in its own session) or anything else
 * the tool started would run on. The guardian is a child subreaper, so the
 * tool's whole tree stays below it even when the tool's own processes
 * die or call setsid, and it outlives cmax just long enough to stop that
 * tree: on cmax's death (its PDEATHSIG, SIGUSR2) it sends SIGTERM to the
 * group (srun cancels its step, fio stops its jobs), waits a little, then
 * kills whatever is left. It also ends the tool's leftovers when the tool
 * exits (defect 7: a setsid grandchild holding stdout), after
 * RUNNER_EXIT_GRACE_MS. It ignores SIGINT/SIGTERM/SIGHUP, which cmax passes
 * on to the group for the tool; it exits as the tool did (same code, or
 * the same signal), so the record is the tool's. */
#define GUARDIAN_TERM_GRACE_MS 2000 /* declared: srun's step cancel, fio's stop; then SIGKILL */

static volatile sig_atomic_t g_parent_gone;

static void on_parent_gone(int sig)
{
	(void)sig;
	g_parent_gone = 1;
}

static void guardian_kill_all(void)
{
	for (int round = 0; round < 8; round++) {
		struct pidset k;
		k.n = 0;
		runner_each_child(getpid(), pidset_add, &k);
		if (!k.n)
			return;
		for (size_t i = 0; i < k.n; i++)
			kill_tree(k.v[i], 0);
		for (size_t i = 0; i < k.n; i++)
			reap_within(k.v[i], NULL, 1000);
	}
}

static void guardian_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL); /* SIGUSR2 ends it early */
}

static void guardian(const char *path, const char *const argv[], char **env, pid_t cmax, int out, int err)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_parent_gone;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, SIGUSR2, 0L, 0L, 0L);
	if (getppid() != cmax) /* cmax died before prctl */
		_exit(127);
	prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	pid_t me = getpid();
	pid_t t = fork();
	if (t < 0)
		_exit(127);
	if (t == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0L, 0L, 0L); /* with its guardian */
		if (getppid() != me)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGUSR2, SIG_DFL);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(out, 1);
		dup2(err, 2);
		execve(path, (char *const *)argv, env);
		_exit(127);
	}
	/* no end of the tool's pipes here: their EOF means the tool is done */
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
	}
	close(out);
	close(err);
	int status = 0;
	for (;;) {
		if (g_parent_gone) {
			kill(-me, SIGTERM); /* the group, the guardian ignores it */
			for (long w = 0; w < GUARDIAN_TERM_GRACE_MS && waitpid(t, &status, WNOHANG) != t; w += 20)
				guardian_sleep(20);
			guardian_kill_all();
			_exit(127);
		}
		pid_t w = waitpid(t, &status, WNOHANG);
		if (w == t)
			break;
		if (w < 0 && errno != EINTR)
			_exit(127);
		guardian_sleep(20);
	}
	struct pidset left;
	left.n = 0;
	runner_each_child(me, pidset_add, &left);
	if (left.n) {
		guardian_sleep(RUNNER_EXIT_GRACE_MS);
		guardian_kill_all();
	}
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
	struct rlimit nocore = { 0, 0 };
	setrlimit(RLIMIT_CORE, &nocore); /* the tool's crash, not a second core file */
	signal(sig, SIG_DFL);
	sigset_t all;
	sigemptyset(&all);
	sigaddset(&all, sig);
	sigprocmask(SIG_UNBLOCK, &all, NULL);
	raise(sig);
	_exit(128 + sig);
}

static int g_interrupt_grace_ms = RUNNER_INTERRUPT_GRACE_MS;

void runner_set_interrupt_grace_ms(int ms)
{
	g_interrupt_grace_ms = ms > 0 ? ms : RUNNER_INTERRUPT_GRACE_MS;
}

/* One command while it runs: what spawning, reading, reaping and the
 * outcome share. */
struct child_run {
	pid_t pid;
	int slot;        /* interrupt_watch_group's, < 0 when the handler cannot forward */
	unsigned gen0;   /* interrupt_count() before the fork */
	long t0;
	int timeout;
	struct pollfd fds[2];
	struct capbuf ob, eb;
	int timed_out, reaped, status;
	int interrupted; /* the signal; negative once the group was killed for it */
	long exited_at, stop_at;
	struct pidset before;
	const struct run_opts *o; /* the caller's, for on_stdout; may be NULL */
};

/* The pipes, the guardian's fork and the parent's side of the set-up.
 * Returns -1 with res->outcome and res->spawn_errno when nothing started. */
static int spawn_guardian(const char *const argv[], struct cmd_result *res, struct child_run *c)
{
	int po[2], pe[2];
	if (pipe2(po, O_CLOEXEC) != 0) {
		res->outcome = RUN_SPAWN_FAILED;
		res->spawn_errno = errno;
		return -1;
	}
	if (pipe2(pe, O_CLOEXEC) != 0) {
		res->spawn_errno = errno;
		close(po[0]);
		close(po[1]);
		res->outcome = RUN_SPAWN_FAILED;
		return -1;
	}
	become_subreaper();
	self_children(&c->before);
	/* An interrupt that came before this command (a clean-up after
	 * Ctrl-C) lets it run; one that comes during it stops it. */
	c->gen0 = interrupt_count();
	char **env = child_env();
	pid_t parent = getpid();
	c->t0 = clock_mono_ms();
	pid_t pid = fork();
	if (pid < 0) {
		res->spawn_errno = errno;
		res->outcome = RUN_SPAWN_FAILED;
		free(env);
		close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		guardian(res->path, argv, env, parent, po[1], pe[1]);
		_exit(127);
	}
	free(env);
	setpgid(pid, pid); /* both sides, to win the race */
	c->pid = pid;
	c->slot = interrupt_watch_group(pid);
	close(po[1]);
	close(pe[1]);
	c->fds[0] = (struct pollfd){ po[0], POLLIN, 0 };
	c->fds[1] = (struct pollfd){ pe[0], POLLIN, 0 };
	return 0;
}

/* An interrupt during the command: note it, give the group the grace,
 * and pass the signal on where the handler could not. */
static void note_interrupt(struct child_run *c, long now)
{
	if (!c->interrupted && interrupt_count() != c->gen0 && interrupt_forwarding()) {
		c->interrupted = interrupt_signal() ? interrupt_signal() : SIGINT;
		c->stop_at = now + g_interrupt_grace_ms;
		if (c->slot < 0) /* the handler could not pass it on */
			kill(-c->pid, c->interrupted);
	}
}

/* Whatever the ready pipes hold; a pipe at EOF (or in error) is closed.
 * Returns how many pipes are still open. */
static int read_ready(struct child_run *c, int open_fds)
{
	char tmp[65536];
	for (int i = 0; i < 2; i++) {
		struct pollfd *f = &c->fds[i];
		if (f->fd < 0 || !(f->revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		ssize_t n = read(f->fd, tmp, sizeof tmp);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			close(f->fd);
			f->fd = -1;
			open_fds--;
			continue;
		}
		cap_add(i == 0 ? &c->ob : &c->eb, tmp, (size_t)n);
		if (i == 0 && c->o && c->o->on_stdout)
			c->o->on_stdout(c->o->on_stdout_ctx, tmp, (size_t)n);
	}
	return open_fds;
}

/* Read both pipes until they close, the timeout, or the end of the grace
 * after the tool's exit or an interrupt. */
static void read_output(struct child_run *c)
{
	int open_fds = 2;
	while (open_fds > 0) {
		long now = clock_mono_ms();
		note_interrupt(c, now);
		if (!c->reaped && waitpid(c->pid, &c->status, WNOHANG) == c->pid) {
			c->reaped = 1;
			c->exited_at = now;
		}
		/* The tool is gone but something it left holds the pipes: what
		 * it wrote is in them by now; do not wait for the timeout. */
		if (c->reaped && now - c->exited_at >= RUNNER_EXIT_GRACE_MS)
			break;
		if (c->interrupted && now >= c->stop_at)
			break;
		long rem = c->t0 + c->timeout - now;
		if (rem <= 0) {
			c->timed_out = 1;
			break;
		}
		/* Woken early by a signal (EINTR) or by output; the cap bounds
		 * how late an exit or a signal just before poll() is seen. */
		int r = poll(c->fds, 2, (int)(rem < RUNNER_POLL_MS ? rem : RUNNER_POLL_MS));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (r == 0)
			continue;
		open_fds = read_ready(c, open_fds);
	}
}

/* Output pipes closed but the child may linger (it closed stdout):
 * wait for it within what is left of its timeout, or of the grace
 * after an interrupt. */
static void reap(struct child_run *c)
{
	pid_t pid = c->pid;
	while (!c->reaped) {
		pid_t w = waitpid(pid, &c->status, (c->timed_out || c->interrupted < 0) ? 0 : WNOHANG);
		if (w == pid) {
			c->reaped = 1;
			break;
		}
		if (w < 0 && errno != EINTR)
			break;
		long now = clock_mono_ms();
		note_interrupt(c, now);
		if (c->interrupted > 0 && now >= c->stop_at) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			c->interrupted = -c->interrupted; /* now a blocking wait */
			continue;
		}
		if (!c->timed_out && !c->interrupted && now >= c->t0 + c->timeout) {
			c->timed_out = 1;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			continue;
		}
		if (!c->timed_out) {
			struct timespec ts = { 0, 2 * 1000000 };
			nanosleep(&ts, NULL);
		}
	}
	if (c->interrupted < 0)
		c->interrupted = -c->interrupted;
}

/* How the command ended, and what it wrote. */
static void set_outcome(const struct child_run *c, struct cmd_result *res)
{
	int status = c->status;
	if (c->interrupted) {
		res->outcome = RUN_INTERRUPTED;
		res->interrupt_signal = c->interrupted;
	} else if (c->timed_out)
		res->outcome = RUN_TIMEOUT;
	else if (WIFEXITED(status)) {
		res->outcome = RUN_EXITED;
		res->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->outcome = RUN_SIGNALED;
		res->term_signal = WTERMSIG(status);
	}
	if (c->interrupted && c->reaped) {
		/* what the child did with the signal, for a caller that reads
		 * its partial output (accept reads a child cmax's document) */
		if (WIFEXITED(status))
			res->exit_code = WEXITSTATUS(status);
		else if (WIFSIGNALED(status))
			res->term_signal = WTERMSIG(status);
	}
	res->out = c->ob.buf ? c->ob.buf : xstrdup("");
	res->out_len = c->ob.len;
	res->out_truncated = c->ob.truncated;
	res->err = c->eb.buf ? c->eb.buf : xstrdup("");
	res->err_len = c->eb.len;
	res->err_truncated = c->eb.truncated;
}

int runner_run(const char *const argv[], const struct run_opts *o, struct cmd_result *res)
{
	memset(res, 0, sizeof *res);
	res->cmdline = argv_join_quoted(argv);
	int timeout = (o && o->timeout_ms > 0) ? o->timeout_ms : 10000;
	if (g_tool_cap && timeout > g_tool_cap)
		timeout = g_tool_cap;
	long left = runner_budget_left_ms();
	if (left < timeout)
		timeout = (int)left;
	res->timeout_ms = timeout;
	res->path = runner_which(argv[0]);
	if (!res->path) {
		res->outcome = RUN_NOT_FOUND;
		res->out = xstrdup("");
		res->err = xstrdup("");
		return -1;
	}
	if (timeout <= 0) {
		res->outcome = RUN_SKIPPED_BUDGET;
		res->out = xstrdup("");
		res->err = xstrdup("");
		return -1;
	}
	struct child_run c = {
		.o = o,
		.timeout = timeout,
		.ob = { .limit = (o && o->cap_out) ? o->cap_out : (1u << 20) },
		.eb = { .limit = (o && o->cap_err) ? o->cap_err : (64u << 10) },
	};
	if (spawn_guardian(argv, res, &c)) {
		res->out = xstrdup("");
		res->err = xstrdup("");
		return -1;
	}
	read_output(&c);
	if (c.timed_out && !c.reaped) {
		kill(-c.pid, SIGKILL);
		kill(c.pid, SIGKILL);
	}
	reap(&c);
	interrupt_unwatch_group(c.slot);
	/* Descendants that kept the pipes open die with the group; those
	 * that left it (setsid) were re-parented to cmax: see sweep_orphans. */
	kill(-c.pid, SIGKILL);
	sweep_orphans(&c.before);
	for (int i = 0; i < 2; i++)
		if (c.fds[i].fd >= 0)
			close(c.fds[i].fd);
	res->duration_ms = clock_mono_ms() - c.t0;
	set_outcome(&c, res);
	return cmd_ok(res) ? 0 : -1;
}

void runner_refuse_interrupted(const char *const argv[], struct cmd_result *res)
{
	memset(res, 0, sizeof *res);
	res->cmdline = argv_join_quoted(argv);
	res->path = runner_which(argv[0]);
	res->outcome = RUN_INTERRUPTED;
	res->not_started = 1;
	res->interrupt_signal = interrupt_signal();
	res->out = xstrdup("");
	res->err = xstrdup("");
}

void cmd_result_free(struct cmd_result *res)
{
	free(res->cmdline);
	free(res->path);
	free(res->out);
	free(res->err);
	memset(res, 0, sizeof *res);
}

int cmd_ok(const struct cmd_result *res)
{
	return res->outcome == RUN_EXITED && res->exit_code == 0;
}

char *cmd_describe(const struct cmd_result *res)
{
	switch (res->outcome) {
	case RUN_EXITED:
		return xasprintf("exit %d in %ld ms%s", res->exit_code, res->duration_ms,
				 res->out_truncated ? " (output truncated)" : "");
	case RUN_SIGNALED:
		return xasprintf("killed by signal %d after %ld ms", res->term_signal, res->duration_ms);
	case RUN_TIMEOUT:
		return xasprintf("timed out after %d ms and was killed", res->timeout_ms);
	case RUN_NOT_FOUND:
		return xstrdup("not found on PATH");
	case RUN_SPAWN_FAILED:
		return xasprintf("could not start: %s", strerror(res->spawn_errno));
	case RUN_SKIPPED_BUDGET:
		return xstrdup("not run: the audit's --timeout budget was spent");
	case RUN_INTERRUPTED:
		if (res->not_started)
			return xasprintf("not run: cmax was interrupted (%s)", interrupt_signal_name(res->interrupt_signal));
		return xasprintf("stopped after %ld ms: cmax was interrupted (%s)", res->duration_ms,
				 interrupt_signal_name(res->interrupt_signal));
	}
	return xstrdup("unknown");
}

static const char *outcome_name(enum run_outcome o)
{
	switch (o) {
	case RUN_EXITED: return "exited";
	case RUN_SIGNALED: return "signaled";
	case RUN_TIMEOUT: return "timeout";
	case RUN_NOT_FOUND: return "not_found";
	case RUN_SPAWN_FAILED: return "spawn_failed";
	case RUN_SKIPPED_BUDGET: return "budget_exhausted";
	case RUN_INTERRUPTED: return "interrupted";
	}
	return "unknown";
}

json_t *cmd_evidence(const struct cmd_result *res, size_t excerpt_max)
{
	json_t *e = json_object();
	json_object_set_new(e, "kind", json_string("command"));
	char *cl = str_sanitize(res->cmdline, strlen(res->cmdline));
	json_object_set_new(e, "command", json_string(cl));
	free(cl);
	json_object_set_new(e, "outcome", json_string(outcome_name(res->outcome)));
	if (res->outcome == RUN_EXITED)
		json_object_set_new(e, "exit_code", json_integer(res->exit_code));
	if (res->outcome == RUN_SIGNALED)
		json_object_set_new(e, "signal", json_integer(res->term_signal));
	if (res->outcome == RUN_INTERRUPTED) /* the signal cmax got and passed on */
		json_object_set_new(e, "signal", json_integer(res->interrupt_signal));
	if (res->outcome == RUN_TIMEOUT)
		json_object_set_new(e, "timeout_ms", json_integer(res->timeout_ms));
	if (res->outcome == RUN_EXITED || res->outcome == RUN_SIGNALED || res->outcome == RUN_TIMEOUT ||
	    (res->outcome == RUN_INTERRUPTED && !res->not_started)) {
		json_object_set_new(e, "duration_ms", json_integer(res->duration_ms));
		char *x = str_excerpt(res->out ? res->out : "", res->out_len, excerpt_max);
		json_object_set_new(e, "stdout", json_string(x));
		free(x);
		json_object_set_new(e, "stdout_bytes", json_integer((json_int_t)res->out_len));
		if (res->out_truncated)
			json_object_set_new(e, "stdout_truncated", json_true());
		if (res->err_len) {
			x = str_excerpt(res->err, res->err_len, excerpt_max);
			json_object_set_new(e, "stderr", json_string(x));
			free(x);
		}
	}
	return e;
}
