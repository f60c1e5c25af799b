/* A stand-in for libcudart and libcublasLt so the measuring code of
 * `cmax bench gpu` runs on machines without a GPU: "device memory" is host
 * memory, copies are memcpy, a matmul is a short busy wait, events read the
 * monotonic clock. It checks what a real runtime would reject (NULL or
 * freed pointers, unknown copy kinds, layouts that do not fit the types)
 * and fails allocations above FAKECUDA_MEM_MIB (default 256) with
 * cudaErrorMemoryAllocation, so the error path runs too. Every live
 * allocation is counted; at exit a leak is reported on stderr.
 * FAKECUDA_NAME and FAKECUDA_CC (90 = sm_90) set the device,
 * FAKECUDA_MATMUL_US the time of one matmul (default 20 us).
 * Built by tests/cli/t-bench-gpu.sh: cc -shared -fPIC -o libcudart.so.13 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long live, live_bytes;
static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
static long cap(void)
{
	const char *e = getenv("FAKECUDA_MEM_MIB");
	return (e ? atol(e) : 256) << 20;
}
__attribute__((destructor)) static void report(void)
{
	if (live)
		fprintf(stderr, "fakecuda: %ld allocations (%ld bytes) not freed\n", live, live_bytes);
}
int cudaRuntimeGetVersion(int *v) { *v = 13000; return 0; }
int cudaDriverGetVersion(int *v) { *v = 13000; return 0; }
int cudaGetDeviceCount(int *n) { *n = 1; return 0; }
int cudaSetDevice(int d) { return d == 0 ? 0 : 101; }
int cudaDeviceGetAttribute(int *v, int attr, int d)
{
	(void)d;
	int cc = getenv("FAKECUDA_CC") ? atoi(getenv("FAKECUDA_CC")) : 90;
	*v = attr == 75 ? cc / 10 : attr == 76 ? cc % 10 : attr == 16 ? 132 : 0;
	return 0;
}
int cudaGetDeviceProperties(void *p, int d)
{
	(void)d;
	memset(p, 0, 1024);
	strcpy(p, getenv("FAKECUDA_NAME") ? getenv("FAKECUDA_NAME") : "NVIDIA H100 80GB HBM3");
	return 0;
}
int cudaDeviceGetPCIBusId(char *b, int n, int d) { (void)d; snprintf(b, (size_t)n, "00000000:19:00.0"); return 0; }
int cudaMemGetInfo(size_t *f, size_t *t) { *f = (size_t)cap(); *t = (size_t)cap(); return 0; }
struct hdr { long magic, bytes; };
static int alloc(void **p, size_t n)
{
	if (!p)
		return 1;
	if ((long)n > cap() - live_bytes)
		return 2; /* cudaErrorMemoryAllocation */
	struct hdr *h = malloc(sizeof *h + n);
	h->magic = 0x6375646131l;
	h->bytes = (long)n;
	live++;
	live_bytes += (long)n;
	*p = h + 1;
	return 0;
}
static int release(void *p)
{
	if (!p)
		return 0;
	struct hdr *h = (struct hdr *)p - 1;
	if (h->magic != 0x6375646131l)
		return 1; /* cudaErrorInvalidValue */
	h->magic = 0;
	live--;
	live_bytes -= h->bytes;
	free(h);
	return 0;
}
int cudaMalloc(void **p, size_t n) { return alloc(p, n); }
int cudaFree(void *p) { return release(p); }
int cudaMallocHost(void **p, size_t n) { return alloc(p, n); }
int cudaFreeHost(void *p) { return release(p); }
int cudaMemcpy(void *d, const void *s, size_t n, int k)
{
	if (!d || !s || k < 1 || k > 3)
		return 1;
	memcpy(d, s, n);
	return 0;
}
int cudaMemcpyAsync(void *d, const void *s, size_t n, int k, void *st) { (void)st; return cudaMemcpy(d, s, n, k); }
int cudaMemset(void *d, int v, size_t n) { if (!d) return 1; memset(d, v, n); return 0; }
int cudaStreamCreate(void **s) { *s = malloc(8); live++; return 0; }
int cudaStreamDestroy(void *s) { free(s); live--; return 0; }
int cudaStreamSynchronize(void *s) { (void)s; return 0; }
int cudaEventCreate(void **e) { *e = calloc(1, sizeof(double)); live++; return 0; }
int cudaEventDestroy(void *e) { free(e); live--; return 0; }
int cudaEventRecord(void *e, void *s) { (void)s; *(double *)e = now_ms(); return 0; }
int cudaEventSynchronize(void *e) { (void)e; return 0; }
int cudaEventElapsedTime(float *ms, void *a, void *b) { *ms = (float)(*(double *)b - *(double *)a); return 0; }
int cudaDeviceSynchronize(void) { return 0; }
int cudaGetLastError(void) { return 0; }
const char *cudaGetErrorName(int e) { return e == 2 ? "cudaErrorMemoryAllocation" : "cudaErrorFake"; }
const char *cudaGetErrorString(int e) { return e == 2 ? "out of memory" : "fake error"; }

/* cuBLASLt */
struct layout { int type; uint64_t rows, cols; int64_t ld; };
size_t cublasLtGetVersion(void) { return 130100; }
const char *cublasLtGetStatusName(int s) { return s == 15 ? "CUBLAS_STATUS_NOT_SUPPORTED" : "CUBLAS_STATUS_FAKE"; }
int cublasLtCreate(void **h) { *h = malloc(8); live++; return 0; }
int cublasLtDestroy(void *h) { free(h); live--; return 0; }
int cublasLtMatmulDescCreate(void **d, int c, int s) { (void)c; (void)s; *d = calloc(1, 64); live++; return 0; }
int cublasLtMatmulDescDestroy(void *d) { free(d); live--; return 0; }
int cublasLtMatmulDescSetAttribute(void *d, int a, const void *v, size_t n) { (void)d; (void)a; return v && n ? 0 : 7; }
int cublasLtMatrixLayoutCreate(void **l, int t, uint64_t r, uint64_t c, int64_t ld)
{
	if (ld < (int64_t)r)
		return 7; /* CUBLAS_STATUS_INVALID_VALUE */
	struct layout *x = malloc(sizeof *x);
	*x = (struct layout){ t, r, c, ld };
	*l = x;
	live++;
	return 0;
}
int cublasLtMatrixLayoutDestroy(void *l) { free(l); live--; return 0; }
int cublasLtMatmulPreferenceCreate(void **p) { *p = malloc(8); live++; return 0; }
int cublasLtMatmulPreferenceDestroy(void *p) { free(p); live--; return 0; }
int cublasLtMatmulPreferenceSetAttribute(void *p, int a, const void *v, size_t n) { (void)p; (void)a; return v && n ? 0 : 7; }
int cublasLtMatmulAlgoGetHeuristic(void *h, void *d, void *a, void *b, void *c, void *dd, void *p, int req, void *res,
				   int *found)
{
	(void)h; (void)d; (void)b; (void)c; (void)dd; (void)p;
	const struct layout *la = a;
	memset(res, 0, 96);
	/* no FP8 algorithm for k < 64, to exercise the "no algorithm" SKIP */
	*found = (la->type == 28 && la->rows < 64) ? 0 : req > 0;
	return 0;
}
int cublasLtMatmul(void *h, void *d, const void *al, const void *A, void *la, const void *B, void *lb, const void *be,
		   const void *C, void *lc, void *D, void *ld, const void *algo, void *ws, size_t wss, void *st)
{
	(void)h; (void)d; (void)la; (void)lb; (void)lc; (void)ld; (void)algo; (void)ws; (void)wss; (void)st;
	if (!al || !be || !A || !B || !C || !D)
		return 7;
	double t = now_ms() + (getenv("FAKECUDA_MATMUL_US") ? atof(getenv("FAKECUDA_MATMUL_US")) / 1e3 : 0.02);
	while (now_ms() < t)
		;
	return 0;
}
