/* One bf16 GEMM (C in fp32, beta = 0) on the simulator; prints the device traffic it caused
 * as a CSV row: m,n,k,bytes_read,bytes_written,kernel_launches,gemms,native_bytes
 * native_bytes = operands + result = 2mk + 2kn + 4mn, what a native bf16 GEMM must move.
 * Counters come from the simulator (sim_stats_get); run it under bench/traffic.sh. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct sim_stats {
	uint64_t bytes_read, bytes_written, kernel_launches, gemms;
};

int main(int argc, char **argv)
{
	int m = argc > 3 ? atoi(argv[1]) : 256, n = argc > 3 ? atoi(argv[2]) : 256,
	    k = argc > 3 ? atoi(argv[3]) : 256;
	void (*stats)(struct sim_stats *) = (void (*)(struct sim_stats *))dlsym(RTLD_DEFAULT,
										 "sim_stats_get");
	struct sim_stats s0, s1;
	float alpha = 1, beta = 0;
	void *a, *b, *c;
	cublasHandle_t h;

	if (!stats) {
		fprintf(stderr, "not running on the simulator\n");
		return 77;
	}
	cublasCreate(&h);
	cudaMalloc(&a, (size_t)m * k * 2);
	cudaMalloc(&b, (size_t)k * n * 2);
	cudaMalloc(&c, (size_t)m * n * 4);
	cudaMemset(a, 0, (size_t)m * k * 2);
	cudaMemset(b, 0, (size_t)k * n * 2);
	/* A warm-up call: scratch and modules are set up once per process, not per GEMM. */
	cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, a, CUDA_R_16BF, k, b,
		     CUDA_R_16BF, k, &beta, c, CUDA_R_32F, m, CUBLAS_COMPUTE_32F,
		     CUBLAS_GEMM_DEFAULT_TENSOR_OP);
	cudaDeviceSynchronize();
	stats(&s0);
	if (cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, a, CUDA_R_16BF, k, b,
			 CUDA_R_16BF, k, &beta, c, CUDA_R_32F, m, CUBLAS_COMPUTE_32F,
			 CUBLAS_GEMM_DEFAULT_TENSOR_OP) != CUBLAS_STATUS_SUCCESS)
		return 1;
	cudaDeviceSynchronize();
	stats(&s1);
	printf("%d,%d,%d,%llu,%llu,%llu,%llu,%llu\n", m, n, k,
	       (unsigned long long)(s1.bytes_read - s0.bytes_read),
	       (unsigned long long)(s1.bytes_written - s0.bytes_written),
	       (unsigned long long)(s1.kernel_launches - s0.kernel_launches),
	       (unsigned long long)(s1.gemms - s0.gemms),
	       (unsigned long long)(2ull * m * k + 2ull * k * n + 4ull * m * n));
	cublasDestroy(h);
	return 0;
}
