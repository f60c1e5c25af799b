/* The section of a benchmark document (cmax.bench.results/1): the
 * nccl-tests busbw curve per collective against the line rate the
 * document graded it on, storage throughput and p99 latency against
 * clients or nodes, and bandwidth over time of the endurance phases
 * (storage and S3). Only what the document holds is drawn: a figure it
 * lacks is "not measured"; dips are the ones the benchmark itself flagged
 * (observed.jagged_worst_at_bytes when observed.jagged_dips > 0). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonget.h"
#include "core/strbuf.h"
#include "results/report.h"

/* "seq-read-1m-direct" from "bench.storage-seq-read-1m-direct-c4" */
static char *test_name(const char *id, const char *prefix)
{
	const char *s = str_starts(id, prefix) ? id + strlen(prefix) : id;
	const char *dash = strrchr(s, '-');
	size_t n = strlen(s);
	if (dash && (dash[1] == 'c' || dash[1] == 'n') && dash[2] >= '0' && dash[2] <= '9' &&
	    strspn(dash + 2, "0123456789") == strlen(dash + 2))
		n = (size_t)(dash - s);
	return xstrndup(s, n);
}

/* ---- nccl-tests ---- */

static void nccl_row(struct rchart *c, const json_t *row, const json_t *o)
{
	const json_t *curve = json_object_get(o, "curve_size_time_us_busbw_oop_inp");
	long long ranks = jget_int(o, "ranks", -1);
	char *name = ranks > 0 ? xasprintf("%lld ranks (%s)", ranks, jget_str_or(row, "host", "?"))
			       : xstrdup(jget_str_or(row, "id", "?"));
	size_t s = rchart_series(c, name);
	free(name);
	double dip_at = jget_int(o, "jagged_dips", 0) > 0 ? rpt_num(json_object_get(o, "jagged_worst_at_bytes")) : NAN;
	size_t i;
	const json_t *pt;
	json_array_foreach(curve, i, pt) {
		char *x = rpt_raw(json_array_get(pt, 0)), *y = rpt_raw(json_array_get(pt, 2));
		double xv = rpt_num(json_array_get(pt, 0));
		struct rchart_mark *m = rchart_add(c, s, xv, rpt_num(json_array_get(pt, 2)), x, y);
		m->flag = xv == dip_at;
		free(x);
		free(y);
	}
	const json_t *line = json_object_get(o, "line_rate_gb_s");
	char *lr = rpt_raw(line);
	if (lr && json_is_number(line)) {
		char *label = xasprintf("line rate %s GB/s (%s)", lr, jget_str_or(o, "bound", "bound"));
		rchart_ref(c, json_number_value(line), lr, label);
		free(label);
	}
	free(lr);
}

static void nccl_charts(struct rpt *r, const json_t *rows)
{
	/* one chart per collective, in the order the document has them */
	const char *done[64];
	size_t nd = 0, i, j;
	const json_t *row, *row2;
	json_array_foreach(rows, i, row) {
		const json_t *o = json_object_get(row, "observed");
		const char *coll = jget_str(o, "collective");
		if (!coll || !json_is_array(json_object_get(o, "curve_size_time_us_busbw_oop_inp")) || nd == 64)
			continue;
		size_t k;
		for (k = 0; k < nd && strcmp(done[k], coll); k++)
			;
		if (k < nd)
			continue;
		done[nd++] = coll;
		char *title = xasprintf("nccl-tests %s: bus bandwidth against message size", coll);
		struct rchart *c = rchart_new("nccl-busbw", RC_XY, title, "message size (bytes)", "busbw (GB/s)");
		free(title);
		c->xs = SVG_LOG2;
		c->xfmt = SVG_TICK_BYTES;
		json_array_foreach(rows, j, row2) {
			const json_t *o2 = json_object_get(row2, "observed");
			if (!strcmp(jget_str_or(o2, "collective", ""), coll) &&
			    json_is_array(json_object_get(o2, "curve_size_time_us_busbw_oop_inp")))
				nccl_row(c, row2, o2);
		}
		rchart_caption(c, "out-of-place busbw per size; dashed: the line rate the run was graded against; "
				  "ringed: the worst dip the benchmark flagged");
		rchart_emit(r, c);
	}
}

/* ---- storage ---- */

static int fio_row(const json_t *o)
{
	return json_is_object(o) && json_object_get(o, "rw") && json_object_get(o, "clients") &&
	       !json_object_get(o, "intervals");
}

static void storage_charts(struct rpt *r, const json_t *rows)
{
	size_t i, n = 0, with_nodes = 0;
	const json_t *row;
	json_array_foreach(rows, i, row) {
		const json_t *o = json_object_get(row, "observed");
		if (fio_row(o)) {
			n++;
			with_nodes += json_object_get(o, "nodes") != NULL;
		}
	}
	if (!n)
		return;
	const char *xkey = with_nodes == n ? "nodes" : "clients";
	char *xl = xasprintf("%s (count)", xkey);
	struct rchart *bw = rchart_new("storage-throughput", RC_XY, "Storage throughput", xl, "bandwidth (GB/s)");
	struct rchart *lat = rchart_new("storage-p99", RC_XY, "Storage p99 completion latency", xl, "clat p99 (ns)");
	free(xl);
	lat->ys = SVG_LOG10;
	json_array_foreach(rows, i, row) {
		const json_t *o = json_object_get(row, "observed");
		if (!fio_row(o))
			continue;
		char *name = test_name(jget_str_or(row, "id", "?"), "bench.storage-");
		const json_t *xv = json_object_get(o, xkey), *bv = json_object_get(o, "bw_gb_s"),
			     *pv = json_object_get(json_object_get(o, "clat_ns"), "p99");
		char *x = rpt_raw(xv), *b = rpt_raw(bv), *p = rpt_raw(pv);
		rchart_add(bw, rchart_series(bw, name), rpt_num(xv), rpt_num(bv), x, json_is_number(bv) ? b : NULL);
		rchart_add(lat, rchart_series(lat, name), rpt_num(xv), rpt_num(pv), x, json_is_number(pv) ? p : NULL);
		free(x);
		free(b);
		free(p);
		free(name);
	}
	rchart_caption(bw, "observed.bw_gb_s of each fio test");
	rchart_caption(lat, "observed.clat_ns.p99 of each fio test (log scale)");
	rchart_emit(r, bw);
	rchart_emit(r, lat);
}

/* storage endurance (bw_bytes_per_s) and S3 endurance (mb_s) per interval */
static void endurance_chart(struct rpt *r, const json_t *rows, const char *bench)
{
	int s3 = !strcmp(bench, "s3");
	const char *ykey = s3 ? "mb_s" : "bw_bytes_per_s";
	struct rchart *c = rchart_new("endurance-bw", RC_XY, "Bandwidth over time under sustained load", "time (s)",
				      s3 ? "throughput (MB/s)" : "bandwidth (bytes/s)");
	size_t i, j, n = 0;
	const json_t *row, *iv;
	json_array_foreach(rows, i, row) {
		const json_t *ivs = json_object_get(json_object_get(row, "observed"), "intervals");
		if (!json_is_array(ivs))
			continue;
		char *name = test_name(jget_str_or(row, "id", "?"), s3 ? "bench.s3-" : "bench.storage-");
		size_t s = rchart_series(c, name);
		free(name);
		json_array_foreach(ivs, j, iv) {
			const json_t *xv = json_object_get(iv, "t_s"), *yv = json_object_get(iv, ykey);
			char *x = rpt_raw(xv), *y = rpt_raw(yv);
			rchart_add(c, s, rpt_num(xv), rpt_num(yv), x, json_is_number(yv) ? y : NULL);
			free(x);
			free(y);
			n++;
		}
	}
	if (!n) {
		rchart_free(c);
		return;
	}
	rchart_caption(c, s3 ? "observed.intervals[].mb_s at the end of each interval"
			     : "observed.intervals[].bw_bytes_per_s at the end of each interval");
	rchart_emit(r, c);
}

void rpt_bench(struct rpt *r, const json_t *doc)
{
	rpt_meta(r, doc);
	const json_t *rows = json_object_get(doc, "results");
	const char *bench = jget_str_or(doc, "benchmark", "");
	if (!strcmp(bench, "net"))
		nccl_charts(r, rows);
	if (!strcmp(bench, "storage"))
		storage_charts(r, rows);
	if (!strcmp(bench, "storage") || !strcmp(bench, "s3"))
		endurance_chart(r, rows, bench);
	rpt_h3(r, "Rows (FAIL, ERROR and WARN first)");
	rpt_rows(r, rows);
}
