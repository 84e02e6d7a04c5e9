/* The cost model (src/gemm/cost.h) for the GPU the CUDA runtime reports: the modeled time of the
 * typical GEMMs natively and on each path, the planner's choice, and the crossovers, the
 * shapes where that choice changes; the large square products as PyTorch runs them in each
 * type (TFLOPS, what doc/facts.md's measured table holds).  Modeled, not measured; on the
 * simulator it shows the model for the part SIMCUDA_ARCH names (bench/cost.sh: the
 * simulator's presets).
 * Usage: cost                        the device's tables
 *        cost --card ARCH,SMS,MHZ,GBPS[,geforce][,notensor]
 *                                    a card by its public figures, no device needed
 *        cost --step modernbert-base the GEMMs of one training step, fp16, bf16, bf16shim */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "cost.h"
#include "plan.h"

/* Modeled as cuBLAS 12 runs bf16 GEMMs: the version users of Maxwell to Volta have (CUDA 13
 * starts at sm_75; cuBLAS 11 refuses bf16 below sm_70: doc/facts.md). */
static struct plan_device dev = {.cublas_major = 12};

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

/* Where the plan changes along a family of shapes: g(v) for every v = 1 .. limit, each change
 * printed (the model is not monotone: a fused tile of 128 rows is paid whole, so its choice
 * against the fp16 path can flip at every multiple of 128). */
static void crossovers(const char *what, struct cost_gemm (*g)(int64_t), int64_t limit)
{
	struct cost_gemm first = g(1);
	const char *prev = choice(&first);
	int found = 0;

	printf("  %s:", what);
	for (int64_t v = 2; v <= limit; v++) {
		struct cost_gemm x = g(v);
		const char *c = choice(&x);
		if (!strcmp(c, prev))
			continue;
		printf(" %s up to %lld, %s from %lld;", prev, (long long)(v - 1), c, (long long)v);
		prev = c;
		found = 1;
	}
	if (!found)
		printf(" %s throughout", prev);
	printf("\n");
}

static struct cost_gemm square(int64_t v) { return (struct cost_gemm){v, v, v, 1, 2, 0}; }
static struct cost_gemm tokens(int64_t v) { return (struct cost_gemm){v, 4096, 4096, 1, 2, 0}; }
static struct cost_gemm attention(int64_t v) { return (struct cost_gemm){64, v, v, 16, 2, 0}; }

/* One square product as PyTorch runs it in each type, and as bf16shim plans the bf16 one:
 * "8192^3 fp32 X fp16 X bf16 X bf16shim X plan P", X in TFLOPS (fp16: fp16 operands and C,
 * fp32 accumulation; C of the operands' type throughout). */
static void square_line(int64_t v)
{
	struct cost_gemm g32 = {v, v, v, 1, 4, 0}, g16 = {v, v, v, 1, 2, 0};
	struct cost_estimate e32 = {0}, e16 = {0}, ebf = {0};
	double flop = 2.0 * (double)v * (double)v * (double)v, us;
	struct plan p = plan_of(&g16, &us);

	cost_library_gemm(&dev.cost, &g32, 4, cost_fp32_rate(&dev.cost), &e32);
	cost_library_gemm(&dev.cost, &g16, 2, cost_fp16_rate(&dev.cost), &e16);
	printf("%lld^3 fp32 %.2f fp16 %.2f", (long long)v, flop / e32.us / 1e6,
	       cost_fp16_rate(&dev.cost) ? flop / e16.us / 1e6 : 0.0);
	if (cost_estimate(&dev.cost, &g16, COST_NATIVE, &ebf))
		printf(" bf16 %.2f", flop / ebf.us / 1e6);
	else
		printf(" bf16 -");
	if (!p.model.valid && plan_is_forward(p.step[0].decision) && ebf.us > 0)
		us = ebf.us;
	printf(" bf16shim %.2f plan %s\n", us > 0 ? flop / us / 1e6 : 0.0,
	       plan_decision_name(p.step[0].decision));
}

/* The GEMMs of one training step of ModernBERT-base (answerdotai/ModernBERT-base's
 * config.json: 22 layers, hidden 768, GLU intermediate 1152, 12 heads of 64) fine-tuned for
 * classification, batch 32 of 128 tokens, as PyTorch calls cuBLAS (column-major: a linear
 * layer's forward GEMM is m = out features, n = tokens, k = in features; its input gradient
 * m = in, n = tokens, k = out; its weight gradient m = in, n = out, k = tokens; attention by
 * batched products, 32 x 12 of them, the math path of scaled_dot_product_attention). */
#define STEP_TOKENS (32 * 128)
#define STEP_HEADS (32 * 12)
static const struct step_gemm {
	int64_t m, n, k, batch;
	int count;                   /* in the step: 22 layers, or once */
} modernbert_base[] = {
	/* Wqkv 768 -> 2304, attention out 768 -> 768, MLP in 768 -> 2 x 1152, out 1152 -> 768:
	 * forward, input gradient, weight gradient. */
	{2304, STEP_TOKENS, 768, 1, 22}, {768, STEP_TOKENS, 2304, 1, 22}, {768, 2304, STEP_TOKENS, 1, 22},
	{768, STEP_TOKENS, 768, 1, 22}, {768, STEP_TOKENS, 768, 1, 22}, {768, 768, STEP_TOKENS, 1, 22},
	{2304, STEP_TOKENS, 768, 1, 22}, {768, STEP_TOKENS, 2304, 1, 22}, {768, 2304, STEP_TOKENS, 1, 22},
	{768, STEP_TOKENS, 1152, 1, 22}, {1152, STEP_TOKENS, 768, 1, 22}, {1152, 768, STEP_TOKENS, 1, 22},
	/* Attention, per head: scores Q K^T (128 x 128 x 64) and P V (64 x 128 x 128) forward;
	 * dP = dO V^T, dV, dQ, dK backward. */
	{128, 128, 64, STEP_HEADS, 22}, {64, 128, 128, STEP_HEADS, 22},
	{128, 128, 64, STEP_HEADS, 22}, {64, 128, 128, STEP_HEADS, 22},
	{64, 128, 128, STEP_HEADS, 22}, {64, 128, 128, STEP_HEADS, 22},
	/* The classification head's dense 768 -> 768 on the 32 pooled rows. */
	{768, 32, 768, 1, 1}, {768, 32, 768, 1, 1}, {768, 768, 32, 1, 1},
};

static void step_line(void)
{
	double fp16 = 0, bf16 = 0, shim = 0, us;

	for (size_t i = 0; i < sizeof modernbert_base / sizeof modernbert_base[0]; i++) {
		const struct step_gemm *s = &modernbert_base[i];
		struct cost_gemm g = {s->m, s->n, s->k, s->batch, 2, 0};
		struct cost_estimate e16 = {0}, ebf = {0};
		struct plan p = plan_of(&g, &us);

		cost_library_gemm(&dev.cost, &g, 2, cost_fp16_rate(&dev.cost), &e16);
		cost_estimate(&dev.cost, &g, COST_NATIVE, &ebf);
		fp16 += s->count * e16.us;
		bf16 += s->count * ebf.us;
		shim += s->count * (p.model.valid ? us : ebf.us);
	}
	printf("modernbert-base step GEMMs: fp16 %.1f ms, bf16 %.1f ms, bf16shim %.1f ms\n",
	       fp16 / 1e3, bf16 / 1e3, shim / 1e3);
}

/* --card ARCH,SMS,MHZ,GBPS[,geforce][,notensor]: ARCH sm_75 (or 75), the SM count, the
 * boost clock in MHz and the memory bandwidth in GB/s as NVIDIA lists them. */
static int card_from(const char *spec)
{
	char buf[256], *save = NULL, *f[6] = {0};
	int n = 0, sm, sms, geforce = 0, notensor = 0;
	double mhz, gbps;

	if (strlen(spec) >= sizeof buf)
		return 0;
	strcpy(buf, spec);
	for (char *t = strtok_r(buf, ",", &save); t && n < 6; t = strtok_r(NULL, ",", &save))
		f[n++] = t;
	if (n < 4 || sscanf(f[0], "sm_%d", &sm) != 1) {
		if (n < 4 || sscanf(f[0], "%d", &sm) != 1)
			return 0;
	}
	sms = atoi(f[1]);
	mhz = atof(f[2]);
	gbps = atof(f[3]);
	for (int i = 4; i < n; i++) {
		if (!strcmp(f[i], "geforce"))
			geforce = 1;
		else if (!strcmp(f[i], "notensor"))
			notensor = 1;
		else
			return 0;
	}
	if (sm < 30 || sms <= 0 || mhz <= 0 || gbps <= 0)
		return 0;
	/* No part name: the generic figures.  The bandwidth as an 8-bit bus at half the rate. */
	dev.sm = sm;
	dev.cost = cost_device_from(sm, geforce ? "GeForce" : NULL, sms, (int)(mhz * 1000),
				    (int)(gbps * 5e5), 8);
	if (notensor)
		dev.cost.tensor_cores = 0;
	dev.tensor_cores = dev.cost.tensor_cores;
	printf("card sm_%d, %d SMs at %.0f MHz, %.0f GB/s%s%s; per second %.1f T fp32, %.1f T "
	       "tensor, %.1f T native bf16 multiply-adds (modeled)\n", sm, sms, mhz, gbps,
	       geforce ? ", GeForce" : "", notensor ? ", no tensor cores" : "",
	       cost_fp32_rate(&dev.cost) / 1e12, cost_tensor_rate(&dev.cost) / 1e12,
	       cost_bf16_rate(&dev.cost) / 1e12);
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: cost [--card ARCH,SMS,MHZ,GBPS[,geforce][,notensor]] "
			"[--step modernbert-base]\n");
	return 2;
}

/* The device the runtime reports (the simulator's preset on the simulator). */
static int device_from_runtime(void)
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
		return 0;
	}
	dev.sm = major * 10 + minor;
	dev.cost = cost_device_from(dev.sm, prop.name, a[0], a[1], a[2], a[3]);
	dev.tensor_cores = dev.cost.tensor_cores;
	printf("%s: sm_%d, %d SMs at %d MHz, %.0f GB/s; per second %.1f T fp32, %.1f T tensor, "
	       "%.1f T native bf16 multiply-adds\n", prop.name, dev.sm, a[0], a[1] / 1000,
	       cost_bandwidth(&dev.cost) / 1e9, cost_fp32_rate(&dev.cost) / 1e12,
	       cost_tensor_rate(&dev.cost) / 1e12, cost_bf16_rate(&dev.cost) / 1e12);
	return 1;
}

int main(int argc, char **argv)
{
	const char *card = NULL, *step = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--card") && i + 1 < argc)
			card = argv[++i];
		else if (!strcmp(argv[i], "--step") && i + 1 < argc)
			step = argv[++i];
		else
			return usage();
	}
	if (step && strcmp(step, "modernbert-base"))
		return usage();
	if (card ? !card_from(card) : !device_from_runtime())
		return card ? usage() : 1;
	if (step) {
		step_line();
		return 0;
	}
	square_line(8192);
	square_line(4096);
	if (card)
		return 0;
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
