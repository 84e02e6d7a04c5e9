/* Helpers shared by the rewrite paths (see rewrite_internal.h). */
#define _GNU_SOURCE
#include <string.h>

#include "kernels/kernels.h"
#include "real.h"
#include "rewrite_internal.h"

size_t rewrite_elem_size(int type)
{
	return type == ABI_R_32F ? 4 : 2;
}

int rewrite_kernel_type(int type)
{
	return type == ABI_R_32F ? KERNEL_TYPE_F32 :
	       type == ABI_R_16F ? KERNEL_TYPE_F16 : KERNEL_TYPE_BF16;
}

int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

_Static_assert((int)GEMM_ACT_RELU == (int)KERNEL_ACT_RELU &&
		       (int)GEMM_ACT_GELU == (int)KERNEL_ACT_GELU,
	       "gemm.h and kernels.h number the activations alike");

/* Does [p, p + bytes) lie in one allocation?  Unknown (the driver cannot say, e.g. host
 * memory) counts as yes: only a definite overrun stops a rewrite. */
static int within_allocation(const void *p, uint64_t bytes)
{
	const struct real_driver *drv = real_driver();
	abi_devptr base, a = (abi_devptr)(uintptr_t)p;
	size_t size;

	if (!bytes || !drv->cuMemGetAddressRange ||
	    drv->cuMemGetAddressRange(&base, &size, a) != ABI_CUDA_SUCCESS)
		return 1;
	return a - base + bytes <= size;
}

/* Elements a strided operand spans: the last batch item's last column, to its last row. */
static uint64_t span(int64_t rows, int64_t cols, int64_t ld, int64_t stride, int64_t batch)
{
	if (rows <= 0 || cols <= 0 || batch <= 0)
		return 0;
	return (uint64_t)((batch - 1) * stride + (cols - 1) * ld + rows);
}

/* Our kernels would fault where cuBLAS answers with a status: leave such calls to it. */
static int operands_fit(const struct gemm_call *c)
{
	int ta = c->transa != ABI_OP_N, tb = c->transb != ABI_OP_N;
	size_t ae = rewrite_elem_size(c->atype), ce = rewrite_elem_size(c->ctype);

	if (c->ptr_array)
		return 1; /* the pointers live on the device; cuBLAS would not check them either */
	return within_allocation(c->a, ae * span(ta ? c->k : c->m, ta ? c->m : c->k, c->lda,
						 c->stride_a, c->batch)) &&
	       within_allocation(c->b, ae * span(tb ? c->n : c->k, tb ? c->k : c->n, c->ldb,
						 c->stride_b, c->batch)) &&
	       within_allocation(c->c, ce * span(c->m, c->n, c->ldc, c->stride_c, c->batch));
}

enum why rewrite_begin(const struct gemm_call *c, struct rewrite_ctx *rc)
{
	memset(rc, 0, sizeof *rc);
	if (!operands_fit(c))
		return WHY_PAST_ALLOCATION;
	WHY_FORWARD(own_kernels_for_context(&rc->mod));
	WHY_FORWARD(c->backend->stream(c, &rc->stream, &rc->pmode));
	if (rc->pmode == ABI_POINTER_MODE_DEVICE) {
		rc->sc.alpha_ptr = (uint64_t)(uintptr_t)c->alpha;
		rc->sc.beta_ptr = (uint64_t)(uintptr_t)c->beta;
	} else {
		/* Host pointer mode: the values are in host memory now. */
		memcpy(&rc->sc.alpha, c->alpha, sizeof rc->sc.alpha);
		memcpy(&rc->sc.beta, c->beta, sizeof rc->sc.beta);
	}
	return WHY_NONE;
}

enum why rewrite_scratch(const struct gemm_call *c, const struct rewrite_ctx *rc,
			 uint64_t bytes, struct ws_lease *ws)
{
	uint64_t base = (uint64_t)(uintptr_t)c->workspace;
	uint64_t start = (base + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;

	if (base && start - base + bytes <= c->workspace_bytes) {
		/* Stream order separates our use from the caller's next one. */
		memset(ws, 0, sizeof *ws);
		ws->ptr = start;
		ws->bytes = bytes;
		ws->stream = rc->stream;
		return WHY_NONE;
	}
	return workspace_acquire(rc->stream, bytes, ws);
}

/* Scratch for bt items: am rows of op(A) and bn columns of op(B) converted, an mt x nt
 * result tile. */
static uint64_t scratch_for(int64_t bt, int64_t am, int64_t bn, int64_t mt, int64_t nt,
			    int64_t k, const struct scratch_cost *cost)
{
	uint64_t kk = (uint64_t)k;
	return (uint64_t)bt * (cost->operand_bytes * ((uint64_t)am * kk + kk * (uint64_t)bn) +
			       cost->result_bytes * (uint64_t)mt * (uint64_t)nt +
			       cost->word_bytes * (uint64_t)(am + bn)) +
	       (uint64_t)cost->buffers * SCRATCH_ALIGN;
}

uint64_t tile_scratch_bytes(const struct gemm_call *c, const struct tiling *t,
			    const struct scratch_cost *cost)
{
	return t->whole ? scratch_for(t->bt, c->m, c->n, t->mt, t->nt, c->k, cost)
			: scratch_for(t->bt, t->mt, t->nt, t->mt, t->nt, c->k, cost);
}

/* Largest v in [lo, hi] with ok(v), given ok(lo); ok must be monotone. */
#define LARGEST(lo, hi, ok)                                                                \
	({                                                                                 \
		int64_t lo_ = (lo), hi_ = (hi);                                            \
		while (lo_ < hi_) {                                                        \
			int64_t v = lo_ + (hi_ - lo_ + 1) / 2;                             \
			if (ok)                                                            \
				lo_ = v;                                                   \
			else                                                               \
				hi_ = v - 1;                                               \
		}                                                                          \
		lo_;                                                                       \
	})

/* Converting the whole operands once beats converting op(B) again for every row panel as
 * long as a result tile of at least this much fits beside them (a smaller one would have the
 * GEMMs read the converted operands too many times). */
#define WHOLE_TILE_MIN 256

/* bt = as many items as fit, given a plan for one. */
static int64_t items(const struct gemm_call *c, uint64_t cap, uint64_t one,
		     const struct scratch_cost *cost)
{
	uint64_t slack = (uint64_t)cost->buffers * SCRATCH_ALIGN;
	uint64_t per_item = one - slack;
	return min64(min64(c->batch, MAX_GRID_YZ), (int64_t)((cap - slack) / (per_item ? per_item : 1)));
}

int choose_tiling(const struct gemm_call *c, uint64_t cap, const struct scratch_cost *cost,
		  struct tiling *t)
{
	int64_t m = c->m, n = c->n, k = c->k, s;
	int64_t m0 = min64(m, WHOLE_TILE_MIN), n0 = min64(n, WHOLE_TILE_MIN);

	if (scratch_for(1, m, n, m, n, k, cost) <= cap) {
		*t = (struct tiling){1, m, n, 1};
		t->bt = items(c, cap, scratch_for(1, m, n, m, n, k, cost), cost);
		return t->bt > 0;
	}
	if (scratch_for(1, m, n, m0, n0, k, cost) <= cap) {
		/* Operands once; the largest square-ish result tile, then the rest spent on the
		 * dimension not exhausted. */
		s = LARGEST(WHOLE_TILE_MIN, m > n ? m : n,
			    scratch_for(1, m, n, min64(m, v), min64(n, v), k, cost) <= cap);
		*t = (struct tiling){1, min64(m, s), min64(n, s), 1};
		if (t->mt == m)
			t->nt = LARGEST(t->nt, n, scratch_for(1, m, n, m, v, k, cost) <= cap);
		else if (t->nt == n)
			t->mt = LARGEST(t->mt, m, scratch_for(1, m, n, v, n, k, cost) <= cap);
		return 1;
	}
	if (scratch_for(1, 1, 1, 1, 1, k, cost) > cap)
		return 0; /* k is too large for the cap */
	s = LARGEST(1, m > n ? m : n,
		    scratch_for(1, min64(m, v), min64(n, v), min64(m, v), min64(n, v), k, cost) <= cap);
	*t = (struct tiling){1, min64(m, s), min64(n, s), 0};
	if (t->mt == m)
		t->nt = LARGEST(t->nt, n, scratch_for(1, m, v, m, v, k, cost) <= cap);
	else if (t->nt == n)
		t->mt = LARGEST(t->mt, m, scratch_for(1, v, n, v, n, k, cost) <= cap);
	return 1;
}

struct view operand_view(const void *base, int ptr_array, int64_t b0, int64_t stride,
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

enum why rewrite_launch_grid(abi_function f, unsigned gx, unsigned gy, unsigned gz,
			     unsigned shmem, abi_stream stream, void **params)
{
	if (real_driver()->cuLaunchKernel(f, gx, gy, gz, KERNEL_BLOCK, 1, 1, shmem, stream,
					  params, NULL) != ABI_CUDA_SUCCESS)
		return WHY_LAUNCH_FAILED;
	return WHY_NONE;
}

enum why rewrite_launch(abi_function f, uint64_t rows, uint64_t cols, uint64_t batch,
		   abi_stream stream, void **params)
{
	unsigned gx = (unsigned)((rows + KERNEL_BLOCK - 1) / KERNEL_BLOCK);
	unsigned gy = (unsigned)(cols < MAX_GRID_YZ ? cols : MAX_GRID_YZ);

	if (!rows || !cols || !batch)
		return WHY_NONE;
	return rewrite_launch_grid(f, gx, gy, (unsigned)batch, 0, stream, params);
}

enum why rewrite_launch_epilogue(abi_function f, uint64_t rows, uint64_t cols, uint64_t batch,
			    abi_stream stream, void **params)
{
	uint64_t gx = (rows + KERNEL_BLOCK - 1) / KERNEL_BLOCK;
	uint64_t least = (cols + KERNEL_EPILOGUE_COLS_MAX - 1) / KERNEL_EPILOGUE_COLS_MAX;
	uint64_t gy;

	if (!rows || !cols || !batch)
		return WHY_NONE;
	gy = (256 + gx * batch - 1) / (gx * batch);
	gy = gy < least ? least : gy;
	gy = gy < cols ? gy : cols;
	if (gy > MAX_GRID_YZ)
		return WHY_LAUNCH_FAILED; /* more than 16 million columns: not a tile we make */
	return rewrite_launch_grid(f, (unsigned)gx, (unsigned)gy, (unsigned)batch, 0, stream,
				   params);
}

abi_devptr scratch_take(abi_devptr *next, uint64_t bytes)
{
	abi_devptr p = *next;
	*next += (bytes + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
	return p;
}

void epilogue_params(struct epilogue_args *e, void **params, void **bias_params)
{
	void *p[EPILOGUE_PARAMS] = {&e->d, &e->d_stride, &e->rows, &e->cols, &e->c.ptr,
				    &e->c.ptr_array, &e->c.batch_stride, &e->c.ld, &e->c.row0,
				    &e->c.col0, &e->ctype, &e->alpha, &e->beta, &e->alpha_ptr,
				    &e->beta_ptr};
	void *q[EPILOGUE_BIAS_PARAMS] = {&e->bias, &e->bias_type, &e->bias_along, &e->bias_stride,
					 &e->act};
	memcpy(params, p, sizeof p);
	if (bias_params)
		memcpy(bias_params, q, sizeof q);
}

struct epilogue_args epilogue_args_of(const struct rewrite_ctx *rc, const struct gemm_call *c,
				      abi_devptr d, int64_t b0, int64_t i0, int64_t j0,
				      int64_t rows, int64_t cols, struct view cv)
{
	const struct gemm_epilogue *ep = &c->epilogue;
	struct epilogue_args e = {
		.d = d, .d_stride = (uint64_t)(rows * cols), .rows = (uint32_t)rows,
		.cols = (uint32_t)cols, .c = cv, .ctype = (uint32_t)rewrite_kernel_type(c->ctype),
		.alpha = rc->sc.alpha, .beta = rc->sc.beta, .alpha_ptr = rc->sc.alpha_ptr,
		.beta_ptr = rc->sc.beta_ptr, .act = (uint32_t)ep->act};

	if (ep->bias) {
		int64_t first = b0 * ep->bias_batch_stride + (ep->bias_along ? j0 : i0);
		e.bias = ep->bias + (uint64_t)first * rewrite_elem_size(ep->bias_type);
		e.bias_type = (uint32_t)rewrite_kernel_type(ep->bias_type);
		e.bias_along = (uint32_t)(ep->bias_along != 0);
		e.bias_stride = (uint64_t)ep->bias_batch_stride;
	}
	return e;
}

struct bias_act bias_act_of(const struct gemm_call *c, int64_t b0, int swap)
{
	const struct gemm_epilogue *ep = &c->epilogue;
	struct bias_act e = {.act = (uint32_t)ep->act};

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

struct view op_a_view(const struct gemm_call *c, int64_t b0, int64_t i0)
{
	int n = c->transa == ABI_OP_N;
	return operand_view(c->a, c->ptr_array, b0, c->stride_a, rewrite_elem_size(c->atype),
			    c->lda, n ? i0 : 0, n ? 0 : i0);
}

struct view op_b_view(const struct gemm_call *c, int64_t b0, int64_t j0)
{
	int n = c->transb == ABI_OP_N;
	return operand_view(c->b, c->ptr_array, b0, c->stride_b, rewrite_elem_size(c->btype),
			    c->ldb, n ? 0 : j0, n ? j0 : 0);
}

int rewrite_pointer_mode(const struct gemm_call *c)
{
	abi_stream stream;
	int pmode;

	return c->backend->stream(c, &stream, &pmode) == WHY_NONE ? pmode : -1;
}
