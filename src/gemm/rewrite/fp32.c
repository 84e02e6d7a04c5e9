/* The fp32 path: cast bf16 (or fp16) operands to fp32 on the device (exact), run an fp32
 * GEMM through the real cuBLAS (cuBLASLt for a cuBLASLt call) into scratch, and let one fused
 * epilogue kernel compute act(alpha*D + beta*C + bias) and round to C's type; an fp32 C with
 * no bias or activation the GEMM writes itself.  Everything is
 * queued on the call's stream; no value ever comes back to the host.  When the operands do
 * not fit BF16SHIM_WORKSPACE_MB the output is computed in tiles (rewrite/tiles.c), so extra
 * memory stays bounded at any size. */
#define _GNU_SOURCE

#include "rewrite_internal.h"

static const struct scratch_cost fp32_cost = {
	.operand_bytes = 4, .word_bytes = 0, .buffers = 3, .result_bytes = 4};
/* When the GEMM writes C itself: the operands only. */
static const struct scratch_cost fp32_direct_cost = {
	.operand_bytes = 4, .word_bytes = 0, .buffers = 2, .result_bytes = 0};

/* An fp32 C with nothing after the product (no bias, no activation) and in one strided
 * array: the fp32 GEMM writes it, alpha and beta included, and no epilogue runs. */
static int fp32_direct(const struct gemm_call *c)
{
	return c->ctype == ABI_R_32F && !c->ptr_array && !c->epilogue.bias &&
	       c->epilogue.act == GEMM_ACT_NONE;
}

/* Cast a stored panel (rows x cols of the stored matrix) to a compact fp32 matrix. */
static enum why cast_panel(abi_function f, struct view src, int64_t rows, int64_t cols,
		      int64_t batch, abi_devptr dst, abi_stream stream)
{
	uint32_t r = (uint32_t)rows, cl = (uint32_t)cols;
	uint64_t dst_stride = (uint64_t)(rows * cols);
	void *params[] = {&src.ptr, &src.ptr_array, &src.batch_stride, &src.ld, &src.row0,
			  &src.col0, &r, &cl, &dst, &dst_stride};
	return rewrite_launch(f, (uint64_t)rows, (uint64_t)cols, (uint64_t)batch, stream, params);
}

struct fp32_state {
	abi_function cast;
};

/* The rows of op(A) and columns of op(B) of t, as stored (a panel of the stored matrix). */
static enum why fp32_convert(const struct rewrite_ctx *rc, void *self,
			     const struct gemm_call *c, struct tile *t, int do_a, int do_b,
			     abi_devptr *next)
{
	const struct fp32_state *st = self;
	int64_t ar = t->ta == ABI_OP_N ? t->am : c->k, ac = t->ta == ABI_OP_N ? c->k : t->am;
	int64_t br = t->tb == ABI_OP_N ? c->k : t->bnn, bc = t->tb == ABI_OP_N ? t->bnn : c->k;

	if (do_a) {
		t->a = scratch_take(next, 4u * (uint64_t)(t->bn * ar * ac));
		WHY_FORWARD(cast_panel(st->cast, t->av, ar, ac, t->bn, t->a, rc->stream));
	}
	if (do_b) {
		t->b = scratch_take(next, 4u * (uint64_t)(t->bn * br * bc));
		WHY_FORWARD(cast_panel(st->cast, t->bv, br, bc, t->bn, t->b, rc->stream));
	}
	return WHY_NONE;
}

static enum why fp32_epilogue(const struct rewrite_ctx *rc, void *self,
			      const struct gemm_call *c, const struct tile *t,
			      struct epilogue_args *ea)
{
	void *params[EPILOGUE_PARAMS + EPILOGUE_BIAS_PARAMS + 2];
	uint32_t splits = 1;
	uint64_t split_stride = 0;

	(void)self, (void)c;
	epilogue_params(ea, params, params + EPILOGUE_PARAMS);
	params[EPILOGUE_PARAMS + EPILOGUE_BIAS_PARAMS] = &splits;
	params[EPILOGUE_PARAMS + EPILOGUE_BIAS_PARAMS + 1] = &split_stride;
	return rewrite_launch_epilogue(rc->mod->epilogue_f32, (uint64_t)t->mi, (uint64_t)t->nj,
				       (uint64_t)t->bn, rc->stream, params);
}

static enum why fp32_usable(const struct gemm_call *c, const struct own_kernels *mod,
			    void *self)
{
	struct fp32_state *st = self;

	st->cast = c->atype == ABI_R_16F ? mod->cast_f16_f32 : mod->cast_bf16_f32;
	return st->cast ? WHY_NONE : WHY_NO_CAST_KERNEL;
}

static const struct tile_path fp32_path = {
	.cost = &fp32_cost, .inner_type = ABI_R_32F, .tensor_op = 0, .vectors = 0,
	.gemm_failed = WHY_FP32_GEMM_FAILED, .usable = fp32_usable, .direct = fp32_direct,
	.direct_cost = &fp32_direct_cost, .convert = fp32_convert, .epilogue = fp32_epilogue,
};

enum why rewrite_fp32(const struct gemm_call *c, const struct device_facts *dev, abi_status *st,
		      uint32_t *splits)
{
	(void)splits; /* k is never split here */
	struct fp32_state state;

	(void)dev;
	return rewrite_tiles(c, &fp32_path, &state, st);
}
