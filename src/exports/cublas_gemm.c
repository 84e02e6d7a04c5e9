/* Exported cuBLAS GEMM entry points: each fills a gemm_call and hands it to shim_gemm().
 * One macro per family serves both the int and the _64 form.  Nothing else lives here. */
#include "../gemm.h"

/* The vendor headers declare these; the shim does not include them (tests/shim/abi_check.c
 * compares our prototypes with theirs). */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define EXPORT __attribute__((visibility("default")))
#define REAL(sym, type) ((type)real_cublas(sym))

#define GEMM_EX(NAME, INT)                                                                 \
	typedef abi_status (*NAME##_fn)(abi_handle, int, int, INT, INT, INT, const void *, \
					const void *, int, INT, const void *, int, INT,    \
					const void *, void *, int, INT, int, int);         \
	static abi_status forward_##NAME(const struct gemm_call *c)                        \
	{                                                                                  \
		return REAL(c->sym, NAME##_fn)(c->handle, c->transa, c->transb, (INT)c->m, \
					       (INT)c->n, (INT)c->k, c->alpha, c->a,       \
					       c->atype, (INT)c->lda, c->b, c->btype,      \
					       (INT)c->ldb, c->beta, c->c, c->ctype,       \
					       (INT)c->ldc, c->compute, c->algo);          \
	}                                                                                  \
	EXPORT abi_status NAME(abi_handle handle, int transa, int transb, INT m, INT n,    \
			       INT k, const void *alpha, const void *A, int atype, INT lda,\
			       const void *B, int btype, INT ldb, const void *beta,        \
			       void *C, int ctype, INT ldc, int compute, int algo)         \
	{                                                                                  \
		struct gemm_call c = {                                                     \
			SYM_##NAME, forward_##NAME, handle, transa, transb, m, n, k,      \
			alpha, beta, A, B, C, atype, btype, ctype, lda, ldb, ldc,          \
			0, 0, 0, 1, compute, algo, 0};                                     \
		return shim_gemm(&c);                                                      \
	}

#define GEMM_STRIDED_BATCHED_EX(NAME, INT)                                                 \
	typedef abi_status (*NAME##_fn)(abi_handle, int, int, INT, INT, INT, const void *, \
					const void *, int, INT, long long, const void *,   \
					int, INT, long long, const void *, void *, int,    \
					INT, long long, INT, int, int);                    \
	static abi_status forward_##NAME(const struct gemm_call *c)                        \
	{                                                                                  \
		return REAL(c->sym, NAME##_fn)(                                            \
			c->handle, c->transa, c->transb, (INT)c->m, (INT)c->n, (INT)c->k,  \
			c->alpha, c->a, c->atype, (INT)c->lda, c->stride_a, c->b,          \
			c->btype, (INT)c->ldb, c->stride_b, c->beta, c->c, c->ctype,       \
			(INT)c->ldc, c->stride_c, (INT)c->batch, c->compute, c->algo);     \
	}                                                                                  \
	EXPORT abi_status NAME(abi_handle handle, int transa, int transb, INT m, INT n,    \
			       INT k, const void *alpha, const void *A, int atype, INT lda,\
			       long long stride_a, const void *B, int btype, INT ldb,      \
			       long long stride_b, const void *beta, void *C, int ctype,   \
			       INT ldc, long long stride_c, INT batch, int compute,        \
			       int algo)                                                   \
	{                                                                                  \
		struct gemm_call c = {                                                     \
			SYM_##NAME, forward_##NAME, handle, transa, transb, m, n, k,      \
			alpha, beta, A, B, C, atype, btype, ctype, lda, ldb, ldc,          \
			stride_a, stride_b, stride_c, batch, compute, algo, 0};            \
		return shim_gemm(&c);                                                      \
	}

#define GEMM_BATCHED_EX(NAME, INT)                                                         \
	typedef abi_status (*NAME##_fn)(abi_handle, int, int, INT, INT, INT, const void *, \
					const void *const *, int, INT, const void *const *,\
					int, INT, const void *, void *const *, int, INT,   \
					INT, int, int);                                    \
	static abi_status forward_##NAME(const struct gemm_call *c)                        \
	{                                                                                  \
		return REAL(c->sym, NAME##_fn)(                                            \
			c->handle, c->transa, c->transb, (INT)c->m, (INT)c->n, (INT)c->k,  \
			c->alpha, (const void *const *)c->a, c->atype, (INT)c->lda,        \
			(const void *const *)c->b, c->btype, (INT)c->ldb, c->beta,         \
			(void *const *)c->c, c->ctype, (INT)c->ldc, (INT)c->batch,         \
			c->compute, c->algo);                                              \
	}                                                                                  \
	EXPORT abi_status NAME(abi_handle handle, int transa, int transb, INT m, INT n,    \
			       INT k, const void *alpha, const void *const A[], int atype, \
			       INT lda, const void *const B[], int btype, INT ldb,         \
			       const void *beta, void *const C[], int ctype, INT ldc,      \
			       INT batch, int compute, int algo)                           \
	{                                                                                  \
		struct gemm_call c = {                                                     \
			SYM_##NAME, forward_##NAME, handle, transa, transb, m, n, k,      \
			alpha, beta, A, B, (void *)C, atype, btype, ctype, lda, ldb, ldc,  \
			0, 0, 0, batch, compute, algo, 1};                                 \
		return shim_gemm(&c);                                                      \
	}

/* cublasSgemmEx: no compute type or algorithm; cuBLAS computes in fp32 (the legacy
 * spelling CUDA_R_32F) with its default algorithm. */
#define SGEMM_EX(NAME, INT)                                                                \
	typedef abi_status (*NAME##_fn)(abi_handle, int, int, INT, INT, INT, const float *,\
					const void *, int, INT, const void *, int, INT,    \
					const float *, void *, int, INT);                  \
	static abi_status forward_##NAME(const struct gemm_call *c)                        \
	{                                                                                  \
		return REAL(c->sym, NAME##_fn)(c->handle, c->transa, c->transb, (INT)c->m, \
					       (INT)c->n, (INT)c->k, c->alpha, c->a,       \
					       c->atype, (INT)c->lda, c->b, c->btype,      \
					       (INT)c->ldb, c->beta, c->c, c->ctype,       \
					       (INT)c->ldc);                               \
	}                                                                                  \
	EXPORT abi_status NAME(abi_handle handle, int transa, int transb, INT m, INT n,    \
			       INT k, const float *alpha, const void *A, int atype,        \
			       INT lda, const void *B, int btype, INT ldb,                 \
			       const float *beta, void *C, int ctype, INT ldc)             \
	{                                                                                  \
		struct gemm_call c = {                                                     \
			SYM_##NAME, forward_##NAME, handle, transa, transb, m, n, k,      \
			alpha, beta, A, B, C, atype, btype, ctype, lda, ldb, ldc,          \
			0, 0, 0, 1, ABI_R_32F, ABI_GEMM_DEFAULT, 0};                       \
		return shim_gemm(&c);                                                      \
	}

GEMM_EX(cublasGemmEx, int)
GEMM_EX(cublasGemmEx_64, int64_t)
GEMM_STRIDED_BATCHED_EX(cublasGemmStridedBatchedEx, int)
GEMM_STRIDED_BATCHED_EX(cublasGemmStridedBatchedEx_64, int64_t)
GEMM_BATCHED_EX(cublasGemmBatchedEx, int)
GEMM_BATCHED_EX(cublasGemmBatchedEx_64, int64_t)
SGEMM_EX(cublasSgemmEx, int)
SGEMM_EX(cublasSgemmEx_64, int64_t)

EXPORT abi_status cublasDestroy_v2(abi_handle handle)
{
	return shim_cublas_destroy(handle);
}
