/* bench_ptx.c: interpreter speed on the test kernels at the sizes the project's own kernels
 * use (about a million elements), in thread-instructions per second, with a ptx_mem that
 * maps a warp's whole access range at once (try_map) and, for saxpy, one that does not;
 * and on an mma-heavy loop (mma.m16n8k16, f16 in, f32 accumulation, on sm_80).
 *   usage: bench_ptx KERNELS_DIR */
#include <time.h>

#include "test_util.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int with_try_map = 1;

static void bench(const char *file, const char *kernel, unsigned grid, unsigned block,
		  unsigned shmem, void **params, tmem *t)
{
	ptx_module *m = load_kernel(file, 80, PTX_OK);
	if (!m)
		return;
	ptx_kernel *k = ptx_module_kernel(m, kernel);
	unsigned g[3] = { grid, 1, 1 }, b[3] = { block, 1, 1 };
	ptx_mem mem = tmem_iface(t, with_try_map);
	ptx_launch_stats st = { 0 };
	char err[512];
	double t0 = now();
	ptx_status s = ptx_launch(k, g, b, shmem, params, &mem, &st, err, sizeof(err));
	double dt = now() - t0;
	CHECK(s == PTX_OK, "%s: %s", kernel, err);
	printf("%-12s%s %4u x %4u threads: %10llu thread-instructions in %6.3f s = %6.1f M/s\n",
	       kernel, with_try_map ? "" : " (map per lane)", grid, block,
	       (unsigned long long)st.instructions, dt,
	       (double)st.instructions / dt / 1e6);
	ptx_module_free(m);
}

int main(int argc, char **argv)
{
	kernels_dir = argc > 1 ? argv[1] : ".";
	int n = 1 << 20;
	tmem t = { 0 };
	uint64_t x = tmem_alloc(&t, (size_t)n * 4), y = tmem_alloc(&t, (size_t)n * 4);
	uint64_t w = tmem_alloc(&t, 4096 * 4), h = tmem_alloc(&t, (size_t)n * 2);
	float *hx = tmem_host(&t, x);
	for (int i = 0; i < n; i++)
		hx[i] = rndf();
	float a = 2.0f, eps = 1e-5f, bias = 0.5f;
	void *saxpy[] = { &n, &a, &x, &y };
	with_try_map = 0;
	bench("elementwise.ptx", "saxpy", 1024, 256, 0, saxpy, &t);
	with_try_map = 1;
	bench("elementwise.ptx", "saxpy", 1024, 256, 0, saxpy, &t);
	int cols = 1024;
	void *rms[] = { &cols, &eps, &x, &w, &y };
	bench("rmsnorm.ptx", "rmsnorm", 1024, 256, 0, rms, &t);
	void *sm[] = { &cols, &x, &y };
	bench("softmax.ptx", "softmax_rows", 1024, 256, 1024, sm, &t);
	void *bf[] = { &n, &h, &a, &bias, &h, &y };
	bench("bf16.ptx", "bf16_affine", 4096, 256, 0, bf, &t);
	/* 256 warps, each 512 iterations of mma_loop: its registers come from random halves. */
	uint64_t regs = tmem_alloc(&t, 256 * 32 * 10 * 4), out = tmem_alloc(&t, 256 * 32 * 4 * 4);
	uint32_t *hr = tmem_host(&t, regs);
	for (int i = 0; i < 256 * 32 * 10; i++)
		hr[i] = (rnd32() & 0x3fff3fffu) | 0x30003000u;
	int iters = 512;
	void *mm[] = { &regs, &out, &iters };
	bench("mma.ptx", "mma_loop", 256, 32, 0, mm, &t);
	tmem_free(&t);
	return failures ? 1 : 0;
}
