/* Tests of the cast kernels (bf16 and f16 to f32): every 16-bit pattern, and views of every
 * shape the fp32 path produces (panels, padding, batch strides, pointer arrays, partial
 * blocks). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "kernels.h"
#include "ref.h"
#include "tests.h"

/* The two cast kernels: source bf16 (0) or f16 (1). */
static const char *const cast_kernel[] = { KERNEL_CAST_BF16_F32, KERNEL_CAST_F16_F32 };

static ptx_status run_cast(ptx_module *mod, int f16, const struct mat *src, struct mat *dst,
			   unsigned gx, unsigned gy)
{
	uint32_t rows = src->rows, cols = src->cols;
	uint64_t dptr = dst->v.ptr, dstride = dst->v.bstride;
	struct view v = src->v;
	void *argv[] = { &v.ptr, &v.array, &v.bstride, &v.ld, &v.row0, &v.col0, &rows, &cols,
			 &dptr, &dstride };
	return launch(mod, cast_kernel[f16], gx, gy, src->batch, argv);
}

static void check_cast(int f16, const struct mat *src, const struct mat *dst, const char *ctx)
{
	for (unsigned b = 0; b < src->batch; b++)
		for (unsigned c = 0; c < src->cols; c++)
			for (unsigned r = 0; r < src->rows; r++) {
				uint16_t h;
				uint32_t got;
				memcpy(&h, mat_at(src, b, r, c), 2);
				memcpy(&got, mat_at(dst, b, r, c), 4);
				float want = f16 ? ref_f16_to_f32(h) : ref_bf16_to_f32(h);
				/* The bf16 cast is a 16-bit shift, so NaN payloads survive it. */
				if (!isnan(want))
					CHECK_BITS(got, bits_of(want), "%s: b=%u r=%u c=%u src 0x%04x",
						   ctx, b, r, c, h);
				else if (!f16)
					CHECK_BITS(got, (uint32_t)h << 16, "%s: NaN 0x%04x", ctx, h);
				else
					CHECK(isnan(f32_of(got)), "%s: got 0x%08x for NaN 0x%04x", ctx,
					      got, h);
			}
	mat_check_outside(dst, ctx);
}

static uint32_t counter;
static uint32_t next_pattern(void)
{
	return counter++ & 0xffff;
}

static uint32_t rnd16(void)
{
	return rnd() & 0xffff;
}

/* All 65536 bit patterns, once per architecture; fewer column blocks than columns. */
int test_cast_all_patterns(void)
{
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		for (int f16 = 0; f16 < 2; f16++) {
			struct mat src, dst;
			mat_make(&src, 256, 256, 1, 2, 0, 0, 0, 0, 0, BUF_RO);
			mat_make(&dst, 256, 256, 1, 4, 0, 0, 0, 0, 0, BUF_WO);
			counter = 0;
			mat_fill(&src, next_pattern);
			mat_fill(&dst, rnd);
			mat_snapshot(&dst);
			char ctx[64];
			snprintf(ctx, sizeof ctx, "sm_%d %s", test_sms[i], cast_kernel[f16]);
			CHECK(run_cast(mod, f16, &src, &dst, 1, 5) == PTX_OK, "%s launch", ctx);
			check_cast(f16, &src, &dst, ctx);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}

/* Partial blocks, panels (row0/col0), ld > rows, batches by stride and by pointer array,
 * gridDim.y below, at and above cols, gridDim.x larger than needed. */
int test_cast_views(void)
{
	static const unsigned rows_list[] = { 1, 7, 33, 130, 300 };
	static const unsigned cols_list[] = { 1, 3, 10 };
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		int n = 0;
		for (unsigned ri = 0; ri < 5; ri++)
			for (unsigned ci = 0; ci < 3; ci++)
				for (int arr = 0; arr < 2; arr++, n++) {
					int f16 = n % 3 == 1;
					unsigned rows = rows_list[ri], cols = cols_list[ci];
					unsigned batch = 1 + n % 3, row0 = n % 4 * 3, col0 = n % 3;
					unsigned gys[] = { 1, 2, cols, cols + 2 };
					unsigned gy = gys[n % 4], gx = grid_rows(rows) + n % 2;
					struct mat src, dst;
					mat_make(&src, rows, cols, batch, 2, arr, row0, col0, n % 5, 7,
						 BUF_RO);
					mat_make(&dst, rows, cols, batch, 4, 0, 0, 0, 0, n % 2 * 11, BUF_WO);
					mat_fill(&src, rnd16);
					mat_fill(&dst, rnd);
					mat_snapshot(&dst);
					char ctx[160];
					snprintf(ctx, sizeof ctx,
						 "sm_%d %s rows=%u cols=%u batch=%u array=%d row0=%u "
						 "col0=%u ld=%u grid=(%u,%u)", test_sms[i],
						 cast_kernel[f16], rows, cols, batch, arr,
						 row0, col0, (unsigned)src.v.ld, gx, gy);
					CHECK(run_cast(mod, f16, &src, &dst, gx, gy) == PTX_OK, "%s launch",
					      ctx);
					check_cast(f16, &src, &dst, ctx);
					buf_free_all();
				}
		ptx_module_free(mod);
	}
	return fails;
}
