/* The fused path: one kernel per batch group reads the bf16 operands as they are stored,
 * converts them in registers (fp16 slices with exact power-of-two scales for the tensor
 * cores, or fp32 for the CUDA cores) and finishes C itself: no copy of an operand, no
 * scratch, no library GEMM, C written once (kernels.h, "fused path").  Which kernel runs is
 * the GPU's: Turing's tensor cores (m16n8k8 with ldmatrix), Volta's (m8n8k4), else the
 * CUDA cores' fp32 fma. */
#define _GNU_SOURCE

#include "cost.h"
#include "kernels/kernels.h"
#include "real.h"
#include "rewrite_internal.h"
#include "walk.h"

/* The kernel for the GPU the plan is for, its tile, and whether it may split k (cost.h,
 * cost_fused_splits). */
struct fused_choice {
	abi_function f;
	unsigned tile_m, tile_n, blocks_per_sm;
	int split_k;
};

/* The planner's choice (cost.h, cost_fused_kernel), among what this context loaded. */
static struct fused_choice fused_kernel(const struct own_kernels *mod,
					const struct device_facts *dev)
{
	switch (dev ? cost_fused_kernel(dev->sm, dev->tensor_cores) : COST_FUSED_NONE) {
	case COST_FUSED_TC75:
		return (struct fused_choice){mod->fused_tc75, KERNEL_FUSED_TC_M, KERNEL_FUSED_TC_N, 1, 1};
	case COST_FUSED_TC70:
		return (struct fused_choice){mod->fused_tc70, KERNEL_FUSED_TC_M, KERNEL_FUSED_TC_N, 1, 1};
	case COST_FUSED_FMA:
		return (struct fused_choice){mod->fused_fma, KERNEL_FUSED_FMA_M, KERNEL_FUSED_FMA_N,
					     KERNEL_FUSED_FMA_BLOCKS_PER_SM, 0};
	default:
		return (struct fused_choice){0};
	}
}

/* Rows of tiles a group of the launch order takes (kernels.h, "fused path"): the g whose
 * op(A) and op(B) traffic is least as the resident blocks walk k together, a wave of them
 * at a time.  A group streams all of op(B)'s panels once (its g rows of a column read each
 * panel side by side, the L2 serving all but the first); its op(A) panels come once where g
 * of them fit half the L2 beside that stream, else once a wave.  At most a wave of rows, so
 * that a column's blocks run side by side.  0 (all rows) where the driver does not say how
 * large the L2 is or how many multiprocessors there are. */
static uint32_t group_rows(const struct device_facts *dev, struct fused_choice kc,
			   const struct gemm_call *c)
{
	uint64_t rows = ((uint64_t)c->m + kc.tile_m - 1) / kc.tile_m;
	uint64_t cols = ((uint64_t)c->n + kc.tile_n - 1) / kc.tile_n, g, best_g = 0, slots;
	double pa = (double)kc.tile_m * (double)c->k * 2, pb = (double)kc.tile_n * (double)c->k * 2;
	double best = 0;

	if (!dev || dev->l2_bytes <= 0 || dev->sm_count <= 0)
		return 0;
	slots = (uint64_t)dev->sm_count * kc.blocks_per_sm;
	for (g = 1; g <= rows && g <= slots; g++) {
		double groups = (double)((rows + g - 1) / g), waves = (double)((g * cols + slots - 1) / slots);
		double a = g * pa <= dev->l2_bytes / 2.0 ? (double)rows * pa : groups * waves * g * pa;
		double t = a + groups * (double)cols * pb;
		if (!best_g || t < best)
			best = t, best_g = g;
	}
	return best_g > UINT32_MAX ? 0 : (uint32_t)best_g;
}

/* The kernel's parameters (kernels.h): views, transposes, sizes, C, scalars, bias, order. */
struct fused_args {
	struct view a, b, c;
	uint32_t ta, tb, m, n, k, ctype;
	struct scalars sc;
	struct bias_act ep;
	uint32_t group_m;
};

static enum why launch_fused(const struct rewrite_ctx *rc, struct fused_choice kc,
			     struct fused_args *x, int64_t batch)
{
	void *params[] = {&x->a.ptr, &x->a.ptr_array, &x->a.batch_stride, &x->a.ld, &x->a.row0,
			  &x->a.col0, &x->ta,
			  &x->b.ptr, &x->b.ptr_array, &x->b.batch_stride, &x->b.ld, &x->b.row0,
			  &x->b.col0, &x->tb, &x->m, &x->n, &x->k,
			  &x->c.ptr, &x->c.ptr_array, &x->c.batch_stride, &x->c.ld, &x->c.row0,
			  &x->c.col0, &x->ctype, &x->sc.alpha, &x->sc.beta, &x->sc.alpha_ptr,
			  &x->sc.beta_ptr, &x->ep.bias, &x->ep.bias_type, &x->ep.bias_along,
			  &x->ep.bias_stride, &x->ep.act, &x->group_m};
	unsigned gx = (unsigned)(((uint64_t)x->m + kc.tile_m - 1) / kc.tile_m);
	unsigned gy = (unsigned)(((uint64_t)x->n + kc.tile_n - 1) / kc.tile_n);

	if (real_driver()->cuLaunchKernel(kc.f, gx, gy, (unsigned)batch, KERNEL_FUSED_THREADS,
					  1, 1, 0, rc->stream, params, NULL) != ABI_CUDA_SUCCESS)
		return WHY_LAUNCH_FAILED;
	return WHY_NONE;
}

/* One GEMM with a split k (cost.h, cost_fused_splits): the kernel computes the s partial
 * products over k / s each, as a batch of s in the grid's z (the views step k / s along k
 * from one batch item to the next), into fp32 scratch in C's shape; the fp32 epilogue adds
 * them in order, applies alpha, beta C, the bias and the activation, and writes C once.
 * 0 where there is no scratch for the partial results (nothing launched: the caller runs
 * the grid unsplit), else 1 with *why and *st as the path answers (rewrite.h). */
static int launch_split(const struct gemm_call *c, const struct rewrite_ctx *rc,
			struct fused_choice kc, uint32_t s, enum why *why, abi_status *st)
{
	uint64_t kc_len = (uint64_t)c->k / s, mn = (uint64_t)c->m * (uint64_t)c->n;
	struct ws_lease ws = {0};

	if (rewrite_scratch(c, rc, 4 * s * mn, &ws) != WHY_NONE)
		return 0;
	struct fused_args x = {
		.a = operand_view(c->a, 0, 0, 0, 2, c->lda, 0, 0),
		.b = operand_view(c->b, 0, 0, 0, 2, c->ldb, 0, 0),
		.c = {.ptr = ws.ptr, .batch_stride = mn, .ld = (uint64_t)c->m},
		.ta = c->transa != ABI_OP_N, .tb = c->transb != ABI_OP_N,
		.m = (uint32_t)c->m, .n = (uint32_t)c->n, .k = (uint32_t)kc_len,
		.ctype = KERNEL_TYPE_F32, .sc = {.alpha = 1, .beta = 0}};
	/* op(A)'s k runs down A's columns when A is transposed, else across them; op(B)'s
	 * down B's columns unless B is transposed. */
	x.a.batch_stride = x.ta ? kc_len : kc_len * (uint64_t)c->lda;
	x.b.batch_stride = x.tb ? kc_len * (uint64_t)c->ldb : kc_len;
	x.group_m = 0;
	*why = launch_fused(rc, kc, &x, s);
	if (*why == WHY_NONE) {
		struct view cv = operand_view(c->c, 0, 0, c->stride_c, rewrite_elem_size(c->ctype),
					      c->ldc, 0, 0);
		struct epilogue_args ea = epilogue_args_of(rc, c, ws.ptr, 0, 0, 0, c->m, c->n, cv);
		void *params[EPILOGUE_PARAMS + EPILOGUE_BIAS_PARAMS + 2];
		uint64_t stride = mn;

		epilogue_params(&ea, params, params + EPILOGUE_PARAMS);
		params[EPILOGUE_PARAMS + EPILOGUE_BIAS_PARAMS] = &s;
		params[EPILOGUE_PARAMS + EPILOGUE_BIAS_PARAMS + 1] = &stride;
		/* C is not written yet: a failed epilogue can be answered as a failed launch,
		 * and the call replayed as a whole. */
		*why = rewrite_launch_epilogue(rc->mod->epilogue_f32, (uint64_t)c->m,
					       (uint64_t)c->n, 1, rc->stream, params);
	}
	workspace_release(&ws);
	return 1;
}

enum why rewrite_fused(const struct gemm_call *c, const struct device_facts *dev,
		       abi_status *st, uint32_t *splits)
{
	size_t ce = rewrite_elem_size(c->ctype);
	struct fused_choice kc;
	struct rewrite_ctx rc;
	uint32_t s;

	*st = ABI_STATUS_SUCCESS;
	if (c->m == 0 || c->n == 0 || c->batch == 0)
		return WHY_NONE;
	/* Blocks of the tile along m and n within the grid's limits; k with room for the last
	 * chunk's end (kernels.h). */
	if (c->atype != ABI_R_16BF || c->btype != ABI_R_16BF || c->m > UINT32_MAX ||
	    c->n > UINT32_MAX || c->k > UINT32_MAX - 64)
		return WHY_NOT_FUSED_SHAPE;
	WHY_FORWARD(rewrite_begin(c, &rc));
	kc = fused_kernel(rc.mod, dev);
	if (!kc.f)
		return WHY_FUSED_KERNEL_MISSING;
	if ((uint64_t)c->n > (uint64_t)MAX_GRID_YZ * kc.tile_n)
		return WHY_NOT_FUSED_SHAPE;
	/* The tensor-core kernels split k where the grid leaves multiprocessors idle and the
	 * model finds the split faster, as the planner's estimate assumed; the CUDA cores'
	 * kernel keeps one fma chain in k order. */
	/* (The device's model is built only for a call that could split: it costs a lookup.) */
	if (kc.split_k && !c->ptr_array && dev && cost_fused_may_split(c->k, c->batch)) {
		struct plan_device pd = plan_device_of(dev);
		struct cost_gemm g = {c->m, c->n, c->k, c->batch, c->ctype == ABI_R_32F ? 4 : 2, 0};
		s = cost_fused_splits(&pd.cost, &g);
	} else {
		s = 1;
	}
	if (s > 1 && rc.mod->epilogue_f32) {
		enum why why;
		if (launch_split(c, &rc, kc, s, &why, st)) {
			if (why == WHY_NONE)
				*splits = s;
			return why;
		}
	}
	for (int64_t b0 = 0; b0 < c->batch; b0 += MAX_GRID_YZ) {
		int64_t bn = min64(MAX_GRID_YZ, c->batch - b0);
		struct fused_args x = {
			.a = operand_view(c->a, c->ptr_array, b0, c->stride_a, 2, c->lda, 0, 0),
			.b = operand_view(c->b, c->ptr_array, b0, c->stride_b, 2, c->ldb, 0, 0),
			.c = operand_view(c->c, c->ptr_array, b0, c->stride_c, ce, c->ldc, 0, 0),
			.ta = c->transa != ABI_OP_N, .tb = c->transb != ABI_OP_N,
			.m = (uint32_t)c->m, .n = (uint32_t)c->n, .k = (uint32_t)c->k,
			.ctype = (uint32_t)rewrite_kernel_type(c->ctype), .sc = rc.sc,
			.ep = bias_act_of(c, b0, 0), .group_m = group_rows(dev, kc, c)};
		enum why why = launch_fused(&rc, kc, &x, bn);

		if (why != WHY_NONE) {
			/* Earlier batch groups are written: the call cannot be replayed. */
			*st = ABI_STATUS_EXECUTION_FAILED;
			return b0 ? WHY_NONE : why;
		}
	}
	return WHY_NONE;
}
