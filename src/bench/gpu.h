/* The GPU benchmark's own parts (gpu.c: options, data files, plan, hooks;
 * gpu_cuda.c: the CUDA runtime and cuBLASLt through dlopen; gpu_sweep.c:
 * the figures); not for other benchmarks. */
#ifndef CMAX_BENCH_GPU_H
#define CMAX_BENCH_GPU_H
#include "bench/bench.h"
#include "bench/cuda_dl.h"
#include "bench/gpu_calc.h"
#include <stddef.h>

enum { P_COPY = 1, P_GEMV = 2, P_MAMF = 4, P_MOE = 8, P_ALL = 15 };
struct gopts {
	struct bench_opts b;
	long long device;
	unsigned dtypes;        /* bit per enum gpu_dtype */
	unsigned parts;
	const char *shapes_file, *specs_file, *gpu_model;
	const char *only, *dtype_list, *token_list; /* as given: --only, --dtypes, --tokens */
	long tokens[16];
	int ntokens;            /* 0: from the shapes file */
	long long rep_ms;             /* timed repetitions per figure last about this long */
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

struct moe_src {
	struct gpu_moe_model m;
	const char *name;
};

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

struct devmem {
	void *p[8];
	int n;
};

/* One GEMM shape on cuBLASLt, PyTorch convention out[m x n] = x[m x k] W^T
 * in column-major terms: D (n x m) = op(W) (n x k) x X (k x m), W stored
 * k x n with transa = T ("TN", the layout FP8 needs on Hopper). */
struct lt_gemm {
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t la, lb, ld;
	cublasLtMatmulAlgo_t algo;
	int ok;
};

/* Time fn (which enqueues work on g->stream): two warm-up calls, one to
 * size the repetitions to about gpu_target_ms, then 3..100 timed runs, each
 * between two events. Median and best in ms. */
typedef int (*enqueue_fn)(struct gctx *g, void *arg, char *err, size_t errlen);

struct timing {
	double median_ms, best_ms;
	int reps;
};

const char *gpu_proj_name(enum gpu_proj p);
void gpu_run_copy(struct gctx *g, const json_t *shapes);
void gpu_run_gemv(struct gctx *g, const json_t *shapes);
void gpu_run_mamf(struct gctx *g, const json_t *shapes, enum gpu_dtype d);
void gpu_run_moe(struct gctx *g, const struct moe_src *src, enum gpu_proj p, enum gpu_dtype d, const long *tokens,
		 int ntok);
int gpu_over_budget(const struct gctx *g);
int gpu_fill_random(struct gctx *g, void *dev, size_t bytes, int type, char *err, size_t errlen);
void *gpu_dm_alloc(struct gctx *g, struct devmem *dm, size_t bytes, char *err, size_t errlen);
void gpu_dm_free(struct gctx *g, struct devmem *dm);
void gpu_lt_gemm_free(struct gctx *g, struct lt_gemm *q);
int gpu_lt_gemm_init(struct gctx *g, struct lt_gemm *q, enum gpu_dtype d, long n, long m, long k, char *err,
		     size_t errlen);
int gpu_lt_gemm_run(struct gctx *g, const struct lt_gemm *q, const void *w, const void *x, void *out, char *err,
		    size_t errlen);
int gpu_cmp_double(const void *a, const void *b);
int gpu_measure(struct gctx *g, enqueue_fn fn, void *arg, double target_ms, struct timing *t, char *err, size_t errlen);
double gpu_target_ms(const struct gctx *g);
void gpu_probe(struct gctx *g, json_t *dev);
int gpu_setup(struct gctx *g, char *err, size_t errlen);
void gpu_teardown(struct gctx *g);
#endif
