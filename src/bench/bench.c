/* What the benchmarks share besides the driver (driver.c): signals, the
 * work directory's removal, rows and grading. */
#include "bench/bench.h"
#include "core/interrupt.h"
#include "core/strbuf.h"
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- signals ---------------------------------------------------------- */

/* The core handler (core/interrupt.h) passes the signal on to the group of
 * the command the runner has running (fio, srun: srun then cancels its
 * step), the runner kills that group after its grace, and every loop here
 * stops at bench_interrupted(); children forked without the runner (the
 * metadata workers, background servers) are killed by the code that forked
 * them, and all of them die with cmax (PR_SET_PDEATHSIG). */
int bench_interrupted(void)
{
	return interrupt_pending();
}

void bench_install_signals(void)
{
	interrupt_install();
}

/* ---- work directory ---------------------------------------------------- */

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	int rc = (flag == FTW_DP || flag == FTW_D) ? rmdir(p) : unlink(p);
	return rc != 0 && errno != ENOENT ? 0 : 0; /* keep going; report at the top */
}

int bench_rm_tree(const char *path)
{
	if (nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0)
		return -errno;
	return access(path, F_OK) == 0 ? -ENOTEMPTY : 0;
}

void bench_cleanup(struct bench_run *b)
{
	if (!b->workdir || b->o->keep)
		return;
	int rc = bench_rm_tree(b->workdir);
	if (rc != 0)
		fprintf(stderr, "cmax bench %s: could not remove %s: %s\n", b->name, b->workdir, strerror(-rc));
	else
		b->workdir_removed = 1;
	free(b->workdir);
	b->workdir = NULL;
}

struct result *bench_row_in(struct bench_run *b, const char *profile, const char *id, const char *title)
{
	struct result *r = result_new(id, profile, title, b->host);
	r_mode(r, b->mode ? b->mode : b->o->full ? "full" : "quick");
	if (b->nrows == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 32;
		b->rows = xrealloc(b->rows, b->cap * sizeof *b->rows);
	}
	b->rows[b->nrows++] = r;
	return r;
}

struct result *bench_row(struct bench_run *b, const char *id, const char *title)
{
	return bench_row_in(b, b->ops->profile, id, title);
}

const json_t *bench_th(const struct bench_run *b, const char *key)
{
	return json_object_get(b->thresholds, key);
}

double bench_th_num(const struct bench_run *b, const char *key, const char *field, double dflt)
{
	json_t *v = json_object_get(json_object_get(b->thresholds, key), field);
	return json_is_number(v) ? json_number_value(v) : dflt;
}

enum status bench_grade(const json_t *th, double v, const char **why)
{
	*why = "no threshold declared";
	if (!json_is_object(th) || isnan(v))
		return ST_SKIP;
	json_t *fb = json_object_get(th, "fail_below"), *wb = json_object_get(th, "warn_below");
	json_t *fa = json_object_get(th, "fail_above"), *wa = json_object_get(th, "warn_above");
	if (json_is_number(fb) && v < json_number_value(fb)) {
		*why = "below the FAIL threshold";
		return ST_FAIL;
	}
	if (json_is_number(fa) && v > json_number_value(fa)) {
		*why = "above the FAIL threshold";
		return ST_FAIL;
	}
	if (json_is_number(wb) && v < json_number_value(wb)) {
		*why = "below the WARN threshold";
		return ST_WARN;
	}
	if (json_is_number(wa) && v > json_number_value(wa)) {
		*why = "above the WARN threshold";
		return ST_WARN;
	}
	*why = "within the thresholds";
	return ST_PASS;
}

const char *bench_fmt_ms(double ns, char *buf, size_t n)
{
	if (isnan(ns))
		snprintf(buf, n, "-");
	else if (ns >= 1e9)
		snprintf(buf, n, "%.2fs", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, n, "%.1fms", ns / 1e6);
	else
		snprintf(buf, n, "%.0fus", ns / 1e3);
	return buf;
}
