/* src/core/readfile.c: the one input reader. What each kind of path gives
 * (error and message), the cap at exactly N MiB and N MiB + 1 byte, the
 * overrides and their precedence, the pipe deadline, and read_file_capped's
 * truncation for cmax's own files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"
#include "core/error.h"
#include "core/readfile.h"

static char dir[] = "/tmp/cmax-readfile.XXXXXX";

static char *path_of(const char *name)
{
	char *p = NULL;
	if (asprintf(&p, "%s/%s", dir, name) < 0)
		abort();
	return p;
}

/* name filled with n bytes of 'x'; returns the path */
static char *file_of(const char *name, size_t n)
{
	char *p = path_of(name);
	FILE *f = fopen(p, "wb");
	for (size_t i = 0; i < n; i++)
		fputc('x', f);
	fclose(f);
	return p;
}

/* read_input's exit code; *msg gets its message (or "") */
static int rd(const char *path, enum input_kind k, size_t *len, char **msg)
{
	char *data = NULL, *err = NULL;
	int rc = read_input(path, k, &data, len, &err);
	if (rc == 0 && (!data || data[len ? *len : 0] != 0))
		rc = -1; /* contents must be NUL-terminated */
	if (rc != 0 && data)
		rc = -2; /* an error leaves no data */
	free(data);
	*msg = err ? err : strdup("");
	return rc;
}

static void expect(const char *path, enum input_kind k, int want, const char *needle, const char *name)
{
	char *msg = NULL;
	size_t len = 0;
	int rc = rd(path, k, &len, &msg);
	T_INTEQ(rc, want, "%s: exit %d", name, want);
	if (needle)
		T_OK(strstr(msg, needle) && !strchr(msg, '\n'), "%s: one line with '%s' (%s)", name, needle, msg);
	free(msg);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	unsetenv("CMAX_MAX_INPUT_MB");
	unsetenv("CMAX_MAX_INPUT_MB_POLICY");
	unsetenv("CMAX_MAX_INPUT_MB_EVENTS");
	unsetenv("CMAX_INPUT_TIMEOUT_S");

	/* a regular file: whole, NUL-terminated, length right */
	char *small = file_of("small", 5), *msg = NULL;
	size_t len = 0;
	T_INTEQ(rd(small, INPUT_POLICY, &len, &msg), 0, "a small file is read");
	T_INTEQ(len, 5, "its length");
	free(msg);
	char *empty = file_of("empty", 0);
	T_INTEQ(rd(empty, INPUT_POLICY, &len, &msg), 0, "an empty file is read (the caller judges it)");
	T_INTEQ(len, 0, "of length 0");
	free(msg);

	/* what cannot be opened is 66; what is no document is 65 */
	char *missing = path_of("missing");
	expect(missing, INPUT_POLICY, CE_NOINPUT, "No such file", "a missing file");
	expect(dir, INPUT_POLICY, CE_DATA, "a directory, not a regular file", "a directory");
	expect("/dev/zero", INPUT_EVENTS, CE_DATA, "a character device, not a regular file", "/dev/zero");
	expect("/dev/null", INPUT_RESULTS, CE_DATA, "a character device", "/dev/null");
	char *link = path_of("link");
	T_OK(symlink("/dev/zero", link) == 0, "a symlink to /dev/zero");
	expect(link, INPUT_EVENTS, CE_DATA, "a character device", "  is refused on its target");
	char *lsmall = path_of("lsmall");
	T_OK(symlink(small, lsmall) == 0, "a symlink to a regular file");
	expect(lsmall, INPUT_POLICY, 0, NULL, "  is followed");
	/* "-" is standard input only for the kinds that take it */
	expect("-", INPUT_POLICY, CE_NOINPUT, "-: No such file", "'-' is a file name for policy files");

	/* the cap: exactly N MiB passes, one byte more is refused, naming the override */
	setenv("CMAX_MAX_INPUT_MB_POLICY", "1", 1);
	T_INTEQ(input_cap(INPUT_POLICY), 1u << 20, "CMAX_MAX_INPUT_MB_POLICY=1 is a 1 MiB cap");
	char *at = file_of("at", 1u << 20), *over = file_of("over", (1u << 20) + 1);
	expect(at, INPUT_POLICY, 0, NULL, "exactly the cap");
	expect(over, INPUT_POLICY, CE_DATA, "larger than the 1 MiB cap for policy files (raise it with CMAX_MAX_INPUT_MB_POLICY=N",
	       "one byte over the cap");
	setenv("CMAX_MAX_INPUT_MB", "1", 1);
	setenv("CMAX_MAX_INPUT_MB_POLICY", "2", 1);
	expect(over, INPUT_POLICY, 0, NULL, "the per-kind override wins over the global one");
	expect(over, INPUT_EVENTS, CE_DATA, "1 MiB cap for event histories", "the global one caps the other kinds");
	unsetenv("CMAX_MAX_INPUT_MB_POLICY");
	unsetenv("CMAX_MAX_INPUT_MB");
	T_INTEQ(input_cap(INPUT_POLICY), 16u << 20, "the policy default is 16 MiB");
	T_INTEQ(input_cap(INPUT_EVENTS), 512u << 20, "the event-history default is 512 MiB");

	/* overrides: whole MiB from 1, else a usage error (main() checks first) */
	T_OK(input_limits_check() == NULL, "no override: nothing to say");
	const char *bad[] = { "0", "abc", "1.5", "-1", "+2", "1048577", " 3" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		setenv("CMAX_MAX_INPUT_MB_RESULTS", bad[i], 1);
		char *why = input_limits_check();
		T_OK(why && strstr(why, "CMAX_MAX_INPUT_MB_RESULTS"), "CMAX_MAX_INPUT_MB_RESULTS='%s' is refused", bad[i]);
		free(why);
		expect(small, INPUT_RESULTS, CE_USAGE, "not a whole number", "  and read_input says so");
	}
	unsetenv("CMAX_MAX_INPUT_MB_RESULTS");
	setenv("CMAX_INPUT_TIMEOUT_S", "x", 1);
	char *why = input_limits_check();
	T_OK(why && strstr(why, "CMAX_INPUT_TIMEOUT_S=x"), "a malformed CMAX_INPUT_TIMEOUT_S is refused");
	free(why);

	/* a FIFO with no writer: open() does not block, the read ends at the deadline */
	setenv("CMAX_INPUT_TIMEOUT_S", "1", 1);
	char *fifo = path_of("fifo");
	T_OK(mkfifo(fifo, 0600) == 0, "a FIFO");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	expect(fifo, INPUT_EVENTS, CE_DATA, "a pipe that did not end within 1 s", "  with no writer");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	T_OK(s >= 0.9 && s < 4.0, "  ends at the 1 s deadline (%.2f s)", s);
	errno = 0;
	T_OK(!read_file_capped(fifo, 100, NULL) && errno == ETIMEDOUT, "  read_file_capped: ETIMEDOUT");
	unsetenv("CMAX_INPUT_TIMEOUT_S");

	/* read_file_capped: cmax's own files, cut at the cap, the same refusals */
	char *big = file_of("big", 1000);
	char *cut = read_file_capped(big, 10, &len);
	T_OK(cut && len == 10 && cut[10] == 0, "read_file_capped cuts at the cap");
	free(cut);
	errno = 0;
	T_OK(!read_file_capped("/dev/zero", 10, NULL) && errno == ENODEV, "read_file_capped refuses a device (ENODEV)");
	errno = 0;
	T_OK(!read_file_capped(dir, 10, NULL) && errno == EISDIR, "read_file_capped refuses a directory (EISDIR)");
	errno = 0;
	T_OK(!read_file_capped(missing, 10, NULL) && errno == ENOENT, "read_file_capped: a missing file is ENOENT");

	char *all[] = { small, empty, link, lsmall, at, over, fifo, big };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		unlink(all[i]);
		free(all[i]);
	}
	free(missing);
	rmdir(dir);
	return t_done();
}
