/* Tests of the fp16 path's scaled epilogue, alone (the scales removed exactly; a recompute
 * exactly where the bound on the left-out products exceeds 2^-28 |t|), and at the end of the
 * whole pipeline (slices, an emulated fp16 GEMM, the tail on the tensor cores where there are
 * some) against fp64 within the accuracy bound, with attention-shaped operands too. */
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
	uint32_t *rw, *cw;               /* row and column words, two a vector */
	unsigned m, n, k, batch;
	uint32_t ta, tb, ctype, tail;
	struct epi_extra x;              /* bias and activation: zero for none */
	const void *bias;
};

static ptx_status run_epi_scaled(ptx_module *mod, struct gemm *g, float alpha, float beta,
				 unsigned gx, unsigned gy)
{
	uint32_t rows = g->m, cols = g->n, k = g->k, rv = g->m, cv32 = g->n;
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
	argv[n++] = &rv;
	argv[n++] = &cv32;
	push_view(argv, &n, &av);
	argv[n++] = &g->ta;
	push_view(argv, &n, &bv);
	argv[n++] = &g->tb;
	argv[n++] = &k;
	argv[n++] = &g->tail;
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

/* The fp32 GEMM element a recompute gives: fma in k order. */
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

/* The output for t: act(alpha * t + beta * C + bias) before the rounding to ctype. */
static float pre_of(const struct gemm *g, float alpha, float beta, float t, unsigned b,
		    unsigned r, unsigned c)
{
	float pre = ref_epilogue(alpha, t, beta, c_value(g, b, r, c));
	if (g->bias) {
		uint64_t i = b * g->x.bias_bstride + (g->x.bias_along ? c : r);
		pre = pre + ref_load((int)g->x.bias_type, g->bias, i);
	}
	return pre;
}

/* Checks C against alpha * t + beta * C, t from want_t; where want_t leaves the choice
 * between two values (*alt set, a check at its threshold), either will do. */
static void check_gemm(const struct gemm *g, float alpha, float beta,
		       float (*want_t)(const struct gemm *, unsigned, unsigned, unsigned, float *),
		       const char *ctx)
{
	for (unsigned b = 0; b < g->batch; b++)
		for (unsigned c = 0; c < g->n; c++)
			for (unsigned r = 0; r < g->m; r++) {
				uint32_t got = 0;
				memcpy(&got, mat_at(&g->c, b, r, c), g->c.esz);
				float alt = NAN, t = want_t(g, b, r, c, &alt);
				char e[200];
				snprintf(e, sizeof e, "%s: b=%u r=%u c=%u t=%a C=%a", ctx, b, r, c, t,
					 c_value(g, b, r, c));
				if (!isnan(alt)) {
					int before = fails;
					check_act((int)g->ctype, got, pre_of(g, alpha, beta, t, b, r, c),
						  g->x.act, e);
					if (fails == before)
						continue;
					fails = before;
					t = alt;
				}
				check_act((int)g->ctype, got, pre_of(g, alpha, beta, t, b, r, c), g->x.act,
					  e);
			}
	mat_check_outside(&g->c, ctx);
}

/* x rounded up to f32. */
static double ru(double x)
{
	float f = (float)x;
	return (double)f < x ? nextafterf(f, INFINITY) : f;
}

static float bf16f(uint32_t h)
{
	return ref_bf16_to_f32((uint16_t)h);
}

/* t for the unit test (kernels.h): d * 2^(s_r + s_c) rounded once, unless the left-out
 * products' bound exceeds 2^-28 |t| (or t overflowed): then the dot product.  Within 2^-8 of
 * the threshold either is right (the kernel rounds its bound up in f32). */
static float want_t_unit(const struct gemm *g, unsigned b, unsigned r, unsigned c, float *alt)
{
	const uint32_t *wr = &g->rw[2 * (b * g->m + r)], *wc = &g->cw[2 * (b * g->n + c)];
	float d;
	memcpy(&d, mat_at(&g->d, b, r, c), 4);
	float t = (float)ldexp(d, word_scale(wr[0]) + word_scale(wc[0]));
	if (!(wr[0] >> 16) && !(wc[0] >> 16))
		return t;
	double g1r = bf16f(wr[0] >> 16), g1c = bf16f(wc[0] >> 16);
	double g2r = bf16f(wr[1] & 0xffff), g2c = bf16f(wc[1] & 0xffff);
	double sr = bf16f(wr[1] >> 16), sc = bf16f(wc[1] >> 16);
	/* The kernel's f32 arithmetic rounded up (an underflow gives the least subnormal). */
	double bound = g->tail ? ru(ru(ru(ru(g1r * g1c) * g->k) + g2r * sc) + g2c * sr)
			       : ru(ru(g1r * sc) + g1c * sr);
	double lim = (float)ldexp(fabs((double)t), -28);     /* as the kernel's f32 multiply */
	if (isinf(t) || isnan(t) || isnan(bound) || bound > lim * (1 + 1.0 / 256))
		return ref_dot(g, b, r, c);
	if (bound <= lim * (1 - 1.0 / 256))
		return t;
	*alt = ref_dot(g, b, r, c);
	return t;
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

/* Words over the whole finite bf16 range (extreme scales on both sides), with g1, g2 and S
 * so that outputs go either way. */
static void gen_words(uint32_t *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t mx = rnd() % 10 ? rnd() % 0x7f80 : 0, g1 = 0, g2 = 0, s;
		if (rnd() % 3 == 0 && mx > 0x2000) {
			g1 = mx - 0x1000 - rnd() % 0x1000;
			g2 = rnd() % 2 ? g1 - rnd() % 0x800 : 0;
		}
		s = rnd() % 16 ? mx + 0x300 + rnd() % 0x400 : (uint32_t[]){ 0x7f80, 0x7fc0 }[rnd() % 2];
		w[2 * i] = mx | (rnd() % 2) << 15 | g1 << 16;
		w[2 * i + 1] = g2 | (s > 0x7f80 && s != 0x7fc0 ? 0x7f7f : s) << 16;
	}
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
	g->tail = 0;
	g->rw = buf_alloc(batch * m * 8, BUF_RW);
	g->cw = buf_alloc(batch * n * 8, BUF_RW);
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
			gen_words(g.rw, g.batch * g.m);
			gen_words(g.cw, g.batch * g.n);
			g.tail = n % 2;
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
			gen_words(g.rw, g.batch * g.m);
			gen_words(g.cw, g.batch * g.n);
			g.tail = n % 3 == 0;
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

static float half_at(uint64_t base, size_t i)
{
	uint16_t h;
	memcpy(&h, (const void *)(uintptr_t)(base + 2 * i), 2);
	return ref_f16_to_f32(h);
}

/* The whole fp16 path on g: slices of both operands in one launch, the GEMM of the first
 * slices emulated (fp16 products, fp32 sums in k order, as a tensor-core GEMM may), the tail
 * from the tensor-core module when tc is given, then the epilogue. */
static void run_pipeline(ptx_module *mod, ptx_module *tc, struct gemm *g, float alpha,
			 float beta, const char *ctx)
{
	struct sjob j[2] = {
		{ .v = g->a.v, .vecs = g->m, .k = g->k, .vec_rows = !g->ta, .vpb = 4, .staged = 1 },
		{ .v = g->b.v, .vecs = g->n, .k = g->k, .vec_rows = g->tb, .vpb = 8, .staged = 1 },
	};
	size_t na = (size_t)g->batch * g->m, nb = (size_t)g->batch * g->n;
	j[0].dst1 = dev(buf_alloc(na * g->k * 2 + 2, BUF_RW));
	j[0].dst2 = dev(buf_alloc(na * g->k * 2 + 2, BUF_RW));
	j[0].words = dev(g->rw);
	j[1].dst1 = dev(buf_alloc(nb * g->k * 2 + 2, BUF_RW));
	j[1].dst2 = dev(buf_alloc(nb * g->k * 2 + 2, BUF_RW));
	j[1].words = dev(g->cw);
	CHECK(run_slices(mod, j, 2, g->batch, NULL) == PTX_OK, "%s: slices", ctx);
	mat_set_access(&g->d, BUF_RW);
	for (unsigned b = 0; b < g->batch; b++)
		for (unsigned c = 0; c < g->n; c++)
			for (unsigned r = 0; r < g->m; r++) {
				float t = 0;
				size_t ai = ((size_t)b * g->m + r) * g->k, bi = ((size_t)b * g->n + c) * g->k;
				for (unsigned kk = 0; kk < g->k; kk++)
					t = fmaf(half_at(j[0].dst1, ai + kk), half_at(j[1].dst1, bi + kk), t);
				memcpy(mat_at(&g->d, b, r, c), &t, 4);
			}
	g->tail = tc != NULL;
	if (tc) {
		uint64_t abs = (uint64_t)g->m * g->k, bbs = (uint64_t)g->n * g->k;
		uint64_t rw = dev(g->rw), cw = dev(g->cw), d = g->d.v.ptr, dbs = g->d.v.bstride;
		uint64_t ldd = g->m;
		uint32_t m = g->m, n = g->n, k = g->k;
		void *argv[] = { &j[0].dst1, &j[0].dst2, &abs, &j[1].dst1, &j[1].dst2, &bbs, &rw, &m,
				 &cw, &n, &m, &n, &k, &d, &dbs, &ldd };
		CHECK(launch(tc, KERNEL_FP16_TAIL, (m + 63) / 64, (n + 63) / 64, g->batch, argv) ==
		      PTX_OK, "%s: tail", ctx);
	}
	CHECK(run_epi_scaled(mod, g, alpha, beta, grid_rows(g->m), 5) == PTX_OK, "%s: epilogue",
	      ctx);
}

/* The accuracy contract (README, "Accuracy") of alpha op(A) op(B) with beta 0: against
 * fp64, |got - ref| <= (k + 2) 2^-24 sum |a b| + k 2^-149 (+ half a unit of C's type), and
 * NaN and Inf where the fp32 GEMM of the same inputs has them. */
static void check_bound(const struct gemm *g, float alpha, const char *ctx)
{
	for (unsigned b = 0; b < g->batch; b++)
		for (unsigned c = 0; c < g->n; c++)
			for (unsigned r = 0; r < g->m; r++) {
				double ref = 0, mag = 0;
				for (unsigned kk = 0; kk < g->k; kk++) {
					double p = (double)opa(g, b, r, kk) * opb(g, b, kk, c);
					ref += p;
					mag += fabs(p);
				}
				uint32_t got = 0;
				memcpy(&got, mat_at(&g->c, b, r, c), g->c.esz);
				double v = g->ctype == KERNEL_TYPE_F32 ? f32_of(got) :
					   ref_bf16_to_f32((uint16_t)got);
				float f = alpha * ref_dot(g, b, r, c);
				if (isnan(f) || isinf(f)) {
					CHECK(isnan(f) ? isnan(v) : v == f, "%s: b=%u r=%u c=%u got %a, "
					      "want %a", ctx, b, r, c, v, f);
					continue;
				}
				double tol = fabs(alpha) * ((g->k + 2) * ldexp(mag, -24) +
							    g->k * ldexp(1, -149));
				if (g->ctype != KERNEL_TYPE_F32)
					tol += ldexp(fabs(alpha * ref), -8);
				CHECK(fabs(v - alpha * ref) <= tol, "%s: b=%u r=%u c=%u got %a, want %a "
				      "+- %a", ctx, b, r, c, v, alpha * ref, tol);
			}
}

/* Slices -> fp16 GEMM (emulated) -> tail -> epilogue within the bound, for data with extreme
 * but exact scales (a row near 2^-60, a column near 2^60), elements 2^-100 below their
 * row's largest (in neither slice), 2^-40 below (in slice 2) and Inf; with the tail (sm_75)
 * and without it. */
int test_fp16_pipeline(void)
{
	const unsigned m = 70, n = 37, k = 50, batch = 2;
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		ptx_module *tc = test_sms[i] >= 70 ? load_tc_module(test_sms[i]) : NULL;
		if (!mod)
			continue;
		for (unsigned combo = 0; combo < 8; combo++) {
			struct gemm g;
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
				*op_at(&g.a, ta, b, 8, 9) = 0x2b80;                /* 2^-40 */
				*op_at(&g.b, tb, b, 9, 2) = 0x0880;                /* 2^-110 */
				*op_at(&g.b, tb, b, 11, 6) = 0x2a00;               /* 2^-43 */
				*op_at(&g.a, ta, b, 10, 3) = 0x7f80;               /* Inf passes */
			}
			char ctx[96];
			snprintf(ctx, sizeof ctx, "sm_%d trans=%c%c %s tail=%d", test_sms[i],
				 ta ? 'T' : 'N', tb ? 'T' : 'N', ctype ? "bf16" : "f32", tc != NULL);
			run_pipeline(mod, tc, &g, 0.75f, 0, ctx);
			check_bound(&g, 0.75f, ctx);
			for (unsigned b = 0; b < batch; b++) {
				CHECK(g.rw[2 * (b * m + 3)] >> 16, "%s: row 3 all in slice 1", ctx);
				CHECK(g.rw[2 * (b * m + 8)] & 0x8000, "%s: row 8 without slice 2", ctx);
				CHECK(g.cw[2 * (b * n + 6)] & 0x8000, "%s: column 6 without slice 2", ctx);
				CHECK(!(g.rw[2 * (b * m + 5)] >> 16) && !(g.cw[2 * (b * n + 4)] >> 16),
				      "%s: extreme scales left slice 1", ctx);
			}
			buf_free_all();
		}
		ptx_module_free(tc);
		ptx_module_free(mod);
	}
	return fails;
}

/* Attention-shaped operands: op(B)'s columns are softmax rows (logits of std 2 to 16; some
 * rows causal, exact zeros past a point; some peaked, one logit far above the rest; some
 * uniform), op(A) a random V^T; and the reverse, op(A)'s rows softmax rows.  Within the bound
 * against fp64; and with the tail, no output is recomputed: the epilogue reads nothing of the
 * bf16 operands. */
static double gauss(void)
{
	double u = (rnd() % 65535 + 1) / 65536.0, v = (rnd() % 65536 + 0.5) / 65536.0;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void softmax_vector(struct mat *x, int trans_rows, unsigned b, unsigned v, unsigned k,
			   unsigned kind)
{
	double logit[512], mx = -1e300, sum = 0, std = 2 << (kind % 4);
	unsigned valid = kind / 4 % 3 == 1 ? 1 + v % k : k;        /* causal: first v + 1 */
	for (unsigned l = 0; l < k; l++) {
		logit[l] = std * gauss();
		if (kind / 4 % 3 == 2 && l == v % k)
			logit[l] += 60;                                    /* peaked */
		if (kind / 12 % 2 && v % 4 == 0)
			logit[l] = 0.5;                                    /* uniform */
		if (l < valid && logit[l] > mx)
			mx = logit[l];
	}
	for (unsigned l = 0; l < valid; l++)
		sum += exp(logit[l] - mx);
	for (unsigned l = 0; l < k; l++) {
		uint16_t h = l < valid ? ref_bf16_rne((float)(exp(logit[l] - mx) / sum)) : 0;
		memcpy(trans_rows ? mat_at(x, b, v, l) : mat_at(x, b, l, v), &h, 2);
	}
}

static uint32_t gen_v(void)
{
	return ref_bf16_rne((float)gauss());
}

int test_fp16_attention(void)
{
	static const unsigned shapes[][3] = { { 64, 96, 128 }, { 80, 64, 200 } };
	for (int i = 0; i < n_test_sms; i++) {
		if (test_sms[i] == 50)
			continue;
		ptx_module *mod = load_module(test_sms[i]);
		ptx_module *tc = test_sms[i] >= 70 ? load_tc_module(test_sms[i]) : NULL;
		if (!mod)
			continue;
		for (unsigned combo = 0; combo < 8; combo++) {
			struct gemm g;
			unsigned m = shapes[combo % 2][0], n = shapes[combo % 2][1];
			unsigned k = shapes[combo % 2][2], soft_b = combo / 2 % 2;
			uint32_t ta = combo / 4 % 2, tb = !ta;
			make_gemm(&g, m, n, k, 1, ta, tb, combo % 3 ? KERNEL_TYPE_BF16 : KERNEL_TYPE_F32,
				  0, BUF_RW, gen_v, gen_v);
			for (unsigned v = 0; v < (soft_b ? n : m); v++)
				softmax_vector(soft_b ? &g.b : &g.a, soft_b ? tb : !ta, 0, v, k,
					       v * 7 + combo);
			char ctx[96];
			snprintf(ctx, sizeof ctx, "sm_%d %ux%ux%u softmax in %s trans=%c%c tail=%d",
				 test_sms[i], m, n, k, soft_b ? "B" : "A", ta ? 'T' : 'N',
				 tb ? 'T' : 'N', tc != NULL);
			run_pipeline(mod, tc, &g, 1, 0, ctx);
			check_bound(&g, 1, ctx);
			struct buf_counts ca = mat_counts(&g.a), cb = mat_counts(&g.b);
			if (tc)
				CHECK(ca.read == 0 && cb.read == 0, "%s: the epilogue recomputed "
				      "(read %llu + %llu bytes of A and B)", ctx,
				      (unsigned long long)ca.read, (unsigned long long)cb.read);
			buf_free_all();
		}
		ptx_module_free(tc);
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
			g.rw[2 * j] = word_for_scale(-148 + 4 * (int)j);
			g.cw[2 * j] = word_for_scale(112 - 4 * (int)j + (int)(j % 4));
			g.rw[2 * j + 1] = g.cw[2 * j + 1] = 0x7f800000;
			CHECK_BITS(word_scale(g.rw[2 * j]), -148 + 4 * (int)j, "row word %u", j);
		}
		/* Where the result can be non-zero only for a huge d (s < -252) or must come
		 * out of a subnormal d (s > 127), give d that magnitude. */
		for (unsigned c = 0; c < 66; c++)
			for (unsigned r = 0; r < 66; r++) {
				int sum = word_scale(g.rw[2 * r]) + word_scale(g.cw[2 * c]);
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
