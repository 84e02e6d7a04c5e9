/* The fp16 path for Volta/Turing: each row of op(A) and column of op(B) scaled by an exact
 * power of two into fp16 and split in two slices (the elements fp16 holds at that scale,
 * and the next 33 binades), an fp16 x fp16 -> fp32 GEMM of the first slices on the tensor
 * cores, the products of the second slices added on the tensor cores where a row or column
 * has one, and an epilogue that removes the scales exactly and recomputes from the bf16
 * inputs only the outputs whose left-out products could matter.  Everything is decided on
 * the device: nothing comes back to the host.  Design and kernel contracts: kernels/kernels.h
 * (KERNEL_FP16_SLICES). */
#define _GNU_SOURCE

#include "kernels/kernels.h"
#include "rewrite_internal.h"

/* Two fp16 slices of each operand, the fp32 result, 8 bytes of words a row and a column. */
static const struct scratch_cost fp16_cost = {
	.operand_bytes = 4, .word_bytes = KERNEL_FP16_WORD_BYTES, .buffers = 7, .result_bytes = 4};

/* Dynamic shared memory the conversion stages its vectors in (of the 48 KiB every GPU gives
 * a block without asking, its static 1.5 KiB taken). */
#define STAGE_BYTES (40u << 10)

/* The slices and words of the converted rows of op(A) and columns of op(B). */
struct fp16_state {
	abi_devptr a2, aw, b2, bw;
	int tensor_cores;               /* the GPU has them (a GTX 16xx has not: no tail) */
	int tail;                       /* the tail kernel ran on the current tile */
};

/* One operand's job for bf16shim_fp16_slices (kernels.h): 14 parameters. */
struct slices_job {
	struct view v;
	uint32_t vecs, k, vec_rows;
	abi_devptr dst1, dst2, words;
	uint32_t vpb, staged;
	unsigned blocks, shmem;
};

static unsigned floor_pow2(uint64_t x)
{
	unsigned p = 1;
	while ((uint64_t)p * 2 <= x && p < KERNEL_FP16_VPB_MAX)
		p *= 2;
	return p;
}

/* Vectors a block and staging: about four elements a thread for contiguous vectors; for
 * strided ones (stored rows) up to 32 side by side so that a warp's loads are neighbours,
 * fewer where they would not fit shared memory together. */
static struct slices_job job_of(struct view v, int64_t vecs, int64_t k, int vec_rows, int64_t bn,
				abi_devptr *next)
{
	uint64_t n = (uint64_t)(bn * vecs);
	struct slices_job j = {.v = v, .vecs = (uint32_t)vecs, .k = (uint32_t)k,
			       .vec_rows = (uint32_t)vec_rows};

	j.dst1 = scratch_take(next, 2 * n * (uint64_t)k);
	j.dst2 = scratch_take(next, 2 * n * (uint64_t)k);
	j.words = scratch_take(next, KERNEL_FP16_WORD_BYTES * n);
	j.vpb = vec_rows ? floor_pow2(STAGE_BYTES / (2 * (uint64_t)(k ? k : 1)))
			 : floor_pow2(1024 / (uint64_t)(k ? k : 1));
	j.staged = (uint64_t)j.vpb * 2 * (uint64_t)k <= STAGE_BYTES;
	if (vec_rows && !j.staged)
		j.vpb = KERNEL_FP16_VPB_MAX;
	j.blocks = (unsigned)(((uint64_t)vecs + j.vpb - 1) / j.vpb);
	j.shmem = j.staged ? j.vpb * 2u * j.k : 0;
	return j;
}

static void push_job(void **p, struct slices_job *j)
{
	void *q[] = {&j->v.ptr, &j->v.ptr_array, &j->v.batch_stride, &j->v.ld, &j->v.row0,
		     &j->v.col0, &j->vecs, &j->k, &j->vec_rows, &j->dst1, &j->dst2, &j->words,
		     &j->vpb, &j->staged};
	for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
		p[i] = q[i];
}

/* Both operands' slices in one launch (one job where only one operand is due). */
static enum why fp16_convert(const struct rewrite_ctx *rc, void *self,
			     const struct gemm_call *c, struct tile *t, int do_a, int do_b,
			     abi_devptr *next)
{
	struct fp16_state *st = self;
	struct slices_job ja = {0}, jb = {0};
	void *params[29];
	uint32_t blocks0;

	/* Rows of op(A) are stored rows when A is not transposed; columns of op(B) are stored
	 * rows when B is. */
	if (do_a) {
		ja = job_of(t->av, t->am, c->k, t->ta == ABI_OP_N, t->bn, next);
		t->a = ja.dst1;
		st->a2 = ja.dst2;
		st->aw = ja.words;
	}
	if (do_b) {
		jb = job_of(t->bv, t->bnn, c->k, t->tb != ABI_OP_N, t->bn, next);
		t->b = jb.dst1;
		st->b2 = jb.dst2;
		st->bw = jb.words;
	}
	if (!do_a)
		ja = jb, jb.blocks = 0;
	blocks0 = ja.blocks;
	push_job(params, &ja);
	push_job(params + 14, do_a && do_b ? &jb : &ja);
	params[28] = &blocks0;
	return rewrite_launch_grid(rc->mod->fp16_slices, ja.blocks + jb.blocks, 1, (unsigned)t->bn,
				   ja.shmem > jb.shmem ? ja.shmem : jb.shmem, rc->stream, params);
}

/* The second slices' products, where the tensor-core module is there. */
static enum why fp16_tail(const struct rewrite_ctx *rc, void *self,
			  const struct gemm_call *c, const struct tile *t)
{
	struct fp16_state *st = self;
	uint64_t k = (uint64_t)c->k, di = (uint64_t)(t->i0 - t->ai0), dj = (uint64_t)(t->j0 - t->bj0);
	abi_devptr a1 = t->a + 2 * di * k, a2 = st->a2 + 2 * di * k;
	abi_devptr b1 = t->b + 2 * dj * k, b2 = st->b2 + 2 * dj * k;
	abi_devptr rw = st->aw + KERNEL_FP16_WORD_BYTES * di, cw = st->bw + KERNEL_FP16_WORD_BYTES * dj;
	uint64_t abs = (uint64_t)t->am * k, bbs = (uint64_t)t->bnn * k, d = t->d;
	uint64_t dbs = (uint64_t)(t->mi * t->nj), ldd = (uint64_t)t->mi;
	uint32_t rv = (uint32_t)t->am, cv = (uint32_t)t->bnn, m = (uint32_t)t->mi;
	uint32_t n = (uint32_t)t->nj, k32 = (uint32_t)c->k;
	void *params[] = {&a1, &a2, &abs, &b1, &b2, &bbs, &rw, &rv, &cw, &cv, &m, &n, &k32,
			  &d, &dbs, &ldd};
	uint64_t gy = (t->nj + KERNEL_FP16_TAIL_TILE - 1) / KERNEL_FP16_TAIL_TILE;

	st->tail = st->tensor_cores && rc->mod->fp16_tail != NULL && gy <= MAX_GRID_YZ;
	if (!st->tail)
		return WHY_NONE; /* the epilogue bounds what the second slices hold instead */
	return rewrite_launch_grid(rc->mod->fp16_tail,
				   (unsigned)((t->mi + KERNEL_FP16_TAIL_TILE - 1) / KERNEL_FP16_TAIL_TILE),
				   (unsigned)gy, (unsigned)t->bn, 0, rc->stream, params);
}

static enum why fp16_epilogue(const struct rewrite_ctx *rc, void *self,
			      const struct gemm_call *c, const struct tile *t,
			      struct epilogue_args *ea)
{
	struct fp16_state *st = self;
	struct view av = op_a_view(c, t->b0, t->i0), bv = op_b_view(c, t->b0, t->j0);
	uint64_t di = (uint64_t)(t->i0 - t->ai0), dj = (uint64_t)(t->j0 - t->bj0);
	abi_devptr rw = st->aw + KERNEL_FP16_WORD_BYTES * di, cw = st->bw + KERNEL_FP16_WORD_BYTES * dj;
	uint32_t rv = (uint32_t)t->am, cv = (uint32_t)t->bnn, tail = (uint32_t)st->tail;
	uint32_t ta32 = t->ta != ABI_OP_N, tb32 = t->tb != ABI_OP_N, k32 = (uint32_t)c->k;
	void *rest[] = {&rw, &cw, &rv, &cv, &av.ptr, &av.ptr_array, &av.batch_stride, &av.ld,
			&av.row0, &av.col0, &ta32, &bv.ptr, &bv.ptr_array, &bv.batch_stride,
			&bv.ld, &bv.row0, &bv.col0, &tb32, &k32, &tail};
	void *params[EPILOGUE_PARAMS + sizeof rest / sizeof rest[0] + EPILOGUE_BIAS_PARAMS];

	/* The scaled epilogue takes bias and activation last (kernels.h). */
	epilogue_params(ea, params, params + EPILOGUE_PARAMS + sizeof rest / sizeof rest[0]);
	for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
		params[EPILOGUE_PARAMS + i] = rest[i];
	return rewrite_launch_epilogue(rc->mod->epilogue_scaled, (uint64_t)t->mi, (uint64_t)t->nj,
				       (uint64_t)t->bn, rc->stream, params);
}

/* bf16 operands only (their scales are bf16's) and the path's kernels. */
static enum why fp16_usable(const struct gemm_call *c, const struct own_kernels *mod,
			    void *self)
{
	(void)self;
	if (c->atype != ABI_R_16BF || c->btype != ABI_R_16BF)
		return WHY_FP16_TAKES_BF16;
	if (!mod->fp16_slices || !mod->epilogue_scaled)
		return WHY_FP16_KERNELS_MISSING;
	if (c->k > UINT32_MAX || c->m > UINT32_MAX || c->n > UINT32_MAX)
		return WHY_K_TOO_LARGE;
	return WHY_NONE;
}

static const struct tile_path fp16_path = {
	.cost = &fp16_cost, .inner_type = ABI_R_16F, .tensor_op = 1, .vectors = 1,
	.gemm_failed = WHY_FP16_GEMM_FAILED, .usable = fp16_usable,
	.convert = fp16_convert, .after_gemm = fp16_tail, .epilogue = fp16_epilogue,
};

enum why rewrite_fp16(const struct gemm_call *c, const struct device_facts *dev, abi_status *st,
		      uint32_t *splits)
{
	(void)splits; /* k is never split here */
	struct fp16_state state = {.tensor_cores = dev && dev->tensor_cores};

	return rewrite_tiles(c, &fp16_path, &state, st);
}
