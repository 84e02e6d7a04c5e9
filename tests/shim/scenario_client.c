/* bf16 GEMM scenarios the matrix client does not cover:
 *   scenario_client graph [K]
 *                            a bf16 GEMM (24 x 24 x K, K 24 unless given) captured into a
 *                            CUDA graph, replayed twice with new inputs (the shim's scratch
 *                            must be stream-ordered in the capture; a K of 512 makes the
 *                            fused path split k into scratch)
 *   scenario_client panel N  an N x N x N bf16 GEMM under a small BF16SHIM_WORKSPACE_MB: right
 *                            result, and the device memory it keeps is within the cap
 * Exit status 0 when the result is right. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint16_t bf16_of(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

static float float_of(uint16_t h)
{
	uint32_t x = (uint32_t)h << 16;
	float f;
	memcpy(&f, &x, 4);
	return f;
}

static void fill(uint16_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = bf16_of((float)((int)((i * 2654435761u + seed * 40503u) >> 7) % 201 - 100) /
			       64.0f);
}

/* C(fp32) = A * B for column-major n x k and k x n bf16 matrices; returns mismatches. */
static int check(const uint16_t *a, const uint16_t *b, const float *c, int n, int k)
{
	int bad = 0;
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++) {
			double acc = 0, mag = 0;
			for (int l = 0; l < k; l++) {
				double p = (double)float_of(a[i + (size_t)l * n]) * float_of(b[l + (size_t)j * k]);
				acc += p;
				mag += fabs(p);
			}
			if (!(fabs(c[i + (size_t)j * n] - acc) <= (k + 2) * ldexp(mag, -24) + 1e-30)) {
				if (bad++ < 3)
					fprintf(stderr, "C(%d,%d) = %.9g, want %.9g\n", i, j,
						c[i + (size_t)j * n], acc);
			}
		}
	return bad;
}

static cublasStatus_t gemm(cublasHandle_t h, int n, int k, const void *a, const void *b,
			   void *c)
{
	float one = 1, zero = 0;
	return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, k, &one, a, CUDA_R_16BF, n, b,
			    CUDA_R_16BF, k, &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
			    CUBLAS_GEMM_DEFAULT_TENSOR_OP);
}

static int graph(int k)
{
	const int n = 24;
	size_t ab = sizeof(uint16_t) * n * k, cb = sizeof(float) * n * n;
	uint16_t *a = malloc(ab), *b = malloc(ab);
	float *c = malloc(cb);
	void *da, *db, *dc;
	cudaStream_t s;
	cudaGraph_t g;
	cudaGraphExec_t ge;
	cublasHandle_t h;
	enum cudaStreamCaptureStatus cap;
	int bad = 0;

	cudaStreamCreate(&s);
	cublasCreate(&h);
	cublasSetStream(h, s);
	cudaMalloc(&da, ab);
	cudaMalloc(&db, ab);
	cudaMalloc(&dc, cb);
	if (cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) != cudaSuccess)
		return 2;
	if (gemm(h, n, k, da, db, dc) != CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "GEMM refused during capture\n");
		return 1;
	}
	cudaStreamIsCapturing(s, &cap);
	if (cap != cudaStreamCaptureStatusActive) {
		fprintf(stderr, "capture was invalidated by the GEMM\n");
		return 1;
	}
	if (cudaStreamEndCapture(s, &g) != cudaSuccess ||
	    cudaGraphInstantiate(&ge, g, 0) != cudaSuccess)
		return 2;
	for (unsigned round = 1; round <= 2; round++) {
		fill(a, (size_t)n * k, round);
		fill(b, (size_t)k * n, round + 10);
		cudaMemcpy(da, a, ab, cudaMemcpyHostToDevice);
		cudaMemcpy(db, b, ab, cudaMemcpyHostToDevice);
		if (cudaGraphLaunch(ge, s) != cudaSuccess)
			return 2;
		cudaStreamSynchronize(s);
		cudaMemcpy(c, dc, cb, cudaMemcpyDeviceToHost);
		bad += check(a, b, c, n, k);
	}
	cudaGraphExecDestroy(ge);
	cudaGraphDestroy(g);
	cublasDestroy(h);
	printf("graph: 2 replays, %d wrong elements\n", bad);
	return bad ? 1 : 0;
}

static int panel(int n)
{
	size_t ab = sizeof(uint16_t) * n * n, cb = sizeof(float) * n * n;
	uint16_t *a = malloc(ab), *b = malloc(ab);
	float *c = malloc(cb);
	void *da, *db, *dc;
	size_t free0, free1, total, cap = (size_t)atoi(getenv("BF16SHIM_WORKSPACE_MB") ?: "0") << 20;
	cublasHandle_t h;
	int bad;

	cublasCreate(&h);
	fill(a, (size_t)n * n, 1);
	fill(b, (size_t)n * n, 2);
	/* Room for the operands plus the cap: anything more the shim takes fails the run. */
	cudaMalloc(&da, ab);
	cudaMalloc(&db, ab);
	cudaMalloc(&dc, cb);
	cudaMemcpy(da, a, ab, cudaMemcpyHostToDevice);
	cudaMemcpy(db, b, ab, cudaMemcpyHostToDevice);
	{
		/* A plain fp32 GEMM first: real cuBLAS takes its own workspace on a handle's
		 * first use, which must not count as the shim's. */
		float one = 1, zero = 0;
		cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, &one, dc, 16, dc, 16, &zero,
			    dc, 16);
		cudaDeviceSynchronize();
	}
	cudaMemGetInfo(&free0, &total);
	if (gemm(h, n, n, da, db, dc) != CUBLAS_STATUS_SUCCESS)
		return 1;
	cudaDeviceSynchronize();
	cudaMemGetInfo(&free1, &total);
	cudaMemcpy(c, dc, cb, cudaMemcpyDeviceToHost);
	/* SIMCUDA_COMPUTE=0 runs sizes nothing could check: memory only. */
	bad = getenv("SIMCUDA_COMPUTE") && atoi(getenv("SIMCUDA_COMPUTE")) == 0 ? 0
										: check(a, b, c, n, n);
	/* The shim keeps its scratch cached per stream: what it holds now is its peak. */
	printf("panel: n=%d, scratch held %zu bytes (cap %zu, fp32 operands would need %zu), "
	       "%d wrong elements\n", n, free0 - free1, cap, (size_t)3 * 4 * n * n, bad);
	if (cap && free0 - free1 > cap) {
		fprintf(stderr, "scratch exceeds the cap\n");
		return 1;
	}
	cublasDestroy(h);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "graph") == 0)
		return graph(argc >= 3 ? atoi(argv[2]) : 24);
	if (argc >= 3 && strcmp(argv[1], "panel") == 0)
		return panel(atoi(argv[2]));
	fprintf(stderr, "usage: %s graph [K] | panel N\n", argv[0]);
	return 2;
}
