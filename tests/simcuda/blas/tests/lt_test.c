/* cuBLASLt: handles (a cuBLAS handle works as one), descriptor attributes and their sizes,
 * the heuristic (workspace filter, NOT_SUPPORTED with 0 results), and cublasLtMatmul with
 * every simulated epilogue, row and column order, strided batches, C != D, device scalars,
 * and the statuses of what it refuses.
 */
#include "testutil.h"

static cublasLtHandle_t L;

/* ------------------------------------------------------------ descriptors */

static void descriptors(void)
{
	cublasLtMatmulDesc_t d;
	cublasLtMatrixLayout_t l;
	cublasLtMatmulPreference_t p;
	cublasLtMatmulDescOpaque_t dop;
	cublasLtMatrixLayoutOpaque_t lop;
	int32_t t = CUBLAS_OP_T, v = -1;
	int64_t v64 = 0;
	uint64_t u64 = 0;
	uint32_t u32 = 0;
	size_t written = 0;

	CHECK_STATUS(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &v, 4, &written),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_INT(v, CUBLAS_OP_N);
	CHECK_INT(written, 4);
	CHECK_STATUS(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &u32, 4, NULL),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_INT(u32, CUBLASLT_EPILOGUE_DEFAULT);
	CHECK_STATUS(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &t, 4),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &v, 4, NULL),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_INT(v, CUBLAS_OP_T);
	/* Wrong sizes, unknown attributes, missing buffers: INVALID_VALUE (cublasLt.h). */
	CHECK_STATUS(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &v64, 8),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasLtMatmulDescSetAttribute(d, (cublasLtMatmulDescAttributes_t)9999, &t, 4),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, NULL, 4),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, NULL, 0,
						    &written),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_INT(written, sizeof(void *));
	CHECK_STATUS(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, NULL, 0,
						    NULL),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &v, 4,
						    NULL),
		     CUBLAS_STATUS_INVALID_VALUE);
	int8_t fast = 1;
	CHECK_STATUS(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, 1),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasLtMatmulDescDestroy(d), CUBLAS_STATUS_SUCCESS);

	/* Descriptors in caller storage (the *Init inline helpers of cublasLt.h). */
	CHECK_STATUS(cublasLtMatmulDescInit(&dop, CUBLAS_COMPUTE_64F, CUDA_R_64F),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasLtMatmulDescGetAttribute(&dop, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &v, 4,
						    NULL),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_INT(v, CUDA_R_64F);
	CHECK_STATUS(cublasLtMatmulDescInit_internal(&dop, 16, CUBLAS_COMPUTE_32F, CUDA_R_32F),
		     CUBLAS_STATUS_ALLOC_FAILED);
	CHECK_STATUS(cublasLtMatrixLayoutInit(&lop, CUDA_R_16BF, 3, 4, 5), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasLtMatrixLayoutGetAttribute(&lop, CUBLASLT_MATRIX_LAYOUT_ROWS, &u64, 8,
						      NULL),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_INT(u64, 3);

	CHECK_STATUS(cublasLtMatrixLayoutCreate(&l, CUDA_R_16F, 7, 8, 9), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &v, 4, NULL),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_INT(v, CUBLASLT_ORDER_COL);
	CHECK_STATUS(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &v, 4,
						      NULL),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_INT(v, 1);
	CHECK_STATUS(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_LD, &v64, 8, NULL),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_INT(v64, 9);
	CHECK_STATUS(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ROWS, &v, 4),
		     CUBLAS_STATUS_INVALID_VALUE);
	v64 = 1234;
	CHECK_STATUS(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
						      &v64, 8),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasLtMatrixLayoutDestroy(l), CUBLAS_STATUS_SUCCESS);

	CHECK_STATUS(cublasLtMatmulPreferenceCreate(&p), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasLtMatmulPreferenceGetAttribute(
			     p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &u64, 8, NULL),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_INT(u64, 0);
	CHECK_STATUS(cublasLtMatmulPreferenceGetAttribute(
			     p, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &u32, 4, NULL),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_INT(u32, 256);
	CHECK_STATUS(cublasLtMatmulPreferenceSetAttribute(
			     p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &u32, 4),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasLtMatmulPreferenceDestroy(p), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasLtMatmulDescDestroy(NULL), CUBLAS_STATUS_SUCCESS);
}

/* --------------------------------------------------------------- matmuls */

typedef struct lcase {
	cudaDataType ab, cd;
	cublasComputeType_t compute;
	cudaDataType scale;
	int m, n, k, ta, tb, batch;
	int rows;                 /* bit i: operand i (A, B, C, D) in row order */
	uint32_t epilogue;
	int c_is_d, device_scalars;
	double beta;
} lcase;

static double gelu(double x)
{
	return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

static void set_desc(cublasLtMatmulDesc_t d, int attr, const void *v, size_t n)
{
	CHECK_STATUS(cublasLtMatmulDescSetAttribute(d, (cublasLtMatmulDescAttributes_t)attr, v, n),
		     CUBLAS_STATUS_SUCCESS);
}

static cublasLtMatrixLayout_t layout(cudaDataType t, int r, int c, int row, int batch,
				     int64_t stride, int64_t *ld)
{
	cublasLtMatrixLayout_t l;
	int32_t order = row ? CUBLASLT_ORDER_ROW : CUBLASLT_ORDER_COL;

	*ld = (row ? c : r) + 1; /* padded */
	CHECK_STATUS(cublasLtMatrixLayoutCreate(&l, t, r, c, *ld), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, 4),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
						      4),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
						      &stride, 8),
		     CUBLAS_STATUS_SUCCESS);
	return l;
}

static int64_t at(int row, int64_t ld, int r, int c)
{
	return row ? (int64_t)r * ld + c : r + (int64_t)c * ld;
}

static double val(int seed, int r, int c)
{
	return (double)((r * 5 + c * 3 + seed * 7) % 7 - 3);
}

/* Runs one matmul through handle h and compares D with the fp64 reference. */
static void run(const lcase *t, void *h)
{
	int dims[4][2] = { { t->ta ? t->k : t->m, t->ta ? t->m : t->k },
			   { t->tb ? t->n : t->k, t->tb ? t->k : t->n },
			   { t->m, t->n },
			   { t->m, t->n } };
	cudaDataType types[4] = { t->ab, t->ab, t->cd, t->cd };
	int64_t ld[4], stride[4];
	cublasLtMatrixLayout_t l[4];
	unsigned char *host[4];
	void *dev[4];
	size_t bytes[4];

	for (int i = 0; i < 4; i++) {
		int row = (t->rows >> i) & 1;
		int64_t lead = (row ? dims[i][1] : dims[i][0]) + 1;
		stride[i] = lead * (row ? dims[i][0] : dims[i][1]) + 2;
		l[i] = layout(types[i], dims[i][0], dims[i][1], row, t->batch, stride[i], &ld[i]);
		bytes[i] = stride[i] * t->batch * type_size(types[i]);
		host[i] = malloc(bytes[i]);
		for (int64_t e = 0; e < stride[i] * t->batch; e++)
			put(host[i], e, types[i], i == 3 ? 99 : NAN);
		for (int b = 0; b < t->batch; b++)
			for (int r = 0; r < dims[i][0]; r++)
				for (int c = 0; c < dims[i][1]; c++)
					if (i < 3)
						put(host[i], b * stride[i] + at(row, ld[i], r, c),
						    types[i], val(b + i, r, c));
		dev[i] = dev_upload(host[i], bytes[i]);
	}
	if (t->c_is_d) /* in place: D is C, same layout */
		dev[3] = dev[2];

	double bias[16];
	unsigned char hb[16 * 8];
	for (int b = 0; b < t->batch; b++)
		for (int i = 0; i < t->m; i++) {
			bias[b * t->m + i] = (double)((i + b) % 5) - 2.5;
			put(hb, b * t->m + i, t->cd, bias[b * t->m + i]);
		}
	void *dbias = dev_upload(hb, sizeof(hb));

	cublasLtMatmulDesc_t d;
	int32_t ta = t->ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb = t->tb ? CUBLAS_OP_T : CUBLAS_OP_N;
	int64_t bstride = t->m;
	CHECK_STATUS(cublasLtMatmulDescCreate(&d, t->compute, t->scale), CUBLAS_STATUS_SUCCESS);
	set_desc(d, CUBLASLT_MATMUL_DESC_TRANSA, &ta, 4);
	set_desc(d, CUBLASLT_MATMUL_DESC_TRANSB, &tb, 4);
	set_desc(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &t->epilogue, 4);
	set_desc(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias, sizeof(dbias));
	set_desc(d, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &bstride, 8);

	unsigned char sal[8], sbe[8];
	put(sal, 0, t->scale, 1.5);
	put(sbe, 0, t->scale, t->beta);
	const void *pa = sal, *pb = sbe;
	if (t->device_scalars) {
		int32_t mode = CUBLASLT_POINTER_MODE_DEVICE;
		set_desc(d, CUBLASLT_MATMUL_DESC_POINTER_MODE, &mode, 4);
		pa = dev_upload(sal, 8);
		pb = dev_upload(sbe, 8);
	}
	CHECK_STATUS(cublasLtMatmul((cublasLtHandle_t)h, d, pa, dev[0], l[0], dev[1], l[1], pb,
				    dev[2], l[2], dev[3], t->c_is_d ? l[2] : l[3], NULL, NULL, 0,
				    NULL),
		     CUBLAS_STATUS_SUCCESS);

	int di = t->c_is_d ? 2 : 3, drow = (t->rows >> di) & 1, bad = 0;
	const unsigned char *out = dev_host(dev[di], bytes[di]);
	const unsigned char *cin = dev_host(dev[2], bytes[2]);
	for (int b = 0; b < t->batch; b++) {
		for (int r = 0; r < t->m; r++) {
			for (int c = 0; c < t->n && bad < 3; c++) {
				double s = 0, x;
				for (int p = 0; p < t->k; p++)
					s += val(b, t->ta ? p : r, t->ta ? r : p) *
					     val(b + 1, t->tb ? c : p, t->tb ? p : c);
				x = 1.5 * s + t->beta * val(b + 2, r, c);
				if (t->epilogue & CUBLASLT_EPILOGUE_BIAS)
					x += bias[b * t->m + r];
				if ((t->epilogue & ~CUBLASLT_EPILOGUE_BIAS) == CUBLASLT_EPILOGUE_RELU)
					x = x > 0 ? x : 0;
				if ((t->epilogue & ~CUBLASLT_EPILOGUE_BIAS) == CUBLASLT_EPILOGUE_GELU)
					x = gelu(x);
				double want = ref_round(x, t->cd);
				double got = get(out, b * stride[di] + at(drow, ld[di], r, c), t->cd);
				/* GELU goes through tanhf: allow one unit of the output's last place. */
				double tol = (t->epilogue & CUBLASLT_EPILOGUE_GELU)
						     ? fabs(want) * (t->cd == CUDA_R_32F ? 1e-6 : 1e-2) + 1e-6
						     : 0;
				if (!(fabs(got - want) <= tol)) {
					fprintf(stderr, "lt m=%d n=%d k=%d t=%d%d rows=%x epi=%u b=%d "
							"D[%d,%d] = %g, want %g\n",
						t->m, t->n, t->k, t->ta, t->tb, t->rows, t->epilogue, b, r,
						c, got, want);
					bad++;
				}
			}
		}
	}
	/* A separate C is only read. */
	if (!t->c_is_d)
		CHECK(!memcmp(cin, host[2], bytes[2]));
	failures += bad;
	for (int i = 0; i < 4; i++) {
		cublasLtMatrixLayoutDestroy(l[i]);
		free(host[i]);
	}
	cublasLtMatmulDescDestroy(d);
}

static void matmuls(cublasHandle_t classic)
{
	static const uint32_t epis[] = { CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_RELU,
					 CUBLASLT_EPILOGUE_BIAS,    CUBLASLT_EPILOGUE_RELU_BIAS,
					 CUBLASLT_EPILOGUE_GELU,    CUBLASLT_EPILOGUE_GELU_BIAS };
	static const struct {
		cudaDataType ab, cd;
		cublasComputeType_t compute;
		cudaDataType scale;
	} types[] = {
		{ CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F },
		{ CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F },
		{ CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F },
		{ CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F },
		{ CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F },
		{ CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F, CUDA_R_16F },
	};
	int n = 0;

	for (size_t ti = 0; ti < sizeof(types) / sizeof(types[0]); ti++) {
		for (size_t e = 0; e < sizeof(epis) / sizeof(epis[0]); e++) {
			for (int v = 0; v < 4; v++) {
				lcase t = { types[ti].ab, types[ti].cd, types[ti].compute,
					    types[ti].scale, 3 + v, 4, 5 - v, v & 1, (v >> 1) & 1,
					    1 + (v == 2) * 2, (int)((ti + e + v) % 16), epis[e],
					    v == 3, (int)(e + v) % 3 == 0, v == 1 ? 0 : 0.5 };
				/* Every second case through the classic handle, as PyTorch does. */
				run(&t, (n & 1) ? (void *)classic : (void *)L);
				n++;
			}
		}
	}
	printf("%d matmul cases\n", n);
}

/* ------------------------------------------------------- heuristic, refusals */

static cublasStatus_t heur(cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t a,
			   cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, uint64_t ws, int want,
			   cublasLtMatmulHeuristicResult_t *res, int *count)
{
	cublasLtMatmulPreference_t p;
	cublasStatus_t st;

	cublasLtMatmulPreferenceCreate(&p);
	cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, 8);
	*count = -1;
	st = cublasLtMatmulAlgoGetHeuristic(L, d, a, b, c, c, p, want, res, count);
	cublasLtMatmulPreferenceDestroy(p);
	return st;
}

static void heuristic_and_refusals(void)
{
	cublasLtMatmulHeuristicResult_t res[8];
	cublasLtMatmulDesc_t d;
	cublasLtMatrixLayout_t a, b, c, bad;
	int count;
	float one = 1, zero = 0;

	cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F);
	cublasLtMatrixLayoutCreate(&a, CUDA_R_16BF, 4, 8, 4);
	cublasLtMatrixLayoutCreate(&b, CUDA_R_16BF, 8, 2, 8);
	cublasLtMatrixLayoutCreate(&c, CUDA_R_16BF, 4, 2, 4);
	cublasLtMatrixLayoutCreate(&bad, CUDA_R_16BF, 7, 2, 7);

	/* Without workspace only the plain algorithm; with 1 MiB the split-K one comes first. */
	CHECK_STATUS(heur(d, a, b, c, 0, 8, res, &count), CUBLAS_STATUS_SUCCESS);
	CHECK_INT(count, 1);
	CHECK_INT(res[0].workspaceSize, 0);
	CHECK_INT(res[0].state, CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(heur(d, a, b, c, 1 << 20, 8, res, &count), CUBLAS_STATUS_SUCCESS);
	CHECK_INT(count, 2);
	CHECK(res[0].workspaceSize > 0 && res[0].workspaceSize <= (1 << 20));
	CHECK_STATUS(heur(d, a, b, c, 1 << 20, 1, res, &count), CUBLAS_STATUS_SUCCESS);
	CHECK_INT(count, 1);
	CHECK_STATUS(heur(d, a, b, c, 0, 0, res, &count), CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(heur(d, a, bad, c, 0, 1, res, &count), CUBLAS_STATUS_INVALID_VALUE);

	/* The algorithm wants more workspace than the matmul gets: INVALID_VALUE. */
	void *dA = dev_alloc(64), *dB = dev_alloc(32), *dC = dev_alloc(16), *ws = dev_alloc(1 << 20);
	CHECK_STATUS(heur(d, a, b, c, 1 << 20, 1, res, &count), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasLtMatmul(L, d, &one, dA, a, dB, b, &zero, dC, c, dC, c, &res[0].algo,
				    ws, 1024, NULL),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasLtMatmul(L, d, &one, dA, a, dB, b, &zero, dC, c, dC, c, &res[0].algo,
				    ws, 1 << 20, NULL),
		     CUBLAS_STATUS_SUCCESS);
	cublasLtMatmulAlgo_t junk = { { 42 } };
	CHECK_STATUS(cublasLtMatmul(L, d, &one, dA, a, dB, b, &zero, dC, c, dC, c, &junk, ws,
				    1 << 20, NULL),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasLtMatmul(L, d, &one, dA, a, dB, bad, &zero, dC, c, dC, c, NULL, NULL, 0,
				    NULL),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasLtMatmul(NULL, d, &one, dA, a, dB, b, &zero, dC, c, dC, c, NULL, NULL, 0,
				    NULL),
		     CUBLAS_STATUS_NOT_INITIALIZED);

	/* Epilogues the simulator does not compute are NOT_SUPPORTED; non-epilogues invalid. */
	static const uint32_t unsupported[] = { CUBLASLT_EPILOGUE_GELU_AUX, CUBLASLT_EPILOGUE_DRELU,
						CUBLASLT_EPILOGUE_BGRADA,
						CUBLASLT_EPILOGUE_RELU_AUX_BIAS };
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
		set_desc(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &unsupported[i], 4);
		CHECK_STATUS(heur(d, a, b, c, 0, 1, res, &count), CUBLAS_STATUS_NOT_SUPPORTED);
		CHECK_INT(count, 0);
		CHECK_STATUS(cublasLtMatmul(L, d, &one, dA, a, dB, b, &zero, dC, c, dC, c, NULL, NULL,
					    0, NULL),
			     CUBLAS_STATUS_NOT_SUPPORTED);
	}
	uint32_t epi = 12345;
	set_desc(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, 4);
	CHECK_STATUS(heur(d, a, b, c, 0, 1, res, &count), CUBLAS_STATUS_INVALID_VALUE);
	/* A bias epilogue without a bias vector; a bias of another type than D. */
	epi = CUBLASLT_EPILOGUE_BIAS;
	set_desc(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, 4);
	CHECK_STATUS(cublasLtMatmul(L, d, &one, dA, a, dB, b, &zero, dC, c, dC, c, NULL, NULL, 0,
				    NULL),
		     CUBLAS_STATUS_INVALID_VALUE);
	int32_t bt = CUDA_R_32F;
	set_desc(d, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, 4);
	CHECK_STATUS(heur(d, a, b, c, 0, 1, res, &count), CUBLAS_STATUS_NOT_SUPPORTED);
	epi = CUBLASLT_EPILOGUE_DEFAULT;
	set_desc(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, 4);
	/* Scale pointers belong to FP8 matmuls (cublasLt.h: INVALID_VALUE otherwise). */
	set_desc(d, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &dA, sizeof(dA));
	CHECK_STATUS(heur(d, a, b, c, 0, 1, res, &count), CUBLAS_STATUS_INVALID_VALUE);
	void *null = NULL;
	set_desc(d, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &null, sizeof(null));
	int32_t opt = CUBLAS_OP_T;
	set_desc(d, CUBLASLT_MATMUL_DESC_TRANSC, &opt, 4);
	CHECK_STATUS(heur(d, a, b, c, 0, 1, res, &count), CUBLAS_STATUS_NOT_SUPPORTED);
	opt = 7;
	set_desc(d, CUBLASLT_MATMUL_DESC_TRANSA, &opt, 4);
	CHECK_STATUS(heur(d, a, b, c, 0, 1, res, &count), CUBLAS_STATUS_INVALID_VALUE);
	cublasLtMatmulDescDestroy(d);

	/* Type combinations outside the table; FP8 below sm_89 (default arch sm_80). */
	cublasLtMatrixLayout_t f8a, f8b, f16c;
	cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F);
	cublasLtMatrixLayoutCreate(&f16c, CUDA_R_16F, 4, 2, 4);
	CHECK_STATUS(heur(d, a, b, f16c, 0, 1, res, &count), CUBLAS_STATUS_NOT_SUPPORTED);
	CHECK_INT(count, 0);
	cublasLtMatrixLayoutCreate(&f8a, CUDA_R_8F_E4M3, 8, 4, 8);
	cublasLtMatrixLayoutCreate(&f8b, CUDA_R_8F_E4M3, 8, 2, 8);
	opt = CUBLAS_OP_T;
	set_desc(d, CUBLASLT_MATMUL_DESC_TRANSA, &opt, 4);
	CHECK_STATUS(heur(d, f8a, f8b, c, 0, 1, res, &count), CUBLAS_STATUS_NOT_SUPPORTED);
	CHECK_INT(count, 0);
	cublasLtMatmulDescDestroy(d);
	cublasLtMatrixLayoutDestroy(a);
	cublasLtMatrixLayoutDestroy(b);
	cublasLtMatrixLayoutDestroy(c);
	cublasLtMatrixLayoutDestroy(bad);
	cublasLtMatrixLayoutDestroy(f8a);
	cublasLtMatrixLayoutDestroy(f8b);
	cublasLtMatrixLayoutDestroy(f16c);
}

int main(void)
{
	cublasHandle_t classic;

	CHECK_STATUS(cublasLtCreate(NULL), CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasLtCreate(&L), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasCreate(&classic), CUBLAS_STATUS_SUCCESS);
	descriptors();
	matmuls(classic);
	heuristic_and_refusals();
	/* cublasLtDestroy only destroys cuBLASLt handles. */
	CHECK_STATUS(cublasLtDestroy((cublasLtHandle_t)classic), CUBLAS_STATUS_NOT_INITIALIZED);
	CHECK_STATUS(cublasLtDestroy(NULL), CUBLAS_STATUS_NOT_INITIALIZED);
	CHECK_STATUS(cublasDestroy(classic), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasLtDestroy(L), CUBLAS_STATUS_SUCCESS);
	return test_done("lt_test");
}
