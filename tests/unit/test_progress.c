/* The progress reporter (core/progress.h): the ETA arithmetic from the
 * method (mean of finished cases x cases left; the estimates before any
 * finished; unknown stays unknown), the duration format, and both line
 * forms on a fake clock, so every figure here is computed by hand. */
#include "core/progress.h"
#include "tap.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double fake_t;
static double fake_now(void)
{
	return fake_t;
}

static char *slurp(FILE *f)
{
	fflush(f);
	long n = ftell(f);
	char *s = calloc(1, (size_t)n + 1);
	rewind(f);
	if (n > 0 && fread(s, 1, (size_t)n, f) != (size_t)n)
		s[0] = 0;
	return s;
}

static void arithmetic(void)
{
	double est[4] = { 10, 20, 30, 40 };
	T_OK(isnan(progress_eta_s(0, 4, 0, NULL, 0)), "nothing finished, no estimates: unknown");
	T_OK(progress_eta_s(0, 4, 0, est, 0) == 100, "nothing finished: the sum of the estimates (100 s)");
	T_OK(progress_eta_s(0, 4, 0, est, 4) == 96, "4 s into the first case: 96 s left");
	T_OK(progress_eta_s(0, 4, 0, est, 500) == 0, "past the estimates: 0, never negative");
	double part[3] = { 10, NAN, 5 };
	T_OK(isnan(progress_eta_s(0, 3, 0, part, 0)), "one estimate unknown: unknown, not a partial sum");
	T_OK(progress_eta_s(1, 4, 41, est, 0) == 123, "1 of 4 done in 41 s: 3 x 41 = 123 s (the estimates no longer used)");
	T_OK(progress_eta_s(3, 12, 90, NULL, 10) == 260, "3 of 12 in 90 s, 10 s into the 4th: 9 x 30 - 10 = 260 s");
	T_OK(progress_eta_s(12, 12, 600, NULL, 0) == 0, "all done: 0");
	T_OK(isnan(progress_eta_s(2, 0, 20, NULL, 0)), "total unknown: unknown");
	char b[16];
	T_STREQ(progress_fmt_s(41, b, sizeof b), "41s", "41 s");
	T_STREQ(progress_fmt_s(192, b, sizeof b), "3m12s", "192 s is 3m12s");
	T_STREQ(progress_fmt_s(123, b, sizeof b), "2m03s", "seconds padded after minutes");
	T_STREQ(progress_fmt_s(3725, b, sizeof b), "1h02m", "3725 s is 1h02m");
	T_STREQ(progress_fmt_s(NAN, b, sizeof b), "?", "unknown is ?");
	T_STREQ(progress_fmt_s(0.4, b, sizeof b), "0s", "under half a second: 0s");
}

static void lines(void)
{
	FILE *f = tmpfile();
	struct progress p = { .out = f, .now = fake_now };
	double est[3] = { 60, 60, 60 };
	fake_t = 1000;
	progress_begin(&p, "cmax bench storage", 3, est, PROGRESS_NO_TTY);
	progress_case_start(&p, "seq-write");
	fake_t = 1041;
	progress_case_done(&p, NULL, "PASS");
	progress_case_start(&p, "seq\033]0;x\007read");
	fake_t = 1100;
	progress_case_done(&p, NULL, "WARN");
	progress_end(&p);
	char *s = slurp(f);
	T_STREQ(s,
		"cmax bench storage: case 1/3 seq-write done in 41s, PASS (elapsed 41s, ETA 1m22s)\n"
		"cmax bench storage: case 2/3 seq\\e]0;x\\aread done in 59s, WARN (elapsed 1m40s, ETA 50s)\n",
		"no terminal: one line per finished case, mean-based ETA, the name escaped");
	free(s);
	fclose(f);

	f = tmpfile();
	p = (struct progress){ .out = f, .now = fake_now };
	fake_t = 0;
	progress_begin(&p, "cmax bench storage", 2, est, PROGRESS_TTY);
	progress_case_start(&p, "a");
	fake_t = 30;
	progress_case_done(&p, NULL, "PASS");
	progress_end(&p);
	s = slurp(f);
	T_OK(strstr(s, "\r[1/2] a  elapsed 0s  ETA 2m00s\033[K") != NULL, "terminal: [1/2], the estimates before a case finished");
	T_OK(strstr(s, "\r[1/2] a done  elapsed 30s  ETA 30s\033[K") != NULL, "terminal: redrawn after the case, mean-based ETA");
	size_t n = strlen(s);
	T_OK(n >= 4 && !strcmp(s + n - 4, "\r\033[K"), "terminal: the line is cleared at the end");
	T_OK(!strstr(s, "\n"), "terminal: no line per case");
	free(s);
	fclose(f);

	f = tmpfile();
	p = (struct progress){ .out = f, .now = fake_now };
	progress_begin(&p, "cmax bench storage", 2, NULL, PROGRESS_QUIET | PROGRESS_NO_TTY);
	progress_case_start(&p, "a");
	progress_case_done(&p, NULL, "PASS");
	progress_end(&p);
	T_INTEQ(ftell(f), 0, "quiet: nothing at all");
	fclose(f);

	f = tmpfile();
	p = (struct progress){ .out = f, .now = fake_now };
	fake_t = 0;
	progress_begin(&p, "cmax accept", 0, NULL, PROGRESS_NO_TTY);
	progress_case_start(&p, "x");
	fake_t = 5;
	progress_case_done(&p, NULL, NULL);
	progress_end(&p);
	s = slurp(f);
	T_STREQ(s, "cmax accept: case 1 x done in 5s (elapsed 5s, ETA ?)\n", "total unknown: no /M, ETA ?");
	free(s);
	fclose(f);

	/* nodes of a fleet audit: all started at once */
	f = tmpfile();
	p = (struct progress){ .out = f, .now = fake_now, .noun = "node" };
	fake_t = 100;
	progress_begin(&p, "cmax audit", 3, NULL, PROGRESS_PARALLEL | PROGRESS_NO_TTY);
	fake_t = 110;
	progress_case_done(&p, "gpu-a01", "answered");
	fake_t = 130;
	progress_case_done(&p, "gpu-a02", "answered");
	progress_case_done(&p, "gpu-a03", "no answer");
	progress_end(&p);
	s = slurp(f);
	T_STREQ(s,
		"cmax audit: node 1/3 gpu-a01 done in 10s, answered (elapsed 10s, ETA ?)\n"
		"cmax audit: node 2/3 gpu-a02 done in 30s, answered (elapsed 30s, ETA ?)\n"
		"cmax audit: node 3/3 gpu-a03 done in 30s, no answer (elapsed 30s, ETA 0s)\n",
		"parallel: durations from the start, the ETA unknown until the last one, the noun set");
	T_STREQ(p.noun, "node", "the noun survives progress_end");
	free(s);
	fclose(f);
}

int main(void)
{
	arithmetic();
	lines();
	return t_done();
}
