/* `cmax bench gpu`: the figures: copy bandwidth, the one-token GEMV,
 * the MAMF M,N,K sweep and the MoE grouped GEMMs, each graded against the
 * GPU's specification. */
#include "bench/bench.h"
#include "bench/gpu.h"
#include "bench/cuda_dl.h"
#include "bench/gpu_calc.h"
#include "core/numparse.h"
#include "core/datafile.h"
#include "core/policyfile.h"
#include "core/exitcodes.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- rows ------------------------------------------------------------------ */

static json_t *jnum(double v, double scale)
{
	return isfinite(v) ? json_real(round(v * scale) / scale) : json_null();
}

/* The row's status from a ratio to the spec; the summary leads with the
 * figure. */
static void grade_row(struct gctx *g, struct result *r, json_t *ob, const char *th_key, double measured,
		      double reference, const char *unit, const char *ref_what, const char *detail)
{
	const char *why;
	double ratio;
	const json_t *th = bench_th(g->b, th_key);
	enum status st = gpu_grade_ratio(th, measured, reference, &ratio, &why);
	json_object_set_new(ob, "reference", jnum(reference, 100));
	json_object_set_new(ob, "reference_what", json_string(ref_what));
	json_object_set_new(ob, "ratio", jnum(ratio, 1000));
	r_observed(r, ob);
	json_t *ex = json_object();
	json_object_set_new(ex, "ratio_of", json_string(ref_what));
	json_object_set_new(ex, "thresholds", json_deep_copy(th));
	r_expected(r, ex);
	r_reproduce(r, g->b->command);
	if (st == ST_SKIP)
		r_skip(r, "%.1f %s measured (%s); %s%s%s", measured, unit, detail, why,
		       g->spec_key ? " for " : "", g->spec_key ? g->spec_key : " (GPU model not recognised)");
	else
		r_status(r, st, "%.1f %s = %.2f x %s (%.1f %s; %s)%s%s", measured, unit, ratio, ref_what, reference,
			 unit, detail, st == ST_PASS ? "" : "; ", st == ST_PASS ? "" : why);
}

/* A figure that cannot run: SKIP (not applicable) or ERROR (the probe broke). */
static void row_not_run(struct gctx *g, struct result *r, enum status st, const char *why)
{
	r_reproduce(r, g->b->command);
	r_status(r, st, "%s", why);
}

/* ---- copy bandwidth -------------------------------------------------------- */

struct copy_arg {
	void *dst;
	const void *src;
	size_t bytes;
	int kind;
};

static int enq_copy(struct gctx *g, void *arg, char *err, size_t errlen)
{
	struct copy_arg *c = arg;
	CK(g, g->api.MemcpyAsync(c->dst, c->src, c->bytes, c->kind, g->stream), "cudaMemcpyAsync");
	return 0;
fail:
	return -1;
}

void gpu_run_copy(struct gctx *g, const json_t *shapes)
{
	static const struct {
		const char *id, *title, *th;
		int kind;
	} cases[] = {
		{ "bench.gpu-copy-h2d", "pinned host-to-device copy bandwidth (cudaMemcpyAsync)", "h2d_link_ratio", cudaMemcpyHostToDevice },
		{ "bench.gpu-copy-d2h", "device-to-host copy bandwidth into pinned memory (cudaMemcpyAsync)", "d2h_link_ratio", cudaMemcpyDeviceToHost },
		{ "bench.gpu-copy-d2d", "device-to-device copy bandwidth (cudaMemcpyAsync, read + write counted)", "d2d_hbm_ratio", cudaMemcpyDeviceToDevice },
	};
	json_t *cp = json_object_get(shapes, "copy");
	size_t mib = (size_t)json_integer_value(json_object_get(cp, g->o->b.full ? "full_mib" : "quick_mib"));
	size_t bytes = (mib ? mib : 256) << 20;
	struct result *rows[3];
	for (int i = 0; i < 3; i++)
		rows[i] = bench_row(g->b, cases[i].id, cases[i].title);
	if (*g->skip_all) {
		for (int i = 0; i < 3; i++)
			row_not_run(g, rows[i], ST_SKIP, g->skip_fig);
		return;
	}
	char err[512] = "";
	size_t errlen = sizeof err;
	struct devmem dm = { .n = 0 };
	void *host = NULL, *d0, *d1;
	int i = 0;
	CK(g, g->api.MallocHost(&host, bytes), "cudaMallocHost");
	memset(host, 0x5a, bytes); /* touch: the copy must not fault pages in */
	if (!(d0 = gpu_dm_alloc(g, &dm, bytes, err, errlen)) || !(d1 = gpu_dm_alloc(g, &dm, bytes, err, errlen)))
		goto fail;
	CK(g, g->api.Memset(d0, 0x5a, bytes), "cudaMemset");
	for (i = 0; i < 3; i++) {
		if (gpu_over_budget(g)) {
			row_not_run(g, rows[i], ST_SKIP, "not run: the time budget (--timeout) was spent or the run was interrupted");
			continue;
		}
		struct copy_arg a = { d1, d0, bytes, cases[i].kind };
		if (cases[i].kind == cudaMemcpyHostToDevice)
			a.src = host;
		else if (cases[i].kind == cudaMemcpyDeviceToHost)
			a.dst = host;
		struct timing t;
		if (gpu_measure(g, enq_copy, &a, gpu_target_ms(g), &t, err, errlen))
			goto fail;
		double gbs = bytes / (t.median_ms / 1e3) / 1e9;
		int d2d = cases[i].kind == cudaMemcpyDeviceToDevice;
		double measured = d2d ? 2 * gbs : gbs;
		json_t *ob = json_object();
		json_object_set_new(ob, "bytes", json_integer((json_int_t)bytes));
		json_object_set_new(ob, "copy_gb_s", jnum(gbs, 100));
		json_object_set_new(ob, "best_copy_gb_s", jnum(bytes / (t.best_ms / 1e3) / 1e9, 100));
		if (d2d)
			json_object_set_new(ob, "hbm_traffic_gb_s", jnum(measured, 100));
		json_object_set_new(ob, "median_ms", jnum(t.median_ms, 1e4));
		json_object_set_new(ob, "reps", json_integer(t.reps));
		char detail[96];
		snprintf(detail, sizeof detail, "%zu MiB, median of %d", bytes >> 20, t.reps);
		const char *link = json_string_value(json_object_get(g->spec, "host_link"));
		grade_row(g, rows[i], ob, cases[i].th, measured,
			  gpu_spec_num(g->spec, d2d ? "hbm_gb_s" : "host_link_gb_s"), "GB/s",
			  d2d ? "HBM bandwidth" : link ? link : "host link", detail);
	}
	gpu_dm_free(g, &dm);
	g->api.FreeHost(host);
	return;
fail:
	for (; i < 3; i++)
		row_not_run(g, rows[i], ST_ERROR, err);
	gpu_dm_free(g, &dm);
	if (host)
		g->api.FreeHost(host);
}

/* ---- GEMM parts ------------------------------------------------------------ */

struct gemm_arg {
	struct lt_gemm *q;
	const void *w, *x;
	void *out;
};

static int enq_gemm(struct gctx *g, void *arg, char *err, size_t errlen)
{
	struct gemm_arg *a = arg;
	return gpu_lt_gemm_run(g, a->q, a->w, a->x, a->out, err, errlen);
}

/* Why dtype d cannot run here, or NULL. */
static const char *dtype_skip(struct gctx *g, enum gpu_dtype d, char *buf, size_t n)
{
	if (*g->skip_all)
		return g->skip_fig;
	if (*g->skip_gemm)
		return g->skip_gemm;
	if (g->cc < gpu_dtype(d)->min_cc) {
		snprintf(buf, n, "%s GEMMs need sm_%d or newer; this GPU is sm_%d", gpu_dtype(d)->name, gpu_dtype(d)->min_cc,
			 g->cc);
		return buf;
	}
	return NULL;
}

void gpu_run_gemv(struct gctx *g, const json_t *shapes)
{
	struct result *r = bench_row(g->b, "bench.gpu-gemv-bf16", "one-token BF16 GEMV bandwidth (decode proxy)");
	json_t *gv = json_object_get(shapes, "gemv");
	long n = (long)json_integer_value(json_object_get(gv, "n")), k = (long)json_integer_value(json_object_get(gv, "k"));
	char buf[256], err[512] = "";
	size_t errlen = sizeof err;
	const char *why = dtype_skip(g, GD_BF16, buf, sizeof buf);
	if (why || gpu_over_budget(g)) {
		row_not_run(g, r, ST_SKIP, why ? why : "not run: the time budget (--timeout) was spent or the run was interrupted");
		return;
	}
	if (n <= 0 || k <= 0 || n % 16 || k % 16) {
		row_not_run(g, r, ST_ERROR, "gemv shape in the shapes file is missing or not a multiple of 16");
		return;
	}
	struct devmem dm = { .n = 0 };
	struct lt_gemm q;
	void *w, *x, *y;
	memset(&q, 0, sizeof q);
	if (!(w = gpu_dm_alloc(g, &dm, (size_t)n * k * 2, err, errlen)) || !(x = gpu_dm_alloc(g, &dm, (size_t)k * 2, err, errlen)) ||
	    !(y = gpu_dm_alloc(g, &dm, (size_t)n * 2, err, errlen)))
		goto fail;
	if (gpu_fill_random(g, w, (size_t)n * k * 2, CUDA_R_16BF, err, errlen) ||
	    gpu_fill_random(g, x, (size_t)k * 2, CUDA_R_16BF, err, errlen))
		goto fail;
	int rc = gpu_lt_gemm_init(g, &q, GD_BF16, n, 1, k, err, errlen);
	if (rc > 0) {
		row_not_run(g, r, ST_SKIP, err);
		gpu_dm_free(g, &dm);
		return;
	}
	if (rc < 0)
		goto fail;
	struct gemm_arg a = { &q, w, x, y };
	struct timing t;
	if (gpu_measure(g, enq_gemm, &a, gpu_target_ms(g), &t, err, errlen))
		goto fail;
	double bytes = (double)n * k * 2 + k * 2.0 + n * 2.0;
	double gbs = bytes / (t.median_ms / 1e3) / 1e9;
	json_t *ob = json_object();
	json_object_set_new(ob, "n", json_integer(n));
	json_object_set_new(ob, "k", json_integer(k));
	json_object_set_new(ob, "bytes", json_real(bytes));
	json_object_set_new(ob, "gb_s", jnum(gbs, 100));
	json_object_set_new(ob, "median_ms", jnum(t.median_ms, 1e4));
	json_object_set_new(ob, "reps", json_integer(t.reps));
	char detail[96];
	snprintf(detail, sizeof detail, "1 x %ld x %ld, median of %d", n, k, t.reps);
	grade_row(g, r, ob, "gemv_hbm_ratio", gbs, gpu_spec_num(g->spec, "hbm_gb_s"), "GB/s", "HBM bandwidth", detail);
	gpu_lt_gemm_free(g, &q);
	gpu_dm_free(g, &dm);
	return;
fail:
	gpu_lt_gemm_free(g, &q);
	row_not_run(g, r, ST_ERROR, err);
	gpu_dm_free(g, &dm);
}

static long max_of(const json_t *arr)
{
	long m = 0;
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e)
		if (json_integer_value(e) > m)
			m = (long)json_integer_value(e);
	return m;
}

void gpu_run_mamf(struct gctx *g, const json_t *shapes, enum gpu_dtype d)
{
	const struct gpu_dtype_info *t = gpu_dtype(d);
	char id[64], title[128], buf[256], err[512] = "";
	size_t errlen = sizeof err;
	snprintf(id, sizeof id, "bench.gpu-mamf-%s", t->name);
	snprintf(title, sizeof title, "MAMF: best achievable %s matmul TFLOPS over an M,N,K sweep", t->name);
	struct result *r = bench_row(g->b, id, title);
	const json_t *grid = json_object_get(json_object_get(shapes, "mamf"), g->o->b.full ? "full" : "quick");
	const json_t *ms = json_object_get(grid, "m"), *ns = json_object_get(grid, "n"), *ks = json_object_get(grid, "k");
	const char *why = dtype_skip(g, d, buf, sizeof buf);
	if (why || gpu_over_budget(g)) {
		row_not_run(g, r, ST_SKIP, why ? why : "not run: the time budget (--timeout) was spent or the run was interrupted");
		return;
	}
	long mm = max_of(ms), mn = max_of(ns), mk = max_of(ks);
	if (!mm || !mn || !mk) {
		row_not_run(g, r, ST_ERROR, "the shapes file has no mamf grid");
		return;
	}
	struct devmem dm = { .n = 0 };
	void *a, *bm, *out;
	if (!(a = gpu_dm_alloc(g, &dm, (size_t)mk * mn * t->ab_bytes, err, errlen)) ||
	    !(bm = gpu_dm_alloc(g, &dm, (size_t)mk * mm * t->ab_bytes, err, errlen)) ||
	    !(out = gpu_dm_alloc(g, &dm, (size_t)mn * mm * t->cd_bytes, err, errlen)))
		goto fail;
	if (gpu_fill_random(g, a, (size_t)mk * mn * t->ab_bytes, t->ab_type, err, errlen) ||
	    gpu_fill_random(g, bm, (size_t)mk * mm * t->ab_bytes, t->ab_type, err, errlen))
		goto fail;
	double best = NAN, tf[512];
	long bshape[3] = { 0, 0, 0 };
	int nt = 0, noalgo = 0, cut = 0;
	size_t i, j, l;
	json_t *em, *en, *ek;
	json_array_foreach(ms, i, em) json_array_foreach(ns, j, en) json_array_foreach(ks, l, ek) {
		long m = (long)json_integer_value(em), n = (long)json_integer_value(en), k = (long)json_integer_value(ek);
		if (m <= 0 || n <= 0 || k <= 0 || nt == 512)
			continue;
		if (gpu_over_budget(g)) {
			cut = 1;
			continue;
		}
		struct lt_gemm q;
		int rc = gpu_lt_gemm_init(g, &q, d, n, m, k, err, errlen);
		if (rc > 0) {
			noalgo++;
			continue;
		}
		if (rc < 0)
			goto fail;
		struct gemm_arg ga = { &q, a, bm, out };
		struct timing tm;
		rc = gpu_measure(g, enq_gemm, &ga, gpu_target_ms(g) / 4, &tm, err, errlen);
		gpu_lt_gemm_free(g, &q);
		if (rc)
			goto fail;
		double v = gpu_gemm_flops(m, n, k) / (tm.median_ms / 1e3) / 1e12;
		tf[nt++] = v;
		if (isnan(best) || v > best) {
			best = v;
			bshape[0] = m, bshape[1] = n, bshape[2] = k;
		}
	}
	gpu_dm_free(g, &dm);
	if (!nt) {
		row_not_run(g, r, ST_SKIP, cut ? "not run: the time budget (--timeout) was spent" : err);
		return;
	}
	qsort(tf, (size_t)nt, sizeof *tf, gpu_cmp_double);
	json_t *ob = json_object();
	json_object_set_new(ob, "dtype", json_string(t->name));
	json_object_set_new(ob, "best_tflops", jnum(best, 10));
	json_t *bs = json_object();
	json_object_set_new(bs, "m", json_integer(bshape[0]));
	json_object_set_new(bs, "n", json_integer(bshape[1]));
	json_object_set_new(bs, "k", json_integer(bshape[2]));
	json_object_set_new(ob, "best_shape", bs);
	json_object_set_new(ob, "median_tflops", jnum(nt % 2 ? tf[nt / 2] : (tf[nt / 2 - 1] + tf[nt / 2]) / 2, 10));
	json_object_set_new(ob, "shapes_measured", json_integer(nt));
	json_object_set_new(ob, "shapes_without_algorithm", json_integer(noalgo));
	json_object_set_new(ob, "cut_by_timeout", json_boolean(cut));
	char detail[128];
	snprintf(detail, sizeof detail, "best of %d shapes at %ldx%ldx%ld%s", nt, bshape[0], bshape[1], bshape[2],
		 cut ? ", sweep cut by --timeout" : "");
	char what[64];
	snprintf(what, sizeof what, "dense %s spec", t->name);
	grade_row(g, r, ob, "mamf_ratio", best, gpu_spec_num(g->spec, t->spec_key), "TFLOPS", what, detail);
	return;
fail:
	row_not_run(g, r, ST_ERROR, err);
	gpu_dm_free(g, &dm);
}

/* One grouped GEMM: a cublasLtMatmul per expert with tokens; the experts
 * cycle through a pool of distinct weights (every one larger than L2, so
 * each call reads its weight from HBM, as a real MoE layer does). */
struct moe_arg {
	struct lt_gemm *q[2];   /* for base and base + 1 tokens */
	long base;
	const long *per;
	int experts, pool;
	const char *w, *x;
	char *out;
	size_t w_stride, x_row, o_row;
};

static int enq_moe(struct gctx *g, void *arg, char *err, size_t errlen)
{
	struct moe_arg *a = arg;
	size_t off = 0;
	for (int e = 0; e < a->experts; e++) {
		if (!a->per[e])
			continue;
		const struct lt_gemm *q = a->q[a->per[e] != a->base];
		if (gpu_lt_gemm_run(g, q, a->w + (size_t)(e % a->pool) * a->w_stride, a->x + off * a->x_row,
				a->out + off * a->o_row, err, errlen))
			return -1;
		off += (size_t)a->per[e];
	}
	return 0;
}

void gpu_run_moe(struct gctx *g, const struct moe_src *src, enum gpu_proj p, enum gpu_dtype d, const long *tokens,
		 int ntok)
{
	const struct gpu_moe_model *m = &src->m;
	const struct gpu_dtype_info *t = gpu_dtype(d);
	struct result *rows[16];
	long n, k;
	gpu_moe_nk(m, p, &n, &k);
	for (int i = 0; i < ntok; i++) {
		char id[96], title[256];
		snprintf(id, sizeof id, "bench.gpu-moe-%s-%s-%s-t%ld", m->key, gpu_proj_name(p), t->name, tokens[i]);
		snprintf(title, sizeof title, "grouped GEMM %s %s (n %ld, k %ld), %ld tokens x top-%d over %d experts, %s",
			 src->name ? src->name : m->key, gpu_proj_name(p), n, k, tokens[i], m->top_k, m->experts, t->name);
		rows[i] = bench_row(g->b, id, title);
	}
	char buf[256], err[512] = "";
	size_t errlen = sizeof err;
	const char *why = dtype_skip(g, d, buf, sizeof buf);
	if (why) {
		for (int i = 0; i < ntok; i++)
			row_not_run(g, rows[i], ST_SKIP, why);
		return;
	}
	long maxtok = 0;
	for (int i = 0; i < ntok; i++)
		maxtok = tokens[i] > maxtok ? tokens[i] : maxtok;
	size_t wbytes = (size_t)n * k * t->ab_bytes, pairs_max = (size_t)maxtok * m->top_k;
	int active_max = gpu_moe_split(maxtok, m->top_k, m->experts, NULL);
	/* Distinct weights for up to 40% of the free memory (at least two,
	 * so consecutive calls never hit the same weight in L2). */
	size_t budget = g->mem_free / 10 * 4;
	int pool = (int)(budget / wbytes);
	pool = pool > active_max ? active_max : pool < 2 ? 2 : pool;
	struct devmem dm = { .n = 0 };
	long *per = xcalloc((size_t)m->experts, sizeof *per);
	void *w, *x, *out;
	int i = 0;
	if (!(w = gpu_dm_alloc(g, &dm, wbytes * pool, err, errlen)) ||
	    !(x = gpu_dm_alloc(g, &dm, pairs_max * k * t->ab_bytes, err, errlen)) ||
	    !(out = gpu_dm_alloc(g, &dm, pairs_max * n * t->cd_bytes, err, errlen)))
		goto fail;
	if (gpu_fill_random(g, w, wbytes * pool, t->ab_type, err, errlen) ||
	    gpu_fill_random(g, x, pairs_max * k * t->ab_bytes, t->ab_type, err, errlen))
		goto fail;
	for (i = 0; i < ntok; i++) {
		struct result *r = rows[i];
		if (gpu_over_budget(g)) {
			row_not_run(g, r, ST_SKIP, "not run: the time budget (--timeout) was spent or the run was interrupted");
			continue;
		}
		int active = gpu_moe_split(tokens[i], m->top_k, m->experts, per);
		long base = per[m->experts - 1], hi = per[0];
		struct lt_gemm q[2];
		memset(q, 0, sizeof q);
		int rc = 0;
		if (base > 0)
			rc = gpu_lt_gemm_init(g, &q[0], d, n, base, k, err, errlen);
		if (rc == 0 && hi != base)
			rc = gpu_lt_gemm_init(g, &q[1], d, n, hi, k, err, errlen);
		if (rc != 0) {
			gpu_lt_gemm_free(g, &q[0]);
			gpu_lt_gemm_free(g, &q[1]);
			if (rc < 0)
				goto fail;
			row_not_run(g, r, ST_SKIP, err);
			continue;
		}
		struct moe_arg a = { { &q[0], &q[1] }, base, per, m->experts, pool, w, x, out, wbytes,
				     (size_t)k * t->ab_bytes, (size_t)n * t->cd_bytes };
		struct timing tm;
		rc = gpu_measure(g, enq_moe, &a, gpu_target_ms(g), &tm, err, errlen);
		gpu_lt_gemm_free(g, &q[0]);
		gpu_lt_gemm_free(g, &q[1]);
		if (rc)
			goto fail;
		struct gpu_work wk = gpu_moe_work(m, p, tokens[i], d);
		double tflops = wk.flops / (tm.median_ms / 1e3) / 1e12;
		double gbs = wk.bytes / (tm.median_ms / 1e3) / 1e9;
		double roof = gpu_roofline_tflops(gpu_spec_num(g->spec, t->spec_key), gpu_spec_num(g->spec, "hbm_gb_s"),
						  wk.flops, wk.bytes);
		/* the case as recorded: what was multiplied, then what it took */
		json_t *ob = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f}",
				       "model", m->key, "projection", gpu_proj_name(p), "dtype", t->name,
				       "tokens", (json_int_t)tokens[i], "top_k", (json_int_t)m->top_k,
				       "experts", (json_int_t)m->experts, "active_experts", (json_int_t)active,
				       "tokens_per_expert_min", (json_int_t)base, "tokens_per_expert_max", (json_int_t)hi,
				       "n", (json_int_t)n, "k", (json_int_t)k, "gemm_calls", (json_int_t)active,
				       "weight_pool", (json_int_t)pool, "flops", wk.flops, "bytes", wk.bytes);
		json_object_set_new(ob, "median_ms", jnum(tm.median_ms, 1e4));
		json_object_set_new(ob, "best_ms", jnum(tm.best_ms, 1e4));
		json_object_set_new(ob, "reps", json_integer(tm.reps));
		json_object_set_new(ob, "tflops", jnum(tflops, 10));
		json_object_set_new(ob, "gb_s", jnum(gbs, 10));
		json_object_set_new(ob, "roofline_tflops", jnum(roof, 10));
		char detail[160];
		snprintf(detail, sizeof detail, "%.0f GB/s, %d calls of %ld-%ld tokens, median of %d", gbs, active, base, hi,
			 tm.reps);
		grade_row(g, r, ob, "moe_roofline_ratio", tflops, roof, "TFLOPS", "roofline", detail);
	}
	free(per);
	gpu_dm_free(g, &dm);
	return;
fail:
	for (; i < ntok; i++)
		row_not_run(g, rows[i], ST_ERROR, err);
	free(per);
	gpu_dm_free(g, &dm);
}
