/* Tests of the decode-shaped GEMM kernel, its arithmetic: every output
 * against an fp64 reference from the same bf16 inputs, within the error model of a GEMM with
 * fp32 accumulation, and NaN/Inf where that GEMM has them. */
#include <stdio.h>
#include <string.h>

#include "kernels.h"
#include "ref.h"
#include "small_gemm.h"
#include "tests.h"

static uint32_t mix(uint32_t q)
{
	return (q * 2654435761u) >> 7;
}

/* --------------------------------------------------------------------- tests */
/* Every m x n x k of the lists once on each architecture; transposes, views,
 * c_transposed, ctype, scalars, beta == 0 and A's alignment vary with a hash of the case. */
int test_small_gemm_shapes(void)
{
	static const unsigned ms[] = { 1, 7, 33, 300 }, ns[] = { 1, 2, 7, 16 };
	static const unsigned ks[] = { 0, 1, 5, 64, 513 };
	static const float alphas[] = { 1.0f, -0.75f, 2.5f }, betas[] = { 0.5f, -1.25f };
	for (int si = 0; si < n_test_sms; si++) {
		ptx_module *mod = load_module(test_sms[si]);
		if (!mod)
			continue;
		for (uint32_t q = 0; q < 80; q++) {
			uint32_t h = mix(q + 80 * (uint32_t)si);
			struct sg_opts o = {
				.m = ms[q % 4], .n = ns[q / 4 % 4], .k = ks[q / 16],
				.ta = h & 1, .tb = h >> 1 & 1, .ct = h >> 2 & 1, .ctype = (h >> 3) % 3,
				.arr_a = h >> 5 & 1, .arr_b = h >> 6 & 1, .arr_c = h >> 7 & 1,
				.dev_scalars = h >> 8 & 1, .aclass = (h >> 9) % 3,
				.alpha = alphas[(h >> 11) % 3],
				.beta = (h >> 13) % 4 == 0 ? 0.0f : betas[h >> 15 & 1],
				.batch = 1 + (h >> 16) % 3,
			};
			sg_run_case(mod, test_sms[si], &o, NULL);
		}
		ptx_module_free(mod);
	}
	return fails;
}

/* Integer data: every product and partial sum is exact in fp32, so any summation order
 * gives the exact value, and the output must be it rounded once to ctype, bit for bit. */
int test_small_gemm_exact(void)
{
	for (int si = 0; si < n_test_sms; si++) {
		ptx_module *mod = load_module(test_sms[si]);
		if (!mod)
			continue;
		for (uint32_t q = 0; q < 16; q++) {
			struct sg g;
			ptx_launch_stats st;
			char ctx[256];
			struct sg_opts o = {
				.m = q % 2 ? 70 : 9, .n = 1 + q, .k = q % 3 ? 513 : 100, .batch = 2,
				.ta = q & 1, .tb = q >> 1 & 1, .ct = q >> 2 & 1, .ctype = q % 3,
				.arr_a = q % 5 == 0, .aclass = q % 3,
				.alpha = q % 4 ? 1.0f : -2.0f, .beta = q % 3 == 1 ? 0.0f : 3.0f,
				.agen = sg_gen_int, .bgen = sg_gen_int,
			};
			sg_make(&g, &o);
			sg_describe(ctx, sizeof ctx, test_sms[si], &g);
			CHECK(sg_run_default(mod, &g, &st) == PTX_OK, "%s", ctx);
			sg_check_exact(&g, NULL, ctx);
			sg_check_traffic(&g, &st, KERNEL_SMALL_BLOCK(g.n), ctx);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}

/* NaN and +-Inf among moderate values (and zeros, so Inf * 0 happens): the outputs are NaN
 * or Inf exactly where the fp64 reference has them. */
static uint32_t gen_special_rate;       /* one in this many elements is special */

static uint32_t gen_specials(void)
{
	static const uint32_t sp[] = { 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x7f81 };
	if (rnd() % gen_special_rate == 0)
		return sp[rnd() % 5];
	return sg_gen_moderate();
}

int test_small_gemm_specials(void)
{
	unsigned counts[3] = { 0 };
	for (int si = 0; si < n_test_sms; si++) {
		ptx_module *mod = load_module(test_sms[si]);
		if (!mod)
			continue;
		for (uint32_t q = 0; q < 16; q++) {
			struct sg_opts o = {
				.m = q % 2 ? 300 : 33, .n = (unsigned[]){ 7, 16, 12, 13 }[q / 2 % 4],
				.k = (unsigned[]){ 64, 513, 5 }[q % 3],
				.batch = 1, .ta = q & 1, .tb = q >> 1 & 1, .ct = q >> 2 & 1,
				.ctype = q % 3, .arr_b = q >> 3 & 1, .aclass = q % 3, .alpha = 1.5f,
				.beta = q % 5 == 0 ? 0.0f : -0.5f,
				.agen = gen_specials, .bgen = gen_specials,
			};
			/* About a third of the outputs see a special. */
			gen_special_rate = 3 * o.k;
			sg_run_case(mod, test_sms[si], &o, counts);
		}
		ptx_module_free(mod);
	}
	CHECK(counts[OUT_NAN] > 100 && counts[OUT_INF] > 100 && counts[OUT_FINITE] > 100,
	      "the data must give NaN, Inf and finite outputs: %u, %u, %u", counts[OUT_NAN],
	      counts[OUT_INF], counts[OUT_FINITE]);
	return fails;
}

/* Values near the bf16 maximum: sums past fp32's range are Inf (every product of a huge
 * element is, B being in [1.25, 4)), as with fp32 accumulation, and that Inf survives
 * alpha = 0.5; rows with one element near 2^120 stay finite, except in f16. */

static uint32_t gen_big_b(void)
{
	uint32_t r = rnd();
	return r % 2 ? 0x4000 | (r >> 8 & 0x7f) : 0x3fa0 + (r >> 8) % 0x60;
}

static void make_huge_rows(struct sg *g)
{
	for (unsigned b = 0; b < g->batch; b++)
		for (unsigned i = 0; i < g->m; i++)
			for (unsigned l = 0; l < g->k; l++) {
				uint16_t *p = g->ta ? mat_at(&g->a, b, l, i) : mat_at(&g->a, b, i, l);
				uint16_t big = 0x7f00 | (rnd() & 0x7f);        /* >= 2^127 */
				switch (i % 5) {
				case 1: *p = big; break;                         /* all +huge */
				case 2: *p = 0x8000 | big; break;                /* all -huge */
				case 3: if (l == i % g->k) *p = big; break;      /* one huge */
				case 4: if (l == i % g->k) *p = 0x7b80 | (rnd() & 0x807f); break;
				}
			}
}

int test_small_gemm_overflow(void)
{
	unsigned counts[3] = { 0 };
	for (int si = 0; si < n_test_sms; si++) {
		ptx_module *mod = load_module(test_sms[si]);
		if (!mod)
			continue;
		for (uint32_t q = 0; q < 12; q++) {
			struct sg g;
			ptx_launch_stats st;
			char ctx[256];
			struct sg_opts o = {
				.m = 40, .n = 5, .k = (unsigned[]){ 1, 64, 130 }[q % 3], .batch = 2,
				.ta = q & 1, .tb = q >> 1 & 1, .ct = q >> 2 & 1, .ctype = (q + q / 3) % 3,
				.aclass = q % 3, .alpha = q % 2 ? 0.5f : 1.0f, .beta = q % 4 ? 0.0f : 1.0f,
				.bgen = gen_big_b,
			};
			sg_make(&g, &o);
			make_huge_rows(&g);
			sg_describe(ctx, sizeof ctx, test_sms[si], &g);
			CHECK(sg_run_default(mod, &g, &st) == PTX_OK, "%s", ctx);
			sg_check_all(&g, ctx, counts);
			sg_check_traffic(&g, &st, KERNEL_SMALL_BLOCK(g.n), ctx);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	CHECK(counts[OUT_INF] > 100 && counts[OUT_FINITE] > 100,
	      "the data must give Inf and finite outputs: %u, %u", counts[OUT_INF],
	      counts[OUT_FINITE]);
	return fails;
}

/* Split k: block row y sums its kc of k into its own fp32 output; integer data makes every
 * partial exact, so each is checked bit for bit; and A is still read once in all. */
int test_small_gemm_split_k(void)
{
	static const unsigned kcs[] = { 64, 128, 192 };
	for (int si = 0; si < n_test_sms; si++) {
		ptx_module *mod = load_module(test_sms[si]);
		if (!mod)
			continue;
		for (uint32_t q = 0; q < 12; q++) {
			struct sg_opts o = { .m = q % 2 ? 300 : 70, .n = 1 + q % 16, .k = 450 + q,
					     .ta = q & 1, .tb = q >> 1 & 1, .ctype = KERNEL_TYPE_F32,
					     .batch = 1 + q % 2, .alpha = 1, .beta = 0,
					     .agen = sg_gen_int, .bgen = sg_gen_int };
			struct sg g;
			sg_make(&g, &o);
			unsigned kc = kcs[q % 3], splits = (g.k + kc - 1) / kc;
			size_t item = (size_t)g.m * g.n, all = item * g.batch;
			float *parts = buf_alloc(4 * all * splits, BUF_WO);
			g.c.v = (struct view){ .ptr = dev(parts), .bstride = item, .ld = g.m };
			g.ct = 0;
			g.kc = kc;
			g.split_stride = all;
			unsigned block = KERNEL_SMALL_BLOCK(g.n);
			ptx_launch_stats st = { 0 };
			char ctx[128];
			snprintf(ctx, sizeof ctx, "sm_%d m=%u n=%u k=%u kc=%u trans=%u%u batch=%u",
				 test_sms[si], g.m, g.n, g.k, kc, g.ta, g.tb, g.batch);
			CHECK(sg_run(mod, &g, block, sg_blocks(g.m, block), splits,
				     KERNEL_SMALL_SHMEM(block), &st) == PTX_OK, "%s", ctx);
			for (unsigned y = 0; y < splits; y++)
				for (unsigned b = 0; b < g.batch; b++)
					for (unsigned j = 0; j < g.n; j++)
						for (unsigned i = 0; i < g.m; i++) {
							double want = 0;
							for (unsigned l = y * kc; l < g.k && l < (y + 1) * kc; l++)
								want += sg_opa(&g, b, i, l) * sg_opb(&g, b, l, j);
							float got = parts[y * all + b * item + i + (size_t)j * g.m];
							CHECK(got == (float)want, "%s: split %u b=%u (%u,%u): %a, "
							      "want %a", ctx, y, b, i, j, got, want);
						}
			struct buf_counts ca = mat_counts(&g.a);
			CHECK(ca.read == 2ull * g.m * g.k * g.batch, "%s: A read %llu bytes", ctx,
			      (unsigned long long)ca.read);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}
