// CUTLASS's cute tutorial Sm80 HGEMM (examples/cute/tutorial/sgemm_sm80.cu of the
// nvidia-cutlass package, which nobody here wrote): its kernel and host set-up as they are
// (cp.async into swizzled shared memory, ldmatrix, mma.m16n8k16 with f16 accumulation, three
// stages), driven by a main of ours that checks D against an fp64 product:
//   exact   operands in {-1, -1/2, 0, 1/2, 1}: every partial sum is exact in f16, so D must
//           equal the product;
//   random  normal operands: within (K / 16 + 1) * 2^-10 * sum |a b| (an f16 rounding per
//           mma, f32 inside it).
// Built for compute_80 by build.sh, run on simulated sm_80 by run.sh.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#define main cute_tutorial_main
#include "cute/tutorial/sgemm_sm80.cu"
#undef main

static int check(int m, int n, int k, bool exact, unsigned seed)
{
	std::mt19937 rng(seed);
	std::normal_distribution<float> normal;
	std::vector<cute::half_t> a((size_t)m * k), b((size_t)n * k), c((size_t)m * n);
	for (auto &x : a)
		x = cute::half_t(exact ? (float)((int)(rng() % 5) - 2) / 2 : normal(rng));
	for (auto &x : b)
		x = cute::half_t(exact ? (float)((int)(rng() % 5) - 2) / 2 : normal(rng));
	cute::half_t *da, *db, *dc;
	cudaMalloc(&da, a.size() * 2);
	cudaMalloc(&db, b.size() * 2);
	cudaMalloc(&dc, c.size() * 2);
	cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice);
	cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice);
	cudaMemset(dc, 0, c.size() * 2);
	// TN: A is m x k and B n x k, both k-major; C is m x n, m-major.
	gemm('T', 'N', m, n, k, cute::half_t(1), da, k, db, k, cute::half_t(0), dc, m);
	cudaError_t err = cudaDeviceSynchronize();
	if (err != cudaSuccess) {
		std::printf("FAIL cute hgemm: %s\n", cudaGetErrorString(err));
		return 1;
	}
	cudaMemcpy(c.data(), dc, c.size() * 2, cudaMemcpyDeviceToHost);
	int bad = 0;
	double worst = 0;
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			double ref = 0, mag = 0;
			for (int q = 0; q < k; q++) {
				double p = (double)float(a[(size_t)i * k + q]) * (double)float(b[(size_t)j * k + q]);
				ref += p;
				mag += std::fabs(p);
			}
			double got = float(c[(size_t)j * m + i]), err = std::fabs(got - ref);
			double bound = exact ? 0 : (k / 16 + 1) * std::ldexp(mag, -10);
			if (bound > 0 && err / bound > worst)
				worst = err / bound;
			if (!(err <= bound) && bad++ < 5)
				std::printf("FAIL cute hgemm: D[%d][%d] = %.6g, want %.9g (bound %.3g)\n", i,
					    j, got, ref, bound);
		}
	std::printf("cute_hgemm %4d x %4d x %4d %-6s %s", m, n, k, exact ? "exact" : "random",
		    bad ? "FAIL\n" : "ok");
	if (!bad)
		std::printf(exact ? " (equal to the fp64 product)\n" : " (max error %.3f of the bound)\n",
			    worst);
	cudaFree(da);
	cudaFree(db);
	cudaFree(dc);
	return bad != 0;
}

int main()
{
	int fails = check(256, 128, 128, true, 7) + check(256, 128, 128, false, 8);
	return fails ? 1 : 0;
}
