/* Tests of bf16shim_epilogue_f32: out = act(alpha * d + beta * C + bias) rounded to C's type,
 * over every view shape, with host and device scalars, beta == 0 (C never read), special
 * values and round-to-nearest-even ties; bias vectors of each type along rows and columns,
 * ReLU, and GELU against a double evaluation of cuBLASLt's formula. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "kernels.h"
#include "ref.h"
#include "tests.h"

static const char *const type_name[] = { "f32", "bf16", "f16" };

static const uint32_t f32_specials[] = {
	0x7f800001, 0x7fbfffff, 0xff800001, 0x7fc00000, 0x7fffffff, 0xffffffff,  /* NaN */
	0x7f800000, 0xff800000, 0x00000000, 0x80000000,                          /* Inf, 0 */
	0x00000001, 0x80000001, 0x007fffff, 0x00400000, 0x00008000, 0x00018000,  /* denormal */
	0x3f808000, 0x3f818000, 0x3f807fff, 0x3f808001, 0xbf818000,              /* bf16 ties */
	0x7f7f8000, 0x7f7effff, 0x7f7fffff, 0xff7f8000, 0x7f7e8000,              /* bf16 max */
	0x477fe000, 0x477fefff, 0x477ff000, 0x47800000, 0xc77ff000,              /* f16 max */
	0x33800000, 0x33000000, 0x33000001, 0x33c00000, 0x387fc000,              /* f16 tiny */
	0x3f801000, 0x3f803000, 0x3f800fff, 0x3f801001, 0x38800000,              /* f16 ties */
};
static const uint32_t bf16_specials[] = {
	0x7f81, 0xffc0, 0x7f80, 0xff80, 0x0001, 0x8001, 0x007f, 0x0000, 0x8000, 0x7f7f,
};
static const uint32_t f16_specials[] = {
	0x7c01, 0xfe00, 0x7c00, 0xfc00, 0x0001, 0x03ff, 0x7bff, 0x8000, 0x0000, 0xfbff,
};
#define COUNT(a) (sizeof a / sizeof a[0])

static size_t esz_of(int ctype)
{
	return ctype == KERNEL_TYPE_F32 ? 4 : 2;
}

static uint32_t bits_at(int ctype, const void *p)
{
	uint32_t v = 0;
	memcpy(&v, p, esz_of(ctype));
	return v;
}

static float value_of(int ctype, const void *p)
{
	uint32_t v = bits_at(ctype, p);
	return ctype == KERNEL_TYPE_F32 ? f32_of(v) :
	       ctype == KERNEL_TYPE_BF16 ? ref_bf16_to_f32((uint16_t)v) : ref_f16_to_f32((uint16_t)v);
}

/* Value generators: mostly ordinary numbers, sometimes a special one. */
static uint32_t gen_f32(void)
{
	uint32_t r = rnd();
	if (r % 16 == 0)
		return f32_specials[rnd() % COUNT(f32_specials)];
	return (r & 0x807fffff) | ((120 + rnd() % 16) << 23);
}

static uint32_t gen_bf16(void)
{
	return gen_f32() >> 16;
}

static uint32_t gen_f16(void)
{
	uint32_t r = rnd();
	if (r % 16 == 0)
		return f16_specials[rnd() % COUNT(f16_specials)];
	return (r & 0x83ff) | ((9 + rnd() % 14) << 10);
}

static uint32_t gen_bf16_special(void)
{
	return rnd() % 3 ? gen_bf16() : bf16_specials[rnd() % COUNT(bf16_specials)];
}

static uint32_t gen_f16_special(void)
{
	return rnd() % 3 ? gen_f16() : f16_specials[rnd() % COUNT(f16_specials)];
}

static uint32_t (*const gen_c[])(void) = { gen_f32, gen_bf16, gen_f16 };

/* The specials in order, then random rounding ties for bf16 and f16 (normal and subnormal). */
static unsigned seq;
static uint32_t gen_ties(void)
{
	unsigned i = seq++;
	if (i < COUNT(f32_specials))
		return f32_specials[i];
	static const uint32_t low16[] = { 0x8000, 0x7fff, 0x8001 }, low13[] = { 0x1000, 0xfff, 0x1001 };
	uint32_t sign = rnd() & 0x80000000;
	switch (i % 3) {
	case 0: {
		uint32_t hi = rnd() & 0xffff;
		if ((hi & 0x7f80) == 0x7f80)
			hi &= 0xbfff;
		return hi << 16 | low16[rnd() % 3];
	}
	case 1:
		return sign | (113 + rnd() % 30) << 23 | (rnd() & 0x7fe000) | low13[rnd() % 3];
	default:
		return sign | bits_of((float)(2 * (rnd() % 1024) + 1) * 0x1p-25f);
	}
}

static uint32_t nan_f32(void) { return 0x7fc00000; }
static uint32_t nan_bf16(void) { return 0x7fc0; }
static uint32_t nan_f16(void) { return 0x7e00; }
static uint32_t (*const gen_nan[])(void) = { nan_f32, nan_bf16, nan_f16 };

/* Partial results the epilogue adds first (1: d alone), their distance in elements. */
static uint32_t epi_splits = 1;
static uint64_t epi_split_stride;

/* x: the bias and activation parameters, NULL for none. */
static ptx_status run_epi_x(ptx_module *mod, const struct mat *d, const struct mat *c,
			    uint32_t ctype, float alpha, float beta, const float *alpha_dev,
			    const float *beta_dev, unsigned gx, unsigned gy, struct epi_extra *x)
{
	uint32_t rows = c->rows, cols = c->cols;
	uint64_t dptr = d->v.ptr, dstride = d->v.bstride;
	uint64_t ap = alpha_dev ? dev(alpha_dev) : 0, bp = beta_dev ? dev(beta_dev) : 0;
	struct view v = c->v;
	struct epi_extra none = { 0 };
	uint32_t splits = epi_splits;
	uint64_t sstride = epi_split_stride;
	void *argv[22] = { &dptr, &dstride, &rows, &cols, &v.ptr, &v.array, &v.bstride, &v.ld,
			   &v.row0, &v.col0, &ctype, &alpha, &beta, &ap, &bp };
	int n = 15;
	push_epi_extra(argv, &n, x ? x : &none);
	argv[n++] = &splits;
	argv[n++] = &sstride;
	return launch(mod, KERNEL_EPILOGUE_F32, gx, gy, c->batch, argv);
}

static ptx_status run_epi(ptx_module *mod, const struct mat *d, const struct mat *c,
			  uint32_t ctype, float alpha, float beta, const float *alpha_dev,
			  const float *beta_dev, unsigned gx, unsigned gy)
{
	return run_epi_x(mod, d, c, ctype, alpha, beta, alpha_dev, beta_dev, gx, gy, NULL);
}

/* Compares every element of C with the reference of its pre-launch value. */
static void check_epi(const struct mat *d, const struct mat *c, int ctype, float alpha,
		      float beta, const char *ctx)
{
	for (unsigned b = 0; b < c->batch; b++)
		for (unsigned col = 0; col < c->cols; col++)
			for (unsigned r = 0; r < c->rows; r++) {
				float dv, cv = value_of(ctype, mat_before(c, b, r, col));
				memcpy(&dv, mat_at(d, b, r, col), 4);
				char e[256];
				snprintf(e, sizeof e, "%s: b=%u r=%u c=%u d=%a C=%a", ctx, b, r, col, dv,
					 cv);
				check_out(ctype, bits_at(ctype, mat_at(c, b, r, col)),
					  ref_epilogue(alpha, dv, beta, cv), e);
			}
	mat_check_outside(c, ctx);
}

static void setup(struct mat *d, struct mat *c, int ctype, unsigned rows, unsigned cols,
		  unsigned batch, int arr, unsigned n, uint32_t (*dgen)(void),
		  uint32_t (*cgen)(void), int c_access)
{
	mat_make(d, rows, cols, batch, 4, 0, 0, 0, 0, n % 2 * 9, BUF_RO);
	mat_make(c, rows, cols, batch, esz_of(ctype), arr, n % 4 * 5, n % 3, n % 5, 3, c_access);
	mat_fill(d, dgen);
	mat_fill(c, cgen);
	mat_snapshot(c);
}

int test_epilogue_views(void)
{
	static const unsigned rows_list[] = { 1, 7, 33, 130, 300 }, cols_list[] = { 1, 4 };
	static const float ab[][2] = { { 1, 1 }, { -0.75f, 0.5f }, { 3.5f, -2 }, { 0.1f, 1.3f } };
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		unsigned n = 0;
		for (int t = 0; t < 3; t++)
			for (int ri = 0; ri < 5; ri++)
				for (int ci = 0; ci < 2; ci++)
					for (int arr = 0; arr < 2; arr++, n++) {
						unsigned rows = rows_list[ri], cols = cols_list[ci];
						unsigned gys[] = { 1, 2, cols, cols + 3 };
						unsigned gx = grid_rows(rows) + n % 2, gy = gys[n % 4];
						float alpha = ab[n % 4][0], beta = ab[n % 4][1];
						struct mat d, c;
						setup(&d, &c, t, rows, cols, 1 + n % 3, arr, n, gen_f32,
						      gen_c[t], BUF_RW);
						char ctx[160];
						snprintf(ctx, sizeof ctx,
							 "sm_%d %s rows=%u cols=%u batch=%u array=%d grid=(%u,%u) "
							 "alpha=%g beta=%g", test_sms[i], type_name[t], rows,
							 cols, c.batch, arr, gx, gy, alpha, beta);
						CHECK(run_epi(mod, &d, &c, t, alpha, beta, NULL, NULL, gx,
							      gy) == PTX_OK, "%s launch", ctx);
						check_epi(&d, &c, t, alpha, beta, ctx);
						buf_free_all();
					}
		ptx_module_free(mod);
	}
	return fails;
}

/* Device pointer mode: the host-side values (NaN here) must be ignored. */
int test_epilogue_device_scalars(void)
{
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		for (int t = 0; t < 3; t++)
			for (int mode = 0; mode < 3; mode++) {
				float *a = buf_alloc(4, BUF_RO), *bt = buf_alloc(4, BUF_RO);
				*a = 2.5f;
				*bt = -1.25f;
				float ha = mode == 2 ? 1.5f : NAN, hb = mode == 1 ? 0.5f : NAN;
				const float *ap = mode != 2 ? a : NULL, *bp = mode != 1 ? bt : NULL;
				struct mat d, c;
				setup(&d, &c, t, 130, 3, 2, mode == 1, mode, gen_f32, gen_c[t], BUF_RW);
				char ctx[96];
				snprintf(ctx, sizeof ctx, "sm_%d %s alpha %s beta %s", test_sms[i],
					 type_name[t], ap ? "device" : "host", bp ? "device" : "host");
				CHECK(run_epi(mod, &d, &c, t, ha, hb, ap, bp, 1, 2) == PTX_OK, "%s", ctx);
				check_epi(&d, &c, t, ap ? *a : ha, bp ? *bt : hb, ctx);
				buf_free_all();
			}
		ptx_module_free(mod);
	}
	return fails;
}

/* beta == 0: C holds NaN and is write-only (a read fails the launch), so the result shows
 * both that C is not read and that its NaN does not leak.  With beta = 1 the same setup must
 * fault, which proves the write-only mapping is effective. */
int test_epilogue_beta_zero(void)
{
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		for (int t = 0; t < 3; t++)
			for (int mode = 0; mode < 4; mode++) {
				float *zero = buf_alloc(4, BUF_RO);
				*zero = 0;
				float hb = mode == 0 ? 0.0f : mode == 1 ? -0.0f : mode == 2 ? NAN : 1.0f;
				const float *bp = mode == 2 ? zero : NULL;
				struct mat d, c;
				setup(&d, &c, t, 33, 5, 2, mode & 1, mode, gen_f32, gen_nan[t], BUF_WO);
				char ctx[96];
				snprintf(ctx, sizeof ctx, "sm_%d %s beta %s%g", test_sms[i], type_name[t],
					 bp ? "device " : "", bp ? *bp : hb);
				ptx_status s = run_epi(mod, &d, &c, t, 1.75f, hb, NULL, bp, 1, 2);
				if (mode == 3) {
					CHECK(s == PTX_EFAULT, "%s: reading write-only C gave %s", ctx,
					      ptx_status_name(s));
				} else {
					CHECK(s == PTX_OK, "%s launch", ctx);
					check_epi(&d, &c, t, 1.75f, 0, ctx);
				}
				buf_free_all();
			}
		ptx_module_free(mod);
	}
	return fails;
}

/* NaN, Inf, denormals, overflow and rounding ties, through alpha only and through beta * C. */
int test_epilogue_specials(void)
{
	static const float ab[][2] = { { 1, 0 }, { 0x1p-130f, 0 }, { 1, 1 }, { -3, 0.5f } };
	static uint32_t (*const cspecial[])(void) = { gen_f32, gen_bf16_special, gen_f16_special };
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		for (int t = 0; t < 3; t++)
			for (int k = 0; k < 4; k++) {
				struct mat d, c;
				seq = 0;
				setup(&d, &c, t, 300, 4, 1, 0, 1, gen_ties, cspecial[t], BUF_RW);
				char ctx[96];
				snprintf(ctx, sizeof ctx, "sm_%d %s alpha=%a beta=%g", test_sms[i],
					 type_name[t], ab[k][0], ab[k][1]);
				CHECK(run_epi(mod, &d, &c, t, ab[k][0], ab[k][1], NULL, NULL, 2, 4) ==
				      PTX_OK, "%s launch", ctx);
				check_epi(&d, &c, t, ab[k][0], ab[k][1], ctx);
				buf_free_all();
			}
		ptx_module_free(mod);
	}
	return fails;
}

/* An unknown ctype writes nothing (C is read-only here, so a store would fault). */
int test_epilogue_bad_ctype(void)
{
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		for (uint32_t t = 3; t < 5; t++) {
			struct mat d, c;
			setup(&d, &c, KERNEL_TYPE_F32, 40, 3, 1, 0, 0, gen_f32, gen_f32, BUF_RO);
			CHECK(run_epi(mod, &d, &c, t, 1, 1, NULL, NULL, 1, 3) == PTX_OK,
			      "sm_%d ctype %u", test_sms[i], t);
			for (unsigned col = 0; col < 3; col++)
				for (unsigned r = 0; r < 40; r++)
					CHECK(!memcmp(mat_at(&c, 0, r, col), mat_before(&c, 0, r, col), 4),
					      "ctype %u wrote C(%u,%u)", t, r, col);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}

/* ------------------------------------------------------------- bias and activation */
static const char *const act_name[] = { "none", "relu", "gelu" };

/* A bias vector for `batch` items of `len` elements, bstride apart (0: one shared). */
static void *make_bias(int type, unsigned len, unsigned batch, uint64_t bstride,
		       uint32_t (*gen)(void))
{
	size_t n = bstride ? (size_t)bstride * (batch - 1) + len : len, esz = esz_of(type);
	unsigned char *p = buf_alloc(n * esz, BUF_RW);
	for (size_t i = 0; i < n; i++) {
		uint32_t v = gen();
		memcpy(p + i * esz, &v, esz);
	}
	buf_access(p, BUF_RO);
	return p;
}

/* Compares C with act(alpha * d + beta * C + bias), the pre-activation in f32 in the
 * kernel's order. */
static void check_bias_act(const struct mat *d, const struct mat *c, int ctype, float alpha,
			   float beta, int btype, const void *bias, const struct epi_extra *x,
			   const char *ctx)
{
	for (unsigned b = 0; b < c->batch; b++)
		for (unsigned col = 0; col < c->cols; col++)
			for (unsigned r = 0; r < c->rows; r++) {
				float dv, cv = value_of(ctype, mat_before(c, b, r, col));
				memcpy(&dv, mat_at(d, b, r, col), 4);
				float pre = ref_epilogue(alpha, dv, beta, cv);
				if (bias) {
					uint64_t i = b * x->bias_bstride + (x->bias_along ? col : r);
					float bv = ref_load(btype, bias, i);
					pre = pre + bv;
				}
				char e[256];
				snprintf(e, sizeof e, "%s: b=%u r=%u c=%u d=%a C=%a pre=%a", ctx, b, r,
					 col, dv, cv, pre);
				check_act(ctype, bits_at(ctype, mat_at(c, b, r, col)), pre, x->act, e);
			}
	mat_check_outside(c, ctx);
}

static uint32_t gen_bias_f32(void) { return gen_f32(); }
static uint32_t gen_bias_bf16(void) { return gen_bf16_special(); }
static uint32_t gen_bias_f16(void) { return gen_f16_special(); }
static uint32_t (*const gen_bias[])(void) = { gen_bias_f32, gen_bias_bf16, gen_bias_f16 };

/* Every ctype x bias type x direction x shared or per-item vector x activation. */
int test_epilogue_bias_act(void)
{
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		unsigned n = 0;
		for (int t = 0; t < 3; t++)
			for (int bt = 0; bt < 4; bt++)            /* 3: no bias */
				for (int along = 0; along < 2; along++)
					for (uint32_t act = 0; act < 3; act++, n++) {
						unsigned rows = n % 2 ? 130 : 37, cols = 1 + n % 5;
						unsigned batch = 1 + n % 3, len = along ? cols : rows;
						uint64_t bstride = n % 4 < 2 ? 0 : len + n % 3;
						float alpha = n % 3 ? 1.25f : -0.5f, beta = n % 5 ? 0.5f : 0;
						struct mat d, c;
						setup(&d, &c, t, rows, cols, batch, n % 2, n, gen_f32, gen_c[t],
						      BUF_RW);
						void *bias = bt < 3 ? make_bias(bt, len, batch, bstride,
										gen_bias[bt]) : NULL;
						struct epi_extra x = { bias ? dev(bias) : 0, bt < 3 ? bt : 0,
								       along, bstride, act };
						unsigned gy = n % 3 ? cols : 2;
						char ctx[200];
						snprintf(ctx, sizeof ctx,
							 "sm_%d %s bias %s along %s stride %llu act %s rows=%u "
							 "cols=%u batch=%u alpha=%g beta=%g", test_sms[i],
							 type_name[t], bt < 3 ? type_name[bt] : "none",
							 along ? "cols" : "rows", (unsigned long long)bstride,
							 act_name[act], rows, cols, batch, alpha, beta);
						CHECK(run_epi_x(mod, &d, &c, t, alpha, beta, NULL, NULL,
								grid_rows(rows), gy, &x) == PTX_OK, "%s", ctx);
						check_bias_act(&d, &c, t, alpha, beta, bt, bias, &x, ctx);
						buf_free_all();
					}
		ptx_module_free(mod);
	}
	return fails;
}

/* GELU over the whole f32 line: a dense sweep of [-14, 14] (both branches of the kernel's
 * evaluation, the -0 and x cut-offs), random values of every magnitude, and specials. */
static unsigned gelu_i;
static uint32_t gen_gelu(void)
{
	static const uint32_t specials[] = {
		0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x00000001,
		0x80000001, 0x007fffff, 0x807fffff, 0x7f7fffff, 0xff7fffff, 0x5f800000,
		0xdf800000, 0xc13e0000, 0xc13f0000, 0x413e0000, 0xc1400000, 0xbe5e0000,
		0xbe600000, 0x3e600000, 0xc0b00000, 0xc1200000, 0xc1300000, 0xc1380000,
	};
	unsigned i = gelu_i++;
	if (i < sizeof specials / sizeof specials[0])
		return specials[i];
	if (i % 3)
		return bits_of(-14.0f + 28.0f * (float)(rnd() % 1000000) / 1e6f);
	return (rnd() & 0x807fffff) | (rnd() % 255) << 23;
}

int test_epilogue_gelu(void)
{
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		for (int t = 0; t < 3; t++) {
			struct mat d, c;
			gelu_i = 0;
			setup(&d, &c, t, 300, 16, 2, 0, 0, gen_gelu, gen_c[t], BUF_WO);
			struct epi_extra x = { 0, 0, 0, 0, KERNEL_ACT_GELU };
			char ctx[64];
			snprintf(ctx, sizeof ctx, "sm_%d gelu %s", test_sms[i], type_name[t]);
			CHECK(run_epi_x(mod, &d, &c, t, 1, 0, NULL, NULL, 2, 7, &x) == PTX_OK, "%s",
			      ctx);
			check_bias_act(&d, &c, t, 1, 0, 0, NULL, &x, ctx);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	/* The reference itself: the identity agrees with the tanh form where that is exact. */
	for (double v = -3; v <= 3; v += 0.01) {
		double direct = 0.5 * v * (1 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
		CHECK(fabs(direct - ref_gelu(v)) <= 1e-15 * (1 + fabs(v)), "ref_gelu(%g) %a vs %a", v,
		      ref_gelu(v), direct);
	}
	return fails;
}

/* A bias_type or act out of range writes nothing (C read-only: a store would fault). */
int test_epilogue_bad_act(void)
{
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		for (int k = 0; k < 2; k++) {
			struct mat d, c;
			setup(&d, &c, KERNEL_TYPE_F32, 40, 3, 1, 0, 0, gen_f32, gen_f32, BUF_RO);
			float *bias = buf_alloc(4 * 40, BUF_RO);
			struct epi_extra x = { dev(bias), k ? 0 : 3, 0, 0, k ? 3 : 0 };
			CHECK(run_epi_x(mod, &d, &c, 0, 1, 1, NULL, NULL, 1, 3, &x) == PTX_OK,
			      "sm_%d %s out of range", test_sms[i], k ? "act" : "bias_type");
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}

/* Split k's partial results: d is the sum of three in order, then the usual epilogue. */
int test_epilogue_splits(void)
{
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		for (int t = 0; t < 3; t++) {
			const unsigned rows = 70, cols = 9, batch = 2, splits = 3;
			size_t item = (size_t)rows * cols, all = item * batch;
			float *parts = buf_alloc(4 * all * splits, BUF_RO);
			struct mat d, c;
			setup(&d, &c, t, rows, cols, batch, t == 1, (unsigned)t, gen_f32, gen_c[t],
			      BUF_RW);
			for (size_t j = 0; j < all * splits; j++) {
				uint32_t v = gen_f32();
				memcpy(&parts[j], &v, 4);
			}
			/* d's view over split 0 (compact), and the expected sum in it. */
			d.v.ptr = dev(parts);
			d.v.bstride = item;
			epi_splits = splits;
			epi_split_stride = all;
			char ctx[64];
			snprintf(ctx, sizeof ctx, "sm_%d %s", test_sms[i], type_name[t]);
			CHECK(run_epi(mod, &d, &c, (uint32_t)t, 1.5f, -0.5f, NULL, NULL, 1, 4) ==
			      PTX_OK, "%s", ctx);
			epi_splits = 1;
			epi_split_stride = 0;
			for (unsigned b = 0; b < batch; b++)
				for (unsigned col = 0; col < cols; col++)
					for (unsigned r = 0; r < rows; r++) {
						size_t j = b * item + r + (size_t)col * rows;
						float sum = parts[j] + parts[j + all];
						sum = sum + parts[j + 2 * all];
						float cv = value_of(t, mat_before(&c, b, r, col));
						char e[128];
						snprintf(e, sizeof e, "%s: b=%u r=%u c=%u", ctx, b, r, col);
						check_out(t, bits_at(t, mat_at(&c, b, r, col)),
							  ref_epilogue(1.5f, sum, -0.5f, cv), e);
					}
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}
