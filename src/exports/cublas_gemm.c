/* Exported cuBLAS GEMM entry points.  Each family is one macro serving the int and the _64
 * form.  The exported function is the fast path: when shim_fast_pass() allows, it calls the
 * real function directly; everything else (bf16 operands, a refusal to retry, first use)
 * goes to a cold function that describes the call as a gemm_call for shim_gemm(). */
/* Everything these headers declare is defined inside the shim: hidden, the fast path reads
 * it %rip-relative instead of through the GOT. */
#pragma GCC visibility push(hidden)
#include "../gemm.h"
#pragma GCC visibility pop

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

/* FOR_EACH(f, x, y, ...) is f(x) f(y) ...: up to 17 arguments. */
#define FE_PICK(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,     \
		_17, NAME, ...) NAME
#define FE1(f, x) f(x)
#define FE2(f, x, ...) f(x) FE1(f, __VA_ARGS__)
#define FE3(f, x, ...) f(x) FE2(f, __VA_ARGS__)
#define FE4(f, x, ...) f(x) FE3(f, __VA_ARGS__)
#define FE5(f, x, ...) f(x) FE4(f, __VA_ARGS__)
#define FE6(f, x, ...) f(x) FE5(f, __VA_ARGS__)
#define FE7(f, x, ...) f(x) FE6(f, __VA_ARGS__)
#define FE8(f, x, ...) f(x) FE7(f, __VA_ARGS__)
#define FE9(f, x, ...) f(x) FE8(f, __VA_ARGS__)
#define FE10(f, x, ...) f(x) FE9(f, __VA_ARGS__)
#define FE11(f, x, ...) f(x) FE10(f, __VA_ARGS__)
#define FE12(f, x, ...) f(x) FE11(f, __VA_ARGS__)
#define FE13(f, x, ...) f(x) FE12(f, __VA_ARGS__)
#define FE14(f, x, ...) f(x) FE13(f, __VA_ARGS__)
#define FE15(f, x, ...) f(x) FE14(f, __VA_ARGS__)
#define FE16(f, x, ...) f(x) FE15(f, __VA_ARGS__)
#define FE17(f, x, ...) f(x) FE16(f, __VA_ARGS__)
#define FOR_EACH(f, ...)                                                                   \
	FE_PICK(__VA_ARGS__, FE17, FE16, FE15, FE14, FE13, FE12, FE11, FE10, FE9, FE8,     \
		FE7, FE6, FE5, FE4, FE3, FE2, FE1)(f, __VA_ARGS__)
/* The arguments after the six every family starts with: x86-64 passes them on the stack. */
#define AFTER_SIX(a, b, c, d, e, f, ...) __VA_ARGS__
/* Tells the compiler x may have changed in memory: it re-reads it from there. */
#define REREAD(x) __asm__("" : "+m"(x));

/* The exported wrapper: PARAMS is the parameter list, ARGS the same names as arguments.
 * The fast path is one real call; a refusal then goes to the slow path with the same
 * arguments.  Left alone, gcc keeps a dozen of them in callee-saved registers across the
 * real call for that rare retry (saving, filling and restoring each).  So the first six
 * (registers) are kept in memory, and the others are re-read from our caller's frame, where
 * they stay ours and unchanged, only after a refusal: the real call then costs one push or
 * two instructions per stack argument, nothing more. */
#define ARGS_UNPAREN(...) __VA_ARGS__
#define WRAPPER(NAME, PARAMS, ARGS)                                                        \
	EXPORT abi_status NAME PARAMS                                                      \
	{                                                                                  \
		abi_status st = -1;                                                        \
		if (shim_fast_pass(atype, btype)) {                                        \
			__typeof__(handle) kh = handle;                                    \
			int ka = transa, kb = transb;                                      \
			__typeof__(m) km = m, kn = n, kk = k;                              \
			__asm__("" : : "m"(kh), "m"(ka), "m"(kb), "m"(km), "m"(kn),        \
				"m"(kk));                                                  \
			/* cuBLAS calls cuBLASLt inside: those calls are nested. */       \
			shim_depth++;                                                      \
			st = REAL(SYM_##NAME, NAME##_fn) ARGS;                             \
			shim_depth--;                                                      \
			/* Read again after a refusal only, not kept from the decrement. */\
			if (!shim_refused(st) ||                                           \
			    __atomic_load_n(&shim_depth, __ATOMIC_RELAXED))                \
				return st;                                                 \
			__asm__("" : "+m"(kh), "+m"(ka), "+m"(kb), "+m"(km), "+m"(kn),     \
				"+m"(kk));                                                 \
			handle = kh, transa = ka, transb = kb, m = km, n = kn, k = kk;     \
			FOR_EACH(REREAD, AFTER_SIX ARGS)                                   \
		}                                                                          \
		return NAME##_slow(st, ARGS_UNPAREN ARGS);                                 \
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
		abi_status st, abi_handle handle, int transa, int transb, INT m,           \
		INT n, INT k, const void *alpha, const void *A, int atype, INT lda,        \
		const void *B, int btype, INT ldb, const void *beta, void *C, int ctype,   \
		INT ldc, int compute, int algo)                                            \
	{                                                                                  \
		struct gemm_call c = {                                                     \
			GEMM_CALL_COMMON(NAME), .c = C, .batch = 1, .compute = compute,    \
			.algo = algo, .first_status = st};                                 \
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
		abi_status st, abi_handle handle, int transa, int transb, INT m,           \
		INT n, INT k, const void *alpha, const void *A, int atype, INT lda,        \
		long long stride_a, const void *B, int btype, INT ldb, long long stride_b, \
		const void *beta, void *C, int ctype, INT ldc, long long stride_c,         \
		INT batch, int compute, int algo)                                          \
	{                                                                                  \
		struct gemm_call c = {                                                     \
			GEMM_CALL_COMMON(NAME), .c = C, .stride_a = stride_a,              \
			.stride_b = stride_b, .stride_c = stride_c, .batch = batch,        \
			.compute = compute, .algo = algo, .first_status = st};             \
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
		abi_status st, abi_handle handle, int transa, int transb, INT m,           \
		INT n, INT k, const void *alpha, const void *const A[], int atype, INT lda,\
		const void *const B[], int btype, INT ldb, const void *beta,               \
		void *const C[], int ctype, INT ldc, INT batch, int compute, int algo)     \
	{                                                                                  \
		struct gemm_call c = {                                                     \
			GEMM_CALL_COMMON(NAME), .c = (void *)C, .batch = batch,            \
			.compute = compute, .algo = algo, .ptr_array = 1,                  \
			.first_status = st};                                               \
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
		abi_status st, abi_handle handle, int transa, int transb, INT m,           \
		INT n, INT k, const float *alpha, const void *A, int atype, INT lda,       \
		const void *B, int btype, INT ldb, const float *beta, void *C, int ctype,  \
		INT ldc)                                                                   \
	{                                                                                  \
		struct gemm_call c = {                                                     \
			GEMM_CALL_COMMON(NAME), .c = C, .batch = 1, .compute = ABI_R_32F,  \
			.algo = ABI_GEMM_DEFAULT, .first_status = st};                     \
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
