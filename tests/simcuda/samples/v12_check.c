/* The .12 build of the simulated stack, as a program built for CUDA 12 reaches it: dlopen of
 * the .12 sonames, symbols under the libcublas.so.12 / libcudart.so.12 version nodes, version
 * queries that say 12.x, and the bf16 GEMM verdict of the device (Pascal users run cuBLAS 12,
 * doc/facts.md "CUDA versions").  Run with LD_LIBRARY_PATH=<build>/tests/simcuda/v12. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <library_types.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

#define EXPECT(cond, ...)                                                                \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "FAILED %s: ", #cond);                           \
			fprintf(stderr, __VA_ARGS__);                                    \
			fputc('\n', stderr);                                             \
			failures++;                                                      \
		}                                                                        \
	} while (0)

static void *open_lib(const char *soname)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen %s: %s\n", soname, dlerror());
		exit(1);
	}
	return h;
}

/* The symbol under its version node, as a binary linked against the real .12 library
 * asks for it; exits when missing (nothing below can run without it). */
static void *sym(void *lib, const char *name, const char *node)
{
	void *p = dlvsym(lib, name, node);
	if (!p) {
		fprintf(stderr, "no %s@%s\n", name, node);
		exit(1);
	}
	return p;
}

#define RT(name) ((__typeof__(name) *)sym(rt, #name, "libcudart.so.12"))
#define BLAS(name) ((__typeof__(name) *)sym(blas, #name, "libcublas.so.12"))

int main(void)
{
	enum { M = 8, N = 6, K = 10 };
	void *rt = open_lib("libcudart.so.12"), *blas = open_lib("libcublas.so.12");
	int major = -1, rtv = 0, blasv = 0, ccmaj = 0, ccmin = 0, sm;
	float a[M * K], b[K * N], c[M * N];
	const float alpha = 1, beta = 0;
	uint16_t bf[M * K] = {0};
	void *dA, *dB, *dC;
	cublasHandle_t h;
	cublasStatus_t st;

	EXPECT(dlopen("libcublasLt.so.12", RTLD_NOW | RTLD_NOLOAD) != NULL,
	       "libcublas.so.12 did not bring in libcublasLt.so.12");
	EXPECT(dlopen("libcublas.so.13", RTLD_NOW | RTLD_NOLOAD) == NULL &&
		       dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD) == NULL,
	       "a .13 library was loaded by the .12 stack");
	EXPECT(dlvsym(blas, "cublasGemmEx", "libcublas.so.13") == NULL,
	       "cublasGemmEx exported under libcublas.so.13 by the .12 library");

	BLAS(cublasGetProperty)(MAJOR_VERSION, &major);
	RT(cudaRuntimeGetVersion)(&rtv);
	printf("libcublas.so.12: cublasGetProperty(MAJOR_VERSION) = %d; "
	       "libcudart.so.12: cudaRuntimeGetVersion = %d\n", major, rtv);
	EXPECT(major == 12, "cuBLAS major version %d, want 12", major);
	EXPECT(rtv >= 12000 && rtv < 13000, "runtime version %d, want 12xxx", rtv);

	RT(cudaDeviceGetAttribute)(&ccmaj, cudaDevAttrComputeCapabilityMajor, 0);
	RT(cudaDeviceGetAttribute)(&ccmin, cudaDevAttrComputeCapabilityMinor, 0);
	sm = ccmaj * 10 + ccmin;
	if (BLAS(cublasCreate_v2)(&h) != CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "cublasCreate_v2 failed\n");
		return 1;
	}
	BLAS(cublasGetVersion_v2)(h, &blasv);
	printf("device sm_%d; cublasGetVersion = %d\n", sm, blasv);
	EXPECT(blasv / 10000 == 12, "cublasGetVersion %d, want 12xxxx", blasv);

	for (int i = 0; i < M * K; i++)
		a[i] = (float)((i * 7) % 11) - 5;
	for (int i = 0; i < K * N; i++)
		b[i] = (float)((i * 5) % 9) - 4;
	RT(cudaMalloc)(&dA, sizeof a);
	RT(cudaMalloc)(&dB, sizeof b);
	RT(cudaMalloc)(&dC, sizeof c);
	RT(cudaMemcpy)(dA, a, sizeof a, cudaMemcpyHostToDevice);
	RT(cudaMemcpy)(dB, b, sizeof b, cudaMemcpyHostToDevice);
	st = BLAS(cublasGemmEx)(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, dA, CUDA_R_32F, M, dB,
				CUDA_R_32F, K, &beta, dC, CUDA_R_32F, M, CUBLAS_COMPUTE_32F,
				CUBLAS_GEMM_DEFAULT);
	RT(cudaMemcpy)(c, dC, sizeof c, cudaMemcpyDeviceToHost);
	EXPECT(st == CUBLAS_STATUS_SUCCESS, "fp32 GemmEx status %d", (int)st);
	for (int j = 0; j < N; j++)
		for (int i = 0; i < M; i++) {
			double want = 0;
			for (int p = 0; p < K; p++)
				want += (double)a[i + p * M] * b[p + j * K];
			/* Small integers: the fp32 result is exact. */
			if (c[i + j * M] != want) {
				EXPECT(0, "C[%d,%d] = %g, want %g", i, j, c[i + j * M], want);
				i = M, j = N;
			}
		}

	/* bf16 through the .12 library: runs below sm_70 too, as cuBLAS 12 does on a P40 or an
	 * M40, unless SIMCUDA_BF16_BELOW_SM70=refuse asks for cuBLAS 11.5's NOT_SUPPORTED
	 * (doc/facts.md, "bf16 GEMMs on Maxwell and Pascal"). */
	const char *world = getenv("SIMCUDA_BF16_BELOW_SM70");
	int refused = sm < 70 && world && !strcmp(world, "refuse");
	RT(cudaMemcpy)(dA, bf, sizeof bf, cudaMemcpyHostToDevice);
	st = BLAS(cublasGemmEx)(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, dA, CUDA_R_16BF, M,
				dA, CUDA_R_16BF, K, &beta, dC, CUDA_R_32F, M,
				(cublasComputeType_t)CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
	printf("bf16 cublasGemmEx on sm_%d: status %d\n", sm, (int)st);
	EXPECT(st == (refused ? CUBLAS_STATUS_NOT_SUPPORTED : CUBLAS_STATUS_SUCCESS),
	       "bf16 GemmEx status %d on sm_%d", (int)st, sm);

	BLAS(cublasDestroy_v2)(h);
	RT(cudaFree)(dA);
	RT(cudaFree)(dB);
	RT(cudaFree)(dC);
	printf("v12_check: %d failed expectations\n", failures);
	return failures ? 1 : 0;
}
