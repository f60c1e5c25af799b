/* `cmax bench gpu`: what one GPU achieves against its specification.
 * cuBLASLt grouped GEMMs with the MoE projection shapes of DeepSeek-V3- and
 * Kimi-K2-class models (the group is a loop of cublasLtMatmul calls, one
 * per expert with tokens, on one stream: what a naive grouped GEMM costs,
 * launch overhead included), a MAMF-style M,N,K sweep for the best
 * achievable TFLOPS, a one-token GEMV for HBM bandwidth (decode proxy), and
 * pinned host<->device and device-to-device copy bandwidth.
 *
 * CUDA is loaded with dlopen (cuda_dl.h); without the libraries, without a
 * driver or without a GPU every figure is a SKIP with the reason. Memory
 * comes from cudaMalloc/cudaMallocHost only, every CUDA return code is
 * checked, times are cudaEvent times of warmed-up, repeated runs. */
#include "bench.h"
#include "cuda_dl.h"
#include "gpu_calc.h"
#include "../core/numparse.h"
#include "../core/datafile.h"
#include "../core/policyfile.h"
#include "../core/exitcodes.h"
#include "../core/runner.h"
#include "../core/strbuf.h"
#include "../core/termsafe.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { P_COPY = 1, P_GEMV = 2, P_MAMF = 4, P_MOE = 8, P_ALL = 15 };
static const char *const part_names[] = { "copy", "gemv", "mamf", "moe" };

struct gopts {
	struct bench_opts b;
	int device;
	unsigned dtypes;        /* bit per enum gpu_dtype */
	unsigned parts;
	const char *shapes_file, *specs_file, *gpu_model;
	long tokens[16];
	int ntokens;            /* 0: from the shapes file */
	int rep_ms;             /* timed repetitions per figure last about this long */
};

/* Everything a measurement needs, set up once. */
struct gctx {
	struct bench_run *b;
	const struct gopts *o;
	struct cuda_api api;
	int have_lt;
	int cc;                 /* compute capability x10 */
	char name[256], busid[32];
	size_t mem_free, mem_total;
	cudaStream_t stream;
	cudaEvent_t ev0, ev1;
	cublasLtHandle_t lt;
	void *ws;
	size_t ws_size;
	const json_t *spec;     /* gpu-specs.json record, or NULL */
	const char *spec_key;
	long deadline_ms;
	char skip_all[512];     /* non-empty: every figure SKIPs; the full reason */
	char skip_fig[160];     /* the same, short, for each figure's row */
	char skip_gemm[512];    /* non-empty: GEMM figures SKIP (no cuBLASLt) */
};

static void usage(FILE *out)
{
	fputs("usage: cmax bench gpu [--device N] [--only PARTS] [--dtypes LIST] [options]\n\n"
	      "Measures one GPU against its specification (data/gpu-specs.json): grouped GEMMs on\n"
	      "cuBLASLt with the MoE projection shapes of DeepSeek-V3- and Kimi-K2-class models\n"
	      "(data/gemm-shapes.json), a MAMF sweep (best achievable matmul TFLOPS), a one-token\n"
	      "GEMV (HBM bandwidth, decode proxy) and pinned host/device copy bandwidth. CUDA is\n"
	      "loaded at run time; without it, or without a GPU, every figure is SKIP with the reason.\n"
	      "It writes no files but keeps the GPU busy: other jobs on it slow down and disturb the figures.\n\n"
	      "  --device N             CUDA device index (default 0)\n"
	      "  --only LIST            comma list of copy,gemv,mamf,moe (default all)\n"
	      "  --dtypes LIST          comma list of bf16,fp16,tf32,fp8 (default all; fp8 needs sm_89+)\n"
	      "  --tokens LIST          token counts of the MoE cases (default from the shapes file)\n"
	      "  --rep-ms MS            time the repetitions of each figure for about MS ms\n"
	      "                         (default 100 quick, 500 full; at least 3, at most 100 runs)\n"
	      "  --gpu-model KEY        grade against this gpu-specs.json key instead of the device name\n"
	      "  --shapes FILE          another gemm-shapes.json\n"
	      "  --specs FILE           another gpu-specs.json\n"
	      "  --timeout S            total time budget in seconds (default 300 quick, 3600 full);\n"
	      "                         figures not reached by then are SKIP\n"
	      "  env CMAX_CUDA_LIBDIR   load libcudart/libcublasLt only from this directory\n\n", out);
	bench_common_usage(out);
}

static int parse_list(const char *v, const char *const *names, int n, unsigned *mask)
{
	char *dup = xstrdup(v), *save = NULL;
	*mask = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int i;
		for (i = 0; i < n && strcmp(t, names[i]); i++)
			;
		if (i == n) {
			free(dup);
			return -1;
		}
		*mask |= 1u << i;
	}
	free(dup);
	return *mask ? 0 : -1;
}

static int parse(int argc, char **argv, struct gopts *o)
{
	static const char *dt_names[GD__COUNT];
	memset(o, 0, sizeof *o);
	o->dtypes = (1u << GD__COUNT) - 1;
	o->parts = P_ALL;
	for (int d = 0; d < GD__COUNT; d++)
		dt_names[d] = gpu_dtype(d)->name;
	for (int i = 1; i < argc; i++) {
		int r = bench_common_opt(&o->b, argc, argv, &i, "gpu");
		if (r < 0)
			return EXIT_USAGE;
		if (r > 0)
			continue;
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return -1;
		}
		int bad = !v;
		if (bad) {
		} else if (!strcmp(a, "--device")) {
			bad = np_int(a, v, 0, 1023, &o->device, NULL) != 0; /* core/numparse.h */
		} else if (!strcmp(a, "--only")) {
			bad = parse_list(v, part_names, 4, &o->parts) != 0;
		} else if (!strcmp(a, "--dtypes")) {
			bad = parse_list(v, dt_names, GD__COUNT, &o->dtypes) != 0;
		} else if (!strcmp(a, "--tokens")) {
			char *dup = xstrdup(v), *save = NULL;
			o->ntokens = 0;
			for (char *t = strtok_r(dup, ",", &save); t && !bad; t = strtok_r(NULL, ",", &save)) {
				long n = 0;
				bad = np_count(a, t, 1, 1 << 20, &n, NULL) != 0 || o->ntokens == 16;
				if (!bad)
					o->tokens[o->ntokens++] = n;
			}
			bad = bad || !o->ntokens;
			free(dup);
		} else if (!strcmp(a, "--rep-ms")) {
			bad = np_int(a, v, 1, 600000, &o->rep_ms, NULL) != 0;
		} else if (!strcmp(a, "--gpu-model")) {
			o->gpu_model = v;
		} else if (!strcmp(a, "--shapes")) {
			o->shapes_file = v;
		} else if (!strcmp(a, "--specs")) {
			o->specs_file = v;
		} else {
			bad = 1;
		}
		if (bad) {
			fprintf(stderr, "cmax bench gpu: unknown option or bad value '%s%s%s' (see --help)\n", a,
				v ? " " : "", v ? v : "");
			return EXIT_USAGE;
		}
		i++;
	}
	if (!o->b.timeout_s)
		o->b.timeout_s = o->b.full ? 3600 : 300;
	if (!o->rep_ms)
		o->rep_ms = o->b.full ? 500 : 100;
	return 0;
}

/* ---- the plan: every figure, in the order they run ----------------------- */

struct moe_src {
	struct gpu_moe_model m;
	const char *name;
};

static int load_models(const json_t *shapes, struct moe_src *out, int max)
{
	size_t i;
	json_t *e;
	int n = 0;
	json_array_foreach(json_object_get(shapes, "moe_models"), i, e) {
		if (n == max)
			break;
		struct moe_src *s = &out[n];
		s->m.key = json_string_value(json_object_get(e, "key"));
		s->name = json_string_value(json_object_get(e, "name"));
		s->m.hidden = (long)json_integer_value(json_object_get(e, "hidden"));
		s->m.inter = (long)json_integer_value(json_object_get(e, "moe_intermediate"));
		s->m.experts = (int)json_integer_value(json_object_get(e, "routed_experts"));
		s->m.top_k = (int)json_integer_value(json_object_get(e, "top_k"));
		if (!s->m.key || s->m.hidden <= 0 || s->m.inter <= 0 || s->m.experts <= 0 || s->m.top_k <= 0 ||
		    s->m.hidden % 16 || s->m.inter % 16)
			return -1;
		n++;
	}
	return n;
}

static int token_counts(const struct gopts *o, const json_t *shapes, long *out)
{
	if (o->ntokens) {
		memcpy(out, o->tokens, sizeof(long) * o->ntokens);
		return o->ntokens;
	}
	size_t i;
	json_t *e;
	int n = 0;
	json_array_foreach(json_object_get(json_object_get(shapes, "token_counts"), o->b.full ? "full" : "quick"), i, e)
		if (n < 16 && json_integer_value(e) > 0)
			out[n++] = (long)json_integer_value(e);
	return n;
}

static const char *proj_name(enum gpu_proj p)
{
	return p == GP_GATE_UP ? "gate-up" : "down";
}

/* ---- CUDA helpers --------------------------------------------------------- */

/* A call that failed: "cudaMalloc: cudaErrorMemoryAllocation (2): out of memory". */
#define CK(g, call, what)                                                              \
	do {                                                                            \
		cudaError_t e_ = (call);                                                \
		if (e_ != 0) {                                                          \
			char eb_[256];                                                  \
			snprintf(err, errlen, "%s: %s", what, cuda_dl_errstr(&(g)->api, e_, eb_, sizeof eb_)); \
			goto fail;                                                      \
		}                                                                       \
	} while (0)
#define LK(g, call, what)                                                              \
	do {                                                                            \
		cublasStatus_t s_ = (call);                                             \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                                      \
			char eb_[128];                                                  \
			snprintf(err, errlen, "%s: %s", what, cuda_dl_lt_errstr(&(g)->api, s_, eb_, sizeof eb_)); \
			goto fail;                                                      \
		}                                                                       \
	} while (0)

static int over_budget(const struct gctx *g)
{
	return bench_interrupted() || mono_ms() > g->deadline_ms;
}

/* Random values of moderate magnitude (|x| in 2^-4..2), written as bit
 * patterns so no conversion code is needed: tensor cores draw less power
 * on zeros, so zero-filled inputs would flatter the figures. The first
 * 1 MiB comes from the host, the rest is doubled on the device. */
static int fill_random(struct gctx *g, void *dev, size_t bytes, int type, char *err, size_t errlen)
{
	size_t chunk = bytes < (1u << 20) ? bytes : (1u << 20);
	unsigned char *h = xmalloc(chunk + 4);
	unsigned seed = 2463534242u;
	for (size_t i = 0; i < chunk; i += 4) {
		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		uint32_t r = seed, v;
		switch (type) {
		case CUDA_R_32F: /* sign, exponent 123..127, 23 random mantissa bits */
			v = (r & 0x80000000u) | ((123u + (r >> 24) % 5) << 23) | (r & 0x7fffffu);
			memcpy(h + i, &v, 4);
			break;
		case CUDA_R_16BF:
		case CUDA_R_16F:
			for (int j = 0; j < 2; j++) {
				uint16_t x, q = (uint16_t)(r >> (16 * j));
				if (type == CUDA_R_16BF)
					x = (uint16_t)((q & 0x8000) | ((123u + (q >> 7) % 5) << 7) | (q & 0x7f));
				else
					x = (uint16_t)((q & 0x8000) | ((11u + (q >> 10) % 5) << 10) | (q & 0x3ff));
				memcpy(h + i + 2 * j, &x, 2);
			}
			break;
		default: /* E4M3: sign, exponent 3..7 (bias 7), never the NaN pattern */
			for (int j = 0; j < 4; j++) {
				unsigned q = (r >> (8 * j)) & 0xff;
				h[i + j] = (unsigned char)((q & 0x80) | ((3u + (q >> 3) % 5) << 3) | (q & 7));
			}
		}
	}
	CK(g, g->api.Memcpy(dev, h, chunk, cudaMemcpyHostToDevice), "cudaMemcpy (fill)");
	for (size_t done = chunk; done < bytes; done *= 2) {
		size_t n = bytes - done < done ? bytes - done : done;
		CK(g, g->api.Memcpy((char *)dev + done, dev, n, cudaMemcpyDeviceToDevice), "cudaMemcpy (fill)");
	}
	free(h);
	return 0;
fail:
	free(h);
	return -1;
}

struct devmem {
	void *p[8];
	int n;
};

static void *dm_alloc(struct gctx *g, struct devmem *dm, size_t bytes, char *err, size_t errlen)
{
	void *p = NULL;
	CK(g, g->api.Malloc(&p, bytes ? bytes : 1), "cudaMalloc");
	dm->p[dm->n++] = p;
	return p;
fail:
	return NULL;
}

static void dm_free(struct gctx *g, struct devmem *dm)
{
	/* cudaFree synchronises; a failure here means a sticky error, which
	 * the next call reports where it matters */
	while (dm->n)
		g->api.Free(dm->p[--dm->n]);
}

/* One GEMM shape on cuBLASLt, PyTorch convention out[m x n] = x[m x k] W^T
 * in column-major terms: D (n x m) = op(W) (n x k) x X (k x m), W stored
 * k x n with transa = T ("TN", the layout FP8 needs on Hopper). */
struct lt_gemm {
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t la, lb, ld;
	cublasLtMatmulAlgo_t algo;
	int ok;
};

static void lt_gemm_free(struct gctx *g, struct lt_gemm *q)
{
	if (q->la)
		g->api.LtMatrixLayoutDestroy(q->la);
	if (q->lb)
		g->api.LtMatrixLayoutDestroy(q->lb);
	if (q->ld)
		g->api.LtMatrixLayoutDestroy(q->ld);
	if (q->desc)
		g->api.LtMatmulDescDestroy(q->desc);
	memset(q, 0, sizeof *q);
}

/* 0 ready; 1 no algorithm for this combination (a SKIP, not an error);
 * -1 error (err). */
static int lt_gemm_init(struct gctx *g, struct lt_gemm *q, enum gpu_dtype d, long n, long m, long k, char *err,
			size_t errlen)
{
	const struct gpu_dtype_info *t = gpu_dtype(d);
	cublasLtMatmulPreference_t pref = NULL;
	cublasLtMatmulHeuristicResult_t res;
	int opT = CUBLAS_OP_T, opN = CUBLAS_OP_N, found = 0;
	uint64_t ws = g->ws_size;
	memset(q, 0, sizeof *q);
	LK(g, g->api.LtMatmulDescCreate(&q->desc, t->compute, CUDA_R_32F), "cublasLtMatmulDescCreate");
	LK(g, g->api.LtMatmulDescSetAttribute(q->desc, CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof opT), "cublasLtMatmulDescSetAttribute");
	LK(g, g->api.LtMatmulDescSetAttribute(q->desc, CUBLASLT_MATMUL_DESC_TRANSB, &opN, sizeof opN), "cublasLtMatmulDescSetAttribute");
	LK(g, g->api.LtMatrixLayoutCreate(&q->la, t->ab_type, (uint64_t)k, (uint64_t)n, k), "cublasLtMatrixLayoutCreate");
	LK(g, g->api.LtMatrixLayoutCreate(&q->lb, t->ab_type, (uint64_t)k, (uint64_t)m, k), "cublasLtMatrixLayoutCreate");
	LK(g, g->api.LtMatrixLayoutCreate(&q->ld, t->cd_type, (uint64_t)n, (uint64_t)m, n), "cublasLtMatrixLayoutCreate");
	LK(g, g->api.LtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
	LK(g, g->api.LtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
	   "cublasLtMatmulPreferenceSetAttribute");
	memset(&res, 0, sizeof res);
	cublasStatus_t s = g->api.LtMatmulAlgoGetHeuristic(g->lt, q->desc, q->la, q->lb, q->ld, q->ld, pref, 1, &res, &found);
	g->api.LtMatmulPreferenceDestroy(pref);
	pref = NULL;
	if (s != CUBLAS_STATUS_SUCCESS || found < 1 || res.state != CUBLAS_STATUS_SUCCESS) {
		char eb[128];
		snprintf(err, errlen, "cuBLASLt has no algorithm for %s n=%ld m=%ld k=%ld on this GPU (%s)", t->name, n, m, k,
			 cuda_dl_lt_errstr(&g->api, s ? s : res.state, eb, sizeof eb));
		lt_gemm_free(g, q);
		return 1;
	}
	q->algo = res.algo;
	q->ok = 1;
	return 0;
fail:
	if (pref)
		g->api.LtMatmulPreferenceDestroy(pref);
	lt_gemm_free(g, q);
	return -1;
}

static int lt_gemm_run(struct gctx *g, const struct lt_gemm *q, const void *w, const void *x, void *out, char *err,
		       size_t errlen)
{
	static const float one = 1.0f, zero = 0.0f;
	LK(g, g->api.LtMatmul(g->lt, q->desc, &one, w, q->la, x, q->lb, &zero, out, q->ld, out, q->ld, &q->algo, g->ws,
			      g->ws_size, g->stream), "cublasLtMatmul");
	return 0;
fail:
	return -1;
}

/* Time fn (which enqueues work on g->stream): two warm-up calls, one to
 * size the repetitions to about target_ms, then 3..100 timed runs, each
 * between two events. Median and best in ms. */
typedef int (*enqueue_fn)(struct gctx *g, void *arg, char *err, size_t errlen);

struct timing {
	double median_ms, best_ms;
	int reps;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int measure(struct gctx *g, enqueue_fn fn, void *arg, double target_ms, struct timing *t, char *err, size_t errlen)
{
	double s[100];
	float ms = 0;
	int n = 0;
	for (int w = 0; w < 2; w++)
		if (fn(g, arg, err, errlen))
			return -1;
	CK(g, g->api.StreamSynchronize(g->stream), "cudaStreamSynchronize");
	int reps = 3;
	for (int i = 0; i < reps && i < 100; i++) {
		CK(g, g->api.EventRecord(g->ev0, g->stream), "cudaEventRecord");
		if (fn(g, arg, err, errlen))
			return -1;
		CK(g, g->api.EventRecord(g->ev1, g->stream), "cudaEventRecord");
		CK(g, g->api.EventSynchronize(g->ev1), "cudaEventSynchronize");
		CK(g, g->api.EventElapsedTime(&ms, g->ev0, g->ev1), "cudaEventElapsedTime");
		s[n++] = ms;
		if (i == 0 && ms > 0)
			reps = (int)fmin(100, fmax(3, target_ms / ms));
		if (over_budget(g))
			break;
	}
	qsort(s, (size_t)n, sizeof *s, cmp_double);
	if (!(s[0] > 0)) {
		snprintf(err, errlen, "cudaEventElapsedTime returned %g ms: below the timer's resolution", s[0]);
		return -1;
	}
	t->reps = n;
	t->best_ms = s[0];
	t->median_ms = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	return 0;
fail:
	return -1;
}

static double target_ms(const struct gctx *g)
{
	return g->o->rep_ms;
}

/* ---- rows ------------------------------------------------------------------ */

/* A bench row in the hardware profile (bench_row starts rows as storage). */
static struct result *gpu_row(struct bench_run *b, const char *id, const char *title)
{
	struct result *r = bench_row(b, id, title);
	free((char *)r->profile);
	r->profile = xstrdup("hardware");
	return r;
}

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

static void run_copy(struct gctx *g, const json_t *shapes)
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
		rows[i] = gpu_row(g->b, cases[i].id, cases[i].title);
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
	if (!(d0 = dm_alloc(g, &dm, bytes, err, errlen)) || !(d1 = dm_alloc(g, &dm, bytes, err, errlen)))
		goto fail;
	CK(g, g->api.Memset(d0, 0x5a, bytes), "cudaMemset");
	for (i = 0; i < 3; i++) {
		if (over_budget(g)) {
			row_not_run(g, rows[i], ST_SKIP, "not run: the time budget (--timeout) was spent or the run was interrupted");
			continue;
		}
		struct copy_arg a = { d1, d0, bytes, cases[i].kind };
		if (cases[i].kind == cudaMemcpyHostToDevice)
			a.src = host;
		else if (cases[i].kind == cudaMemcpyDeviceToHost)
			a.dst = host;
		struct timing t;
		if (measure(g, enq_copy, &a, target_ms(g), &t, err, errlen))
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
	dm_free(g, &dm);
	g->api.FreeHost(host);
	return;
fail:
	for (; i < 3; i++)
		row_not_run(g, rows[i], ST_ERROR, err);
	dm_free(g, &dm);
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
	return lt_gemm_run(g, a->q, a->w, a->x, a->out, err, errlen);
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

static void run_gemv(struct gctx *g, const json_t *shapes)
{
	struct result *r = gpu_row(g->b, "bench.gpu-gemv-bf16", "one-token BF16 GEMV bandwidth (decode proxy)");
	json_t *gv = json_object_get(shapes, "gemv");
	long n = (long)json_integer_value(json_object_get(gv, "n")), k = (long)json_integer_value(json_object_get(gv, "k"));
	char buf[256], err[512] = "";
	size_t errlen = sizeof err;
	const char *why = dtype_skip(g, GD_BF16, buf, sizeof buf);
	if (why || over_budget(g)) {
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
	if (!(w = dm_alloc(g, &dm, (size_t)n * k * 2, err, errlen)) || !(x = dm_alloc(g, &dm, (size_t)k * 2, err, errlen)) ||
	    !(y = dm_alloc(g, &dm, (size_t)n * 2, err, errlen)))
		goto fail;
	if (fill_random(g, w, (size_t)n * k * 2, CUDA_R_16BF, err, errlen) ||
	    fill_random(g, x, (size_t)k * 2, CUDA_R_16BF, err, errlen))
		goto fail;
	int rc = lt_gemm_init(g, &q, GD_BF16, n, 1, k, err, errlen);
	if (rc > 0) {
		row_not_run(g, r, ST_SKIP, err);
		dm_free(g, &dm);
		return;
	}
	if (rc < 0)
		goto fail;
	struct gemm_arg a = { &q, w, x, y };
	struct timing t;
	if (measure(g, enq_gemm, &a, target_ms(g), &t, err, errlen))
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
	lt_gemm_free(g, &q);
	dm_free(g, &dm);
	return;
fail:
	lt_gemm_free(g, &q);
	row_not_run(g, r, ST_ERROR, err);
	dm_free(g, &dm);
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

static void run_mamf(struct gctx *g, const json_t *shapes, enum gpu_dtype d)
{
	const struct gpu_dtype_info *t = gpu_dtype(d);
	char id[64], title[128], buf[256], err[512] = "";
	size_t errlen = sizeof err;
	snprintf(id, sizeof id, "bench.gpu-mamf-%s", t->name);
	snprintf(title, sizeof title, "MAMF: best achievable %s matmul TFLOPS over an M,N,K sweep", t->name);
	struct result *r = gpu_row(g->b, id, title);
	const json_t *grid = json_object_get(json_object_get(shapes, "mamf"), g->o->b.full ? "full" : "quick");
	const json_t *ms = json_object_get(grid, "m"), *ns = json_object_get(grid, "n"), *ks = json_object_get(grid, "k");
	const char *why = dtype_skip(g, d, buf, sizeof buf);
	if (why || over_budget(g)) {
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
	if (!(a = dm_alloc(g, &dm, (size_t)mk * mn * t->ab_bytes, err, errlen)) ||
	    !(bm = dm_alloc(g, &dm, (size_t)mk * mm * t->ab_bytes, err, errlen)) ||
	    !(out = dm_alloc(g, &dm, (size_t)mn * mm * t->cd_bytes, err, errlen)))
		goto fail;
	if (fill_random(g, a, (size_t)mk * mn * t->ab_bytes, t->ab_type, err, errlen) ||
	    fill_random(g, bm, (size_t)mk * mm * t->ab_bytes, t->ab_type, err, errlen))
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
		if (over_budget(g)) {
			cut = 1;
			continue;
		}
		struct lt_gemm q;
		int rc = lt_gemm_init(g, &q, d, n, m, k, err, errlen);
		if (rc > 0) {
			noalgo++;
			continue;
		}
		if (rc < 0)
			goto fail;
		struct gemm_arg ga = { &q, a, bm, out };
		struct timing tm;
		rc = measure(g, enq_gemm, &ga, target_ms(g) / 4, &tm, err, errlen);
		lt_gemm_free(g, &q);
		if (rc)
			goto fail;
		double v = gpu_gemm_flops(m, n, k) / (tm.median_ms / 1e3) / 1e12;
		tf[nt++] = v;
		if (isnan(best) || v > best) {
			best = v;
			bshape[0] = m, bshape[1] = n, bshape[2] = k;
		}
	}
	dm_free(g, &dm);
	if (!nt) {
		row_not_run(g, r, ST_SKIP, cut ? "not run: the time budget (--timeout) was spent" : err);
		return;
	}
	qsort(tf, (size_t)nt, sizeof *tf, cmp_double);
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
	dm_free(g, &dm);
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
		if (lt_gemm_run(g, q, a->w + (size_t)(e % a->pool) * a->w_stride, a->x + off * a->x_row,
				a->out + off * a->o_row, err, errlen))
			return -1;
		off += (size_t)a->per[e];
	}
	return 0;
}

static void run_moe(struct gctx *g, const struct moe_src *src, enum gpu_proj p, enum gpu_dtype d, const long *tokens,
		    int ntok)
{
	const struct gpu_moe_model *m = &src->m;
	const struct gpu_dtype_info *t = gpu_dtype(d);
	struct result *rows[16];
	long n, k;
	gpu_moe_nk(m, p, &n, &k);
	for (int i = 0; i < ntok; i++) {
		char id[96], title[256];
		snprintf(id, sizeof id, "bench.gpu-moe-%s-%s-%s-t%ld", m->key, proj_name(p), t->name, tokens[i]);
		snprintf(title, sizeof title, "grouped GEMM %s %s (n %ld, k %ld), %ld tokens x top-%d over %d experts, %s",
			 src->name ? src->name : m->key, proj_name(p), n, k, tokens[i], m->top_k, m->experts, t->name);
		rows[i] = gpu_row(g->b, id, title);
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
	if (!(w = dm_alloc(g, &dm, wbytes * pool, err, errlen)) ||
	    !(x = dm_alloc(g, &dm, pairs_max * k * t->ab_bytes, err, errlen)) ||
	    !(out = dm_alloc(g, &dm, pairs_max * n * t->cd_bytes, err, errlen)))
		goto fail;
	if (fill_random(g, w, wbytes * pool, t->ab_type, err, errlen) ||
	    fill_random(g, x, pairs_max * k * t->ab_bytes, t->ab_type, err, errlen))
		goto fail;
	for (i = 0; i < ntok; i++) {
		struct result *r = rows[i];
		if (over_budget(g)) {
			row_not_run(g, r, ST_SKIP, "not run: the time budget (--timeout) was spent or the run was interrupted");
			continue;
		}
		int active = gpu_moe_split(tokens[i], m->top_k, m->experts, per);
		long base = per[m->experts - 1], hi = per[0];
		struct lt_gemm q[2];
		memset(q, 0, sizeof q);
		int rc = 0;
		if (base > 0)
			rc = lt_gemm_init(g, &q[0], d, n, base, k, err, errlen);
		if (rc == 0 && hi != base)
			rc = lt_gemm_init(g, &q[1], d, n, hi, k, err, errlen);
		if (rc != 0) {
			lt_gemm_free(g, &q[0]);
			lt_gemm_free(g, &q[1]);
			if (rc < 0)
				goto fail;
			row_not_run(g, r, ST_SKIP, err);
			continue;
		}
		struct moe_arg a = { { &q[0], &q[1] }, base, per, m->experts, pool, w, x, out, wbytes,
				     (size_t)k * t->ab_bytes, (size_t)n * t->cd_bytes };
		struct timing tm;
		rc = measure(g, enq_moe, &a, target_ms(g), &tm, err, errlen);
		lt_gemm_free(g, &q[0]);
		lt_gemm_free(g, &q[1]);
		if (rc)
			goto fail;
		struct gpu_work wk = gpu_moe_work(m, p, tokens[i], d);
		double tflops = wk.flops / (tm.median_ms / 1e3) / 1e12;
		double gbs = wk.bytes / (tm.median_ms / 1e3) / 1e9;
		double roof = gpu_roofline_tflops(gpu_spec_num(g->spec, t->spec_key), gpu_spec_num(g->spec, "hbm_gb_s"),
						  wk.flops, wk.bytes);
		json_t *ob = json_object();
		json_object_set_new(ob, "model", json_string(m->key));
		json_object_set_new(ob, "projection", json_string(proj_name(p)));
		json_object_set_new(ob, "dtype", json_string(t->name));
		json_object_set_new(ob, "tokens", json_integer(tokens[i]));
		json_object_set_new(ob, "top_k", json_integer(m->top_k));
		json_object_set_new(ob, "experts", json_integer(m->experts));
		json_object_set_new(ob, "active_experts", json_integer(active));
		json_object_set_new(ob, "tokens_per_expert_min", json_integer(base));
		json_object_set_new(ob, "tokens_per_expert_max", json_integer(hi));
		json_object_set_new(ob, "n", json_integer(n));
		json_object_set_new(ob, "k", json_integer(k));
		json_object_set_new(ob, "gemm_calls", json_integer(active));
		json_object_set_new(ob, "weight_pool", json_integer(pool));
		json_object_set_new(ob, "flops", json_real(wk.flops));
		json_object_set_new(ob, "bytes", json_real(wk.bytes));
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
	dm_free(g, &dm);
	return;
fail:
	for (; i < ntok; i++)
		row_not_run(g, rows[i], ST_ERROR, err);
	free(per);
	dm_free(g, &dm);
}

/* ---- set-up ---------------------------------------------------------------- */

/* Load CUDA, find the device. Any reason not to run goes to skip_all. */
static void probe(struct gctx *g, json_t *dev)
{
	char why[400], ltwhy[400], eb[256];
	if (cuda_dl_open(&g->api, why, sizeof why, ltwhy, sizeof ltwhy) != 0) {
		snprintf(g->skip_all, sizeof g->skip_all, "CUDA runtime not found: %s", why);
		snprintf(g->skip_fig, sizeof g->skip_fig, "CUDA runtime library not found (see bench.gpu-device)");
		return;
	}
	json_object_set_new(dev, "cudart", json_string(g->api.rt_path));
	int v = 0;
	if (g->api.RuntimeGetVersion(&v) == 0)
		json_object_set_new(dev, "runtime_version", json_integer(v));
	v = 0;
	if (g->api.DriverGetVersion(&v) == 0)
		json_object_set_new(dev, "driver_version", json_integer(v));
	if (g->api.lt) {
		json_object_set_new(dev, "cublaslt", json_string(g->api.lt_path));
		json_object_set_new(dev, "cublaslt_version", json_integer((json_int_t)g->api.LtGetVersion()));
	} else {
		snprintf(g->skip_gemm, sizeof g->skip_gemm, "cuBLASLt not found: %s", ltwhy);
	}
	int count = 0; /* cudaGetDeviceCount leaves it alone on error */
	cudaError_t e = g->api.GetDeviceCount(&count);
	if (e != 0) {
		snprintf(g->skip_all, sizeof g->skip_all, "no usable GPU: cudaGetDeviceCount: %s%s",
			 cuda_dl_errstr(&g->api, e, eb, sizeof eb),
			 e == cudaErrorInsufficientDriver ? " (no NVIDIA driver, or one older than this CUDA runtime)" : "");
		snprintf(g->skip_fig, sizeof g->skip_fig, "no usable GPU: cudaGetDeviceCount error %d%s (see bench.gpu-device)", e,
			 e == cudaErrorInsufficientDriver ? " insufficient driver" : "");
		return;
	}
	json_object_set_new(dev, "device_count", json_integer(count));
	if (count == 0 || g->o->device >= count) {
		snprintf(g->skip_all, sizeof g->skip_all, "no GPU %d: the CUDA runtime sees %d device%s", g->o->device, count,
			 count == 1 ? "" : "s");
		snprintf(g->skip_fig, sizeof g->skip_fig, "no GPU %d (see bench.gpu-device)", g->o->device);
		return;
	}
	int maj = 0, min = 0, sms = 0;
	static char props[16384]; /* cudaDeviceProp is about 1 KiB; the name comes first */
	if ((e = g->api.SetDevice(g->o->device)) != 0 ||
	    (e = g->api.DeviceGetAttribute(&maj, cudaDevAttrComputeCapabilityMajor, g->o->device)) != 0 ||
	    (e = g->api.DeviceGetAttribute(&min, cudaDevAttrComputeCapabilityMinor, g->o->device)) != 0 ||
	    (e = g->api.DeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, g->o->device)) != 0 ||
	    (e = g->api.GetDeviceProperties(props, g->o->device)) != 0 ||
	    (e = g->api.MemGetInfo(&g->mem_free, &g->mem_total)) != 0) {
		snprintf(g->skip_all, sizeof g->skip_all, "GPU %d unusable: %s", g->o->device,
			 cuda_dl_errstr(&g->api, e, eb, sizeof eb));
		snprintf(g->skip_fig, sizeof g->skip_fig, "GPU %d unusable: CUDA error %d (see bench.gpu-device)", g->o->device, e);
		return;
	}
	memcpy(g->name, props, sizeof g->name - 1);
	if (g->api.DeviceGetPCIBusId(g->busid, sizeof g->busid, g->o->device) != 0)
		snprintf(g->busid, sizeof g->busid, "unknown");
	g->cc = maj * 10 + min;
	json_object_set_new(dev, "device", json_integer(g->o->device));
	json_object_set_new(dev, "name", json_string(g->name));
	json_object_set_new(dev, "pci_bus_id", json_string(g->busid));
	json_object_set_new(dev, "compute_capability", json_sprintf("%d.%d", maj, min));
	json_object_set_new(dev, "sms", json_integer(sms));
	json_object_set_new(dev, "memory_total_bytes", json_integer((json_int_t)g->mem_total));
	json_object_set_new(dev, "memory_free_bytes", json_integer((json_int_t)g->mem_free));
}

static int setup(struct gctx *g, char *err, size_t errlen)
{
	CK(g, g->api.StreamCreate(&g->stream), "cudaStreamCreate");
	CK(g, g->api.EventCreate(&g->ev0), "cudaEventCreate");
	CK(g, g->api.EventCreate(&g->ev1), "cudaEventCreate");
	if (!*g->skip_gemm) {
		/* cuBLAS recommends 32 MiB of workspace on Hopper and later */
		g->ws_size = 32u << 20;
		CK(g, g->api.Malloc(&g->ws, g->ws_size), "cudaMalloc (cuBLASLt workspace)");
		LK(g, g->api.LtCreate(&g->lt), "cublasLtCreate");
	}
	return 0;
fail:
	return -1;
}

static void teardown(struct gctx *g)
{
	if (!g->api.rt)
		return;
	if (g->lt)
		g->api.LtDestroy(g->lt);
	if (g->ws)
		g->api.Free(g->ws);
	if (g->ev0)
		g->api.EventDestroy(g->ev0);
	if (g->ev1)
		g->api.EventDestroy(g->ev1);
	if (g->stream)
		g->api.StreamDestroy(g->stream);
	cuda_dl_close(&g->api);
}

/* ---- output ----------------------------------------------------------------- */

static void table(FILE *out, const struct bench_run *b)
{
	fprintf(out, "cmax bench gpu on %s\n", ts_str(b->host));
	for (size_t i = 0; i < b->nrows; i++) {
		const struct result *r = b->rows[i];
		fprintf(out, "%-5s %-40s %s\n", status_name(r->status), r->id + strlen("bench.gpu-"), ts_str(r->summary));
	}
}

static void plan_text(const struct gopts *o, const struct moe_src *mods, int nmod, const long *tok, int ntok)
{
	printf("cmax bench gpu --dry-run: nothing is loaded or run.\n"
	       "Would load libcudart.so.13/.12 and libcublasLt.so.13/.12 with dlopen, use CUDA device %d\n"
	       "for at most %d s, and measure:\n", o->device, o->b.timeout_s);
	if (o->parts & P_COPY)
		printf("  copy: pinned host-to-device, device-to-host, device-to-device (%d MiB)\n", o->b.full ? 1024 : 256);
	if (o->parts & P_GEMV)
		printf("  gemv: one-token BF16 GEMV (HBM bandwidth)\n");
	for (int d = 0; d < GD__COUNT; d++) {
		if (!(o->dtypes & (1u << d)))
			continue;
		if (o->parts & P_MAMF)
			printf("  mamf: %s M,N,K sweep (%s grid)\n", gpu_dtype(d)->name, o->b.full ? "full" : "quick");
		if (o->parts & P_MOE)
			for (int i = 0; i < nmod; i++) {
				printf("  moe: %s %s gate-up and down, tokens", mods[i].m.key, gpu_dtype(d)->name);
				for (int j = 0; j < ntok; j++)
					printf(" %ld", tok[j]);
				printf("\n");
			}
	}
	printf("No files are written. Other work on the GPU slows down meanwhile.\n");
}

static int confirm(const struct gctx *g)
{
	if (g->o->b.yes)
		return 0;
	if (!isatty(STDIN_FILENO)) {
		fprintf(stderr, "cmax bench gpu: this benchmark keeps GPU %d (%s) busy for up to %d s; pass --yes to run it, "
				"or --dry-run to see the plan\n", g->o->device, g->name, g->o->b.timeout_s);
		return EXIT_USAGE;
	}
	fprintf(stderr, "cmax bench gpu will keep GPU %d (%s, %s) busy for up to %d s. Run it? [y/N] ", g->o->device,
		g->name, g->busid, g->o->b.timeout_s);
	fflush(stderr);
	char line[32];
	if (!fgets(line, sizeof line, stdin) || (line[0] != 'y' && line[0] != 'Y'))
		return EXIT_DECLINED;
	return 0;
}

static json_t *load_data(const char *file, const char *dflt, const char *schema, int *rc)
{
	char *path = file ? xstrdup(file) : datafile_path(dflt), *err = NULL;
	/* validated against its schema before use (core/policyfile.h) */
	json_t *j = policy_load(path, schema, POLICY_JSON, rc, &err);
	if (!j) {
		fprintf(stderr, "cmax bench gpu: %s\n", err);
		*rc = EXIT_DATAERR; /* a missing file too, as before */
	}
	free(err);
	free(path);
	return j;
}

int bench_gpu_main(int argc, char **argv)
{
	struct gopts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	json_t *shapes = load_data(o.shapes_file, "gemm-shapes.json", "gemm-shapes", &rc);
	json_t *specs = shapes ? load_data(o.specs_file, "gpu-specs.json", "gpu-specs", &rc) : NULL;
	json_t *models = specs ? load_data(NULL, "gpu-models.json", "gpu-models", &rc) : NULL;
	struct moe_src mods[8];
	long tok[16];
	int nmod = shapes ? load_models(shapes, mods, 8) : 0, ntok = shapes ? token_counts(&o, shapes, tok) : 0;
	if (!rc && (nmod <= 0 || ntok <= 0)) {
		fprintf(stderr, "cmax bench gpu: the shapes file has no usable moe_models or token_counts\n");
		rc = EXIT_DATAERR;
	}
	if (rc) {
		json_decref(shapes);
		json_decref(specs);
		json_decref(models);
		return rc;
	}
	/* No file system is involved: bench_init wants a directory, so give it
	 * "/" and record "none". */
	o.b.path = "/";
	struct bench_run b;
	rc = bench_init(&b, "gpu", &o.b, argc, argv);
	o.b.path = "none";
	free(b.fstype);
	b.fstype = xstrdup("none");
	struct gctx g;
	memset(&g, 0, sizeof g);
	g.b = &b;
	g.o = &o;
	if (rc)
		goto out;
	json_t *par = b.params;
	json_object_set_new(par, "mode", json_string(o.b.full ? "full" : "quick"));
	json_object_set_new(par, "device", json_integer(o.device));
	json_object_set_new(par, "timeout_s", json_integer(o.b.timeout_s));
	json_object_set_new(par, "rep_ms", json_integer(o.rep_ms));
	json_t *dl = json_array(), *pl = json_array(), *tl = json_array();
	for (int d = 0; d < GD__COUNT; d++)
		if (o.dtypes & (1u << d))
			json_array_append_new(dl, json_string(gpu_dtype(d)->name));
	for (int p = 0; p < 4; p++)
		if (o.parts & (1u << p))
			json_array_append_new(pl, json_string(part_names[p]));
	for (int i = 0; i < ntok; i++)
		json_array_append_new(tl, json_integer(tok[i]));
	json_object_set_new(par, "dtypes", dl);
	json_object_set_new(par, "parts", pl);
	json_object_set_new(par, "moe_tokens", tl);
	json_object_set_new(par, "grouped_gemm", json_string("a loop of cublasLtMatmul calls, one per expert with tokens, on one stream"));
	if (o.b.dry_run) {
		if (o.b.json) {
			json_t *p = json_object();
			json_object_set_new(p, "schema", json_string("cmax.bench.plan/1"));
			json_object_set_new(p, "benchmark", json_string("gpu"));
			json_object_set_new(p, "parameters", json_incref(par));
			json_object_set_new(p, "writes", json_string("nothing"));
			json_dumpf(p, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			fputc('\n', stdout);
			json_decref(p);
		} else {
			plan_text(&o, mods, nmod, tok, ntok);
		}
		rc = EXIT_OK;
		goto out;
	}
	json_t *dev = json_object();
	probe(&g, dev);
	struct result *r = gpu_row(&b, "bench.gpu-device", "CUDA runtime, cuBLASLt and the GPU under test");
	if (!*g.skip_all) {
		g.spec = gpu_spec_lookup(specs, models, g.name, o.gpu_model, &g.spec_key);
		json_object_set_new(dev, "spec_key", g.spec_key ? json_string(g.spec_key) : json_null());
		json_object_set_new(dev, "spec", g.spec ? json_deep_copy(g.spec) : json_null());
	}
	r_observed(r, dev);
	if (*g.skip_all) {
		r_skip(r, "%s", g.skip_all);
	} else {
		if ((rc = confirm(&g)) != 0) {
			teardown(&g);
			goto out;
		}
		char err[512];
		if (setup(&g, err, sizeof err) != 0) {
			snprintf(g.skip_all, sizeof g.skip_all, "set-up failed: %.480s", err);
			snprintf(g.skip_fig, sizeof g.skip_fig, "not run: set-up failed (see bench.gpu-device)");
			r_error(r, "%s", g.skip_all);
		} else if (*g.skip_gemm) {
			r_warn(r, "%s (sm_%d) found, but %s: only the copy figures run", g.name, g.cc, g.skip_gemm);
		} else {
			r_pass(r, "%s (sm_%d, %s), %s%s", g.name, g.cc, g.busid,
			       g.spec ? "graded against gpu-specs.json " : "no entry in gpu-specs.json: figures are not graded",
			       g.spec ? g.spec_key : "");
		}
	}
	bench_install_signals();
	g.deadline_ms = b.t0_ms + (long)o.b.timeout_s * 1000;
	if (o.parts & P_COPY)
		run_copy(&g, shapes);
	if (o.parts & P_GEMV)
		run_gemv(&g, shapes);
	for (int d = 0; d < GD__COUNT; d++)
		if ((o.parts & P_MAMF) && (o.dtypes & (1u << d)))
			run_mamf(&g, shapes, (enum gpu_dtype)d);
	for (int i = 0; i < nmod && (o.parts & P_MOE); i++)
		for (int p = GP_GATE_UP; p <= GP_DOWN; p++)
			for (int d = 0; d < GD__COUNT; d++)
				if (o.dtypes & (1u << d))
					run_moe(&g, &mods[i], (enum gpu_proj)p, (enum gpu_dtype)d, tok, ntok);
	teardown(&g);
	rc = bench_finish(&b, table);
out:
	bench_free(&b);
	json_decref(shapes);
	json_decref(specs);
	json_decref(models);
	return rc;
}
