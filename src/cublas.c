/* cuBLAS GEMM calls: the entry functions behind the exported names (exports/cublas.c), one
 * body for all eight (entry_points.h), and forwarding a described call to the cuBLAS
 * function it came through.  An entry passes the call straight to cuBLAS while
 * gemm_passes() allows; everything else, and a refusal, goes to the dispatcher (gemm.c). */
#include "device.h"
#include "gemm.h"
#include "lt.h"
#include "rewrite/rewrite.h"

/* For each family (entry_points.h): the members of a gemm_call that describe it beyond
 * those all share, and a described call back into arguments (algo may differ from the
 * caller's: DECIDE_PASS_DEFAULT_ALGO). */
#define GEMM_EX_CALL .c = C, .batch = 1, .compute = compute, .algo = algo
#define STRIDED_CALL                                                                       \
	.c = C, .stride_a = stride_a, .stride_b = stride_b, .stride_c = stride_c,          \
	.batch = batch, .compute = compute, .algo = algo
#define BATCHED_CALL                                                                       \
	.c = (void *)C, .batch = batch, .compute = compute, .algo = algo, .ptr_array = 1
/* cublasSgemmEx computes in fp32 (the legacy spelling) with the default algorithm. */
#define SGEMM_CALL .c = C, .batch = 1, .compute = ABI_R_32F, .algo = ABI_GEMM_DEFAULT

#define UNPACK_HEAD(INT) c->handle, c->transa, c->transb, (INT)c->m, (INT)c->n, (INT)c->k
#define UNPACK_GEMM_EX(INT)                                                                \
	(UNPACK_HEAD(INT), c->alpha, c->a, c->atype, (INT)c->lda, c->b, c->btype,          \
	 (INT)c->ldb, c->beta, c->c, c->ctype, (INT)c->ldc, c->compute, algo)
#define UNPACK_STRIDED(INT)                                                                \
	(UNPACK_HEAD(INT), c->alpha, c->a, c->atype, (INT)c->lda, c->stride_a, c->b,       \
	 c->btype, (INT)c->ldb, c->stride_b, c->beta, c->c, c->ctype, (INT)c->ldc,         \
	 c->stride_c, (INT)c->batch, c->compute, algo)
#define UNPACK_BATCHED(INT)                                                                \
	(UNPACK_HEAD(INT), c->alpha, (const void *const *)c->a, c->atype, (INT)c->lda,     \
	 (const void *const *)c->b, c->btype, (INT)c->ldb, c->beta, (void *const *)c->c,   \
	 c->ctype, (INT)c->ldc, (INT)c->batch, c->compute, algo)
#define UNPACK_SGEMM(INT)                                                                  \
	(UNPACK_HEAD(INT), (const float *)c->alpha, c->a, c->atype, (INT)c->lda, c->b,     \
	 c->btype, (INT)c->ldb, (const float *)c->beta, c->c, c->ctype, (INT)c->ldc)

#define FORWARD(name, INT, family)                                                         \
	static abi_status forward_##name(const struct gemm_call *c, int algo)              \
	{                                                                                  \
		(void)algo; /* cublasSgemmEx has none */                                   \
		return real_cublas.name UNPACK_##family(INT);                              \
	}
CUBLAS_GEMMS(FORWARD)

/* The entry: one real call, and the dispatcher only for a refusal (with its status, so the
 * call is not made again) or a call that may not pass straight through.  The dispatcher's
 * side is a function of its own, so that the pass-through keeps no more than it needs. */
#define ENTRY(name, INT, family)                                                           \
	__attribute__((noinline, cold)) static abi_status dispatch_##name(                 \
		abi_status st, UNPAREN(family##_PARAMS(INT)))                               \
	{                                                                                  \
		if (!real_cublas_find() || !real_cublas.name)                              \
			return ABI_STATUS_NOT_INITIALIZED;                                 \
		return shim_gemm(&(struct gemm_call){                                      \
			.api = #name, .forward = forward_##name,                           \
			.backend = &rewrite_via_cublas, .handle = handle,                  \
			.transa = transa, .transb = transb, .m = m, .n = n, .k = k,        \
			.alpha = alpha, .beta = beta, .a = A, .b = B, .atype = atype,      \
			.btype = btype, .ctype = ctype, .lda = lda, .ldb = ldb, .ldc = ldc, \
			family##_CALL, .first_status = st});                               \
	}                                                                                  \
	abi_status shim_##name family##_PARAMS(INT)                                        \
	{                                                                                  \
		abi_status st = -1;                                                        \
		if (gemm_passes(atype, btype) && ENTRY_FOUND(name, INT)) {                \
			/* cuBLAS calls cuBLASLt inside: those calls are nested. */       \
			int depth = shim_depth;                                            \
			lt_matmul_fn route = lt_matmul_route;                              \
			shim_depth = depth + 1;                                            \
			lt_matmul_route = __atomic_load_n(&lt_matmul_nested, __ATOMIC_RELAXED); \
			st = real_cublas.name family##_ARGS;                               \
			lt_matmul_route = route;                                           \
			shim_depth = depth;                                                \
			if (!gemm_refused(st) || depth)                                    \
				return st;                                                 \
		}                                                                          \
		return dispatch_##name(st, UNPAREN(family##_ARGS));                         \
	}
/* The int forms are in every cuBLAS the shim takes (cublas_found() says so before the
 * first call passes); the _64 ones came with cuBLAS 12. */
#define ENTRY_FOUND(name, INT) (sizeof(INT) == sizeof(int) || real_cublas.name)
/* (a, b, c) as a, b, c: a parameter or argument list after another. */
#define UNPAREN(list) STRIP list
#define STRIP(...) __VA_ARGS__
CUBLAS_GEMMS(ENTRY)

int cublas_found(void)
{
#define INT_FORM(name, INT, family) &&(sizeof(INT) != sizeof(int) || real_cublas.name)
	return real_cublas_find() CUBLAS_GEMMS(INT_FORM);
#undef INT_FORM
}

abi_status shim_cublas_destroy(abi_handle handle)
{
	if (!real_cublas_find() || !real_cublas.cublasDestroy_v2)
		return ABI_STATUS_NOT_INITIALIZED;
	device_forget_handle(handle);
	return real_cublas.cublasDestroy_v2(handle);
}
