/* The CUDA runtime and cuBLASLt, loaded at run time with dlopen: cmax is
 * built without any CUDA header or library, and a machine without CUDA (or
 * without a GPU) gets a reason instead of a crash.
 *
 * The few types, constants and prototypes below are declared here by hand.
 * They must match the C ABI of libcudart.so.12/.13 and libcublasLt.so.12/.13
 * exactly; values were taken from the CUDA 13.0 headers (driver_types.h,
 * library_types.h, cublas_api.h, cublasLt.h) and are unchanged since 12.0:
 * enums are C ints, handles and descriptors are pointers, and
 * cublasLtMatmulAlgo_t is 8 x uint64_t. Nothing else of CUDA is used. */
#ifndef CMAX_CUDA_DL_H
#define CMAX_CUDA_DL_H
#include <stddef.h>
#include <stdint.h>

/* ---- CUDA runtime (driver_types.h) ----------------------------------- */
typedef int cudaError_t;                /* enum cudaError */
typedef void *cudaStream_t;             /* struct CUstream_st * */
typedef void *cudaEvent_t;              /* struct CUevent_st * */
#define CUDA_SUCCESS_RT 0
#define cudaErrorMemoryAllocation 2
#define cudaErrorInsufficientDriver 35
#define cudaErrorNoDevice 100
enum { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3 };
enum { cudaDevAttrMultiProcessorCount = 16, cudaDevAttrComputeCapabilityMajor = 75,
       cudaDevAttrComputeCapabilityMinor = 76 };

/* ---- library_types.h / cublas_api.h / cublasLt.h ---------------------- */
typedef int cudaDataType_t;
enum { CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14, CUDA_R_8F_E4M3 = 28 };
typedef int cublasStatus_t;
#define CUBLAS_STATUS_SUCCESS 0
typedef int cublasComputeType_t;
enum { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_FAST_TF32 = 77 };
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
enum { CUBLASLT_MATMUL_DESC_TRANSA = 3, CUBLASLT_MATMUL_DESC_TRANSB = 4 };
enum { CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1 };
typedef void *cublasLtHandle_t;         /* struct cublasLtContext * */
typedef void *cublasLtMatmulDesc_t;     /* cublasLtMatmulDescOpaque_t * */
typedef void *cublasLtMatrixLayout_t;   /* cublasLtMatrixLayoutOpaque_t * */
typedef void *cublasLtMatmulPreference_t;
typedef struct {
	uint64_t data[8];
} cublasLtMatmulAlgo_t;
typedef struct {
	cublasLtMatmulAlgo_t algo;
	size_t workspaceSize;
	cublasStatus_t state;
	float wavesCount;
	int reserved[4];
} cublasLtMatmulHeuristicResult_t;

struct cuda_api {
	void *rt, *lt;                  /* dlopen handles */
	char rt_path[512], lt_path[512];
	cudaError_t (*RuntimeGetVersion)(int *);
	cudaError_t (*DriverGetVersion)(int *);
	cudaError_t (*GetDeviceCount)(int *);
	cudaError_t (*SetDevice)(int);
	cudaError_t (*DeviceGetAttribute)(int *, int, int);
	cudaError_t (*GetDeviceProperties)(void *, int); /* only the leading char name[256] is read */
	cudaError_t (*DeviceGetPCIBusId)(char *, int, int);
	cudaError_t (*MemGetInfo)(size_t *, size_t *);
	cudaError_t (*Malloc)(void **, size_t);
	cudaError_t (*Free)(void *);
	cudaError_t (*MallocHost)(void **, size_t);
	cudaError_t (*FreeHost)(void *);
	cudaError_t (*Memcpy)(void *, const void *, size_t, int);
	cudaError_t (*MemcpyAsync)(void *, const void *, size_t, int, cudaStream_t);
	cudaError_t (*Memset)(void *, int, size_t);
	cudaError_t (*StreamCreate)(cudaStream_t *);
	cudaError_t (*StreamDestroy)(cudaStream_t);
	cudaError_t (*StreamSynchronize)(cudaStream_t);
	cudaError_t (*EventCreate)(cudaEvent_t *);
	cudaError_t (*EventDestroy)(cudaEvent_t);
	cudaError_t (*EventRecord)(cudaEvent_t, cudaStream_t);
	cudaError_t (*EventSynchronize)(cudaEvent_t);
	cudaError_t (*EventElapsedTime)(float *, cudaEvent_t, cudaEvent_t);
	cudaError_t (*DeviceSynchronize)(void);
	cudaError_t (*GetLastError)(void);
	const char *(*GetErrorName)(cudaError_t);
	const char *(*GetErrorString)(cudaError_t);

	size_t (*LtGetVersion)(void);
	const char *(*LtGetStatusName)(cublasStatus_t); /* may be NULL */
	cublasStatus_t (*LtCreate)(cublasLtHandle_t *);
	cublasStatus_t (*LtDestroy)(cublasLtHandle_t);
	cublasStatus_t (*LtMatmulDescCreate)(cublasLtMatmulDesc_t *, cublasComputeType_t, cudaDataType_t);
	cublasStatus_t (*LtMatmulDescDestroy)(cublasLtMatmulDesc_t);
	cublasStatus_t (*LtMatmulDescSetAttribute)(cublasLtMatmulDesc_t, int, const void *, size_t);
	cublasStatus_t (*LtMatrixLayoutCreate)(cublasLtMatrixLayout_t *, cudaDataType_t, uint64_t, uint64_t, int64_t);
	cublasStatus_t (*LtMatrixLayoutDestroy)(cublasLtMatrixLayout_t);
	cublasStatus_t (*LtMatmulPreferenceCreate)(cublasLtMatmulPreference_t *);
	cublasStatus_t (*LtMatmulPreferenceDestroy)(cublasLtMatmulPreference_t);
	cublasStatus_t (*LtMatmulPreferenceSetAttribute)(cublasLtMatmulPreference_t, int, const void *, size_t);
	cublasStatus_t (*LtMatmulAlgoGetHeuristic)(cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
						   cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
						   cublasLtMatrixLayout_t, cublasLtMatmulPreference_t, int,
						   cublasLtMatmulHeuristicResult_t *, int *);
	cublasStatus_t (*LtMatmul)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,
				   cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t, const void *,
				   const void *, cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
				   const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t);
};

/* Load libcudart and libcublasLt (.13 then .12). The search: with
 * $CMAX_CUDA_LIBDIR set, only that directory (tests point it at
 * /nonexistent to act out a machine without CUDA); otherwise the dynamic
 * loader's path, then /usr/local/cuda/lib64. 0, or -1 with a one-line
 * reason in why. cublasLt missing is not an error: a->lt stays NULL and
 * lt_why says why (the copy figures need only the runtime). */
int cuda_dl_open(struct cuda_api *a, char *why, size_t whylen, char *lt_why, size_t lt_whylen);
void cuda_dl_close(struct cuda_api *a);
/* "cudaErrorInsufficientDriver (35): CUDA driver version is insufficient..."
 * into buf. */
const char *cuda_dl_errstr(const struct cuda_api *a, cudaError_t e, char *buf, size_t n);
const char *cuda_dl_lt_errstr(const struct cuda_api *a, cublasStatus_t s, char *buf, size_t n);
#endif
