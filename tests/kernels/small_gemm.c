/* Support for the decode kernel's tests (small_gemm.h): operands in guarded memory, the
 * launch, and the checks of results (fp64 reference, fp32 error model) and of traffic. */
#include "small_gemm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels.h"
#include "ref.h"

static const char *const type_name[] = { "f32", "bf16", "f16" };

uint32_t sg_gen_moderate(void)     /* |x| in [2^-7, 2^9), both signs, some zeros */
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

void sg_make(struct sg *g, const struct sg_opts *o)
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
	static const unsigned brow0s[] = { 1, 8, 2 }, blds[] = { 0, 0, 2 }, bgaps[] = { 5, 8, 2 };
	unsigned br = o->tb ? o->n : o->k, b0 = brow0s[o->bclass];
	mat_make(&g->b, br, o->tb ? o->k : o->n, o->batch, 2, o->arr_b, b0, 2,
		 o->bclass ? pad_to(b0, br, blds[o->bclass]) : 3, bgaps[o->bclass], BUF_RO);
	size_t esz = o->ctype == KERNEL_TYPE_F32 ? 4 : 2;
	int readc = o->beta != 0;
	mat_make(&g->c, o->ct ? o->n : o->m, o->ct ? o->m : o->n, o->batch, esz, o->arr_c, 2, 1,
		 2, 3, readc ? BUF_RW : BUF_WO);
	mat_fill(&g->a, o->agen ? o->agen : sg_gen_moderate);
	mat_fill(&g->b, o->bgen ? o->bgen : sg_gen_moderate);
	/* With beta == 0, C is NaN and write-only: reading it would fail the launch. */
	mat_fill(&g->c, !readc ? gen_nan : esz == 4 ? gen_c32 : o->ctype == KERNEL_TYPE_F16 ?
		 gen_c16 : sg_gen_moderate);
	mat_snapshot(&g->c);
	if (o->dev_scalars) {
		g->alpha_dev = buf_alloc(4, BUF_RO);
		g->beta_dev = buf_alloc(4, BUF_RO);
		*g->alpha_dev = o->alpha;
		*g->beta_dev = o->beta;
	}
}

double sg_opa(const struct sg *g, unsigned b, unsigned i, unsigned l)
{
	return ref_bf16_to_f32(g->ta ? bf16_at(&g->a, b, l, i) : bf16_at(&g->a, b, i, l));
}

double sg_opb(const struct sg *g, unsigned b, unsigned l, unsigned j)
{
	return ref_bf16_to_f32(g->tb ? bf16_at(&g->b, b, j, l) : bf16_at(&g->b, b, l, j));
}

uint32_t sg_c_bits(const struct sg *g, const void *p)
{
	uint32_t v = 0;
	memcpy(&v, p, g->c.esz);
	return v;
}

double sg_c_decode(const struct sg *g, uint32_t v)
{
	return g->ctype == KERNEL_TYPE_F32 ? f32_of(v) : g->ctype == KERNEL_TYPE_BF16 ?
	       ref_bf16_to_f32((uint16_t)v) : ref_f16_to_f32((uint16_t)v);
}

void *sg_c_at(const struct sg *g, unsigned b, unsigned i, unsigned j)
{
	return g->ct ? mat_at(&g->c, b, j, i) : mat_at(&g->c, b, i, j);
}

const void *sg_c_before(const struct sg *g, unsigned b, unsigned i, unsigned j)
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
int sg_args(struct sg *g, struct sg_argv *a, int fused)
{
	/* In device pointer mode the host values are wrong on purpose: 3 would read C. */
	int n = 0;
	a->ha = g->alpha_dev ? 7.0f : g->alpha;
	a->hb = g->beta_dev ? 3.0f : g->beta;
	a->ap = g->alpha_dev ? dev(g->alpha_dev) : 0;
	a->bp = g->beta_dev ? dev(g->beta_dev) : 0;
	a->av = g->a.v;
	a->bv = g->b.v;
	a->cv = g->c.v;
	push_view(a->argv, &n, &a->av);
	a->argv[n++] = &g->ta;
	push_view(a->argv, &n, &a->bv);
	a->argv[n++] = &g->tb;
	a->argv[n++] = &g->m;
	a->argv[n++] = &g->n;
	a->argv[n++] = &g->k;
	push_view(a->argv, &n, &a->cv);
	if (!fused)
		a->argv[n++] = &g->ct;
	a->argv[n++] = &g->ctype;
	a->argv[n++] = &a->ha;
	a->argv[n++] = &a->hb;
	a->argv[n++] = &a->ap;
	a->argv[n++] = &a->bp;
	push_epi_extra(a->argv, &n, &g->x);
	if (fused)
		a->argv[n++] = &g->group_m;
	if (!fused) {
		a->argv[n++] = &g->kc;
		a->argv[n++] = &g->split_stride;
	}
	return n;
}

ptx_status sg_run(ptx_module *mod, struct sg *g, unsigned block, unsigned gx,
			 unsigned gy, unsigned shmem, ptx_launch_stats *st)
{
	struct sg_argv a;
	sg_args(g, &a, 0);
	const unsigned grid[3] = { gx, gy, g->batch }, blk[3] = { block, 1, 1 };
	return launch_shape(mod, KERNEL_GEMM_SMALL, grid, blk, shmem, a.argv, st);
}

unsigned sg_blocks(unsigned m, unsigned block)
{
	return (m + block - 1) / block;
}

/* The launch shape kernels.h documents. */
ptx_status sg_run_default(ptx_module *mod, struct sg *g, ptx_launch_stats *st)
{
	unsigned block = KERNEL_SMALL_BLOCK(g->n), gx = sg_blocks(g->m, block);
	return sg_run(mod, g, block, gx ? gx : 1, 1, KERNEL_SMALL_SHMEM(block), st);
}

/* ------------------------------------------------------------------ checking */
uint32_t sg_gen_int(void)
{
	return bits_of((float)((int)(rnd() % 17) - 8)) >> 16;
}

static uint32_t gen_bias(int type)
{
	float v = (float)((int)(rnd() % 2001) - 1000) / 64.0f;   /* exact in every type */
	return type == KERNEL_TYPE_F32 ? bits_of(v) : type == KERNEL_TYPE_BF16 ?
	       bits_of(v) >> 16 : ref_f16_rne(v);
}

void *sg_bias(struct sg *g, uint32_t btype, uint32_t along, unsigned stride, uint32_t act,
	      int with_bias)
{
	unsigned len = along ? g->n : g->m;
	size_t esz = btype == KERNEL_TYPE_F32 ? 4 : 2, count = len + stride;
	unsigned char *bias = buf_alloc(count * esz, BUF_RW);
	for (size_t e = 0; e < count; e++) {
		uint32_t v = gen_bias((int)btype);
		memcpy(bias + e * esz, &v, esz);
	}
	buf_access(bias, BUF_RO);
	g->x = (struct epi_extra){ with_bias ? dev(bias) : 0, btype, along, stride, act };
	return with_bias ? bias : NULL;
}

void sg_check_exact(const struct sg *g, const void *bias, const char *ctx)
{
	for (unsigned b = 0; b < g->batch; b++)
		for (unsigned j = 0; j < g->n; j++)
			for (unsigned i = 0; i < g->m; i++) {
				double s = 0;
				for (unsigned l = 0; l < g->k; l++)
					s += sg_opa(g, b, i, l) * sg_opb(g, b, l, j);
				float t = g->alpha * (float)s;
				if (g->beta != 0) {
					float cv = (float)sg_c_decode(
						g, sg_c_bits(g, sg_c_before(g, b, i, j)));
					t = fmaf(g->beta, cv, t);
				}
				if (bias)
					t = t + ref_load((int)g->x.bias_type, bias,
							 b * g->x.bias_bstride +
								 (g->x.bias_along ? j : i));
				char e[300];
				snprintf(e, sizeof e, "%s: b=%u i=%u j=%u", ctx, b, i, j);
				check_act((int)g->ctype, sg_c_bits(g, sg_c_at(g, b, i, j)), t,
					  g->x.act, e);
			}
	mat_check_outside(&g->c, ctx);
}

/* C(i, j) of item b.  The kernel's fp32 sum may be anything within k 2^-24 sum |p| of the
 * exact sum s, or +-Inf where s is past fp32's range (the data keeps clear of the border);
 * alpha t (+ beta C) then costs two fp32 roundings and one to ctype.  Returns the class of
 * the expected value. */
int sg_check_elem(const struct sg *g, unsigned b, unsigned i, unsigned j, const char *ctx)
{
	double s = 0, sa = 0;
	float chain = 0;
	for (unsigned l = 0; l < g->k; l++) {
		double p = sg_opa(g, b, i, l) * sg_opb(g, b, l, j);
		s += p;
		sa += fabs(p);
		chain = fmaf((float)sg_opa(g, b, i, l), (float)sg_opb(g, b, l, j), chain);
	}
	double t = isfinite(s) && isinf((float)s) ? copysign(INFINITY, s) : s;
	if (g->chain_order && !isfinite(chain))
		t = chain;
	double cv = g->beta != 0 ? sg_c_decode(g, sg_c_bits(g, sg_c_before(g, b, i, j))) : 0;
	double want = g->alpha * t + (g->beta != 0 ? g->beta * cv : 0);
	uint32_t bits = sg_c_bits(g, sg_c_at(g, b, i, j));
	double got = sg_c_decode(g, bits);
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
	double e = (g->k + g->bound_k_extra) * 0x1p-24 * sa, at = fabs(g->alpha) * (fabs(t) + e);
	double slack = fabs(g->alpha) * e + 0x1p-23 * (at + fabs(g->beta * cv)) + 0x1p-148;
	double lo = round_out((int)g->ctype, want - slack), hi = round_out((int)g->ctype, want + slack);
	CHECK(got >= lo && got <= hi, "%s: b=%u i=%u j=%u: got %a (0x%x), want %a in [%a, %a]", ctx,
	      b, i, j, got, bits, want, lo, hi);
	return OUT_FINITE;
}

/* Checks every output, and that nothing outside C's view changed; counts[] gets the
 * classes of the expected values. */
void sg_check_all(const struct sg *g, const char *ctx, unsigned counts[3])
{
	for (unsigned b = 0; b < g->batch; b++)
		for (unsigned j = 0; j < g->n; j++)
			for (unsigned i = 0; i < g->m; i++) {
				int cls = sg_check_elem(g, b, i, j, ctx);
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
 * != 0, and per block each pointer-array entry and device scalar once.  Returns the bytes
 * read over A + B + C (0 when m or k is 0). */
double sg_check_traffic(const struct sg *g, const ptx_launch_stats *st, unsigned block,
			const char *ctx)
{
	uint64_t bl = (uint64_t)g->batch * sg_blocks(g->m, block);
	uint64_t a = (uint64_t)g->batch * g->m * g->k * 2, b1 = (uint64_t)g->batch * g->k * g->n * 2;
	uint64_t c = (uint64_t)g->batch * g->m * g->n * g->c.esz, c_read = g->beta != 0 ? c : 0;
	uint64_t arr = bl * 8 * (g->a.use_array + g->b.use_array + g->c.use_array);
	uint64_t scal = g->alpha_dev ? bl * 8 : 0;
	struct buf_counts ca = mat_counts(&g->a), cb = mat_counts(&g->b), cc = mat_counts(&g->c);
	CHECK(ca.read == a, "%s: A: %llu bytes read, want each of %llu once", ctx,
	      (unsigned long long)ca.read, (unsigned long long)a);
	CHECK(cb.read == b1 * sg_blocks(g->m, block), "%s: B: %llu bytes read, want %llu", ctx,
	      (unsigned long long)cb.read, (unsigned long long)(b1 * sg_blocks(g->m, block)));
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
	/* The decode path's promise: within 10 % of a native GEMM's operand + result bytes,
	 * with the documented block size. */
	double ratio = g->m && g->k ? (double)st->global_bytes_read / (double)(a + b1 + c_read) : 0;
	if (g->k >= 64 && g->m && block == KERNEL_SMALL_BLOCK(g->n))
		CHECK(ratio <= 1.1, "%s: read %.4f x (A + B + C)", ctx, ratio);
	return ratio;
}

void sg_describe(char *ctx, size_t len, int sm, const struct sg *g)
{
	snprintf(ctx, len, "sm_%d m=%u n=%u k=%u batch=%u op=%c%c%s %s arrays=%d%d%d alpha=%g "
		 "beta=%g%s", sm, g->m, g->n, g->k, g->batch, g->ta ? 'T' : 'N', g->tb ? 'T' : 'N',
		 g->ct ? " C^T" : "", type_name[g->ctype], g->a.use_array, g->b.use_array,
		 g->c.use_array, g->alpha, g->beta, g->alpha_dev ? " (device)" : "");
}

/* Makes, runs with the documented shape and checks one case. */
void sg_run_case(ptx_module *mod, int sm, const struct sg_opts *o, unsigned counts[3])
{
	struct sg g;
	ptx_launch_stats st;
	char ctx[256];
	sg_make(&g, o);
	sg_describe(ctx, sizeof ctx, sm, &g);
	ptx_status s = sg_run_default(mod, &g, &st);
	CHECK(s == PTX_OK, "%s: launch failed", ctx);
	if (s == PTX_OK) {
		sg_check_all(&g, ctx, counts);
		sg_check_traffic(&g, &st, KERNEL_SMALL_BLOCK(g.n), ctx);
	}
	buf_free_all();
}
