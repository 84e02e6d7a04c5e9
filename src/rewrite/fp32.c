/* The fp32 path: cast bf16 (or fp16) operands to fp32 on the device (exact), run an fp32
 * GEMM through the real cuBLAS into scratch, and let one fused epilogue kernel compute
 * alpha*D + beta*C and round to C's type.  Everything is queued on the handle's stream; no
 * value ever comes back to the host.  When the operands do not fit BF16SHIM_WORKSPACE_MB the
 * output is computed in tiles, so extra memory stays bounded at any size. */
#define _GNU_SOURCE
#include <limits.h>

#include "../config.h"
#include "../workspace.h"
#include "rewrite_internal.h"

static const struct scratch_cost fp32_cost = {.operand_bytes = 4, .word_bytes = 0, .buffers = 3};

/* Cast a stored panel (rows x cols of the stored matrix) to a compact fp32 matrix. */
static int cast_panel(abi_function f, struct view src, int64_t rows, int64_t cols,
		      int64_t batch, abi_devptr dst, abi_stream stream)
{
	uint32_t r = (uint32_t)rows, cl = (uint32_t)cols;
	uint64_t dst_stride = (uint64_t)(rows * cols);
	void *params[] = {&src.ptr, &src.ptr_array, &src.batch_stride, &src.ld, &src.row0,
			  &src.col0, &r, &cl, &dst, &dst_stride};
	return rewrite_launch(f, (uint64_t)rows, (uint64_t)cols, (uint64_t)batch, stream, params);
}

int rewrite_fp32(const struct gemm_call *c, const struct device_facts *dev, const char **why)
{
	strided_gemm_fn gemm = (strided_gemm_fn)real_cublas(SYM_cublasGemmStridedBatchedEx);
	int ta = c->transa == ABI_OP_N ? ABI_OP_N : ABI_OP_T;
	int tb = c->transb == ABI_OP_N ? ABI_OP_N : ABI_OP_T;
	size_t ae = rewrite_elem_size(c->atype), ce = rewrite_elem_size(c->ctype);
	int wrote = 0, status = ABI_STATUS_SUCCESS;
	struct rewrite_ctx rc;
	struct ws_lease ws;
	struct tiling t;
	abi_function cast;

	(void)dev;
	if (c->m == 0 || c->n == 0 || c->batch == 0)
		return ABI_STATUS_SUCCESS; /* nothing to compute, nothing to touch */
	if (!gemm || c->k > INT_MAX) {
		*why = "this cuBLAS lacks the fp32 GEMM the rewrite needs";
		return REWRITE_UNAVAILABLE;
	}
	if (!rewrite_begin(c, &rc, why))
		return REWRITE_UNAVAILABLE;
	cast = c->atype == ABI_R_16F ? rc.mod->cast_f16_f32 : rc.mod->cast_bf16_f32;
	if (!cast) {
		*why = "no cast kernel for this operand type";
		return REWRITE_UNAVAILABLE;
	}
	if (!choose_tiling(c, shim_config()->workspace_bytes, &fp32_cost, &t)) {
		*why = "k is too large for BF16SHIM_WORKSPACE_MB";
		return REWRITE_UNAVAILABLE;
	}
	if (!workspace_acquire(rc.stream, tile_scratch_bytes(&t, c->k, &fp32_cost), &ws, why))
		return REWRITE_UNAVAILABLE;

	for (int64_t b0 = 0; b0 < c->batch; b0 += t.bt) {
		int64_t bn = min64(t.bt, c->batch - b0);
		for (int64_t i0 = 0; i0 < c->m; i0 += t.mt) {
			int64_t mi = min64(t.mt, c->m - i0);
			abi_devptr next = ws.ptr;
			abi_devptr aw = scratch_take(&next, 4u * (uint64_t)(bn * mi * c->k));
			abi_devptr bw_base = next;
			/* op(A) rows i0.. are stored rows (N) or stored columns (T). */
			int64_t ar = ta == ABI_OP_N ? mi : c->k, ac = ta == ABI_OP_N ? c->k : mi;
			struct view av = operand_view(c->a, c->ptr_array, b0, c->stride_a, ae,
						      c->lda, ta == ABI_OP_N ? i0 : 0,
						      ta == ABI_OP_N ? 0 : i0);
			if (!cast_panel(cast, av, ar, ac, bn, aw, rc.stream))
				goto launch_failed;
			for (int64_t j0 = 0; j0 < c->n; j0 += t.nt) {
				int64_t nj = min64(t.nt, c->n - j0);
				abi_devptr bnext = bw_base;
				abi_devptr bw = scratch_take(&bnext, 4u * (uint64_t)(bn * c->k * nj));
				abi_devptr dw = scratch_take(&bnext, 4u * (uint64_t)(bn * mi * nj));
				int64_t br = tb == ABI_OP_N ? c->k : nj, bc = tb == ABI_OP_N ? nj : c->k;
				struct view bv = operand_view(c->b, c->ptr_array, b0, c->stride_b,
							      ae, c->ldb, tb == ABI_OP_N ? 0 : j0,
							      tb == ABI_OP_N ? j0 : 0);
				struct view cv = operand_view(c->c, c->ptr_array, b0, c->stride_c,
							      ce, c->ldc, i0, j0);
				struct epilogue_args ea = epilogue_args_of(&rc, dw, mi, nj, cv,
									   c->ctype);
				void *params[EPILOGUE_PARAMS];

				if (!cast_panel(cast, bv, br, bc, bn, bw, rc.stream))
					goto launch_failed;
				status = gemm(c->handle, ta, tb, (int)mi, (int)nj, (int)c->k, rc.one,
					      (const void *)(uintptr_t)aw, ABI_R_32F,
					      (int)(ar > 1 ? ar : 1), (long long)(mi * c->k),
					      (const void *)(uintptr_t)bw, ABI_R_32F,
					      (int)(br > 1 ? br : 1), (long long)(c->k * nj), rc.zero,
					      (void *)(uintptr_t)dw, ABI_R_32F, (int)mi,
					      (long long)(mi * nj), (int)bn, ABI_COMPUTE_32F,
					      ABI_GEMM_DEFAULT);
				if (status != ABI_STATUS_SUCCESS) {
					*why = "the fp32 GEMM failed";
					goto gemm_failed;
				}
				epilogue_params(&ea, params);
				if (!rewrite_launch(rc.mod->epilogue_f32, (uint64_t)mi, (uint64_t)nj,
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
	/* Once part of C is written the original call cannot be replayed over it. */
	return wrote ? status : REWRITE_UNAVAILABLE;
}
