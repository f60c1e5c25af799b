/* `cmax bench gpu`: the CUDA runtime and cuBLASLt, loaded with dlopen
 * (cuda_dl.h): the device probe, set-up and teardown, device memory,
 * one GEMM shape on cuBLASLt, and timing with CUDA events. */
#include "bench/bench.h"
#include "core/clock.h"
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

/* ---- CUDA helpers --------------------------------------------------------- */

int gpu_over_budget(const struct gctx *g)
{
	return bench_interrupted() || clock_mono_ms() > g->deadline_ms;
}

/* Random values of moderate magnitude (|x| in 2^-4..2), written as bit
 * patterns so no conversion code is needed: tensor cores draw less power
 * on zeros, so zero-filled inputs would flatter the figures. The first
 * 1 MiB comes from the host, the rest is doubled on the device. */
int gpu_fill_random(struct gctx *g, void *dev, size_t bytes, int type, char *err, size_t errlen)
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

void *gpu_dm_alloc(struct gctx *g, struct devmem *dm, size_t bytes, char *err, size_t errlen)
{
	void *p = NULL;
	CK(g, g->api.Malloc(&p, bytes ? bytes : 1), "cudaMalloc");
	dm->p[dm->n++] = p;
	return p;
fail:
	return NULL;
}

void gpu_dm_free(struct gctx *g, struct devmem *dm)
{
	/* cudaFree synchronises; a failure here means a sticky error, which
	 * the next call reports where it matters */
	while (dm->n)
		g->api.Free(dm->p[--dm->n]);
}

void gpu_lt_gemm_free(struct gctx *g, struct lt_gemm *q)
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
int gpu_lt_gemm_init(struct gctx *g, struct lt_gemm *q, enum gpu_dtype d, long n, long m, long k, char *err,
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
		gpu_lt_gemm_free(g, q);
		return 1;
	}
	q->algo = res.algo;
	q->ok = 1;
	return 0;
fail:
	if (pref)
		g->api.LtMatmulPreferenceDestroy(pref);
	gpu_lt_gemm_free(g, q);
	return -1;
}

int gpu_lt_gemm_run(struct gctx *g, const struct lt_gemm *q, const void *w, const void *x, void *out, char *err,
		    size_t errlen)
{
	static const float one = 1.0f, zero = 0.0f;
	LK(g, g->api.LtMatmul(g->lt, q->desc, &one, w, q->la, x, q->lb, &zero, out, q->ld, out, q->ld, &q->algo, g->ws,
			      g->ws_size, g->stream), "cublasLtMatmul");
	return 0;
fail:
	return -1;
}

int gpu_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int gpu_measure(struct gctx *g, enqueue_fn fn, void *arg, double target_ms, struct timing *t, char *err, size_t errlen)
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
		if (gpu_over_budget(g))
			break;
	}
	qsort(s, (size_t)n, sizeof *s, gpu_cmp_double);
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

double gpu_target_ms(const struct gctx *g)
{
	return g->o->rep_ms;
}

/* ---- set-up ---------------------------------------------------------------- */

/* Load CUDA, find the device. Any reason not to run goes to skip_all. */
void gpu_probe(struct gctx *g, json_t *dev)
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
		snprintf(g->skip_all, sizeof g->skip_all, "no GPU %lld: the CUDA runtime sees %d device%s", g->o->device, count,
			 count == 1 ? "" : "s");
		snprintf(g->skip_fig, sizeof g->skip_fig, "no GPU %lld (see bench.gpu-device)", g->o->device);
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
		snprintf(g->skip_all, sizeof g->skip_all, "GPU %lld unusable: %s", g->o->device,
			 cuda_dl_errstr(&g->api, e, eb, sizeof eb));
		snprintf(g->skip_fig, sizeof g->skip_fig, "GPU %lld unusable: CUDA error %d (see bench.gpu-device)", g->o->device, e);
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

int gpu_setup(struct gctx *g, char *err, size_t errlen)
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

void gpu_teardown(struct gctx *g)
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
