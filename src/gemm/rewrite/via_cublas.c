/* A rewrite of a cuBLAS call takes its stream and pointer mode from the call's handle and
 * runs its inner GEMM through cublasGemmStridedBatchedEx on that handle, whose pointer mode
 * its 1 and 0 follow. */
#define _GNU_SOURCE
#include <limits.h>

#include "real.h"
#include "rewrite_internal.h"

static enum why stream(const struct gemm_call *c, abi_stream *s, int *pmode)
{
	if (real_cublas.cublasGetStream_v2(c->handle, s) ||
	    real_cublas.cublasGetPointerMode_v2(c->handle, pmode))
		return WHY_HANDLE_UNREADABLE;
	return WHY_NONE;
}

static enum why gemm_available(const struct gemm_call *c)
{
	if (!real_cublas.cublasGemmStridedBatchedEx || c->k > INT_MAX)
		return WHY_CUBLAS_LACKS_GEMM;
	return WHY_NONE;
}

static const float one_host = 1.0f, zero_host = 0.0f;

static abi_status gemm(const struct gemm_call *c, const struct rewrite_ctx *rc,
		       const struct inner_gemm *g)
{
	int device = rc->pmode == ABI_POINTER_MODE_DEVICE;
	const void *one = device ? (const void *)(uintptr_t)rc->mod->one : &one_host;
	const void *zero = device ? (const void *)(uintptr_t)rc->mod->zero : &zero_host;

	if (g->alpha) { /* the call's own scalars, in the handle's pointer mode */
		one = g->alpha;
		zero = g->beta;
	}
	return real_cublas.cublasGemmStridedBatchedEx(
		c->handle, g->ta, g->tb, (int)g->m, (int)g->n, (int)g->k, one,
		(const void *)(uintptr_t)g->a, g->type, (int)g->lda, (long long)g->stride_a,
		(const void *)(uintptr_t)g->b, g->type, (int)g->ldb, (long long)g->stride_b, zero,
		(void *)(uintptr_t)g->d, ABI_R_32F, (int)g->ldd, (long long)g->stride_d,
		(int)g->batch, ABI_COMPUTE_32F,
		g->tensor_op ? ABI_GEMM_DEFAULT_TENSOR_OP : ABI_GEMM_DEFAULT);
}

const struct gemm_backend rewrite_via_cublas = {stream, gemm_available, gemm};
