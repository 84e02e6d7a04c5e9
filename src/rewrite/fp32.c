/* The fp32 path: cast bf16 (or fp16) operands to fp32 on the device (exact), run an fp32
 * GEMM through the real cuBLAS (cuBLASLt for a cuBLASLt call) into scratch, and let one fused
 * epilogue kernel compute act(alpha*D + beta*C + bias) and round to C's type.  Everything is
 * queued on the call's stream; no value ever comes back to the host.  When the operands do not fit BF16SHIM_WORKSPACE_MB the
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
	if (!rewrite_gemm_available(c, why))
		return REWRITE_UNAVAILABLE;
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
	if (!rewrite_scratch(c, &rc, tile_scratch_bytes(&t, c->k, &fp32_cost), &ws, why))
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
				struct epilogue_args ea = epilogue_args_of(&rc, c, dw, b0, i0, j0, mi,
									   nj, cv);
				struct inner_gemm g = {ta, tb, mi, nj, c->k, bn, aw, bw, dw,
						       ABI_R_32F, 0};
				void *params[EPILOGUE_PARAMS + EPILOGUE_BIAS_PARAMS];

				if (!cast_panel(cast, bv, br, bc, bn, bw, rc.stream))
					goto launch_failed;
				status = rewrite_gemm(c, &rc, &g);
				if (status != ABI_STATUS_SUCCESS) {
					*why = "the fp32 GEMM failed";
					goto gemm_failed;
				}
				epilogue_params(&ea, params, params + EPILOGUE_PARAMS);
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
