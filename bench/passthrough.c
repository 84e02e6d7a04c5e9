/* Calls cublasGemmEx N times with fp32 operands (a call the shim passes through), for
 * passthrough_cost.sh to count the instructions the shim adds per call. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	float alpha = 1, beta = 0;
	void *a, *b, *c;
	cublasHandle_t h;

	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
		return 2;
	cudaMalloc(&a, 64);
	cudaMalloc(&b, 64);
	cudaMalloc(&c, 64);
	for (long i = 0; i < n; i++)
		if (cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &alpha, a, CUDA_R_32F, 1, b,
				 CUDA_R_32F, 1, &beta, c, CUDA_R_32F, 1, CUBLAS_COMPUTE_32F,
				 CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
			return 1;
	cublasDestroy(h);
	return 0;
}
