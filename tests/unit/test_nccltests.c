/* nccl-tests and perftest parsing against recordings in tests/unit/net/
 * written from the documented formats of several tool versions: nccl-tests
 * 2.8 (no root column, "error" magnitude), 2.13 (no banner lines), 2.14
 * (banner and "concluded" footer), 2.19 with -c 0 (N/A in #wrong), an
 * aborted run, the -J JSON file (complete and unchecked/partial); perftest
 * 2.x/3.x (MB/sec), 4.5 (Gb/sec), 23.04 (MiB/sec, -a sweep), latency rows
 * old and new, and a connection failure. */
#include "parse/nccltests.h"
#include "parse/perftest.h"
#include "core/strbuf.h"
#include "config.h"
#include "tap.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *name, size_t *len)
{
	const char *src = getenv("CMAX_SRCDIR");
	char *path = src ? xasprintf("%s/tests/unit/net/%s", src, name)
			 : xasprintf("%s/../tests/unit/net/%s", CMAX_SRC_DATADIR, name);
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

static int near(double got, double want, double tol)
{
	return !isnan(got) && fabs(got - want) <= tol;
}

static int load(const char *name, struct nccl_result *r)
{
	size_t len = 0;
	char *t = slurp(name, &len), *err = NULL;
	if (!T_OK(t != NULL, "%s: readable", name))
		return -1;
	int rc = nccl_parse(t, len, r, &err);
	T_OK(rc == 0, "%s: parsed%s%s", name, err ? ": " : "", err ? err : "");
	free(err);
	free(t);
	return rc;
}

static void test_allreduce_2x8(void)
{
	struct nccl_result r;
	if (load("nccl-2.14.1-allreduce-2x8.txt", &r))
		return;
	T_STREQ(r.collective, "all_reduce", "collective from the banner");
	T_STREQ(r.version, "2.14.1", "nccl-tests version");
	T_STREQ(r.nccl_version, "22105", "nccl library version");
	T_INTEQ(r.nranks, 16, "16 ranks from the device lines");
	T_INTEQ(r.nhosts, 2, "2 hosts");
	T_STREQ(r.hosts[1], "gpu-a02", "second host");
	T_INTEQ((long)r.nrows, 32, "8 B .. 16 GiB = 32 rows");
	T_OK(r.rows[31].size == 17179869184.0 && r.rows[31].count == 4294967296.0, "last row size and count");
	T_OK(near(r.rows[31].p[NCCL_OOP].busbw, 371.84, 0.001) && near(r.rows[31].p[NCCL_INP].busbw, 370.35, 0.001),
	     "both placements' busbw");
	T_OK(near(r.rows[31].p[NCCL_OOP].time_us, 86630.1, 0.01), "time of a 16 GiB all-reduce");
	T_INTEQ(r.rows[0].root, -1, "root column");
	T_STREQ(r.rows[0].type, "float", "type");
	T_INTEQ(r.wrong_total, 0, "#wrong all zero");
	T_OK(near(r.avg_busbw, 135.1634, 1e-6), "footer average busbw");
	T_OK(r.oob == 0 && !r.oob_failed && !r.avg_failed && r.concluded && !r.failed, "footer OK, concluded");
	double at, pk = nccl_peak_busbw(&r, 1073741824.0, &at);
	T_OK(near(pk, 371.84, 0.001) && at == 17179869184.0, "peak busbw at >= 1 GiB");
	double t = nccl_time_at(&r, 65536, &at);
	T_OK(near(t, 38.33, 0.001) && at == 65536, "latency at 64 KiB");
	double ws, wd;
	T_INTEQ(nccl_jagged(&r, 1048576, 0.1, &ws, &wd), 0, "smooth curve is not jagged");
	T_OK(near(nccl_busbw_factor("all_reduce", 16) * r.rows[31].p[NCCL_OOP].algbw, 371.84, 0.01),
	     "busbw = algbw x 2(n-1)/n");
	nccl_result_free(&r);
}

static void test_other_versions(void)
{
	struct nccl_result r;
	if (!load("nccl-2.13.4-allgather-1x8.txt", &r)) {
		T_OK(r.collective == NULL, "2.13: no 'test starting' banner");
		T_OK(!r.concluded == 0, "2.13: the Avg footer marks the end");
		T_INTEQ(r.nranks, 8, "2.13: 8 ranks");
		T_INTEQ(r.nhosts, 1, "2.13: one host");
		T_STREQ(r.rows[3].redop, "none", "all_gather redop none");
		T_OK(near(nccl_busbw_factor("all_gather", 8) * r.rows[31].p[NCCL_OOP].algbw, r.rows[31].p[NCCL_OOP].busbw, 0.02),
		     "all_gather busbw = algbw x (n-1)/n");
		nccl_result_free(&r);
	}
	if (!load("nccl-2.8-reducescatter-noroot.txt", &r)) {
		T_OK(r.version == NULL, "2.8: no version line");
		T_INTEQ((long)r.nrows, 28, "2.8: 8 B .. 1 GiB");
		T_INTEQ(r.rows[0].root, -1, "2.8: no root column -> -1");
		T_OK(near(r.rows[27].p[NCCL_INP].busbw, r.rows[27].p[NCCL_INP].busbw, 0) && r.rows[27].p[NCCL_INP].present,
		     "2.8: in-place columns mapped without root");
		T_OK(r.rows[27].p[NCCL_OOP].max_err == 0 && r.rows[27].p[NCCL_OOP].wrong == -1, "2.8: error magnitude, no count");
		T_INTEQ(r.wrong_total, -1, "2.8: no #wrong column -> unknown");
		nccl_result_free(&r);
	}
	if (!load("nccl-2.19.3-alltoall-c0.txt", &r)) {
		T_STREQ(r.collective, "alltoall", "2.19 collective");
		T_OK(r.rows[10].p[NCCL_OOP].wrong == -1 && r.rows[10].p[NCCL_INP].wrong == -1, "N/A in #wrong -> unchecked");
		T_INTEQ(r.wrong_total, -1, "-c 0: correctness unknown, not zero");
		T_OK(!isnan(r.rows[31].p[NCCL_INP].busbw), "N/A does not shift the other columns");
		nccl_result_free(&r);
	}
	if (!load("nccl-2.14.1-allreduce-jagged-wrong.txt", &r)) {
		T_INTEQ(r.wrong_total, 12, "12 wrong elements in one in-place row");
		T_OK(r.rows[19].p[NCCL_INP].wrong == 12 && r.rows[19].p[NCCL_OOP].wrong == 0, "attributed to in-place");
		double ws, wd;
		int d = nccl_jagged(&r, 1048576, 0.1, &ws, &wd);
		T_INTEQ(d, 3, "three dips below the best smaller size");
		T_OK(ws == 268435456.0 && near(wd, 0.435, 0.005), "deepest dip at 256 MiB, 43.5%%");
		nccl_result_free(&r);
	}
	if (!load("nccl-2.14.1-allreduce-aborted.txt", &r)) {
		T_OK(r.failed && r.error && strstr(r.error, "Test NCCL failure"), "aborted: failure line kept");
		T_OK(!r.concluded && isnan(r.avg_busbw) && r.oob == -1, "aborted: no footer");
		T_INTEQ((long)r.nrows, 13, "aborted: rows before the failure");
		nccl_result_free(&r);
	}
}

static void test_json(void)
{
	struct nccl_result r;
	if (load("nccl-2.17.9-allreduce-2x8.json", &r))
		return;
	T_OK(r.from_json, "JSON detected");
	T_STREQ(r.collective, "all_reduce", "collective from args[0]");
	T_STREQ(r.version, "2", "file format version");
	T_STREQ(r.nccl_version, "22704", "nccl_version as a number");
	T_OK(r.nranks == 16 && r.nhosts == 2, "devices[]: 16 ranks on 2 hosts");
	T_INTEQ((long)r.nrows, 32, "32 results");
	T_OK(r.rows[31].p[NCCL_OOP].busbw > 360 && r.rows[31].p[NCCL_INP].present, "bus_bw of both placements");
	T_INTEQ(r.wrong_total, 0, "nwrong 0");
	T_OK(r.concluded && !r.avg_failed && r.oob == 0 && !isnan(r.avg_busbw), "end_time, okay unchecked, oob");
	nccl_result_free(&r);
	if (load("nccl-2.17.9-allreduce-unchecked-partial.json", &r))
		return;
	T_OK(r.wrong_total == -1 && r.rows[3].p[NCCL_OOP].wrong == -1, "nwrong null -> unchecked");
	T_OK(!r.concluded && r.nrows == 20, "no end_time: partial run");
	nccl_result_free(&r);
}

static void test_nccl_garbage(void)
{
	struct nccl_result r;
	char *err = NULL;
	T_OK(nccl_parse("hello\nworld\n", 12, &r, &err) == -1 && err, "no table -> error");
	free(err);
	err = NULL;
	T_OK(nccl_parse("{\"results\": 3}", 14, &r, &err) == -1 && err, "JSON without results[] -> error");
	free(err);
	err = NULL;
	T_OK(nccl_parse("{\"results\": [", 13, &r, &err) == -1 && err, "truncated JSON -> error");
	free(err);
	err = NULL;
	T_OK(nccl_parse(NULL, 0, &r, &err) == -1, "NULL -> error");
	free(err);
	err = NULL;
	const char *hl = "        1024           256     float     sum      -1    38.01    0.03    0.05       0    38.39    0.03    0.05       3*\n";
	T_OK(nccl_parse(hl, strlen(hl), &r, &err) == 0 && r.nrows == 1, "headerless row parses by token count");
	T_OK(r.rows[0].p[NCCL_INP].wrong == 3 && r.rows[0].p[NCCL_INP].flagged && r.flagged == 1, "asterisk glued to #wrong");
	nccl_result_free(&r);
	const char *odd = "{\"results\":[{\"size\":\"x\",\"out_of_place\":{\"bus_bw\":\"fast\",\"nwrong\":-4}},7],"
			  "\"config\":{\"devices\":[{\"hostname\":5}]},\"errors\":[\"boom\",{\"message\":\"m\"}]}";
	T_OK(nccl_parse(odd, strlen(odd), &r, &err) == 0, "wrong JSON types tolerated");
	T_OK(isnan(r.rows[0].size) && isnan(r.rows[0].p[NCCL_OOP].busbw) && r.rows[0].p[NCCL_OOP].wrong == -1,
	     "wrong types -> unknown");
	T_OK(r.failed && !strcmp(r.error, "boom"), "errors[] -> failed");
	nccl_result_free(&r);
	free(err);
	T_OK(nccl_busbw_factor("all_reduce", 1) == 0, "one rank: factor 0 (nccl-tests #294)");
	T_OK(isnan(nccl_busbw_factor("frobnicate", 8)), "unknown collective: NAN");
	T_OK(nccl_busbw_factor("sendrecv", 8) == 1, "sendrecv: 1");
}

static int ptload(const char *name, struct pt_report *r)
{
	size_t len = 0;
	char *t = slurp(name, &len), *err = NULL;
	if (!T_OK(t != NULL, "%s: readable", name))
		return -1;
	int rc = pt_parse(t, len, r, &err);
	T_OK(rc == 0, "%s: parsed%s%s", name, err ? ": " : "", err ? err : "");
	free(err);
	free(t);
	return rc;
}

static void test_perftest(void)
{
	struct pt_report r;
	double at;
	if (!ptload("perftest-4.5-write-bw-gbits-ndr.txt", &r)) {
		T_OK(r.kind == PT_BW && r.units_gbits && !r.units_mib, "4.5: BW test in Gb/sec");
		T_STREQ(r.test, "RDMA_Write BW Test", "test name");
		T_STREQ(r.device, "mlx5_0", "device from the two-column banner");
		T_STREQ(r.link_type, "IB", "link type");
		T_OK(r.mtu == 4096 && r.qps == 1, "MTU and QPs");
		T_OK(r.nrows == 1 && r.rows[0].bytes == 65536 && r.rows[0].iters == 5000, "one 64 KiB row");
		T_OK(near(r.rows[0].peak_gbps, 392.41, 1e-9) && near(r.rows[0].avg_gbps, 391.87, 1e-9) &&
		     near(r.rows[0].msgrate_mpps, 0.747437, 1e-9), "peak, average, MsgRate");
		T_OK(near(pt_best_avg_gbps(&r, 65536, 1048576, &at), 391.87, 1e-9), "best average in 64 KiB..1 MiB");
		pt_report_free(&r);
	}
	if (!ptload("perftest-3.4-write-bw-mb-hdr.txt", &r)) {
		T_OK(r.units_mib && !r.units_gbits, "3.4: MB/sec is MiB/s");
		T_OK(near(r.rows[0].avg_gbps, 23475.02 / 119.2093, 0.01), "MB/sec -> Gb/s with perftest's 119.2");
		T_STREQ(r.device, "mlx5_3", "3.4 device");
		pt_report_free(&r);
	}
	if (!ptload("perftest-23.04-read-bw-all-roce.txt", &r)) {
		T_OK(r.units_mib && r.nrows == 23, "23.04: MiB/sec, -a gives 23 rows (2 B .. 8 MiB)");
		T_STREQ(r.link_type, "Ethernet", "RoCE link");
		T_STREQ(r.test, "RDMA_Read BW Test", "read test");
		double b = pt_best_avg_gbps(&r, 65536, 1048576, &at);
		T_OK(b > 300 && at == 1048576, "best in 64 KiB..1 MiB is at 1 MiB");
		pt_report_free(&r);
	}
	if (!ptload("perftest-4.5-write-lat.txt", &r)) {
		T_OK(r.kind == PT_LAT && r.nrows == 1, "latency test, one row");
		T_OK(near(r.rows[0].t_typical, 1.01, 1e-9) && near(r.rows[0].p99, 1.10, 1e-9) && near(r.rows[0].p999, 4.12, 1e-9),
		     "typical, p99, p99.9");
		T_OK(isnan(r.rows[0].avg_gbps), "no bandwidth on a latency row");
		pt_report_free(&r);
	}
	if (!ptload("perftest-2.x-write-lat-old.txt", &r)) {
		T_OK(r.kind == PT_LAT && near(r.rows[0].t_typical, 1.25, 1e-9) && isnan(r.rows[0].p99),
		     "old latency table: 5 columns, no percentiles");
		pt_report_free(&r);
	}
	if (!ptload("perftest-connect-refused.txt", &r)) {
		T_OK(r.nrows == 0 && r.error && strstr(r.error, "Couldn't connect"), "connection failure kept");
		pt_report_free(&r);
	}
	char *err = NULL;
	T_OK(pt_parse("nothing here\n", 13, &r, &err) == -1 && err, "no report -> error");
	free(err);
	err = NULL;
	T_OK(pt_parse(NULL, 0, &r, &err) == -1, "NULL -> error");
	free(err);
}

int main(void)
{
	test_allreduce_2x8();
	test_other_versions();
	test_json();
	test_nccl_garbage();
	test_perftest();
	return t_done();
}
