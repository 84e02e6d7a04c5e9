/* The fp16 path for Volta/Turing: bf16 operands scaled by exact powers of two into fp16's
 * range, an fp16 x fp16 -> fp32 GEMM on the tensor cores, and an epilogue that removes the
 * scales exactly and recomputes, from the bf16 inputs, every output that depends on a row or
 * column fp16 could not hold exactly.  The scales are found, applied and removed on the
 * device: nothing comes back to the host.  Design and kernel contracts: kernels/kernels.h. */
#define _GNU_SOURCE
#include <limits.h>

#include "../config.h"
#include "../kernels/kernels.h"
#include "../real.h"
#include "../workspace.h"
#include "rewrite_internal.h"

/* fp16 operand copies, the fp32 result, and one u32 word per row and per column. */
static const struct scratch_cost fp16_cost = {.operand_bytes = 2, .word_bytes = 4, .buffers = 5};

/* Launches src's absmax over `count` rows (of op(X)) of a stored rows x cols panel: the
 * rows of op(X) are stored rows when `by_rows`, stored columns otherwise. */
static int absmax(const struct shim_module *mod, int by_rows, struct view v, int64_t rows,
		  int64_t cols, int64_t batch, abi_devptr words, abi_stream s)
{
	uint32_t r = (uint32_t)rows, cl = (uint32_t)cols;
	void *params[] = {&v.ptr, &v.ptr_array, &v.batch_stride, &v.ld, &v.row0, &v.col0,
			  &r, &cl, &words};
	return rewrite_launch(by_rows ? mod->absmax_rows : mod->absmax_cols, (uint64_t)rows,
			      (uint64_t)cols, (uint64_t)batch, s, params);
}

static int cast_scaled(const struct shim_module *mod, struct view v, int64_t rows, int64_t cols,
		       int64_t batch, abi_devptr dst, abi_devptr words, int by_rows,
		       abi_stream s)
{
	uint32_t r = (uint32_t)rows, cl = (uint32_t)cols, along = by_rows ? 0 : 1;
	uint64_t dst_stride = (uint64_t)(rows * cols);
	void *params[] = {&v.ptr, &v.ptr_array, &v.batch_stride, &v.ld, &v.row0, &v.col0,
			  &r, &cl, &dst, &dst_stride, &words, &along};
	return rewrite_launch(mod->cast_bf16_f16_scaled, (uint64_t)rows, (uint64_t)cols,
			      (uint64_t)batch, s, params);
}

/* Words of one operand panel: zeroed, then the max of each row of op(X).  Then the scaled
 * fp16 copy.  For op(A) the "rows" are its m rows; for op(B) its n columns, which are stored
 * columns when B is not transposed — hence the by_rows flip. */
static int prepare(const struct rewrite_ctx *rc, struct view v, int64_t srows, int64_t scols,
		   int64_t batch, int by_rows, int64_t nwords, abi_devptr words, abi_devptr f16)
{
	const struct real_driver *drv = real_driver();
	if (drv->cuMemsetD32Async(words, 0, (size_t)(nwords * batch), rc->stream) != ABI_CUDA_SUCCESS)
		return 0;
	return absmax(rc->mod, by_rows, v, srows, scols, batch, words, rc->stream) &&
	       cast_scaled(rc->mod, v, srows, scols, batch, f16, words, by_rows, rc->stream);
}

int rewrite_fp16(const struct gemm_call *c, const struct device_facts *dev, const char **why)
{
	int ta = c->transa == ABI_OP_N ? ABI_OP_N : ABI_OP_T;
	int tb = c->transb == ABI_OP_N ? ABI_OP_N : ABI_OP_T;
	size_t ce = rewrite_elem_size(c->ctype);
	int wrote = 0, status = ABI_STATUS_SUCCESS;
	struct rewrite_ctx rc;
	struct ws_lease ws;
	struct tiling t;

	(void)dev;
	if (c->m == 0 || c->n == 0 || c->batch == 0)
		return ABI_STATUS_SUCCESS;
	if (c->atype != ABI_R_16BF || c->btype != ABI_R_16BF) {
		*why = "the fp16 path takes bf16 operands only";
		return REWRITE_UNAVAILABLE;
	}
	if (!rewrite_gemm_available(c, why))
		return REWRITE_UNAVAILABLE;
	if (!real_driver()->cuMemsetD32Async) {
		*why = "this driver lacks what the fp16 path needs";
		return REWRITE_UNAVAILABLE;
	}
	if (!rewrite_begin(c, &rc, why))
		return REWRITE_UNAVAILABLE;
	if (!rc.mod->absmax_rows || !rc.mod->absmax_cols || !rc.mod->cast_bf16_f16_scaled ||
	    !rc.mod->epilogue_scaled) {
		*why = "the fp16 path's kernels are missing";
		return REWRITE_UNAVAILABLE;
	}
	if (!choose_tiling(c, shim_config()->workspace_bytes, &fp16_cost, &t)) {
		*why = "k is too large for BF16SHIM_WORKSPACE_MB";
		return REWRITE_UNAVAILABLE;
	}
	if (!rewrite_scratch(c, &rc, tile_scratch_bytes(&t, c->k, &fp16_cost), &ws, why))
		return REWRITE_UNAVAILABLE;

	for (int64_t b0 = 0; b0 < c->batch; b0 += t.bt) {
		int64_t bn = min64(t.bt, c->batch - b0);
		for (int64_t i0 = 0; i0 < c->m; i0 += t.mt) {
			int64_t mi = min64(t.mt, c->m - i0);
			abi_devptr next = ws.ptr;
			abi_devptr rw = scratch_take(&next, 4u * (uint64_t)(bn * mi));
			abi_devptr a16 = scratch_take(&next, 2u * (uint64_t)(bn * mi * c->k));
			abi_devptr b_base = next;
			int64_t ar = ta == ABI_OP_N ? mi : c->k, ac = ta == ABI_OP_N ? c->k : mi;
			struct view av = operand_view(c->a, c->ptr_array, b0, c->stride_a, 2, c->lda,
						      ta == ABI_OP_N ? i0 : 0,
						      ta == ABI_OP_N ? 0 : i0);
			/* Rows of op(A) are stored rows when A is not transposed. */
			if (!prepare(&rc, av, ar, ac, bn, ta == ABI_OP_N, mi, rw, a16))
				goto launch_failed;
			for (int64_t j0 = 0; j0 < c->n; j0 += t.nt) {
				int64_t nj = min64(t.nt, c->n - j0);
				abi_devptr bnext = b_base;
				abi_devptr cw = scratch_take(&bnext, 4u * (uint64_t)(bn * nj));
				abi_devptr b16 = scratch_take(&bnext, 2u * (uint64_t)(bn * c->k * nj));
				abi_devptr dw = scratch_take(&bnext, 4u * (uint64_t)(bn * mi * nj));
				int64_t br = tb == ABI_OP_N ? c->k : nj, bc = tb == ABI_OP_N ? nj : c->k;
				struct view bv = operand_view(c->b, c->ptr_array, b0, c->stride_b, 2,
							      c->ldb, tb == ABI_OP_N ? 0 : j0,
							      tb == ABI_OP_N ? j0 : 0);
				struct view cv = operand_view(c->c, c->ptr_array, b0, c->stride_c, ce,
							      c->ldc, i0, j0);
				struct epilogue_args ea = epilogue_args_of(&rc, c, dw, b0, i0, j0, mi,
									   nj, cv);
				struct inner_gemm g = {ta, tb, mi, nj, c->k, bn, a16, b16, dw,
						       ABI_R_16F, 1};
				uint32_t ta32 = ta != ABI_OP_N, tb32 = tb != ABI_OP_N;
				uint32_t k32 = (uint32_t)c->k;
				void *params[EPILOGUE_PARAMS + 17 + EPILOGUE_BIAS_PARAMS];

				/* Columns of op(B) are stored rows when B is transposed. */
				if (!prepare(&rc, bv, br, bc, bn, tb != ABI_OP_N, nj, cw, b16))
					goto launch_failed;
				status = rewrite_gemm(c, &rc, &g);
				if (status != ABI_STATUS_SUCCESS) {
					*why = "the fp16 GEMM failed";
					goto gemm_failed;
				}
				/* The scaled epilogue takes bias and activation last (kernels.h). */
				epilogue_params(&ea, params, params + EPILOGUE_PARAMS + 17);
				{
					void *rest[] = {&rw, &cw, &av.ptr, &av.ptr_array,
							&av.batch_stride, &av.ld, &av.row0, &av.col0,
							&ta32, &bv.ptr, &bv.ptr_array, &bv.batch_stride,
							&bv.ld, &bv.row0, &bv.col0, &tb32, &k32};
					for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
						params[EPILOGUE_PARAMS + i] = rest[i];
				}
				if (!rewrite_launch(rc.mod->epilogue_scaled, (uint64_t)mi, (uint64_t)nj,
						    (uint64_t)bn, rc.stream, params))
					goto launch_failed;
				wrote = 1;
			}
		}
	}
	workspace_release(&ws);
	return ABI_STATUS_SUCCESS;

launch_failed:
	*why = "a kernel launch failed";
	status = ABI_STATUS_EXECUTION_FAILED;
gemm_failed:
	workspace_release(&ws);
	return wrote ? status : REWRITE_UNAVAILABLE;
}
