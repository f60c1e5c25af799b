#include "runner.h"
#include "argv.h"
#include "strbuf.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static long g_deadline; /* mono_ms() value, 0 = none */
static int g_tool_cap;  /* ms; 0 = each command keeps its own timeout */

void runner_set_tool_timeout_cap_ms(int cap_ms)
{
	g_tool_cap = cap_ms > 0 ? cap_ms : 0;
}

long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void runner_set_budget_ms(long budget_ms)
{
	g_deadline = budget_ms > 0 ? mono_ms() + budget_ms : 0;
}

long runner_budget_left_ms(void)
{
	if (!g_deadline)
		return LONG_MAX;
	long left = g_deadline - mono_ms();
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
	struct capbuf ob = { .limit = (o && o->cap_out) ? o->cap_out : (1u << 20) };
	struct capbuf eb = { .limit = (o && o->cap_err) ? o->cap_err : (64u << 10) };
	int po[2], pe[2];
	if (pipe2(po, O_CLOEXEC) != 0) {
		res->outcome = RUN_SPAWN_FAILED;
		res->spawn_errno = errno;
		goto out_empty;
	}
	if (pipe2(pe, O_CLOEXEC) != 0) {
		res->spawn_errno = errno;
		close(po[0]);
		close(po[1]);
		res->outcome = RUN_SPAWN_FAILED;
		goto out_empty;
	}
	char **env = child_env();
	long t0 = mono_ms();
	pid_t pid = fork();
	if (pid < 0) {
		res->spawn_errno = errno;
		res->outcome = RUN_SPAWN_FAILED;
		free(env);
		close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
		goto out_empty;
	}
	if (pid == 0) {
		setpgid(0, 0);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		signal(SIGPIPE, SIG_DFL);
		execve(res->path, (char *const *)argv, env);
		_exit(127);
	}
	free(env);
	setpgid(pid, pid); /* both sides, to win the race */
	close(po[1]);
	close(pe[1]);
	struct pollfd fds[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
	int open_fds = 2, timed_out = 0;
	char tmp[65536];
	while (open_fds > 0) {
		long now = mono_ms();
		long rem = t0 + timeout - now;
		if (rem <= 0) {
			timed_out = 1;
			break;
		}
		int r = poll(fds, 2, (int)rem);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (r == 0)
			continue;
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t n = read(fds[i].fd, tmp, sizeof tmp);
			if (n <= 0) {
				if (n < 0 && errno == EINTR)
					continue;
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
				continue;
			}
			cap_add(i == 0 ? &ob : &eb, tmp, (size_t)n);
		}
	}
	int status = 0;
	if (timed_out) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	/* Output pipes closed but the child may linger (it closed stdout):
	 * wait for it within what is left of its timeout. */
	for (;;) {
		pid_t w = waitpid(pid, &status, timed_out ? 0 : WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			break;
		if (!timed_out && mono_ms() >= t0 + timeout) {
			timed_out = 1;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			continue;
		}
		if (!timed_out) {
			struct timespec ts = { 0, 2 * 1000000 };
			nanosleep(&ts, NULL);
		}
	}
	/* Descendants that kept the pipes open die with the group. */
	kill(-pid, SIGKILL);
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	res->duration_ms = mono_ms() - t0;
	if (timed_out)
		res->outcome = RUN_TIMEOUT;
	else if (WIFEXITED(status)) {
		res->outcome = RUN_EXITED;
		res->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->outcome = RUN_SIGNALED;
		res->term_signal = WTERMSIG(status);
	}
	res->out = ob.buf ? ob.buf : xstrdup("");
	res->out_len = ob.len;
	res->out_truncated = ob.truncated;
	res->err = eb.buf ? eb.buf : xstrdup("");
	res->err_len = eb.len;
	res->err_truncated = eb.truncated;
	return cmd_ok(res) ? 0 : -1;
out_empty:
	res->out = xstrdup("");
	res->err = xstrdup("");
	return -1;
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
	if (res->outcome == RUN_TIMEOUT)
		json_object_set_new(e, "timeout_ms", json_integer(res->timeout_ms));
	if (res->outcome == RUN_EXITED || res->outcome == RUN_SIGNALED || res->outcome == RUN_TIMEOUT) {
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
