/* GEMM timing for the issue-4 table (run on a GPU; on the simulator it runs but its times
 * mean nothing).  For one shape it prints CSV rows:
 *   label,m,n,k,ms,tflops,extra_bytes,added_ms,copy_gbs,cast_gbs_effective,modeled_ms,
 *   efficiency
 * Labels: "copy" (device-to-device copy bandwidth), "f16gemm" (a plain fp16 x fp16 -> fp32
 * GEMM, what the fp16 path's GEMM costs), and "bf16" (cublasGemmEx with bf16 operands, C
 * in fp32: run it under the shim with BF16SHIM_PATH/BF16SHIM_EMULATE_SM to pick the path, or
 * without the shim for native).  added_ms = bf16 time - f16gemm time; extra_bytes is what the
 * path moves beyond the native GEMM (passed in by bench/gemm_bench.sh, which knows the path);
 * cast_gbs_effective = extra_bytes / added_ms; modeled_ms what the cost model (src/gemm/cost.h)
 * gives that path on this GPU (as the shim sees it: BF16SHIM_EMULATE_SM's architecture with
 * the real figures), printed beside the measured ms.  A label "fused..." is the fused path:
 * efficiency is its achieved multiply-adds a second over the rate the model gives cuBLAS
 * on the units its kernel runs on there (cost_tensor_rate or cost_fp32_rate: the card's
 * measured rate, else the sustained share of its peak; cost.h, cost_fused_kernel), the
 * figure the model should use for COST_FUSED_EFFICIENCY, which multiplies that same rate,
 * where the card is of the architecture the shim plans for (doc/facts.md, "The fused
 * path's kernels").
 * Usage: gemm_bench M N K ITERS EXTRA_BYTES LABEL */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"

static float time_it(cudaStream_t s, int iters, void (*fn)(void *), void *arg)
{
	cudaEvent_t a, b;
	float ms = 0;
	cudaEventCreate(&a);
	cudaEventCreate(&b);
	fn(arg); /* warm-up: scratch, modules, cuBLAS heuristics */
	cudaEventRecord(a, s);
	for (int i = 0; i < iters; i++)
		fn(arg);
	cudaEventRecord(b, s);
	cudaEventSynchronize(b);
	cudaEventElapsedTime(&ms, a, b);
	return ms / iters;
}

struct gemm_args {
	cublasHandle_t h;
	int m, n, k;
	cudaDataType ab;
	void *a, *b, *c;
};

static void gemm(void *p)
{
	struct gemm_args *g = p;
	float one = 1, zero = 0;
	cublasGemmEx(g->h, CUBLAS_OP_T, CUBLAS_OP_N, g->m, g->n, g->k, &one, g->a, g->ab, g->k,
		     g->b, g->ab, g->k, &zero, g->c, CUDA_R_32F, g->m, CUBLAS_COMPUTE_32F,
		     CUBLAS_GEMM_DEFAULT_TENSOR_OP);
}

struct copy_args {
	void *dst, *src;
	size_t bytes;
	cudaStream_t s;
};

static void copy(void *p)
{
	struct copy_args *c = p;
	cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, c->s);
}

/* This GPU as the cost model sees it through the shim (BF16SHIM_EMULATE_SM's architecture
 * with the real figures); 0 if the driver does not give the figures. */
static int model_device(struct cost_device *d)
{
	const char *emulate = getenv("BF16SHIM_EMULATE_SM");
	struct cudaDeviceProp prop;
	int fig[6] = {0};

	if (cudaGetDeviceProperties(&prop, 0) ||
	    cudaDeviceGetAttribute(&fig[0], cudaDevAttrComputeCapabilityMajor, 0) ||
	    cudaDeviceGetAttribute(&fig[1], cudaDevAttrComputeCapabilityMinor, 0) ||
	    cudaDeviceGetAttribute(&fig[2], cudaDevAttrMultiProcessorCount, 0) ||
	    cudaDeviceGetAttribute(&fig[3], cudaDevAttrClockRate, 0) ||
	    cudaDeviceGetAttribute(&fig[4], cudaDevAttrMemoryClockRate, 0) ||
	    cudaDeviceGetAttribute(&fig[5], cudaDevAttrGlobalMemoryBusWidth, 0))
		return 0;
	int sm = emulate && *emulate ? atoi(emulate) : fig[0] * 10 + fig[1];
	*d = cost_device_from(sm, emulate && *emulate ? NULL : prop.name, fig[2], fig[3], fig[4],
			      fig[5]);
	return 1;
}

/* The cost model's time for this GEMM (C fp32, beta 0) on the path LABEL names (its leading
 * letters: "fused75" is the fused path); -1 if the model has no figure (a path it cannot
 * run there, or figures the driver does not give). */
static double modeled_ms(const char *label, int m, int n, int k)
{
	struct cost_device d;
	struct cost_estimate e;
	struct cost_gemm g = {m, n, k, 1, 4, 0};

	if (!model_device(&d))
		return -1;
	for (int p = 0; p < COST_PATHS; p++) {
		const char *name = cost_path_name(p);
		if (!strncmp(label, name, strlen(name)))
			return cost_estimate(&d, &g, p, &e) ? e.us / 1000 : -1;
	}
	return -1;
}

/* For the fused path: achieved multiply-adds a second over the model's rate of the units its
 * kernel runs on (tensor cores or fp32 fma); empty for other paths or without the figures. */
static void efficiency(char *out, size_t len, const char *label, double fma, float ms)
{
	struct cost_device d;
	double rate;

	*out = '\0';
	if (strncmp(label, "fused", 5) || !model_device(&d) || ms <= 0)
		return;
	switch (cost_fused_kernel(d.sm, d.tensor_cores)) {
	case COST_FUSED_NONE:
		return;
	case COST_FUSED_FMA:
		rate = cost_fp32_rate(&d);
		break;
	default:
		rate = cost_tensor_rate(&d);
	}
	if (rate > 0)
		snprintf(out, len, "%.3f", fma / (ms / 1e3) / rate);
}

int main(int argc, char **argv)
{
	int m, n, k, iters;
	double extra, flops;
	const char *label;
	struct gemm_args g;
	struct copy_args cp;
	cudaStream_t s;
	float t_copy, t_f16, t_bf16;
	size_t copy_bytes = (size_t)256 << 20;
	char eff[32];

	if (argc != 7) {
		fprintf(stderr, "usage: %s M N K ITERS EXTRA_BYTES LABEL\n", argv[0]);
		return 2;
	}
	m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]), iters = atoi(argv[4]);
	extra = atof(argv[5]);
	label = argv[6];
	flops = 2.0 * m * n * k;
	cudaStreamCreate(&s);
	g = (struct gemm_args){.m = m, .n = n, .k = k};
	cublasCreate(&g.h);
	cublasSetStream(g.h, s);
	if (cudaMalloc(&g.a, (size_t)m * k * 2) || cudaMalloc(&g.b, (size_t)k * n * 2) ||
	    cudaMalloc(&g.c, (size_t)m * n * 4))
		return 2;
	cudaMemset(g.a, 0x3c, (size_t)m * k * 2);
	cudaMemset(g.b, 0x3c, (size_t)k * n * 2);

	cp = (struct copy_args){.bytes = copy_bytes, .s = s};
	if (cudaMalloc(&cp.dst, copy_bytes) || cudaMalloc(&cp.src, copy_bytes))
		return 2;
	t_copy = time_it(s, iters, copy, &cp);
	cudaFree(cp.dst);
	cudaFree(cp.src);

	g.ab = CUDA_R_16F;
	t_f16 = time_it(s, iters, gemm, &g);
	g.ab = CUDA_R_16BF;
	t_bf16 = time_it(s, iters, gemm, &g);

	/* A copy reads and writes each byte. */
	efficiency(eff, sizeof eff, label, flops / 2, t_bf16);
	printf("copy,%d,%d,%d,%.4f,,,,%.1f,,,\n", m, n, k, t_copy, 2.0 * copy_bytes / t_copy / 1e6);
	printf("f16gemm,%d,%d,%d,%.4f,%.2f,,,,,,\n", m, n, k, t_f16, flops / t_f16 / 1e9);
	printf("%s,%d,%d,%d,%.4f,%.2f,%.0f,%.4f,%.1f,%.1f,%.4f,%s\n", label, m, n, k, t_bf16,
	       flops / t_bf16 / 1e9, extra, t_bf16 - t_f16, 2.0 * copy_bytes / t_copy / 1e6,
	       t_bf16 > t_f16 ? extra / (t_bf16 - t_f16) / 1e6 : 0.0, modeled_ms(label, m, n, k),
	       eff);
	cublasDestroy(g.h);
	return 0;
}
