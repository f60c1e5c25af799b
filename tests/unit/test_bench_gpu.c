/* The pure parts of `cmax bench gpu`: token routing, FLOP and byte counts
 * of the MoE shapes, the roofline, the spec lookup through gpu-models.json
 * names and the grading of a ratio. The figures of data/gemm-shapes.json
 * and data/gpu-specs.json are checked here too, so a typo in a data file
 * fails a test instead of a verdict. */
#include "bench/gpu_calc.h"
#include "bench/cuda_dl.h"
#include "policy/gpu_models.h"
#include "core/datafile.h"
#include "tap.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct gpu_moe_model dsv3 = { "deepseek-v3", 7168, 2048, 256, 8 };
static const struct gpu_moe_model kimi = { "kimi-k2", 7168, 2048, 384, 8 };

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fabs(b) + 1e-12;
}

static void test_split(void)
{
	long per[384];
	T_INTEQ(gpu_moe_split(128, 8, 256, per), 256, "128 tokens x top-8 over 256 experts: all active");
	T_OK(per[0] == 4 && per[255] == 4, "... 4 tokens each");
	T_INTEQ(gpu_moe_split(128, 8, 384, per), 384, "kimi: 1024 pairs over 384 experts: all active");
	T_OK(per[0] == 3 && per[255] == 3 && per[256] == 2 && per[383] == 2, "... 256 experts get 3, 128 get 2");
	long sum = 0;
	for (int e = 0; e < 384; e++)
		sum += per[e];
	T_INTEQ(sum, 1024, "... and no pair is lost");
	T_INTEQ(gpu_moe_split(10, 8, 256, per), 80, "10 tokens: only 80 experts have work");
	T_OK(per[79] == 1 && per[80] == 0, "... one token each, the rest idle");
	T_INTEQ(gpu_moe_split(0, 8, 256, per), 0, "no tokens, no active experts");
	T_INTEQ(gpu_moe_split(4096, 8, 256, NULL), 256, "per may be NULL");
}

static void test_flops(void)
{
	long n, k;
	gpu_moe_nk(&dsv3, GP_GATE_UP, &n, &k);
	T_OK(n == 4096 && k == 7168, "gate_up: n = 2 x 2048, k = 7168");
	gpu_moe_nk(&dsv3, GP_DOWN, &n, &k);
	T_OK(n == 7168 && k == 2048, "down: n = 7168, k = 2048");
	T_OK(near(gpu_gemm_flops(8192, 8192, 8192), 2.0 * 8192 * 8192 * 8192), "GEMM FLOPs = 2mnk");

	struct gpu_work w = gpu_moe_work(&dsv3, GP_GATE_UP, 4096, GD_BF16);
	T_OK(near(w.flops, 2.0 * 4096 * 8 * 4096 * 7168), "dsv3 gate_up 4096 tokens: 2 x 32768 x 4096 x 7168 FLOPs");
	T_INTEQ(w.active, 256, "... 256 active experts");
	double bytes = 256.0 * 4096 * 7168 * 2 + 32768.0 * 7168 * 2 + 32768.0 * 4096 * 2;
	T_OK(near(w.bytes, bytes), "... bytes = weights of 256 experts + x + out (bf16)");
	w = gpu_moe_work(&kimi, GP_DOWN, 128, GD_FP8);
	T_OK(near(w.flops, 2.0 * 1024 * 7168 * 2048), "kimi down 128 tokens FLOPs");
	bytes = 384.0 * 7168 * 2048 * 1 + 1024.0 * 2048 * 1 + 1024.0 * 7168 * 2;
	T_OK(near(w.bytes, bytes), "... fp8: 1-byte weights and x, bf16 out");
	w = gpu_moe_work(&kimi, GP_DOWN, 128, GD_TF32);
	T_OK(near(w.bytes, 384.0 * 7168 * 2048 * 4 + 1024.0 * 2048 * 4 + 1024.0 * 7168 * 4), "... tf32: 4-byte everything");
	/* intensity of the 128-token case is far below any GPU's ridge point */
	double ai = w.flops / w.bytes;
	T_OK(ai < 10, "small-token MoE GEMMs are memory-bound (%.2f FLOP/byte)", ai);
}

static void test_roofline(void)
{
	/* H100 SXM: 989.4 TFLOPS, 3350 GB/s; ridge at 295 FLOP/byte */
	T_OK(near(gpu_roofline_tflops(989.4, 3350, 1e12, 1e12), 3.35), "AI 1: 3.35 TFLOPS (bandwidth-bound)");
	T_OK(near(gpu_roofline_tflops(989.4, 3350, 1000e12, 1e12), 989.4), "AI 1000: capped at peak");
	T_OK(isnan(gpu_roofline_tflops(NAN, 3350, 1, 1)), "unknown peak: NAN");
	T_OK(isnan(gpu_roofline_tflops(989.4, 0, 1, 1)), "unknown bandwidth: NAN");
}

static void test_dtypes(void)
{
	T_INTEQ(gpu_dtype_parse("bf16"), GD_BF16, "parse bf16");
	T_INTEQ(gpu_dtype_parse("fp8"), GD_FP8, "parse fp8");
	T_INTEQ(gpu_dtype_parse("fp64"), -1, "fp64 is not offered");
	T_OK(gpu_dtype(GD_FP8)->min_cc == 89, "fp8 needs sm_89");
	T_OK(gpu_dtype(GD_FP8)->ab_type == CUDA_R_8F_E4M3 && gpu_dtype(GD_FP8)->cd_type == CUDA_R_16BF,
	     "fp8: E4M3 in, BF16 out");
	T_OK(gpu_dtype(GD_TF32)->compute == CUBLAS_COMPUTE_32F_FAST_TF32, "tf32 uses the FAST_TF32 compute type");
	T_OK(gpu_dtype(GD__COUNT) == NULL, "out of range: NULL");
	/* the ABI declared by hand in cuda_dl.h */
	T_INTEQ(sizeof(cublasLtMatmulAlgo_t), 64, "cublasLtMatmulAlgo_t is 64 bytes");
	T_INTEQ(sizeof(cublasLtMatmulHeuristicResult_t), 96, "cublasLtMatmulHeuristicResult_t is 96 bytes");
}

static json_t *load(const char *name)
{
	char *p = datafile_path(name), *err = NULL;
	json_t *j = datafile_load_json(p, &err);
	if (!j)
		printf("# %s: %s\n", name, err);
	free(p);
	free(err);
	return j;
}

static void test_specs(void)
{
	json_t *specs = load("gpu-specs.json"), *models = load("gpu-models.json");
	T_OK(specs && models, "gpu-specs.json and gpu-models.json load");
	const char *key;
	const json_t *s = gpu_spec_lookup(specs, models, "NVIDIA H100 80GB HBM3", NULL, &key);
	T_STREQ(key, "H100", "'NVIDIA H100 80GB HBM3' is H100");
	T_OK(near(gpu_spec_num(s, "bf16_tflops"), 989.4), "... dense BF16 989.4 TFLOPS");
	T_OK(near(gpu_spec_num(s, "hbm_gb_s"), 3350), "... 3350 GB/s");
	s = gpu_spec_lookup(specs, models, "NVIDIA H100 PCIe", NULL, &key);
	T_STREQ(key, "H100-PCIe", "'NVIDIA H100 PCIe' is not the SXM part");
	s = gpu_spec_lookup(specs, models, "NVIDIA H200", NULL, &key);
	T_OK(s && near(gpu_spec_num(s, "hbm_gb_s"), 4800), "H200: 4800 GB/s");
	s = gpu_spec_lookup(specs, models, "NVIDIA A100-SXM4-80GB", NULL, &key);
	T_OK(s && isnan(gpu_spec_num(s, "fp8_tflops")), "A100 has no FP8 figure (null)");
	s = gpu_spec_lookup(specs, models, "NVIDIA GB200", NULL, &key);
	T_OK(s && isnan(gpu_spec_num(s, "host_link_gb_s")), "GB200: per-GPU C2C share unknown (null)");
	s = gpu_spec_lookup(specs, models, "NVIDIA RTX 6000 Ada Generation", NULL, &key);
	T_OK(!s && !key, "an unknown GPU has no spec");
	s = gpu_spec_lookup(specs, models, "whatever", "B200", &key);
	T_STREQ(key, "B200", "--gpu-model overrides the name");
	T_OK(s && near(gpu_spec_num(s, "fp8_tflops"), 4500), "... B200 dense FP8 4500");

	/* every NVIDIA model key has a spec, every spec key is a model, and
	 * every figure is sane (dense: fp16 == bf16, tf32 == bf16 / 2, fp8 ==
	 * 2 x bf16 on the parts that have it) */
	size_t i;
	json_t *m;
	int missing = 0, odd = 0;
	json_array_foreach(json_object_get(models, "models"), i, m) {
		const char *v = json_string_value(json_object_get(m, "vendor"));
		const char *k = json_string_value(json_object_get(m, "key"));
		if (v && !strcmp(v, "nvidia") && !json_object_get(json_object_get(specs, "models"), k)) {
			printf("# no spec for %s\n", k);
			missing++;
		}
	}
	T_INTEQ(missing, 0, "every NVIDIA model in gpu-models.json has a spec");
	const char *k;
	json_t *e;
	json_object_foreach(json_object_get(specs, "models"), k, e) {
		double bf = gpu_spec_num(e, "bf16_tflops"), tf = gpu_spec_num(e, "tf32_tflops");
		double f8 = gpu_spec_num(e, "fp8_tflops");
		if (!gpu_model_by_key(models, k) || !(bf > 0) || !near(gpu_spec_num(e, "fp16_tflops"), bf) ||
		    fabs(tf / bf - 0.5) > 0.02 || (!isnan(f8) && fabs(f8 / bf - 2) > 0.05) ||
		    !(gpu_spec_num(e, "hbm_gb_s") > 100) || !json_is_string(json_object_get(e, "source"))) {
			printf("# odd spec %s\n", k);
			odd++;
		}
	}
	T_INTEQ(odd, 0, "every spec is a known model with consistent dense figures and a source");
	json_decref(specs);
	json_decref(models);
}

static void test_shapes(void)
{
	json_t *sh = load("gemm-shapes.json");
	T_OK(sh != NULL, "gemm-shapes.json loads");
	json_t *mm = json_object_get(sh, "moe_models");
	T_INTEQ(json_array_size(mm), 2, "two MoE model classes");
	json_t *d = json_array_get(mm, 0), *k = json_array_get(mm, 1);
	T_OK(json_integer_value(json_object_get(d, "hidden")) == 7168 &&
	     json_integer_value(json_object_get(d, "moe_intermediate")) == 2048 &&
	     json_integer_value(json_object_get(d, "routed_experts")) == 256 &&
	     json_integer_value(json_object_get(d, "top_k")) == 8, "DeepSeek-V3: 7168 / 2048 / 256 experts / top-8");
	T_OK(json_integer_value(json_object_get(k, "routed_experts")) == 384 &&
	     json_integer_value(json_object_get(k, "top_k")) == 8, "Kimi-K2: 384 experts / top-8");
	T_OK(json_is_string(json_object_get(d, "source")) && json_is_string(json_object_get(k, "source")),
	     "each model names its source");
	json_decref(sh);
}

static void test_grade(void)
{
	json_t *th = json_pack("{s:f, s:f}", "warn_below", 0.70, "fail_below", 0.50);
	const char *why;
	double r;
	T_INTEQ(gpu_grade_ratio(th, 800, 989.4, &r, &why), ST_PASS, "800 of 989 TFLOPS (0.81): PASS");
	T_OK(near(r, 800 / 989.4), "... ratio recorded");
	T_INTEQ(gpu_grade_ratio(th, 600, 989.4, &r, &why), ST_WARN, "600 of 989 (0.61): WARN");
	T_INTEQ(gpu_grade_ratio(th, 400, 989.4, &r, &why), ST_FAIL, "400 of 989 (0.40): FAIL");
	T_INTEQ(gpu_grade_ratio(th, 400, NAN, &r, &why), ST_SKIP, "no reference: SKIP, not graded");
	T_OK(isnan(r), "... ratio unknown");
	T_INTEQ(gpu_grade_ratio(th, NAN, 989.4, &r, &why), ST_SKIP, "not measured: SKIP");
	json_t *warn_only = json_pack("{s:f}", "warn_below", 0.25);
	T_INTEQ(gpu_grade_ratio(warn_only, 1, 100, &r, &why), ST_WARN, "warn-only threshold never FAILs");
	json_decref(th);
	json_decref(warn_only);
}

int main(void)
{
	test_split();
	test_flops();
	test_roofline();
	test_dtypes();
	test_specs();
	test_shapes();
	test_grade();
	return t_done();
}
