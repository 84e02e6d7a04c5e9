/* The vendor entry points the shim intercepts, written once as parameter lists, from which
 * the real tables (real.h) are typed and the gate's route (gate.h) too.  The exported names
 * (interpose/exports/) and the shim's entry functions (gemm/cublas.c, gemm/lt.c) are
 * written out by hand, so that a search for a name lands on its definition; the compiler
 * holds them to these lists through the tables' types.  Types are abi.h's. */
#ifndef BF16SHIM_ENTRY_POINTS_H
#define BF16SHIM_ENTRY_POINTS_H

#include <stdint.h>

#include "abi.h"

/* cuBLAS GEMMs, in four families.  Each family has its parameter list (INT is int or
 * int64_t, the _64 forms) and the same names as arguments. */
#define GEMM_EX_PARAMS(INT)                                                                \
	(abi_handle handle, int transa, int transb, INT m, INT n, INT k, const void *alpha, \
	 const void *A, int atype, INT lda, const void *B, int btype, INT ldb,              \
	 const void *beta, void *C, int ctype, INT ldc, int compute, int algo)
#define GEMM_EX_ARGS                                                                       \
	(handle, transa, transb, m, n, k, alpha, A, atype, lda, B, btype, ldb, beta, C,    \
	 ctype, ldc, compute, algo)

#define STRIDED_PARAMS(INT)                                                                \
	(abi_handle handle, int transa, int transb, INT m, INT n, INT k, const void *alpha, \
	 const void *A, int atype, INT lda, long long stride_a, const void *B, int btype,   \
	 INT ldb, long long stride_b, const void *beta, void *C, int ctype, INT ldc,        \
	 long long stride_c, INT batch, int compute, int algo)
#define STRIDED_ARGS                                                                       \
	(handle, transa, transb, m, n, k, alpha, A, atype, lda, stride_a, B, btype, ldb,   \
	 stride_b, beta, C, ctype, ldc, stride_c, batch, compute, algo)

/* A, B and C are device arrays of pointers. */
#define BATCHED_PARAMS(INT)                                                                \
	(abi_handle handle, int transa, int transb, INT m, INT n, INT k, const void *alpha, \
	 const void *const A[], int atype, INT lda, const void *const B[], int btype,       \
	 INT ldb, const void *beta, void *const C[], int ctype, INT ldc, INT batch,         \
	 int compute, int algo)
#define BATCHED_ARGS                                                                       \
	(handle, transa, transb, m, n, k, alpha, A, atype, lda, B, btype, ldb, beta, C,    \
	 ctype, ldc, batch, compute, algo)

/* cublasSgemmEx: no compute type or algorithm. */
#define SGEMM_PARAMS(INT)                                                                  \
	(abi_handle handle, int transa, int transb, INT m, INT n, INT k, const float *alpha, \
	 const void *A, int atype, INT lda, const void *B, int btype, INT ldb,              \
	 const float *beta, void *C, int ctype, INT ldc)
#define SGEMM_ARGS                                                                         \
	(handle, transa, transb, m, n, k, alpha, A, atype, lda, B, btype, ldb, beta, C,    \
	 ctype, ldc)

/* Every intercepted cuBLAS GEMM: name, integer type, family.  The first is what tells a
 * library that it is cuBLAS (real.c). */
#define CUBLAS_GEMMS(X)                                                                    \
	X(cublasGemmEx, int, GEMM_EX)                                                      \
	X(cublasGemmEx_64, int64_t, GEMM_EX)                                               \
	X(cublasGemmStridedBatchedEx, int, STRIDED)                                        \
	X(cublasGemmStridedBatchedEx_64, int64_t, STRIDED)                                 \
	X(cublasGemmBatchedEx, int, BATCHED)                                               \
	X(cublasGemmBatchedEx_64, int64_t, BATCHED)                                        \
	X(cublasSgemmEx, int, SGEMM)                                                       \
	X(cublasSgemmEx_64, int64_t, SGEMM)

/* cuBLASLt's two. */
#define LT_MATMUL_PARAMS                                                                   \
	(abi_lt_handle handle, abi_lt_desc desc, const void *alpha, const void *A,         \
	 abi_lt_layout adesc, const void *B, abi_lt_layout bdesc, const void *beta,        \
	 const void *C, abi_lt_layout cdesc, void *D, abi_lt_layout ddesc,                 \
	 const abi_lt_algo *algo, void *workspace, size_t workspace_bytes, abi_stream stream)
#define LT_MATMUL_ARGS                                                                     \
	(handle, desc, alpha, A, adesc, B, bdesc, beta, C, cdesc, D, ddesc, algo, workspace, \
	 workspace_bytes, stream)
#define LT_HEURISTIC_PARAMS                                                                \
	(abi_lt_handle handle, abi_lt_desc desc, abi_lt_layout adesc, abi_lt_layout bdesc, \
	 abi_lt_layout cdesc, abi_lt_layout ddesc, abi_lt_pref pref, int requested,        \
	 abi_lt_heuristic_result *results, int *returned)
#define LT_HEURISTIC_ARGS                                                                  \
	(handle, desc, adesc, bdesc, cdesc, ddesc, pref, requested, results, returned)

#endif
