/* nccl-tests and perftest parsing against recordings in tests/unit/net/.
 * The nccl-tests files are reconstructed from the printf and JSON writer
 * calls of NVIDIA/nccl-tests at the tags in their names (commits in
 * tests/unit/net/README.md): 1.0.0 (ms, "bytes N"), 2.11.0 (no root column,
 * "error" magnitude), 2.13.4 / 2.14.1 (no banner, "#wrong"), 2.19.3 with -c 0
 * (N/A), an aborted run; the -J file in format versions 1 (2.17.5, the
 * "bandwidith" keys), 2 (2.19.2, per-iteration, two cycles) and 3 (2.19.6)
 * checked row by row against the text table of the same run, a run that
 * died mid-sweep before (invalid JSON) and after (closed, no footer) the
 * 2.18.4 finalizer fix. The progress of a hung run (tests/unit/net/
 * gen-method-fixtures.py): rank geometry, device names and buses, the sweep
 * parameters, the last size printed and the one pending, a -J file cut at a
 * 4096-byte block and closed at its last complete value. perftest 2.x/3.x
 * (MB/sec), 4.5 (Gb/sec), 23.04 (MiB/sec, -a sweep), latency rows old and
 * new, and a connection failure. */
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
	T_OK(!r.collective && !r.version && !r.nccl_version, "2.14.1 prints no version or 'Collective test' banner");
	T_INTEQ(r.json_version, 0, "text, not JSON");
	T_INTEQ(r.nranks, 16, "16 ranks from the device lines");
	T_INTEQ(r.nhosts, 2, "2 hosts");
	T_STREQ(r.hosts[1], "gpu-a02", "second host");
	T_INTEQ((long)r.nrows, 32, "8 B .. 16 GiB = 32 rows");
	T_INTEQ(r.nsweeps, 1, "one sweep");
	T_OK(r.rows[31].size == 17179869184.0 && r.rows[31].count == 4294967296.0, "last row size and count");
	T_OK(near(r.rows[31].p[NCCL_OOP].busbw, 371.84, 0.001) && near(r.rows[31].p[NCCL_INP].busbw, 370.35, 0.001),
	     "both placements' busbw");
	T_OK(r.rows[31].p[NCCL_OOP].time_us == 86630 && r.rows[31].p[NCCL_INP].time_us == 86977,
	     "times from 10 ms print without decimals (%%7.0f)");
	T_OK(near(r.rows[30].p[NCCL_OOP].time_us, 43334, 1e-9), "43334 us");
	T_INTEQ(r.rows[0].root, -1, "root column");
	T_STREQ(r.rows[0].type, "float", "type");
	T_INTEQ(r.wrong_total, 0, "#wrong all zero");
	T_OK(near(r.avg_busbw, 135.164, 1e-9), "footer average busbw, %%g");
	T_OK(r.oob == 0 && !r.oob_failed && !r.avg_failed && r.concluded && !r.failed && !r.error, "footer OK, concluded");
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
	if (!load("nccl-1.0.0-allreduce-1x4.txt", &r)) {
		T_INTEQ((long)r.nrows, 25, "1.0.0: 8 B .. 128 MiB");
		T_OK(r.rows[24].size == 134217728.0 && r.rows[24].count == 33554432.0, "1.0.0: bytes and N columns");
		T_OK(near(r.rows[24].p[NCCL_OOP].time_us, 1717, 1e-9) && near(r.rows[24].p[NCCL_INP].time_us, 1714, 1e-9),
		     "1.0.0: milliseconds -> microseconds");
		T_OK(near(r.rows[24].p[NCCL_INP].busbw, 117.47, 1e-9), "1.0.0: in-place busbw");
		T_STREQ(r.rows[24].redop, "sum", "1.0.0: op column");
		T_OK(r.rows[24].p[NCCL_OOP].max_err == 4e-7 && r.rows[24].p[NCCL_OOP].wrong == -1, "1.0.0: res is a magnitude");
		T_OK(near(r.avg_busbw, 37.6668, 1e-9) && r.oob == 0 && r.concluded, "1.0.0: footer without '#'");
		T_OK(r.nranks == 4 && r.nhosts == 1 && !strcmp(r.hosts[0], "dgx1-07"), "1.0.0: 'Rank N on host' lines");
		T_INTEQ(r.wrong_total, -1, "1.0.0: no count of wrong elements");
		nccl_result_free(&r);
	}
	if (!load("nccl-2.13.4-allgather-1x8.txt", &r)) {
		T_OK(r.collective == NULL && r.version == NULL, "2.13: no banner lines");
		T_OK(r.concluded, "2.13: the Avg footer marks the end");
		T_INTEQ(r.nranks, 8, "2.13: 8 ranks");
		T_INTEQ(r.nhosts, 1, "2.13: one host");
		T_STREQ(r.rows[3].redop, "none", "all_gather redop none");
		T_OK(near(nccl_busbw_factor("all_gather", 8) * r.rows[31].p[NCCL_OOP].algbw, r.rows[31].p[NCCL_OOP].busbw, 0.02),
		     "all_gather busbw = algbw x (n-1)/n");
		nccl_result_free(&r);
	}
	if (!load("nccl-2.11.0-reducescatter-noroot.txt", &r)) {
		T_OK(r.version == NULL && r.collective == NULL, "2.11: no version line");
		T_INTEQ((long)r.nrows, 28, "2.11: 8 B .. 1 GiB");
		T_INTEQ(r.rows[0].root, -1, "2.11: no root column -> -1");
		T_OK(near(r.rows[27].p[NCCL_INP].busbw, 129.19, 1e-9) && near(r.rows[27].p[NCCL_INP].time_us, 7272.2, 1e-9),
		     "2.11: in-place columns mapped without root");
		T_OK(r.rows[27].p[NCCL_OOP].max_err == 0 && r.rows[27].p[NCCL_OOP].wrong == -1, "2.11: error magnitude, no count");
		T_INTEQ(r.wrong_total, -1, "2.11: no #wrong column -> unknown");
		T_OK(r.nranks == 8 && r.nhosts == 1, "2.11: 'Rank N Pid P on host' lines without Group");
		nccl_result_free(&r);
	}
	if (!load("nccl-2.19.3-alltoall-c0.txt", &r)) {
		T_STREQ(r.collective, "alltoall", "2.19 collective");
		T_STREQ(r.version, "2.19.3", "2.19 version line");
		T_STREQ(r.nccl_version, "22005", "nccl-library=");
		T_OK(r.nranks == 16 && r.nhosts == 2, "rank lines with a PCI domain");
		T_OK(r.rows[10].p[NCCL_OOP].wrong == -1 && r.rows[10].p[NCCL_INP].wrong == -1, "N/A in #wrong -> unchecked");
		T_INTEQ(r.wrong_total, -1, "-c 0: correctness unknown, not zero");
		T_OK(near(r.rows[31].p[NCCL_INP].busbw, 64.44, 1e-9), "N/A does not shift the other columns");
		T_OK(r.rows[0].size == 0 && r.rows[4].size == 0 && r.rows[5].size == 256 && r.nsweeps == 1,
		     "16 ranks: sizes under 16 x 16 B print as 0, one sweep");
		T_OK(r.concluded && !r.error, "blank line after the footer: no NCCL error");
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

/* |a - b| within half a unit of the last printed digit: the JSON has six
 * decimals, the table what getFloatStr() fitted into 7 (time) or 6 columns. */
static int printed_eq(double txt, double js, int width)
{
	double ulp = 0.01;
	if (fabs(js) >= (width == 7 ? 9999.995 : 999.995))
		ulp = 0.1;
	if (fabs(js) >= (width == 7 ? 99999.95 : 9999.95))
		ulp = 1;
	return !isnan(txt) && !isnan(js) && fabs(txt - js) <= ulp / 2 + 1e-6;
}

static int same_rows(const struct nccl_result *t, const struct nccl_result *j)
{
	if (t->nrows != j->nrows)
		return 0;
	for (size_t i = 0; i < t->nrows; i++) {
		const struct nccl_row *a = &t->rows[i], *b = &j->rows[i];
		if (a->size != b->size || a->count != b->count || a->root != b->root || strcmp(a->type, b->type) ||
		    strcmp(a->redop, b->redop) || a->sweep != b->sweep)
			return 0;
		for (int p = 0; p < NCCL__NPLACE; p++)
			if (!printed_eq(a->p[p].time_us, b->p[p].time_us, 7) || !printed_eq(a->p[p].algbw, b->p[p].algbw, 6) ||
			    !printed_eq(a->p[p].busbw, b->p[p].busbw, 6) || a->p[p].wrong != b->p[p].wrong)
				return 0;
	}
	return 1;
}

static double mean_busbw(const struct nccl_result *r)
{
	double s = 0;
	int n = 0;
	for (size_t i = 0; i < r->nrows; i++)
		for (int p = 0; p < NCCL__NPLACE; p++)
			if (r->rows[i].p[p].present)
				s += r->rows[i].p[p].busbw, n++;
	return n ? s / n : NAN;
}

static void test_json(void)
{
	struct nccl_result t, j;
	double at, at2;
	/* one 2.19.6 run: its stdout and its -J file (format version 3) */
	if (!load("nccl-2.19.6-allreduce-2x8.txt", &t)) {
		T_STREQ(t.version, "2.19.6", "2.19.6 text: version line");
		T_STREQ(t.collective, "all_reduce", "2.19.6 text: collective from the banner");
		if (!load("nccl-2.19.6-allreduce-2x8.json", &j)) {
			T_OK(j.from_json && j.json_version == 3, "JSON detected, file format version 3");
			T_OK(j.version == NULL, "the JSON carries no nccl-tests version ('version' is the file format)");
			T_STREQ(j.nccl_version, "22803", "nccl_version as a number");
			T_STREQ(j.collective, "all_reduce", "collective from args[0] (with \\/ escapes)");
			T_OK(j.nranks == 16 && j.nhosts == 2 && !strcmp(j.hosts[1], "gpu-a02"),
			     "devices[]: 16 processes x 1 thread x 1 GPU on 2 hosts");
			T_OK(j.rows[0].root == -1 && j.rows[31].root == -1, "root from the padded string \"    -1\"");
			T_OK(same_rows(&t, &j), "all 32 rows equal the table's to its printed precision");
			T_OK(near(j.rows[31].p[NCCL_OOP].busbw, 373.27131, 1e-9) && near(j.rows[31].p[NCCL_OOP].time_us, 86297.162092, 1e-9),
			     "JSON keeps six decimals");
			T_INTEQ(j.wrong_total, 0, "nwrong 0.000000");
			T_OK(j.oob == 0 && !j.oob_failed, "out_of_bounds {count 0, okay \"true\"}");
			T_OK(near(j.avg_busbw, 135.876289, 1e-9) && !j.avg_failed, "average_bus_bandwidth, okay \"unchecked\"");
			T_OK(near(j.avg_busbw, mean_busbw(&j), 1e-5), "footer average = mean busbw of both placements");
			T_OK(near(t.avg_busbw, 135.876, 1e-9), "the table prints it with %%g");
			T_OK(j.concluded && !j.failed && !j.error, "end_time; errors [\"\"] is no error");
			double pt = nccl_peak_busbw(&t, 1 << 30, &at), pj = nccl_peak_busbw(&j, 1 << 30, &at2);
			T_OK(printed_eq(pt, pj, 6) && at == at2, "same peak from either source");
			T_OK(near(nccl_peak_busbw(&j, 1 << 30, &at), 373.356239, 1e-9) && at == 8589934592.0, "peak (in-place, 8 GiB)");
			nccl_result_free(&j);
		}
		nccl_result_free(&t);
	}
	/* 2.17.5: format version 1 with the "bandwidith" keys; one process -g 8 */
	if (!load("nccl-2.17.5-allreduce-1x8-g8.json", &j)) {
		T_INTEQ(j.json_version, 1, "format version 1");
		T_OK(near(j.avg_busbw, 174.262431, 1e-9) && j.concluded, "average_bus_bandwidith / bandwidith read");
		T_OK(j.nranks == 8 && j.nhosts == 1, "one devices[] entry x ngpus 8 = 8 ranks");
		T_STREQ(j.collective, "all_reduce", "collective from ./build/all_reduce_perf");
		T_INTEQ((long)j.nrows, 31, "8 B .. 8 GiB");
		nccl_result_free(&j);
	}
	/* 2.19.2 -I 1 -N 2: per-iteration columns and objects, two cycles */
	if (!load("nccl-2.19.2-allgather-periter-2x8.txt", &t)) {
		T_OK(t.nrows == 14 && t.nsweeps == 2 && t.rows[7].sweep == 1 && t.rows[7].size == 1048576,
		     "-N 2: two sweeps of 7 sizes");
		T_OK(near(t.rows[0].p[NCCL_INP].busbw, 20.97, 1e-9) && near(t.rows[0].p[NCCL_INP].time_us, 46.88, 1e-9),
		     "in-place found past the i_min .. i_cv%% columns");
		double ws, wd;
		T_INTEQ(nccl_jagged(&t, 1048576, 0.1, &ws, &wd), 0, "the second cycle's restart is not a dip");
		if (!load("nccl-2.19.2-allgather-periter-2x8.json", &j)) {
			T_INTEQ(j.json_version, 2, "format version 2");
			T_OK(j.nranks == 16 && j.nhosts == 2 && t.nranks == 16, "2 processes x 8 GPUs = 16 ranks (text agrees)");
			T_STREQ(j.rows[0].redop, "none", "all_gather redop");
			T_OK(same_rows(&t, &j), "14 rows equal the table's; *_per_iter objects ignored");
			T_INTEQ(nccl_jagged(&j, 1048576, 0.1, &ws, &wd), 0, "JSON: no dip either");
			T_OK(near(j.avg_busbw, mean_busbw(&j), 1e-5), "average over both cycles");
			nccl_result_free(&j);
		}
		nccl_result_free(&t);
	}
	/* -c 0 and a death mid-sweep, closed by the 2.18.4+ finalizer */
	if (!load("nccl-2.19.6-allreduce-unchecked-partial.json", &j)) {
		T_OK(j.wrong_total == -1 && j.rows[3].p[NCCL_OOP].wrong == -1, "nwrong null -> unchecked");
		T_OK(!j.concluded && j.nrows == 20 && isnan(j.avg_busbw) && j.oob == -1, "no footer objects, no end_time");
		T_OK(j.rows[19].p[NCCL_OOP].present && !j.rows[19].p[NCCL_INP].present, "last result: out-of-place only");
		T_OK(!j.failed, "the exit status, not the file, says it failed");
		nccl_result_free(&j);
	}
	size_t len = 0;
	char *txt = slurp("nccl-2.18.3-allreduce-early-error.json", &len), *err = NULL;
	T_OK(txt && nccl_parse(txt, len, &j, &err) == 0 && j.truncated && j.nrows == 20 && !j.concluded,
	     "2.18.3 early error: unterminated JSON closed at its last complete result");
	if (txt && !err)
		nccl_result_free(&j);
	free(err);
	free(txt);
}

/* What a hung run leaves: the geometry and the last size it printed. */
static void test_progress(void)
{
	struct nccl_result r;
	int uni = 0;
	if (!load("nccl-2.19.6-alltoall-4x8-b200-efa.txt", &r)) {
		T_OK(r.nranks == 32 && r.nhosts == 4 && nccl_ranks_per_host(&r, &uni) == 8 && uni, "4 hosts x 8 ranks");
		T_STREQ(r.gpu_name, "NVIDIA B200", "device name from the rank lines");
		T_OK(!r.gpu_names_mixed && r.nbus == 8 && r.bus[0] == 0x12 && r.bus_domain[0] == 0 && r.bus[7] == 0xda,
		     "the first host's buses in rank order");
		T_OK(r.min_bytes == 8 && r.max_bytes == 17179869184.0 && r.step_factor == 2 && isnan(r.step_bytes) &&
		     r.warmup_iters == 1, "sweep parameters from the nThread line");
		T_OK(r.started && r.table_started && r.concluded && r.nsweeps == 1 && r.nrows == 32, "a complete run");
		T_OK(r.rows[5].size == 0 && r.rows[6].size == 512, "32 ranks: the first six sizes print as 0");
		T_OK(nccl_last_size(&r) == 17179869184.0 && isnan(nccl_pending_size(&r)), "complete: nothing pending");
		double at;
		T_OK(near(nccl_peak_busbw(&r, 1 << 30, &at), 59.44, 1e-9) && at == 17179869184.0, "59.44 GB/s at 16 GiB");
		T_OK(near(nccl_time_at(&r, 65536, &at), 47.47, 1e-9), "47.47 us at 64 KiB");
		nccl_result_free(&r);
	}
	if (!load("nccl-2.14.1-allgather-4x8-hang-32k.txt", &r)) {
		T_OK(r.started && r.table_started && !r.concluded && r.nrows == 12, "hang: 12 rows (8 B .. 16 KiB), no footer");
		T_OK(nccl_last_size(&r) == 16384 && nccl_pending_size(&r) == 32768, "last 16 KiB, pending 32 KiB");
		T_OK(r.nbus == 8 && r.bus[1] == 0x2a && r.bus_domain[1] == 0 && nccl_ranks_per_host(&r, &uni) == 8,
		     "2.14.1 rank lines: domain:bus:device");
		nccl_result_free(&r);
	}
	if (!load("nccl-2.19.6-alltoall-4x8-hang-warmup.txt", &r)) {
		T_OK(r.started && r.table_started && r.nrows == 0 && r.warmup_iters == 1 && isnan(nccl_last_size(&r)),
		     "hung in the warm-up: header, no row");
		T_OK(nccl_pending_size(&r) == 8, "nothing printed: the first size is pending");
		nccl_result_free(&r);
	}
	const char *hdr = "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 1048576(bytes) warmup iters: 5 iters: 20\n"
			  "#\n# Using devices\n#  Rank  0 Group  0 Pid   1 on    n1 device  0 [0x18] NVIDIA H100 80GB HBM3\n";
	char *err = NULL;
	T_OK(nccl_parse_text(hdr, strlen(hdr), &r, &err) == 0 && r.started && !r.table_started && r.nrows == 0,
	     "parameters and rank lines only: started, NCCL not initialised");
	T_OK(r.step_bytes == 1048576 && isnan(r.step_factor) && r.bus[0] == 0x18 && r.bus_domain[0] == -1,
	     "step in bytes; an old [0x18] bus id has no domain");
	T_OK(nccl_pending_size(&r) == 1048576, "pending: minBytes");
	nccl_result_free(&r);
	/* the -J file of the same kind of hang, cut at a 4096-byte block mid-row */
	if (!load("nccl-2.19.6-alltoall-4x8-w0-hang-32k.json", &r)) {
		T_OK(r.from_json && r.truncated && r.started && !r.concluded, "cut -J file: closed, started");
		T_OK(r.nrows == 12 && r.rows[11].size == 16384 && r.rows[11].p[NCCL_OOP].present &&
		     !r.rows[11].p[NCCL_INP].present, "its last complete value: 16 KiB out-of-place");
		T_OK(nccl_pending_size(&r) == 32768 && r.warmup_iters == 0, "pending 32 KiB; -w 0");
		T_OK(r.nranks == 32 && nccl_ranks_per_host(&r, &uni) == 8 && uni && r.nbus == 8 && r.bus[2] == 0x3a,
		     "devices[]: 4 hosts x 8 ranks, buses of the first host");
		nccl_result_free(&r);
	}
	const char *cut = "{\"version\":3,\"config\":{\"nthreads\":1,\"ngpus\":1,\"minimum_bytes\":8,\"devices\":[{\"rank\":0,"
			  "\"hostname\":\"a\",\"device_hex\":\"0000:18:00\",\"device_info\":\"NVIDIA H100\"},{\"rank\":1,\"hostn";
	T_OK(nccl_parse_json(cut, strlen(cut), &r, &err) == 0 && r.truncated && r.started && r.nrows == 0 && r.nhosts == 1,
	     "cut before results[]: started, no rows");
	nccl_result_free(&r);
	const char *str = "{\"results\":[{\"size\":8,\"type\":\"a}]\\\"\"},{\"size\":16";
	T_OK(nccl_parse_json(str, strlen(str), &r, &err) == 0 && r.truncated && r.nrows == 1 && !strcmp(r.rows[0].type, "a}]\""),
	     "brackets and escapes inside strings do not count");
	nccl_result_free(&r);
	T_OK(nccl_parse_json("{\"a\":1}}", 8, &r, &err) == -1 && err, "extra closer: an error, not a repair");
	free(err);
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
	const char *star = "        1024           256     float     sum      -1    38.01    0.03    0.05     N/A *  38.39    0.03    0.05     N/A\n";
	T_OK(nccl_parse(star, strlen(star), &r, &err) == 0 && r.rows[0].p[NCCL_OOP].flagged && r.wrong_total == -1,
	     "a lone asterisk is no wrong element");
	nccl_result_free(&r);
	const char *ts = "     1048576        262144     float     sum      -1   43.29   24.22   45.42       0   43.69   24.00   45.00       0  2026-07-10 10:14:09\n"
			 "     1048576         16384     float    none      -1    46.51   22.55   21.14       0    46.32    46.71    46.71     0.26    46.88   22.36   20.97       0    46.70    47.02    47.02     0.18\n"
			 "     1048576         32768     float   43.29   24.22   45.42  0e+00   43.69   24.00   45.00  0e+00\n";
	T_OK(nccl_parse(ts, strlen(ts), &r, &err) == 0 && r.nrows == 3, "headerless: -S timestamp, -I 1, 2.x all_gather");
	T_OK(near(r.rows[0].p[NCCL_INP].busbw, 45.00, 1e-9) && r.rows[0].root == -1, "timestamp row: lead 5");
	T_OK(near(r.rows[1].p[NCCL_INP].busbw, 20.97, 1e-9) && near(r.rows[1].p[NCCL_INP].time_us, 46.88, 1e-9),
	     "per-iteration row: in-place after the i_* columns");
	T_OK(near(r.rows[2].p[NCCL_OOP].time_us, 43.29, 1e-9) && near(r.rows[2].p[NCCL_INP].busbw, 45.00, 1e-9) &&
	     !r.rows[2].redop[0], "no redop column: lead 3");
	nccl_result_free(&r);
	const char *warn = "# Collective test starting: all_reduce_perf_mpi\n"
			   "gpu-a01:1234:1234 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n"
			   "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
			   "        1024           256     float     sum      -1    38.01    0.03    0.05       0    38.39    0.03    0.05       0\n"
			   "# Avg bus bandwidth    : 0.05 \n#\n# error: NET/IB : Got async event : port error\n";
	T_OK(nccl_parse(warn, strlen(warn), &r, &err) == 0, "NCCL WARN lines in the table");
	T_STREQ(r.collective, "all_reduce", "NAME_SUFFIX _mpi cut");
	T_OK(!r.failed && r.error && !strcmp(r.error, "NET/IB : Got async event : port error"),
	     "NCCL WARN and '# error:' are notes, not failures");
	nccl_result_free(&r);
	const char *fl = "# error: last warn\n 8 2 float sum -1 1.0 0.0 0.0 0 1.0 0.0 0.0 0\n .. gpu-a02 pid 7: Test failure common.cu:1\n";
	T_OK(nccl_parse(fl, strlen(fl), &r, &err) == 0 && r.failed && strstr(r.error, "Test failure"),
	     "a failure line outranks the note");
	nccl_result_free(&r);
	const char *odd = "{\"version\":\"x\",\"results\":[{\"size\":\"x\",\"root\":\"  3\",\"out_of_place\":{\"bus_bw\":\"fast\",\"nwrong\":-4},"
			  "\"in_place\":{\"time\":\"nan\",\"nwrong\":\"nan\"}},7,{\"out_of_place\":null}],"
			  "\"config\":{\"nthreads\":1,\"devices\":[{\"hostname\":5}]},\"out_of_bounds\":{\"count\":2,\"okay\":\"false\"},"
			  "\"average_bus_bandwidth\":{\"bandwidth\":\"nan\",\"okay\":\"false\"},\"errors\":[\"\",\"boom\",{}]}";
	const char *win = "{\"args\":[\"C:\\\\nccl-tests\\\\bin\\\\alltoall_perf.exe\"],\"results\":[{\"size\":8}]}";
	T_OK(nccl_parse(win, strlen(win), &r, &err) == 0 && !strcmp(r.collective, "alltoall") && r.nrows == 1,
	     "Windows argv[0]");
	nccl_result_free(&r);
	const char *early = "{\"version\":3,\"config\":{},\"results\":[]}";
	T_OK(nccl_parse(early, strlen(early), &r, &err) == -1 && err && strstr(err, "no result"),
	     "closed before the first result -> error (stdout has the reason)");
	free(err);
	err = NULL;
	T_OK(nccl_parse(odd, strlen(odd), &r, &err) == 0, "wrong JSON types tolerated");
	T_OK(isnan(r.rows[0].size) && isnan(r.rows[0].p[NCCL_OOP].busbw) && r.rows[0].p[NCCL_OOP].wrong == -1 &&
	     r.rows[0].root == 3, "wrong types -> unknown; root string parsed");
	T_OK(r.rows[0].p[NCCL_INP].present && isnan(r.rows[0].p[NCCL_INP].time_us) && r.rows[0].p[NCCL_INP].wrong == -1,
	     "\"nan\" -> unknown");
	T_OK(r.nrows == 2 && !r.rows[1].p[NCCL_OOP].present, "out_of_place null -> absent");
	T_OK(r.nranks == 0 && r.json_version == 0, "no ngpus -> ranks unknown; string version ignored");
	T_OK(r.oob == 2 && r.oob_failed && r.avg_failed && isnan(r.avg_busbw), "okay \"false\" strings");
	T_OK(!r.failed && !strcmp(r.error, "boom"), "errors[]: first non-empty string kept as a note");
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
	test_progress();
	test_allreduce_2x8();
	test_other_versions();
	test_json();
	test_nccl_garbage();
	test_perftest();
	return t_done();
}
