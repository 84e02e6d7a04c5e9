/* Tests of the fp16 path's conversion, bf16shim_fp16_slices: every bf16 pattern in every
 * position relative to its vector's largest element, then views, batches, pointer arrays,
 * both vector layouts, vectors a block, staged and not, and two jobs in one launch, against a
 * C reference; and the traffic (each element read once when staged). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fp16.h"
#include "harness.h"
#include "kernels.h"
#include "ref.h"
#include "tests.h"

int word_scale(uint32_t w0)
{
	return ref_scale(w0 & 0x7fff);
}

/* f16 of x * 2^e if exact (NaN and Inf are), else -1. */
static int32_t exact_f16(uint16_t h, int e)
{
	double x = ref_bf16_to_f32(h), y = ldexp(x, e);
	if (isnan(x))
		return 0x7e00 | (h & 0x8000);
	if (isinf(x))
		return h & 0x8000 ? 0xfc00 : 0x7c00;
	if (fabs(y) >= 65520.0 || y != (float)y)
		return -1;
	uint16_t o = ref_f16_rne((float)y);
	return ref_f16_to_f32(o) == y ? o : -1;
}

void ref_slices(const uint16_t *x, unsigned k, uint16_t *s1, uint16_t *s2,
		struct slices_ref *r)
{
	uint32_t mx = 0, g1 = 0, g2 = 0;
	memset(r, 0, sizeof *r);
	for (unsigned l = 0; l < k; l++) {
		uint32_t a = ref_absmax_bits(x[l]);
		mx = a > mx ? a : mx;
		r->sum += fabs((double)ref_bf16_to_f32(x[l]));
	}
	int s = ref_scale(mx);
	for (unsigned l = 0; l < k; l++) {
		int32_t h1 = exact_f16(x[l], -s), h2 = h1 < 0 ? exact_f16(x[l], 33 - s) : -1;
		uint32_t a = x[l] & 0x7fff;
		s1[l] = h1 < 0 ? 0 : (uint16_t)h1;
		s2[l] = h2 < 0 ? 0 : (uint16_t)h2;
		if (h1 < 0)
			g1 = a > g1 ? a : g1;
		if (h1 < 0 && h2 < 0)
			g2 = a > g2 ? a : g2;
		r->has2 |= h1 < 0 && h2 >= 0;
	}
	r->w0 = mx | (uint32_t)r->has2 << 15 | g1 << 16;
	r->g2 = g2;
}

int s_ok(uint32_t w1, double sum)
{
	double s = ref_bf16_to_f32((uint16_t)(w1 >> 16));
	if (isnan(sum))
		return isnan(s);
	if (isinf(sum))
		return isinf(s) && s > 0;
	return s >= sum && (s <= sum * (1 + 1.0 / 64) || (sum > 3.3e38 && isinf(s)));
}

ptx_status run_slices(ptx_module *mod, struct sjob *jobs, int njobs, unsigned batch,
		      ptx_launch_stats *stats)
{
	void *argv[29];
	int n = 0;
	uint32_t blocks[2] = { 0, 0 }, blocks0;
	unsigned shmem = 0;
	for (int j = 0; j < 2; j++) {
		struct sjob *x = &jobs[j < njobs ? j : 0];
		push_view(argv, &n, &x->v);
		argv[n++] = &x->vecs;
		argv[n++] = &x->k;
		argv[n++] = &x->vec_rows;
		argv[n++] = &x->dst1;
		argv[n++] = &x->dst2;
		argv[n++] = &x->words;
		argv[n++] = &x->vpb;
		argv[n++] = &x->staged;
		if (j < njobs) {
			blocks[j] = (x->vecs + x->vpb - 1) / x->vpb;
			unsigned need = x->staged ? x->vpb * x->k * 2 : 0;
			shmem = need > shmem ? need : shmem;
		}
	}
	blocks0 = blocks[0];
	argv[n++] = &blocks0;
	unsigned grid[3] = { blocks[0] + blocks[1], 1, batch }, block[3] = { KERNEL_BLOCK, 1, 1 };
	return launch_shape(mod, KERNEL_FP16_SLICES, grid, block, shmem, argv, stats);
}

/* A job over the vectors of m (stored rows when vec_rows, else stored columns). */
static struct sjob job_over(const struct mat *m, int vec_rows, uint32_t vpb, uint32_t staged)
{
	struct sjob j = { .v = m->v, .vec_rows = (uint32_t)vec_rows, .vpb = vpb,
			  .staged = staged };
	j.vecs = vec_rows ? m->rows : m->cols;
	j.k = vec_rows ? m->cols : m->rows;
	size_t n = (size_t)m->batch * j.vecs;
	uint16_t *d1 = buf_alloc(n * j.k * 2 + 2, BUF_RW), *d2 = buf_alloc(n * j.k * 2 + 2, BUF_RW);
	uint32_t *w = buf_alloc(n * 8, BUF_WO);
	memset(w, 0xA5, n * 8);
	j.dst1 = dev(d1);
	j.dst2 = dev(d2);
	j.words = dev(w);
	return j;
}

static void *host(uint64_t p)
{
	return (void *)(uintptr_t)p;
}

/* Checks a job's slices and words against the reference; dst2 of a vector without a second
 * slice must keep its 0xA5 fill. */
static void check_job(const struct mat *m, const struct sjob *j, const char *ctx)
{
	uint16_t x[4096], s1[4096], s2[4096];
	const uint16_t *d1 = host(j->dst1), *d2 = host(j->dst2);
	const uint32_t *w = host(j->words);
	for (unsigned b = 0; b < m->batch; b++)
		for (unsigned v = 0; v < j->vecs; v++) {
			struct slices_ref r;
			size_t base = ((size_t)b * j->vecs + v) * j->k, wi = ((size_t)b * j->vecs + v) * 2;
			for (unsigned l = 0; l < j->k; l++)
				x[l] = j->vec_rows ? bf16_at(m, b, v, l) : bf16_at(m, b, l, v);
			ref_slices(x, j->k, s1, s2, &r);
			CHECK_BITS(w[wi], r.w0, "%s: b=%u vector %u w0", ctx, b, v);
			CHECK_BITS(w[wi + 1] & 0xffff, r.g2, "%s: b=%u vector %u g2", ctx, b, v);
			CHECK(s_ok(w[wi + 1], r.sum), "%s: b=%u vector %u S 0x%04x for %a", ctx, b, v,
			      w[wi + 1] >> 16, r.sum);
			for (unsigned l = 0; l < j->k; l++) {
				uint16_t g1 = d1[base + l], g2 = d2[base + l];
				if ((s1[l] & 0x7c00) == 0x7c00 && (s1[l] & 0x3ff))
					CHECK((g1 & 0x7fff) > 0x7c00, "%s: NaN lost", ctx);
				else
					CHECK_BITS(g1, s1[l], "%s: b=%u vector %u element %u x=0x%04x "
						   "slice 1", ctx, b, v, l, x[l]);
				CHECK_BITS(g2, r.has2 ? s2[l] : 0xA5A5, "%s: b=%u vector %u element %u "
					   "x=0x%04x slice 2", ctx, b, v, l, x[l]);
			}
		}
}

/* Every bf16 pattern x in a vector [x, y] whose largest finite element is |x| 2^d, d from 0
 * to 80 (so x falls in slice 1, slice 2 or neither), on each architecture. */
int test_slices_all_patterns(void)
{
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		struct mat src;
		mat_make(&src, 2, 65536, 1, 2, 0, 0, 0, 0, 0, BUF_RO);
		for (unsigned c = 0; c < 65536; c++) {
			uint16_t x = (uint16_t)c, y;
			uint32_t a = ref_absmax_bits(x), e = (rnd() % 81) << 7;
			y = (uint16_t)((a + e > 0x7f7f ? 0x7f7f : a ? a + e : rnd() % 0x7f80) |
				       (rnd() & 0x8000));
			memcpy(mat_at(&src, 0, 0, c), &x, 2);
			memcpy(mat_at(&src, 0, 1, c), &y, 2);
		}
		struct sjob j = job_over(&src, 0, 32, test_sms[i] != 61);
		char ctx[64];
		snprintf(ctx, sizeof ctx, "sm_%d staged=%u", test_sms[i], j.staged);
		CHECK(run_slices(mod, &j, 1, 1, NULL) == PTX_OK, "%s", ctx);
		check_job(&src, &j, ctx);
		buf_free_all();
		ptx_module_free(mod);
	}
	return fails;
}

/* Vectors mostly within 2^20 of each other, some with elements 2^30 to 2^80 below the rest
 * (slice 2 and neither), some zero, Inf and NaN. */
static uint32_t gen_ranged(void)
{
	uint32_t r = rnd();
	if (r % 64 == 0)
		return (uint32_t[]){ 0x7f80, 0xff80, 0x7fc1, 0x0000, 0x8000, 0x0003 }[rnd() % 6];
	if (r % 16 == 1)
		return (rnd() & 0x807f) | ((100 - 30 - rnd() % 50) << 7);
	return (r & 0x807f) | ((110 + rnd() % 20) << 7);
}

/* Views (offsets, padding, pointer arrays), batches, both layouts, every vpb, staged or not,
 * one or two jobs. */
int test_slices_views(void)
{
	static const unsigned ks[] = { 1, 7, 33, 300, 1100 }, vs[] = { 1, 5, 40, 70 };
	for (int i = 0; i < n_test_sms; i++) {
		ptx_module *mod = load_module(test_sms[i]);
		if (!mod)
			continue;
		for (unsigned n = 0; n < 40; n++) {
			unsigned k = ks[n % 5], vecs = vs[n / 5 % 4], batch = 1 + n % 3;
			int rows0 = n % 2, rows1 = n / 2 % 2, two = n % 3 != 0;
			uint32_t vpb = 1u << (n % 6), staged = (n / 3) % 2 && vpb * k * 2 <= 40960;
			struct mat a, b;
			mat_make(&a, rows0 ? vecs : k, rows0 ? k : vecs, batch, 2, n % 4 == 1, n % 3,
				 n % 2, n % 5, 3, BUF_RO);
			mat_make(&b, rows1 ? vecs + 3 : k, rows1 ? k : vecs + 3, batch, 2, n % 4 == 1,
				 1, n % 4, 2, 1, BUF_RO);
			mat_fill(&a, gen_ranged);
			mat_fill(&b, gen_ranged);
			struct sjob j[2] = { job_over(&a, rows0, vpb, staged),
					     job_over(&b, rows1, 32 >> (n % 6), !staged &&
						      (32u >> (n % 6)) * k * 2 <= 40960) };
			char ctx[160];
			snprintf(ctx, sizeof ctx, "sm_%d k=%u vecs=%u batch=%u rows=%d,%d vpb=%u "
				 "staged=%u jobs=%d", test_sms[i], k, vecs, batch, rows0, rows1, vpb,
				 staged, two ? 2 : 1);
			CHECK(run_slices(mod, j, two ? 2 : 1, batch, NULL) == PTX_OK, "%s", ctx);
			check_job(&a, &j[0], ctx);
			if (two)
				check_job(&b, &j[1], ctx);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}

/* Staged, each element is read once; unstaged twice (three times with a second slice).
 * Vectors with a second slice write it, the others do not. */
int test_slices_traffic(void)
{
	ptx_module *mod = load_module(75);
	if (!mod)
		return fails;
	for (int staged = 0; staged < 2; staged++)
		for (int rows = 0; rows < 2; rows++) {
			const unsigned k = 256, vecs = 64;
			struct mat a;
			mat_make(&a, rows ? vecs : k, rows ? k : vecs, 1, 2, 0, 0, 0, 0, 0, BUF_RO);
			mat_fill(&a, gen_ranged);
			for (unsigned v = 0; v < vecs; v++) /* every other vector within 2^20 */
				for (unsigned l = 0; l < k && v % 2; l++) {
					uint16_t h = (uint16_t)((rnd() & 0x807f) | ((120 + rnd() % 8) << 7));
					memcpy(rows ? mat_at(&a, 0, v, l) : mat_at(&a, 0, l, v), &h, 2);
				}
			struct sjob j = job_over(&a, rows, rows ? 32 : 4, (uint32_t)staged);
			ptx_launch_stats st = { 0 };
			CHECK(run_slices(mod, &j, 1, 1, &st) == PTX_OK, "staged=%d", staged);
			struct slices_ref r;
			uint16_t x[256], s1[256], s2[256];
			unsigned with2 = 0;
			for (unsigned v = 0; v < vecs; v++) {
				for (unsigned l = 0; l < k; l++)
					x[l] = rows ? bf16_at(&a, 0, v, l) : bf16_at(&a, 0, l, v);
				ref_slices(x, k, s1, s2, &r);
				with2 += (unsigned)r.has2;
			}
			CHECK(with2 > 4 && with2 <= vecs / 2, "vectors with slice 2: %u", with2);
			struct buf_counts c = mat_counts(&a);
			uint64_t once = 2ull * k * vecs, twice = 2ull * k * (2 * vecs + with2);
			CHECK(c.read == (staged ? once : twice), "staged=%d rows=%d: read %llu, want "
			      "%llu", staged, rows, (unsigned long long)c.read,
			      (unsigned long long)(staged ? once : twice));
			struct buf_counts d2 = buf_counts(host(j.dst2));
			CHECK(d2.written == 2ull * k * with2 && d2.read == 0, "slice 2 written %llu",
			      (unsigned long long)d2.written);
			CHECK(buf_counts(host(j.dst1)).written == once, "slice 1 written");
			CHECK(buf_counts(host(j.words)).written == 8ull * vecs, "words written");
			check_job(&a, &j, "traffic");
			buf_free_all();
		}
	ptx_module_free(mod);
	return fails;
}
