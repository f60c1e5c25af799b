/* src/store/diff.c: the direction table, status moves, row matching (id +
 * host, then a lone id on another host), figure tolerance, kinds. Every
 * expectation is worked out from the documents written here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "core/jsonget.h"
#include "store/diff.h"

static json_t *doc(const char *text)
{
	json_error_t je;
	json_t *v = json_loads(text, 0, &je);
	if (!v) {
		printf("# bad test document: %s: %s\n", je.text, text);
		abort();
	}
	return v;
}

/* the entry of arr whose id (and path when given) match, or NULL */
static const json_t *entry(const json_t *arr, const char *id, const char *path)
{
	size_t i;
	const json_t *e;
	json_array_foreach(arr, i, e) {
		const char *eid = jget_str(e, "id");
		if (eid && !strcmp(eid, id) && (!path || !strcmp(jget_str_or(e, "path", ""), path)))
			return e;
	}
	return NULL;
}

static void directions(void)
{
	static const struct {
		const char *path;
		enum diff_dir want;
	} cases[] = {
		{ "observed.bw_gb_s", DIFF_HIGHER_BETTER },          /* GB/s, not the _s of seconds */
		{ "observed.bw_bytes_per_s", DIFF_HIGHER_BETTER },
		{ "observed.iops", DIFF_HIGHER_BETTER },
		{ "observed.busbw_gb_s", DIFF_HIGHER_BETTER },
		{ "observed.busbw_line_ratio", DIFF_HIGHER_BETTER },
		{ "score", DIFF_HIGHER_BETTER },
		{ "observed.clat_ns.p99", DIFF_LOWER_BETTER },       /* p99 is a statistic of clat_ns */
		{ "observed.clat_ns.p99.9", DIFF_LOWER_BETTER },     /* the key "p99.9" splits into p99 and 9 */
		{ "observed.latency_64k_us", DIFF_LOWER_BETTER },
		{ "observed.cold_s", DIFF_LOWER_BETTER },
		{ "observed.degradation_pct", DIFF_LOWER_BETTER },
		{ "observed.drift_pct", DIFF_LOWER_BETTER },
		{ "observed.duration_ms", DIFF_LOWER_BETTER },       /* "duration" holds "ratio": not higher */
		{ "observed.errors", DIFF_LOWER_BETTER },
		{ "observed.bw_stddev", DIFF_DIR_UNKNOWN },          /* only an exact "stddev" leaf is a spread */
		{ "observed.bw.stddev", DIFF_LOWER_BETTER },
		{ "observed.clients", DIFF_DIR_UNKNOWN },
		{ "observed.iodepth", DIFF_DIR_UNKNOWN },
		{ "observed.io_bytes", DIFF_DIR_UNKNOWN },
		{ "observed.gpus.max", DIFF_DIR_UNKNOWN },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		T_INTEQ(diff_direction(cases[i].path), cases[i].want, "direction of %s", cases[i].path);
}

static void statuses(void)
{
	T_STREQ(diff_status_change("PASS", "FAIL"), "worse", "PASS -> FAIL is worse");
	T_STREQ(diff_status_change("PASS", "WARN"), "worse", "PASS -> WARN is worse");
	T_STREQ(diff_status_change("WARN", "FAIL"), "worse", "WARN -> FAIL is worse");
	T_STREQ(diff_status_change("FAIL", "WARN"), "better", "FAIL -> WARN is better");
	T_STREQ(diff_status_change("WARN", "PASS"), "better", "WARN -> PASS is better");
	T_STREQ(diff_status_change("PASS", "PASS"), "same", "PASS -> PASS is the same");
	T_STREQ(diff_status_change("PASS", "SKIP"), "unknown", "PASS -> SKIP says nothing");
	T_STREQ(diff_status_change("SKIP", "FAIL"), "unknown", "SKIP -> FAIL says nothing");
	T_STREQ(diff_status_change("FAIL", "ERROR"), "unknown", "FAIL -> ERROR says nothing");
	T_STREQ(diff_status_change("PASS", "INCOMPLETE"), "unknown", "accept's INCOMPLETE is unknown");
	T_STREQ(diff_status_change(NULL, "PASS"), "unknown", "no status is unknown");
}

static void kinds(void)
{
	json_t *a = doc("{\"schema\":\"cmax.audit.results/1\"}"), *b = doc("{\"schema\":\"cmax.bench.results/1\","
									"\"benchmark\":\"storage\"}"),
	       *c = doc("{\"schema\":\"cmax.bench.results/1\",\"benchmark\":\"net\"}"),
	       *i = doc("{\"schema\":\"cmax.inject/1\"}"), *none = doc("{\"results\":[]}");
	char *k = diff_kind(a);
	T_STREQ(k, "audit", "audit kind");
	free(k);
	k = diff_kind(b);
	T_STREQ(k, "bench.storage", "bench kind carries the benchmark");
	free(k);
	k = diff_kind(i);
	T_STREQ(k, "inject", "inject kind");
	free(k);
	T_OK(diff_kind(none) == NULL, "no schema: no kind");
	json_t *out = NULL;
	char *why = NULL;
	T_INTEQ(store_diff(b, c, 0.02, 0, &out, &why), CE_USAGE, "bench storage vs bench net: refused");
	T_OK(why && strstr(why, "bench.storage") && strstr(why, "bench.net"), "the refusal names both kinds: %s",
	     why ? why : "");
	T_OK(out == NULL, "no diff made");
	free(why);
	why = NULL;
	T_INTEQ(store_diff(a, none, 0.02, 0, &out, &why), CE_DATA, "a document without schema: data error");
	free(why);
	json_decref(a);
	json_decref(b);
	json_decref(c);
	json_decref(i);
	json_decref(none);
}

#define ROW(id, st, host, obs) \
	"{\"id\":\"" id "\",\"status\":\"" st "\",\"host\":\"" host "\",\"summary\":\"" st " " id "\"," \
	"\"observed\":" obs "}"
#define BENCH(rows) "{\"schema\":\"cmax.bench.results/1\",\"benchmark\":\"storage\",\"results\":[" rows "]}"

static void rows_and_figures(void)
{
	json_t *a = doc(BENCH(ROW("bench.r", "PASS", "n1", "{\"bw_gb_s\":5.0,\"clat_ns\":{\"p99\":1000}}") ","
			      ROW("bench.w", "FAIL", "n1", "{\"bw_gb_s\":1.0}") ","
			      ROW("bench.s", "PASS", "n1", "{\"iops\":100}") ","
			      ROW("bench.gone", "WARN", "n1", "{}") ","
			      ROW("bench.same", "PASS", "n1", "{\"bw_gb_s\":2.0,\"clients\":4}")));
	json_t *b = doc(BENCH(ROW("bench.r", "FAIL", "n1", "{\"bw_gb_s\":0.42,\"clat_ns\":{\"p99\":1010}}") ","
			      ROW("bench.w", "WARN", "n1", "{\"bw_gb_s\":1.5}") ","
			      ROW("bench.s", "SKIP", "n1", "{\"iops\":100}") ","
			      ROW("bench.new", "PASS", "n1", "{}") ","
			      ROW("bench.same", "PASS", "n1", "{\"bw_gb_s\":2.01,\"clients\":8}")));
	json_t *d = NULL;
	char *why = NULL;
	T_INTEQ(store_diff(a, b, 0.02, 0, &d, &why), CE_OK, "diff made");
	const json_t *rows = json_object_get(d, "rows"), *figs = json_object_get(d, "figures");
	T_STREQ(jget_str(d, "schema"), "cmax.runs.diff/1", "schema");
	T_STREQ(jget_str(entry(rows, "bench.r", NULL), "change"), "worse", "PASS -> FAIL row is worse");
	T_STREQ(jget_str(entry(rows, "bench.r", NULL), "summary_b"), "FAIL bench.r", "the new summary kept");
	T_STREQ(jget_str(entry(rows, "bench.w", NULL), "change"), "better", "FAIL -> WARN row is better");
	T_STREQ(jget_str(entry(rows, "bench.s", NULL), "change"), "unknown", "PASS -> SKIP row is unknown");
	T_STREQ(jget_str(entry(rows, "bench.gone", NULL), "change"), "removed", "a row only in a is removed");
	T_STREQ(jget_str(entry(rows, "bench.new", NULL), "change"), "added", "a row only in b is added");
	T_OK(!entry(rows, "bench.same", NULL), "an unchanged row is not listed without DIFF_ALL");
	/* 5.0 -> 0.42: (0.42 - 5) / 5 = -0.916, a bandwidth: worse */
	const json_t *f = entry(figs, "bench.r", "observed.bw_gb_s");
	T_STREQ(jget_str(f, "change"), "worse", "bandwidth down is worse");
	T_OK(f && fabs(jget_num(f, "relative", 0) + 0.916) < 1e-9, "relative change -0.916");
	T_STREQ(jget_str(f, "direction"), "higher", "direction named");
	/* 1000 -> 1010: 1010 - 1000 over 1010 = 0.0099, under 2 % */
	T_OK(!entry(figs, "bench.r", "observed.clat_ns.p99"), "a 1%% latency move is within the tolerance");
	T_STREQ(jget_str(entry(figs, "bench.w", "observed.bw_gb_s"), "change"), "better", "1.0 -> 1.5 GB/s is better");
	T_OK(!entry(figs, "bench.same", "observed.bw_gb_s"), "2.0 -> 2.01 GB/s (0.5 %%) is the same");
	T_STREQ(jget_str(entry(figs, "bench.same", "observed.clients"), "change"), "changed",
		"clients 4 -> 8: no direction known, changed");
	const json_t *rc = json_object_get(json_object_get(d, "counts"), "rows");
	T_INTEQ(jget_int(rc, "worse", -1), 1, "one row worse");
	T_INTEQ(jget_int(rc, "better", -1), 1, "one row better");
	T_INTEQ(jget_int(rc, "same", -1), 1, "one row the same");
	/* rows: worse, better, unknown, added, removed = 5; figures: worse, better, changed = 3 */
	T_INTEQ(jget_int(d, "differences", -1), 8, "eight differences");
	json_decref(d);
	T_INTEQ(store_diff(a, b, 0.02, DIFF_ALL, &d, &why), CE_OK, "diff --all made");
	T_STREQ(jget_str(entry(json_object_get(d, "rows"), "bench.same", NULL), "change"), "same",
		"with DIFF_ALL the unchanged row is listed");
	json_decref(d);
	T_INTEQ(store_diff(a, a, 0.02, 0, &d, &why), CE_OK, "a run against itself");
	T_INTEQ(jget_int(d, "differences", -1), 0, "no differences");
	T_INTEQ(json_array_size(json_object_get(d, "rows")), 0, "no rows listed");
	json_decref(d);
	json_decref(a);
	json_decref(b);
}

static void hosts(void)
{
	/* one node re-run on another: the lone id is the same row; two rows of
	 * one id on different hosts are matched by host only */
	json_t *a = doc(BENCH(ROW("bench.r", "PASS", "old", "{}") "," ROW("bench.m", "PASS", "x", "{}") ","
			      ROW("bench.m", "PASS", "y", "{}")));
	json_t *b = doc(BENCH(ROW("bench.r", "FAIL", "new", "{}") "," ROW("bench.m", "FAIL", "x", "{}") ","
			      ROW("bench.m", "PASS", "z", "{}")));
	json_t *d = NULL;
	char *why = NULL;
	T_INTEQ(store_diff(a, b, 0.02, 0, &d, &why), CE_OK, "diff made");
	const json_t *rows = json_object_get(d, "rows"), *r = entry(rows, "bench.r", NULL);
	T_STREQ(jget_str(r, "change"), "worse", "the moved row compared: PASS -> FAIL");
	T_STREQ(jget_str(r, "host"), "old", "host of a");
	T_STREQ(jget_str(r, "host_b"), "new", "host of b");
	const json_t *rc = json_object_get(json_object_get(d, "counts"), "rows");
	T_INTEQ(jget_int(rc, "worse", -1), 2, "bench.r and bench.m on x worse");
	T_INTEQ(jget_int(rc, "added", -1), 1, "bench.m on z added");
	T_INTEQ(jget_int(rc, "removed", -1), 1, "bench.m on y removed");
	json_decref(d);
	json_decref(a);
	json_decref(b);
}

static void rating(void)
{
	json_t *a = doc("{\"schema\":\"cmax.rate/1\",\"score\":3.5}");
	json_t *b = doc("{\"schema\":\"cmax.rate/1\",\"score\":2.8}");
	json_t *d = NULL;
	char *why = NULL;
	T_INTEQ(store_diff(a, b, 0.02, 0, &d, &why), CE_OK, "two ratings");
	const json_t *f = json_array_get(json_object_get(d, "figures"), 0);
	T_STREQ(jget_str(f, "path"), "score", "the score compared");
	T_STREQ(jget_str(f, "change"), "worse", "3.5 -> 2.8 is worse");
	json_decref(d);
	json_decref(a);
	json_decref(b);
}

int main(void)
{
	directions();
	statuses();
	kinds();
	rows_and_figures();
	hosts();
	rating();
	return t_done();
}
