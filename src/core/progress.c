/* The progress reporter of a run of cases (core/progress.h). */
#include "core/progress.h"
#include "core/clock.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

double progress_eta_s(size_t done, size_t total, double done_sum_s, const double *est_s, double cur_s)
{
	if (total == 0 || done > total)
		return NAN;
	double left;
	if (done > 0) {
		left = done_sum_s / (double)done * (double)(total - done);
	} else {
		if (!est_s)
			return NAN;
		left = 0;
		for (size_t i = 0; i < total; i++) {
			if (isnan(est_s[i]) || est_s[i] < 0)
				return NAN;
			left += est_s[i];
		}
	}
	if (done < total && cur_s > 0)
		left -= cur_s;
	return left > 0 ? left : 0;
}

const char *progress_fmt_s(double s, char *buf, size_t n)
{
	if (isnan(s) || s < 0) {
		snprintf(buf, n, "?");
		return buf;
	}
	long t = lround(s);
	if (t >= 3600)
		snprintf(buf, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, n, "%lds", t);
	return buf;
}

static int on_terminal(FILE *out)
{
	const char *term = getenv("TERM");
	return isatty(fileno(out)) && term && *term && strcmp(term, "dumb") != 0;
}

/* The terminal's width, so the line never wraps (a wrapped line cannot be
 * redrawn with a carriage return). */
static size_t columns(FILE *out)
{
	struct winsize ws;
	if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

void progress_begin(struct progress *p, const char *cmd, size_t total, const double *est_s, unsigned flags)
{
	FILE *out = p->out ? p->out : stderr;
	double (*now)(void) = p->now ? p->now : clock_mono_s;
	const char *noun = p->noun ? p->noun : "case";
	memset(p, 0, sizeof *p);
	p->out = out;
	p->now = now;
	p->noun = noun;
	p->parallel = (flags & PROGRESS_PARALLEL) != 0;
	p->cmd = xstrdup(cmd ? cmd : "cmax");
	p->total = total;
	if (est_s && total) {
		p->est_s = xcalloc(total, sizeof *p->est_s);
		memcpy(p->est_s, est_s, total * sizeof *est_s);
	}
	const char *env = getenv(PROGRESS_ENV);
	p->quiet = (flags & PROGRESS_QUIET) != 0 || (env && !strcmp(env, "0"));
	p->tty = flags & PROGRESS_TTY ? 1 : flags & PROGRESS_NO_TTY ? 0 : on_terminal(out);
	p->t0 = p->now();
	p->active = 1;
}

static double eta_now(const struct progress *p, double t)
{
	if (p->parallel)
		return p->done == p->total && p->total ? 0 : NAN;
	double cur = p->current ? t - p->case_t0 : 0;
	/* estimates of the cases left: from the running one on */
	const double *est = p->est_s && p->done == 0 ? p->est_s : NULL;
	return progress_eta_s(p->done, p->total, p->done_sum_s, est, cur);
}

static void draw(struct progress *p)
{
	if (!p->active || p->quiet || !p->tty)
		return;
	double t = p->now();
	char el[16], eta[16], head[48];
	size_t n = p->current && p->done < p->total ? p->done + 1 : p->done;
	if (p->total)
		snprintf(head, sizeof head, "[%zu/%zu] ", n, p->total);
	else
		snprintf(head, sizeof head, "[%zu] ", n);
	struct strbuf tail = STRBUF_INIT;
	sb_addf(&tail, "  elapsed %s  ETA %s", progress_fmt_s(t - p->t0, el, sizeof el),
		progress_fmt_s(eta_now(p, t), eta, sizeof eta));
	size_t cols = columns(p->out), fixed = strlen(head) + tail.len + 1;
	char name[512] = "";
	const char *shown = p->current ? p->current : p->last;
	if (!p->current && p->last)
		fixed += strlen(" done");
	if (shown && cols > fixed + 4) {
		size_t room = cols - fixed, cap = sizeof name - sizeof " done";
		ts_copys(name, room < cap ? room : cap, shown, 0);
	}
	if (!p->current && p->last && *name)
		strcat(name, " done"); /* room was kept: in fixed and in cap */
	/* \r, the line, then erase to its end: what was longer is gone */
	fprintf(p->out, "\r%s%s%s\033[K", head, name, sb_str(&tail));
	fflush(p->out);
	sb_free(&tail);
	p->drawn = 1;
}

void progress_case_start(struct progress *p, const char *name)
{
	if (!p->active)
		return;
	free(p->current);
	p->current = xstrdup(name ? name : "");
	p->case_t0 = p->now();
	draw(p);
}

void progress_case_done(struct progress *p, const char *name, const char *summary)
{
	if (!p->active)
		return;
	double t = p->now();
	double took = p->parallel ? t - p->t0 : p->current ? t - p->case_t0 : 0;
	const char *shown = name ? name : p->current ? p->current : "";
	p->done++;
	p->done_sum_s += took;
	if (!p->quiet && !p->tty) {
		char d[16], el[16], eta[16], count[48];
		double left = p->parallel ? (p->done == p->total && p->total ? 0 : NAN) :
			progress_eta_s(p->done, p->total, p->done_sum_s, NULL, 0);
		if (p->total)
			snprintf(count, sizeof count, "%zu/%zu", p->done, p->total);
		else
			snprintf(count, sizeof count, "%zu", p->done);
		fprintf(p->out, "%s: %s %s %s done in %s%s%s (elapsed %s, ETA %s)\n", p->cmd, p->noun, count, ts_str(shown),
			progress_fmt_s(took, d, sizeof d), summary ? ", " : "", summary ? ts_str(summary) : "",
			progress_fmt_s(t - p->t0, el, sizeof el), progress_fmt_s(left, eta, sizeof eta));
		fflush(p->out);
	}
	free(p->last);
	p->last = xstrdup(shown);
	free(p->current);
	p->current = NULL;
	draw(p);
}

void progress_hide(struct progress *p)
{
	if (!p->active || !p->drawn)
		return;
	fputs("\r\033[K", p->out);
	fflush(p->out);
	p->drawn = 0;
}

void progress_show(struct progress *p)
{
	draw(p);
}

void progress_end(struct progress *p)
{
	FILE *out = p->out;
	double (*now)(void) = p->now;
	const char *noun = p->noun;
	progress_hide(p);
	free(p->cmd);
	free(p->est_s);
	free(p->current);
	free(p->last);
	memset(p, 0, sizeof *p);
	p->out = out;
	p->now = now;
	p->noun = noun;
}
