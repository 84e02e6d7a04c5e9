/* Tests of the decode-shaped GEMM kernel (issue 4, point 3): every output against an fp64
 * reference from the same bf16 inputs, within the error model of a GEMM with fp32
 * accumulation; NaN/Inf where that GEMM has them; and what a call reads: A exactly once,
 * at the widths its alignment allows, and at most 1.1 x (A + B + C) in all. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "kernels.h"
#include "ref.h"
#include "tests.h"

struct sg {
	struct mat a, b, c;
	unsigned m, n, k, batch;
	uint32_t ta, tb, ct, ctype;
	float alpha, beta;             /* the values the kernel must use */
	float *alpha_dev, *beta_dev;   /* device pointer mode when set */
};

struct sg_opts {
	unsigned m, n, k, batch;
	uint32_t ta, tb, ct, ctype;
	int arr_a, arr_b, arr_c, dev_scalars;
	int aclass;                    /* A's alignment: 0 16-byte, 1 4-byte, 2 2-byte */
	float alpha, beta;
	uint32_t (*agen)(void), (*bgen)(void);
};

static const char *const type_name[] = { "f32", "bf16", "f16" };
static double worst_ratio;         /* bytes read / (A + B + C), over calls with k >= 64 */

/* ------------------------------------------------------------------ operands */
static uint32_t gen_moderate(void)     /* |x| in [2^-7, 2^9), both signs, some zeros */
{
	uint32_t r = rnd();
	if (r % 29 == 0)
		return r & 0x8000;
	return (r & 0x807f) | ((120 + (r >> 8) % 16) << 7);
}

static uint32_t gen_c32(void)
{
	return (rnd() & 0x807fffff) | ((120 + rnd() % 16) << 23);
}

static uint32_t gen_c16(void)
{
	return (rnd() & 0x83ff) | ((8 + rnd() % 14) << 10);
}

static uint32_t gen_nan(void)          /* NaN as f32, bf16 and f16 alike */
{
	return 0xffffffff;
}

/* ld_pad making ld = row0 + rows + pad congruent to want mod 8 (pad in 1..8). */
static unsigned pad_to(unsigned row0, unsigned rows, unsigned want)
{
	unsigned r = (want + 64 - (row0 + rows) % 8) % 8;
	return r ? r : 8;
}

static void sg_make(struct sg *g, const struct sg_opts *o)
{
	memset(g, 0, sizeof *g);
	g->m = o->m;
	g->n = o->n;
	g->k = o->k;
	g->batch = o->batch;
	g->ta = o->ta;
	g->tb = o->tb;
	g->ct = o->ct;
	g->ctype = o->ctype;
	g->alpha = o->alpha;
	g->beta = o->beta;
	/* A's base, row0, ld and batch stride in 16-, 4- or 2-byte steps (its columns start
	 * at base + 2 (row0 + c ld)). */
	static const unsigned row0s[] = { 8, 2, 1 }, lds[] = { 0, 2, 3 }, gaps[] = { 8, 2, 1 };
	unsigned ar = o->ta ? o->k : o->m, r0 = row0s[o->aclass];
	mat_make(&g->a, ar, o->ta ? o->m : o->k, o->batch, 2, o->arr_a, r0, 1,
		 pad_to(r0, ar, lds[o->aclass]), gaps[o->aclass], BUF_RO);
	mat_make(&g->b, o->tb ? o->n : o->k, o->tb ? o->k : o->n, o->batch, 2, o->arr_b, 1, 2, 3,
		 5, BUF_RO);
	size_t esz = o->ctype == KERNEL_TYPE_F32 ? 4 : 2;
	int readc = o->beta != 0;
	mat_make(&g->c, o->ct ? o->n : o->m, o->ct ? o->m : o->n, o->batch, esz, o->arr_c, 2, 1,
		 2, 3, readc ? BUF_RW : BUF_WO);
	mat_fill(&g->a, o->agen ? o->agen : gen_moderate);
	mat_fill(&g->b, o->bgen ? o->bgen : gen_moderate);
	/* With beta == 0, C is NaN and write-only: reading it would fail the launch. */
	mat_fill(&g->c, !readc ? gen_nan : esz == 4 ? gen_c32 : o->ctype == KERNEL_TYPE_F16 ?
		 gen_c16 : gen_moderate);
	mat_snapshot(&g->c);
	if (o->dev_scalars) {
		g->alpha_dev = buf_alloc(4, BUF_RO);
		g->beta_dev = buf_alloc(4, BUF_RO);
		*g->alpha_dev = o->alpha;
		*g->beta_dev = o->beta;
	}
}

static double opa(const struct sg *g, unsigned b, unsigned i, unsigned l)
{
	return ref_bf16_to_f32(g->ta ? bf16_at(&g->a, b, l, i) : bf16_at(&g->a, b, i, l));
}

static double opb(const struct sg *g, unsigned b, unsigned l, unsigned j)
{
	return ref_bf16_to_f32(g->tb ? bf16_at(&g->b, b, j, l) : bf16_at(&g->b, b, l, j));
}

static uint32_t c_bits(const struct sg *g, const void *p)
{
	uint32_t v = 0;
	memcpy(&v, p, g->c.esz);
	return v;
}

static double c_decode(const struct sg *g, uint32_t v)
{
	return g->ctype == KERNEL_TYPE_F32 ? f32_of(v) : g->ctype == KERNEL_TYPE_BF16 ?
	       ref_bf16_to_f32((uint16_t)v) : ref_f16_to_f32((uint16_t)v);
}

static void *c_at(const struct sg *g, unsigned b, unsigned i, unsigned j)
{
	return g->ct ? mat_at(&g->c, b, j, i) : mat_at(&g->c, b, i, j);
}

static const void *c_before(const struct sg *g, unsigned b, unsigned i, unsigned j)
{
	return g->ct ? mat_before(&g->c, b, j, i) : mat_before(&g->c, b, i, j);
}

/* x rounded to ctype, as a double: monotone, so it maps an interval onto one. */
static double round_out(int ctype, double x)
{
	float f = (float)x;
	if (ctype == KERNEL_TYPE_F32 || isnan(f))
		return f;
	if (ctype == KERNEL_TYPE_BF16)
		return ref_bf16_to_f32(ref_bf16_rne(f));
	return ref_f16_to_f32(ref_f16_rne(f));
}

/* ------------------------------------------------------------------- running */
static ptx_status run_sg(ptx_module *mod, struct sg *g, unsigned block, unsigned gx,
			 unsigned gy, unsigned shmem, ptx_launch_stats *st)
{
	/* In device pointer mode the host values are wrong on purpose: 3 would read C. */
	float ha = g->alpha_dev ? 7.0f : g->alpha, hb = g->beta_dev ? 3.0f : g->beta;
	uint64_t ap = g->alpha_dev ? dev(g->alpha_dev) : 0, bp = g->beta_dev ? dev(g->beta_dev) : 0;
	struct view av = g->a.v, bv = g->b.v, cv = g->c.v;
	void *argv[40];
	int n = 0;
	push_view(argv, &n, &av);
	argv[n++] = &g->ta;
	push_view(argv, &n, &bv);
	argv[n++] = &g->tb;
	argv[n++] = &g->m;
	argv[n++] = &g->n;
	argv[n++] = &g->k;
	push_view(argv, &n, &cv);
	argv[n++] = &g->ct;
	argv[n++] = &g->ctype;
	argv[n++] = &ha;
	argv[n++] = &hb;
	argv[n++] = &ap;
	argv[n++] = &bp;
	const unsigned grid[3] = { gx, gy, g->batch }, blk[3] = { block, 1, 1 };
	return launch_shape(mod, KERNEL_GEMM_SMALL, grid, blk, shmem, argv, st);
}

static unsigned blocks_for(unsigned m, unsigned block)
{
	return (m + block - 1) / block;
}

/* The launch shape kernels.h documents. */
static ptx_status run_default(ptx_module *mod, struct sg *g, ptx_launch_stats *st)
{
	unsigned block = KERNEL_SMALL_BLOCK(g->n), gx = blocks_for(g->m, block);
	return run_sg(mod, g, block, gx ? gx : 1, 1, KERNEL_SMALL_SHMEM(block), st);
}

/* ------------------------------------------------------------------ checking */
enum { OUT_FINITE, OUT_INF, OUT_NAN };

/* C(i, j) of item b.  The kernel's fp32 sum may be anything within k 2^-24 sum |p| of the
 * exact sum s, or +-Inf where s is past fp32's range (the data keeps clear of the border);
 * alpha t (+ beta C) then costs two fp32 roundings and one to ctype.  Returns the class of
 * the expected value. */
static int check_elem(const struct sg *g, unsigned b, unsigned i, unsigned j, const char *ctx)
{
	double s = 0, sa = 0;
	for (unsigned l = 0; l < g->k; l++) {
		double p = opa(g, b, i, l) * opb(g, b, l, j);
		s += p;
		sa += fabs(p);
	}
	double t = isfinite(s) && isinf((float)s) ? copysign(INFINITY, s) : s;
	double cv = g->beta != 0 ? c_decode(g, c_bits(g, c_before(g, b, i, j))) : 0;
	double want = g->alpha * t + (g->beta != 0 ? g->beta * cv : 0);
	uint32_t bits = c_bits(g, c_at(g, b, i, j));
	double got = c_decode(g, bits);
	if (isnan(want)) {
		int quiet = g->ctype != KERNEL_TYPE_BF16 || (bits & 0x7fc0) == 0x7fc0;
		CHECK(isnan(got) && quiet, "%s: b=%u i=%u j=%u: got 0x%x, want NaN", ctx, b, i, j,
		      bits);
		return OUT_NAN;
	}
	if (isinf(want)) {
		CHECK(got == want, "%s: b=%u i=%u j=%u: got %a (0x%x), want %a", ctx, b, i, j, got,
		      bits, want);
		return OUT_INF;
	}
	double e = g->k * 0x1p-24 * sa, at = fabs(g->alpha) * (fabs(t) + e);
	double slack = fabs(g->alpha) * e + 0x1p-23 * (at + fabs(g->beta * cv)) + 0x1p-148;
	double lo = round_out((int)g->ctype, want - slack), hi = round_out((int)g->ctype, want + slack);
	CHECK(got >= lo && got <= hi, "%s: b=%u i=%u j=%u: got %a (0x%x), want %a in [%a, %a]", ctx,
	      b, i, j, got, bits, want, lo, hi);
	return OUT_FINITE;
}

/* Checks every output, and that nothing outside C's view changed; counts[] gets the
 * classes of the expected values. */
static void check_all(const struct sg *g, const char *ctx, unsigned counts[3])
{
	for (unsigned b = 0; b < g->batch; b++)
		for (unsigned j = 0; j < g->n; j++)
			for (unsigned i = 0; i < g->m; i++) {
				int cls = check_elem(g, b, i, j, ctx);
				if (counts)
					counts[cls]++;
			}
	mat_check_outside(&g->c, ctx);
}

static uint64_t array_reads(const struct mat *m)
{
	return m->use_array ? buf_counts((void *)(uintptr_t)m->v.array).read : 0;
}

/* What a call may read and write, exactly: op(A) once, op(B) once a block, C once if beta
 * != 0, and per block each pointer-array entry and device scalar once. */
static void check_traffic(const struct sg *g, const ptx_launch_stats *st, unsigned block,
			  const char *ctx)
{
	uint64_t bl = (uint64_t)g->batch * blocks_for(g->m, block);
	uint64_t a = (uint64_t)g->batch * g->m * g->k * 2, b1 = (uint64_t)g->batch * g->k * g->n * 2;
	uint64_t c = (uint64_t)g->batch * g->m * g->n * g->c.esz, c_read = g->beta != 0 ? c : 0;
	uint64_t arr = bl * 8 * (g->a.use_array + g->b.use_array + g->c.use_array);
	uint64_t scal = g->alpha_dev ? bl * 8 : 0;
	struct buf_counts ca = mat_counts(&g->a), cb = mat_counts(&g->b), cc = mat_counts(&g->c);
	CHECK(ca.read == a, "%s: A: %llu bytes read, want each of %llu once", ctx,
	      (unsigned long long)ca.read, (unsigned long long)a);
	CHECK(cb.read == b1 * blocks_for(g->m, block), "%s: B: %llu bytes read, want %llu", ctx,
	      (unsigned long long)cb.read, (unsigned long long)(b1 * blocks_for(g->m, block)));
	CHECK(cc.read == c_read && cc.written == c, "%s: C: %llu read, %llu written, want %llu, %llu",
	      ctx, (unsigned long long)cc.read, (unsigned long long)cc.written,
	      (unsigned long long)c_read, (unsigned long long)c);
	uint64_t ptrs = array_reads(&g->a) + array_reads(&g->b) + array_reads(&g->c);
	uint64_t sc = buf_counts(g->alpha_dev).read + buf_counts(g->beta_dev).read;
	CHECK(ptrs == arr && sc == scal, "%s: pointer arrays %llu, scalars %llu bytes, want %llu, %llu",
	      ctx, (unsigned long long)ptrs, (unsigned long long)sc, (unsigned long long)arr,
	      (unsigned long long)scal);
	uint64_t all = a + cb.read + c_read + arr + scal;
	CHECK(st->global_bytes_read == all && st->global_bytes_written == c,
	      "%s: %llu bytes read, %llu written; want %llu, %llu", ctx,
	      (unsigned long long)st->global_bytes_read,
	      (unsigned long long)st->global_bytes_written, (unsigned long long)all,
	      (unsigned long long)c);
	/* The acceptance of issue 4: within 10 % of a native GEMM's operand + result bytes,
	 * with the documented block size. */
	if (g->k >= 64 && g->m && block == KERNEL_SMALL_BLOCK(g->n)) {
		double ratio = (double)st->global_bytes_read / (double)(a + b1 + c_read);
		CHECK(ratio <= 1.1, "%s: read %.4f x (A + B + C)", ctx, ratio);
		worst_ratio = ratio > worst_ratio ? ratio : worst_ratio;
	}
}

static void describe(char *ctx, size_t len, int sm, const struct sg *g)
{
	snprintf(ctx, len, "sm_%d m=%u n=%u k=%u batch=%u op=%c%c%s %s arrays=%d%d%d alpha=%g "
		 "beta=%g%s", sm, g->m, g->n, g->k, g->batch, g->ta ? 'T' : 'N', g->tb ? 'T' : 'N',
		 g->ct ? " C^T" : "", type_name[g->ctype], g->a.use_array, g->b.use_array,
		 g->c.use_array, g->alpha, g->beta, g->alpha_dev ? " (device)" : "");
}

/* Makes, runs with the documented shape and checks one case. */
static void run_case(ptx_module *mod, int sm, const struct sg_opts *o, unsigned counts[3])
{
	struct sg g;
	ptx_launch_stats st;
	char ctx[256];
	sg_make(&g, o);
	describe(ctx, sizeof ctx, sm, &g);
	ptx_status s = run_default(mod, &g, &st);
	CHECK(s == PTX_OK, "%s: launch failed", ctx);
	if (s == PTX_OK) {
		check_all(&g, ctx, counts);
		check_traffic(&g, &st, KERNEL_SMALL_BLOCK(g.n), ctx);
	}
	buf_free_all();
}

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
			/* The big ones once per architecture with one item, to keep the time. */
			if (o.m * o.k > 20000)
				o.batch = 1;
			run_case(mod, test_sms[si], &o, NULL);
		}
		ptx_module_free(mod);
	}
	return fails;
}

/* Integer data: every product and partial sum is exact in fp32, so any summation order
 * gives the exact value, and the output must be it rounded once to ctype, bit for bit. */
static uint32_t gen_int(void)
{
	return bits_of((float)((int)(rnd() % 17) - 8)) >> 16;
}

int test_small_gemm_exact(void)
{
	for (int si = 0; si < n_test_sms; si++) {
		ptx_module *mod = load_module(test_sms[si]);
		if (!mod)
			continue;
		for (uint32_t q = 0; q < 12; q++) {
			struct sg g;
			ptx_launch_stats st;
			char ctx[256];
			struct sg_opts o = {
				.m = q % 2 ? 70 : 9, .n = 1 + q % 16, .k = q % 3 ? 513 : 100, .batch = 2,
				.ta = q & 1, .tb = q >> 1 & 1, .ct = q >> 2 & 1, .ctype = q % 3,
				.arr_a = q % 5 == 0, .aclass = q % 3,
				.alpha = q % 4 ? 1.0f : -2.0f, .beta = q % 3 == 1 ? 0.0f : 3.0f,
				.agen = gen_int, .bgen = gen_int,
			};
			sg_make(&g, &o);
			describe(ctx, sizeof ctx, test_sms[si], &g);
			CHECK(run_default(mod, &g, &st) == PTX_OK, "%s", ctx);
			for (unsigned b = 0; b < g.batch; b++)
				for (unsigned j = 0; j < g.n; j++)
					for (unsigned i = 0; i < g.m; i++) {
						double s = 0;
						for (unsigned l = 0; l < g.k; l++)
							s += opa(&g, b, i, l) * opb(&g, b, l, j);
						double c = g.beta != 0 ?
							   c_decode(&g, c_bits(&g, c_before(&g, b, i, j))) : 0;
						char e[300];
						snprintf(e, sizeof e, "%s: b=%u i=%u j=%u", ctx, b, i, j);
						check_out((int)g.ctype, c_bits(&g, c_at(&g, b, i, j)),
							  (float)(g.alpha * s + g.beta * c), e);
					}
			check_traffic(&g, &st, KERNEL_SMALL_BLOCK(g.n), ctx);
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
	return gen_moderate();
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
				.m = q % 2 ? 300 : 33, .n = q % 4 < 2 ? 7 : 16, .k = q % 3 ? 64 : 513,
				.batch = 1, .ta = q & 1, .tb = q >> 1 & 1, .ct = q >> 2 & 1,
				.ctype = q % 3, .arr_b = q >> 3 & 1, .aclass = q % 3, .alpha = 1.5f,
				.beta = q % 5 == 0 ? 0.0f : -0.5f,
				.agen = gen_specials, .bgen = gen_specials,
			};
			/* About a third of the outputs see a special. */
			gen_special_rate = 3 * o.k;
			run_case(mod, test_sms[si], &o, counts);
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
			describe(ctx, sizeof ctx, test_sms[si], &g);
			CHECK(run_default(mod, &g, &st) == PTX_OK, "%s", ctx);
			check_all(&g, ctx, counts);
			check_traffic(&g, &st, KERNEL_SMALL_BLOCK(g.n), ctx);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	CHECK(counts[OUT_INF] > 100 && counts[OUT_FINITE] > 100,
	      "the data must give Inf and finite outputs: %u, %u", counts[OUT_INF],
	      counts[OUT_FINITE]);
	return fails;
}

/* A is read at the widest width its alignment allows: for transa = T 16 bytes a lane in
 * whole 64-element chunks when base, row0 and ld are multiples of 16 bytes, 4 bytes for
 * pairs when of 4 (and in a last partial chunk), 2 bytes otherwise and for an odd k's last
 * element; for transa = N always 2 bytes (lanes on consecutive rows). */
int test_small_gemm_load_widths(void)
{
	static const unsigned ks[] = { 64, 167, 513, 6 };
	for (int si = 0; si < n_test_sms; si++) {
		ptx_module *mod = load_module(test_sms[si]);
		if (!mod)
			continue;
		for (uint32_t q = 0; q < 24; q++) {
			struct sg g;
			ptx_launch_stats st;
			char ctx[300];
			struct sg_opts o = {
				.m = q % 2 ? 70 : 33, .n = 3, .k = ks[q / 2 % 4], .batch = 2,
				.ta = q % 6 != 5, .tb = q & 1, .ctype = KERNEL_TYPE_F32,
				.arr_a = q / 8 % 2, .aclass = q % 3, .alpha = 1.0f, .beta = 0.0f,
			};
			sg_make(&g, &o);
			describe(ctx, sizeof ctx, test_sms[si], &g);
			snprintf(ctx + strlen(ctx), sizeof ctx - strlen(ctx), " A-alignment %u",
				 (unsigned[]){ 16, 4, 2 }[o.aclass]);
			CHECK(run_default(mod, &g, &st) == PTX_OK, "%s", ctx);
			check_all(&g, ctx, NULL);
			check_traffic(&g, &st, KERNEL_SMALL_BLOCK(g.n), ctx);
			uint64_t rows = (uint64_t)g.batch * g.m, k = g.k, w16 = 0, w4 = 0, w2 = rows * k;
			if (g.ta && o.aclass < 2) {
				w16 = o.aclass == 0 ? rows * (k / 64) * 8 : 0;
				w4 = rows * ((o.aclass == 0 ? k % 64 : k) / 2);
				w2 = rows * (k % 2);
			}
			struct buf_counts c = mat_counts(&g.a);
			CHECK(c.reads_of_size[16] == w16 && c.reads_of_size[4] == w4 &&
			      c.reads_of_size[2] == w2,
			      "%s: A loads of 16, 4, 2 bytes: %llu, %llu, %llu, want %llu, %llu, %llu", ctx,
			      (unsigned long long)c.reads_of_size[16],
			      (unsigned long long)c.reads_of_size[4],
			      (unsigned long long)c.reads_of_size[2], (unsigned long long)w16,
			      (unsigned long long)w4, (unsigned long long)w2);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}

static void restore_c(struct sg *g)
{
	for (int j = 0; j < g->c.nbuf; j++)
		memcpy(g->c.buf[j], g->c.snap[j], g->c.bytes[j]);
}

/* The launch shape: other block sizes give the same result (B then costs one read per
 * block), spare blocks in x and y do nothing, a broken shape traps, and calls with
 * nothing to do touch no memory. */
int test_small_gemm_launch(void)
{
	for (int si = 0; si < n_test_sms; si++) {
		ptx_module *mod = load_module(test_sms[si]);
		if (!mod)
			continue;
		for (uint32_t q = 0; q < 4; q++) {
			struct sg g;
			ptx_launch_stats st, st2;
			char ctx[300];
			struct sg_opts o = {
				.m = 300, .n = q % 2 ? 16 : 1, .k = 70, .batch = 2, .ta = q < 2,
				.tb = q & 1, .ctype = q % 3, .arr_c = 1, .dev_scalars = 1, .aclass = 0,
				.alpha = 2.0f, .beta = 0.5f,
			};
			sg_make(&g, &o);
			describe(ctx, sizeof ctx, test_sms[si], &g);
			unsigned block = KERNEL_SMALL_BLOCK(g.n), gx = blocks_for(g.m, block);
			CHECK(run_default(mod, &g, &st) == PTX_OK, "%s", ctx);
			check_all(&g, ctx, NULL);
			unsigned char *first[2];
			for (int j = 0; j < 2; j++) {
				first[j] = buf_alloc(g.c.bytes[j], BUF_NONE);
				memcpy(first[j], g.c.buf[j], g.c.bytes[j]);
			}
			/* Spare blocks: 3 more in x, a second row of them in y. */
			restore_c(&g);
			CHECK(run_sg(mod, &g, block, gx + 3, 2, KERNEL_SMALL_SHMEM(block), &st2) == PTX_OK,
			      "%s: spare blocks", ctx);
			CHECK(!memcmp(first[0], g.c.buf[0], g.c.bytes[0]) &&
			      !memcmp(first[1], g.c.buf[1], g.c.bytes[1]) &&
			      st2.global_bytes_read == st.global_bytes_read &&
			      st2.global_bytes_written == st.global_bytes_written,
			      "%s: spare blocks changed the result or the traffic", ctx);
			/* Other block sizes: the widest and the narrowest. */
			for (unsigned other = 32; other <= 1024; other *= 32) {
				restore_c(&g);
				CHECK(run_sg(mod, &g, other, blocks_for(g.m, other), 1,
					     KERNEL_SMALL_SHMEM(other), &st2) == PTX_OK, "%s: block %u", ctx,
				      other);
				check_all(&g, ctx, NULL);
				check_traffic(&g, &st2, other, ctx);
			}
			/* Broken shapes trap: a partial warp, too little shared memory, n > 16. */
			CHECK(run_sg(mod, &g, 48, 7, 1, KERNEL_SMALL_SHMEM(64), NULL) == PTX_ETRAP,
			      "%s: block of 48", ctx);
			CHECK(run_sg(mod, &g, block, gx, 1, KERNEL_SMALL_SHMEM(block) - 16, NULL) ==
			      PTX_ETRAP, "%s: short shared memory", ctx);
			g.n = 17;
			CHECK(run_sg(mod, &g, 288, gx, 1, KERNEL_SMALL_SHMEM(288), NULL) == PTX_ETRAP,
			      "%s: n = 17", ctx);
			/* Nothing to do, nothing touched (every buffer refuses access). */
			mat_set_access(&g.a, BUF_NONE);
			mat_set_access(&g.b, BUF_NONE);
			mat_set_access(&g.c, BUF_NONE);
			g.n = 0;
			CHECK(run_sg(mod, &g, 32, gx, 1, KERNEL_SMALL_SHMEM(32), &st2) == PTX_OK &&
			      st2.global_bytes_read + st2.global_bytes_written == 0, "%s: n = 0", ctx);
			g.n = o.n;
			g.ctype = 3;
			CHECK(run_sg(mod, &g, block, gx, 1, KERNEL_SMALL_SHMEM(block), &st2) == PTX_OK &&
			      st2.global_bytes_read + st2.global_bytes_written == 0, "%s: ctype 3", ctx);
			g.ctype = o.ctype;
			g.m = 0;
			CHECK(run_sg(mod, &g, block, 1, 1, KERNEL_SMALL_SHMEM(block), &st2) == PTX_OK &&
			      st2.global_bytes_read + st2.global_bytes_written == 0, "%s: m = 0", ctx);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}

/* Decode-sized calls (a 1024 x 1024 weight, 1 to 16 tokens, both layouts, C read): the
 * bytes a call reads against a native GEMM's A + B + C, printed for the record. */
int test_small_gemm_traffic(void)
{
	ptx_module *mod = load_module(75);
	if (!mod)
		return fails;
	for (uint32_t q = 0; q < 10; q++) {
		struct sg g;
		ptx_launch_stats st;
		char ctx[256];
		struct sg_opts o = {
			.m = 1024, .n = (unsigned[]){ 1, 2, 4, 9, 16 }[q / 2], .k = 1024, .batch = 1,
			.ta = q % 2 == 0, .ctype = KERNEL_TYPE_BF16, .aclass = 0, .alpha = 1.0f,
			.beta = 1.0f,
		};
		sg_make(&g, &o);
		describe(ctx, sizeof ctx, 75, &g);
		worst_ratio = 0;
		CHECK(run_default(mod, &g, &st) == PTX_OK, "%s", ctx);
		check_traffic(&g, &st, KERNEL_SMALL_BLOCK(g.n), ctx);
		for (unsigned j = 0; j < g.n; j += 5)
			for (unsigned i = 0; i < g.m; i += 7)
				check_elem(&g, 0, i, j, ctx);
		printf("m=%u n=%2u k=%u transa=%c block=%u: %llu bytes read = %.4f x (A + B + C)\n",
		       g.m, g.n, g.k, g.ta ? 'T' : 'N', KERNEL_SMALL_BLOCK(g.n),
		       (unsigned long long)st.global_bytes_read, worst_ratio);
		buf_free_all();
	}
	ptx_module_free(mod);
	return fails;
}
