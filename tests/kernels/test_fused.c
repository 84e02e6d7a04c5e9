/* Tests of the fused path's kernels (kernels.h, "fused path"): every output against an fp64
 * reference under the accuracy contract ((k + 2) 2^-24 sum |a b| before the rounding to C's
 * type, NaN and infinities where an fp32 fma chain in k order has them), for shapes cut by
 * the tiles' edges, every transpose, views with offsets and odd leading dimensions, strided and
 * pointer-array batches, alpha and beta in both pointer modes, the three C types, bias and
 * activation; operands whose range needs the second slices or the recompute (softmax rows,
 * GELU outputs, a huge column, values near the bf16 extremes, vectors that grow along k,
 * NaN and infinities); and what a launch moves and issues. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "kernels.h"
#include "ref.h"
#include "small_gemm.h"
#include "tests.h"

/* One fused kernel: its module, its name, its tile, whether it runs on the tensor cores. */
struct fused_kernel {
	const char *name;
	int sm;
	unsigned tile_m, tile_n;
	ptx_module *(*load)(int sm);
	int tensor_cores;
};

static const struct fused_kernel tc75 = { KERNEL_FUSED_TC75, 75, KERNEL_FUSED_TC_M,
					  KERNEL_FUSED_TC_N, load_tc75_module, 1 };
static const struct fused_kernel tc70 = { KERNEL_FUSED_TC70, 70, KERNEL_FUSED_TC_M,
					  KERNEL_FUSED_TC_N, load_tc70_module, 1 };
static const struct fused_kernel cuda_fma = { KERNEL_FUSED_FMA, 61, KERNEL_FUSED_FMA_M,
					 KERNEL_FUSED_FMA_N, load_module, 0 };

static uint32_t mix(uint32_t q)
{
	return (q * 2654435761u) >> 7;
}

static unsigned blocks_of(unsigned x, unsigned tile)
{
	unsigned b = sg_blocks(x, tile);
	return b ? b : 1;
}

static ptx_status fused_run(ptx_module *mod, const struct fused_kernel *fk, struct sg *g,
			    ptx_launch_stats *st)
{
	struct sg_argv a;
	const unsigned grid[3] = { blocks_of(g->m, fk->tile_m), blocks_of(g->n, fk->tile_n),
				   g->batch };
	const unsigned blk[3] = { KERNEL_FUSED_THREADS, 1, 1 };

	sg_args(g, &a, 1);
	return launch_shape(mod, fk->name, grid, blk, 0, a.argv, st);
}

/* Makes, runs and checks one case against fp64; fill, when set, rewrites the operands. */
static void fused_case(ptx_module *mod, const struct fused_kernel *fk, const struct sg_opts *o,
		       void (*fill)(struct sg *g, uint32_t q), uint32_t q, unsigned counts[3])
{
	struct sg g;
	ptx_launch_stats st = { 0 };
	char ctx[256];
	sg_make(&g, o);
	g.bound_k_extra = 2;
	g.chain_order = 1;
	g.group_m = q % 3;         /* the launch order: all rows of tiles at once, 1, 2 */
	if (fill)
		fill(&g, q);
	sg_describe(ctx, sizeof ctx, fk->sm, &g);
	ptx_status s = fused_run(mod, fk, &g, &st);
	CHECK(s == PTX_OK, "%s: launch failed", ctx);
	if (s == PTX_OK)
		sg_check_all(&g, ctx, counts);
	buf_free_all();
}

/* Shapes around the tiles' edges; transposes, alignments, pointer arrays, scalars, C's
 * type, alpha, beta and batch vary with a hash of the case. */
static int shapes(const struct fused_kernel *fk)
{
	static const unsigned ms[] = { 1, 37, 128, 161 }, ns[] = { 1, 9, 256, 260 };
	static const unsigned ks[] = { 0, 1, 31, 64, 97 };
	static const float alphas[] = { 1.0f, -0.75f, 2.5f }, betas[] = { 0.5f, -1.25f };
	ptx_module *mod = fk->load(fk->sm);
	if (!mod)
		return 1;
	for (uint32_t q = 0; q < 80; q++) {
		uint32_t h = mix(q);
		struct sg_opts o = {
			.m = ms[q % 4], .n = ns[q / 4 % 4], .k = ks[q / 16],
			.ta = h & 1, .tb = h >> 1 & 1, .ctype = (h >> 3) % 3,
			.arr_a = h >> 5 & 1, .arr_b = h >> 6 & 1, .arr_c = h >> 7 & 1,
			.dev_scalars = h >> 8 & 1, .aclass = (h >> 9) % 3, .bclass = (h >> 17) % 3,
			.alpha = alphas[(h >> 11) % 3],
			.beta = (h >> 13) % 4 == 0 ? 0.0f : betas[h >> 15 & 1],
			.batch = 1 + (h >> 16) % 2,
		};
		fused_case(mod, fk, &o, NULL, q, NULL);
	}
	ptx_module_free(mod);
	return fails;
}

/* Integer data: every product and partial sum is exact, in fp32 and on the tensor cores
 * alike, so every output is the exact value rounded once to C's type, bit for bit; with
 * a bias (of each type, along rows or columns, per batch item or shared) and each
 * activation (GELU within its 4-ulp contract). */
static int exact(const struct fused_kernel *fk)
{
	ptx_module *mod = fk->load(fk->sm);
	if (!mod)
		return 1;
	for (uint32_t q = 0; q < 24; q++) {
		struct sg g;
		ptx_launch_stats st = { 0 };
		char ctx[256];
		struct sg_opts o = {
			.m = q % 2 ? 150 : 9, .n = q % 3 ? 270 : 40, .k = q % 4 ? 130 : 0,
			.batch = 2, .ta = q & 1, .tb = q >> 1 & 1, .ctype = q % 3,
			.arr_a = q % 5 == 0, .aclass = q % 3, .bclass = q / 3 % 3,
			.alpha = q % 4 ? 1.0f : -2.0f, .beta = q % 3 == 1 ? 0.0f : 0.5f,
			.agen = sg_gen_int, .bgen = sg_gen_int,
		};
		uint32_t btype = q / 3 % 3, along = q / 9 % 2, act = q / 2 % 3;
		sg_make(&g, &o);
		void *bias = sg_bias(&g, btype, along, q % 5 < 2 ? 0 : (along ? g.n : g.m) + 3, act,
				     q % 7 != 6);
		sg_describe(ctx, sizeof ctx, fk->sm, &g);
		snprintf(ctx + strlen(ctx), sizeof ctx - strlen(ctx), " bias %u along %u act %u",
			 bias ? btype : 9, along, act);
		CHECK(fused_run(mod, fk, &g, &st) == PTX_OK, "%s", ctx);
		sg_check_exact(&g, bias, ctx);
		buf_free_all();
	}
	ptx_module_free(mod);
	return fails;
}

/* NaN and +-Inf among moderate values (and zeros, so Inf * 0 happens): outputs NaN or Inf
 * exactly where the fp64 reference has them. */
static uint32_t gen_special_rate;

static uint32_t gen_specials(void)
{
	static const uint32_t sp[] = { 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x7f81 };
	if (rnd() % gen_special_rate == 0)
		return sp[rnd() % 5];
	return sg_gen_moderate();
}

static int specials(const struct fused_kernel *fk)
{
	unsigned counts[3] = { 0 };
	ptx_module *mod = fk->load(fk->sm);
	if (!mod)
		return 1;
	for (uint32_t q = 0; q < 8; q++) {
		struct sg_opts o = {
			.m = q % 2 ? 140 : 33, .n = q % 4 < 2 ? 20 : 130, .k = (unsigned[]){ 64, 97 }[q % 2],
			.batch = 1, .ta = q & 1, .tb = q >> 1 & 1, .ctype = q % 3,
			.aclass = q % 3, .bclass = (q + 1) % 3, .alpha = 1.5f,
			.beta = q % 5 == 0 ? 0.0f : -0.5f, .agen = gen_specials, .bgen = gen_specials,
		};
		gen_special_rate = 3 * o.k;
		fused_case(mod, fk, &o, NULL, q, counts);
	}
	ptx_module_free(mod);
	CHECK(counts[OUT_NAN] > 100 && counts[OUT_INF] > 100 && counts[OUT_FINITE] > 100,
	      "the data must give NaN, Inf and finite outputs: %u, %u, %u", counts[OUT_NAN],
	      counts[OUT_INF], counts[OUT_FINITE]);
	return fails;
}

/* Ranges fp16 cannot hold at once: rows of op(A) all near the bf16 maximum, or with one
 * element near it among ordinary ones, or all near the smallest normal and subnormal;
 * one column of op(B) a million times the others; B of ordinary size. */
static uint16_t *opa_at(struct sg *g, unsigned b, unsigned i, unsigned l)
{
	return g->ta ? mat_at(&g->a, b, l, i) : mat_at(&g->a, b, i, l);
}

static uint16_t *opb_at(struct sg *g, unsigned b, unsigned l, unsigned j)
{
	return g->tb ? mat_at(&g->b, b, j, l) : mat_at(&g->b, b, l, j);
}

static void fill_extremes(struct sg *g, uint32_t q)
{
	(void)q;
	for (unsigned b = 0; b < g->batch; b++) {
		for (unsigned i = 0; i < g->m; i++)
			for (unsigned l = 0; l < g->k; l++) {
				uint16_t *p = opa_at(g, b, i, l), r = (uint16_t)rnd();
				switch (i % 6) {
				case 1: *p = 0x7f00 | (r & 0x807f); break;         /* near the max */
				case 2: if (l == i % g->k) *p = 0x7f00 | (r & 0x7f); break;
				case 3: *p = (uint16_t)(0x0080 | (r & 0x807f)); break; /* min normal */
				case 4: *p = (uint16_t)(r & 0x807f); break;        /* subnormal */
				case 5: *p = (uint16_t)(((r >> 8) % 200 + 20) << 7 | (r & 0x807f));
					break;                                     /* every binade */
				}
			}
		for (unsigned l = 0; l < g->k; l++) {
			uint16_t *p = opb_at(g, b, l, g->n / 2);
			*p = (uint16_t)(*p + (20 << 7));                           /* 2^20 times */
		}
	}
}

static int extremes(const struct fused_kernel *fk)
{
	unsigned counts[3] = { 0 };
	ptx_module *mod = fk->load(fk->sm);
	if (!mod)
		return 1;
	for (uint32_t q = 0; q < 8; q++) {
		struct sg_opts o = {
			.m = 60, .n = q % 2 ? 20 : 140, .k = (unsigned[]){ 1, 70, 130 }[q % 3],
			.batch = 1, .ta = q & 1, .tb = q >> 1 & 1, .ctype = q % 3, .aclass = q % 3,
			.bclass = q % 2, .alpha = q % 2 ? 0.5f : 1.0f, .beta = q % 4 ? 0.0f : 1.0f,
		};
		fused_case(mod, fk, &o, fill_extremes, q, counts);
	}
	ptx_module_free(mod);
	CHECK(counts[OUT_INF] > 100 && counts[OUT_FINITE] > 100,
	      "the data must give Inf and finite outputs: %u, %u", counts[OUT_INF],
	      counts[OUT_FINITE]);
	return fails;
}

/* Attention and activation operands: softmax rows of logits with std 2 to 16 (some causal,
 * exact zeros past a point; some peaked, one logit 60 above the rest; some uniform) as op(A)'s
 * rows or op(B)'s columns against N(0, 1) values, in some rows and columns huge exactly where
 * the softmax is tiny; GELU outputs of N(0, s^2) against N(0, 0.02^2) weights. */
static double gauss(void)
{
	double u = (rnd() % 65535 + 1) / 65536.0, v = (rnd() % 65536 + 0.5) / 65536.0;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static uint32_t gen_normal(void)
{
	return ref_bf16_rne((float)gauss());
}

static void softmax(uint16_t *(*at)(struct sg *, unsigned, unsigned, unsigned), struct sg *g,
		    unsigned v, unsigned kind)
{
	double logit[1024], mx = -1e300, sum = 0, std = 2 << (kind % 4);
	unsigned k = g->k, valid = kind / 4 % 3 == 1 ? 1 + v % k : k;
	for (unsigned l = 0; l < k; l++) {
		logit[l] = std * gauss();
		if (kind / 4 % 3 == 2 && l == v % k)
			logit[l] += 60;
		if (kind / 12 % 2 && v % 4 == 0)
			logit[l] = 0.5;
		if (l < valid && logit[l] > mx)
			mx = logit[l];
	}
	for (unsigned l = 0; l < valid; l++)
		sum += exp(logit[l] - mx);
	for (unsigned l = 0; l < k; l++)
		*at(g, 0, v, l) = l < valid ? ref_bf16_rne((float)(exp(logit[l] - mx) / sum)) : 0;
}

static uint16_t *opa_vec(struct sg *g, unsigned b, unsigned i, unsigned l)
{
	return opa_at(g, b, i, l);
}

static uint16_t *opb_vec(struct sg *g, unsigned b, unsigned j, unsigned l)
{
	return opb_at(g, b, l, j);
}

static void fill_attention(struct sg *g, uint32_t q)
{
	int soft_b = q % 2;
	unsigned nv = soft_b ? g->n : g->m, other = soft_b ? g->m : g->n;
	for (unsigned v = 0; v < nv; v++)
		softmax(soft_b ? opb_vec : opa_vec, g, v, v * 7 + q);
	/* V huge exactly where P is tiny, in a few of the other operand's vectors. */
	for (unsigned w = 0; w < other; w += 5)
		for (unsigned l = 0; l < g->k; l++) {
			uint16_t *p = soft_b ? opa_at(g, 0, w, l) : opb_at(g, 0, l, w);
			uint16_t *s = soft_b ? opb_at(g, 0, l, w % g->n) : opa_at(g, 0, w % g->m, l);
			if (*s && (*s & 0x7fff) < 0x2000)                  /* below 2^-63 */
				*p = ref_bf16_rne((float)(1e30 * gauss()));
		}
}

static void fill_gelu(struct sg *g, uint32_t q)
{
	double s = q % 2 ? 3 : 10;
	for (unsigned i = 0; i < g->m; i++)
		for (unsigned l = 0; l < g->k; l++)
			*opa_at(g, 0, i, l) = ref_bf16_rne((float)(0.02 * gauss()));
	for (unsigned l = 0; l < g->k; l++)
		for (unsigned j = 0; j < g->n; j++) {
			double x = s * gauss();
			*opb_at(g, 0, l, j) = ref_bf16_rne((float)(0.5 * x * (1 + erf(x / sqrt(2)))));
		}
}

static int attention(const struct fused_kernel *fk)
{
	ptx_module *mod = fk->load(fk->sm);
	if (!mod)
		return 1;
	for (uint32_t q = 0; q < 12; q++) {
		struct sg_opts o = {
			.m = q % 3 ? 64 : 140, .n = q % 3 ? 150 : 64, .k = q % 2 ? 200 : 97,
			.batch = 1, .ta = q / 2 % 2, .tb = q / 4 % 2, .ctype = q % 3 ? 1 : 0,
			.aclass = q % 3, .bclass = (q + 2) % 3, .alpha = 1.0f, .beta = 0.0f,
			.agen = gen_normal, .bgen = gen_normal,
		};
		fused_case(mod, fk, &o, q < 10 ? fill_attention : fill_gelu, q, NULL);
	}
	ptx_module_free(mod);
	return fails;
}

/* Vectors that grow along k: their capacity rises chunk after chunk (by a few binades,
 * and once by 2^60), so their accumulators shrink on the way; against fp64. */
static void fill_growing(struct sg *g, uint32_t q)
{
	for (unsigned i = 0; i < g->m; i++)
		for (unsigned l = 0; l < g->k; l++) {
			uint16_t *p = opa_at(g, 0, i, l);
			unsigned step = i % 3 == 0 ? l / 8 : i % 3 == 1 ? (l >= g->k / 2) * 60 : 0;
			*p = (uint16_t)((*p & 0x807f) | ((120 + step + q % 4) << 7));
		}
	for (unsigned l = 0; l < g->k; l++)
		for (unsigned j = 0; j < g->n; j += 3) {
			uint16_t *p = opb_at(g, 0, l, j);
			*p = (uint16_t)((*p & 0x807f) | ((110 + l / 16) << 7));
		}
}

static int growth(const struct fused_kernel *fk)
{
	ptx_module *mod = fk->load(fk->sm);
	if (!mod)
		return 1;
	for (uint32_t q = 0; q < 8; q++) {
		struct sg_opts o = {
			.m = 70, .n = 130, .k = 200, .batch = 1, .ta = q & 1, .tb = q >> 1 & 1,
			.ctype = q % 3, .aclass = q % 3, .bclass = q % 2, .alpha = 1.0f,
			.beta = 0.0f,
		};
		fused_case(mod, fk, &o, fill_growing, q, NULL);
	}
	ptx_module_free(mod);
	return fails;
}

int test_fused_tc75_shapes(void) { return shapes(&tc75); }
int test_fused_tc75_exact(void) { return exact(&tc75); }
int test_fused_tc75_specials(void) { return specials(&tc75); }
int test_fused_tc75_extremes(void) { return extremes(&tc75); }
int test_fused_tc75_attention(void) { return attention(&tc75); }
int test_fused_tc75_growth(void) { return growth(&tc75); }
int test_fused_tc70_shapes(void) { return shapes(&tc70); }
int test_fused_tc70_exact(void) { return exact(&tc70); }
int test_fused_tc70_specials(void) { return specials(&tc70); }
int test_fused_tc70_extremes(void) { return extremes(&tc70); }
int test_fused_tc70_attention(void) { return attention(&tc70); }
int test_fused_tc70_growth(void) { return growth(&tc70); }
int test_fused_fma_shapes(void) { return shapes(&cuda_fma); }
int test_fused_fma_exact(void) { return exact(&cuda_fma); }
int test_fused_fma_specials(void) { return specials(&cuda_fma); }
int test_fused_fma_extremes(void) { return extremes(&cuda_fma); }
int test_fused_fma_attention(void) { return attention(&cuda_fma); }

/* What one launch moves and issues on random operands, along k (nn.Linear's layout) and
 * across, aligned: op(A) once per column block, op(B) once per row block, C written once
 * (read once with beta); on the tensor cores the mma, one per 1024 multiply-adds of every
 * tile, and the warp instructions per mma; on the CUDA cores no mma, and the warp
 * instructions per 32 multiply-adds (the budgets: bench/traffic.sh checks them at
 * 1024^3). */
static int traffic(const struct fused_kernel *fk, double most)
{
	ptx_module *mod = fk->load(fk->sm);
	if (!mod)
		return 1;
	for (uint32_t q = 0; q < 4; q++) {
		struct sg g;
		ptx_launch_stats st = { 0 };
		char ctx[256];
		struct sg_opts o = {
			.m = 256, .n = 512, .k = 512, .batch = 1, .ta = q % 2 == 0, .tb = q % 2,
			.ctype = q / 2 ? KERNEL_TYPE_BF16 : KERNEL_TYPE_F32, .aclass = 0, .bclass = 1,
			.alpha = 1.0f, .beta = q == 3 ? 0.5f : 0.0f, .agen = gen_normal,
			.bgen = gen_normal,
		};
		sg_make(&g, &o);
		sg_describe(ctx, sizeof ctx, fk->sm, &g);
		CHECK(fused_run(mod, fk, &g, &st) == PTX_OK, "%s", ctx);
		uint64_t bx = blocks_of(g.m, fk->tile_m), by = blocks_of(g.n, fk->tile_n);
		uint64_t a = (uint64_t)g.m * g.k * 2 * by, b = (uint64_t)g.k * g.n * 2 * bx;
		uint64_t c = (uint64_t)g.m * g.n * g.c.esz, c_read = g.beta != 0 ? c : 0;
		struct buf_counts ca = mat_counts(&g.a), cb = mat_counts(&g.b), cc = mat_counts(&g.c);
		CHECK(ca.read == a && cb.read == b, "%s: A %llu, B %llu bytes read; want %llu, %llu",
		      ctx, (unsigned long long)ca.read, (unsigned long long)cb.read,
		      (unsigned long long)a, (unsigned long long)b);
		CHECK(cc.read == c_read && cc.written == c, "%s: C %llu read, %llu written; want "
		      "%llu, %llu", ctx, (unsigned long long)cc.read, (unsigned long long)cc.written,
		      (unsigned long long)c_read, (unsigned long long)c);
		CHECK(st.global_bytes_written == c, "%s: %llu bytes written, want %llu", ctx,
		      (unsigned long long)st.global_bytes_written, (unsigned long long)c);
		/* The budget holds for nn.Linear's form (op(A) and op(B) along k, beta 0). */
		int linear = !g.tb && g.beta == 0;
		if (fk->tensor_cores) {
			double per_mma = (double)st.warp_instructions / (double)st.mma_instructions;
			printf("%s: %.2f warp instructions an mma (%llu mma)\n", ctx, per_mma,
			       (unsigned long long)st.mma_instructions);
			CHECK(st.mma_instructions == (uint64_t)bx * by * 8 * 128 * (g.k / 32) &&
			      (!linear || per_mma <= most),
			      "%s: %llu mma, %.2f instructions each (at most %.1f)", ctx,
			      (unsigned long long)st.mma_instructions, per_mma, most);
		} else {
			double per = (double)st.warp_instructions * 32 /
				     ((double)g.m * (double)g.n * (double)g.k);
			printf("%s: %.3f warp instructions per 32 multiply-adds\n", ctx, per);
			CHECK(st.mma_instructions == 0 && (!linear || per <= most),
			      "%s: %llu mma, %.3f instructions per 32 multiply-adds (at most %.2f)",
			      ctx, (unsigned long long)st.mma_instructions, per, most);
		}
		buf_free_all();
	}
	ptx_module_free(mod);
	return fails;
}

int test_fused_tc75_traffic(void) { return traffic(&tc75, 6.0); }
int test_fused_tc70_traffic(void) { return traffic(&tc70, 8.0); }
int test_fused_fma_traffic(void) { return traffic(&cuda_fma, 1.3); }
