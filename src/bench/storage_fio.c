/* `cmax bench storage` on one host: the fio command line of a case, the
 * grading of its figures (shared with the runs across nodes), one case at
 * a client count, and the endurance phases. */
#include "bench/bench.h"
#include "bench/storage.h"
#include "core/exitcodes.h"
#include "core/numparse.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "parse/fio.h"
#include "bench/slurmstep.h"
#include "bench/space.h"
#include <errno.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


/* The argv of one fio run, appended to f. */
void storage_build_fio(struct argv_list *f, const struct sopts *o, const char *dir, const char *name,
		       const char *rw, const char *bs, int direct, int clients, int runtime, int time_based)
{
	argv_add(f, o->fio);
	argv_addf(f, "--name=%s", name);
	argv_addf(f, "--directory=%s", dir);
	argv_add(f, o->nodes_mode ? FNAME_NODES : FNAME_LOCAL);
	argv_addf(f, "--size=%llu", (unsigned long long)o->size_bytes); /* bytes: fio's own suffix rules never apply */
	argv_addf(f, "--rw=%s", rw);
	argv_addf(f, "--bs=%s", bs);
	argv_addf(f, "--ioengine=%s", direct ? "libaio" : "psync");
	argv_addf(f, "--iodepth=%lld", direct ? o->iodepth : 1LL);
	argv_addf(f, "--direct=%d", direct);
	argv_addf(f, "--numjobs=%d", clients);
	argv_add(f, "--group_reporting=1");
	argv_addf(f, "--runtime=%d", runtime);
	if (time_based)
		argv_add(f, "--time_based=1");
	if (o->ramp_s > 0 && time_based)
		argv_addf(f, "--ramp_time=%d", o->ramp_s);
	/* Dirty pages cannot be invalidated: without the fsync a buffered
	 * read case after a write case measures the page cache. */
	if (strstr(rw, "write") || !strcmp(rw, "rw") || !strcmp(rw, "randrw"))
		argv_add(f, "--end_fsync=1");
	argv_add(f, "--output-format=json");
}

int storage_timeout_ms(const struct sopts *o, int runtime)
{
	/* layout of the files plus the run, generously: a slow file system
	 * must become a figure, not a timeout */
	double lay = (double)o->size_bytes * o->clients / (50.0 * 1024 * 1024);
	double t = 2.0 * (runtime + o->ramp_s) + 60 + lay;
	return t > 2e6 ? 2000000000 : (int)(t * 1000);
}

const char *storage_direct_refusal_in(const char *err, const struct fio_report *fr)
{
	static const char *const marks[] = { "does not support O_DIRECT", "does not support direct",
					     "err=22", "Invalid argument" };
	for (size_t i = 0; i < sizeof marks / sizeof *marks; i++) {
		if (err && strstr(err, marks[i]))
			return err;
		if (fr && fr->preamble && strstr(fr->preamble, marks[i]))
			return fr->preamble;
	}
	if (fr && fr->njobs && fr->jobs[0].error == EINVAL)
		return "fio: job error 22 (EINVAL) opening with O_DIRECT";
	return NULL;
}

static const char *direct_refusal(const struct cmd_result *cr, const struct fio_report *fr)
{
	return storage_direct_refusal_in(cr->err, fr);
}

char *storage_first_line(const char *s)
{
	if (!s)
		return xstrdup("");
	while (*s == '\n' || *s == ' ')
		s++;
	const char *e = strchr(s, '\n');
	/* prefer the more specific second line of fio's O_DIRECT message */
	if (e && strstr(e, "does not support O_DIRECT")) {
		const char *s2 = strstr(e, "fio: destination");
		if (s2) {
			const char *e2 = strchr(s2, '\n');
			return xstrndup(s2, e2 ? (size_t)(e2 - s2) : strlen(s2));
		}
	}
	return xstrndup(s, e ? (size_t)(e - s) : strlen(s));
}

/* One figure against its threshold (NULL: none declared): the worse status
 * and, when not a pass, "; FIGURE is WHY" into why. */
static void grade_figure(const json_t *th, double v, const char *shown, struct strbuf *why, enum status *st,
			 int *graded)
{
	const char *w;
	if (!th)
		return;
	enum status s = bench_grade(th, v, &w);
	if (s == ST_SKIP)
		return;
	*graded = 1;
	if (s != ST_PASS)
		sb_addf(why, "; %s is %s", shown, w);
	*st = st_worse(*st, s);
}

/* Grade one direction's figures; fills observed; returns the status. */
enum status storage_grade_dir(struct bench_run *b, const char *key, const struct fio_dir *d, struct strbuf *why)
{
	const json_t *th = bench_th(b, key);
	enum status st = ST_PASS;
	int graded = 0;
	const json_t *tlat = json_object_get(th, "p999_ms");
	if (!tlat)
		tlat = json_object_get(bench_th(b, "latency"), "p999_ms");
	char shown[64];
	snprintf(shown, sizeof shown, "%.2f GB/s", d->bw_bytes / 1e9);
	grade_figure(json_object_get(th, "bw_gb_s"), d->bw_bytes / 1e9, shown, why, &st, &graded);
	snprintf(shown, sizeof shown, "%.0f IOPS", d->iops);
	grade_figure(json_object_get(th, "iops"), d->iops, shown, why, &st, &graded);
	snprintf(shown, sizeof shown, "p99.9 %.1f ms", d->clat.p999_ns / 1e6);
	grade_figure(tlat, d->clat.p999_ns / 1e6, shown, why, &st, &graded);
	return graded ? st : ST_SKIP;
}

/* The direction a case measures. */
enum fio_ddir storage_case_ddir(const struct kind *k)
{
	return strstr(k->rw, "write") ? FIO_WRITE : FIO_READ;
}

/* What fio was asked to do, the same on one host and across nodes. */
void storage_case_params(json_t *ob, const struct sopts *o, const struct kind *k, const char *fio_version)
{
	json_object_set_new(ob, "rw", json_string(k->rw));
	json_object_set_new(ob, "bs", json_string(k->bs));
	json_object_set_new(ob, "direct", json_boolean(k->direct));
	json_object_set_new(ob, "ioengine", json_string(k->direct ? "libaio" : "psync"));
	json_object_set_new(ob, "iodepth", json_integer(k->direct ? o->iodepth : 1));
	json_object_set_new(ob, "size_per_client", json_string(o->size));
	json_object_set_new(ob, "fio_version", fio_version ? json_string(fio_version) : json_null());
}

/* A direction's figures into ob, with the bandwidth also in GB/s. */
void storage_dir_figures(json_t *ob, const struct fio_dir *d)
{
	json_t *dj = fio_dir_json(d);
	json_object_set_new(dj, "bw_gb_s", isnan(d->bw_bytes) ? json_null() : json_real(round(d->bw_bytes / 1e7) / 100));
	json_object_update(ob, dj);
	json_decref(dj);
}

void storage_clat_text(const struct fio_dir *d, struct clat_text *t)
{
	bench_fmt_ms(d->clat.p50_ns, t->p50, sizeof t->p50);
	bench_fmt_ms(d->clat.p99_ns, t->p99, sizeof t->p99);
	bench_fmt_ms(d->clat.p999_ns, t->p999, sizeof t->p999);
}

static json_t *case_observed(const struct sopts *o, const struct kind *k, int clients, const struct fio_report *fr,
			     const struct fio_job *sum)
{
	json_t *ob = json_object();
	json_object_set_new(ob, "clients", json_integer(clients));
	storage_case_params(ob, o, k, fr ? fr->version : NULL);
	if (sum) {
		storage_dir_figures(ob, &sum->dir[storage_case_ddir(k)]);
		json_object_set_new(ob, "errors", json_integer(sum->total_err + (sum->error ? 1 : 0)));
		json_object_set_new(ob, "error_errno", json_integer(sum->error ? sum->error : sum->first_error));
	}
	return ob;
}

int storage_run_case(struct bench_run *b, const struct sopts *o, const struct kind *k, int clients)
{
	char *id = xasprintf("bench.storage-%s-c%d", k->id, clients);
	char *title = xasprintf("fio %s, %d client%s", k->title, clients, clients == 1 ? "" : "s");
	struct result *r = bench_row(b, id, title);
	free(id);
	free(title);
	struct argv_list fa = { 0 };
	storage_build_fio(&fa, o, b->workdir, k->id, k->rw, k->bs, k->direct, clients, o->runtime_s, k->random);
	struct run_opts ro = { .timeout_ms = storage_timeout_ms(o, o->runtime_s), .cap_out = 16u << 20 };
	struct cmd_result cr;
	runner_run((const char *const *)fa.v, &ro, &cr);
	char *cmdline = xstrdup(cr.cmdline);
	r_reproduce(r, cmdline);
	r_evidence(r, cmd_evidence(&cr, 1500));
	r_expected(r, json_deep_copy(bench_th(b, k->id)));
	struct fio_report fr;
	char *err = NULL;
	int parsed = cr.outcome == RUN_EXITED && fio_parse(cr.out, cr.out_len, &fr, &err) == 0;
	if (bench_interrupted()) {
		r_skip(r, "interrupted before this case finished");
	} else if (cr.outcome == RUN_NOT_FOUND) {
		r_skip(r, "fio not found (%s): install Debian's fio package", o->fio);
	} else if (cr.outcome == RUN_TIMEOUT) {
		r_error(r, "fio did not finish within %d s and was killed: the file system stalls or is far slower than the runtime allows",
			cr.timeout_ms / 1000);
	} else if (cr.outcome != RUN_EXITED) {
		char *d = cmd_describe(&cr);
		r_error(r, "fio %s", d);
		free(d);
	} else if (k->direct && (cr.exit_code != 0 || (parsed && fr.njobs && fr.jobs[0].error)) &&
		   direct_refusal(&cr, parsed ? &fr : NULL)) {
		char *l = storage_first_line(direct_refusal(&cr, parsed ? &fr : NULL));
		r_skip(r, "O_DIRECT refused by %s at %s: %s", b->fstype, o->b.path, l);
		r_observed(r, case_observed(o, k, clients, parsed ? &fr : NULL, NULL));
		free(l);
	} else if (!parsed) {
		char *l = storage_first_line(cr.err && *cr.err ? cr.err : cr.out);
		r_error(r, "fio exited %d without usable JSON (%s): %s", cr.exit_code, err ? err : "?", l);
		free(l);
	} else {
		struct fio_job sum;
		fio_sum(&fr, &sum);
		r_observed(r, case_observed(o, k, clients, &fr, &sum));
		enum fio_ddir dd = storage_case_ddir(k);
		const struct fio_dir *d = &sum.dir[dd];
		struct clat_text ct;
		storage_clat_text(d, &ct);
		if (sum.error || sum.total_err) {
			int e = sum.error ? sum.error : sum.first_error;
			r_fail(r, "fio saw I/O errors: error %d (%s), %ld counted; %s", e, strerror(e), sum.total_err,
			       fr.preamble ? fr.preamble : "");
		} else if (!d->present) {
			r_error(r, "fio exited %d but did no %s I/O", cr.exit_code, fio_ddir_name(dd));
		} else {
			struct strbuf why = STRBUF_INIT;
			enum status st = storage_grade_dir(b, k->id, d, &why);
			const char *w = why.len ? sb_str(&why) + 2 : "";
			if (st == ST_SKIP)
				r_skip(r, "%.1f MB/s, %.0f IOPS; no threshold declared for %s", d->bw_bytes / 1e6, d->iops, k->id);
			else
				r_status(r, st, "%.1f MB/s, %.0f IOPS, clat p50 %s p99 %s p99.9 %s%s%s", d->bw_bytes / 1e6,
					 d->iops, ct.p50, ct.p99, ct.p999, *w ? "; " : "", w);
			sb_free(&why);
		}
	}
	if (parsed)
		fio_report_free(&fr);
	free(err);
	free(cmdline);
	cmd_result_free(&cr);
	argv_free(&fa);
	return bench_interrupted() ? -1 : 0;
}

/* ---- endurance --------------------------------------------------------- */

struct interval {
	double bw, iops, p99, p999;
};

void storage_endurance_shape(const struct sopts *o, int *interval_s, int *n)
{
	double phase_s = o->endurance_min * 60;
	int iv = (int)lround(phase_s / 15);
	if (iv < 1)
		iv = 1;
	if (iv > 30)
		iv = 30;
	*interval_s = iv;
	*n = (int)lround(phase_s / iv);
	if (*n < 2)
		*n = 2;
}

void storage_run_endurance(struct bench_run *b, const struct sopts *o, int clients, int seq)
{
	const char *pid = seq ? "seq-mixed" : "rand-mixed";
	char *id = xasprintf("bench.storage-endurance-%s-c%d", pid, clients);
	char *title = xasprintf("fio endurance, %s read/write (%s), %d client%s", seq ? "sequential" : "random",
				seq ? "1 MiB" : "64 KiB", clients, clients == 1 ? "" : "s");
	struct result *r = bench_row(b, id, title);
	free(id);
	free(title);
	double phase_s = o->endurance_min * 60;
	int iv, n;
	storage_endurance_shape(o, &iv, &n);
	struct interval *v = xcalloc((size_t)n, sizeof *v);
	int direct = 1, got = 0;
	char *last_cmd = NULL, *fail = NULL;
	json_t *series = json_array();
	for (int i = 0; i < n && !bench_interrupted(); i++) {
		struct argv_list fa = { 0 };
		storage_build_fio(&fa, o, b->workdir, seq ? "endurance-seq-mixed" : "endurance-rand-mixed", seq ? "rw" : "randrw",
			  seq ? "1M" : "64k", direct, clients, iv, 1);
		struct run_opts ro = { .timeout_ms = storage_timeout_ms(o, iv), .cap_out = 16u << 20 };
		struct cmd_result cr;
		runner_run((const char *const *)fa.v, &ro, &cr);
		struct fio_report fr;
		char *err = NULL;
		int parsed = cr.outcome == RUN_EXITED && fio_parse(cr.out, cr.out_len, &fr, &err) == 0;
		if (i == 0 && direct && (cr.exit_code != 0 || (parsed && fr.njobs && fr.jobs[0].error)) &&
		    direct_refusal(&cr, parsed ? &fr : NULL)) {
			r_evidence_note(r, "O_DIRECT refused by %s; the phase ran buffered", b->fstype);
			direct = 0;
			i = -1;
		} else if (!parsed || cr.outcome != RUN_EXITED) {
			char *d = cmd_describe(&cr);
			fail = xasprintf("interval %d: fio %s %s", i + 1, d, err ? err : "");
			free(d);
			r_evidence(r, cmd_evidence(&cr, 1500));
		} else {
			struct fio_job s;
			fio_sum(&fr, &s);
			struct interval *x = &v[got++];
			x->bw = (isnan(s.dir[FIO_READ].bw_bytes) ? 0 : s.dir[FIO_READ].bw_bytes) +
				(isnan(s.dir[FIO_WRITE].bw_bytes) ? 0 : s.dir[FIO_WRITE].bw_bytes);
			x->iops = (isnan(s.dir[FIO_READ].iops) ? 0 : s.dir[FIO_READ].iops) +
				  (isnan(s.dir[FIO_WRITE].iops) ? 0 : s.dir[FIO_WRITE].iops);
			x->p99 = fmax(s.dir[FIO_READ].clat.p99_ns, s.dir[FIO_WRITE].clat.p99_ns);
			x->p999 = fmax(s.dir[FIO_READ].clat.p999_ns, s.dir[FIO_WRITE].clat.p999_ns);
			json_t *e = json_object();
			json_object_set_new(e, "t_s", json_integer((json_int_t)(got * iv)));
			json_object_set_new(e, "bw_bytes_per_s", json_integer((json_int_t)x->bw));
			json_object_set_new(e, "iops", json_real(round(x->iops * 10) / 10));
			json_object_set_new(e, "p99_ns", isnan(x->p99) ? json_null() : json_integer((json_int_t)x->p99));
			json_object_set_new(e, "p99.9_ns", isnan(x->p999) ? json_null() : json_integer((json_int_t)x->p999));
			json_object_set_new(e, "errors", json_integer(s.total_err + (s.error ? 1 : 0)));
			json_array_append_new(series, e);
			if (s.error || s.total_err)
				fail = xasprintf("interval %d: fio saw I/O errors (error %d)", got, s.error ? s.error : s.first_error);
		}
		free(last_cmd);
		last_cmd = xstrdup(cr.cmdline);
		if (parsed)
			fio_report_free(&fr);
		free(err);
		cmd_result_free(&cr);
		argv_free(&fa);
		if (fail)
			break;
	}
	if (last_cmd)
		r_reproduce(r, last_cmd);
	json_t *ob = json_object();
	json_object_set_new(ob, "clients", json_integer(clients));
	json_object_set_new(ob, "direct", json_boolean(direct));
	json_object_set_new(ob, "interval_s", json_integer(iv));
	json_object_set_new(ob, "phase_s", json_real(phase_s));
	json_object_set_new(ob, "intervals", series);
	r_expected(r, json_deep_copy(bench_th(b, "endurance")));
	if (bench_interrupted()) {
		r_skip(r, "interrupted after %d of %d intervals", got, n);
	} else if (fail) {
		r_fail(r, "%s", fail);
	} else if (got < 2 || !(v[0].bw > 0)) {
		r_error(r, "only %d usable intervals; no degradation figure", got);
	} else {
		/* sustained: the mean of the second half against the first interval */
		double sum = 0, worst = v[0].bw, p99max = v[0].p99;
		int h = got / 2, cnt = 0;
		for (int i = 1; i < got; i++) {
			if (v[i].bw < worst)
				worst = v[i].bw;
			if (v[i].p99 > p99max)
				p99max = v[i].p99;
		}
		for (int i = h; i < got; i++, cnt++)
			sum += v[i].bw;
		double sustained = 100.0 * (1 - (sum / cnt) / v[0].bw);
		double worst_pct = 100.0 * (1 - worst / v[0].bw);
		double drift = v[0].p99 > 0 ? p99max / v[0].p99 : NAN;
		json_object_set_new(ob, "degradation_pct", json_real(round(sustained * 10) / 10));
		json_object_set_new(ob, "worst_interval_degradation_pct", json_real(round(worst_pct * 10) / 10));
		json_object_set_new(ob, "p99_drift_ratio", isnan(drift) ? json_null() : json_real(round(drift * 100) / 100));
		const char *w1, *w2;
		enum status s1 = bench_grade(json_object_get(bench_th(b, "endurance"), "degradation_pct"), sustained < 0 ? 0 : sustained, &w1);
		enum status s2 = bench_grade(json_object_get(bench_th(b, "endurance"), "p99_drift_ratio"), drift, &w2);
		enum status st = s1 == ST_SKIP ? s2 : s2 == ST_SKIP ? s1 : st_worse(s1, s2);
		if (st == ST_SKIP)
			st = ST_PASS;
		r_status(r, st, "%d x %d s: first %.1f MB/s, second half %.1f MB/s (%.1f%% degradation, worst interval %.1f%%), p99 drift x%.2f",
			 got, iv, v[0].bw / 1e6, sum / cnt / 1e6, sustained, worst_pct, drift);
	}
	r_observed(r, ob);
	free(fail);
	free(last_cmd);
	free(v);
}
