/* The entry functions behind the exported cuBLAS names (exports/cublas.c), of the same
 * signatures as the real ones (entry_points.h lists them; real.h types the real table with
 * those lists, and cublas.c checks each entry against its row). */
#ifndef BF16SHIM_CUBLAS_H
#define BF16SHIM_CUBLAS_H

#include <stdint.h>

#include "abi.h"

abi_status shim_cublasGemmEx(abi_handle handle, int transa, int transb, int m, int n, int k,
			     const void *alpha, const void *A, int atype, int lda, const void *B,
			     int btype, int ldb, const void *beta, void *C, int ctype, int ldc,
			     int compute, int algo);
abi_status shim_cublasGemmEx_64(abi_handle handle, int transa, int transb, int64_t m,
				int64_t n, int64_t k, const void *alpha, const void *A,
				int atype, int64_t lda, const void *B, int btype, int64_t ldb,
				const void *beta, void *C, int ctype, int64_t ldc, int compute,
				int algo);
abi_status shim_cublasGemmStridedBatchedEx(abi_handle handle, int transa, int transb, int m,
					   int n, int k, const void *alpha, const void *A,
					   int atype, int lda, long long stride_a, const void *B,
					   int btype, int ldb, long long stride_b,
					   const void *beta, void *C, int ctype, int ldc,
					   long long stride_c, int batch, int compute, int algo);
abi_status shim_cublasGemmStridedBatchedEx_64(abi_handle handle, int transa, int transb,
					      int64_t m, int64_t n, int64_t k,
					      const void *alpha, const void *A, int atype,
					      int64_t lda, long long stride_a, const void *B,
					      int btype, int64_t ldb, long long stride_b,
					      const void *beta, void *C, int ctype, int64_t ldc,
					      long long stride_c, int64_t batch, int compute,
					      int algo);
abi_status shim_cublasGemmBatchedEx(abi_handle handle, int transa, int transb, int m, int n,
				    int k, const void *alpha, const void *const A[], int atype,
				    int lda, const void *const B[], int btype, int ldb,
				    const void *beta, void *const C[], int ctype, int ldc,
				    int batch, int compute, int algo);
abi_status shim_cublasGemmBatchedEx_64(abi_handle handle, int transa, int transb, int64_t m,
				       int64_t n, int64_t k, const void *alpha,
				       const void *const A[], int atype, int64_t lda,
				       const void *const B[], int btype, int64_t ldb,
				       const void *beta, void *const C[], int ctype, int64_t ldc,
				       int64_t batch, int compute, int algo);
abi_status shim_cublasSgemmEx(abi_handle handle, int transa, int transb, int m, int n, int k,
			      const float *alpha, const void *A, int atype, int lda,
			      const void *B, int btype, int ldb, const float *beta, void *C,
			      int ctype, int ldc);
abi_status shim_cublasSgemmEx_64(abi_handle handle, int transa, int transb, int64_t m,
				 int64_t n, int64_t k, const float *alpha, const void *A,
				 int atype, int64_t lda, const void *B, int btype, int64_t ldb,
				 const float *beta, void *C, int ctype, int64_t ldc);
/* cublasDestroy: drops what the shim keeps per handle, then destroys it. */
abi_status shim_cublasDestroy_v2(abi_handle handle);

#endif
