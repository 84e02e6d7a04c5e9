/* The decode path: GEMMs with m or n at most 16 (token-by-token inference) run as one
 * kernel that reads the bf16 operands directly and accumulates in fp32, so the big operand
 * is read once, as a native GEMM reads it: no casts.  n <= 16 runs as is; m <= 16 runs as
 * C^T = op(B)^T op(A)^T, the kernel storing its result transposed.  Where that gives fewer
 * than two blocks per multiprocessor, k is split: each split's blocks write fp32 partial
 * results to scratch, and the fp32 epilogue adds them in order and finishes C. */
#define _GNU_SOURCE

#include "cost.h"
#include "kernels/kernels.h"
#include "real.h"
#include "rewrite_internal.h"

_Static_assert(KERNEL_SMALL_BLOCK(16) == 256 && KERNEL_SMALL_BLOCK(1) == 32,
	       "cost.c's cost_decode_block is kernels.h's KERNEL_SMALL_BLOCK");

/* How the kernel writes: the call's C and epilogue, or (splits > 1) kc of k a block row
 * into fp32 partial results, split after split. */
struct small_out {
	struct view cv;
	uint32_t c_transposed, ctype, splits, kc;
	uint64_t split_stride;
	struct scalars sc;
	struct bias_act ep;
};

static enum why launch_small(const struct rewrite_ctx *rc, struct view a, uint32_t ta, struct view b,
			uint32_t tb, uint32_t m, uint32_t n, uint32_t k, int64_t batch,
			struct small_out o)
{
	const struct real_driver *drv = real_driver();
	unsigned block = KERNEL_SMALL_BLOCK(n);
	void *params[] = {&a.ptr, &a.ptr_array, &a.batch_stride, &a.ld, &a.row0, &a.col0, &ta,
			  &b.ptr, &b.ptr_array, &b.batch_stride, &b.ld, &b.row0, &b.col0, &tb,
			  &m, &n, &k,
			  &o.cv.ptr, &o.cv.ptr_array, &o.cv.batch_stride, &o.cv.ld, &o.cv.row0,
			  &o.cv.col0, &o.c_transposed, &o.ctype, &o.sc.alpha, &o.sc.beta,
			  &o.sc.alpha_ptr, &o.sc.beta_ptr, &o.ep.bias, &o.ep.bias_type,
			  &o.ep.bias_along, &o.ep.bias_stride, &o.ep.act, &o.kc, &o.split_stride};
	unsigned gx = (unsigned)(((uint64_t)m + block - 1) / block);

	if (drv->cuLaunchKernel(rc->mod->gemm_small, gx, o.splits, (unsigned)batch, block, 1, 1,
				KERNEL_SMALL_SHMEM(block), rc->stream, params,
				NULL) != ABI_CUDA_SUCCESS)
		return WHY_LAUNCH_FAILED;
	return WHY_NONE;
}

enum why rewrite_decode(const struct gemm_call *c, const struct device_facts *dev,
			abi_status *st, uint32_t *splits_out)
{
	int swap = c->n > KERNEL_SMALL_MAX_N;
	uint32_t ta = c->transa != ABI_OP_N, tb = c->transb != ABI_OP_N;
	uint32_t ctype = (uint32_t)rewrite_kernel_type(c->ctype), splits, kc = 0;
	uint64_t mk = (uint64_t)(swap ? c->n : c->m), nk = (uint64_t)(swap ? c->m : c->n);
	size_t ce = rewrite_elem_size(c->ctype);
	struct rewrite_ctx rc;
	struct ws_lease ws = {0};

	*st = ABI_STATUS_SUCCESS;
	if (c->m == 0 || c->n == 0 || c->batch == 0)
		return WHY_NONE;
	if (c->atype != ABI_R_16BF || c->btype != ABI_R_16BF ||
	    (swap && c->m > KERNEL_SMALL_MAX_N) || c->k > UINT32_MAX - 64 ||
	    c->m > UINT32_MAX || c->n > UINT32_MAX)
		return WHY_NOT_DECODE_SHAPE;
	WHY_FORWARD(rewrite_begin(c, &rc));
	if (!rc.mod->gemm_small)
		return WHY_DECODE_KERNEL_MISSING;
	/* The split the cost model assumes (cost.h). */
	splits = cost_decode_splits(dev ? dev->sm_count : 0,
				    (mk + KERNEL_SMALL_BLOCK(nk) - 1) / KERNEL_SMALL_BLOCK(nk) *
					    (uint64_t)min64(c->batch, MAX_GRID_YZ),
				    c->k, nk);
	if (splits > 1) {
		/* kc a multiple of 64 (the kernel's chunk); every split has some of k. */
		kc = (uint32_t)(((uint64_t)c->k + splits - 1) / splits + 63) / 64 * 64;
		splits = (uint32_t)(((uint64_t)c->k + kc - 1) / kc);
		if (splits < 2 || rewrite_scratch(c, &rc, 4 * splits * mk * nk *
						(uint64_t)min64(c->batch, MAX_GRID_YZ), &ws) != WHY_NONE)
			splits = 1, kc = 0; /* no scratch: one block row, as before */
	}
	for (int64_t b0 = 0; b0 < c->batch; b0 += MAX_GRID_YZ) {
		int64_t bn = min64(MAX_GRID_YZ, c->batch - b0);
		struct view av = operand_view(c->a, c->ptr_array, b0, c->stride_a, 2, c->lda, 0, 0);
		struct view bv = operand_view(c->b, c->ptr_array, b0, c->stride_b, 2, c->ldb, 0, 0);
		struct view cv = operand_view(c->c, c->ptr_array, b0, c->stride_c, ce, c->ldc, 0, 0);
		struct small_out o = {cv, (uint32_t)swap, ctype, 1, 0, 0, rc.sc,
				      bias_act_of(c, b0, swap)};
		enum why why;

		if (splits > 1) {
			/* Partial results in C's layout (m x n a batch item), then the epilogue. */
			o = (struct small_out){.cv = {.ptr = ws.ptr, .batch_stride = (uint64_t)(c->m * c->n),
						      .ld = (uint64_t)c->m},
					       .c_transposed = (uint32_t)swap, .ctype = KERNEL_TYPE_F32,
					       .splits = splits, .kc = kc,
					       .split_stride = (uint64_t)(bn * c->m * c->n),
					       .sc = {.alpha = 1, .beta = 0}};
		}
		why = swap ? launch_small(&rc, bv, !tb, av, !ta, (uint32_t)c->n, (uint32_t)c->m,
					 (uint32_t)c->k, bn, o)
			  : launch_small(&rc, av, ta, bv, tb, (uint32_t)c->m, (uint32_t)c->n,
					 (uint32_t)c->k, bn, o);
		if (why == WHY_NONE && splits > 1) {
			struct epilogue_args ea = epilogue_args_of(&rc, c, ws.ptr, b0, 0, 0, c->m, c->n,
								   cv);
			void *params[EPILOGUE_PARAMS + EPILOGUE_BIAS_PARAMS + 2];
			uint64_t stride = o.split_stride;

			epilogue_params(&ea, params, params + EPILOGUE_PARAMS);
			params[EPILOGUE_PARAMS + EPILOGUE_BIAS_PARAMS] = &splits;
			params[EPILOGUE_PARAMS + EPILOGUE_BIAS_PARAMS + 1] = &stride;
			why = rewrite_launch_epilogue(rc.mod->epilogue_f32, (uint64_t)c->m,
						     (uint64_t)c->n, (uint64_t)bn, rc.stream, params);
		}
		if (why != WHY_NONE) {
			if (splits > 1)
				workspace_release(&ws);
			/* Earlier batch groups are written: the call cannot be replayed. */
			*st = ABI_STATUS_EXECUTION_FAILED;
			return b0 ? WHY_NONE : why;
		}
	}
	if (splits > 1) {
		workspace_release(&ws);
		*splits_out = splits;
	}
	return WHY_NONE;
}
