/* test_kernels.c: runs the nvcc-generated elementwise and reduction kernels of
 * tests/simcuda/kernels through the interpreter for several grid/block shapes (partial
 * warps, sizes that are multiples of nothing) and compares every output bit with a C
 * reference that computes what the .cu source says, in the same order.
 *   usage: test_ptx_kernels KERNELS_DIR */
#include <math.h>

#include "test_util.h"

static void test_saxpy(ptx_module *m)
{
	static const unsigned shapes[][3] = { { 1000, 4, 128 }, { 77, 1, 33 }, { 4097, 3, 96 },
					      { 31, 2, 7 }, { 5000, 40, 256 }, { 1, 1, 1 } };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		int n = (int)shapes[s][0];
		tmem t = { 0 };
		uint64_t x = tmem_alloc(&t, n * 4u), y = tmem_alloc(&t, n * 4u);
		float *hx = tmem_host(&t, x), *hy = tmem_host(&t, y), *ref = malloc(n * 4u);
		float a = 1.75f;
		for (int i = 0; i < n; i++) {
			hx[i] = rndf();
			hy[i] = rndf();
			ref[i] = a * hx[i] + hy[i];
		}
		void *p[] = { &n, &a, &x, &y };
		char err[512] = "";
		ptx_status st = run_kernel(m, "saxpy", shapes[s][1], shapes[s][2], 0, p, &t, err,
					   sizeof(err));
		CHECK(st == PTX_OK, "saxpy n=%d: %s %s", n, ptx_status_name(st), err);
		for (int i = 0, bad = 0; i < n && bad < 5; i++)
			if (fbits(hy[i]) != fbits(ref[i])) {
				bad++;
				CHECK(0, "saxpy n=%d y[%d] = %a, want %a", n, i, hy[i], ref[i]);
			}
		free(ref);
		tmem_free(&t);
	}
}

/* cvt.rni.s32.f32: round half to even, saturate, NaN -> 0. */
static int32_t ref_rni(float v)
{
	if (v != v)
		return 0;
	double r = nearbyint((double)v);
	return r >= 2147483647.0 ? 2147483647 : r <= -2147483648.0 ? (-2147483647 - 1) : (int32_t)r;
}

static void test_quantize(ptx_module *m)
{
	static const unsigned shapes[][3] = { { 1000, 2, 128 }, { 45, 1, 50 }, { 3001, 5, 64 } };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		int n = (int)shapes[s][0];
		tmem t = { 0 };
		uint64_t x = tmem_alloc(&t, n * 4u), q = tmem_alloc(&t, (size_t)n);
		uint64_t c = tmem_alloc(&t, n * 4u);
		float *hx = tmem_host(&t, x), *hc = tmem_host(&t, c);
		int8_t *hq = tmem_host(&t, q);
		static const uint32_t special[] = { 0x7fc00000, 0xff800001, 0x7f800000, 0xff800000,
						    0x80000000, 0x00000000, 0x3f000000, 0x3fc00000,
						    0x40200000, 0xbf000000, 0x00000001 };
		for (int i = 0; i < n; i++)
			hx[i] = i < 11 ? bitsf(special[i]) : rndf() / 8;
		float scale = 10.0f, lo = -2.5f, hi = 3.25f;
		void *p[] = { &n, &x, &scale, &q, &c, &lo, &hi };
		char err[512] = "";
		ptx_status st = run_kernel(m, "quantize", shapes[s][1], shapes[s][2], 0, p, &t, err,
					   sizeof(err));
		CHECK(st == PTX_OK, "quantize: %s %s", ptx_status_name(st), err);
		for (int i = 0, bad = 0; i < n && bad < 5; i++) {
			float v = hx[i];
			int32_t r = ref_rni(v * scale);
			r = r > 127 ? 127 : r < -127 ? -127 : r;
			float cl = v != v ? 0.0f : ref_fmin(ref_fmax(v, lo), hi);
			if (hq[i] != (int8_t)r || fbits(hc[i]) != fbits(cl)) {
				bad++;
				CHECK(0, "quantize x[%d]=%a: q %d want %d, clamped %a want %a", i, v,
				      hq[i], r, hc[i], cl);
			}
		}
		tmem_free(&t);
	}
}

static void test_mix64(ptx_module *m)
{
	static const unsigned shapes[][3] = { { 999, 3, 64 }, { 64, 1, 64 }, { 10, 4, 3 } };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		long long n = shapes[s][0];
		tmem t = { 0 };
		uint64_t x = tmem_alloc(&t, (size_t)n * 8), h = tmem_alloc(&t, (size_t)n * 4);
		uint64_t y = tmem_alloc(&t, (size_t)n * 8);
		double *hx = tmem_host(&t, x), *hy = tmem_host(&t, y);
		uint32_t *hh = tmem_host(&t, h);
		for (long long i = 0; i < n; i++)
			hx[i] = (double)rndf() * 1e3 * (i % 3 ? 1 : -1);
		void *p[] = { &n, &x, &h, &y };
		char err[512] = "";
		ptx_status st = run_kernel(m, "mix64", shapes[s][1], shapes[s][2], 0, p, &t, err,
					   sizeof(err));
		CHECK(st == PTX_OK, "mix64: %s %s", ptx_status_name(st), err);
		for (long long i = 0, bad = 0; i < n && bad < 5; i++) {
			uint32_t u = (uint32_t)i * 2654435761u;
			u ^= u >> 13;
			uint32_t wh = u + (hx[i] > 0.0);
			double wy = fma(hx[i], hx[i], (double)u);
			if (hh[i] != wh || memcmp(&hy[i], &wy, 8)) {
				bad++;
				CHECK(0, "mix64[%lld]: h %u want %u, y %a want %a", i, hh[i], wh, hy[i], wy);
			}
		}
		tmem_free(&t);
	}
}

/* Butterfly sum over 32 lanes as shfl.sync.bfly with full clamp computes it. */
static void ref_bfly(float v[32])
{
	for (int o = 16; o > 0; o >>= 1) {
		float n[32];
		for (int l = 0; l < 32; l++)
			n[l] = v[l] + v[l ^ o];
		memcpy(v, n, sizeof(n));
	}
}

static void ref_rmsnorm(int rows, int cols, int B, float eps, const float *x, const float *w,
			float *y)
{
	int nw = (B + 31) / 32;
	for (int r = 0; r < rows; r++) {
		const float *row = x + (size_t)r * cols;
		float partial[32];
		for (int wi = 0; wi < nw; wi++) {
			float v[32];
			for (int l = 0; l < 32; l++) {
				int t = wi * 32 + l;
				float acc = 0.0f;
				for (int j = t; j < cols; j += B)
					acc = fmaf(row[j], row[j], acc);
				v[l] = acc;
			}
			ref_bfly(v);
			partial[wi] = v[0];
		}
		float v[32];
		for (int l = 0; l < 32; l++)
			v[l] = l < nw ? partial[l] : 0.0f;
		ref_bfly(v);
		float s = 1.0f / sqrtf(v[0] / (float)cols + eps);
		for (int j = 0; j < cols; j++)
			y[(size_t)r * cols + j] = (row[j] * s) * w[j];
	}
}

static void test_rmsnorm(ptx_module *m)
{
	static const int shapes[][3] = { { 3, 1000, 256 }, { 2, 33, 32 }, { 4, 4097, 96 },
					 { 1, 1, 64 }, { 2, 2048, 1024 } };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		int rows = shapes[s][0], cols = shapes[s][1], B = shapes[s][2];
		size_t n = (size_t)rows * cols;
		tmem t = { 0 };
		uint64_t x = tmem_alloc(&t, n * 4), w = tmem_alloc(&t, (size_t)cols * 4);
		uint64_t y = tmem_alloc(&t, n * 4);
		float *hx = tmem_host(&t, x), *hw = tmem_host(&t, w), *hy = tmem_host(&t, y);
		float *ref = malloc(n * 4), eps = 1e-5f;
		for (size_t i = 0; i < n; i++)
			hx[i] = rndf();
		for (int j = 0; j < cols; j++)
			hw[j] = 0.5f + (float)(rnd32() % 1000) / 1000.0f;
		ref_rmsnorm(rows, cols, B, eps, hx, hw, ref);
		void *p[] = { &cols, &eps, &x, &w, &y };
		char err[512] = "";
		ptx_status st = run_kernel(m, "rmsnorm", (unsigned)rows, (unsigned)B, 0, p, &t, err,
					   sizeof(err));
		CHECK(st == PTX_OK, "rmsnorm %dx%d B=%d: %s %s", rows, cols, B, ptx_status_name(st),
		      err);
		for (size_t i = 0, bad = 0; i < n && bad < 5; i++)
			if (fbits(hy[i]) != fbits(ref[i])) {
				bad++;
				CHECK(0, "rmsnorm %dx%d B=%d y[%zu] = %a, want %a", rows, cols, B, i,
				      hy[i], ref[i]);
			}
		free(ref);
		tmem_free(&t);
	}
}

/* rowsum_dyn: tree in dynamic shared memory, then shfl down / idx / up. */
static void test_rowsum(ptx_module *m)
{
	static const int shapes[][3] = { { 3, 1000, 256 }, { 2, 31, 32 }, { 5, 777, 96 },
					 { 1, 5000, 1024 } };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		int rows = shapes[s][0], cols = shapes[s][1], B = shapes[s][2];
		size_t n = (size_t)rows * cols;
		tmem t = { 0 };
		uint64_t x = tmem_alloc(&t, n * 4), sums = tmem_alloc(&t, (size_t)rows * 4);
		uint64_t check = tmem_alloc(&t, (size_t)rows * 32 * 4);
		uint64_t lanes = tmem_alloc(&t, (size_t)rows * 32 * 4);
		int32_t *hx = tmem_host(&t, x), *hs = tmem_host(&t, sums), *hc = tmem_host(&t, check);
		int32_t *hl = tmem_host(&t, lanes);
		for (size_t i = 0; i < n; i++)
			hx[i] = (int32_t)rnd32();
		void *p[] = { &cols, &x, &sums, &check, &lanes };
		char err[512] = "";
		ptx_status st = run_kernel(m, "rowsum_dyn", (unsigned)rows, (unsigned)B,
					   (unsigned)B * 4, p, &t, err, sizeof(err));
		CHECK(st == PTX_OK, "rowsum: %s %s", ptx_status_name(st), err);
		int32_t *sd = malloc((size_t)B * 4);
		for (int r = 0; r < rows; r++) {
			for (int tt = 0; tt < B; tt++) {
				uint32_t acc = 0;
				for (int j = tt; j < cols; j += B)
					acc += (uint32_t)hx[(size_t)r * cols + j];
				sd[tt] = (int32_t)acc;
			}
			for (int st2 = B / 2; st2 >= 32; st2 >>= 1)
				for (int tt = 0; tt < st2; tt++)
					sd[tt] = (int32_t)((uint32_t)sd[tt] + (uint32_t)sd[tt + st2]);
			uint32_t v[32];
			for (int l = 0; l < 32; l++)
				v[l] = l < B ? (uint32_t)sd[l] : 0;
			for (int o = 16; o > 0; o >>= 1) {
				uint32_t nv[32];
				for (int l = 0; l < 32; l++)
					nv[l] = v[l] + (l + o <= 31 ? v[l + o] : v[l]);
				memcpy(v, nv, sizeof(v));
			}
			CHECK_EQ((uint32_t)hs[r], v[0]);
			for (int l = 0; l < 32; l++) {
				int up = l >= 3 ? l - 3 : l;
				int want = up * 1000 | (v[0] == v[l]);
				if (hc[r * 32 + l] != want || (uint32_t)hl[r * 32 + l] != v[l])
					CHECK(0, "rowsum lane %d of row %d: check %d want %d, v %d want %d",
					      l, r, hc[r * 32 + l], want, hl[r * 32 + l], (int32_t)v[l]);
			}
		}
		free(sd);
		tmem_free(&t);
	}
}

/* An access outside every allocation fails the launch with PTX_EFAULT naming it. */
static void test_fault(ptx_module *m)
{
	tmem t = { 0 };
	int n = 100;
	float a = 2.0f;
	uint64_t x = tmem_alloc(&t, 64 * 4), y = tmem_alloc(&t, n * 4);
	void *p[] = { &n, &a, &x, &y };
	char err[512] = "";
	ptx_status st = run_kernel(m, "saxpy", 1, 128, 0, p, &t, err, sizeof(err));
	CHECK(st == PTX_EFAULT, "got %s: %s", ptx_status_name(st), err);
	char want[64];
	snprintf(want, sizeof(want), "0x%llx", (unsigned long long)(x + 64 * 4));
	CHECK(strstr(err, "ld.global.f32") && strstr(err, "global load of 4 bytes") &&
	      strstr(err, want) && strstr(err, "thread (64,0,0)"), "message: %s", err);
	CHECK(t.faults > 0, "the map callback saw no fault");
	tmem_free(&t);
}

/* The same PTX with and without try_map gives the same results. */
static void test_no_try_map(ptx_module *m)
{
	tmem t = { 0 };
	int n = 300;
	float a = -3.0f;
	uint64_t x = tmem_alloc(&t, n * 4u), y = tmem_alloc(&t, n * 4u);
	float *hx = tmem_host(&t, x), *hy = tmem_host(&t, y);
	for (int i = 0; i < n; i++) {
		hx[i] = (float)i;
		hy[i] = 1.0f;
	}
	ptx_kernel *k = ptx_module_kernel(m, "saxpy");
	unsigned grid[3] = { 2, 1, 1 }, block[3] = { 64, 1, 1 };
	ptx_mem mem = tmem_iface(&t, 0);
	void *p[] = { &n, &a, &x, &y };
	ptx_launch_stats stats = { 0 };
	char err[256];
	ptx_status st = ptx_launch(k, grid, block, 0, p, &mem, &stats, err, sizeof(err));
	CHECK(st == PTX_OK, "%s", err);
	for (int i = 0; i < n; i++)
		CHECK(hy[i] == 1.0f - 3.0f * (float)i, "y[%d] = %g", i, hy[i]);
	CHECK_EQ(stats.global_bytes_read, (uint64_t)n * 8);
	CHECK_EQ(stats.global_bytes_written, (uint64_t)n * 4);
	CHECK(stats.instructions > (uint64_t)n * 10, "instructions %llu",
	      (unsigned long long)stats.instructions);
	tmem_free(&t);
}

int main(int argc, char **argv)
{
	kernels_dir = argc > 1 ? argv[1] : ".";
	ptx_module *m = load_kernel("elementwise.ptx", 80, PTX_OK);
	if (m) {
		test_saxpy(m);
		test_quantize(m);
		test_mix64(m);
		test_fault(m);
		test_no_try_map(m);
		ptx_module_free(m);
	}
	m = load_kernel("rmsnorm.ptx", 80, PTX_OK);
	if (m) {
		test_rmsnorm(m);
		test_rowsum(m);
		ptx_module_free(m);
	}
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	else
		printf("all elementwise and reduction kernel tests passed\n");
	return failures ? 1 : 0;
}
