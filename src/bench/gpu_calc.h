/* The pure parts of `cmax bench gpu`: data types, MoE token routing,
 * FLOP and byte counts per shape, the roofline, the spec lookup in
 * data/gpu-specs.json and the grading of a figure against its spec. No
 * CUDA here; tests/unit/test_bench_gpu.c covers all of it. */
#ifndef CMAX_GPU_CALC_H
#define CMAX_GPU_CALC_H
#include <jansson.h>
#include "core/result.h"

enum gpu_dtype { GD_BF16, GD_FP16, GD_TF32, GD_FP8, GD__COUNT };

struct gpu_dtype_info {
	const char *name;       /* "bf16" */
	const char *spec_key;   /* "bf16_tflops" in gpu-specs.json */
	int ab_type;            /* cudaDataType of A and B */
	int cd_type;            /* cudaDataType of C and D */
	int compute;            /* cublasComputeType */
	int ab_bytes, cd_bytes; /* bytes per element */
	int min_cc;             /* lowest compute capability x10 (89 = sm_89) */
};
const struct gpu_dtype_info *gpu_dtype(enum gpu_dtype d);
/* "bf16" -> GD_BF16; -1 when unknown. */
int gpu_dtype_parse(const char *s);

/* Spread tokens x top_k routed (token, expert) pairs evenly over experts:
 * the first (pairs % experts) experts get one more. Fills per[experts]
 * when per is not NULL; returns the number of experts with at least one
 * token. */
int gpu_moe_split(long tokens, int top_k, int experts, long *per);

enum gpu_proj { GP_GATE_UP, GP_DOWN };
struct gpu_moe_model {
	const char *key;        /* "deepseek-v3" */
	long hidden, inter;     /* hidden_size, moe_intermediate_size */
	int experts, top_k;
};
/* GEMM of one projection, PyTorch convention: out[m x n] = x[m x k] W^T;
 * m is the tokens of one expert. gate_up: n = 2 x inter, k = hidden;
 * down: n = hidden, k = inter. */
void gpu_moe_nk(const struct gpu_moe_model *m, enum gpu_proj p, long *n, long *k);

struct gpu_work {
	double flops;           /* 2 m n k summed over the group */
	double bytes;           /* weights of every active expert + activations in + out, read/written once */
	int active;             /* experts with tokens */
};
struct gpu_work gpu_moe_work(const struct gpu_moe_model *m, enum gpu_proj p, long tokens, enum gpu_dtype d);
double gpu_gemm_flops(double m, double n, double k);
/* min(peak, flops/bytes x bandwidth) in TFLOPS; NAN when an input is
 * unknown (NAN or <= 0). peak in TFLOPS, bandwidth in GB/s. */
double gpu_roofline_tflops(double peak_tflops, double bw_gb_s, double flops, double bytes);

/* The spec record of a device name ("NVIDIA H100 80GB HBM3"): the model is
 * found in gpu-models.json (names/prefixes, as the audit does), then its key
 * in gpu-specs.json "models". key_override (--gpu-model) skips the name.
 * Borrowed or NULL; *key gets the model key or NULL. */
const json_t *gpu_spec_lookup(const json_t *specs, const json_t *models, const char *devname,
			      const char *key_override, const char **key);
/* A number field of a spec record; NAN when absent or null. */
double gpu_spec_num(const json_t *spec, const char *field);

/* Grade measured/reference against th ({warn_below, fail_below} on the
 * ratio). *ratio gets the ratio (NAN when the reference is unknown, and the
 * status is then ST_SKIP: a figure without a reference is not graded). */
enum status gpu_grade_ratio(const json_t *th, double measured, double reference, double *ratio,
			    const char **why);
#endif
