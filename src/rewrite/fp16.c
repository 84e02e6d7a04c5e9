/* The fp16 path for Volta/Turing: bf16 operands scaled by exact powers of two into fp16's
 * range, an fp16 x fp16 -> fp32 GEMM on the tensor cores, and an epilogue that removes the
 * scales exactly and recomputes, from the bf16 inputs, every output that depends on a row or
 * column fp16 could not hold exactly.  The scales are found, applied and removed on the
 * device: nothing comes back to the host.  Design and kernel contracts: kernels/kernels.h. */
#define _GNU_SOURCE

#include "../kernels/kernels.h"
#include "../real.h"
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

/* The per-row and per-column scale words of the current panel and tile. */
struct fp16_state {
	abi_devptr row_words, col_words;
};

static int fp16_panel(const struct rewrite_ctx *rc, void *self, struct tile *t, abi_devptr *next)
{
	struct fp16_state *st = self;
	st->row_words = scratch_take(next, 4u * (uint64_t)(t->bn * t->mi));
	t->a = scratch_take(next, 2u * (uint64_t)(t->bn * t->ar * t->ac));
	/* Rows of op(A) are stored rows when A is not transposed. */
	return prepare(rc, t->av, t->ar, t->ac, t->bn, t->ta == ABI_OP_N, t->mi, st->row_words,
		       t->a);
}

static int fp16_tile(const struct rewrite_ctx *rc, void *self, struct tile *t, abi_devptr *next)
{
	struct fp16_state *st = self;
	st->col_words = scratch_take(next, 4u * (uint64_t)(t->bn * t->nj));
	t->b = scratch_take(next, 2u * (uint64_t)(t->bn * t->br * t->bc));
	/* Columns of op(B) are stored rows when B is transposed. */
	return prepare(rc, t->bv, t->br, t->bc, t->bn, t->tb != ABI_OP_N, t->nj, st->col_words,
		       t->b);
}

static int fp16_epilogue(const struct rewrite_ctx *rc, void *self, const struct gemm_call *c,
			 const struct tile *t, struct epilogue_args *ea)
{
	struct fp16_state *st = self;
	struct view av = t->av, bv = t->bv;
	uint32_t ta32 = t->ta != ABI_OP_N, tb32 = t->tb != ABI_OP_N, k32 = (uint32_t)c->k;
	void *rest[] = {&st->row_words, &st->col_words, &av.ptr, &av.ptr_array,
			&av.batch_stride, &av.ld, &av.row0, &av.col0, &ta32, &bv.ptr,
			&bv.ptr_array, &bv.batch_stride, &bv.ld, &bv.row0, &bv.col0, &tb32, &k32};
	void *params[EPILOGUE_PARAMS + sizeof rest / sizeof rest[0] + EPILOGUE_BIAS_PARAMS];

	/* The scaled epilogue takes bias and activation last (kernels.h). */
	epilogue_params(ea, params, params + EPILOGUE_PARAMS + sizeof rest / sizeof rest[0]);
	for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
		params[EPILOGUE_PARAMS + i] = rest[i];
	return rewrite_launch(rc->mod->epilogue_scaled, (uint64_t)t->mi, (uint64_t)t->nj,
			      (uint64_t)t->bn, rc->stream, params);
}

/* bf16 operands only (their scales are bf16's), a driver that can zero the scale words,
 * and the path's kernels. */
static int fp16_usable(const struct gemm_call *c, const struct shim_module *mod, void *self,
		       enum why *why)
{
	(void)self;
	if (c->atype != ABI_R_16BF || c->btype != ABI_R_16BF)
		*why = WHY_FP16_TAKES_BF16;
	else if (!real_driver()->cuMemsetD32Async)
		*why = WHY_DRIVER_LACKS_FP16;
	else if (!mod->absmax_rows || !mod->absmax_cols || !mod->cast_bf16_f16_scaled ||
		 !mod->epilogue_scaled)
		*why = WHY_FP16_KERNELS_MISSING;
	else
		return 1;
	return 0;
}

static const struct tile_path fp16_path = {
	.cost = &fp16_cost, .inner_type = ABI_R_16F, .tensor_op = 1,
	.gemm_failed = WHY_FP16_GEMM_FAILED, .usable = fp16_usable,
	.panel = fp16_panel, .tile = fp16_tile, .epilogue = fp16_epilogue,
};

int rewrite_fp16(const struct gemm_call *c, const struct device_facts *dev, enum why *why)
{
	struct fp16_state st = {0, 0};

	(void)dev;
	return rewrite_tiles(c, &fp16_path, &st, why);
}
