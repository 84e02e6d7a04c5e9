/* cuBLAS GEMM calls: the entry functions behind the exported names (exports/cublas.c).  Each
 * passes its call straight to cuBLAS while the gate allows (gate.h); a refusal, and every
 * call the gate keeps, is described (one describer per family) and handed to the walk
 * (walk.h).  A described call goes back to cuBLAS through its forward, one per entry point. */
#include "cublas.h"

#include "device.h"
#include "gate.h"
#include "gemm.h"
#include "real.h"
#include "rewrite/rewrite.h"
#include "walk.h"

/* Each entry has the signature of its row of CUBLAS_GEMMS, which types the real table. */
#define SAME_SIGNATURE(name, INT, family)                                                  \
	_Static_assert(__builtin_types_compatible_p(__typeof__(&shim_##name),              \
						    __typeof__(real_cublas.name)),         \
		       "shim_" #name " differs from entry_points.h");
CUBLAS_GEMMS(SAME_SIGNATURE)

/* The int forms are in every cuBLAS the shim takes; the _64 ones came with cuBLAS 12. */
static int cublas_found(void)
{
	return real_cublas_find() && real_cublas.cublasGemmEx &&
	       real_cublas.cublasGemmStridedBatchedEx && real_cublas.cublasGemmBatchedEx &&
	       real_cublas.cublasSgemmEx;
}

/* Into the walk with a described call; once cuBLAS is found whole, the gate lets the entries pass
 * calls straight through. */
static abi_status enter_walk(const struct gemm_call *c)
{
	if (cublas_found())
		gate_open_cublas();
	return gemm_walk(c);
}

/* The algorithm a forward step passes: the caller's, or the default one. */
static int algo_for(const struct gemm_call *c, enum decision how)
{
	return how == DECIDE_PASS_DEFAULT_ALGO ? ABI_GEMM_DEFAULT : c->algo;
}

/* ---- The forwards: a described call back into the entry point it came through. */

static abi_status forward_gemm_ex(const struct gemm_call *c, enum decision how)
{
	return real_cublas.cublasGemmEx(c->handle, c->transa, c->transb, (int)c->m, (int)c->n,
					(int)c->k, c->alpha, c->a, c->atype, (int)c->lda, c->b,
					c->btype, (int)c->ldb, c->beta, c->c, c->ctype,
					(int)c->ldc, c->compute, algo_for(c, how));
}

static abi_status forward_gemm_ex_64(const struct gemm_call *c, enum decision how)
{
	return real_cublas.cublasGemmEx_64(c->handle, c->transa, c->transb, c->m, c->n, c->k,
					   c->alpha, c->a, c->atype, c->lda, c->b, c->btype,
					   c->ldb, c->beta, c->c, c->ctype, c->ldc, c->compute,
					   algo_for(c, how));
}

static abi_status forward_strided(const struct gemm_call *c, enum decision how)
{
	return real_cublas.cublasGemmStridedBatchedEx(
		c->handle, c->transa, c->transb, (int)c->m, (int)c->n, (int)c->k, c->alpha, c->a,
		c->atype, (int)c->lda, c->stride_a, c->b, c->btype, (int)c->ldb, c->stride_b,
		c->beta, c->c, c->ctype, (int)c->ldc, c->stride_c, (int)c->batch, c->compute,
		algo_for(c, how));
}

static abi_status forward_strided_64(const struct gemm_call *c, enum decision how)
{
	return real_cublas.cublasGemmStridedBatchedEx_64(
		c->handle, c->transa, c->transb, c->m, c->n, c->k, c->alpha, c->a, c->atype,
		c->lda, c->stride_a, c->b, c->btype, c->ldb, c->stride_b, c->beta, c->c,
		c->ctype, c->ldc, c->stride_c, c->batch, c->compute, algo_for(c, how));
}

static abi_status forward_batched(const struct gemm_call *c, enum decision how)
{
	return real_cublas.cublasGemmBatchedEx(
		c->handle, c->transa, c->transb, (int)c->m, (int)c->n, (int)c->k, c->alpha,
		(const void *const *)c->a, c->atype, (int)c->lda, (const void *const *)c->b,
		c->btype, (int)c->ldb, c->beta, (void *const *)c->c, c->ctype, (int)c->ldc,
		(int)c->batch, c->compute, algo_for(c, how));
}

static abi_status forward_batched_64(const struct gemm_call *c, enum decision how)
{
	return real_cublas.cublasGemmBatchedEx_64(
		c->handle, c->transa, c->transb, c->m, c->n, c->k, c->alpha,
		(const void *const *)c->a, c->atype, c->lda, (const void *const *)c->b, c->btype,
		c->ldb, c->beta, (void *const *)c->c, c->ctype, c->ldc, c->batch, c->compute,
		algo_for(c, how));
}

/* cublasSgemmEx has no algorithm: a forward is the call as it came. */
static abi_status forward_sgemm(const struct gemm_call *c, enum decision how)
{
	(void)how;
	return real_cublas.cublasSgemmEx(c->handle, c->transa, c->transb, (int)c->m, (int)c->n,
					 (int)c->k, c->alpha, c->a, c->atype, (int)c->lda, c->b,
					 c->btype, (int)c->ldb, c->beta, c->c, c->ctype,
					 (int)c->ldc);
}

static abi_status forward_sgemm_64(const struct gemm_call *c, enum decision how)
{
	(void)how;
	return real_cublas.cublasSgemmEx_64(c->handle, c->transa, c->transb, c->m, c->n, c->k,
					    c->alpha, c->a, c->atype, c->lda, c->b, c->btype,
					    c->ldb, c->beta, c->c, c->ctype, c->ldc);
}

/* ---- The describers, one per family, for both integer widths.  Cold and out of line, so
 * that an entry's pass-through keeps no more than it needs.  st: the status of the entry's
 * refused attempt, or -1. */

__attribute__((noinline, cold)) static abi_status
describe_gemm_ex(abi_status st, const char *api, gemm_forward_fn forward, abi_handle handle,
	     int transa, int transb, int64_t m, int64_t n, int64_t k, const void *alpha,
	     const void *A, int atype, int64_t lda, const void *B, int btype, int64_t ldb,
	     const void *beta, void *C, int ctype, int64_t ldc, int compute, int algo)
{
	return enter_walk(&(struct gemm_call){
		.api = api, .forward = forward, .backend = &rewrite_via_cublas, .handle = handle,
		.transa = transa, .transb = transb, .m = m, .n = n, .k = k, .alpha = alpha,
		.beta = beta, .a = A, .b = B, .c = C, .atype = atype, .btype = btype,
		.ctype = ctype, .lda = lda, .ldb = ldb, .ldc = ldc, .batch = 1,
		.compute = compute, .algo = algo, .first_status = st});
}

__attribute__((noinline, cold)) static abi_status
describe_strided(abi_status st, const char *api, gemm_forward_fn forward, abi_handle handle,
	     int transa, int transb, int64_t m, int64_t n, int64_t k, const void *alpha,
	     const void *A, int atype, int64_t lda, long long stride_a, const void *B, int btype,
	     int64_t ldb, long long stride_b, const void *beta, void *C, int ctype, int64_t ldc,
	     long long stride_c, int64_t batch, int compute, int algo)
{
	return enter_walk(&(struct gemm_call){
		.api = api, .forward = forward, .backend = &rewrite_via_cublas, .handle = handle,
		.transa = transa, .transb = transb, .m = m, .n = n, .k = k, .alpha = alpha,
		.beta = beta, .a = A, .b = B, .c = C, .atype = atype, .btype = btype,
		.ctype = ctype, .lda = lda, .ldb = ldb, .ldc = ldc, .stride_a = stride_a,
		.stride_b = stride_b, .stride_c = stride_c, .batch = batch, .compute = compute,
		.algo = algo, .first_status = st});
}

/* A, B and C are device arrays of pointers. */
__attribute__((noinline, cold)) static abi_status
describe_batched(abi_status st, const char *api, gemm_forward_fn forward, abi_handle handle,
	     int transa, int transb, int64_t m, int64_t n, int64_t k, const void *alpha,
	     const void *const A[], int atype, int64_t lda, const void *const B[], int btype,
	     int64_t ldb, const void *beta, void *const C[], int ctype, int64_t ldc,
	     int64_t batch, int compute, int algo)
{
	return enter_walk(&(struct gemm_call){
		.api = api, .forward = forward, .backend = &rewrite_via_cublas, .handle = handle,
		.transa = transa, .transb = transb, .m = m, .n = n, .k = k, .alpha = alpha,
		.beta = beta, .a = A, .b = B, .c = (void *)C, .atype = atype, .btype = btype,
		.ctype = ctype, .lda = lda, .ldb = ldb, .ldc = ldc, .batch = batch,
		.compute = compute, .algo = algo, .ptr_array = 1, .first_status = st});
}

/* cublasSgemmEx computes in fp32 (the legacy spelling) with the default algorithm. */
__attribute__((noinline, cold)) static abi_status
describe_sgemm(abi_status st, const char *api, gemm_forward_fn forward, abi_handle handle,
	   int transa, int transb, int64_t m, int64_t n, int64_t k, const float *alpha,
	   const void *A, int atype, int64_t lda, const void *B, int btype, int64_t ldb,
	   const float *beta, void *C, int ctype, int64_t ldc)
{
	return describe_gemm_ex(st, api, forward, handle, transa, transb, m, n, k, alpha, A, atype,
			    lda, B, btype, ldb, beta, C, ctype, ldc, ABI_R_32F, ABI_GEMM_DEFAULT);
}

/* What the int forms' entries call when the gate keeps a call: cuBLAS found with that entry
 * point, the call described.  Out of line, so that the entries' pass-through keeps no more
 * than it needs: they widen here, not before the real call. */
__attribute__((noinline, cold)) static abi_status
kept_cublasGemmEx(abi_status st, abi_handle handle, int transa, int transb, int m, int n, int k,
		  const void *alpha, const void *A, int atype, int lda, const void *B,
		  int btype, int ldb, const void *beta, void *C, int ctype, int ldc,
		  int compute, int algo)
{
	if (!real_cublas_find() || !real_cublas.cublasGemmEx)
		return ABI_STATUS_NOT_INITIALIZED;
	return describe_gemm_ex(st, "cublasGemmEx", forward_gemm_ex, handle, transa, transb, m, n, k,
			    alpha, A, atype, lda, B, btype, ldb, beta, C, ctype, ldc, compute,
			    algo);
}

__attribute__((noinline, cold)) static abi_status
kept_cublasGemmStridedBatchedEx(abi_status st, abi_handle handle, int transa, int transb, int m,
				int n, int k, const void *alpha, const void *A, int atype,
				int lda, long long stride_a, const void *B, int btype, int ldb,
				long long stride_b, const void *beta, void *C, int ctype,
				int ldc, long long stride_c, int batch, int compute, int algo)
{
	if (!real_cublas_find() || !real_cublas.cublasGemmStridedBatchedEx)
		return ABI_STATUS_NOT_INITIALIZED;
	return describe_strided(st, "cublasGemmStridedBatchedEx", forward_strided, handle, transa,
			    transb, m, n, k, alpha, A, atype, lda, stride_a, B, btype, ldb,
			    stride_b, beta, C, ctype, ldc, stride_c, batch, compute, algo);
}

__attribute__((noinline, cold)) static abi_status
kept_cublasGemmBatchedEx(abi_status st, abi_handle handle, int transa, int transb, int m, int n,
			 int k, const void *alpha, const void *const A[], int atype, int lda,
			 const void *const B[], int btype, int ldb, const void *beta,
			 void *const C[], int ctype, int ldc, int batch, int compute, int algo)
{
	if (!real_cublas_find() || !real_cublas.cublasGemmBatchedEx)
		return ABI_STATUS_NOT_INITIALIZED;
	return describe_batched(st, "cublasGemmBatchedEx", forward_batched, handle, transa, transb,
			    m, n, k, alpha, A, atype, lda, B, btype, ldb, beta, C, ctype, ldc,
			    batch, compute, algo);
}

__attribute__((noinline, cold)) static abi_status
kept_cublasSgemmEx(abi_status st, abi_handle handle, int transa, int transb, int m, int n,
		   int k, const float *alpha, const void *A, int atype, int lda, const void *B,
		   int btype, int ldb, const float *beta, void *C, int ctype, int ldc)
{
	if (!real_cublas_find() || !real_cublas.cublasSgemmEx)
		return ABI_STATUS_NOT_INITIALIZED;
	return describe_sgemm(st, "cublasSgemmEx", forward_sgemm, handle, transa, transb, m, n, k,
			  alpha, A, atype, lda, B, btype, ldb, beta, C, ctype, ldc);
}

/* ---- The entries.  Each: the gate's word, one real call with nested calls routed past
 * the shim, and the walk only for a refusal (with its status, so the call is not made
 * again) or a call the gate keeps.  NOT_CALLED: no attempt was made. */

#define NOT_CALLED (-1)

abi_status shim_cublasGemmEx(abi_handle handle, int transa, int transb, int m, int n, int k,
			     const void *alpha, const void *A, int atype, int lda, const void *B,
			     int btype, int ldb, const void *beta, void *C, int ctype, int ldc,
			     int compute, int algo)
{
	abi_status st = NOT_CALLED;

	if (gate_gemm_passes(atype, btype)) {
		struct gate_nest nest = gate_nest_enter();
		st = real_cublas.cublasGemmEx(handle, transa, transb, m, n, k, alpha, A, atype,
					      lda, B, btype, ldb, beta, C, ctype, ldc, compute,
					      algo);
		if (gate_nest_leave(nest, st))
			return st;
	}
	return kept_cublasGemmEx(st, handle, transa, transb, m, n, k, alpha, A, atype, lda, B,
				 btype, ldb, beta, C, ctype, ldc, compute, algo);
}

abi_status shim_cublasGemmEx_64(abi_handle handle, int transa, int transb, int64_t m,
				int64_t n, int64_t k, const void *alpha, const void *A,
				int atype, int64_t lda, const void *B, int btype, int64_t ldb,
				const void *beta, void *C, int ctype, int64_t ldc, int compute,
				int algo)
{
	abi_status st = NOT_CALLED;

	/* The _64 forms may be missing (cuBLAS 11): checked before the call. */
	if (gate_gemm_passes(atype, btype) && real_cublas.cublasGemmEx_64) {
		struct gate_nest nest = gate_nest_enter();
		st = real_cublas.cublasGemmEx_64(handle, transa, transb, m, n, k, alpha, A, atype,
						 lda, B, btype, ldb, beta, C, ctype, ldc, compute,
						 algo);
		if (gate_nest_leave(nest, st))
			return st;
	}
	if (!real_cublas_find() || !real_cublas.cublasGemmEx_64)
		return ABI_STATUS_NOT_INITIALIZED;
	return describe_gemm_ex(st, "cublasGemmEx_64", forward_gemm_ex_64, handle, transa, transb,
			    m, n, k, alpha, A, atype, lda, B, btype, ldb, beta, C, ctype, ldc,
			    compute, algo);
}

abi_status shim_cublasGemmStridedBatchedEx(abi_handle handle, int transa, int transb, int m,
					   int n, int k, const void *alpha, const void *A,
					   int atype, int lda, long long stride_a, const void *B,
					   int btype, int ldb, long long stride_b,
					   const void *beta, void *C, int ctype, int ldc,
					   long long stride_c, int batch, int compute, int algo)
{
	abi_status st = NOT_CALLED;

	if (gate_gemm_passes(atype, btype)) {
		struct gate_nest nest = gate_nest_enter();
		st = real_cublas.cublasGemmStridedBatchedEx(handle, transa, transb, m, n, k, alpha,
							    A, atype, lda, stride_a, B, btype,
							    ldb, stride_b, beta, C, ctype, ldc,
							    stride_c, batch, compute, algo);
		if (gate_nest_leave(nest, st))
			return st;
	}
	return kept_cublasGemmStridedBatchedEx(st, handle, transa, transb, m, n, k, alpha, A,
					       atype, lda, stride_a, B, btype, ldb, stride_b,
					       beta, C, ctype, ldc, stride_c, batch, compute,
					       algo);
}

abi_status shim_cublasGemmStridedBatchedEx_64(abi_handle handle, int transa, int transb,
					      int64_t m, int64_t n, int64_t k,
					      const void *alpha, const void *A, int atype,
					      int64_t lda, long long stride_a, const void *B,
					      int btype, int64_t ldb, long long stride_b,
					      const void *beta, void *C, int ctype, int64_t ldc,
					      long long stride_c, int64_t batch, int compute,
					      int algo)
{
	abi_status st = NOT_CALLED;

	if (gate_gemm_passes(atype, btype) && real_cublas.cublasGemmStridedBatchedEx_64) {
		struct gate_nest nest = gate_nest_enter();
		st = real_cublas.cublasGemmStridedBatchedEx_64(
			handle, transa, transb, m, n, k, alpha, A, atype, lda, stride_a, B, btype,
			ldb, stride_b, beta, C, ctype, ldc, stride_c, batch, compute, algo);
		if (gate_nest_leave(nest, st))
			return st;
	}
	if (!real_cublas_find() || !real_cublas.cublasGemmStridedBatchedEx_64)
		return ABI_STATUS_NOT_INITIALIZED;
	return describe_strided(st, "cublasGemmStridedBatchedEx_64", forward_strided_64, handle,
			    transa, transb, m, n, k, alpha, A, atype, lda, stride_a, B, btype,
			    ldb, stride_b, beta, C, ctype, ldc, stride_c, batch, compute, algo);
}

abi_status shim_cublasGemmBatchedEx(abi_handle handle, int transa, int transb, int m, int n,
				    int k, const void *alpha, const void *const A[], int atype,
				    int lda, const void *const B[], int btype, int ldb,
				    const void *beta, void *const C[], int ctype, int ldc,
				    int batch, int compute, int algo)
{
	abi_status st = NOT_CALLED;

	if (gate_gemm_passes(atype, btype)) {
		struct gate_nest nest = gate_nest_enter();
		st = real_cublas.cublasGemmBatchedEx(handle, transa, transb, m, n, k, alpha, A,
						     atype, lda, B, btype, ldb, beta, C, ctype,
						     ldc, batch, compute, algo);
		if (gate_nest_leave(nest, st))
			return st;
	}
	return kept_cublasGemmBatchedEx(st, handle, transa, transb, m, n, k, alpha, A, atype,
					lda, B, btype, ldb, beta, C, ctype, ldc, batch, compute,
					algo);
}

abi_status shim_cublasGemmBatchedEx_64(abi_handle handle, int transa, int transb, int64_t m,
				       int64_t n, int64_t k, const void *alpha,
				       const void *const A[], int atype, int64_t lda,
				       const void *const B[], int btype, int64_t ldb,
				       const void *beta, void *const C[], int ctype, int64_t ldc,
				       int64_t batch, int compute, int algo)
{
	abi_status st = NOT_CALLED;

	if (gate_gemm_passes(atype, btype) && real_cublas.cublasGemmBatchedEx_64) {
		struct gate_nest nest = gate_nest_enter();
		st = real_cublas.cublasGemmBatchedEx_64(handle, transa, transb, m, n, k, alpha, A,
							atype, lda, B, btype, ldb, beta, C, ctype,
							ldc, batch, compute, algo);
		if (gate_nest_leave(nest, st))
			return st;
	}
	if (!real_cublas_find() || !real_cublas.cublasGemmBatchedEx_64)
		return ABI_STATUS_NOT_INITIALIZED;
	return describe_batched(st, "cublasGemmBatchedEx_64", forward_batched_64, handle, transa,
			    transb, m, n, k, alpha, A, atype, lda, B, btype, ldb, beta, C, ctype,
			    ldc, batch, compute, algo);
}

abi_status shim_cublasSgemmEx(abi_handle handle, int transa, int transb, int m, int n, int k,
			      const float *alpha, const void *A, int atype, int lda,
			      const void *B, int btype, int ldb, const float *beta, void *C,
			      int ctype, int ldc)
{
	abi_status st = NOT_CALLED;

	if (gate_gemm_passes(atype, btype)) {
		struct gate_nest nest = gate_nest_enter();
		st = real_cublas.cublasSgemmEx(handle, transa, transb, m, n, k, alpha, A, atype,
					       lda, B, btype, ldb, beta, C, ctype, ldc);
		if (gate_nest_leave(nest, st))
			return st;
	}
	return kept_cublasSgemmEx(st, handle, transa, transb, m, n, k, alpha, A, atype, lda, B,
				  btype, ldb, beta, C, ctype, ldc);
}

abi_status shim_cublasSgemmEx_64(abi_handle handle, int transa, int transb, int64_t m,
				 int64_t n, int64_t k, const float *alpha, const void *A,
				 int atype, int64_t lda, const void *B, int btype, int64_t ldb,
				 const float *beta, void *C, int ctype, int64_t ldc)
{
	abi_status st = NOT_CALLED;

	if (gate_gemm_passes(atype, btype) && real_cublas.cublasSgemmEx_64) {
		struct gate_nest nest = gate_nest_enter();
		st = real_cublas.cublasSgemmEx_64(handle, transa, transb, m, n, k, alpha, A, atype,
						  lda, B, btype, ldb, beta, C, ctype, ldc);
		if (gate_nest_leave(nest, st))
			return st;
	}
	if (!real_cublas_find() || !real_cublas.cublasSgemmEx_64)
		return ABI_STATUS_NOT_INITIALIZED;
	return describe_sgemm(st, "cublasSgemmEx_64", forward_sgemm_64, handle, transa, transb, m,
			  n, k, alpha, A, atype, lda, B, btype, ldb, beta, C, ctype, ldc);
}

abi_status shim_cublasDestroy_v2(abi_handle handle)
{
	if (!real_cublas_find() || !real_cublas.cublasDestroy_v2)
		return ABI_STATUS_NOT_INITIALIZED;
	device_forget_handle(handle);
	return real_cublas.cublasDestroy_v2(handle);
}
