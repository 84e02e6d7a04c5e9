/* A library that uses cuBLAS on its own, as a Python extension does: the client dlopens it
 * (locally, with RTLD_DEEPBIND, again after a dlclose) and asks for one bf16 GEMM. */
#include "hard.h"

/* Returns the GEMM's status; *bad: elements outside the accuracy contract (-1: not run). */
__attribute__((visibility("default"))) int plugin_bf16_gemm(unsigned seed, int *bad);

int plugin_bf16_gemm(unsigned seed, int *bad)
{
	cublasHandle_t h;
	cublasStatus_t st;
	struct gm g;

	*bad = -1;
	if (cublasCreate(&h))
		return -1;
	if (!gm_make(&g, 33, 20, 24, CUBLAS_OP_T, CUBLAS_OP_N, CUDA_R_16BF, CUDA_R_16BF, seed)) {
		cublasDestroy(h);
		return -1;
	}
	st = gm_run(&g, h);
	if (st == CUBLAS_STATUS_SUCCESS && !cudaDeviceSynchronize())
		*bad = gm_check(&g, "plugin gemm");
	gm_free(&g);
	cublasDestroy(h);
	return (int)st;
}
