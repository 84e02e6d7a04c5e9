/* What the rewrite paths share: operand views as the kernels take them, tiling under the
 * workspace cap, kernel launches, and the per-call context (kernels, stream, scalars). */
#ifndef BF16SHIM_REWRITE_INTERNAL_H
#define BF16SHIM_REWRITE_INTERNAL_H

#include "../module.h"
#include "../workspace.h"
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
	int pmode;                      /* ABI_POINTER_MODE_*: where alpha and beta are */
	struct scalars sc;
};

/* Kernels, stream, pointer mode and scalars for this call (its backend says where the
 * stream and pointer mode are); 0 with *why if unavailable. */
int rewrite_begin(const struct gemm_call *c, struct rewrite_ctx *rc, enum why *why);

/* The GEMM inside a rewrite: compact column-major operands of one type (ld = stored rows,
 * batch items packed), fp32 accumulation into a compact fp32 d. */
struct inner_gemm {
	int ta, tb;                     /* ABI_OP_N or ABI_OP_T */
	int64_t m, n, k, batch;
	abi_devptr a, b, d;
	int type;                       /* ABI_R_32F or ABI_R_16F */
	int tensor_op;                  /* ask for tensor cores (the fp16 path) */
};
/* What a rewrite takes from the library its call came through: rewrite/via_cublas.c,
 * rewrite/via_cublaslt.c (rewrite.h names them; the call's describer picks one). */
struct gemm_backend {
	/* The call's stream and pointer mode; 0 with *why if they cannot be read. */
	int (*stream)(const struct gemm_call *c, abi_stream *stream, int *pmode, enum why *why);
	/* Is there a real GEMM to run the inner one with?  0 with *why if not. */
	int (*gemm_available)(const struct gemm_call *c, enum why *why);
	/* The inner GEMM, on the call's stream. */
	abi_status (*gemm)(const struct gemm_call *c, const struct rewrite_ctx *rc,
			   const struct inner_gemm *g);
};

/* Scratch for one tile: the workspace the caller lent when it is large enough, else the
 * shim's cache (workspace.h).  Released with workspace_release(). */
int rewrite_scratch(const struct gemm_call *c, const struct rewrite_ctx *rc, uint64_t bytes,
		    struct ws_lease *ws, enum why *why);

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

/* The parameters of bf16shim_epilogue_f32 (kernels.h): the 15 every epilogue kernel starts
 * with, then the 5 of bias and activation, which bf16shim_epilogue_scaled takes at its end. */
struct epilogue_args {
	abi_devptr d;
	uint64_t d_stride;
	uint32_t rows, cols;
	struct view c;
	uint32_t ctype;
	float alpha, beta;
	uint64_t alpha_ptr, beta_ptr;
	uint64_t bias;
	uint32_t bias_type, bias_along;
	uint64_t bias_stride;
	uint32_t act;
};
#define EPILOGUE_PARAMS 15
#define EPILOGUE_BIAS_PARAMS 5
/* Fills params[0 .. EPILOGUE_PARAMS) and, if bias_params is not NULL, bias_params[0 .. 5). */
void epilogue_params(struct epilogue_args *e, void **params, void **bias_params);
/* The epilogue of output tile (b0, i0, j0) of c, rows x cols, whose GEMM result is d: the
 * bias vector is offset to the tile's origin. */
struct epilogue_args epilogue_args_of(const struct rewrite_ctx *rc, const struct gemm_call *c,
				      abi_devptr d, int64_t b0, int64_t i0, int64_t j0,
				      int64_t rows, int64_t cols, struct view cv);

/* One output tile of a tiled rewrite (rewrite/tiles.c), as the path's steps see it. */
struct tile {
	int ta, tb;                     /* ABI_OP_N or ABI_OP_T */
	int64_t b0, bn, i0, mi, j0, nj; /* batch items, rows of op(A), columns of op(B) */
	int64_t ar, ac, br, bc;         /* stored rows and columns of the A panel, the B tile */
	struct view av, bv, cv;         /* the tile's operands in the caller's memory */
	abi_devptr a, b;                /* converted op(A) panel and op(B) tile (the path's) */
	abi_devptr d;                   /* the inner GEMM's fp32 result */
};

/* What a copying path does with each tile; every step returns 0 if a launch failed.  self
 * is the path's own state (the scratch it took, its kernels). */
struct tile_path {
	const struct scratch_cost *cost;
	int inner_type, tensor_op;      /* for struct inner_gemm */
	enum why gemm_failed;           /* *why when the inner GEMM fails */
	/* Can the path take c with these kernels?  0 with *why if not; else self is ready. */
	int (*usable)(const struct gemm_call *c, const struct shim_module *mod, void *self,
		      enum why *why);
	/* The A panel of t into scratch taken from *next; sets t->a. */
	int (*panel)(const struct rewrite_ctx *rc, void *self, struct tile *t, abi_devptr *next);
	/* The B tile of t into scratch taken from *next; sets t->b. */
	int (*tile)(const struct rewrite_ctx *rc, void *self, struct tile *t, abi_devptr *next);
	/* Finishes the tile after the inner GEMM wrote t->d. */
	int (*epilogue)(const struct rewrite_ctx *rc, void *self, const struct gemm_call *c,
			const struct tile *t, struct epilogue_args *ea);
};
/* The whole copying path p for c: ABI_STATUS_SUCCESS, REWRITE_UNAVAILABLE with *why while
 * nothing is written yet, or the failure's status once part of C is. */
int rewrite_tiles(const struct gemm_call *c, const struct tile_path *p, void *self,
		  enum why *why);

int rewrite_kernel_type(int type);
int64_t min64(int64_t a, int64_t b);

#define MAX_GRID_YZ 65535u

#endif
