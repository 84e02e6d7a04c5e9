/* Exported cuBLAS GEMM entry points.  Each family is one macro serving the int and the _64
 * form.  The exported function is the fast path: when shim_fast_pass() allows, it calls the
 * real function directly; everything else (bf16 operands, a refusal to retry, first use)
 * goes to a cold function that describes the call as a gemm_call for shim_gemm(). */
#include "../gemm.h"

/* The vendor headers declare these; the shim does not include them (tests/shim/abi_check.c
 * compares our values with theirs). */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define EXPORT __attribute__((visibility("default")))
#define REAL(sym, type) ((type)real_cublas_fn[sym])

/* The members every family fills alike (the others are zero: no Lt part, no epilogue). */
#define GEMM_CALL_COMMON(NAME)                                                             \
	.sym = SYM_##NAME, .forward = forward_##NAME, .handle = handle, .transa = transa,  \
	.transb = transb, .m = m, .n = n, .k = k, .alpha = alpha, .beta = beta, .a = A,    \
	.b = B, .atype = atype, .btype = btype, .ctype = ctype, .lda = lda, .ldb = ldb,    \
	.ldc = ldc

/* The exported wrapper: PARAMS is the parameter list, ARGS the same names as arguments. */
#define ARGS_UNPAREN(...) __VA_ARGS__
#define WRAPPER(NAME, PARAMS, ARGS)                                                        \
	EXPORT abi_status NAME PARAMS                                                      \
	{                                                                                  \
		abi_status st = -1;                                                        \
		if (shim_fast_pass(atype, btype)) {                                        \
			/* cuBLAS calls cuBLASLt inside: those calls are nested. */       \
			shim_depth++;                                                      \
			st = REAL(SYM_##NAME, NAME##_fn) ARGS;                             \
			shim_depth--;                                                      \
			if (!shim_refused(st) || shim_depth)                               \
				return st;                                                 \
		}                                                                          \
		return NAME##_slow(&st, ARGS_UNPAREN ARGS);                                \
	}

#define GEMM_EX_PARAMS(INT)                                                                \
	(abi_handle handle, int transa, int transb, INT m, INT n, INT k, const void *alpha,\
	 const void *A, int atype, INT lda, const void *B, int btype, INT ldb,             \
	 const void *beta, void *C, int ctype, INT ldc, int compute, int algo)
#define GEMM_EX_ARGS                                                                       \
	(handle, transa, transb, m, n, k, alpha, A, atype, lda, B, btype, ldb, beta, C,    \
	 ctype, ldc, compute, algo)

#define GEMM_EX(NAME, INT)                                                                 \
	typedef abi_status(*NAME##_fn) GEMM_EX_PARAMS(INT);                                \
	static abi_status forward_##NAME(const struct gemm_call *c)                        \
	{                                                                                  \
		return REAL(c->sym, NAME##_fn)(c->handle, c->transa, c->transb, (INT)c->m, \
					       (INT)c->n, (INT)c->k, c->alpha, c->a,       \
					       c->atype, (INT)c->lda, c->b, c->btype,      \
					       (INT)c->ldb, c->beta, c->c, c->ctype,       \
					       (INT)c->ldc, c->compute, c->algo);          \
	}                                                                                  \
	__attribute__((noinline, cold)) static abi_status NAME##_slow(                     \
		const abi_status *st, abi_handle handle, int transa, int transb, INT m,    \
		INT n, INT k, const void *alpha, const void *A, int atype, INT lda,        \
		const void *B, int btype, INT ldb, const void *beta, void *C, int ctype,   \
		INT ldc, int compute, int algo)                                            \
	{                                                                                  \
		struct gemm_call c = {                                                     \
			GEMM_CALL_COMMON(NAME), .c = C, .batch = 1, .compute = compute,    \
			.algo = algo, .first_status = *st};                                \
		return shim_gemm(&c);                                                      \
	}                                                                                  \
	WRAPPER(NAME, GEMM_EX_PARAMS(INT), GEMM_EX_ARGS)

#define STRIDED_PARAMS(INT)                                                                \
	(abi_handle handle, int transa, int transb, INT m, INT n, INT k, const void *alpha,\
	 const void *A, int atype, INT lda, long long stride_a, const void *B, int btype,  \
	 INT ldb, long long stride_b, const void *beta, void *C, int ctype, INT ldc,       \
	 long long stride_c, INT batch, int compute, int algo)
#define STRIDED_ARGS                                                                       \
	(handle, transa, transb, m, n, k, alpha, A, atype, lda, stride_a, B, btype, ldb,   \
	 stride_b, beta, C, ctype, ldc, stride_c, batch, compute, algo)

#define GEMM_STRIDED_BATCHED_EX(NAME, INT)                                                 \
	typedef abi_status(*NAME##_fn) STRIDED_PARAMS(INT);                                \
	static abi_status forward_##NAME(const struct gemm_call *c)                        \
	{                                                                                  \
		return REAL(c->sym, NAME##_fn)(                                            \
			c->handle, c->transa, c->transb, (INT)c->m, (INT)c->n, (INT)c->k,  \
			c->alpha, c->a, c->atype, (INT)c->lda, c->stride_a, c->b,          \
			c->btype, (INT)c->ldb, c->stride_b, c->beta, c->c, c->ctype,       \
			(INT)c->ldc, c->stride_c, (INT)c->batch, c->compute, c->algo);     \
	}                                                                                  \
	__attribute__((noinline, cold)) static abi_status NAME##_slow(                     \
		const abi_status *st, abi_handle handle, int transa, int transb, INT m,    \
		INT n, INT k, const void *alpha, const void *A, int atype, INT lda,        \
		long long stride_a, const void *B, int btype, INT ldb, long long stride_b, \
		const void *beta, void *C, int ctype, INT ldc, long long stride_c,         \
		INT batch, int compute, int algo)                                          \
	{                                                                                  \
		struct gemm_call c = {                                                     \
			GEMM_CALL_COMMON(NAME), .c = C, .stride_a = stride_a,              \
			.stride_b = stride_b, .stride_c = stride_c, .batch = batch,        \
			.compute = compute, .algo = algo, .first_status = *st};            \
		return shim_gemm(&c);                                                      \
	}                                                                                  \
	WRAPPER(NAME, STRIDED_PARAMS(INT), STRIDED_ARGS)

#define BATCHED_PARAMS(INT)                                                                \
	(abi_handle handle, int transa, int transb, INT m, INT n, INT k, const void *alpha,\
	 const void *const A[], int atype, INT lda, const void *const B[], int btype,      \
	 INT ldb, const void *beta, void *const C[], int ctype, INT ldc, INT batch,        \
	 int compute, int algo)
#define BATCHED_ARGS                                                                       \
	(handle, transa, transb, m, n, k, alpha, A, atype, lda, B, btype, ldb, beta, C,    \
	 ctype, ldc, batch, compute, algo)

#define GEMM_BATCHED_EX(NAME, INT)                                                         \
	typedef abi_status(*NAME##_fn) BATCHED_PARAMS(INT);                                \
	static abi_status forward_##NAME(const struct gemm_call *c)                        \
	{                                                                                  \
		return REAL(c->sym, NAME##_fn)(                                            \
			c->handle, c->transa, c->transb, (INT)c->m, (INT)c->n, (INT)c->k,  \
			c->alpha, (const void *const *)c->a, c->atype, (INT)c->lda,        \
			(const void *const *)c->b, c->btype, (INT)c->ldb, c->beta,         \
			(void *const *)c->c, c->ctype, (INT)c->ldc, (INT)c->batch,         \
			c->compute, c->algo);                                              \
	}                                                                                  \
	__attribute__((noinline, cold)) static abi_status NAME##_slow(                     \
		const abi_status *st, abi_handle handle, int transa, int transb, INT m,    \
		INT n, INT k, const void *alpha, const void *const A[], int atype, INT lda,\
		const void *const B[], int btype, INT ldb, const void *beta,               \
		void *const C[], int ctype, INT ldc, INT batch, int compute, int algo)     \
	{                                                                                  \
		struct gemm_call c = {                                                     \
			GEMM_CALL_COMMON(NAME), .c = (void *)C, .batch = batch,            \
			.compute = compute, .algo = algo, .ptr_array = 1,                  \
			.first_status = *st};                                              \
		return shim_gemm(&c);                                                      \
	}                                                                                  \
	WRAPPER(NAME, BATCHED_PARAMS(INT), BATCHED_ARGS)

/* cublasSgemmEx: no compute type or algorithm; cuBLAS computes in fp32 (the legacy
 * spelling CUDA_R_32F) with its default algorithm. */
#define SGEMM_PARAMS(INT)                                                                  \
	(abi_handle handle, int transa, int transb, INT m, INT n, INT k, const float *alpha,\
	 const void *A, int atype, INT lda, const void *B, int btype, INT ldb,             \
	 const float *beta, void *C, int ctype, INT ldc)
#define SGEMM_ARGS                                                                         \
	(handle, transa, transb, m, n, k, alpha, A, atype, lda, B, btype, ldb, beta, C,    \
	 ctype, ldc)

#define SGEMM_EX(NAME, INT)                                                                \
	typedef abi_status(*NAME##_fn) SGEMM_PARAMS(INT);                                  \
	static abi_status forward_##NAME(const struct gemm_call *c)                        \
	{                                                                                  \
		return REAL(c->sym, NAME##_fn)(c->handle, c->transa, c->transb, (INT)c->m, \
					       (INT)c->n, (INT)c->k, c->alpha, c->a,       \
					       c->atype, (INT)c->lda, c->b, c->btype,      \
					       (INT)c->ldb, c->beta, c->c, c->ctype,       \
					       (INT)c->ldc);                               \
	}                                                                                  \
	__attribute__((noinline, cold)) static abi_status NAME##_slow(                     \
		const abi_status *st, abi_handle handle, int transa, int transb, INT m,    \
		INT n, INT k, const float *alpha, const void *A, int atype, INT lda,       \
		const void *B, int btype, INT ldb, const float *beta, void *C, int ctype,  \
		INT ldc)                                                                   \
	{                                                                                  \
		struct gemm_call c = {                                                     \
			GEMM_CALL_COMMON(NAME), .c = C, .batch = 1, .compute = ABI_R_32F,  \
			.algo = ABI_GEMM_DEFAULT, .first_status = *st};                    \
		return shim_gemm(&c);                                                      \
	}                                                                                  \
	WRAPPER(NAME, SGEMM_PARAMS(INT), SGEMM_ARGS)

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
