/* test_wmma.c: the wmma kernels of tests/simcuda/kernels (CUDA's nvcuda::wmma API built by
 * nvcc) on the devices that have them: every shape and multiplicand type, row- and
 * column-major operands with padded leading dimensions, global and shared memory, several
 * k-steps into one accumulator, f16 and f32 accumulators scaled element-wise in between.
 * D is compared element by element with the accumulation of README.md "Numerics" (the
 * fragment layout is the simulator's own, so the check is on memory only), and the
 * launches that must fail: a leading dimension that misaligns the rows, a partial warp.
 *   usage: test_ptx_wmma KERNELS_DIR */
#include "test_util.h"

static uint16_t f16_of(long double x)
{
	return ref16(x, 0, RN, 0);
}

static long double tf32_rna(float f)
{
	uint32_t u = fbits(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return NAN;
	if ((u & 0x7fffffffu) != 0x7f800000u)
		u = (u + 0x1000u) & ~0x1fffu;
	return bitsf(u);
}

/* ------------------------------------------------------------ f16 kernels */

typedef struct f16case {
	const char *kernel;
	int m, n, k, a_col, b_col, c_f16;
} f16case;

static const f16case f16cases[] = {
	{ "wmma_f16_16x16x16_rc_f32", 16, 16, 16, 0, 1, 0 },
	{ "wmma_f16_16x16x16_cr_f16", 16, 16, 16, 1, 0, 1 },
	{ "wmma_f16_32x8x16_rr_f32", 32, 8, 16, 0, 0, 0 },
	{ "wmma_f16_8x32x16_cc_f32", 8, 32, 16, 1, 1, 0 },
	{ "wmma_f16_8x32x16_rc_f16", 8, 32, 16, 0, 1, 1 },
};

static uint16_t rnd16(int special)
{
	uint32_t r = rnd32();
	if (special && r % 23 == 0) {
		static const uint16_t s[] = { 0x7e00, 0x7c00, 0xfc00, 0x7bff, 0x0001, 0x83ff };
		return s[(r >> 8) % 6];
	}
	return (uint16_t)((r & 0x8000) | (((r >> 16) % 10 + 10) << 10) | (r & 0x3ff));
}

static void run_f16(const f16case *c, int sm, int ksteps, int c_col, int special)
{
	char *text = read_text(kernels_dir, "wmma70.ptx", NULL);
	if (sm < 75) {
		char *t = strstr(text, ".target sm_75");
		if (t)
			t[12] = '0';
	}
	ptx_module *m = load_text(text, sm, PTX_OK, NULL, 0);
	free(text);
	if (!m)
		return;
	int M = c->m, N = c->n, K = c->k * ksteps;
	int lda = (c->a_col ? M : K) + 16, ldb = (c->b_col ? K : N) + 16;
	int ldc = (c_col ? M : N) + 8;
	size_t asz = (size_t)lda * (c->a_col ? K : M), bsz = (size_t)ldb * (c->b_col ? N : K);
	size_t csz = (size_t)ldc * (c_col ? N : M);
	int cb = c->c_f16 ? 2 : 4;
	tmem t = { 0 };
	uint64_t da = tmem_alloc(&t, asz * 2), db = tmem_alloc(&t, bsz * 2),
		 dc = tmem_alloc(&t, csz * cb), dd = tmem_alloc(&t, csz * cb);
	uint16_t *ha = tmem_host(&t, da), *hb = tmem_host(&t, db);
	for (size_t i = 0; i < asz; i++)
		ha[i] = rnd16(special);
	for (size_t i = 0; i < bsz; i++)
		hb[i] = rnd16(special);
	void *hc = tmem_host(&t, dc);
	for (size_t i = 0; i < csz; i++) {
		if (c->c_f16)
			((uint16_t *)hc)[i] = rnd16(special);
		else
			((float *)hc)[i] = (float)(int32_t)rnd32() / 65536.0f;
	}
	float scale = 0.5f;
	void *p[] = { &da, &lda, &db, &ldb, &dc, &dd, &ldc, &c_col, &ksteps, &scale };
	char err[512] = "";
	ptx_status st = run_kernel(m, c->kernel, 1, 32, 0, p, &t, err, sizeof(err));
	CHECK(st == PTX_OK, "%s on sm_%d: %s %s", c->kernel, sm, ptx_status_name(st), err);
	void *hd = tmem_host(&t, dd);
	int blk = sm >= 80 ? 8 : 4, bad = 0;
	for (int i = 0; i < M && st == PTX_OK; i++)
		for (int j = 0; j < N; j++) {
			size_t ci = c_col ? (size_t)j * ldc + i : (size_t)i * ldc + j;
			float acc;
			uint32_t want, got;
			if (c->c_f16)   /* __hmul by 0.5: exact but for subnormals, rounded */
				acc = (float)h2l(f16_of(h2l(((uint16_t *)hc)[ci], 0) * 0.5L), 0);
			else
				acc = ((float *)hc)[ci] * 0.5f;
			for (int s = 0; s < ksteps; s++) {
				long double pr[16];
				for (int k0 = 0; k0 < c->k; k0 += blk) {
					for (int q = 0; q < blk; q++) {
						int k = s * c->k + k0 + q;
						size_t ai = c->a_col ? (size_t)k * lda + i : (size_t)i * lda + k;
						size_t bi = c->b_col ? (size_t)j * ldb + k : (size_t)k * ldb + j;
						pr[q] = h2l(ha[ai], 0) * h2l(hb[bi], 0);
					}
					acc = ref_tc_block(acc, pr, blk);
				}
				if (c->c_f16)   /* each k-step's D is an f16 fragment */
					acc = (float)h2l(f16_of(acc), 0);
			}
			if (c->c_f16) {
				want = f16_of(acc);
				got = ((uint16_t *)hd)[ci];
			} else {
				want = acc != acc ? 0x7fffffffu : fbits(acc);
				got = fbits(((float *)hd)[ci]);
			}
			if (got != want && bad++ < 5)
				CHECK(0, "%s on sm_%d (%d k-steps, C %s): D[%d][%d] = 0x%x, want 0x%x",
				      c->kernel, sm, ksteps, c_col ? "col" : "row", i, j, got, want);
		}
	/* ldc that misaligns the rows of C, and a partial warp */
	int odd = ldc + 1;
	void *p2[] = { &da, &lda, &db, &ldb, &dc, &dd, &odd, &c_col, &ksteps, &scale };
	st = run_kernel(m, c->kernel, 1, 32, 0, p2, &t, err, sizeof(err));
	CHECK(st == PTX_EMISALIGNED && strstr(err, "misaligned address") &&
	      strstr(err, "-byte aligned (stride"), "%s with ldc %d: %s %s", c->kernel, odd,
	      ptx_status_name(st), err);
	st = run_kernel(m, c->kernel, 1, 24, 0, p, &t, err, sizeof(err));
	CHECK(st == PTX_ETRAP && strstr(err, "lanes 0xff000000 exited"), "%s on 24 threads: %s",
	      c->kernel, err);
	tmem_free(&t);
	ptx_module_free(m);
}

static void run_f16_shared(int sm)
{
	ptx_module *m = load_kernel("wmma70.ptx", sm, PTX_OK);
	if (!m)
		return;
	tmem t = { 0 };
	uint64_t da = tmem_alloc(&t, 512), db = tmem_alloc(&t, 512), dc = tmem_alloc(&t, 1024),
		 dd = tmem_alloc(&t, 1024);
	uint16_t *ha = tmem_host(&t, da), *hb = tmem_host(&t, db);
	float *hc = tmem_host(&t, dc), *hd = tmem_host(&t, dd);
	for (int i = 0; i < 256; i++) {
		ha[i] = rnd16(0);
		hb[i] = rnd16(0);
		hc[i] = (float)(int32_t)rnd32() / 65536.0f;
	}
	void *p[] = { &da, &db, &dc, &dd };
	char err[512] = "";
	ptx_status st = run_kernel(m, "wmma_f16_shared", 1, 32, 0, p, &t, err, sizeof(err));
	CHECK(st == PTX_OK, "wmma_f16_shared: %s %s", ptx_status_name(st), err);
	int blk = sm >= 80 ? 8 : 4;
	for (int i = 0; i < 16 && st == PTX_OK; i++)
		for (int j = 0; j < 16; j++) {
			float acc = hc[i * 16 + j];
			for (int k0 = 0; k0 < 16; k0 += blk) {
				long double pr[8];
				for (int q = 0; q < blk; q++)
					pr[q] = h2l(ha[i * 16 + k0 + q], 0) * h2l(hb[(k0 + q) * 16 + j], 0);
				acc = ref_tc_block(acc, pr, blk);
			}
			CHECK(fbits(hd[i * 16 + j]) == fbits(acc), "shared D[%d][%d] = %g, want %g", i,
			      j, hd[i * 16 + j], acc);
		}
	tmem_free(&t);
	ptx_module_free(m);
}

/* ---------------------------------------------- the types of compute_80 */

enum { BF16, TF32, S8, U8, F64, U4, B1 };

typedef struct tcase {
	const char *kernel;
	int m, n, k, type;
} tcase;

static const tcase tcases[] = {
	{ "wmma_bf16_16x16x16", 16, 16, 16, BF16 }, { "wmma_bf16_32x8x16", 32, 8, 16, BF16 },
	{ "wmma_bf16_8x32x16", 8, 32, 16, BF16 }, { "wmma_tf32_16x16x8", 16, 16, 8, TF32 },
	{ "wmma_s8_16x16x16", 16, 16, 16, S8 }, { "wmma_u8_8x32x16", 8, 32, 16, U8 },
	{ "wmma_f64_8x8x4", 8, 8, 4, F64 }, { "wmma_u4_8x8x32", 8, 8, 32, U4 },
	{ "wmma_b1_8x8x128_xor", 8, 8, 128, B1 },
};

static int elem_bits(int t)
{
	switch (t) {
	case BF16: return 16;
	case TF32: return 32;
	case S8: case U8: return 8;
	case F64: return 64;
	case U4: return 4;
	default: return 1;
	}
}

static uint64_t get_bits(const uint8_t *p, size_t idx, int bits)
{
	if (bits < 8)
		return (p[idx * (size_t)bits / 8] >> (idx * (size_t)bits % 8)) & ((1u << bits) - 1);
	uint64_t v = 0;
	memcpy(&v, p + idx * (size_t)bits / 8, (size_t)bits / 8);
	return v;
}

static long double elem_value(uint64_t v, int t)
{
	switch (t) {
	case BF16: return h2l((uint32_t)v, 1);
	case TF32: return tf32_rna(bitsf((uint32_t)v));
	case S8: return (int8_t)v;
	case F64: {
		double d;
		memcpy(&d, &v, 8);
		return d;
	}
	default: return (long double)v;
	}
}

static void run_typed(const tcase *c, int sm)
{
	ptx_module *m = load_kernel("wmma.ptx", sm, PTX_OK);
	if (!m)
		return;
	int M = c->m, N = c->n, K = c->k, bits = elem_bits(c->type);
	int lda = K + 256 / bits, ldb = K + 256 / bits, ldc = N + 8;   /* padded, aligned */
	size_t ab = (size_t)lda * M * bits / 8, bb = (size_t)ldb * N * bits / 8;
	int cw = c->type == F64 ? 8 : 4;
	tmem t = { 0 };
	uint64_t da = tmem_alloc(&t, ab), db = tmem_alloc(&t, bb),
		 dc = tmem_alloc(&t, (size_t)ldc * M * cw), dd = tmem_alloc(&t, (size_t)ldc * M * cw);
	uint8_t *ha = tmem_host(&t, da), *hb = tmem_host(&t, db), *hc = tmem_host(&t, dc);
	for (size_t i = 0; i < ab; i++)
		ha[i] = (uint8_t)rnd32();
	for (size_t i = 0; i < bb; i++)
		hb[i] = (uint8_t)rnd32();
	if (c->type == BF16 || c->type == TF32 || c->type == F64) {   /* finite, moderate */
		for (size_t i = 0; i < ab * 8 / (size_t)bits; i++) {
			uint64_t v = c->type == F64 ? (uint64_t)fbits(0) : 0;
			double d = (double)(int32_t)rnd32() / 4096;
			if (c->type == F64)
				memcpy(&v, &d, 8);
			else
				v = c->type == BF16 ? (fbits((float)d) >> 16) : fbits((float)d);
			memcpy(ha + i * (size_t)bits / 8, &v, (size_t)bits / 8);
			d = (double)(int32_t)rnd32() / 65536;
			if (c->type == F64)
				memcpy(&v, &d, 8);
			else
				v = c->type == BF16 ? (fbits((float)d) >> 16) : fbits((float)d);
			if (i < bb * 8 / (size_t)bits)
				memcpy(hb + i * (size_t)bits / 8, &v, (size_t)bits / 8);
		}
		for (int i = 0; i < ldc * M; i++) {
			double d = (double)(int32_t)rnd32() / 256;
			if (c->type == F64)
				memcpy(hc + (size_t)i * 8, &d, 8);
			else {
				float f = (float)d;
				memcpy(hc + (size_t)i * 4, &f, 4);
			}
		}
	} else {
		for (int i = 0; i < ldc * M; i++) {
			int32_t v = (int32_t)rnd32() >> 4;
			memcpy(hc + (size_t)i * 4, &v, 4);
		}
	}
	void *p[] = { &da, &lda, &db, &ldb, &dc, &dd, &ldc };
	char err[512] = "";
	ptx_status st = run_kernel(m, c->kernel, 1, 32, 0, p, &t, err, sizeof(err));
	CHECK(st == PTX_OK, "%s on sm_%d: %s %s", c->kernel, sm, ptx_status_name(st), err);
	const uint8_t *hd = tmem_host(&t, dd);
	int blk = c->type == TF32 ? 4 : 8, bad = 0;
	for (int i = 0; i < M && st == PTX_OK; i++)
		for (int j = 0; j < N; j++) {
			size_t ci = (size_t)i * ldc + j;
			uint64_t want, got = get_bits(hd, ci, cw * 8);
			if (c->type == F64) {
				double acc;
				memcpy(&acc, hc + ci * 8, 8);
				for (int k = 0; k < K; k++)
					acc = fma((double)elem_value(get_bits(ha, (size_t)i * lda + k, 64), F64),
						  (double)elem_value(get_bits(hb, (size_t)j * ldb + k, 64), F64), acc);
				memcpy(&want, &acc, 8);
			} else if (c->type == BF16 || c->type == TF32) {
				float acc;
				memcpy(&acc, hc + ci * 4, 4);
				for (int k0 = 0; k0 < K; k0 += blk) {
					long double pr[8];
					for (int q = 0; q < blk; q++)
						pr[q] = elem_value(get_bits(ha, (size_t)i * lda + k0 + q, bits), c->type) *
							elem_value(get_bits(hb, (size_t)j * ldb + k0 + q, bits), c->type);
					acc = ref_tc_block(acc, pr, blk);
				}
				want = fbits(acc);
			} else {
				int32_t c0;
				memcpy(&c0, hc + ci * 4, 4);
				long long acc = c0;
				for (int k = 0; k < K; k++) {
					long long x = (long long)elem_value(get_bits(ha, (size_t)i * lda + k, bits), c->type);
					long long y = (long long)elem_value(get_bits(hb, (size_t)j * ldb + k, bits), c->type);
					acc += c->type == B1 ? (x ^ y) : x * y;
				}
				want = (uint32_t)acc;
			}
			if (got != want && bad++ < 5)
				CHECK(0, "%s on sm_%d: D[%d][%d] = 0x%llx, want 0x%llx", c->kernel, sm, i, j,
				      (unsigned long long)got, (unsigned long long)want);
		}
	tmem_free(&t);
	ptx_module_free(m);
}

int main(int argc, char **argv)
{
	kernels_dir = argc > 1 ? argv[1] : ".";
	static const int f16_sms[] = { 70, 75, 80, 90 }, sms[] = { 80, 86, 90 };
	for (size_t c = 0; c < sizeof(f16cases) / sizeof(f16cases[0]); c++)
		for (size_t s = 0; s < sizeof(f16_sms) / sizeof(f16_sms[0]); s++)
			for (int ks = 1; ks <= 3; ks += 2) {
				run_f16(&f16cases[c], f16_sms[s], ks, 0, 0);
				run_f16(&f16cases[c], f16_sms[s], ks, 1, 1);
			}
	for (size_t s = 0; s < sizeof(f16_sms) / sizeof(f16_sms[0]); s++)
		if (f16_sms[s] >= 75)
			run_f16_shared(f16_sms[s]);
	for (size_t c = 0; c < sizeof(tcases) / sizeof(tcases[0]); c++)
		for (size_t s = 0; s < sizeof(sms) / sizeof(sms[0]); s++)
			run_typed(&tcases[c], sms[s]);
	/* Types newer than the device are refused the way ptxas refuses them. */
	char err[1024] = "";
	char *text = read_text(kernels_dir, "wmma.ptx", NULL);
	char *tg = strstr(text, ".target sm_80");
	if (tg)
		tg[11] = '7', tg[12] = '5';
	ptx_module *m = load_text(text, 75, PTX_EARCH, err, sizeof(err));
	CHECK(strstr(err, "requires .target sm_80 or higher") != NULL, "wmma.ptx on sm_75: %s", err);
	ptx_module_free(m);
	free(text);
	if (!failures)
		printf("all wmma tests passed\n");
	return failures ? 1 : 0;
}
