/* What the rewrite paths share: operand views as the kernels take them, tiling under the
 * workspace cap, kernel launches, and the per-call context (kernels, stream, scalars). */
#ifndef BF16SHIM_REWRITE_INTERNAL_H
#define BF16SHIM_REWRITE_INTERNAL_H

#include "../module.h"
#include "rewrite.h"

/* A matrix operand as the kernels take it (kernels/kernels.h, "view"). */
struct view {
	uint64_t ptr, ptr_array, batch_stride, ld, row0, col0;
};

/* The output is computed in tiles: bt batch items x mt rows of op(A) x nt columns of op(B). */
struct tiling {
	int64_t bt, mt, nt;
};

/* Scratch a path needs per tile: operand copies (operand_bytes per element of each op(A) and
 * op(B) panel), the fp32 result, per-row/column words, and alignment slack per buffer. */
struct scratch_cost {
	unsigned operand_bytes;
	unsigned word_bytes;
	unsigned buffers;
};

#define SCRATCH_ALIGN 256u

struct scalars {
	float alpha, beta;
	uint64_t alpha_ptr, beta_ptr;   /* device pointer mode: read on the device */
};

struct rewrite_ctx {
	const struct shim_module *mod;
	abi_stream stream;
	int pmode;
	struct scalars sc;
	const void *one, *zero;         /* 1 and 0 for our own GEMM, in the handle's mode */
};

/* Kernels, stream, pointer mode and scalars for this call; 0 with *why if unavailable. */
int rewrite_begin(const struct gemm_call *c, struct rewrite_ctx *rc, const char **why);

uint64_t tile_scratch_bytes(const struct tiling *t, int64_t k, const struct scratch_cost *cost);
/* Largest tiles whose scratch fits cap; 0 if not even one row and column fit. */
int choose_tiling(const struct gemm_call *c, uint64_t cap, const struct scratch_cost *cost,
		  struct tiling *t);

/* The view of batch items [b0, ...) of an operand, panel starting at (row0, col0). */
struct view operand_view(const void *base, int ptr_array, int64_t b0, int64_t stride,
			 size_t esize, int64_t ld, int64_t row0, int64_t col0);
/* Launches f in the shape of kernels.h over rows x cols x batch; 1 on success. */
int rewrite_launch(abi_function f, uint64_t rows, uint64_t cols, uint64_t batch,
		   abi_stream stream, void **params);
/* bump allocator over the leased scratch, SCRATCH_ALIGN-aligned */
abi_devptr scratch_take(abi_devptr *next, uint64_t bytes);

/* The 15 parameters every epilogue kernel starts with (kernels.h, bf16shim_epilogue_f32). */
struct epilogue_args {
	abi_devptr d;
	uint64_t d_stride;
	uint32_t rows, cols;
	struct view c;
	uint32_t ctype;
	float alpha, beta;
	uint64_t alpha_ptr, beta_ptr;
};
#define EPILOGUE_PARAMS 15
void epilogue_params(struct epilogue_args *e, void **params);
struct epilogue_args epilogue_args_of(const struct rewrite_ctx *rc, abi_devptr d, int64_t rows,
				      int64_t cols, struct view c, int ctype);

size_t rewrite_elem_size(int type);
int rewrite_kernel_type(int type);
int64_t min64(int64_t a, int64_t b);

typedef abi_status (*strided_gemm_fn)(abi_handle, int, int, int, int, int, const void *,
				      const void *, int, int, long long, const void *, int,
				      int, long long, const void *, void *, int, int, long long,
				      int, int, int);

#define MAX_GRID_YZ 65535u

#endif
