/* The cases of a benchmark's run (bench.h): progress on stderr through
 * core/progress.h, and the text table printed a row at a time as each case
 * finishes, so a sweep of a quarter of an hour is neither silent nor a
 * table that appears only at its end. The JSON document is not touched. */
#include "bench/bench.h"
#include "core/progress.h"
#include "core/strbuf.h"
#include <math.h>
#include <stdlib.h>

static int can_stream(const struct bench_run *b)
{
	return !b->o->json && b->ops->table_head && b->ops->table_row;
}

/* The rows not printed yet, each as the benchmark's table shows it. */
static void print_new_rows(struct bench_run *b)
{
	if (!b->streaming || b->rows_shown >= b->nrows)
		return;
	progress_hide(&b->progress); /* stdout may be the terminal the status line is on */
	for (; b->rows_shown < b->nrows; b->rows_shown++)
		b->ops->table_row(stdout, b, b->rows[b->rows_shown]);
	fflush(stdout);
	progress_show(&b->progress);
}

void bench_cases_begin(struct bench_run *b, size_t n, const double *est_s)
{
	char *cmd = xasprintf("cmax bench %s", b->name);
	progress_end(&b->progress); /* a second list of cases replaces the first */
	progress_begin(&b->progress, cmd, n, est_s, b->o->quiet ? PROGRESS_QUIET : 0);
	free(cmd);
	b->case_row0 = b->nrows;
	if (can_stream(b) && !b->streaming) {
		b->ops->table_head(stdout, b);
		b->streaming = 1;
		print_new_rows(b);
	}
}

void bench_case_start(struct bench_run *b, const char *name)
{
	b->case_row0 = b->nrows;
	progress_case_start(&b->progress, name);
}

/* The worst of the case's rows: ERROR, then FAIL, WARN, PASS, then SKIP. */
static const char *case_status(const struct bench_run *b)
{
	if (b->case_row0 >= b->nrows)
		return NULL;
	enum status w = ST_SKIP;
	int graded = 0;
	for (size_t i = b->case_row0; i < b->nrows; i++) {
		enum status s = b->rows[i]->status;
		if (s == ST_ERROR)
			return status_name(ST_ERROR);
		if (s == ST_SKIP)
			continue;
		w = graded ? st_worse(w, s) : s;
		graded = 1;
	}
	return status_name(w);
}

void bench_case_done(struct bench_run *b)
{
	progress_case_done(&b->progress, NULL, case_status(b));
	print_new_rows(b);
	b->case_row0 = b->nrows;
}

void bench_cases_end(struct bench_run *b)
{
	progress_end(&b->progress);
}

void bench_table_rest(FILE *out, struct bench_run *b)
{
	if (!b->streaming) {
		b->ops->table(out, b);
		return;
	}
	for (; b->rows_shown < b->nrows; b->rows_shown++)
		b->ops->table_row(out, b, b->rows[b->rows_shown]);
}

void bench_plan_estimate(json_t *plan, double seconds, const char *basis)
{
	json_object_set_new(plan, "estimated_seconds", isnan(seconds) ? json_null() : json_integer((json_int_t)llround(seconds)));
	json_object_set_new(plan, "estimate_basis", json_string(basis));
}

void bench_plan_estimate_text(FILE *out, double seconds, const char *basis)
{
	char took[16];
	if (isnan(seconds))
		fprintf(out, "Estimated duration: %s.\n", basis); /* the basis says why it is not known */
	else
		fprintf(out, "Estimated duration: %lld s (%s): %s.\n", llround(seconds),
			progress_fmt_s(seconds, took, sizeof took), basis);
}
