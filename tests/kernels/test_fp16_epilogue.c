/* Tests of the fp16 fast path's scaled epilogue (issue 4), alone and at the end of the
 * whole pipeline against a plain fp32 GEMM (the fp16 GEMM itself is emulated on the host:
 * fp16 products, fp32 sums in k order). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fp16.h"
#include "harness.h"
#include "kernels.h"
#include "ref.h"
#include "tests.h"

/* ---------------------------------------------------------- scaled epilogue */
struct gemm {
	struct mat a, b, d, c;           /* a, b stored bf16; d compact f32; c the output */
	uint32_t *rw, *cw;               /* row and column words */
	unsigned m, n, k, batch;
	uint32_t ta, tb, ctype;
	struct epi_extra x;              /* bias and activation: zero for none */
	const void *bias;
};

static ptx_status run_epi_scaled(ptx_module *mod, struct gemm *g, float alpha, float beta,
				 unsigned gx, unsigned gy)
{
	uint32_t rows = g->m, cols = g->n, k = g->k;
	uint64_t dptr = g->d.v.ptr, dstride = g->d.v.bstride, zero = 0;
	uint64_t rw = dev(g->rw), cw = dev(g->cw);
	struct view cv = g->c.v, av = g->a.v, bv = g->b.v;
	void *argv[40];
	int n = 0;
	argv[n++] = &dptr;
	argv[n++] = &dstride;
	argv[n++] = &rows;
	argv[n++] = &cols;
	push_view(argv, &n, &cv);
	argv[n++] = &g->ctype;
	argv[n++] = &alpha;
	argv[n++] = &beta;
	argv[n++] = &zero;
	argv[n++] = &zero;
	argv[n++] = &rw;
	argv[n++] = &cw;
	push_view(argv, &n, &av);
	argv[n++] = &g->ta;
	push_view(argv, &n, &bv);
	argv[n++] = &g->tb;
	argv[n++] = &k;
	push_epi_extra(argv, &n, &g->x);
	return launch(mod, KERNEL_EPILOGUE_SCALED, gx, gy, g->batch, argv);
}

static float opa(const struct gemm *g, unsigned b, unsigned r, unsigned kk)
{
	return ref_bf16_to_f32(g->ta ? bf16_at(&g->a, b, kk, r) : bf16_at(&g->a, b, r, kk));
}

static float opb(const struct gemm *g, unsigned b, unsigned kk, unsigned c)
{
	return ref_bf16_to_f32(g->tb ? bf16_at(&g->b, b, c, kk) : bf16_at(&g->b, b, kk, c));
}

/* The fp32 GEMM element the fast path must reproduce: fma in k order. */
static float ref_dot(const struct gemm *g, unsigned b, unsigned r, unsigned c)
{
	float t = 0;
	for (unsigned kk = 0; kk < g->k; kk++)
		t = fmaf(opa(g, b, r, kk), opb(g, b, kk, c), t);
	return t;
}

static float c_value(const struct gemm *g, unsigned b, unsigned r, unsigned c)
{
	uint32_t v = 0;
	memcpy(&v, mat_before(&g->c, b, r, c), g->c.esz);
	return g->ctype == KERNEL_TYPE_F32 ? f32_of(v) : g->ctype == KERNEL_TYPE_BF16 ?
	       ref_bf16_to_f32((uint16_t)v) : ref_f16_to_f32((uint16_t)v);
}

/* Checks C against alpha * t + beta * C, t from want_t. */
static void check_gemm(const struct gemm *g, float alpha, float beta,
		       float (*want_t)(const struct gemm *, unsigned, unsigned, unsigned),
		       const char *ctx)
{
	for (unsigned b = 0; b < g->batch; b++)
		for (unsigned c = 0; c < g->n; c++)
			for (unsigned r = 0; r < g->m; r++) {
				uint32_t got = 0;
				memcpy(&got, mat_at(&g->c, b, r, c), g->c.esz);
				float t = want_t(g, b, r, c), cv = c_value(g, b, r, c);
				float pre = ref_epilogue(alpha, t, beta, cv);
				if (g->bias) {
					uint64_t i = b * g->x.bias_bstride + (g->x.bias_along ? c : r);
					float bv = ref_load((int)g->x.bias_type, g->bias, i);
					pre = pre + bv;
				}
				char e[200];
				snprintf(e, sizeof e, "%s: b=%u r=%u c=%u t=%a C=%a", ctx, b, r, c, t, cv);
				check_act((int)g->ctype, got, pre, g->x.act, e);
			}
	mat_check_outside(&g->c, ctx);
}

/* t for the unit test: the dot product if flagged, else d * 2^(s_r + s_c) rounded once. */
static float want_t_unit(const struct gemm *g, unsigned b, unsigned r, unsigned c)
{
	uint32_t wr = g->rw[b * g->m + r], wc = g->cw[b * g->n + c];
	if ((wr | wc) & KERNEL_SCALE_FLAG)
		return ref_dot(g, b, r, c);
	float d;
	memcpy(&d, mat_at(&g->d, b, r, c), 4);
	return (float)ldexp(d, ref_scale(wr) + ref_scale(wc));
}

static uint32_t gen_moderate_bf16(void)
{
	uint32_t r = rnd();
	if (r % 32 == 0)
		return (uint32_t[]){ 0x7f80, 0xff80, 0x7fc1, 0x0000, 0x8000, 0x0003 }[rnd() % 6];
	return (r & 0x807f) | ((119 + rnd() % 17) << 7);
}

static uint32_t gen_d(void)
{
	uint32_t r = rnd();
	if (r % 32 == 0)
		return (uint32_t[]){ 0x7f800000, 0xff800000, 0x7fc00000, 0, 0x80000000, 1 }[rnd() % 6];
	return (r & 0x807fffff) | ((110 + rnd() % 40) << 23);
}

static uint32_t gen_c16(void)
{
	return (rnd() & 0x83ff) | ((8 + rnd() % 14) << 10);
}

static uint32_t gen_c32(void)
{
	return (rnd() & 0x807fffff) | ((120 + rnd() % 16) << 23);
}

/* Words over the whole finite bf16 range (extreme scales on both sides), some flagged. */
static uint32_t gen_word(void)
{
	uint32_t w = rnd() % 10 ? rnd() % 0x7f80 : 0;
	return w | (rnd() % 5 ? 0 : KERNEL_SCALE_FLAG);
}

static void make_gemm(struct gemm *g, unsigned m, unsigned n, unsigned k, unsigned batch,
		      uint32_t ta, uint32_t tb, uint32_t ctype, int arr, int c_access,
		      uint32_t (*agen)(void), uint32_t (*bgen)(void))
{
	g->m = m;
	g->n = n;
	g->k = k;
	g->batch = batch;
	g->ta = ta;
	g->tb = tb;
	g->ctype = ctype;
	memset(&g->x, 0, sizeof g->x);
	g->bias = NULL;
	mat_make(&g->a, ta ? k : m, ta ? m : k, batch, 2, arr, 1, 0, 2, 3, BUF_RO);
	mat_make(&g->b, tb ? n : k, tb ? k : n, batch, 2, !arr, 0, 2, 1, 1, BUF_RO);
	mat_make(&g->d, m, n, batch, 4, 0, 0, 0, 0, 0, BUF_RO);
	mat_make(&g->c, m, n, batch, ctype == KERNEL_TYPE_F32 ? 4 : 2, arr, 2, 1, 3, 2,
		 c_access);
	mat_fill(&g->a, agen);
	mat_fill(&g->b, bgen);
	mat_fill(&g->c, ctype == KERNEL_TYPE_F32 ? gen_c32 : ctype == KERNEL_TYPE_F16 ?
		 gen_c16 : gen_moderate_bf16);
	mat_snapshot(&g->c);
	g->rw = buf_alloc(batch * m * 4, BUF_RW);
	g->cw = buf_alloc(batch * n * 4, BUF_RW);
}

int test_epilogue_scaled(void)
{
	static const unsigned ms[] = { 1, 33, 130 }, ns[] = { 1, 5 }, ks[] = { 0, 1, 7, 40 };
	static const char *const type_name[] = { "f32", "bf16", "f16" };
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		for (unsigned n = 0; n < 48; n++) {
			struct gemm g;
			float alpha = n % 3 ? 1.5f : -0.25f, beta = n % 4 == 3 ? 0 : 0.5f;
			make_gemm(&g, ms[n % 3], ns[n % 2], ks[n / 3 % 4], 1 + n % 2, n / 4 % 2,
				  n / 8 % 2, (n + n / 3) % 3, n % 5 < 2, beta == 0 ? BUF_WO : BUF_RW,
				  gen_moderate_bf16, gen_moderate_bf16);
			mat_fill(&g.d, gen_d);
			for (unsigned w = 0; w < g.batch * g.m; w++)
				g.rw[w] = gen_word();
			for (unsigned w = 0; w < g.batch * g.n; w++)
				g.cw[w] = gen_word();
			unsigned gx = grid_rows(g.m) + n % 2, gy = n % 3 ? g.n : 2;
			char ctx[160];
			snprintf(ctx, sizeof ctx, "sm_%d m=%u n=%u k=%u batch=%u trans=%c%c %s "
				 "alpha=%g beta=%g", test_sms[i], g.m, g.n, g.k, g.batch,
				 g.ta ? 'T' : 'N', g.tb ? 'T' : 'N', type_name[g.ctype], alpha, beta);
			CHECK(run_epi_scaled(mod, &g, alpha, beta, gx, gy) == PTX_OK, "%s", ctx);
			check_gemm(&g, alpha, beta, want_t_unit, ctx);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}

/* Bias vectors of each type along rows and columns, shared or per batch item, under each
 * activation, after the scale removal and the exact recomputation of flagged outputs. */
int test_epilogue_scaled_bias_act(void)
{
	static const char *const type_name[] = { "f32", "bf16", "f16" };
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		for (unsigned n = 0; n < 36; n++) {
			struct gemm g;
			float beta = n % 4 == 3 ? 0 : 0.5f;
			uint32_t btype = n % 3, along = n / 3 % 2, act = n / 6 % 3;
			make_gemm(&g, n % 2 ? 130 : 33, 1 + n % 5, 1 + n % 7, 1 + n % 2, n / 4 % 2,
				  n / 8 % 2, (n + n / 3) % 3, n % 5 < 2, beta == 0 ? BUF_WO : BUF_RW,
				  gen_moderate_bf16, gen_moderate_bf16);
			mat_fill(&g.d, gen_d);
			for (unsigned w = 0; w < g.batch * g.m; w++)
				g.rw[w] = gen_word();
			for (unsigned w = 0; w < g.batch * g.n; w++)
				g.cw[w] = gen_word();
			unsigned len = along ? g.n : g.m, total = len * g.batch + 3;
			size_t esz = btype == KERNEL_TYPE_F32 ? 4 : 2;
			unsigned char *bias = buf_alloc(total * esz, BUF_RW);
			for (unsigned j = 0; j < total; j++) {
				uint32_t v = btype == KERNEL_TYPE_F32 ? gen_c32() :
					     btype == KERNEL_TYPE_F16 ? gen_c16() : gen_moderate_bf16();
				memcpy(bias + j * esz, &v, esz);
			}
			buf_access(bias, BUF_RO);
			g.bias = bias;
			g.x = (struct epi_extra){ dev(bias), btype, along, n % 2 ? len + 3 : 0, act };
			char ctx[200];
			snprintf(ctx, sizeof ctx, "sm_%d m=%u n=%u k=%u batch=%u %s bias %s along %s "
				 "act %u", test_sms[i], g.m, g.n, g.k, g.batch, type_name[g.ctype],
				 type_name[btype], along ? "cols" : "rows", act);
			CHECK(run_epi_scaled(mod, &g, 1.5f, beta, grid_rows(g.m), 2) == PTX_OK, "%s",
			      ctx);
			check_gemm(&g, 1.5f, beta, want_t_unit, ctx);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}

/* ------------------------------------------------------------ whole pipeline */
static uint32_t gen_e2e(void)
{
	return (rnd() & 0x807f) | ((119 + rnd() % 17) << 7);   /* |x| in [2^-8, 2^9) */
}

static uint16_t *op_at(struct mat *m, int trans, unsigned b, unsigned i, unsigned j)
{
	return trans ? mat_at(m, b, j, i) : mat_at(m, b, i, j);
}

static ptx_status run_absmax_words(ptx_module *mod, int cols_kernel, struct mat *src,
				   uint32_t *words)
{
	return run_absmax(mod, cols_kernel, src, words, grid_rows(src->rows), 3);
}

/* A compact f16 copy of a stored operand, as the shim's workspace would hold it. */
static void make_half(struct mat *h, const struct mat *src)
{
	mat_make(h, src->rows, src->cols, src->batch, 2, 0, 0, 0, 0, 0, BUF_RW);
	mat_snapshot(h);
}

/* absmax -> scaled cast -> fp16 GEMM (emulated) -> scaled epilogue must give, for every
 * element, the fp32 GEMM of the bf16 inputs; the data makes some rows and columns need
 * the exact recomputation (a value 2^-100 below its row's max) and some need extreme but
 * exact scales (a row near 2^-60, a column near 2^60). */
int test_fp16_pipeline(void)
{
	const unsigned m = 70, n = 37, k = 50, batch = 2;
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		for (unsigned combo = 0; combo < 8; combo++) {
			struct gemm g;
			struct mat a16, b16;
			uint32_t ta = combo & 1, tb = combo >> 1 & 1;
			uint32_t ctype = combo >> 2 ? KERNEL_TYPE_BF16 : KERNEL_TYPE_F32;
			make_gemm(&g, m, n, k, batch, ta, tb, ctype, combo % 3 == 0, BUF_RW, gen_e2e,
				  gen_e2e);
			for (unsigned b = 0; b < batch; b++) {
				for (unsigned kk = 0; kk < k; kk++) {
					*op_at(&g.a, ta, b, 5, kk) -= 60 << 7;     /* row 5 ~ 2^-60 */
					*op_at(&g.b, tb, b, kk, 4) += 60 << 7;     /* column 4 ~ 2^60 */
				}
				*op_at(&g.a, ta, b, 3, 7) = 0x0d80;                /* 2^-100 */
				*op_at(&g.b, tb, b, 9, 2) = 0x0880;                /* 2^-110 */
				*op_at(&g.a, ta, b, 10, 3) = 0x7f80;               /* Inf passes */
			}
			memset(g.rw, 0, batch * m * 4);
			memset(g.cw, 0, batch * n * 4);
			make_half(&a16, &g.a);
			make_half(&b16, &g.b);
			char ctx[96];
			snprintf(ctx, sizeof ctx, "sm_%d trans=%c%c %s", test_sms[i], ta ? 'T' : 'N',
				 tb ? 'T' : 'N', ctype ? "bf16" : "f32");
			CHECK(run_absmax_words(mod, ta, &g.a, g.rw) == PTX_OK, "%s absmax A", ctx);
			CHECK(run_absmax_words(mod, !tb, &g.b, g.cw) == PTX_OK, "%s absmax B", ctx);
			CHECK(run_cast_scaled(mod, &g.a, &a16, g.rw, ta, grid_rows(g.a.rows), 4) ==
			      PTX_OK, "%s cast A", ctx);
			CHECK(run_cast_scaled(mod, &g.b, &b16, g.cw, !tb, grid_rows(g.b.rows), 4) ==
			      PTX_OK, "%s cast B", ctx);
			for (unsigned b = 0; b < batch; b++)
				for (unsigned c = 0; c < n; c++)
					for (unsigned r = 0; r < m; r++) {
						float t = 0;
						for (unsigned kk = 0; kk < k; kk++)
							t = fmaf(ref_f16_to_f32(*op_at(&a16, ta, b, r, kk)),
								 ref_f16_to_f32(*op_at(&b16, tb, b, kk, c)), t);
						memcpy(mat_at(&g.d, b, r, c), &t, 4);
					}
			CHECK(run_epi_scaled(mod, &g, 0.75f, -1.5f, grid_rows(m), 5) == PTX_OK, "%s",
			      ctx);
			check_gemm(&g, 0.75f, -1.5f, ref_dot, ctx);
			for (unsigned b = 0; b < batch; b++) {
				CHECK(g.rw[b * m + 3] & KERNEL_SCALE_FLAG, "%s: row 3 not flagged", ctx);
				CHECK(g.cw[b * n + 2] & KERNEL_SCALE_FLAG, "%s: column 2 not flagged",
				      ctx);
				for (unsigned r = 0; r < m; r += 5)
					CHECK(!(g.rw[b * m + r] & KERNEL_SCALE_FLAG), "%s: row %u flagged",
					      ctx, r);
				CHECK(!(g.cw[b * n + 4] & KERNEL_SCALE_FLAG) &&
				      !(g.cw[b * n + 0] & KERNEL_SCALE_FLAG), "%s: column flagged", ctx);
			}
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}

/* A word whose scale is s (s in [-148, 112]): max = 2^(s + 15), a bf16 subnormal below
 * 2^-126. */
static uint32_t word_for_scale(int s)
{
	int e = s + 15;
	return e >= -126 ? (uint32_t)(e + 127) << 7 : 1u << (e + 133);
}

static uint32_t gen_any_f32(void)
{
	uint32_t r = rnd();
	return (r & 0x807fffff) | (rnd() % 255) << 23;     /* every finite exponent */
}

/* Every sum of scales from -296 to 224 against d over the whole f32 range: t must be
 * d * 2^s rounded once (checked through double). */
int test_epilogue_scaled_extremes(void)
{
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		struct gemm g;
		make_gemm(&g, 66, 66, 1, 1, 0, 0, KERNEL_TYPE_F32, 0, BUF_RW, gen_moderate_bf16,
			  gen_moderate_bf16);
		mat_fill(&g.d, gen_any_f32);
		for (unsigned j = 0; j < 66; j++) {
			g.rw[j] = word_for_scale(-148 + 4 * (int)j);
			g.cw[j] = word_for_scale(112 - 4 * (int)j + (int)(j % 4));
			CHECK_BITS(ref_scale(g.rw[j]), -148 + 4 * (int)j, "row word %u", j);
		}
		/* Where the result can be non-zero only for a huge d (s < -252) or must come
		 * out of a subnormal d (s > 127), give d that magnitude. */
		for (unsigned c = 0; c < 66; c++)
			for (unsigned r = 0; r < 66; r++) {
				int sum = ref_scale(g.rw[r]) + ref_scale(g.cw[c]);
				uint32_t bits = rnd() & 0x807fffff;
				if (sum < -250)
					bits |= (251 + rnd() % 4) << 23;
				else if (sum > 127)
					bits &= 0x807fffff >> (rnd() % 20);
				else
					continue;
				memcpy(mat_at(&g.d, 0, r, c), &bits, 4);
			}
		char ctx[32];
		snprintf(ctx, sizeof ctx, "sm_%d", test_sms[i]);
		CHECK(run_epi_scaled(mod, &g, 1, 0, 1, 66) == PTX_OK, "%s", ctx);
		check_gemm(&g, 1, 0, want_t_unit, ctx);
		buf_free_all();
		ptx_module_free(mod);
	}
	return fails;
}
