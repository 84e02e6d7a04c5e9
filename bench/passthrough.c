/* Makes N GEMM calls of one kind, for passthrough_cost.sh to count the instructions the
 * shim runs per call: cublasGemmEx or cublasLtMatmul, with bf16 or fp32 operands, 64^3 (so
 * below sm_80 a bf16 call takes the fp32 or fp16 path, not the decode one), as PyTorch
 * makes them (bf16: the legacy compute spelling and a tensor-op algorithm).
 * Usage: passthrough gemmex|lt bf16|fp32 N.  Exits 1 if a call fails. */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIM 64

int main(int argc, char **argv)
{
	int lt = argc > 1 && strcmp(argv[1], "lt") == 0;
	int bf16 = argc > 2 && strcmp(argv[2], "bf16") == 0;
	long n = argc > 3 ? atol(argv[3]) : 1000;
	cudaDataType type = bf16 ? CUDA_R_16BF : CUDA_R_32F;
	float alpha = 1, beta = 0;
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t layout;
	cublasLtHandle_t lh;
	cublasHandle_t h;
	void *a, *b, *c;

	if (argc != 4 || (!lt && strcmp(argv[1], "gemmex")) || (!bf16 && strcmp(argv[2], "fp32"))) {
		fprintf(stderr, "usage: passthrough gemmex|lt bf16|fp32 N\n");
		return 2;
	}
	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cublasLtCreate(&lh) != CUBLAS_STATUS_SUCCESS)
		return 2;
	if (cudaMalloc(&a, DIM * DIM * 4) || cudaMalloc(&b, DIM * DIM * 4) ||
	    cudaMalloc(&c, DIM * DIM * 4))
		return 2;
	/* One layout serves A, B, C and D: square, column-major, of one type. */
	if (cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F) ||
	    cublasLtMatrixLayoutCreate(&layout, type, DIM, DIM, DIM))
		return 2;
	for (long i = 0; i < n; i++) {
		cublasStatus_t st;
		if (lt)
			st = cublasLtMatmul(lh, desc, &alpha, a, layout, b, layout, &beta, c, layout,
					    c, layout, NULL, NULL, 0, 0);
		else if (bf16)
			st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, DIM, DIM, DIM, &alpha, a, type,
					  DIM, b, type, DIM, &beta, c, type, DIM,
					  (cublasComputeType_t)CUDA_R_32F,
					  CUBLAS_GEMM_DEFAULT_TENSOR_OP);
		else
			st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, DIM, DIM, DIM, &alpha, a, type,
					  DIM, b, type, DIM, &beta, c, type, DIM, CUBLAS_COMPUTE_32F,
					  CUBLAS_GEMM_DEFAULT);
		if (st != CUBLAS_STATUS_SUCCESS) {
			fprintf(stderr, "passthrough: call %ld returned %d\n", i, (int)st);
			return 1;
		}
	}
	cublasLtMatrixLayoutDestroy(layout);
	cublasLtMatmulDescDestroy(desc);
	cublasLtDestroy(lh);
	cublasDestroy(h);
	return 0;
}
