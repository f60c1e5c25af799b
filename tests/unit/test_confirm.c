/* The one confirmation (core/confirm.h): --yes goes, no terminal refuses
 * with a usage error, a terminal's y goes and anything else declines. The
 * terminal is a pseudo-terminal whose master side answers. */
#include "tap.h"
#include "core/confirm.h"
#include "core/exitcodes.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct confirm_req base = {
	.cmd = "test", .question = "Go?", .no_tty = "no terminal; pass --yes", .declined = "not run",
};

/* stdin on a fresh pseudo-terminal; returns the master, -1 when none can be had. */
static int stdin_on_pty(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0)
		return -1;
	int s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0 || dup2(s, STDIN_FILENO) < 0)
		return -1;
	close(s);
	clearerr(stdin);
	return m;
}

static int answer(const char *line)
{
	int m = stdin_on_pty();
	if (m < 0)
		return -1;
	if (write(m, line, strlen(line)) != (ssize_t)strlen(line))
		return -1;
	int rc = confirm_ask(&base);
	close(m);
	return rc;
}

int main(void)
{
	struct confirm_req r = base;
	r.yes = 1;
	T_OK(confirm_ask(&r) == 0, "--yes goes without asking");
	int null = open("/dev/null", O_RDONLY);
	T_OK(null >= 0 && dup2(null, STDIN_FILENO) == STDIN_FILENO, "stdin is /dev/null");
	T_OK(confirm_ask(&base) == EXIT_USAGE, "no terminal and no --yes: a usage error");
	int rc = answer("y\n");
	if (rc == -1) {
		T_OK(1, "# SKIP no pseudo-terminal here");
		return t_done();
	}
	T_OK(rc == 0, "y goes");
	T_OK(answer("Yes\n") == 0, "Yes goes");
	T_OK(answer("n\n") == EXIT_DECLINED, "n declines");
	T_OK(answer("\n") == EXIT_DECLINED, "an empty answer declines (the default is No)");
	return t_done();
}
