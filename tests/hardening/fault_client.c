/* The fault-injection workload: bf16 GEMMs that take each rewrite path (fp32 on sm_61, fp16
 * on sm_75, the decode kernel on both) and cuBLASLt bias matmuls, one after the other, on one
 * handle.  fault_test.sh runs it once cleanly, then once per allocation, module load and
 * launch the shim makes, with that one call failing (SIMCUDA_FAIL ...#N:depth=0).
 *
 *   fault_client [ORIGINAL]   ORIGINAL: the statuses of a run without the shim, comma-separated
 *
 * Each call must end in one of: success with C within the accuracy contract; the original
 * call's own status (from ORIGINAL: NOT_SUPPORTED below sm_70, where the library has no bf16
 * GEMM); or EXECUTION_FAILED (a launch failed after part of C was written: it cannot be
 * replayed).  A cuBLASLt heuristic that finds nothing counts as NOT_SUPPORTED.  Prints one
 * line per call, then "used=BYTES": device memory still taken after everything was freed and
 * synchronised (the shim's cached workspace; the script compares runs). */
#include <cublasLt.h>

#include "hard.h"
#include "lt_harness.h"

static int failures, ncalls;
static const char *original; /* the next original status in the list, or NULL: any */

/* A status and, when it is success, the result: acceptable or not. */
static void judge(const char *name, cublasStatus_t st, int bad)
{
	const char *what = NULL;
	int orig = -1;

	if (original && *original) {
		orig = (int)strtol(original, (char **)&original, 10);
		original += *original == ',';
	}
	ncalls++;
	if (st == CUBLAS_STATUS_SUCCESS)
		what = bad ? NULL : "success";
	else if (orig < 0 || (int)st == orig)
		what = "original";
	else if (st == CUBLAS_STATUS_EXECUTION_FAILED)
		what = "partial";
	printf("%-22s status=%d %s\n", name, (int)st, what ? what : "WRONG");
	if (!what) {
		fprintf(stderr, "%s: status %d with %d bad elements is neither the rewrite's "
			"answer nor the original call's\n", name, (int)st, bad);
		failures++;
	}
}

static const struct {
	const char *name;
	int m, n, k;
	cublasOperation_t ta, tb;
	cudaDataType ctype;
} gemms[] = {
	{"square-ish bf16 out", 48, 40, 36, CUBLAS_OP_T, CUBLAS_OP_N, CUDA_R_16BF},
	{"square-ish f32 out", 40, 33, 20, CUBLAS_OP_N, CUBLAS_OP_N, CUDA_R_32F},
	{"decode n=4", 64, 4, 48, CUBLAS_OP_T, CUBLAS_OP_N, CUDA_R_16BF},
	{"decode m=3 f32 out", 3, 40, 32, CUBLAS_OP_N, CUBLAS_OP_T, CUDA_R_32F},
};

static const struct lcase lts[] = {
	{"lt bias", 40, 24, 32, 1, CUBLAS_OP_T, CUBLAS_OP_N, COL, CUDA_R_16BF,
	 CUBLASLT_EPILOGUE_BIAS, CUDA_R_16BF, 0, 0, 0, 0, 0, 0, 1.0f, 0.0f},
	{"lt relu bias, no ws", 36, 20, 24, 1, CUBLAS_OP_N, CUBLAS_OP_N, COL, CUDA_R_16BF,
	 CUBLASLT_EPILOGUE_RELU_BIAS, CUDA_R_16BF, 0, 0, 0, 0, 0, 1, 1.0f, 0.5f},
	{"lt decode gelu bias", 48, 4, 40, 1, CUBLAS_OP_T, CUBLAS_OP_N, COL, CUDA_R_16BF,
	 CUBLASLT_EPILOGUE_GELU_BIAS, CUDA_R_32F, 0, 0, 0, 0, 0, 0, 1.0f, 0.0f},
};

static void run_lt(const struct lcase *lc, cublasHandle_t h)
{
	struct run r;
	double worst = 0;
	cublasStatus_t st;

	setup(lc, &r, CUDA_R_16BF, h, NULL);
	describe(lc, &r, CUBLAS_COMPUTE_32F, CUDA_R_32F);
	st = heuristic(&r);
	if (st != CUBLAS_STATUS_SUCCESS || r.returned < 1) {
		judge(lc->name, st ? st : CUBLAS_STATUS_NOT_SUPPORTED, 0);
	} else {
		st = matmul(lc, &r, &r.result.algo, 0);
		cudaDeviceSynchronize();
		judge(lc->name, st, st == CUBLAS_STATUS_SUCCESS ? verify(lc, &r, &worst) : 0);
	}
	release(&r, lc->separate_d);
}

int main(int argc, char **argv)
{
	cublasHandle_t h;
	size_t free0, free1, total;

	original = argc > 1 ? argv[1] : NULL;
	if (cudaFree(0) || cudaMemGetInfo(&free0, &total))
		return 2;
	if (cublasCreate(&h))
		return 2;
	for (size_t i = 0; i < sizeof gemms / sizeof gemms[0]; i++) {
		struct gm g;
		cublasStatus_t st;
		if (!gm_make(&g, gemms[i].m, gemms[i].n, gemms[i].k, gemms[i].ta, gemms[i].tb,
			     CUDA_R_16BF, gemms[i].ctype, 77 + (uint32_t)i))
			return 2;
		st = gm_run(&g, h);
		cudaDeviceSynchronize();
		judge(gemms[i].name, st, st == CUBLAS_STATUS_SUCCESS ?
		      gm_check(&g, gemms[i].name) : 0);
		gm_free(&g);
	}
	for (size_t i = 0; i < sizeof lts / sizeof lts[0]; i++)
		run_lt(&lts[i], h);
	cublasDestroy(h);
	cudaDeviceSynchronize();
	if (cudaMemGetInfo(&free1, &total))
		return 2;
	printf("used=%zu\n", free0 - free1);
	return failures ? 1 : 0;
}
