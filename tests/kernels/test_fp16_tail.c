/* Tests of the fp16 path's tail on the tensor cores, bf16shim_fp16_tail (kernels.h): d gains
 * 2^-33 times the second slices' products where a row or a column has a second
 * slice, within the tensor cores' accumulation bound of the exact sum (the interpreter's
 * wmma cuts each block's sum as V100 and T4 do) and unchanged elsewhere, for tiles cut by
 * the edges, k not a multiple of 16 and two batch items; and its traffic: a tile without a
 * second slice reads its words and nothing else. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fp16.h"
#include "harness.h"
#include "kernels.h"
#include "ref.h"
#include "tests.h"

struct tail {
	unsigned m, n, k, batch;
	uint16_t *a1, *a2, *b1, *b2;     /* k a vector, vector after vector */
	uint32_t *rw, *cw;
	float *d, *before;               /* m x n a batch item, ld m */
};

static uint16_t gen_half(void)
{
	uint32_t r = rnd();
	return (uint16_t)((r & 0x83ff) | ((8 + (r >> 16) % 14) << 10));
}

static void make_tail(struct tail *t, unsigned m, unsigned n, unsigned k, unsigned batch,
		      unsigned flag_every)
{
	size_t na = (size_t)batch * m * k, nb = (size_t)batch * n * k, nd = (size_t)batch * m * n;
	memset(t, 0, sizeof *t);
	t->m = m;
	t->n = n;
	t->k = k;
	t->batch = batch;
	t->a1 = buf_alloc(2 * na, BUF_RO);
	t->a2 = buf_alloc(2 * na, BUF_RO);
	t->b1 = buf_alloc(2 * nb, BUF_RO);
	t->b2 = buf_alloc(2 * nb, BUF_RO);
	t->rw = buf_alloc(8ull * batch * m, BUF_RO);
	t->cw = buf_alloc(8ull * batch * n, BUF_RO);
	t->d = buf_alloc(4 * nd, BUF_RW);
	t->before = buf_alloc(4 * nd, BUF_NONE);
	for (size_t i = 0; i < na; i++) {
		t->a1[i] = gen_half();
		t->a2[i] = gen_half();
	}
	for (size_t i = 0; i < nb; i++) {
		t->b1[i] = gen_half();
		t->b2[i] = gen_half();
	}
	for (size_t i = 0; i < (size_t)batch * m; i++) {
		t->rw[2 * i] = (rnd() & 0x7fff7fff) | (flag_every && rnd() % flag_every == 0) << 15;
		t->rw[2 * i] &= ~(flag_every ? 0u : 0x8000u);
		t->rw[2 * i + 1] = rnd();
	}
	for (size_t i = 0; i < (size_t)batch * n; i++) {
		t->cw[2 * i] = (rnd() & 0x7fff7fff) | (flag_every && rnd() % (2 * flag_every) == 0) << 15;
		t->cw[2 * i + 1] = rnd();
	}
	for (size_t i = 0; i < nd; i++)
		t->d[i] = t->before[i] = (float)((int)(rnd() % 20001) - 10000) / 128.0f;
}

static ptx_status run_tail(ptx_module *tc, struct tail *t)
{
	uint64_t a1 = dev(t->a1), a2 = dev(t->a2), b1 = dev(t->b1), b2 = dev(t->b2);
	uint64_t abs = (uint64_t)t->m * t->k, bbs = (uint64_t)t->n * t->k, rw = dev(t->rw);
	uint64_t cw = dev(t->cw), d = dev(t->d), dbs = (uint64_t)t->m * t->n, ldd = t->m;
	void *argv[] = { &a1, &a2, &abs, &b1, &b2, &bbs, &rw, &t->m, &cw, &t->n, &t->m, &t->n,
			 &t->k, &d, &dbs, &ldd };
	return launch(tc, KERNEL_FP16_TAIL, (t->m + 63) / 64, (t->n + 63) / 64, t->batch, argv);
}

static float h(const uint16_t *p, size_t i)
{
	return ref_f16_to_f32(p[i]);
}

int test_fp16_tail(void)
{
	static const unsigned shapes[][3] = { { 64, 64, 16 }, { 70, 130, 37 }, { 1, 65, 1 },
					      { 129, 3, 48 } };
	ptx_module *tc = load_tc_module(75);
	if (!tc)
		return fails;
	for (unsigned s = 0; s < 8; s++) {
		struct tail t;
		make_tail(&t, shapes[s % 4][0], shapes[s % 4][1], shapes[s % 4][2], 1 + s / 4, 3);
		char ctx[64];
		snprintf(ctx, sizeof ctx, "m=%u n=%u k=%u batch=%u", t.m, t.n, t.k, t.batch);
		CHECK(run_tail(tc, &t) == PTX_OK, "%s", ctx);
		for (unsigned b = 0; b < t.batch; b++)
			for (unsigned j = 0; j < t.n; j++)
				for (unsigned i = 0; i < t.m; i++) {
					int rf = t.rw[2 * (b * t.m + i)] >> 15 & 1;
					int cf = t.cw[2 * (b * t.n + j)] >> 15 & 1;
					size_t di = (size_t)b * t.m * t.n + (size_t)j * t.m + i;
					size_t ai = ((size_t)b * t.m + i) * t.k, bi = ((size_t)b * t.n + j) * t.k;
					double acc = 0, mag = 0, want;
					for (unsigned l = 0; l < t.k && rf; l++) {
						double p = (double)h(t.a2, ai + l) * h(t.b1, bi + l);
						acc += p;
						mag += fabs(p);
					}
					for (unsigned l = 0; l < t.k && cf; l++) {
						double p = (double)h(t.a1, ai + l) * h(t.b2, bi + l);
						acc += p;
						mag += fabs(p);
					}
					want = t.before[di] + (rf || cf ? ldexp(acc, -33) : 0);
					/* The final add rounds once (half an ulp of the result); each
					 * block of the tensor cores' sum cuts below the 24th bit of
					 * its largest term, the accumulator included (2^-23 of at
					 * most mag, once per block of 4 and once per pass). */
					double ulp = ldexp(1, ilogb(fabs(want) > 0x1p-126 ? want : 0x1p-126) - 23);
					double bound = ulp / 2 + ldexp(mag, -33 - 23) * (2 * (t.k / 4 + 2));
					if (!(rf || cf))
						bound = 0;
					CHECK(fabs(t.d[di] - want) <= bound,
					      "%s: b=%u i=%u j=%u flags %d%d: got %a want %a (bound %a)", ctx,
					      b, i, j, rf, cf, t.d[di], want, bound);
				}
		buf_free_all();
	}
	ptx_module_free(tc);
	return fails;
}

/* No second slice anywhere: each block reads its rows' and columns' first words (4 bytes
 * each) and stops.  One flagged row: its slice 2 (for each column tile), B's slice 1 (all
 * columns of the tiles in its row of tiles) and its own outputs of d, nothing else. */
int test_fp16_tail_traffic(void)
{
	ptx_module *tc = load_tc_module(75);
	if (!tc)
		return fails;
	struct tail t;
	make_tail(&t, 100, 70, 40, 1, 0);
	CHECK(run_tail(tc, &t) == PTX_OK, "no flags");
	CHECK(buf_counts(t.rw).read == 4 * 100 * 2 && buf_counts(t.cw).read == 4 * 70 * 2,
	      "words read %llu, %llu", (unsigned long long)buf_counts(t.rw).read,
	      (unsigned long long)buf_counts(t.cw).read);
	CHECK(buf_counts(t.a1).read + buf_counts(t.a2).read + buf_counts(t.b1).read +
		      buf_counts(t.b2).read + buf_counts(t.d).read + buf_counts(t.d).written == 0,
	      "a tile without a second slice touched its operands");
	t.rw[2 * 70] |= 0x8000; /* row 70: tile row 1 */
	CHECK(run_tail(tc, &t) == PTX_OK, "one flagged row");
	/* The row's slice 2 once for each of the two column tiles. */
	CHECK(buf_counts(t.a2).read == 2 * 2 * 40 && buf_counts(t.a1).read == 0, "A read %llu",
	      (unsigned long long)buf_counts(t.a2).read);
	CHECK(buf_counts(t.b1).read == 2 * 40 * 70 && buf_counts(t.b2).read == 0, "B read %llu",
	      (unsigned long long)buf_counts(t.b1).read);
	CHECK(buf_counts(t.d).read == 4 * 70 && buf_counts(t.d).written == 4 * 70, "d %llu",
	      (unsigned long long)buf_counts(t.d).written);
	buf_free_all();
	ptx_module_free(tc);
	return fails;
}
