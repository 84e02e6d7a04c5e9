/* Exported cuBLAS GEMM entry points: each only describes its arguments and forwards to
 * blas_gemm_entry.  One macro per family makes both the int and the _64 (int64_t) form.
 * Prototypes are repeated here because cublas_api.h declares the __half ones for C++ only.
 */
#include "blas_internal.h"

/* cublas<t>gemm: types and compute implied by the name. */
#define GEMM(NAME, IT, T, TYPE, COMPUTE)                                                        \
	cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                    \
			    cublasOperation_t transb, IT m, IT n, IT k, const T *alpha,         \
			    const T *A, IT lda, const T *B, IT ldb, const T *beta, T *C, IT ldc); \
	cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                    \
			    cublasOperation_t transb, IT m, IT n, IT k, const T *alpha,         \
			    const T *A, IT lda, const T *B, IT ldb, const T *beta, T *C, IT ldc) \
	{                                                                                       \
		blas_gemm_call c = { #NAME, 0, handle, transa, transb, m, n, k,                 \
				     alpha, beta, A, B, C, TYPE, TYPE, TYPE, lda, ldb, ldc,     \
				     0, 0, 0, 1, COMPUTE, CUBLAS_GEMM_DEFAULT };                \
		return blas_gemm_entry(&c);                                                     \
	}

/* cublas<t>gemmStridedBatched */
#define GEMM_STRIDED(NAME, IT, T, TYPE, COMPUTE)                                                \
	cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                    \
			    cublasOperation_t transb, IT m, IT n, IT k, const T *alpha,         \
			    const T *A, IT lda, long long sa, const T *B, IT ldb, long long sb, \
			    const T *beta, T *C, IT ldc, long long sc, IT batch);               \
	cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                    \
			    cublasOperation_t transb, IT m, IT n, IT k, const T *alpha,         \
			    const T *A, IT lda, long long sa, const T *B, IT ldb, long long sb, \
			    const T *beta, T *C, IT ldc, long long sc, IT batch)                \
	{                                                                                       \
		blas_gemm_call c = { #NAME, BLAS_CALL_STRIDED, handle,                          \
				     transa, transb, m, n, k, alpha, beta, A, B, C, TYPE, TYPE, \
				     TYPE, lda, ldb, ldc, sa, sb, sc, batch, COMPUTE,           \
				     CUBLAS_GEMM_DEFAULT };                                     \
		return blas_gemm_entry(&c);                                                     \
	}

/* cublas<t>gemmBatched: arrays of device pointers, in device memory. */
#define GEMM_BATCHED(NAME, IT, T, TYPE, COMPUTE)                                                \
	cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                    \
			    cublasOperation_t transb, IT m, IT n, IT k, const T *alpha,         \
			    const T *const A[], IT lda, const T *const B[], IT ldb,             \
			    const T *beta, T *const C[], IT ldc, IT batch);                     \
	cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                    \
			    cublasOperation_t transb, IT m, IT n, IT k, const T *alpha,         \
			    const T *const A[], IT lda, const T *const B[], IT ldb,             \
			    const T *beta, T *const C[], IT ldc, IT batch)                      \
	{                                                                                       \
		blas_gemm_call c = { #NAME, BLAS_CALL_PTR_ARRAY, handle,                        \
				     transa, transb, m, n, k, alpha, beta, A, B, (void *)C,     \
				     TYPE, TYPE, TYPE, lda, ldb, ldc, 0, 0, 0, batch, COMPUTE,  \
				     CUBLAS_GEMM_DEFAULT };                                     \
		return blas_gemm_entry(&c);                                                     \
	}

#define BOTH(MACRO, NAME, T, TYPE, COMPUTE)                                                     \
	MACRO(NAME, int, T, TYPE, COMPUTE)                                                      \
	MACRO(NAME##_64, int64_t, T, TYPE, COMPUTE)

BOTH(GEMM, cublasSgemm_v2, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
BOTH(GEMM, cublasDgemm_v2, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
BOTH(GEMM, cublasHgemm, void, CUDA_R_16F, CUBLAS_COMPUTE_16F)
BOTH(GEMM_STRIDED, cublasSgemmStridedBatched, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
BOTH(GEMM_STRIDED, cublasDgemmStridedBatched, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
BOTH(GEMM_STRIDED, cublasHgemmStridedBatched, void, CUDA_R_16F, CUBLAS_COMPUTE_16F)
BOTH(GEMM_BATCHED, cublasSgemmBatched, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
BOTH(GEMM_BATCHED, cublasDgemmBatched, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
BOTH(GEMM_BATCHED, cublasHgemmBatched, void, CUDA_R_16F, CUBLAS_COMPUTE_16F)

/* cublasSgemmEx: caller's types, fp32 compute and scalars. */
#define SGEMM_EX(NAME, IT)                                                                      \
	cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                    \
			    cublasOperation_t transb, IT m, IT n, IT k, const float *alpha,     \
			    const void *A, cudaDataType at, IT lda, const void *B,              \
			    cudaDataType bt, IT ldb, const float *beta, void *C,                \
			    cudaDataType ct, IT ldc)                                            \
	{                                                                                       \
		blas_gemm_call c = { #NAME, 0, handle, transa, transb, m, n, k,                 \
				     alpha, beta, A, B, C, at, bt, ct, lda, ldb, ldc, 0, 0, 0,  \
				     1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT };              \
		return blas_gemm_entry(&c);                                                     \
	}
SGEMM_EX(cublasSgemmEx, int)
SGEMM_EX(cublasSgemmEx_64, int64_t)

/* cublasGemmEx: computeType is read as an int, so the legacy cudaDataType spelling that C
 * callers and old binaries pass arrives unchanged. */
#define GEMM_EX(NAME, IT)                                                                       \
	cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                    \
			    cublasOperation_t transb, IT m, IT n, IT k, const void *alpha,      \
			    const void *A, cudaDataType at, IT lda, const void *B,              \
			    cudaDataType bt, IT ldb, const void *beta, void *C,                 \
			    cudaDataType ct, IT ldc, cublasComputeType_t compute,               \
			    cublasGemmAlgo_t algo)                                              \
	{                                                                                       \
		blas_gemm_call c = { #NAME, BLAS_CALL_ALGO | BLAS_CALL_VIA_LT, handle, transa,  \
				     transb, m, n, k, alpha, beta, A, B, C, at, bt, ct, lda,    \
				     ldb, ldc, 0, 0, 0, 1, (int)compute, algo };                \
		return blas_gemm_entry(&c);                                                     \
	}
GEMM_EX(cublasGemmEx, int)
GEMM_EX(cublasGemmEx_64, int64_t)

#define GEMM_STRIDED_EX(NAME, IT)                                                               \
	cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                    \
			    cublasOperation_t transb, IT m, IT n, IT k, const void *alpha,      \
			    const void *A, cudaDataType at, IT lda, long long sa,               \
			    const void *B, cudaDataType bt, IT ldb, long long sb,               \
			    const void *beta, void *C, cudaDataType ct, IT ldc, long long sc,   \
			    IT batch, cublasComputeType_t compute, cublasGemmAlgo_t algo)       \
	{                                                                                       \
		blas_gemm_call c = { #NAME, BLAS_CALL_ALGO | BLAS_CALL_STRIDED |                \
				     BLAS_CALL_VIA_LT, handle, transa, transb, m, n, k, alpha,  \
				     beta, A, B, C, at, bt, ct, lda, ldb, ldc, sa, sb, sc,      \
				     batch, (int)compute, algo };                               \
		return blas_gemm_entry(&c);                                                     \
	}
GEMM_STRIDED_EX(cublasGemmStridedBatchedEx, int)
GEMM_STRIDED_EX(cublasGemmStridedBatchedEx_64, int64_t)

#define GEMM_BATCHED_EX(NAME, IT)                                                               \
	cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                    \
			    cublasOperation_t transb, IT m, IT n, IT k, const void *alpha,      \
			    const void *const A[], cudaDataType at, IT lda,                     \
			    const void *const B[], cudaDataType bt, IT ldb, const void *beta,   \
			    void *const C[], cudaDataType ct, IT ldc, IT batch,                 \
			    cublasComputeType_t compute, cublasGemmAlgo_t algo)                 \
	{                                                                                       \
		blas_gemm_call c = { #NAME, BLAS_CALL_ALGO | BLAS_CALL_PTR_ARRAY, handle,       \
				     transa, transb, m, n, k, alpha, beta, A, B, (void *)C, at, \
				     bt, ct, lda, ldb, ldc, 0, 0, 0, batch, (int)compute,       \
				     algo };                                                    \
		return blas_gemm_entry(&c);                                                     \
	}
GEMM_BATCHED_EX(cublasGemmBatchedEx, int)
GEMM_BATCHED_EX(cublasGemmBatchedEx_64, int64_t)
