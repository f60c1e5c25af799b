/*
 * fakecmd - replays recorded command output for fixture tests.
 *
 * Tests build a bin directory of symlinks "<name> -> build/fakecmd" (see
 * mkbin.sh) and make it the only entry on PATH, so every tool cmax runs is
 * this program. Called as <name> ARGS..., it walks the recordings
 * $CMAX_FAKE_DIR/<name>/<rec>/ in sorted order; the first whose argv matches
 * wins. A recording directory holds:
 *
 *   argv      the arguments after argv[0], one per line, compared exactly.
 *             A lone line "*" matches any arguments. Missing or empty file:
 *             no arguments. (So an argument list of one empty string, or an
 *             argument containing a newline, cannot be recorded.)
 *   stdout    raw bytes for standard output (optional)
 *   repeat    N: write stdout N times, for multi-megabyte output
 *   stderr    raw bytes for standard error (optional)
 *   exit      exit status, default 0
 *   sleep_ms  milliseconds to sleep before anything else
 *   hang      when present, never exit. SIGTERM, SIGINT and SIGHUP are
 *             ignored, so only SIGKILL (to the process group) ends it, as
 *             with a tool stuck in the driver. Words in the file change it:
 *             "after" writes stdout/stderr first and then hangs (partial
 *             output before a stall); "fork" also leaves a hanging child
 *             holding stdout/stderr open, which catches a runner that kills
 *             only the leader or waits for EOF.
 *
 * CMAX_FAKE_TRACE, when set, gets one line "<name> <args...>" per
 * invocation, recorded or not: a test proves which tools ran (and which did
 * not: without --active no probe may start).
 *
 * Nothing matching: "fakecmd: no recording for: <name> <args...>" goes to
 * stderr and is appended to $CMAX_FAKE_LOG when set; exit 97. Tests fail
 * loudly on an unrecorded call instead of silently testing "not found".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXIT_NO_RECORDING 97
#define MAX_REPEAT 1000000L

static char *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	char *buf;
	ssize_t r;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	while (buf) {
		if (n == cap) {
			char *nb = realloc(buf, cap * 2 + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (!buf)
		return NULL;
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

static char *path_join(const char *a, const char *b)
{
	char *p;
	if (asprintf(&p, "%s/%s", a, b) < 0) {
		fputs("fakecmd: out of memory\n", stderr);
		exit(EXIT_NO_RECORDING);
	}
	return p;
}

static char *rec_file(const char *rec, const char *name, size_t *len)
{
	char *p = path_join(rec, name);
	char *s = read_file(p, len);
	free(p);
	return s;
}

static long rec_number(const char *rec, const char *name, long def)
{
	char *s = rec_file(rec, name, NULL);
	long v = def;
	if (s) {
		char *end;
		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || end == s)
			v = def;
		free(s);
	}
	return v;
}

/* Does the recording's argv file match args[0..n)? */
static int argv_matches(const char *rec, char **args, int n)
{
	size_t len;
	char *want = rec_file(rec, "argv", &len);
	int ok = 1, i = 0;

	if (!want)
		return n == 0;
	if (len && want[len - 1] == '\n')
		want[--len] = 0;
	if (strcmp(want, "*") == 0) {
		free(want);
		return 1;
	}
	if (len == 0) {
		free(want);
		return n == 0;
	}
	for (char *line = want, *nl; ok; line = nl + 1) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		ok = i < n && strcmp(line, args[i]) == 0;
		i++;
		if (!nl)
			break;
	}
	free(want);
	return ok && i == n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* First matching recording directory (malloc'd), or NULL. */
static char *find_recording(const char *dir, char **args, int n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL, *found = NULL;
	size_t cnt = 0, cap = 0;

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			names = realloc(names, cap * sizeof *names);
			if (!names)
				exit(EXIT_NO_RECORDING);
		}
		names[cnt++] = strdup(de->d_name);
	}
	closedir(d);
	if (cnt)
		qsort(names, cnt, sizeof *names, cmp_str);
	for (size_t i = 0; i < cnt; i++) {
		char *rec = path_join(dir, names[i]);
		struct stat st;
		if (!found && stat(rec, &st) == 0 && S_ISDIR(st.st_mode) && argv_matches(rec, args, n))
			found = rec;
		else
			free(rec);
		free(names[i]);
	}
	free(names);
	return found;
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			exit(1); /* reader went away; like a real tool after EPIPE */
		buf += w;
		len -= (size_t)w;
	}
}

static void emit(const char *rec)
{
	size_t len;
	char *out = rec_file(rec, "stdout", &len);
	if (out) {
		long rep = rec_number(rec, "repeat", 1);
		if (rep > MAX_REPEAT)
			rep = MAX_REPEAT;
		for (long i = 0; i < rep; i++)
			write_all(STDOUT_FILENO, out, len);
		free(out);
	}
	char *err = rec_file(rec, "stderr", &len);
	if (err) {
		write_all(STDERR_FILENO, err, len);
		free(err);
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void __attribute__((noreturn)) hang_forever(void)
{
	for (;;)
		sleep(3600);
}

/* "<prefix><name> <args...>\n", malloc'd. */
static char *call_line(const char *prefix, const char *name, char **args, int n)
{
	size_t len = strlen(prefix) + strlen(name) + 2;
	for (int i = 0; i < n; i++)
		len += strlen(args[i]) + 1;
	char *line = malloc(len);
	if (!line)
		exit(EXIT_NO_RECORDING);
	strcpy(line, prefix);
	strcat(line, name);
	for (int i = 0; i < n; i++) {
		strcat(line, " ");
		strcat(line, args[i]);
	}
	strcat(line, "\n");
	return line;
}

/* One write with O_APPEND: parallel callers do not interleave. */
static void log_line(const char *env, const char *line)
{
	const char *log = getenv(env);
	if (!log || !*log)
		return;
	int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		ssize_t w = write(fd, line, strlen(line));
		(void)w;
		close(fd);
	}
}

static void no_recording(const char *name, char **args, int n)
{
	char *line = call_line("fakecmd: no recording for: ", name, args, n);
	fputs(line, stderr);
	log_line("CMAX_FAKE_LOG", line);
	free(line);
	exit(EXIT_NO_RECORDING);
}

int main(int argc, char **argv)
{
	const char *root = getenv("CMAX_FAKE_DIR");
	const char *name;
	char **args = argv + 1;
	int nargs = argc - 1;

	if (argc < 1 || !argv[0])
		return EXIT_NO_RECORDING;
	name = strrchr(argv[0], '/');
	name = name ? name + 1 : argv[0];
	char *trace = call_line("", name, args, nargs);
	log_line("CMAX_FAKE_TRACE", trace);
	free(trace);
	if (!root || !*root) {
		fputs("fakecmd: CMAX_FAKE_DIR is not set\n", stderr);
		no_recording(name, args, nargs);
	}

	char *dir = path_join(root, name);
	char *rec = find_recording(dir, args, nargs);
	free(dir);
	if (!rec)
		no_recording(name, args, nargs);

	long ms = rec_number(rec, "sleep_ms", 0);
	if (ms > 0)
		sleep_ms(ms);

	char *hang = rec_file(rec, "hang", NULL);
	if (hang) {
		signal(SIGTERM, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		if (strstr(hang, "after"))
			emit(rec);
		if (strstr(hang, "fork") && fork() == 0)
			hang_forever();
		hang_forever();
	}

	emit(rec);
	int code = (int)rec_number(rec, "exit", 0);
	free(rec);
	return code & 0xff;
}
