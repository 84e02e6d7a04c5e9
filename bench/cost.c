/* The cost model (src/gemm/cost.h) for the GPU the CUDA runtime reports: the modeled time of the
 * typical GEMMs natively and on each path, the planner's choice, and the crossovers, the
 * shapes where that choice changes.  Modeled, not measured; on the simulator it shows the
 * model for the part SIMCUDA_ARCH names (bench/cost.sh: the simulator's presets).
 * Usage: cost */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#include "abi.h"
#include "cost.h"
#include "plan.h"

static struct plan_device dev;

/* The planner's first step for g, as PyTorch calls it: bf16 A and B, A transposed. */
static struct plan plan_of(const struct cost_gemm *g, double *us)
{
	struct plan_call c = {.atype = ABI_R_16BF, .btype = ABI_R_16BF,
			      .ctype = g->c_bytes == 4 ? ABI_R_32F : ABI_R_16BF,
			      .compute = ABI_COMPUTE_32F, .algo = ABI_GEMM_DEFAULT_TENSOR_OP,
			      .transa = ABI_OP_T, .transb = ABI_OP_N, .m = g->m, .n = g->n, .k = g->k,
			      .batch = g->batch, .lda = g->k, .ldb = g->k, .ldc = g->m};
	struct shim_config cfg = {.mode = MODE_AUTO, .path = PATH_AUTO};
	struct plan p = plan_gemm(&c, &dev, &cfg);
	*us = p.model.valid ? p.model.chosen_us : -1;
	return p;
}

static const char *choice(const struct cost_gemm *g)
{
	double us;
	return plan_decision_name(plan_of(g, &us).step[0].decision);
}

static void row(const char *label, const struct cost_gemm *g)
{
	struct cost_estimate e;
	double us;
	struct plan p = plan_of(g, &us);

	printf("%-22s", label);
	for (int path = 0; path < COST_PATHS; path++) {
		if (cost_estimate(&dev.cost, g, path, &e))
			printf(" %10.1f", e.us);
		else
			printf(" %10s", "-");
	}
	printf("  %s\n", plan_decision_name(p.step[0].decision));
}

/* Where the plan changes along a family of shapes: g(v) for v = 1, 2, ... limit (each power
 * of two and the points between, bisected to the exact value). */
static void crossovers(const char *what, struct cost_gemm (*g)(int64_t), int64_t limit)
{
	int64_t prev = 1;
	int found = 0;

	printf("  %s:", what);
	for (int64_t v = 2; v <= limit; v *= 2) {
		struct cost_gemm a = g(prev), b = g(v);
		if (!strcmp(choice(&a), choice(&b)))
			continue;
		int64_t lo = prev, hi = v;
		while (hi - lo > 1) {
			int64_t mid = (lo + hi) / 2;
			struct cost_gemm x = g(mid);
			if (!strcmp(choice(&x), choice(&a)))
				lo = mid;
			else
				hi = mid;
		}
		struct cost_gemm x = g(lo), y = g(hi);
		printf(" %s up to %lld, %s from %lld;", choice(&x), (long long)lo, choice(&y),
		       (long long)hi);
		found = 1;
		prev = v;
		continue;
	}
	if (!found) {
		struct cost_gemm a = g(1);
		printf(" %s throughout", choice(&a));
	}
	printf("\n");
}

static struct cost_gemm square(int64_t v) { return (struct cost_gemm){v, v, v, 1, 2, 0}; }
static struct cost_gemm tokens(int64_t v) { return (struct cost_gemm){v, 4096, 4096, 1, 2, 0}; }
static struct cost_gemm attention(int64_t v) { return (struct cost_gemm){64, v, v, 16, 2, 0}; }

int main(void)
{
	int a[4] = {0}, major = 0, minor = 0;
	struct cudaDeviceProp prop;

	if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess ||
	    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) ||
	    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0) ||
	    cudaDeviceGetAttribute(&a[0], cudaDevAttrMultiProcessorCount, 0) ||
	    cudaDeviceGetAttribute(&a[1], cudaDevAttrClockRate, 0) ||
	    cudaDeviceGetAttribute(&a[2], cudaDevAttrMemoryClockRate, 0) ||
	    cudaDeviceGetAttribute(&a[3], cudaDevAttrGlobalMemoryBusWidth, 0)) {
		fprintf(stderr, "cost: no device\n");
		return 1;
	}
	dev.sm = major * 10 + minor;
	dev.cost = cost_device_from(dev.sm, prop.name, a[0], a[1], a[2], a[3]);
	dev.tensor_cores = dev.cost.tensor_cores;
	printf("%s: sm_%d, %d SMs at %d MHz, %.0f GB/s; per second %.1f T fp32, %.1f T tensor, "
	       "%.1f T native bf16 multiply-adds\n", prop.name, dev.sm, a[0], a[1] / 1000,
	       cost_bandwidth(&dev.cost) / 1e9, cost_fp32_rate(&dev.cost) / 1e12,
	       cost_tensor_rate(&dev.cost) / 1e12, cost_bf16_rate(&dev.cost) / 1e12);
	printf("modeled microseconds (not measured), C bf16:\n%-22s", "gemm (m x n x k)");
	for (int path = 0; path < COST_PATHS; path++)
		printf(" %10s", cost_path_name(path));
	printf("  plan\n");
	for (int i = 0; i < cost_ntypical; i++)
		row(cost_typical[i].label, &cost_typical[i].gemm);
	printf("crossovers (the plan along a family of shapes):\n");
	crossovers("n x n x n", square, 16384);
	crossovers("m x 4096 x 4096 (m tokens)", tokens, 16384);
	crossovers("P V 64 x s x s, 16 heads (s keys)", attention, 16384);
	return 0;
}
