/* The fp32 path: cast bf16 (or fp16) operands to fp32 on the device (exact), run an fp32
 * GEMM through the real cuBLAS into scratch, and let one fused epilogue kernel compute
 * alpha*D + beta*C and round to C's type.  Everything is queued on the handle's stream; no
 * value ever comes back to the host.  When the operands do not fit BF16SHIM_WORKSPACE_MB the
 * output is computed in tiles (rows of op(A) x columns of op(B)), so extra memory stays
 * bounded at any size. */
#define _GNU_SOURCE
#include <limits.h>
#include <string.h>

#include "../config.h"
#include "../kernels/kernels.h"
#include "../module.h"
#include "../workspace.h"
#include "rewrite.h"

#define MAX_GRID_YZ 65535u

/* A matrix operand as the kernels take it (kernels.h, "view"). */
struct view {
	uint64_t ptr, ptr_array, batch_stride, ld, row0, col0;
};

struct tiling {
	int64_t bt;   /* batch items per group */
	int64_t mt;   /* rows of op(A) per tile */
	int64_t nt;   /* columns of op(B) per tile */
};

typedef abi_status (*strided_fn)(abi_handle, int, int, int, int, int, const void *,
				 const void *, int, int, long long, const void *, int, int,
				 long long, const void *, void *, int, int, long long, int, int,
				 int);
typedef abi_status (*get_stream_fn)(abi_handle, abi_stream *);
typedef abi_status (*get_pmode_fn)(abi_handle, int *);

static size_t elem_size(int type)
{
	return type == ABI_R_32F ? 4 : 2;
}

static int kernel_type(int type)
{
	return type == ABI_R_32F ? KERNEL_TYPE_F32 :
	       type == ABI_R_16F ? KERNEL_TYPE_F16 : KERNEL_TYPE_BF16;
}

/* fp32 bytes of scratch a tile needs: op(A) panel, op(B) panel and the result. */
static uint64_t scratch_bytes(const struct tiling *t, int64_t k)
{
	return 4u * (uint64_t)t->bt *
	       ((uint64_t)t->mt * (uint64_t)k + (uint64_t)k * (uint64_t)t->nt +
		(uint64_t)t->mt * (uint64_t)t->nt);
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* Largest tiles that fit the cap: whole batch groups if possible, else one item at a time
 * with square-ish tiles grown along whichever dimension is not exhausted. */
static int choose_tiling(const struct gemm_call *c, uint64_t cap, struct tiling *t)
{
	uint64_t per_item, e = cap / 4, k = (uint64_t)c->k;
	int64_t s;

	*t = (struct tiling){min64(c->batch, MAX_GRID_YZ), c->m, c->n};
	per_item = scratch_bytes(&(struct tiling){1, c->m, c->n}, c->k);
	if (per_item <= cap) {
		t->bt = min64(t->bt, (int64_t)(cap / (per_item ? per_item : 1)));
		return 1;
	}
	t->bt = 1;
	/* Square tiles s x s: 2*s*k + s*s <= e. */
	for (s = 1; (uint64_t)(2 * s + 1) * k + (uint64_t)(s + 1) * (uint64_t)(s + 1) <= e; s *= 2)
		;
	while (s > 1 && 2 * (uint64_t)s * k + (uint64_t)s * (uint64_t)s > e)
		s--;
	if (2 * (uint64_t)s * k + (uint64_t)s * (uint64_t)s > e)
		return 0; /* not even one column fits: k is too large for the cap */
	t->mt = min64(c->m, s);
	t->nt = min64(c->n, s);
	if (t->mt == c->m) /* spend what is left on wider panels of op(B) */
		t->nt = min64(c->n, (int64_t)((e - (uint64_t)t->mt * k) / (k + (uint64_t)t->mt)));
	else if (t->nt == c->n)
		t->mt = min64(c->m, (int64_t)((e - k * (uint64_t)t->nt) / (k + (uint64_t)t->nt)));
	return t->mt > 0 && t->nt > 0;
}

/* The operand view of batch items [b0, ...) with the panel starting at (row0, col0). */
static struct view operand_view(const void *base, int ptr_array, int64_t b0, int64_t stride,
				size_t esize, int64_t ld, int64_t row0, int64_t col0)
{
	struct view v = {0};
	if (ptr_array)
		v.ptr_array = (uint64_t)(uintptr_t)base + (uint64_t)b0 * sizeof(uint64_t);
	else
		v.ptr = (uint64_t)(uintptr_t)base + (uint64_t)(b0 * stride) * esize;
	v.batch_stride = (uint64_t)stride;
	v.ld = (uint64_t)ld;
	v.row0 = (uint64_t)row0;
	v.col0 = (uint64_t)col0;
	return v;
}

static int launch(abi_function f, uint64_t rows, uint64_t cols, uint64_t batch,
		  abi_stream stream, void **params)
{
	const struct real_driver *drv = real_driver();
	unsigned gx = (unsigned)((rows + KERNEL_BLOCK - 1) / KERNEL_BLOCK);
	unsigned gy = (unsigned)(cols < MAX_GRID_YZ ? cols : MAX_GRID_YZ);

	if (!rows || !cols || !batch)
		return 1;
	return drv->cuLaunchKernel(f, gx, gy, (unsigned)batch, KERNEL_BLOCK, 1, 1, 0, stream,
				   params, NULL) == ABI_CUDA_SUCCESS;
}

/* Cast a stored panel (rows x cols of the stored matrix) to a compact fp32 matrix. */
static int cast_panel(abi_function f, struct view src, uint64_t rows, uint64_t cols,
		      uint64_t batch, abi_devptr dst, abi_stream stream)
{
	uint32_t r = (uint32_t)rows, cl = (uint32_t)cols;
	uint64_t dst_stride = rows * cols;
	void *params[] = {&src.ptr, &src.ptr_array, &src.batch_stride, &src.ld, &src.row0,
			  &src.col0, &r, &cl, &dst, &dst_stride};
	return launch(f, rows, cols, batch, stream, params);
}

struct scalars {
	float alpha, beta;
	uint64_t alpha_ptr, beta_ptr;   /* device pointer mode: read on the device */
};

static int epilogue(const struct shim_module *mod, abi_devptr d, uint64_t rows, uint64_t cols,
		    uint64_t batch, struct view cv, int ctype, const struct scalars *s,
		    abi_stream stream)
{
	uint64_t d_stride = rows * cols;
	uint32_t r = (uint32_t)rows, cl = (uint32_t)cols, kt = (uint32_t)kernel_type(ctype);
	float alpha = s->alpha, beta = s->beta;
	uint64_t ap = s->alpha_ptr, bp = s->beta_ptr;
	void *params[] = {&d, &d_stride, &r, &cl, &cv.ptr, &cv.ptr_array, &cv.batch_stride,
			  &cv.ld, &cv.row0, &cv.col0, &kt, &alpha, &beta, &ap, &bp};
	return launch(mod->epilogue_f32, rows, cols, batch, stream, params);
}

int rewrite_fp32(const struct gemm_call *c, const struct device_facts *dev, const char **why)
{
	const struct shim_config *cfg = shim_config();
	strided_fn gemm = (strided_fn)real_cublas(SYM_cublasGemmStridedBatchedEx);
	const struct shim_module *mod;
	abi_function cast;
	struct ws_lease ws;
	struct tiling t;
	struct scalars sc = {0};
	abi_stream stream = NULL;
	int pmode = ABI_POINTER_MODE_HOST, wrote = 0, status = ABI_STATUS_SUCCESS;
	int ta = c->transa == ABI_OP_N ? ABI_OP_N : ABI_OP_T;
	int tb = c->transb == ABI_OP_N ? ABI_OP_N : ABI_OP_T;
	const float one = 1.0f, zero = 0.0f;
	size_t ae = elem_size(c->atype), ce = elem_size(c->ctype);

	(void)dev;
	if (c->m == 0 || c->n == 0 || c->batch == 0)
		return ABI_STATUS_SUCCESS; /* nothing to compute, nothing to touch */
	if (!gemm || c->k > INT_MAX || c->lda > INT_MAX) {
		*why = "this cuBLAS lacks the fp32 GEMM the rewrite needs";
		return REWRITE_UNAVAILABLE;
	}
	mod = module_for_current_context(why);
	if (!mod)
		return REWRITE_UNAVAILABLE;
	cast = c->atype == ABI_R_16F ? mod->cast_f16_f32 : mod->cast_bf16_f32;
	if (!cast) {
		*why = "no cast kernel for this operand type";
		return REWRITE_UNAVAILABLE;
	}
	if (((get_stream_fn)real_cublas(SYM_cublasGetStream_v2))(c->handle, &stream) ||
	    ((get_pmode_fn)real_cublas(SYM_cublasGetPointerMode_v2))(c->handle, &pmode)) {
		*why = "cannot read the handle's stream or pointer mode";
		return REWRITE_UNAVAILABLE;
	}
	if (!choose_tiling(c, cfg->workspace_bytes, &t)) {
		*why = "k is too large for BF16SHIM_WORKSPACE_MB";
		return REWRITE_UNAVAILABLE;
	}
	if (pmode == ABI_POINTER_MODE_DEVICE) {
		sc.alpha_ptr = (uint64_t)(uintptr_t)c->alpha;
		sc.beta_ptr = (uint64_t)(uintptr_t)c->beta;
	} else {
		memcpy(&sc.alpha, c->alpha, sizeof sc.alpha);
		memcpy(&sc.beta, c->beta, sizeof sc.beta);
	}
	if (!workspace_acquire(stream, scratch_bytes(&t, c->k), &ws, why))
		return REWRITE_UNAVAILABLE;

	for (int64_t b0 = 0; b0 < c->batch; b0 += t.bt) {
		int64_t bn = min64(t.bt, c->batch - b0);
		for (int64_t i0 = 0; i0 < c->m; i0 += t.mt) {
			int64_t mi = min64(t.mt, c->m - i0);
			abi_devptr aw = ws.ptr;
			abi_devptr bw = aw + 4u * (uint64_t)(bn * mi * c->k);
			/* op(A) rows i0.. are stored rows (N) or stored columns (T). */
			int64_t ar = ta == ABI_OP_N ? mi : c->k, ac = ta == ABI_OP_N ? c->k : mi;
			struct view av = operand_view(c->a, c->ptr_array, b0, c->stride_a, ae,
						      c->lda, ta == ABI_OP_N ? i0 : 0,
						      ta == ABI_OP_N ? 0 : i0);
			if (!cast_panel(cast, av, (uint64_t)ar, (uint64_t)ac, (uint64_t)bn, aw,
					stream))
				goto launch_failed;
			for (int64_t j0 = 0; j0 < c->n; j0 += t.nt) {
				int64_t nj = min64(t.nt, c->n - j0);
				abi_devptr dw = bw + 4u * (uint64_t)(bn * c->k * nj);
				int64_t br = tb == ABI_OP_N ? c->k : nj, bc = tb == ABI_OP_N ? nj : c->k;
				struct view bv = operand_view(c->b, c->ptr_array, b0, c->stride_b,
							      ae, c->ldb, tb == ABI_OP_N ? 0 : j0,
							      tb == ABI_OP_N ? j0 : 0);
				struct view cv = operand_view(c->c, c->ptr_array, b0, c->stride_c,
							      ce, c->ldc, i0, j0);
				const void *p1 = pmode == ABI_POINTER_MODE_DEVICE ?
							 (const void *)(uintptr_t)mod->one : &one;
				const void *p0 = pmode == ABI_POINTER_MODE_DEVICE ?
							 (const void *)(uintptr_t)mod->zero : &zero;
				if (!cast_panel(cast, bv, (uint64_t)br, (uint64_t)bc, (uint64_t)bn,
						bw, stream))
					goto launch_failed;
				status = gemm(c->handle, ta, tb, (int)mi, (int)nj, (int)c->k, p1,
					      (const void *)(uintptr_t)aw, ABI_R_32F,
					      (int)(ar > 1 ? ar : 1), (long long)(mi * c->k),
					      (const void *)(uintptr_t)bw, ABI_R_32F,
					      (int)(br > 1 ? br : 1), (long long)(c->k * nj), p0,
					      (void *)(uintptr_t)dw, ABI_R_32F, (int)mi,
					      (long long)(mi * nj), (int)bn, ABI_COMPUTE_32F,
					      ABI_GEMM_DEFAULT);
				if (status != ABI_STATUS_SUCCESS) {
					*why = "the fp32 GEMM failed";
					goto gemm_failed;
				}
				if (!epilogue(mod, dw, (uint64_t)mi, (uint64_t)nj, (uint64_t)bn, cv,
					      c->ctype, &sc, stream))
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
