/* A cuBLASLt client written against the real API, calling it as PyTorch's gemm_and_bias does
 * (doc/facts.md): MatmulDescCreate(COMPUTE_32F, R_32F), TRANSA/TRANSB, EPILOGUE,
 * BIAS_POINTER (+ BIAS_DATA_TYPE for a bf16 bias), layouts (+ BATCH_COUNT and
 * STRIDED_BATCH_OFFSET), a preference with MAX_WORKSPACE_BYTES and MIN_ALIGNMENT_*, the
 * heuristic asked for one algorithm, then cublasLtMatmul with it.  Variants go beyond what
 * PyTorch sets: row-major and mixed orders, a D apart from C, device scalars, no algorithm,
 * a pure cuBLASLt handle.
 *
 *   lt_client expect-none     the heuristic finds nothing for any bf16 case (no shim, sm_61)
 *   lt_client check           every case: heuristic >= 1, result within the accuracy contract
 *   lt_client tf32 | tf32-none  an fp32 FAST_TF32 matmul: succeeds with fp32 accuracy | is
 *                             refused (no shim, sm_75)
 *   lt_client unhandled [N]   epilogues and attributes no rewrite honours: prints each
 *                             call's status and a hash of D (compared with and without
 *                             shim); N rounds of them
 *   lt_client save FILE | load FILE   save the heuristic's algorithm; run a matmul with it
 *
 * Accuracy contract (README "Accuracy"), for pre = alpha * sum a b + beta * C + bias:
 *   |got - act(pre)| <= L * 2^-24 ((k + 4) |alpha| sum |a b| + 3 |beta C| + 2 |bias|)
 *                       + 4 ulp(act(pre)) (GELU only) + D's rounding
 * with L = 1.13 for GELU (its largest slope), 1 otherwise. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lt_harness.h"

/* ------------------------------------------------------------------ the cases */
static const cublasLtEpilogue_t epilogues[] = {
	CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_RELU, CUBLASLT_EPILOGUE_BIAS,
	CUBLASLT_EPILOGUE_RELU_BIAS, CUBLASLT_EPILOGUE_GELU, CUBLASLT_EPILOGUE_GELU_BIAS};
static const char *const epilogue_names[] = {"DEFAULT", "RELU", "BIAS", "RELU_BIAS", "GELU",
					     "GELU_BIAS"};

/* Variants, each run with all six epilogues. */
static const struct lcase variants[] = {
	/* PyTorch's addmm: column-major, A transposed (weight), bf16 bias, C == D. */
	{"pytorch bf16", 40, 24, 32, 1, CUBLAS_OP_T, CUBLAS_OP_N, COL, CUDA_R_16BF, 0, CUDA_R_16BF,
	 0, 0, 0, 0, 0, 0, 1.0f, 0.0f},
	{"f32 out f32 bias", 40, 24, 32, 1, CUBLAS_OP_N, CUBLAS_OP_N, COL, CUDA_R_32F, 0,
	 CUDA_R_32F, 0, 0, 0, 0, 0, 0, 1.5f, 0.5f},
	{"bf16 out f32 bias", 33, 20, 17, 1, CUBLAS_OP_N, CUBLAS_OP_T, COL, CUDA_R_16BF, 0,
	 CUDA_R_32F, 0, 0, 0, 1, 0, 0, 0.75f, 0.25f},
	{"row-major", 40, 24, 32, 1, CUBLAS_OP_N, CUBLAS_OP_T, ROW, CUDA_R_16BF, 0, CUDA_R_16BF,
	 0, 0, 0, 0, 0, 0, 1.0f, 1.0f},
	{"row-major f32 TT", 21, 36, 19, 1, CUBLAS_OP_T, CUBLAS_OP_T, ROW, CUDA_R_32F, 0,
	 CUDA_R_32F, 0, 0, 0, 0, 1, 0, 1.0f, -0.5f},
	{"mixed orders", 30, 28, 24, 1, CUBLAS_OP_N, CUBLAS_OP_N, MIXED, CUDA_R_32F, 0, CUDA_R_32F,
	 0, 0, 0, 0, 0, 0, 1.0f, 0.0f},
	{"batched, bias per item", 24, 20, 16, 3, CUBLAS_OP_T, CUBLAS_OP_N, COL, CUDA_R_16BF, 0,
	 CUDA_R_16BF, 1, 0, 0, 0, 0, 0, 1.0f, 0.5f},
	{"batched row-major, shared bias", 20, 24, 16, 2, CUBLAS_OP_N, CUBLAS_OP_N, ROW,
	 CUDA_R_32F, 0, CUDA_R_32F, 0, 0, 0, 0, 0, 1, 2.0f, 0.0f},
	{"device scalars", 40, 24, 32, 1, CUBLAS_OP_T, CUBLAS_OP_N, COL, CUDA_R_16BF, 0,
	 CUDA_R_16BF, 0, 1, 0, 0, 0, 0, 1.25f, 0.5f},
	{"device scalars, batched row-major", 24, 20, 16, 2, CUBLAS_OP_N, CUBLAS_OP_T, ROW,
	 CUDA_R_32F, 0, CUDA_R_32F, 1, 1, 0, 0, 0, 0, 1.0f, 0.0f},
	{"D apart from C", 40, 24, 32, 1, CUBLAS_OP_N, CUBLAS_OP_N, COL, CUDA_R_16BF, 0,
	 CUDA_R_16BF, 0, 0, 1, 0, 0, 0, 1.0f, 0.75f},
	{"D apart from C, batched, device scalars", 24, 20, 16, 3, CUBLAS_OP_T, CUBLAS_OP_T, COL,
	 CUDA_R_32F, 0, CUDA_R_32F, 1, 1, 1, 1, 0, 1, 1.0f, 1.0f},
	{"D apart from C, row-major, no algorithm", 20, 30, 16, 2, CUBLAS_OP_N, CUBLAS_OP_N, ROW,
	 CUDA_R_16BF, 0, CUDA_R_16BF, 1, 0, 1, 0, 1, 0, 0.5f, 2.0f},
	/* Few outputs over a long k: the fused path's tensor-core kernels split k (2 ways on
	 * the sm_75 and sm_70 presets) and the epilogue that adds the parts applies the bias,
	 * the activation, alpha and beta C. */
	{"pytorch bf16, long k", 40, 24, 1024, 1, CUBLAS_OP_T, CUBLAS_OP_N, COL, CUDA_R_16BF, 0,
	 CUDA_R_16BF, 0, 0, 0, 0, 0, 0, 1.0f, 0.0f},
	{"long k, D apart, device scalars", 40, 24, 768, 1, CUBLAS_OP_N, CUBLAS_OP_T, COL,
	 CUDA_R_32F, 0, CUDA_R_32F, 0, 1, 1, 0, 0, 0, 1.5f, 0.5f},
	{"row-major, long k", 40, 24, 1024, 1, CUBLAS_OP_N, CUBLAS_OP_N, ROW, CUDA_R_16BF, 0,
	 CUDA_R_16BF, 0, 0, 0, 0, 0, 0, 0.75f, 1.0f},
	/* Decode shapes (n or m <= 16): the bf16-reading kernel, epilogue included; m <= 16
	 * column-major runs as C^T there, a row-major D as D^T. */
	{"decode n=4", 48, 4, 40, 1, CUBLAS_OP_T, CUBLAS_OP_N, COL, CUDA_R_16BF, 0, CUDA_R_16BF,
	 0, 0, 0, 0, 0, 0, 1.0f, 0.0f},
	{"decode m=5 row-major", 5, 40, 24, 2, CUBLAS_OP_N, CUBLAS_OP_N, ROW, CUDA_R_32F, 0,
	 CUDA_R_32F, 1, 0, 0, 0, 0, 0, 1.0f, 0.5f},
	{"decode m=6, D apart, device scalars", 6, 36, 20, 2, CUBLAS_OP_T, CUBLAS_OP_T, COL,
	 CUDA_R_16BF, 0, CUDA_R_16BF, 1, 1, 1, 0, 0, 0, 1.5f, 0.5f},
};
#define NVARIANTS (sizeof variants / sizeof variants[0])

static int run_case(const struct lcase *lc, cublasHandle_t h, cublasLtHandle_t lth,
		    cudaStream_t stream, int expect_none)
{
	struct run r;
	double worst = 0;
	int bad = 0;
	cublasStatus_t st;

	setup(lc, &r, CUDA_R_16BF, h, lth);
	describe(lc, &r, CUBLAS_COMPUTE_32F, CUDA_R_32F);
	heuristic(&r);
	if (expect_none) {
		printf("%-50s heuristic status=%d returned=%d\n", lc->name, r.heur_status,
		       r.returned);
		bad = r.returned != 0;
		release(&r, lc->separate_d);
		return bad;
	}
	if (r.heur_status != CUBLAS_STATUS_SUCCESS || r.returned < 1) {
		printf("%-50s heuristic status=%d returned=%d: FAIL\n", lc->name, r.heur_status,
		       r.returned);
		release(&r, lc->separate_d);
		return 1;
	}
	st = matmul(lc, &r, lc->null_algo ? NULL : &r.result.algo, stream);
	CK(cudaStreamSynchronize(stream));
	if (st != CUBLAS_STATUS_SUCCESS) {
		printf("%-50s matmul status=%d: FAIL\n", lc->name, st);
		bad = 1;
	} else {
		bad = verify(lc, &r, &worst);
		printf("%-50s returned=%d worst %.3f of the bound, %d bad\n", lc->name, r.returned,
		       worst, bad);
	}
	release(&r, lc->separate_d);
	return bad;
}

static int all_cases(int expect_none)
{
	cublasHandle_t h;
	cublasLtHandle_t lth;
	cudaStream_t stream;
	int failures = 0;

	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cublasLtCreate(&lth) != CUBLAS_STATUS_SUCCESS)
		return 2;
	CK(cudaStreamCreate(&stream));
	for (size_t v = 0; v < NVARIANTS; v++)
		for (size_t e = 0; e < sizeof epilogues / sizeof epilogues[0]; e++) {
			struct lcase lc = variants[v];
			char name[128];
			snprintf(name, sizeof name, "%s, %s", lc.name, epilogue_names[e]);
			lc.name = name;
			lc.epilogue = epilogues[e];
			if (!has_bias(lc.epilogue))
				lc.bias_type = CUDA_R_32F; /* allocated, never set or read */
			/* Every other case on a pure cuBLASLt handle. */
			lc.lt_handle = (v + e) % 2;
			failures += run_case(&lc, h, lth, stream, expect_none) != 0;
		}
	cudaStreamDestroy(stream);
	cublasLtDestroy(lth);
	cublasDestroy(h);
	printf("%d case(s) failed\n", failures);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ TF32 */
static int tf32(int expect_refused)
{
	struct lcase lc = {"fp32 FAST_TF32", 40, 24, 64, 1, CUBLAS_OP_N, CUBLAS_OP_N, COL, CUDA_R_32F,
			   CUBLASLT_EPILOGUE_DEFAULT, 0, 0, 0, 0, 0, 0, 0, 1.0f, 0.0f};
	cublasHandle_t h;
	struct run r;
	double worst = 0;
	int bad;

	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
		return 2;
	/* Operands with full 24-bit significands: TF32 keeps 10 bits and would miss the bound. */
	setup(&lc, &r, CUDA_R_32F, h, NULL);
	describe(&lc, &r, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F);
	heuristic(&r);
	printf("%s: heuristic status=%d returned=%d\n", lc.name, r.heur_status, r.returned);
	if (expect_refused)
		return r.returned == 0 ? 0 : 1;
	if (r.heur_status != CUBLAS_STATUS_SUCCESS || r.returned < 1)
		return 1;
	if (matmul(&lc, &r, &r.result.algo, 0) != CUBLAS_STATUS_SUCCESS) {
		printf("matmul failed\n");
		return 1;
	}
	CK(cudaDeviceSynchronize());
	bad = verify(&lc, &r, &worst);
	printf("%s: worst %.3f of the fp32 bound, %d bad\n", lc.name, worst, bad);
	return bad ? 1 : 0;
}

/* ------------------------------------------------------------------ unhandled */
static uint64_t hash(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ull;
	return h;
}

/* Calls no rewrite takes: each line is the heuristic's status and count, the matmul's status
 * (no algorithm) and a hash of D and of the aux buffer afterwards. */
static int unhandled(int rounds)
{
	static const struct {
		const char *name;
		cublasLtEpilogue_t epilogue;
		int attr;                 /* an extra attribute to set, or -1 */
		cudaDataType ab;
	} calls[] = {
		{"RELU_AUX", CUBLASLT_EPILOGUE_RELU_AUX, -1, CUDA_R_16BF},
		{"RELU_AUX_BIAS", CUBLASLT_EPILOGUE_RELU_AUX_BIAS, -1, CUDA_R_16BF},
		{"GELU_AUX", CUBLASLT_EPILOGUE_GELU_AUX, -1, CUDA_R_16BF},
		{"GELU_AUX_BIAS", CUBLASLT_EPILOGUE_GELU_AUX_BIAS, -1, CUDA_R_16BF},
		{"DRELU", CUBLASLT_EPILOGUE_DRELU, -1, CUDA_R_16BF},
		{"DGELU_BGRAD", CUBLASLT_EPILOGUE_DGELU_BGRAD, -1, CUDA_R_16BF},
		{"BGRADA", CUBLASLT_EPILOGUE_BGRADA, -1, CUDA_R_16BF},
		{"BGRADB", CUBLASLT_EPILOGUE_BGRADB, -1, CUDA_R_16BF},
		{"A scale pointer", CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
		 CUDA_R_16BF},
		{"amax pointer", CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER,
		 CUDA_R_16BF},
		{"vector alpha", CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_MATMUL_DESC_POINTER_MODE,
		 CUDA_R_16BF},
		{"fp32 plain", CUBLASLT_EPILOGUE_BIAS, -1, CUDA_R_32F},
	};
	cublasHandle_t h;
	size_t n = sizeof calls / sizeof calls[0];

	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
		return 2;
	for (size_t i = 0; i < (size_t)rounds * n; i++) {
		const __typeof__(calls[0]) *call = &calls[i % n];
		struct lcase lc = {call->name, 32, 24, 16, 1, CUBLAS_OP_T, CUBLAS_OP_N, COL, call->ab,
				   call->epilogue, call->ab, 0, 0, 0, 0, 1, 0, 1.0f, 0.0f};
		struct run r;
		void *aux, *scale;
		int64_t aux_ld = 32;
		unsigned char *d;
		cublasStatus_t st;

		setup(&lc, &r, call->ab, h, NULL);
		describe(&lc, &r, CUBLAS_COMPUTE_32F, CUDA_R_32F);
		CK(cudaMalloc(&aux, 32 * 24 * 4));
		CK(cudaMemset(aux, 0x5a, 32 * 24 * 4));
		CK(cudaMalloc(&scale, 16));
		CK(cudaMemset(scale, 0, 16));
		LT(cublasLtMatmulDescSetAttribute(r.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &r.bias.dev,
						  sizeof r.bias.dev));
		LT(cublasLtMatmulDescSetAttribute(r.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux,
						  sizeof aux));
		LT(cublasLtMatmulDescSetAttribute(r.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &aux_ld,
						  sizeof aux_ld));
		if (call->attr == CUBLASLT_MATMUL_DESC_POINTER_MODE) {
			int32_t pm = CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO;
			LT(cublasLtMatmulDescSetAttribute(r.desc, call->attr, &pm, sizeof pm));
		} else if (call->attr >= 0) {
			LT(cublasLtMatmulDescSetAttribute(r.desc, call->attr, &scale, sizeof scale));
		}
		heuristic(&r);
		st = matmul(&lc, &r, NULL, 0);
		CK(cudaDeviceSynchronize());
		d = malloc(r.d.bytes + 32 * 24 * 4);
		CK(cudaMemcpy(d, r.d.dev, r.d.bytes, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(d + r.d.bytes, aux, 32 * 24 * 4, cudaMemcpyDeviceToHost));
		printf("%-16s heuristic status=%d returned=%d matmul status=%d D=%016llx aux=%016llx\n",
		       call->name, r.heur_status, r.returned, st,
		       (unsigned long long)hash(d, r.d.bytes),
		       (unsigned long long)hash(d + r.d.bytes, 32 * 24 * 4));
		free(d);
		cudaFree(aux);
		cudaFree(scale);
		release(&r, 0);
	}
	cublasDestroy(h);
	return 0;
}

/* ------------------------------------------------------------------ an algorithm kept */
static const struct lcase kept = {"kept algorithm", 40, 24, 32, 1, CUBLAS_OP_T, CUBLAS_OP_N,
				  COL, CUDA_R_16BF, CUBLASLT_EPILOGUE_GELU_BIAS, CUDA_R_16BF,
				  0, 0, 0, 0, 0, 0, 1.0f, 0.0f};

static int save_or_load(const char *path, int save)
{
	cublasHandle_t h;
	struct run r;
	double worst = 0;
	cublasLtMatmulAlgo_t algo;
	FILE *f;
	int bad;

	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
		return 2;
	setup(&kept, &r, CUDA_R_16BF, h, NULL);
	describe(&kept, &r, CUBLAS_COMPUTE_32F, CUDA_R_32F);
	if (save) {
		if (heuristic(&r) != CUBLAS_STATUS_SUCCESS || r.returned < 1)
			return 1;
		f = fopen(path, "wb");
		if (!f || fwrite(&r.result.algo, sizeof algo, 1, f) != 1 || fclose(f))
			return 2;
		return 0;
	}
	f = fopen(path, "rb");
	if (!f || fread(&algo, sizeof algo, 1, f) != 1)
		return 2;
	fclose(f);
	if (matmul(&kept, &r, &algo, 0) != CUBLAS_STATUS_SUCCESS) {
		printf("matmul with the kept algorithm failed\n");
		return 1;
	}
	CK(cudaDeviceSynchronize());
	bad = verify(&kept, &r, &worst);
	printf("%s: worst %.3f of the bound, %d bad\n", kept.name, worst, bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "expect-none"))
		return all_cases(1);
	if (argc == 2 && !strcmp(argv[1], "check"))
		return all_cases(0);
	if (argc == 2 && !strcmp(argv[1], "tf32"))
		return tf32(0);
	if (argc == 2 && !strcmp(argv[1], "tf32-none"))
		return tf32(1);
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "unhandled"))
		return unhandled(argc == 3 ? atoi(argv[2]) : 1);
	if (argc == 3 && (!strcmp(argv[1], "save") || !strcmp(argv[1], "load")))
		return save_or_load(argv[2], !strcmp(argv[1], "save"));
	fprintf(stderr, "usage: %s expect-none | check | tf32 | tf32-none | unhandled [N] | "
		"save FILE | load FILE\n", argv[0]);
	return 2;
}
