/* Tests of the fp16 fast path's scale words (issue 4): absmax per row and per column, and
 * the scaled cast with its exactness flags, against a C reference. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fp16.h"
#include "harness.h"
#include "kernels.h"
#include "ref.h"
#include "tests.h"

static uint32_t rnd16(void)
{
	return rnd() & 0xffff;
}

/* ------------------------------------------------------------------ absmax */
ptx_status run_absmax(ptx_module *mod, int cols_kernel, const struct mat *src,
		      uint32_t *words, unsigned gx, unsigned gy)
{
	struct view v = src->v;
	uint32_t rows = src->rows, cols = src->cols;
	uint64_t wp = dev(words);
	void *argv[9];
	int n = 0;
	push_view(argv, &n, &v);
	argv[n++] = &rows;
	argv[n++] = &cols;
	argv[n++] = &wp;
	return launch(mod, cols_kernel ? KERNEL_ABSMAX_COLS : KERNEL_ABSMAX_ROWS, gx, gy,
		      src->batch, argv);
}

/* Words start at zero or at a preset value (the kernels take the max with it). */
int test_absmax(void)
{
	static const unsigned rows_list[] = { 1, 7, 33, 130, 300 }, cols_list[] = { 1, 3, 10 };
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		unsigned n = 0;
		for (int kc = 0; kc < 2; kc++)
			for (int ri = 0; ri < 5; ri++)
				for (int ci = 0; ci < 3; ci++, n++) {
					unsigned rows = rows_list[ri], cols = cols_list[ci];
					unsigned batch = 1 + n % 3, gys[] = { 1, 2, cols, cols + 1 };
					unsigned gx = grid_rows(rows) + n % 2, gy = gys[n % 4];
					unsigned nw = batch * (kc ? cols : rows);
					struct mat src;
					mat_make(&src, rows, cols, batch, 2, n % 2, n % 3, n % 2, n % 4, 5,
						 BUF_RO);
					mat_fill(&src, rnd16);
					uint32_t *words = buf_alloc(nw * 4, BUF_RW), want[3 * 300];
					for (unsigned w = 0; w < nw; w++)
						words[w] = want[w] = rnd() % 4 ? 0 : rnd() & 0x7fff;
					for (unsigned b = 0; b < batch; b++)
						for (unsigned c = 0; c < cols; c++)
							for (unsigned r = 0; r < rows; r++) {
								uint32_t *w = &want[b * (kc ? cols : rows) +
										    (kc ? c : r)];
								uint32_t a = ref_absmax_bits(bf16_at(&src, b, r, c));
								*w = a > *w ? a : *w;
							}
					char ctx[128];
					snprintf(ctx, sizeof ctx, "sm_%d %s rows=%u cols=%u batch=%u "
						 "grid=(%u,%u)", test_sms[i], kc ? "cols" : "rows", rows,
						 cols, batch, gx, gy);
					CHECK(run_absmax(mod, kc, &src, words, gx, gy) == PTX_OK, "%s", ctx);
					for (unsigned w = 0; w < nw; w++)
						CHECK_BITS(words[w], want[w], "%s: word %u", ctx, w);
					buf_free_all();
				}
		ptx_module_free(mod);
	}
	return fails;
}

/* -------------------------------------------------------------- scaled cast */
ptx_status run_cast_scaled(ptx_module *mod, const struct mat *src, struct mat *dst,
			   uint32_t *words, uint32_t along, unsigned gx, unsigned gy)
{
	struct view v = src->v;
	uint32_t rows = src->rows, cols = src->cols;
	uint64_t dptr = dst->v.ptr, dstride = dst->v.bstride, wp = dev(words);
	void *argv[12];
	int n = 0;
	push_view(argv, &n, &v);
	argv[n++] = &rows;
	argv[n++] = &cols;
	argv[n++] = &dptr;
	argv[n++] = &dstride;
	argv[n++] = &wp;
	argv[n++] = &along;
	return launch(mod, KERNEL_CAST_BF16_F16_SCALED, gx, gy, src->batch, argv);
}

/* The f16 the cast must produce, and whether it is exact. */
static uint16_t ref_cast_scaled(uint16_t h, uint32_t w, int *exact)
{
	float x = ref_bf16_to_f32(h);
	int s = ref_scale(w);
	if (isnan(x)) {
		*exact = 1;
		return 0x7e00;
	}
	uint16_t o = ref_f16_rne((float)ldexp(x, -s));
	*exact = ldexp(ref_f16_to_f32(o), s) == x;
	return o;
}

static void check_cast_scaled(const struct mat *src, const struct mat *dst,
			      const uint32_t *before, const uint32_t *words, int along,
			      const char *ctx)
{
	unsigned per = along ? src->cols : src->rows;
	unsigned nw = src->batch * per;
	uint32_t want_flag[4 * 300] = { 0 };
	for (unsigned b = 0; b < src->batch; b++)
		for (unsigned c = 0; c < src->cols; c++)
			for (unsigned r = 0; r < src->rows; r++) {
				unsigned wi = b * per + (along ? c : r);
				uint16_t h = bf16_at(src, b, r, c), got;
				int exact;
				uint16_t want = ref_cast_scaled(h, before[wi], &exact);
				memcpy(&got, mat_at(dst, b, r, c), 2);
				if (isnan(ref_bf16_to_f32(h)))
					CHECK((got & 0x7c00) == 0x7c00 && (got & 0x3ff),
					      "%s: NaN 0x%04x gave 0x%04x", ctx, h, got);
				else
					CHECK_BITS(got, want, "%s: b=%u r=%u c=%u x=0x%04x word 0x%08x",
						   ctx, b, r, c, h, before[wi]);
				if (!exact)
					want_flag[wi] = KERNEL_SCALE_FLAG;
			}
	for (unsigned w = 0; w < nw; w++)
		CHECK_BITS(words[w], before[w] | want_flag[w], "%s: word %u", ctx, w);
	mat_check_outside(dst, ctx);
}

/* Words for the cast: a max at or up to 2^48 above the element's magnitude (as absmax
 * guarantees), so that exact and inexact elements both occur; some arrive flagged. */
static uint32_t word_above(uint16_t h)
{
	uint32_t w = ref_absmax_bits(h);
	if (rnd() % 8)
		w += rnd() % (48 << 7);
	if (w > 0x7f7f)
		w = 0x7f7f;
	return w | (rnd() % 5 == 0 ? KERNEL_SCALE_FLAG : 0);
}

/* Every bf16 pattern, each with its own word (one row, a column per pattern). */
int test_cast_scaled_all_patterns(void)
{
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		for (int round = 0; round < 2; round++) {
			struct mat src, dst;
			mat_make(&src, 1, 65536, 1, 2, 0, 0, 0, 0, 0, BUF_RO);
			mat_make(&dst, 1, 65536, 1, 2, 0, 0, 0, 0, 0, BUF_WO);
			uint32_t *words = buf_alloc(65536 * 4, BUF_RW);
			uint32_t *before = buf_alloc(65536 * 4, BUF_NONE);
			for (unsigned c = 0; c < 65536; c++) {
				uint16_t h = (uint16_t)c;
				memcpy(mat_at(&src, 0, 0, c), &h, 2);
				words[c] = before[c] = word_above(h);
			}
			mat_fill(&dst, rnd);
			mat_snapshot(&dst);
			char ctx[64];
			snprintf(ctx, sizeof ctx, "sm_%d round %d", test_sms[i], round);
			CHECK(run_cast_scaled(mod, &src, &dst, words, 1, 1, 128) == PTX_OK, "%s", ctx);
			/* check_cast_scaled's flag table is for small views: compare here. */
			for (unsigned c = 0; c < 65536; c++) {
				int exact;
				uint16_t got, want = ref_cast_scaled((uint16_t)c, before[c], &exact);
				memcpy(&got, mat_at(&dst, 0, 0, c), 2);
				if (isnan(ref_bf16_to_f32((uint16_t)c)))
					CHECK((got & 0x7c00) == 0x7c00 && (got & 0x3ff),
					      "%s: NaN 0x%04x gave 0x%04x", ctx, c, got);
				else
					CHECK_BITS(got, want, "%s: x=0x%04x word 0x%08x", ctx, c,
						   before[c]);
				CHECK_BITS(words[c], before[c] | (exact ? 0 : KERNEL_SCALE_FLAG),
					   "%s: flag for x=0x%04x word 0x%08x", ctx, c, before[c]);
			}
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}

/* Views, batches, both scale directions; words as absmax would leave them (plus noise). */
int test_cast_scaled_views(void)
{
	static const unsigned rows_list[] = { 1, 7, 33, 130, 300 }, cols_list[] = { 1, 3, 10 };
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		unsigned n = 0;
		for (int along = 0; along < 2; along++)
			for (int ri = 0; ri < 5; ri++)
				for (int ci = 0; ci < 3; ci++, n++) {
					unsigned rows = rows_list[ri], cols = cols_list[ci];
					unsigned batch = 1 + n % 3, gys[] = { 1, 2, cols, cols + 1 };
					unsigned gx = grid_rows(rows) + n % 2, gy = gys[n % 4];
					unsigned per = along ? cols : rows, nw = batch * per;
					struct mat src, dst;
					mat_make(&src, rows, cols, batch, 2, n % 2, n % 3, n % 2, n % 4, 5,
						 BUF_RO);
					mat_make(&dst, rows, cols, batch, 2, 0, 0, 0, 0, n % 2 * 3, BUF_WO);
					mat_fill(&src, rnd16);
					mat_fill(&dst, rnd);
					mat_snapshot(&dst);
					uint32_t *words = buf_alloc(nw * 4, BUF_RW), before[3 * 300];
					memset(before, 0, sizeof before);
					for (unsigned b = 0; b < batch; b++)
						for (unsigned c = 0; c < cols; c++)
							for (unsigned r = 0; r < rows; r++) {
								uint32_t *w = &before[b * per + (along ? c : r)];
								uint32_t a = ref_absmax_bits(bf16_at(&src, b, r, c));
								*w = a > *w ? a : *w;
							}
					for (unsigned w = 0; w < nw; w++)
						words[w] = before[w] |= rnd() % 7 ? 0 : KERNEL_SCALE_FLAG;
					char ctx[128];
					snprintf(ctx, sizeof ctx, "sm_%d along=%d rows=%u cols=%u batch=%u "
						 "grid=(%u,%u)", test_sms[i], along, rows, cols, batch, gx, gy);
					CHECK(run_cast_scaled(mod, &src, &dst, words, along, gx, gy) ==
					      PTX_OK, "%s", ctx);
					check_cast_scaled(&src, &dst, before, words, along, ctx);
					buf_free_all();
				}
		ptx_module_free(mod);
	}
	return fails;
}
