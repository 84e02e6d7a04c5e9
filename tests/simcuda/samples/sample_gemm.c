/* The acceptance sample: what a CUDA program using cuBLAS does (handle, stream, cudaMalloc,
 * async copies, GemmEx / StridedBatchedEx / BatchedEx, a cuBLASLt matmul with a bias epilogue
 * chosen by the heuristic, sync, free, cudaDeviceReset), each result checked against an fp64
 * reference.  Built against the real CUDA headers and libraries; the tests run it on the
 * simulated stack at several architectures.
 * Usage: sample_gemm [--expect-sm N] [CASE...]   (no CASE: all cases) */
#include <string.h>

#include "samples.h"

struct sample {
	cudaStream_t stream;
	cublasHandle_t blas;
	cublasLtHandle_t lt;
	void *workspace;
	size_t workspace_bytes;
	int sm;
};

/* doc/facts.md: bf16 cublasGemmEx returns CUBLAS_STATUS_NOT_SUPPORTED on Maxwell and Pascal
 * (sm_5x/6x), not ARCH_MISMATCH; Volta and Turing run it (slowly); Ampere on has bf16 MMA. */
static int bf16_gemm_supported(int sm)
{
	return sm >= 70;
}

/* PyTorch passes the legacy cudaDataType spelling of the compute type (doc/facts.md). */
#define LEGACY_COMPUTE_32F ((cublasComputeType_t)CUDA_R_32F)

enum gemm_api { GEMM_EX, GEMM_STRIDED, GEMM_BATCHED };

static const struct gemm_case {
	const char *name;
	enum gemm_api api;
	char ta, tb;
	int m, n, k, pad;   /* pad: extra rows in every leading dimension */
	int batch;
	cudaDataType ab, c;
	cublasComputeType_t compute;
	cublasGemmAlgo_t algo;
	double alpha, beta;
} gemm_cases[] = {
	{"gemm_ex_f32", GEMM_EX, 'N', 'N', 37, 19, 23, 3, 1, CUDA_R_32F, CUDA_R_32F,
	 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, 1.5, 0.5},
	{"gemm_ex_f16_f32out", GEMM_EX, 'T', 'N', 33, 17, 40, 1, 1, CUDA_R_16F, CUDA_R_32F,
	 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, 1.0, 0.25},
	{"gemm_ex_f16_tensor_op", GEMM_EX, 'N', 'T', 16, 24, 32, 0, 1, CUDA_R_16F, CUDA_R_16F,
	 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP, 1.0, 0.0},
	/* Exactly PyTorch's bf16 addmm call (doc/facts.md "How PyTorch calls cuBLAS"). */
	{"gemm_ex_bf16", GEMM_EX, 'T', 'N', 40, 24, 64, 0, 1, CUDA_R_16BF, CUDA_R_16BF,
	 LEGACY_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP, 1.0, 0.0},
	{"gemm_ex_bf16_f32out", GEMM_EX, 'N', 'N', 20, 30, 50, 2, 1, CUDA_R_16BF, CUDA_R_32F,
	 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, 1.0, 1.0},
	{"strided_batched_ex_f16", GEMM_STRIDED, 'N', 'T', 12, 10, 16, 1, 3, CUDA_R_16F,
	 CUDA_R_16F, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, 1.0, 0.5},
	/* PyTorch's bf16 bmm. */
	{"strided_batched_ex_bf16", GEMM_STRIDED, 'T', 'N', 16, 8, 32, 0, 4, CUDA_R_16BF,
	 CUDA_R_16BF, LEGACY_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP, 1.0, 0.0},
	{"batched_ex_f32", GEMM_BATCHED, 'N', 'N', 9, 7, 11, 1, 4, CUDA_R_32F, CUDA_R_32F,
	 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, 2.0, -1.0},
	{"batched_ex_bf16", GEMM_BATCHED, 'T', 'T', 8, 8, 8, 0, 2, CUDA_R_16BF, CUDA_R_32F,
	 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, 1.0, 0.0},
};

static cublasOperation_t op_of(char t)
{
	return t == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
}

/* Which slice of operand w (0: A, 1: B, 2: C) the i-th GEMM of a batch uses.  BatchedEx's
 * pointer arrays permute each operand differently, so a front-end that mixes up the arrays
 * or reads them as strides is caught. */
static int slice_of(enum gemm_api api, int w, int i, int batch)
{
	if (api != GEMM_BATCHED)
		return i;
	return w == 0 ? i : w == 1 ? batch - 1 - i : (i + 1) % batch;
}

static cublasStatus_t call_gemm(struct sample *s, const struct gemm_case *g, int lda, int ldb,
				int ldc, size_t sa, size_t sb, size_t sc, dbuf *A, dbuf *B,
				dbuf *C, void **arrays)
{
	float alpha = (float)g->alpha, beta = (float)g->beta;
	cublasOperation_t ta = op_of(g->ta), tb = op_of(g->tb);

	switch (g->api) {
	case GEMM_EX:
		return cublasGemmEx(s->blas, ta, tb, g->m, g->n, g->k, &alpha, A->dev, g->ab, lda,
				    B->dev, g->ab, ldb, &beta, C->dev, g->c, ldc, g->compute,
				    g->algo);
	case GEMM_STRIDED:
		return cublasGemmStridedBatchedEx(s->blas, ta, tb, g->m, g->n, g->k, &alpha,
						  A->dev, g->ab, lda, (long long)sa, B->dev, g->ab,
						  ldb, (long long)sb, &beta, C->dev, g->c, ldc,
						  (long long)sc, g->batch, g->compute, g->algo);
	case GEMM_BATCHED:
		return cublasGemmBatchedEx(s->blas, ta, tb, g->m, g->n, g->k, &alpha,
					   (const void *const *)arrays[0], g->ab, lda,
					   (const void *const *)arrays[1], g->ab, ldb, &beta,
					   (void *const *)arrays[2], g->c, ldc, g->batch, g->compute,
					   g->algo);
	}
	return CUBLAS_STATUS_INTERNAL_ERROR;
}

static int run_gemm_case(struct sample *s, const struct gemm_case *g)
{
	int lda = (g->ta == 'N' ? g->m : g->k) + g->pad, acols = g->ta == 'N' ? g->k : g->m;
	int ldb = (g->tb == 'N' ? g->k : g->n) + g->pad, bcols = g->tb == 'N' ? g->n : g->k;
	int ldc = g->m + g->pad;
	/* Strides leave a gap between slices, as views into a bigger tensor do. */
	size_t sa = (size_t)lda * acols + 5, sb = (size_t)ldb * bcols + 3, sc = (size_t)ldc * g->n;
	size_t na = sa * g->batch, nb = sb * g->batch, nc = sc * g->batch;
	double *a = calloc(na, sizeof *a), *b = calloc(nb, sizeof *b), *c0 = calloc(nc, sizeof *c0);
	double *ref = calloc(nc, sizeof *ref), *mag = calloc(nc, sizeof *mag);
	double *got = calloc(nc, sizeof *got);
	void *arrays[3] = {NULL, NULL, NULL}, *host_arrays[3] = {NULL, NULL, NULL};
	int want_ok = !(g->ab == CUDA_R_16BF && !bf16_gemm_supported(s->sm)), bad = 0;
	dbuf A, B, C;
	cublasStatus_t st, want;
	unsigned char *c_image;

	if (!a || !b || !c0 || !ref || !mag || !got)
		abort();
	fill_random(g->ab, a, na, 1);
	fill_random(g->ab, b, nb, 2);
	fill_random(g->c, c0, nc, 3);
	dbuf_upload(&A, g->ab, a, na, s->stream);
	dbuf_upload(&B, g->ab, b, nb, s->stream);
	dbuf_upload(&C, g->c, c0, nc, s->stream);
	c_image = malloc(nc * type_size(g->c));
	memcpy(c_image, C.host, nc * type_size(g->c));
	if (g->api == GEMM_BATCHED) {
		dbuf *bufs[3] = {&A, &B, &C};
		size_t strides[3] = {sa, sb, sc};
		for (int w = 0; w < 3; w++) {
			void **h = malloc(g->batch * sizeof *h);
			for (int i = 0; i < g->batch; i++)
				h[i] = (char *)bufs[w]->dev + strides[w] * type_size(bufs[w]->type) *
				       (size_t)slice_of(g->api, w, i, g->batch);
			host_arrays[w] = h;
			CHECK_RT(cudaMalloc(&arrays[w], g->batch * sizeof *h));
			CHECK_RT(cudaMemcpyAsync(arrays[w], h, g->batch * sizeof *h,
						 cudaMemcpyHostToDevice, s->stream));
		}
	}

	st = call_gemm(s, g, lda, ldb, ldc, sa, sb, sc, &A, &B, &C, arrays);
	want = want_ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED;
	dbuf_download(&C, s->stream);
	CHECK_RT(cudaStreamSynchronize(s->stream));
	dbuf_values(&C, got);

	printf("case %-24s %c%c m=%d n=%d k=%d batch=%d %s->%s: %s (expected %s)", g->name, g->ta,
	       g->tb, g->m, g->n, g->k, g->batch, type_name(g->ab), type_name(g->c),
	       blas_status_name(st), blas_status_name(want));
	if (st != want) {
		bad = 1;
	} else if (st == CUBLAS_STATUS_SUCCESS) {
		memcpy(ref, c0, nc * sizeof *ref);
		for (int i = 0; i < g->batch; i++) {
			size_t ia = slice_of(g->api, 0, i, g->batch) * sa;
			size_t ib = slice_of(g->api, 1, i, g->batch) * sb;
			size_t ic = slice_of(g->api, 2, i, g->batch) * sc;
			ref_gemm(g->ta, g->tb, g->m, g->n, g->k, g->alpha, a + ia, lda, b + ib,
				 ldb, g->beta, ref + ic, ldc, mag + ic);
			bad += check_gemm(g->name, g->c, g->m, g->n, g->k, ldc, got + ic,
					  ref + ic, mag + ic, c0 + ic) != 0;
		}
	} else {
		/* A refused call must leave C alone. */
		bad = memcmp(c_image, C.host, nc * type_size(g->c)) != 0;
		if (bad)
			fprintf(stderr, "  %s: C changed by a call that returned %s\n", g->name,
				blas_status_name(st));
	}
	printf(" %s\n", bad ? "MISMATCH" : "ok");
	if (st != want)
		fprintf(stderr, "  %s: status %s, want %s on sm_%d\n", g->name,
			blas_status_name(st), blas_status_name(want), s->sm);

	for (int w = 0; w < 3; w++) {
		if (arrays[w])
			CHECK_RT(cudaFree(arrays[w]));
		free(host_arrays[w]);
	}
	dbuf_free(&A);
	dbuf_free(&B);
	dbuf_free(&C);
	free(c_image);
	free(a), free(b), free(c0), free(ref), free(mag), free(got);
	return bad != 0;
}

/* PyTorch's addmm with a bias (gemm_and_bias, doc/facts.md): D = alpha op(A) op(B) + beta C
 * + bias broadcast along the rows, through cublasLtMatmulAlgoGetHeuristic and cublasLtMatmul. */
static int run_lt_bias(struct sample *s)
{
	const int m = 24, n = 16, k = 40;
	const float alpha = 1.0f, beta = 0.5f;
	cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
	cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
	uint64_t ws = s->workspace_bytes;
	double a[40 * 24], b[40 * 16], c[24 * 16], bias[24], ref[24 * 16], mag[24 * 16];
	double got[24 * 16], cafter[24 * 16];
	cublasLtMatmulDesc_t op = NULL;
	cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL;
	cublasLtMatmulPreference_t pref = NULL;
	cublasLtMatmulHeuristicResult_t res;
	int returned = 0, bad = 0;
	dbuf A, B, C, D, Bias;
	cublasStatus_t st;

	fill_random(CUDA_R_32F, a, (size_t)k * m, 11);
	fill_random(CUDA_R_32F, b, (size_t)k * n, 12);
	fill_random(CUDA_R_32F, c, (size_t)m * n, 13);
	fill_random(CUDA_R_32F, bias, m, 14);
	fill_random(CUDA_R_32F, got, (size_t)m * n, 15); /* D's prior contents */
	dbuf_upload(&A, CUDA_R_32F, a, (size_t)k * m, s->stream);
	dbuf_upload(&B, CUDA_R_32F, b, (size_t)k * n, s->stream);
	dbuf_upload(&C, CUDA_R_32F, c, (size_t)m * n, s->stream);
	dbuf_upload(&D, CUDA_R_32F, got, (size_t)m * n, s->stream);
	dbuf_upload(&Bias, CUDA_R_32F, bias, m, s->stream);

	CHECK_BLAS(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
	CHECK_BLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
	CHECK_BLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
	CHECK_BLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi,
						  sizeof epi));
	CHECK_BLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &Bias.dev,
						  sizeof Bias.dev));
	CHECK_BLAS(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, k, m, k));
	CHECK_BLAS(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, k));
	CHECK_BLAS(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, m));
	CHECK_BLAS(cublasLtMatmulPreferenceCreate(&pref));
	CHECK_BLAS(cublasLtMatmulPreferenceSetAttribute(
		pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));

	memset(&res, 0, sizeof res);
	st = cublasLtMatmulAlgoGetHeuristic(s->lt, op, la, lb, lc, lc, pref, 1, &res, &returned);
	printf("case %-24s heuristic: %s, %d result(s), workspace %zu", "lt_matmul_bias_f32",
	       blas_status_name(st), returned, returned > 0 ? res.workspaceSize : 0);
	if (st != CUBLAS_STATUS_SUCCESS || returned < 1 || res.state != CUBLAS_STATUS_SUCCESS ||
	    res.workspaceSize > ws) {
		printf(" MISMATCH\n");
		fprintf(stderr, "  lt_matmul_bias_f32: heuristic %s, %d results, state %s, "
			"workspace %zu of %zu\n", blas_status_name(st), returned,
			blas_status_name(res.state), res.workspaceSize, (size_t)ws);
		bad = 1;
		goto out;
	}
	st = cublasLtMatmul(s->lt, op, &alpha, A.dev, la, B.dev, lb, &beta, C.dev, lc, D.dev, lc,
			    &res.algo, s->workspace, s->workspace_bytes, s->stream);
	dbuf_download(&D, s->stream);
	dbuf_download(&C, s->stream);
	CHECK_RT(cudaStreamSynchronize(s->stream));
	printf("; matmul: %s (expected CUBLAS_STATUS_SUCCESS)", blas_status_name(st));
	if (st != CUBLAS_STATUS_SUCCESS) {
		bad = 1;
	} else {
		dbuf_values(&D, got);
		dbuf_values(&C, cafter);
		memcpy(ref, c, sizeof ref);
		ref_gemm('T', 'N', m, n, k, alpha, a, k, b, k, beta, ref, m, mag);
		for (int j = 0; j < n; j++)
			for (int i = 0; i < m; i++) {
				ref[i + j * m] += bias[i];
				mag[i + j * m] += bias[i] < 0 ? -bias[i] : bias[i];
			}
		bad = check_gemm("lt_matmul_bias_f32 D", CUDA_R_32F, m, n, k, m, got, ref, mag,
				 NULL) != 0;
		if (memcmp(c, cafter, sizeof c) != 0) {
			fprintf(stderr, "  lt_matmul_bias_f32: C changed (it is an input only)\n");
			bad = 1;
		}
	}
	printf(" %s\n", bad ? "MISMATCH" : "ok");
out:
	cublasLtMatmulPreferenceDestroy(pref);
	cublasLtMatrixLayoutDestroy(la);
	cublasLtMatrixLayoutDestroy(lb);
	cublasLtMatrixLayoutDestroy(lc);
	cublasLtMatmulDescDestroy(op);
	dbuf_free(&A);
	dbuf_free(&B);
	dbuf_free(&C);
	dbuf_free(&D);
	dbuf_free(&Bias);
	return bad;
}

static int wanted(int argc, char **argv, int first, const char *name)
{
	if (first >= argc)
		return 1;
	for (int i = first; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct sample s = {.workspace_bytes = 4u << 20};
	struct cudaDeviceProp prop;
	int first = 1, expect_sm = -1, ndev = 0, ran = 0, failed = 0;

	if (argc > 2 && strcmp(argv[1], "--expect-sm") == 0) {
		expect_sm = atoi(argv[2]);
		first = 3;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	CHECK_RT(cudaGetDeviceCount(&ndev));
	EXPECT(ndev >= 1, "%d devices", ndev);
	CHECK_RT(cudaSetDevice(0));
	CHECK_RT(cudaGetDeviceProperties(&prop, 0));
	s.sm = prop.major * 10 + prop.minor;
	printf("device 0: %s, sm_%d, %zu MiB, %d SMs\n", prop.name, s.sm,
	       (size_t)(prop.totalGlobalMem >> 20), prop.multiProcessorCount);
	if (expect_sm >= 0)
		EXPECT_INT("compute capability", s.sm, expect_sm);

	CHECK_RT(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
	CHECK_BLAS(cublasCreate(&s.blas));
	CHECK_BLAS(cublasSetStream(s.blas, s.stream));
	CHECK_BLAS(cublasLtCreate(&s.lt));
	CHECK_RT(cudaMalloc(&s.workspace, s.workspace_bytes));
	CHECK_BLAS(cublasSetWorkspace(s.blas, s.workspace, s.workspace_bytes));

	for (size_t i = 0; i < sizeof gemm_cases / sizeof gemm_cases[0]; i++)
		if (wanted(argc, argv, first, gemm_cases[i].name)) {
			ran++;
			failed += run_gemm_case(&s, &gemm_cases[i]);
		}
	if (wanted(argc, argv, first, "lt_matmul_bias_f32")) {
		ran++;
		failed += run_lt_bias(&s);
	}
	if (!ran) {
		fprintf(stderr, "sample_gemm: no case matches the arguments\n");
		return 2;
	}

	CHECK_RT(cudaStreamSynchronize(s.stream));
	CHECK_RT(cudaDeviceSynchronize());
	CHECK_BLAS(cublasLtDestroy(s.lt));
	CHECK_BLAS(cublasDestroy(s.blas));
	CHECK_RT(cudaStreamDestroy(s.stream));
	CHECK_RT(cudaFree(s.workspace));
	EXPECT_RT("cudaGetLastError", cudaGetLastError(), cudaSuccess);
	CHECK_RT(cudaDeviceReset());

	printf("sample_gemm on sm_%d: %d cases, %d failed\n", s.sm, ran, failed + sample_failures);
	return failed || sample_failures ? 1 : 0;
}
