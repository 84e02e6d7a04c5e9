// check_d.h: the check of the CUTLASS test programs (cutlass_gemm.cu, cutlass_sparse.cu):
// every element of D against the fp64 product c + sum a b, within K * 2^-23 * sum |a b|
// (fp32 accumulation), or equal to it for exact operands; prints one line per GEMM.
#ifndef CUTLASS_TEST_CHECK_D_H
#define CUTLASS_TEST_CHECK_D_H

#include <cmath>
#include <cstdio>

// a(i, k), b(k, j), c(i, j), d(i, j): the operands as doubles and D as the GPU left it.
// Returns the number of bad elements (the first five are printed).
template <typename A, typename B, typename C, typename D>
static int check_d(const char *name, int M, int N, int K, bool exact, A a, B b, C c, D d)
{
	int bad = 0;
	double worst = 0;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double ref = c(i, j), mag = std::fabs(ref);
			for (int k = 0; k < K; k++) {
				double p = a(i, k) * b(k, j);
				ref += p;
				mag += std::fabs(p);
			}
			double got = d(i, j), err = std::fabs(got - ref);
			double bound = exact ? 0 : K * std::ldexp(mag, -23);
			if (bound > 0 && err / bound > worst)
				worst = err / bound;
			if (!(err <= bound) && bad++ < 5)
				std::printf("FAIL %s: D[%d][%d] = %.9g, want %.12g (bound %.3g)\n", name, i, j,
					    got, ref, bound);
		}
	std::printf("%-12s %4d x %4d x %4d %-6s %s", name, M, N, K, exact ? "exact" : "random",
		    bad ? "FAIL\n" : "ok");
	if (!bad)
		std::printf(exact ? " (equal to the fp64 product)\n" : " (max error %.3f of the bound)\n",
			    worst);
	return bad;
}

#endif
