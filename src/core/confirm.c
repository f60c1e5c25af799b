/* See confirm.h. */
#include "core/confirm.h"
#include "core/exitcodes.h"

#include <stdio.h>
#include <unistd.h>

int confirm_ask(const struct confirm_req *r)
{
	if (r->yes)
		return 0;
	if (!isatty(STDIN_FILENO)) {
		fprintf(stderr, "cmax %s: %s\n", r->cmd, r->no_tty);
		return EXIT_USAGE;
	}
	fprintf(stderr, "%s [y/N] ", r->question);
	fflush(stderr);
	char line[32];
	if (fgets(line, sizeof line, stdin) && (line[0] == 'y' || line[0] == 'Y'))
		return 0;
	if (r->declined)
		fprintf(stderr, "cmax %s: %s\n", r->cmd, r->declined);
	return EXIT_DECLINED;
}
