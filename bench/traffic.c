/* One bf16 GEMM (nn.Linear form: A transposed, beta = 0) on the simulator, on operands of a
 * given kind; prints the device traffic it caused as a CSV row:
 *   kind,ctype,m,n,k,bytes_read,bytes_written,kernel_launches,gemms,native_bytes,
 *   dram_read,dram_written,warp_instructions,mma_instructions
 * native_bytes = 2mk + 2kn + (4 or 2)mn, what a native bf16 GEMM must move; bytes_* are the
 * kernels' global accesses, dram_* what device memory sees behind the simulated L2 (and a
 * GEMM the simulator computes, its operands once).  Counters come from the simulator
 * (sim_stats_get, tests/simcuda/README.md); run it under bench/traffic.sh.
 * Usage: traffic M N K [KIND [CTYPE]]
 *   KIND: zeros; normal (both operands N(0, 1)); softmaxS (op(A)'s rows the softmax of
 *   logits N(0, S^2), as attention's P in P V, op(B) N(0, 1)); geluS, siluS (op(B) the GELU
 *   (erf form) or SiLU of pre-activations N(0, S^2), as an MLP's down projection takes them,
 *   op(A) weights N(0, 0.02^2)).  CTYPE: f32 (default) or bf16. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sim_stats {
	uint64_t bytes_read, bytes_written, kernel_launches, gemms;
	uint64_t dram_read, dram_written, warp_instructions, mma_instructions;
};

static uint64_t seed = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	seed = seed * 6364136223846793005ull + 1442695040888963407ull;
	return ((seed >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

static uint16_t bf(double d)
{
	float f = (float)d;
	uint32_t x;
	memcpy(&x, &f, 4);
	return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

/* op(A) is m x k stored k x m (A^T): row i of op(A) is a[i * k ...]; op(B) is k x n. */
static void fill(const char *kind, uint16_t *a, uint16_t *b, int m, int n, int k)
{
	double s = atof(kind + strcspn(kind, "0123456789"));
	size_t am = (size_t)m * k, bn = (size_t)k * n;

	if (!strcmp(kind, "zeros")) {
		memset(a, 0, am * 2);
		memset(b, 0, bn * 2);
	} else if (!strncmp(kind, "softmax", 7)) {
		double *logit = malloc(sizeof *logit * (size_t)k);
		for (int i = 0; i < m; i++) {
			double mx = -1e300, sum = 0;
			for (int l = 0; l < k; l++) {
				logit[l] = s * gauss();
				mx = logit[l] > mx ? logit[l] : mx;
			}
			for (int l = 0; l < k; l++)
				sum += exp(logit[l] - mx);
			for (int l = 0; l < k; l++)
				a[(size_t)i * k + l] = bf(exp(logit[l] - mx) / sum);
		}
		free(logit);
		for (size_t i = 0; i < bn; i++)
			b[i] = bf(gauss());
	} else if (!strncmp(kind, "gelu", 4) || !strncmp(kind, "silu", 4)) {
		for (size_t i = 0; i < am; i++)
			a[i] = bf(0.02 * gauss());
		for (size_t i = 0; i < bn; i++) {
			double x = s * gauss();
			b[i] = bf(kind[0] == 'g' ? 0.5 * x * (1 + erf(x / sqrt(2))) : x / (1 + exp(-x)));
		}
	} else {
		for (size_t i = 0; i < am; i++)
			a[i] = bf(gauss());
		for (size_t i = 0; i < bn; i++)
			b[i] = bf(gauss());
	}
}

static cublasStatus_t gemm(cublasHandle_t h, int m, int n, int k, void *a, void *b, void *c,
			   cudaDataType ctype)
{
	float alpha = 1, beta = 0;
	return cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, a, CUDA_R_16BF, k, b,
			    CUDA_R_16BF, k, &beta, c, ctype, m, CUBLAS_COMPUTE_32F,
			    CUBLAS_GEMM_DEFAULT_TENSOR_OP);
}

int main(int argc, char **argv)
{
	int m = argc > 3 ? atoi(argv[1]) : 256, n = argc > 3 ? atoi(argv[2]) : 256,
	    k = argc > 3 ? atoi(argv[3]) : 256;
	const char *kind = argc > 4 ? argv[4] : "zeros", *ct = argc > 5 ? argv[5] : "f32";
	cudaDataType ctype = strcmp(ct, "bf16") ? CUDA_R_32F : CUDA_R_16BF;
	size_t cs = ctype == CUDA_R_32F ? 4 : 2;
	void (*stats)(struct sim_stats *) = (void (*)(struct sim_stats *))dlsym(RTLD_DEFAULT,
										 "sim_stats_get");
	struct sim_stats s0, s1;
	uint16_t *ha = malloc((size_t)m * k * 2), *hb = malloc((size_t)k * n * 2);
	void *a, *b, *c;
	cublasHandle_t h;

	if (!stats) {
		fprintf(stderr, "not running on the simulator\n");
		return 77;
	}
	fill(kind, ha, hb, m, n, k);
	cublasCreate(&h);
	cudaMalloc(&a, (size_t)m * k * 2);
	cudaMalloc(&b, (size_t)k * n * 2);
	cudaMalloc(&c, (size_t)m * n * cs);
	cudaMemcpy(a, ha, (size_t)m * k * 2, cudaMemcpyHostToDevice);
	cudaMemcpy(b, hb, (size_t)k * n * 2, cudaMemcpyHostToDevice);
	/* A warm-up call on the corner of the operands that decides the same way: scratch and
	 * modules are set up once per process, not per GEMM. */
	gemm(h, m < 32 ? m : 32, n < 32 ? n : 32, k, a, b, c, ctype);
	cudaDeviceSynchronize();
	stats(&s0);
	if (gemm(h, m, n, k, a, b, c, ctype) != CUBLAS_STATUS_SUCCESS)
		return 1;
	cudaDeviceSynchronize();
	stats(&s1);
	printf("%s,%s,%d,%d,%d,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", kind, ct, m, n, k,
	       (unsigned long long)(s1.bytes_read - s0.bytes_read),
	       (unsigned long long)(s1.bytes_written - s0.bytes_written),
	       (unsigned long long)(s1.kernel_launches - s0.kernel_launches),
	       (unsigned long long)(s1.gemms - s0.gemms),
	       (unsigned long long)(2ull * m * k + 2ull * k * n + cs * m * n),
	       (unsigned long long)(s1.dram_read - s0.dram_read),
	       (unsigned long long)(s1.dram_written - s0.dram_written),
	       (unsigned long long)(s1.warp_instructions - s0.warp_instructions),
	       (unsigned long long)(s1.mma_instructions - s0.mma_instructions));
	cublasDestroy(h);
	return 0;
}
