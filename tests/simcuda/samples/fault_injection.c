/* Fault injection (SIMCUDA_FAIL): run with
 *   SIMCUDA_FAIL="cudaDeviceSynchronize#1:depth=0=wait:300;
 *                 cublasGemmEx:atype=R_16F,ctype=R_32F,algo=DEFAULT_TENSOR_OP=NOT_SUPPORTED;
 *                 cudaMalloc#3=MemoryAllocation"
 * and checks that exactly the described class of calls fails: the 3rd cudaMalloc and no
 * other, fp16->fp32 tensor-op GemmEx but not the same call with another algo, C type, A type
 * or entry point.  A refused call must leave C alone; the others must compute correctly.
 * The first cudaDeviceSynchronize takes 300 ms or more and works; the second does not wait. */
#include <string.h>
#include <time.h>

#include "samples.h"

static void mallocs(void)
{
	void *p[6];

	/* First calls of the program: nothing else has called cudaMalloc yet. */
	for (int i = 0; i < 6; i++) {
		cudaError_t err = cudaMalloc(&p[i], 256);
		char what[32];
		snprintf(what, sizeof what, "cudaMalloc #%d", i + 1);
		printf("%s: %s\n", what, cudaGetErrorName(err));
		EXPECT_RT(what, err, i == 2 ? cudaErrorMemoryAllocation : cudaSuccess);
		if (err != cudaSuccess)
			p[i] = NULL;
	}
	cudaGetLastError();
	for (int i = 0; i < 6; i++)
		if (p[i])
			CHECK_RT(cudaFree(p[i]));
}

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static void waits(void)
{
	for (int i = 0; i < 2; i++) {
		struct timespec t0;
		cudaError_t err;
		long ms;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		err = cudaDeviceSynchronize();
		ms = elapsed_ms(&t0);
		printf("cudaDeviceSynchronize #%d: %s after %ld ms\n", i + 1, cudaGetErrorName(err),
		       ms);
		EXPECT_RT("cudaDeviceSynchronize", err, cudaSuccess);
		EXPECT_INT(i ? "the second call waited 300 ms" : "the first call waited 300 ms",
			   ms >= 300, !i);
	}
}

struct gemm_call {
	const char *what;
	int strided;
	cudaDataType ab, c;
	cublasGemmAlgo_t algo;
	int injected;   /* the rule matches this call */
};

static const struct gemm_call calls[] = {
	{"f16->f32 DEFAULT_TENSOR_OP", 0, CUDA_R_16F, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP, 1},
	{"f16->f32 DEFAULT", 0, CUDA_R_16F, CUDA_R_32F, CUBLAS_GEMM_DEFAULT, 0},
	{"f16->f16 DEFAULT_TENSOR_OP", 0, CUDA_R_16F, CUDA_R_16F, CUBLAS_GEMM_DEFAULT_TENSOR_OP, 0},
	{"bf16->f32 DEFAULT_TENSOR_OP", 0, CUDA_R_16BF, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP,
	 0},
	{"strided f16->f32 DEFAULT_TENSOR_OP", 1, CUDA_R_16F, CUDA_R_32F,
	 CUBLAS_GEMM_DEFAULT_TENSOR_OP, 0},
	{"f16->f32 DEFAULT_TENSOR_OP again", 0, CUDA_R_16F, CUDA_R_32F,
	 CUBLAS_GEMM_DEFAULT_TENSOR_OP, 1},
};

static void gemm(cublasHandle_t h, const struct gemm_call *g)
{
	enum { M = 12, N = 10, K = 16 };
	const float alpha = 1, beta = 0.5f;
	double a[M * K], b[K * N], c0[M * N], ref[M * N], mag[M * N], got[M * N];
	cublasStatus_t st, want = g->injected ? CUBLAS_STATUS_NOT_SUPPORTED : CUBLAS_STATUS_SUCCESS;
	dbuf A, B, C;
	int bad;

	fill_random(g->ab, a, M * K, 21);
	fill_random(g->ab, b, K * N, 22);
	fill_random(g->c, c0, M * N, 23);
	dbuf_upload(&A, g->ab, a, M * K, 0);
	dbuf_upload(&B, g->ab, b, K * N, 0);
	dbuf_upload(&C, g->c, c0, M * N, 0);
	if (g->strided)
		st = cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, A.dev,
						g->ab, M, M * K, B.dev, g->ab, K, K * N, &beta,
						C.dev, g->c, M, M * N, 1, CUBLAS_COMPUTE_32F,
						g->algo);
	else
		st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, A.dev, g->ab, M,
				  B.dev, g->ab, K, &beta, C.dev, g->c, M, CUBLAS_COMPUTE_32F,
				  g->algo);
	dbuf_download(&C, 0);
	CHECK_RT(cudaDeviceSynchronize());
	dbuf_values(&C, got);

	memcpy(ref, c0, sizeof ref);
	if (st == CUBLAS_STATUS_SUCCESS)
		ref_gemm('N', 'N', M, N, K, alpha, a, M, b, K, beta, ref, M, mag);
	else
		memset(mag, 0, sizeof mag); /* refused: C must be exactly as before */
	bad = check_gemm(g->what, g->c, M, N, K, M, got, ref, mag, c0);
	printf("%-36s %s (expected %s)%s\n", g->what, blas_status_name(st), blas_status_name(want),
	       bad ? " WRONG C" : "");
	EXPECT_BLAS(g->what, st, want);
	EXPECT_INT("mismatching elements of C", bad, 0);
	dbuf_free(&A);
	dbuf_free(&B);
	dbuf_free(&C);
}

int main(void)
{
	const char *rules = getenv("SIMCUDA_FAIL");
	cublasHandle_t h;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("SIMCUDA_FAIL=%s\n", rules ? rules : "(unset)");
	waits();
	mallocs();
	CHECK_BLAS(cublasCreate(&h));
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		gemm(h, &calls[i]);
	CHECK_BLAS(cublasDestroy(h));
	CHECK_RT(cudaDeviceReset());
	printf("fault_injection: %d failed expectations\n", sample_failures);
	return sample_failures ? 1 : 0;
}
