/* Exported cuBLAS entry points: one-line forwards to the shim's entry functions of the same
 * signatures (cublas.c). */
#include "cublas.h"

/* The vendor headers declare these; the shim does not include them (tests/shim/abi_check.c
 * compares our values with theirs). */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define EXPORT __attribute__((visibility("default")))

EXPORT abi_status cublasGemmEx(abi_handle handle, int transa, int transb, int m, int n, int k,
			       const void *alpha, const void *A, int atype, int lda,
			       const void *B, int btype, int ldb, const void *beta, void *C,
			       int ctype, int ldc, int compute, int algo)
{
	return shim_cublasGemmEx(handle, transa, transb, m, n, k, alpha, A, atype, lda, B,
				 btype, ldb, beta, C, ctype, ldc, compute, algo);
}

EXPORT abi_status cublasGemmEx_64(abi_handle handle, int transa, int transb, int64_t m,
				  int64_t n, int64_t k, const void *alpha, const void *A,
				  int atype, int64_t lda, const void *B, int btype, int64_t ldb,
				  const void *beta, void *C, int ctype, int64_t ldc,
				  int compute, int algo)
{
	return shim_cublasGemmEx_64(handle, transa, transb, m, n, k, alpha, A, atype, lda, B,
				    btype, ldb, beta, C, ctype, ldc, compute, algo);
}

EXPORT abi_status cublasGemmStridedBatchedEx(abi_handle handle, int transa, int transb, int m,
					     int n, int k, const void *alpha, const void *A,
					     int atype, int lda, long long stride_a,
					     const void *B, int btype, int ldb,
					     long long stride_b, const void *beta, void *C,
					     int ctype, int ldc, long long stride_c, int batch,
					     int compute, int algo)
{
	return shim_cublasGemmStridedBatchedEx(handle, transa, transb, m, n, k, alpha, A, atype,
					       lda, stride_a, B, btype, ldb, stride_b, beta, C,
					       ctype, ldc, stride_c, batch, compute, algo);
}

EXPORT abi_status cublasGemmStridedBatchedEx_64(abi_handle handle, int transa, int transb,
						int64_t m, int64_t n, int64_t k,
						const void *alpha, const void *A, int atype,
						int64_t lda, long long stride_a, const void *B,
						int btype, int64_t ldb, long long stride_b,
						const void *beta, void *C, int ctype,
						int64_t ldc, long long stride_c, int64_t batch,
						int compute, int algo)
{
	return shim_cublasGemmStridedBatchedEx_64(handle, transa, transb, m, n, k, alpha, A,
						  atype, lda, stride_a, B, btype, ldb, stride_b,
						  beta, C, ctype, ldc, stride_c, batch, compute,
						  algo);
}

EXPORT abi_status cublasGemmBatchedEx(abi_handle handle, int transa, int transb, int m, int n,
				      int k, const void *alpha, const void *const A[],
				      int atype, int lda, const void *const B[], int btype,
				      int ldb, const void *beta, void *const C[], int ctype,
				      int ldc, int batch, int compute, int algo)
{
	return shim_cublasGemmBatchedEx(handle, transa, transb, m, n, k, alpha, A, atype, lda,
					B, btype, ldb, beta, C, ctype, ldc, batch, compute,
					algo);
}

EXPORT abi_status cublasGemmBatchedEx_64(abi_handle handle, int transa, int transb, int64_t m,
					 int64_t n, int64_t k, const void *alpha,
					 const void *const A[], int atype, int64_t lda,
					 const void *const B[], int btype, int64_t ldb,
					 const void *beta, void *const C[], int ctype,
					 int64_t ldc, int64_t batch, int compute, int algo)
{
	return shim_cublasGemmBatchedEx_64(handle, transa, transb, m, n, k, alpha, A, atype,
					   lda, B, btype, ldb, beta, C, ctype, ldc, batch,
					   compute, algo);
}

EXPORT abi_status cublasSgemmEx(abi_handle handle, int transa, int transb, int m, int n, int k,
				const float *alpha, const void *A, int atype, int lda,
				const void *B, int btype, int ldb, const float *beta, void *C,
				int ctype, int ldc)
{
	return shim_cublasSgemmEx(handle, transa, transb, m, n, k, alpha, A, atype, lda, B,
				  btype, ldb, beta, C, ctype, ldc);
}

EXPORT abi_status cublasSgemmEx_64(abi_handle handle, int transa, int transb, int64_t m,
				   int64_t n, int64_t k, const float *alpha, const void *A,
				   int atype, int64_t lda, const void *B, int btype,
				   int64_t ldb, const float *beta, void *C, int ctype,
				   int64_t ldc)
{
	return shim_cublasSgemmEx_64(handle, transa, transb, m, n, k, alpha, A, atype, lda, B,
				     btype, ldb, beta, C, ctype, ldc);
}

EXPORT abi_status cublasDestroy_v2(abi_handle handle)
{
	return shim_cublasDestroy_v2(handle);
}
