/* dlopen of the CUDA runtime and cuBLASLt (see cuda_dl.h for the ABI). */
#include "bench/cuda_dl.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *open_lib(const char *const *names, char *path, size_t plen, char *why, size_t whylen)
{
	const char *dir = getenv("CMAX_CUDA_LIBDIR");
	const char *dirs[3];
	int nd = 0;
	if (dir && *dir)
		dirs[nd++] = dir;
	else {
		dirs[nd++] = NULL; /* the loader's own search */
		dirs[nd++] = "/usr/local/cuda/lib64";
	}
	char first_err[160] = "";
	for (int d = 0; d < nd; d++)
		for (int i = 0; names[i]; i++) {
			char p[512];
			if (dirs[d])
				snprintf(p, sizeof p, "%s/%s", dirs[d], names[i]);
			else
				snprintf(p, sizeof p, "%s", names[i]);
			void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
			if (h) {
				snprintf(path, plen, "%s", p);
				return h;
			}
			if (!*first_err) {
				const char *e = dlerror();
				snprintf(first_err, sizeof first_err, "%.150s", e ? e : p);
			}
		}
	snprintf(why, whylen, "%s and %s not found%s%s (%s)", names[0], names[1],
		 dir && *dir ? " in CMAX_CUDA_LIBDIR=" : "", dir && *dir ? dir : "", first_err);
	return NULL;
}

#define SYM(h, field, name, required)                                          \
	do {                                                                    \
		*(void **)(&a->field) = dlsym(h, name);                         \
		if (!a->field && (required)) {                                  \
			snprintf(miss, sizeof miss, "%s", name);                 \
			goto missing;                                           \
		}                                                               \
	} while (0)

int cuda_dl_open(struct cuda_api *a, char *why, size_t whylen, char *lt_why, size_t lt_whylen)
{
	static const char *const rt_names[] = { "libcudart.so.13", "libcudart.so.12", NULL };
	static const char *const lt_names[] = { "libcublasLt.so.13", "libcublasLt.so.12", NULL };
	char miss[64] = "";
	memset(a, 0, sizeof *a);
	*lt_why = 0;
	a->rt = open_lib(rt_names, a->rt_path, sizeof a->rt_path, why, whylen);
	if (!a->rt)
		return -1;
	void *h = a->rt;
	SYM(h, RuntimeGetVersion, "cudaRuntimeGetVersion", 1);
	SYM(h, DriverGetVersion, "cudaDriverGetVersion", 1);
	SYM(h, GetDeviceCount, "cudaGetDeviceCount", 1);
	SYM(h, SetDevice, "cudaSetDevice", 1);
	SYM(h, DeviceGetAttribute, "cudaDeviceGetAttribute", 1);
	/* 12.x exports the current struct as _v2, 13.x as the plain name; the
	 * name is the first member in both. */
	SYM(h, GetDeviceProperties, "cudaGetDeviceProperties_v2", 0);
	if (!a->GetDeviceProperties)
		SYM(h, GetDeviceProperties, "cudaGetDeviceProperties", 1);
	SYM(h, DeviceGetPCIBusId, "cudaDeviceGetPCIBusId", 1);
	SYM(h, MemGetInfo, "cudaMemGetInfo", 1);
	SYM(h, Malloc, "cudaMalloc", 1);
	SYM(h, Free, "cudaFree", 1);
	SYM(h, MallocHost, "cudaMallocHost", 1);
	SYM(h, FreeHost, "cudaFreeHost", 1);
	SYM(h, Memcpy, "cudaMemcpy", 1);
	SYM(h, MemcpyAsync, "cudaMemcpyAsync", 1);
	SYM(h, Memset, "cudaMemset", 1);
	SYM(h, StreamCreate, "cudaStreamCreate", 1);
	SYM(h, StreamDestroy, "cudaStreamDestroy", 1);
	SYM(h, StreamSynchronize, "cudaStreamSynchronize", 1);
	SYM(h, EventCreate, "cudaEventCreate", 1);
	SYM(h, EventDestroy, "cudaEventDestroy", 1);
	SYM(h, EventRecord, "cudaEventRecord", 1);
	SYM(h, EventSynchronize, "cudaEventSynchronize", 1);
	SYM(h, EventElapsedTime, "cudaEventElapsedTime", 1);
	SYM(h, DeviceSynchronize, "cudaDeviceSynchronize", 1);
	SYM(h, GetLastError, "cudaGetLastError", 1);
	SYM(h, GetErrorName, "cudaGetErrorName", 1);
	SYM(h, GetErrorString, "cudaGetErrorString", 1);

	a->lt = open_lib(lt_names, a->lt_path, sizeof a->lt_path, lt_why, lt_whylen);
	if (!a->lt)
		return 0;
	h = a->lt;
	SYM(h, LtGetVersion, "cublasLtGetVersion", 1);
	SYM(h, LtGetStatusName, "cublasLtGetStatusName", 0);
	SYM(h, LtCreate, "cublasLtCreate", 1);
	SYM(h, LtDestroy, "cublasLtDestroy", 1);
	SYM(h, LtMatmulDescCreate, "cublasLtMatmulDescCreate", 1);
	SYM(h, LtMatmulDescDestroy, "cublasLtMatmulDescDestroy", 1);
	SYM(h, LtMatmulDescSetAttribute, "cublasLtMatmulDescSetAttribute", 1);
	SYM(h, LtMatrixLayoutCreate, "cublasLtMatrixLayoutCreate", 1);
	SYM(h, LtMatrixLayoutDestroy, "cublasLtMatrixLayoutDestroy", 1);
	SYM(h, LtMatmulPreferenceCreate, "cublasLtMatmulPreferenceCreate", 1);
	SYM(h, LtMatmulPreferenceDestroy, "cublasLtMatmulPreferenceDestroy", 1);
	SYM(h, LtMatmulPreferenceSetAttribute, "cublasLtMatmulPreferenceSetAttribute", 1);
	SYM(h, LtMatmulAlgoGetHeuristic, "cublasLtMatmulAlgoGetHeuristic", 1);
	SYM(h, LtMatmul, "cublasLtMatmul", 1);
	return 0;
missing:
	if (h == a->lt) {
		snprintf(lt_why, lt_whylen, "%s lacks %s", a->lt_path, miss);
		dlclose(a->lt);
		a->lt = NULL;
		return 0;
	}
	snprintf(why, whylen, "%s lacks %s", a->rt_path, miss);
	dlclose(a->rt);
	a->rt = NULL;
	return -1;
}

void cuda_dl_close(struct cuda_api *a)
{
	/* libcudart keeps threads and atexit handlers; unloading it before
	 * exit is a known source of crashes at exit, so the handles stay
	 * loaded and only the table is forgotten. */
	memset(a, 0, sizeof *a);
}

const char *cuda_dl_errstr(const struct cuda_api *a, cudaError_t e, char *buf, size_t n)
{
	const char *nm = a->GetErrorName ? a->GetErrorName(e) : NULL;
	const char *s = a->GetErrorString ? a->GetErrorString(e) : NULL;
	snprintf(buf, n, "%s (%d): %s", nm ? nm : "cudaError", e, s ? s : "unknown error");
	return buf;
}

const char *cuda_dl_lt_errstr(const struct cuda_api *a, cublasStatus_t s, char *buf, size_t n)
{
	const char *nm = a->LtGetStatusName ? a->LtGetStatusName(s) : NULL;
	snprintf(buf, n, "%s (%d)", nm ? nm : "cublasStatus", s);
	return buf;
}
