/* Pure arithmetic and lookups of the GPU benchmark (see gpu_calc.h). */
#include "bench/gpu_calc.h"
#include "bench/bench.h"
#include "bench/cuda_dl.h"
#include "policy/gpu_models.h"
#include <math.h>
#include <string.h>

/* FP16 and BF16 accumulate in FP32 (the datasheets' dense FP16/BF16 tensor
 * figure); TF32 is FP32 storage with tensor-core TF32 math; FP8 is E4M3
 * inputs with BF16 output, the layout Hopper's FP8 GEMMs support. */
static const struct gpu_dtype_info dtypes[GD__COUNT] = {
	[GD_BF16] = { "bf16", "bf16_tflops", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 2, 80 },
	[GD_FP16] = { "fp16", "fp16_tflops", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 2, 70 },
	[GD_TF32] = { "tf32", "tf32_tflops", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4, 80 },
	[GD_FP8] = { "fp8", "fp8_tflops", CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 1, 2, 89 },
};

const struct gpu_dtype_info *gpu_dtype(enum gpu_dtype d)
{
	return (unsigned)d < GD__COUNT ? &dtypes[d] : NULL;
}

int gpu_dtype_parse(const char *s)
{
	for (int i = 0; i < GD__COUNT; i++)
		if (s && !strcmp(s, dtypes[i].name))
			return i;
	return -1;
}

int gpu_moe_split(long tokens, int top_k, int experts, long *per)
{
	if (tokens <= 0 || top_k <= 0 || experts <= 0)
		return 0;
	long pairs = tokens * top_k, base = pairs / experts, rem = pairs % experts;
	if (per)
		for (int e = 0; e < experts; e++)
			per[e] = base + (e < rem);
	return base > 0 ? experts : (int)rem;
}

void gpu_moe_nk(const struct gpu_moe_model *m, enum gpu_proj p, long *n, long *k)
{
	if (p == GP_GATE_UP) {
		*n = 2 * m->inter;
		*k = m->hidden;
	} else {
		*n = m->hidden;
		*k = m->inter;
	}
}

double gpu_gemm_flops(double m, double n, double k)
{
	return 2.0 * m * n * k;
}

struct gpu_work gpu_moe_work(const struct gpu_moe_model *m, enum gpu_proj p, long tokens, enum gpu_dtype d)
{
	struct gpu_work w = { 0, 0, 0 };
	const struct gpu_dtype_info *t = gpu_dtype(d);
	long n, k;
	if (!t)
		return w;
	gpu_moe_nk(m, p, &n, &k);
	double pairs = (double)tokens * m->top_k;
	w.active = gpu_moe_split(tokens, m->top_k, m->experts, NULL);
	w.flops = gpu_gemm_flops(pairs, (double)n, (double)k);
	w.bytes = (double)w.active * n * k * t->ab_bytes + pairs * k * t->ab_bytes + pairs * n * t->cd_bytes;
	return w;
}

double gpu_roofline_tflops(double peak, double bw, double flops, double bytes)
{
	if (!(peak > 0) || !(bw > 0) || !(flops > 0) || !(bytes > 0))
		return NAN;
	double mem = flops / bytes * bw * 1e9 / 1e12;
	return mem < peak ? mem : peak;
}

const json_t *gpu_spec_lookup(const json_t *specs, const json_t *models, const char *devname,
			      const char *key_override, const char **key)
{
	const char *k = key_override;
	*key = NULL;
	if (!k) {
		const json_t *m = gpu_model_match(models, "nvidia", devname, NULL);
		k = json_string_value(json_object_get(m, "key"));
	}
	if (!k)
		return NULL;
	*key = k;
	const json_t *s = json_object_get(json_object_get(specs, "models"), k);
	return json_is_object(s) ? s : NULL;
}

double gpu_spec_num(const json_t *spec, const char *field)
{
	json_t *v = json_object_get(spec, field);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

enum status gpu_grade_ratio(const json_t *th, double measured, double reference, double *ratio,
			    const char **why)
{
	*ratio = NAN;
	if (isnan(measured)) {
		*why = "not measured";
		return ST_SKIP;
	}
	if (!(reference > 0)) {
		*why = "no reference figure for this GPU model, not graded";
		return ST_SKIP;
	}
	*ratio = measured / reference;
	return bench_grade(th, *ratio, why);
}
