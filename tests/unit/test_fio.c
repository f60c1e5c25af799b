/* fio JSON parsing against real fio 3.33 output recorded on this project's CI
 * machine (tests/unit/fio/fio333-*.json) and hand-trimmed shapes of other
 * versions (fio2-*, fio3-*-trimmed). */
#include "parse/fio.h"
#include "core/strbuf.h"
#include "config.h"
#include "tap.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *name, size_t *len)
{
	const char *src = getenv("CMAX_SRCDIR");
	char *path = src ? xasprintf("%s/tests/unit/fio/%s", src, name)
			 : xasprintf("%s/../tests/unit/fio/%s", CMAX_SRC_DATADIR, name);
	FILE *f = fopen(path, "rb");
	free(path);
	if (!f)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_add(&sb, buf, n);
	fclose(f);
	*len = sb.len;
	return sb_detach(&sb);
}

static int load(const char *name, struct fio_report *r)
{
	size_t len = 0;
	char *t = slurp(name, &len), *err = NULL;
	if (!T_OK(t != NULL, "%s: readable", name))
		return -1;
	int rc = fio_parse(t, len, r, &err);
	T_OK(rc == 0, "%s: parsed%s%s", name, err ? ": " : "", err ? err : "");
	free(err);
	free(t);
	return rc;
}

static int near(double got, double want, double tol)
{
	return !isnan(got) && fabs(got - want) <= tol;
}

static void test_seqread_group(void)
{
	struct fio_report r;
	if (load("fio333-seqread-2c-group.json", &r))
		return;
	T_STREQ(r.version, "fio-3.33", "version");
	T_INTEQ(r.njobs, 1, "group_reporting: one job entry");
	T_INTEQ(r.client_mode, 0, "not client mode");
	T_OK(r.preamble == NULL, "no preamble");
	const struct fio_job *j = &r.jobs[0];
	T_STREQ(j->name, "seq-read-1m-buffered", "jobname");
	T_INTEQ(j->error, 0, "no error");
	T_OK(j->dir[FIO_READ].present, "read present");
	T_OK(!j->dir[FIO_WRITE].present, "write not present");
	T_OK(near(j->dir[FIO_READ].bw_bytes, 1864135111, 0.5), "bw_bytes exact");
	T_OK(near(j->dir[FIO_READ].iops, 1777.777778, 1e-3), "iops");
	T_OK(near(j->dir[FIO_READ].io_bytes, 33554432, 0.5), "io_bytes (2 x 16 MiB)");
	T_OK(!isnan(j->dir[FIO_READ].clat.p99_ns) && !isnan(j->dir[FIO_READ].clat.p999_ns), "p99 and p99.9 found");
	T_OK(j->dir[FIO_READ].clat.p50_ns <= j->dir[FIO_READ].clat.p99_ns, "p50 <= p99");
	T_OK(j->dir[FIO_READ].clat.p99_ns <= j->dir[FIO_READ].clat.p999_ns, "p99 <= p99.9");
	T_STREQ(j->dir[FIO_READ].clat.source, "clat_ns", "percentiles from clat_ns");
	T_OK(isnan(j->dir[FIO_WRITE].clat.p99_ns), "idle direction latency is unknown, not 0");
	json_t *o = fio_dir_json(&j->dir[FIO_WRITE]);
	T_OK(json_is_null(json_object_get(json_object_get(o, "clat_ns"), "p99")), "idle p99 -> null");
	json_decref(o);
	o = fio_dir_json(&j->dir[FIO_READ]);
	T_INTEQ(json_integer_value(json_object_get(o, "bw_bytes_per_s")), 1864135111, "json bw");
	T_OK(json_is_integer(json_object_get(json_object_get(o, "clat_ns"), "p99.9")), "json p99.9 integer");
	json_decref(o);
	fio_report_free(&r);
}

static void test_nogroup_sum(void)
{
	struct fio_report r;
	if (load("fio333-randwrite-2jobs-nogroup.json", &r))
		return;
	T_INTEQ(r.njobs, 2, "two job entries without group_reporting");
	struct fio_job s;
	fio_sum(&r, &s);
	T_OK(near(s.dir[FIO_WRITE].iops, 173652.0 + 264302.697303, 1e-3), "sum of iops");
	T_OK(near(s.dir[FIO_WRITE].bw_bytes, 711278592.0 + 1082583848.0, 1), "sum of bw");
	T_OK(near(s.dir[FIO_WRITE].runtime_ms, 1001, 0.5), "runtime is the longest");
	T_OK(!s.dir[FIO_READ].present, "read absent in sum");
	fio_report_free(&r);
}

static void test_mixed_direct(void)
{
	struct fio_report r;
	if (load("fio333-randrw-mixed.json", &r))
		return;
	T_OK(r.jobs[0].dir[FIO_READ].present && r.jobs[0].dir[FIO_WRITE].present, "randrw: both directions");
	T_OK(near(r.jobs[0].dir[FIO_WRITE].iops, 12740.25974, 1e-3), "randrw write iops");
	fio_report_free(&r);
	if (load("fio333-randread-64k-direct-libaio.json", &r))
		return;
	T_OK(r.jobs[0].dir[FIO_READ].bw_bytes > 0, "direct randread bw");
	fio_report_free(&r);
	if (load("fio333-filecreate.json", &r))
		return;
	T_OK(near(r.jobs[0].dir[FIO_READ].iops, 9803.921569, 1e-3), "filecreate: files/s in read iops");
	T_OK(near(r.jobs[0].dir[FIO_READ].total_ios, 1000, 0.5), "filecreate: 1000 files");
	fio_report_free(&r);
}

static void test_direct_refused(void)
{
	struct fio_report r;
	if (load("fio333-ramfs-direct-refused.json", &r))
		return;
	T_INTEQ(r.jobs[0].error, 22, "EINVAL recorded in the job");
	T_OK(r.preamble && strstr(r.preamble, "err=22") != NULL, "preamble keeps fio's error line");
	T_OK(!r.jobs[0].dir[FIO_READ].present, "no I/O done");
	fio_report_free(&r);
}

static void test_clients(void)
{
	struct fio_report r;
	if (load("fio333-client-1.json", &r))
		return;
	T_INTEQ(r.client_mode, 1, "one client: client_stats");
	T_INTEQ(r.njobs, 1, "one client entry");
	T_STREQ(r.jobs[0].hostname, "127.0.0.1", "hostname");
	T_INTEQ(r.jobs[0].port, 18765, "port");
	fio_report_free(&r);
	if (load("fio333-client-2.json", &r))
		return;
	T_INTEQ(r.njobs, 3, "two clients + All clients");
	T_OK(r.preamble && strstr(r.preamble, "Starting 1 process"), "non-JSON lines before the document skipped");
	int all = -1;
	for (size_t i = 0; i < r.njobs; i++)
		if (r.jobs[i].is_all_clients)
			all = (int)i;
	T_OK(all >= 0, "All clients entry found");
	struct fio_job s;
	fio_sum(&r, &s);
	double a = r.jobs[0].dir[FIO_READ].iops + r.jobs[1].dir[FIO_READ].iops;
	T_OK(near(s.dir[FIO_READ].iops, a, 1e-3), "sum excludes the aggregate");
	if (all >= 0)
		T_OK(near(r.jobs[all].dir[FIO_READ].iops, a, a * 0.02), "fio's aggregate agrees with our sum");
	fio_report_free(&r);
}

static void test_other_versions(void)
{
	struct fio_report r;
	if (load("fio2-usec-trimmed.json", &r) == 0) {
		const struct fio_dir *d = &r.jobs[0].dir[FIO_READ];
		T_OK(near(d->bw_bytes, 104755.0 * 1024, 0.5), "fio 2: bw KiB/s -> B/s");
		T_OK(near(d->io_bytes, 1048576.0 * 1024, 0.5), "fio 2: io_bytes was KiB");
		T_OK(near(d->clat.p99_ns, 16768000, 0.5), "fio 2: clat us -> ns");
		T_OK(near(d->clat.p999_ns, 31872000, 0.5), "fio 2: p99.9");
		T_STREQ(d->clat.source, "clat", "fio 2: source clat");
		T_OK(!r.jobs[0].dir[FIO_WRITE].present, "fio 2: idle write");
		fio_report_free(&r);
	}
	if (load("fio3-latpct-mixed-trimmed.json", &r) == 0) {
		const struct fio_dir *d = &r.jobs[0].dir[FIO_MIXED];
		T_OK(d->present, "unified_rw_reporting: mixed present");
		T_OK(near(d->clat.p99_ns, 391168, 0.5), "lat_percentiles: p99 from lat_ns");
		T_STREQ(d->clat.source, "lat_ns", "lat_ns source");
		T_OK(!r.jobs[0].dir[FIO_READ].present, "no read object");
		fio_report_free(&r);
	}
	if (load("fio3-continue-on-error-trimmed.json", &r) == 0) {
		T_INTEQ(r.jobs[0].total_err, 3, "total_err");
		T_INTEQ(r.jobs[0].first_error, 5, "first_error EIO");
		T_OK(r.preamble && strstr(r.preamble, "Input/output error"), "io_u error line kept");
		fio_report_free(&r);
	}
	if (load("fio3-status-interval-trimmed.json", &r) == 0) {
		T_INTEQ(r.ndocs, 2, "two status dumps");
		T_OK(near(r.jobs[0].dir[FIO_READ].iops, 900, 1e-6), "last dump wins");
		fio_report_free(&r);
	}
}

static void test_garbage(void)
{
	struct fio_report r;
	char *err = NULL;
	T_OK(fio_parse("fio: unrecognized option '--bogus'\n", 35, &r, &err) == -1 && err, "no JSON -> error");
	free(err);
	err = NULL;
	T_OK(fio_parse("{\"jobs\": 3}", 11, &r, &err) == -1 && err, "jobs not an array -> error");
	free(err);
	err = NULL;
	T_OK(fio_parse("{\"jobs\": [", 10, &r, &err) == -1 && err, "truncated -> error");
	free(err);
	err = NULL;
	T_OK(fio_parse(NULL, 0, &r, &err) == -1, "NULL text -> error");
	free(err);
	err = NULL;
	const char *odd = "{\"jobs\":[{\"jobname\":7,\"error\":\"x\",\"read\":{\"bw_bytes\":\"fast\",\"iops\":5,"
			  "\"clat_ns\":{\"percentile\":{\"abc\":1,\"99.0\":[]}}}}]}";
	T_OK(fio_parse(odd, strlen(odd), &r, &err) == 0, "wrong types tolerated");
	T_OK(r.jobs[0].name == NULL && isnan(r.jobs[0].dir[FIO_READ].clat.p99_ns), "wrong types -> unknown");
	fio_report_free(&r);
	free(err);
}

int main(void)
{
	test_seqread_group();
	test_nogroup_sum();
	test_mixed_direct();
	test_direct_refused();
	test_clients();
	test_other_versions();
	test_garbage();
	return t_done();
}
