/* The decode path: GEMMs with m or n at most 16 (token-by-token inference) run as one
 * kernel that reads the bf16 operands directly and accumulates in fp32, so the big operand
 * is read once, as a native GEMM reads it: no casts, no scratch.  n <= 16 runs as is; m <= 16
 * runs as C^T = op(B)^T op(A)^T, the kernel storing its result transposed. */
#define _GNU_SOURCE

#include "../kernels/kernels.h"
#include "../real.h"
#include "rewrite_internal.h"

/* The bias and activation as the kernel takes them (kernels.h), for batch items b0.. */
struct small_epilogue {
	uint64_t bias, bias_stride;
	uint32_t bias_type, bias_along, act;
};

static struct small_epilogue small_epilogue_of(const struct gemm_call *c, int64_t b0, int swap)
{
	const struct gemm_epilogue *ep = &c->epilogue;
	struct small_epilogue e = {.act = (uint32_t)ep->act};
	if (ep->bias) {
		e.bias = ep->bias + (uint64_t)(b0 * ep->bias_batch_stride) *
					    rewrite_elem_size(ep->bias_type);
		e.bias_stride = (uint64_t)ep->bias_batch_stride;
		e.bias_type = (uint32_t)rewrite_kernel_type(ep->bias_type);
		/* Computing C^T turns the output's rows into the kernel's columns. */
		e.bias_along = (uint32_t)((ep->bias_along != 0) != swap);
	}
	return e;
}

static int launch_small(const struct rewrite_ctx *rc, struct view a, uint32_t ta, struct view b,
			uint32_t tb, uint32_t m, uint32_t n, uint32_t k, struct view cv,
			uint32_t c_transposed, uint32_t ctype, int64_t batch,
			struct small_epilogue ep)
{
	const struct real_driver *drv = real_driver();
	unsigned block = KERNEL_SMALL_BLOCK(n);
	float alpha = rc->sc.alpha, beta = rc->sc.beta;
	uint64_t ap = rc->sc.alpha_ptr, bp = rc->sc.beta_ptr;
	void *params[] = {&a.ptr, &a.ptr_array, &a.batch_stride, &a.ld, &a.row0, &a.col0, &ta,
			  &b.ptr, &b.ptr_array, &b.batch_stride, &b.ld, &b.row0, &b.col0, &tb,
			  &m, &n, &k,
			  &cv.ptr, &cv.ptr_array, &cv.batch_stride, &cv.ld, &cv.row0, &cv.col0,
			  &c_transposed, &ctype, &alpha, &beta, &ap, &bp,
			  &ep.bias, &ep.bias_type, &ep.bias_along, &ep.bias_stride, &ep.act};
	unsigned gx = (unsigned)(((uint64_t)m + block - 1) / block);

	return drv->cuLaunchKernel(rc->mod->gemm_small, gx, 1, (unsigned)batch, block, 1, 1,
				   KERNEL_SMALL_SHMEM(block), rc->stream, params,
				   NULL) == ABI_CUDA_SUCCESS;
}

int rewrite_decode(const struct gemm_call *c, const struct device_facts *dev, enum why *why)
{
	int swap = c->n > KERNEL_SMALL_MAX_N;
	uint32_t ta = c->transa != ABI_OP_N, tb = c->transb != ABI_OP_N;
	uint32_t ctype = (uint32_t)rewrite_kernel_type(c->ctype);
	size_t ce = rewrite_elem_size(c->ctype);
	struct rewrite_ctx rc;

	(void)dev;
	if (c->m == 0 || c->n == 0 || c->batch == 0)
		return ABI_STATUS_SUCCESS;
	if (c->atype != ABI_R_16BF || c->btype != ABI_R_16BF ||
	    (swap && c->m > KERNEL_SMALL_MAX_N) || c->k > UINT32_MAX - 64 ||
	    c->m > UINT32_MAX || c->n > UINT32_MAX) {
		*why = WHY_NOT_DECODE_SHAPE;
		return REWRITE_UNAVAILABLE;
	}
	if (!rewrite_begin(c, &rc, why))
		return REWRITE_UNAVAILABLE;
	if (!rc.mod->gemm_small) {
		*why = WHY_DECODE_KERNEL_MISSING;
		return REWRITE_UNAVAILABLE;
	}
	for (int64_t b0 = 0; b0 < c->batch; b0 += MAX_GRID_YZ) {
		int64_t bn = min64(MAX_GRID_YZ, c->batch - b0);
		struct view av = operand_view(c->a, c->ptr_array, b0, c->stride_a, 2, c->lda, 0, 0);
		struct view bv = operand_view(c->b, c->ptr_array, b0, c->stride_b, 2, c->ldb, 0, 0);
		struct view cv = operand_view(c->c, c->ptr_array, b0, c->stride_c, ce, c->ldc, 0, 0);
		struct small_epilogue ep = small_epilogue_of(c, b0, swap);
		int ok = swap ? launch_small(&rc, bv, !tb, av, !ta, (uint32_t)c->n, (uint32_t)c->m,
					     (uint32_t)c->k, cv, 1, ctype, bn, ep)
			      : launch_small(&rc, av, ta, bv, tb, (uint32_t)c->m, (uint32_t)c->n,
					     (uint32_t)c->k, cv, 0, ctype, bn, ep);
		if (!ok) {
			*why = WHY_LAUNCH_FAILED;
			/* Earlier batch groups are written: the call cannot be replayed. */
			return b0 ? ABI_STATUS_EXECUTION_FAILED : REWRITE_UNAVAILABLE;
		}
	}
	return ABI_STATUS_SUCCESS;
}
