/* test_kernels_more.c: the bf16, softmax/atomics, divergent and call kernels of
 * tests/simcuda/kernels, bit-exact against C references; the bf16 module is refused on
 * sm_75 with the instruction and line named.   usage: test_ptx_kernels_more KERNELS_DIR */
#include <math.h>

#include "test_util.h"

static float bf16f(uint16_t h)
{
	return bitsf((uint32_t)h << 16);
}

/* Inputs for f32 -> bf16: random, exact ties, NaNs, infinities, subnormals, extremes. */
static uint32_t bf16_input(int i)
{
	static const uint32_t special[] = {
		0x7fc00000, 0x7f800001, 0xffc00001, 0x7fbfffff, 0x7f800000, 0xff800000,
		0x00000001, 0x80000001, 0x007fffff, 0x00008000, 0x00018000, 0x00000000,
		0x80000000, 0x7f7fffff, 0xff7fffff, 0x7f7f8000, 0x3f808000, 0x3f818000,
		0x3f80ffff, 0xbf808000, 0x3f807fff, 0x00800000,
	};
	int ns = (int)(sizeof(special) / sizeof(special[0]));
	if (i < ns)
		return special[i];
	uint32_t r = rnd32();
	if (i % 4 == 0)
		r = (r & 0xffff0000u) | 0x8000u;   /* a tie */
	return r;
}

static void test_bf16_kernels(void)
{
	ptx_module *m = load_kernel("bf16.ptx", 80, PTX_OK);
	if (!m)
		return;
	static const unsigned shapes[][3] = { { 1000, 3, 128 }, { 65, 1, 40 }, { 3, 2, 2 } };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		int n = (int)shapes[s][0];
		tmem t = { 0 };
		uint64_t x = tmem_alloc(&t, n * 2u), y = tmem_alloc(&t, n * 2u);
		uint64_t yf = tmem_alloc(&t, n * 4u);
		uint16_t *hx = tmem_host(&t, x), *hy = tmem_host(&t, y);
		float *hyf = tmem_host(&t, yf);
		for (int i = 0; i < n; i++)
			hx[i] = (uint16_t)(bf16_input(i) >> 16);
		float scale = 0.3f, bias = -1.25f;
		void *p[] = { &n, &x, &scale, &bias, &y, &yf };
		char err[512] = "";
		ptx_status st = run_kernel(m, "bf16_affine", shapes[s][1], shapes[s][2], 0, p, &t,
					   err, sizeof(err));
		CHECK(st == PTX_OK, "bf16_affine: %s %s", ptx_status_name(st), err);
		for (int i = 0, bad = 0; i < n && bad < 5; i++) {
			float v = fmaf(bf16f(hx[i]), scale, bias);
			uint32_t wv = v != v ? 0x7fffffffu : fbits(v);
			uint16_t wy = ref_bf16_rn(fbits(v));
			if (hy[i] != wy || fbits(hyf[i]) != wv) {
				bad++;
				CHECK(0, "bf16_affine x=%04x: y %04x want %04x, yf %08x want %08x", hx[i],
				      hy[i], wy, fbits(hyf[i]), wv);
			}
		}
		tmem_free(&t);
	}
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		int n = (int)shapes[s][0] * 4;
		tmem t = { 0 };
		uint64_t x = tmem_alloc(&t, n * 4u), rn = tmem_alloc(&t, n * 2u);
		uint64_t rz = tmem_alloc(&t, n * 2u), pr = tmem_alloc(&t, n * 2u);
		uint32_t *hx = tmem_host(&t, x), *hp = tmem_host(&t, pr);
		uint16_t *hrn = tmem_host(&t, rn), *hrz = tmem_host(&t, rz);
		for (int i = 0; i < n; i++)
			hx[i] = bf16_input(i);
		void *p[] = { &n, &x, &rn, &rz, &pr };
		char err[512] = "";
		unsigned grid = ((unsigned)n + shapes[s][2] - 1) / shapes[s][2];   /* no stride */
		ptx_status st = run_kernel(m, "bf16_round", grid, shapes[s][2], 0, p, &t, err,
					   sizeof(err));
		CHECK(st == PTX_OK, "bf16_round: %s %s", ptx_status_name(st), err);
		for (int i = 0, bad = 0; i < n && bad < 8; i++) {
			uint16_t wn = ref_bf16_rn(hx[i]), wz = ref_bf16_rz(hx[i]);
			if (hrn[i] != wn || hrz[i] != wz) {
				bad++;
				CHECK(0, "bf16_round %08x: rn %04x want %04x, rz %04x want %04x", hx[i],
				      hrn[i], wn, hrz[i], wz);
			}
			if (i % 2 == 0 && i + 1 < n) {
				uint32_t wp = (uint32_t)ref_bf16_rn(hx[i + 1]) << 16 | ref_bf16_rn(hx[i]);
				if (hp[i / 2] != wp) {
					bad++;
					CHECK(0, "bf16_round pair %d: %08x want %08x", i / 2, hp[i / 2], wp);
				}
			}
		}
		tmem_free(&t);
	}
	ptx_module_free(m);
}

/* On an sm_75 device the bf16 module is refused.  As generated (.target sm_80) the
 * .target check fails first, as ptxas's does; compiled for .target sm_75 (what a JIT
 * targeting the device sees, e.g. Triton's output) the first bf16 instruction is named. */
static void test_bf16_refused(void)
{
	char *text = read_text(kernels_dir, "bf16.ptx", NULL);
	char err[2048];
	ptx_module *m = load_text(text, 75, PTX_ETARGET, err, sizeof(err));
	CHECK(m == NULL, "module loaded");
	CHECK(strstr(err, "SM version specified by .target is higher") != NULL, "%s", err);
	CHECK(strstr(err, "Feature '.bf16' requires .target sm_80 or higher") != NULL, "%s", err);

	char *t = strstr(text, ".target sm_80");
	CHECK(t != NULL, "no .target sm_80 in bf16.ptx");
	if (t)
		memcpy(t, ".target sm_75", 13);
	int line = 1;
	for (const char *p = text; p < strstr(text, "cvt.f32.bf16"); p++)
		line += *p == '\n';
	char want[160];
	snprintf(want, sizeof(want), "ptxas application ptx input, line %d; error   : Feature "
		 "'.bf16' requires .target sm_80 or higher", line);
	m = load_text(text, 75, PTX_EARCH, err, sizeof(err));
	CHECK(m == NULL, "module loaded");
	CHECK(strncmp(err, want, strlen(want)) == 0, "got: %s\nwant: %s", err, want);
	CHECK(strstr(err, "instruction 'cvt.f32.bf16'") != NULL, "instruction not named: %s", err);
	/* .target sm_75 still refuses bf16 on an sm_80 device: min(.target, device) counts */
	m = load_text(text, 80, PTX_EARCH, err, sizeof(err));
	CHECK(m == NULL, "module loaded");
	free(text);
}

static float ex2_of(float x, float m)
{
	return exp2f((x - m) * 1.44269502162933349609375f);
}

static void test_softmax(void)
{
	ptx_module *m = load_kernel("softmax.ptx", 80, PTX_OK);
	if (!m)
		return;
	static const int shapes[][3] = { { 3, 1000, 256 }, { 2, 7, 32 }, { 2, 300, 96 } };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		int rows = shapes[s][0], cols = shapes[s][1], B = shapes[s][2];
		size_t n = (size_t)rows * cols;
		tmem t = { 0 };
		uint64_t x = tmem_alloc(&t, n * 4), y = tmem_alloc(&t, n * 4);
		float *hx = tmem_host(&t, x), *hy = tmem_host(&t, y), *red = malloc((size_t)B * 4);
		for (size_t i = 0; i < n; i++)
			hx[i] = rndf() / 64;
		void *p[] = { &cols, &x, &y };
		char err[512] = "";
		ptx_status st = run_kernel(m, "softmax_rows", (unsigned)rows, (unsigned)B,
					   (unsigned)B * 4, p, &t, err, sizeof(err));
		CHECK(st == PTX_OK, "softmax: %s %s", ptx_status_name(st), err);
		for (int r = 0; r < rows; r++) {
			const float *row = hx + (size_t)r * cols;
			for (int tt = 0; tt < B; tt++) {
				red[tt] = -INFINITY;
				for (int j = tt; j < cols; j += B)
					red[tt] = ref_fmax(red[tt], row[j]);
			}
			for (int h = B / 2; h > 0; h >>= 1)
				for (int tt = 0; tt < h; tt++)
					red[tt] = ref_fmax(red[tt], red[tt + h]);
			float mx = red[0];
			for (int tt = 0; tt < B; tt++) {
				red[tt] = 0.0f;
				for (int j = tt; j < cols; j += B)
					red[tt] = red[tt] + ex2_of(row[j], mx);
			}
			for (int h = B / 2; h > 0; h >>= 1)
				for (int tt = 0; tt < h; tt++)
					red[tt] = red[tt] + red[tt + h];
			float inv = 1.0f / red[0];
			for (int j = 0, bad = 0; j < cols && bad < 5; j++) {
				float want = ex2_of(row[j], mx) * inv;
				if (fbits(hy[(size_t)r * cols + j]) != fbits(want)) {
					bad++;
					CHECK(0, "softmax B=%d [%d][%d] = %a, want %a", B, r, j,
					      hy[(size_t)r * cols + j], want);
				}
			}
		}
		free(red);
		tmem_free(&t);
	}
	ptx_module_free(m);
}

static void test_histogram(void)
{
	ptx_module *m = load_kernel("softmax.ptx", 80, PTX_OK);
	if (!m)
		return;
	static const unsigned shapes[][3] = { { 5000, 4, 128 }, { 100, 1, 50 }, { 777, 7, 33 } };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		int n = (int)shapes[s][0];
		tmem t = { 0 };
		uint64_t v = tmem_alloc(&t, n * 4u), hist = tmem_alloc(&t, 64 * 4);
		uint64_t mm = tmem_alloc(&t, 4 * 4), fs = tmem_alloc(&t, 4);
		uint64_t tot = tmem_alloc(&t, 8), wrap = tmem_alloc(&t, 4);
		uint32_t *hv = tmem_host(&t, v), *hh = tmem_host(&t, hist), *hw = tmem_host(&t, wrap);
		int32_t *hm = tmem_host(&t, mm);
		float *hf = tmem_host(&t, fs);
		uint64_t *ht = tmem_host(&t, tot);
		hm[0] = 0x7fffffff;
		hm[1] = (int32_t)0x80000000;
		uint32_t wh[64] = { 0 }, bits = 0, xr = 0, cnt = 0;
		int32_t mn = 0x7fffffff, mx = (int32_t)0x80000000;
		uint64_t total = 0;
		float fsum = 0;
		for (int i = 0; i < n; i++) {
			uint32_t x = rnd32();
			hv[i] = x;
			wh[x & 63]++;
			mn = (int32_t)x < mn ? (int32_t)x : mn;
			mx = (int32_t)x > mx ? (int32_t)x : mx;
			bits |= 1u << (x & 31);
			xr ^= x;
			total += x;
			fsum += (float)(x & 7);
			cnt = cnt >= 9 ? 0 : cnt + 1;
		}
		void *p[] = { &n, &v, &hist, &mm, &fs, &tot, &wrap };
		char err[512] = "";
		ptx_status st = run_kernel(m, "histogram", shapes[s][1], shapes[s][2], 0, p, &t, err,
					   sizeof(err));
		CHECK(st == PTX_OK, "histogram: %s %s", ptx_status_name(st), err);
		for (int b = 0; b < 64; b++)
			CHECK(hh[b] == wh[b], "hist[%d] = %u, want %u", b, hh[b], wh[b]);
		CHECK_EQ(hm[0], mn);
		CHECK_EQ(hm[1], mx);
		CHECK_EQ((uint32_t)hm[2], bits);
		CHECK_EQ((uint32_t)hm[3], xr);
		CHECK_EQ(fbits(*hf), fbits(fsum));
		CHECK_EQ(*ht, total);
		CHECK_EQ(*hw, cnt);
		tmem_free(&t);
	}
	ptx_module_free(m);
}

static void test_divergent(void)
{
	ptx_module *m = load_kernel("divergent.ptx", 80, PTX_OK);
	if (!m)
		return;
	static const unsigned shapes[][3] = { { 1000, 4, 256 }, { 70, 2, 48 }, { 33, 3, 32 },
					      { 5, 1, 64 } };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		int n = (int)shapes[s][0];
		unsigned G = shapes[s][1], B = shapes[s][2];
		unsigned nvotes = (G * B + 31) / 32 + G;
		tmem t = { 0 };
		uint64_t x = tmem_alloc(&t, n * 4u), out = tmem_alloc(&t, n * 4u);
		uint64_t votes = tmem_alloc(&t, nvotes * 4);
		int32_t *hx = tmem_host(&t, x), *ho = tmem_host(&t, out);
		uint32_t *hvo = tmem_host(&t, votes);
		int32_t *acc = calloc(G * B, 4);
		uint32_t *wv = calloc(nvotes, 4);
		for (int i = 0; i < n; i++)
			hx[i] = (int32_t)(rnd32() % 200) - 40;
		void *p[] = { &n, &x, &out, &votes };
		char err[512] = "";
		ptx_status st = run_kernel(m, "divergent", G, B, 0, p, &t, err, sizeof(err));
		CHECK(st == PTX_OK, "divergent G=%u B=%u: %s %s", G, B, ptx_status_name(st), err);
		for (unsigned b = 0; b < G; b++) {
			int cnt = 0;
			for (unsigned w0 = 0; w0 < B; w0 += 32) {
				unsigned lanes = B - w0 < 32 ? B - w0 : 32;
				uint32_t any = 0, sub = 0;
				int a[32], v[32];
				for (unsigned l = 0; l < lanes; l++) {
					int i = (int)(b * B + w0 + l);
					v[l] = i < n ? hx[i] : 0;
					a[l] = 0;
					for (int k = 0; k < (v[l] & 15); k++)
						a[l] = k & 1 ? a[l] + k * v[l] : v[l] & 16 ? a[l] - k
											    : a[l] ^ (k << 3);
					any |= (uint32_t)(a[l] > 0) << l;
				}
				for (unsigned l = 0; l < lanes; l++) {
					int i = (int)(b * B + w0 + l);
					if (i < n && (v[l] & 32))
						sub |= (uint32_t)((v[l] & 64) != 0) << l;
				}
				for (unsigned l = 0; l < lanes; l++) {
					int i = (int)(b * B + w0 + l);
					if (i < n && (v[l] & 32))
						a[l] += __builtin_popcount(sub);
					if (i < n) {
						acc[i] = a[l];
						if (l == 0)
							wv[i / 32] = any;
						cnt += a[l] & 1;
					}
				}
			}
			if ((int)(b * B) < n)
				wv[(G * B + 31) / 32 + b] += (uint32_t)cnt;
		}
		for (int i = 0; i < n; i++)
			CHECK(ho[i] == acc[i], "divergent out[%d] = %d, want %d", i, ho[i], acc[i]);
		for (unsigned i = 0; i < nvotes; i++)
			CHECK(hvo[i] == wv[i], "divergent votes[%u] = %08x, want %08x", i, hvo[i], wv[i]);
		free(acc);
		free(wv);
		tmem_free(&t);
	}
	ptx_module_free(m);
}

static void test_calls(void)
{
	ptx_module *m = load_kernel("calls.ptx", 80, PTX_OK);
	if (!m)
		return;
	static const unsigned shapes[][3] = { { 100, 2, 64 }, { 33, 1, 40 }, { 500, 4, 160 } };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		int n = (int)shapes[s][0];
		tmem t = { 0 };
		uint64_t x = tmem_alloc(&t, n * 4u), lo = tmem_alloc(&t, n * 4u);
		uint64_t hi = tmem_alloc(&t, n * 4u), pv = tmem_alloc(&t, n * 4u);
		uint64_t perm = tmem_alloc(&t, n * 4u);
		int32_t *hx = tmem_host(&t, x), *hlo = tmem_host(&t, lo), *hhi = tmem_host(&t, hi);
		int32_t *hperm = tmem_host(&t, perm);
		float *hpv = tmem_host(&t, pv);
		for (int i = 0; i < n; i++)
			hx[i] = (int32_t)rnd32();
		void *p[] = { &n, &x, &lo, &hi, &pv, &perm };
		char err[512] = "";
		ptx_status st = run_kernel(m, "calls", shapes[s][1], shapes[s][2], 0, p, &t, err,
					   sizeof(err));
		CHECK(st == PTX_OK, "calls: %s %s", ptx_status_name(st), err);
		static const float coef[4] = { 1.0f, 0.5f, 0.25f, 0.125f };
		for (int i = 0, bad = 0; i < n && bad < 5; i++) {
			int a = hx[i], b = hx[(i + 1) % n], c = hx[(i + 2) % n];
			int wlo = a < b ? (a < c ? a : c) : (b < c ? b : c);
			int whi = a > b ? (a > c ? a : c) : (b > c ? b : c);
			float xx = (float)(a & 255) * 0.01f, r = 0.0f;
			for (int k = (a & 3); k >= 0; k--)
				r = fmaf(r, xx, coef[k]);
			int tt[8], sum = 0;
			for (int k = 0; k < 8; k++)
				tt[k] = (k * 5 + a) & 7;
			for (int k = 0; k < 8; k++)
				sum = sum * 8 + tt[(k + b) & 7];
			if (hlo[i] != wlo || hhi[i] != whi || fbits(hpv[i]) != fbits(r) ||
			    hperm[i] != sum) {
				bad++;
				CHECK(0, "calls[%d]: lo %d/%d hi %d/%d poly %a/%a perm %d/%d", i, hlo[i],
				      wlo, hhi[i], whi, hpv[i], r, hperm[i], sum);
			}
		}
		tmem_free(&t);
	}
	ptx_module_free(m);
}

int main(int argc, char **argv)
{
	kernels_dir = argc > 1 ? argv[1] : ".";
	test_bf16_kernels();
	test_bf16_refused();
	test_softmax();
	test_histogram();
	test_divergent();
	test_calls();
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	else
		printf("all bf16, softmax, atomics, divergence and call kernel tests passed\n");
	return failures ? 1 : 0;
}
