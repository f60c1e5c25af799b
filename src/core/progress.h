/* Progress of a long run of cases (a bench sweep, an acceptance run, an
 * audit over nodes), on stderr, so that 17 minutes of fio are not 17
 * minutes of silence and stdout stays the table or the JSON document.
 * The line is redrawn when a case starts and ends, not on a timer: no
 * thread or signal runs beside the case (the runner forks and waits; accept
 * owns SIGALRM).
 *
 * On a terminal (stderr is one and TERM is set and not "dumb") one status
 * line is redrawn in place and cleared at the end:
 *   [3/12] seq-read-1m-buffered-c1  elapsed 3m12s  ETA 9m40s
 * Elsewhere (a log, a CI job) one line per finished case:
 *   cmax bench storage: case 3/12 seq-read-1m-buffered-c1 done in 41s, PASS (elapsed 2m03s, ETA 6m10s)
 * The ETA is the mean duration of the finished cases times the cases left;
 * before any case finished, the sum of the estimates of the cases left;
 * "ETA ?" when neither is known: never a made-up number. Durations come
 * from the monotonic clock (core/clock.h); a test hands its own clock.
 * Names are shown through core/termsafe.h. No colour is used. */
#ifndef CMAX_PROGRESS_H
#define CMAX_PROGRESS_H
#include <stddef.h>
#include <stdio.h>

#define PROGRESS_QUIET 1u   /* -q: nothing at all */
#define PROGRESS_TTY 2u     /* force the terminal form (tests); else detected */
#define PROGRESS_NO_TTY 4u  /* force the line-per-case form (tests); else detected */
/* The cases run at once, all started at progress_begin (the nodes of a
 * fleet audit): each one's duration counts from begin, and the ETA stays
 * unknown until all are done (the mean of the finished ones says nothing
 * of the slowest one left). progress_case_start is not called. */
#define PROGRESS_PARALLEL 8u
/* CMAX_PROGRESS=0 in the environment: quiet, as -q. cmax accept sets it
 * for the commands it runs: their stderr is kept as evidence, and accept
 * shows the progress of its own tests. */
#define PROGRESS_ENV "CMAX_PROGRESS"

struct progress {
	char *cmd;              /* "cmax bench storage": the prefix of each line (owned) */
	size_t total;           /* cases planned; 0 = unknown */
	double *est_s;          /* total estimates in seconds (NAN: unknown), owned; NULL: none */
	size_t done;            /* cases finished */
	double t0, case_t0;     /* clock readings at begin and at the current case's start */
	double done_sum_s;      /* the durations of the finished cases, summed */
	char *current;          /* the running case's name (owned), NULL between cases */
	char *last;             /* the last finished one's (owned): "NAME done" between cases */
	int active, quiet, tty, drawn, parallel;
	const char *noun;       /* "case" unless set before begin ("test", "node"); borrowed, static */
	FILE *out;              /* stderr unless a test sets it */
	double (*now)(void);    /* seconds on a monotonic clock: clock_mono_s unless a test sets it */
};

/* Starts reporting total cases (0 if not known) of cmd; est_s, when not
 * NULL, holds total per-case estimates (NAN for an unknown one), copied.
 * p->out, p->now and p->noun may be set beforehand (zeroed struct: stderr,
 * the monotonic clock, "case"). */
void progress_begin(struct progress *p, const char *cmd, size_t total, const double *est_s, unsigned flags);
/* A case starts: the terminal line shows it. */
void progress_case_start(struct progress *p, const char *name);
/* The case ends (name NULL: the one started); summary (a status, "PASS",
 * or NULL) goes into the line without a terminal. */
void progress_case_done(struct progress *p, const char *name, const char *summary);
/* Before other output to the same terminal (a table row on stdout):
 * clears the status line; the next call redraws it. */
void progress_hide(struct progress *p);
/* Redraws the status line after progress_hide (no-op elsewhere). */
void progress_show(struct progress *p);
/* Clears the status line and frees; the struct is left zeroed except out,
 * now and noun. Safe on a struct never begun. */
void progress_end(struct progress *p);

/* The arithmetic, for the lines and for tests. Seconds left after done of
 * total cases, done_sum_s spent on those, cur_s into the running one (0
 * between cases): the mean of the finished ones times the cases left, or,
 * before any finished, the sum of est_s[done..total) (NULL or a NAN in it:
 * unknown); minus cur_s, never below 0. NAN when unknown (total 0 too). */
double progress_eta_s(size_t done, size_t total, double done_sum_s, const double *est_s, double cur_s);
/* "41s", "3m12s", "1h02m" into buf (>= 16 bytes); "?" for NAN. */
const char *progress_fmt_s(double s, char *buf, size_t n);
#endif
