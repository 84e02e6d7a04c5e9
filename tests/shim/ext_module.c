/* Stands in for a Python extension module: linked against cuBLAS, loaded by its host with
 * dlopen(RTLD_LOCAL), so cuBLAS sits in a local scope where RTLD_NEXT cannot see it. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N 8

/* bf16 of small integers is exact, so the expected result is exact too. */
static uint16_t bf16_of(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	return (uint16_t)(x >> 16);
}

__attribute__((visibility("default"))) int ext_bf16_gemm(void);
int ext_bf16_gemm(void)
{
	uint16_t a[N * N], b[N * N];
	float c[N * N], alpha = 1, beta = 0;
	void *da, *db, *dc;
	cublasHandle_t h;
	cublasStatus_t st;

	for (int i = 0; i < N * N; i++) {
		a[i] = bf16_of((float)(i % 5));
		b[i] = bf16_of((float)(i % 3));
	}
	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
		return -1;
	cudaMalloc(&da, sizeof a);
	cudaMalloc(&db, sizeof b);
	cudaMalloc(&dc, sizeof c);
	cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
	cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
	st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &alpha, da, CUDA_R_16BF, N, db,
			  CUDA_R_16BF, N, &beta, dc, CUDA_R_32F, N, CUBLAS_COMPUTE_32F,
			  CUBLAS_GEMM_DEFAULT_TENSOR_OP);
	cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
	cublasDestroy(h);
	if (st != CUBLAS_STATUS_SUCCESS)
		return (int)st;
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			float want = 0;
			for (int l = 0; l < N; l++)
				want += (float)((i + l * N) % 5) * (float)((l + j * N) % 3);
			if (c[i + j * N] != want) {
				fprintf(stderr, "C(%d,%d) = %g, want %g\n", i, j, c[i + j * N], want);
				return 100;
			}
		}
	return 0;
}
