/* What the rewrite paths share: operand views as the kernels take them, tiling under the
 * workspace cap, kernel launches, and the per-call context (kernels, stream, scalars). */
#ifndef BF16SHIM_REWRITE_INTERNAL_H
#define BF16SHIM_REWRITE_INTERNAL_H

#include "own_kernels.h"
#include "workspace.h"
#include "rewrite.h"

/* A matrix operand as the kernels take it (kernels/kernels.h, "view"). */
struct view {
	uint64_t ptr, ptr_array, batch_stride, ld, row0, col0;
};

/* The output is computed in tiles: bt batch items x mt rows of op(A) x nt columns of op(B).
 * whole: the operands of bt items are converted once, all of them, and only the GEMM's
 * result is tiled; else each row panel of op(A) is converted once and op(B) for each tile. */
struct tiling {
	int64_t bt, mt, nt;
	int whole;
};

/* Scratch a path needs: operand copies (operand_bytes per element of op(A) and op(B) as
 * converted), the fp32 result, per-row/column words, and alignment slack per buffer. */
struct scratch_cost {
	unsigned operand_bytes;
	unsigned word_bytes;
	unsigned buffers;
	unsigned result_bytes;          /* 4: the fp32 result tile; 0: the GEMM writes C */
};

#define SCRATCH_ALIGN 256u

struct scalars {
	float alpha, beta;
	uint64_t alpha_ptr, beta_ptr;   /* device pointer mode: read on the device */
};

struct rewrite_ctx {
	const struct own_kernels *mod;
	abi_stream stream;
	int pmode;                      /* ABI_POINTER_MODE_*: where alpha and beta are */
	struct scalars sc;
};

/* Kernels, stream, pointer mode and scalars for this call (its backend says where the
 * stream and pointer mode are). */
enum why rewrite_begin(const struct gemm_call *c, struct rewrite_ctx *rc);

/* The GEMM inside a rewrite: column-major operands of one type, fp32 accumulation into an
 * fp32 d; leading dimensions and batch strides in elements. */
struct inner_gemm {
	int ta, tb;                     /* ABI_OP_N or ABI_OP_T */
	int64_t m, n, k, batch;
	abi_devptr a, b, d;
	int64_t lda, ldb, ldd;
	int64_t stride_a, stride_b, stride_d;
	int type;                       /* ABI_R_32F or ABI_R_16F */
	int tensor_op;                  /* ask for tensor cores (the fp16 path) */
	/* NULL: d = op(A) op(B) (1 and 0 in the backend's own form); else the call's own alpha
	 * and beta, in its pointer mode, and d is the call's C (fp32). */
	const void *alpha, *beta;
};
/* What a rewrite takes from the library its call came through: rewrite/via_cublas.c,
 * rewrite/via_cublaslt.c (rewrite.h names them; the call's describer picks one). */
struct gemm_backend {
	/* The call's stream and pointer mode. */
	enum why (*stream)(const struct gemm_call *c, abi_stream *stream, int *pmode);
	/* Is there a real GEMM to run the inner one with? */
	enum why (*gemm_available)(const struct gemm_call *c);
	/* The inner GEMM, on the call's stream. */
	abi_status (*gemm)(const struct gemm_call *c, const struct rewrite_ctx *rc,
			   const struct inner_gemm *g);
};

/* Scratch for one tile: the workspace the caller lent when it is large enough, else the
 * shim's cache (workspace.h).  Released with workspace_release(). */
enum why rewrite_scratch(const struct gemm_call *c, const struct rewrite_ctx *rc,
			 uint64_t bytes, struct ws_lease *ws);

/* Scratch for t: the converted operands (all of op(A) and op(B) when t->whole, else one
 * panel and one tile) of t->bt items and one result tile. */
uint64_t tile_scratch_bytes(const struct gemm_call *c, const struct tiling *t,
			    const struct scratch_cost *cost);
/* Whole operands if they fit cap with a result tile of at least 256 x 256 (or the whole
 * result), else the largest panels and tiles that fit; 0 if not one row and column fit. */
int choose_tiling(const struct gemm_call *c, uint64_t cap, const struct scratch_cost *cost,
		  struct tiling *t);

/* The view of batch items [b0, ...) of an operand, panel starting at (row0, col0). */
struct view operand_view(const void *base, int ptr_array, int64_t b0, int64_t stride,
			 size_t esize, int64_t ld, int64_t row0, int64_t col0);
/* Launches f in the shape of kernels.h over rows x cols x batch: WHY_NONE, or
 * WHY_LAUNCH_FAILED (so do the other launchers). */
enum why rewrite_launch(abi_function f, uint64_t rows, uint64_t cols, uint64_t batch,
		   abi_stream stream, void **params);
/* The same for an epilogue: gridDim.y small enough that a thread does many columns (at most
 * KERNEL_EPILOGUE_COLS_MAX a block), large enough for about 256 blocks. */
enum why rewrite_launch_epilogue(abi_function f, uint64_t rows, uint64_t cols, uint64_t batch,
			    abi_stream stream, void **params);
/* Any grid, KERNEL_BLOCK threads a block. */
enum why rewrite_launch_grid(abi_function f, unsigned gx, unsigned gy, unsigned gz, unsigned shmem,
			abi_stream stream, void **params);
/* bump allocator over the leased scratch, SCRATCH_ALIGN-aligned */
abi_devptr scratch_take(abi_devptr *next, uint64_t bytes);

/* The bias and activation as the GEMM kernels take them (kernels.h, KERNEL_GEMM_SMALL), for
 * batch items b0..; swap: the kernel computes C^T, so the bias runs the other way. */
struct bias_act {
	uint64_t bias, bias_stride;
	uint32_t bias_type, bias_along, act;
};
struct bias_act bias_act_of(const struct gemm_call *c, int64_t b0, int swap);

/* The parameters of bf16shim_epilogue_f32 (kernels.h): the 15 every epilogue kernel starts
 * with, then the 5 of bias and activation, which bf16shim_epilogue_scaled takes at its end;
 * bf16shim_epilogue_f32 ends with 2 more, its splits and their stride. */
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
	int64_t b0, bn;                 /* batch items */
	int64_t i0, mi, j0, nj;         /* the output tile: rows of op(A), columns of op(B) */
	int64_t ai0, am, bj0, bnn;      /* the rows of op(A), columns of op(B) converted */
	struct view av, bv;             /* those rows and columns in the caller's memory */
	struct view cv;                 /* the tile of C */
	abi_devptr a, b;                /* the converted rows and columns (the path's layout) */
	abi_devptr d;                   /* the inner GEMM's fp32 result */
};

/* What a copying path does; every step answers WHY_NONE, or why it failed (a launch).  self
 * is the path's own state (the scratch it took, its kernels). */
struct tile_path {
	const struct scratch_cost *cost;
	int inner_type, tensor_op;      /* for struct inner_gemm */
	/* The converted operands are vectors of k elements, a row of op(A) or a column of op(B)
	 * after another (the GEMM takes them as T, N); else they keep the call's layout. */
	int vectors;
	enum why gemm_failed;           /* the answer when the inner GEMM fails */
	/* Can the path take c with these kernels?  WHY_NONE makes self ready. */
	enum why (*usable)(const struct gemm_call *c, const struct own_kernels *mod, void *self);
	/* NULL, or: can the inner GEMM write c's C itself (alpha, beta and all), with no
	 * epilogue?  Then direct_cost replaces cost. */
	int (*direct)(const struct gemm_call *c);
	const struct scratch_cost *direct_cost;
	/* Converts t's rows of op(A) (do_a) and columns of op(B) (do_b) into scratch taken
	 * from *next, A's first; sets t->a, t->b. */
	enum why (*convert)(const struct rewrite_ctx *rc, void *self, const struct gemm_call *c,
			    struct tile *t, int do_a, int do_b, abi_devptr *next);
	/* After the inner GEMM wrote t->d, before the epilogue; NULL for nothing. */
	enum why (*after_gemm)(const struct rewrite_ctx *rc, void *self,
			       const struct gemm_call *c, const struct tile *t);
	/* Finishes the tile. */
	enum why (*epilogue)(const struct rewrite_ctx *rc, void *self, const struct gemm_call *c,
			     const struct tile *t, struct epilogue_args *ea);
};
/* The caller's op(A) from row i0 and op(B) from column j0, batch items from b0. */
struct view op_a_view(const struct gemm_call *c, int64_t b0, int64_t i0);
struct view op_b_view(const struct gemm_call *c, int64_t b0, int64_t j0);
/* The whole copying path p for c, as a path answers (rewrite.h): WHY_NONE with *st (the
 * failure's status once part of C is written, which cannot be replayed), or why it could not
 * run while nothing is written yet. */
enum why rewrite_tiles(const struct gemm_call *c, const struct tile_path *p, void *self,
		       abi_status *st);

int rewrite_kernel_type(int type);
int64_t min64(int64_t a, int64_t b);

#define MAX_GRID_YZ 65535u

#endif
