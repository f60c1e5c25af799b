/* The one confirmation before a command changes something (a node
 * rebooted, a fault injected, files written on a file system, objects
 * created on a cluster).
 *
 * --yes goes without asking. With a terminal on stdin the question is
 * asked on stderr with " [y/N] " and one line is read: y or Y goes,
 * anything else (or end of input) declines. Without a terminal and without
 * --yes nothing can be asked, so the command refuses with a usage error:
 * a script that forgot --yes never blocks and never runs by accident.
 * Ctrl-C at the prompt declines too (interrupt_install comes after). */
#ifndef CMAX_CONFIRM_H
#define CMAX_CONFIRM_H

struct confirm_req {
	const char *cmd;        /* "inject", "bench s3": messages say "cmax CMD: " */
	int yes;                /* --yes was given */
	const char *question;   /* may span lines; " [y/N] " is appended */
	const char *no_tty;     /* why --yes is needed, printed as "cmax CMD: NO_TTY" */
	const char *declined;   /* printed as "cmax CMD: DECLINED" on a no; NULL: silent */
};

/* 0 go; EXIT_DECLINED the answer was no; EXIT_USAGE no terminal to ask on
 * (after r->no_tty on stderr). Exit codes, not library errors
 * (core/error.h): the prompt is the command's own voice and its answer the
 * command's status, the same for every command that asks. */
int confirm_ask(const struct confirm_req *r);
#endif
