/* Every cublasGemmEx type combination, through every GEMM entry point that can express it
 * (GemmEx, _64, StridedBatchedEx, BatchedEx, the typed S/D/H/SgemmEx family), with
 * transposes, padded leading dimensions, beta = 0 over NaN, and both pointer modes.
 * Inputs are small integers, so the fp64 reference is exact and the only rounding is the
 * single one to the output type: results must match bit for bit.
 */
#include "testutil.h"

cublasStatus_t cublasHgemm(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
			   const void *, const void *, int, const void *, int, const void *,
			   void *, int);
cublasStatus_t cublasHgemmStridedBatched(cublasHandle_t, cublasOperation_t, cublasOperation_t,
					 int, int, int, const void *, const void *, int,
					 long long, const void *, int, long long, const void *,
					 void *, int, long long, int);
cublasStatus_t cublasHgemmBatched(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
				  int, const void *, const void *const[], int,
				  const void *const[], int, const void *, void *const[], int, int);

typedef struct combo {
	cudaDataType ab, c;
	int compute;          /* as passed: cublasComputeType_t or a legacy cudaDataType */
	cudaDataType scale;
} combo;

#define R(x) CUDA_R_##x
#define C(x) CUBLAS_COMPUTE_##x
static const combo combos[] = {
	{ R(16F), R(16F), C(16F), R(16F) },   { R(8I), R(32I), C(32I), R(32I) },
	{ R(16BF), R(16BF), C(32F), R(32F) }, { R(16F), R(16F), C(32F), R(32F) },
	{ R(8I), R(32F), C(32F), R(32F) },    { R(16BF), R(32F), C(32F), R(32F) },
	{ R(16F), R(32F), C(32F), R(32F) },   { R(32F), R(32F), C(32F), R(32F) },
	{ R(32F), R(32F), C(32F_FAST_16F), R(32F) },
	{ R(32F), R(32F), C(32F_FAST_16BF), R(32F) },
	{ R(32F), R(32F), C(32F_FAST_TF32), R(32F) },
	{ R(32F), R(32F), C(32F_PEDANTIC), R(32F) },
	{ R(64F), R(64F), C(64F), R(64F) },
	/* The legacy cudaDataType spelling PyTorch passes (doc/facts.md). */
	{ R(16BF), R(16BF), R(32F), R(32F) }, { R(16BF), R(32F), R(32F), R(32F) },
	{ R(16F), R(16F), R(16F), R(16F) },   { R(64F), R(64F), R(64F), R(64F) },
	{ R(8I), R(32I), R(32I), R(32I) },
};

enum variant { EX, EX64, STRIDED, STRIDED64, BATCHED, TYPED, TYPED_STRIDED, TYPED_BATCHED };
static const char *variant_names[] = { "GemmEx", "GemmEx_64", "GemmStridedBatchedEx",
				       "GemmStridedBatchedEx_64", "GemmBatchedEx", "typed",
				       "typed strided", "typed batched" };

typedef struct gcase {
	enum variant v;
	const combo *co;
	int m, n, k, ta, tb, pad, batch, beta_zero, device_scalars;
} gcase;

static cublasHandle_t H;

static int is_int(cudaDataType t)
{
	return t == CUDA_R_8I || t == CUDA_R_32I;
}

/* Which typed function serves a combination, if any. */
static int typed_kind(const combo *co)
{
	if (co->ab == R(32F) && co->c == R(32F) && co->compute == C(32F))
		return 'S';
	if (co->ab == R(64F) && co->compute == C(64F))
		return 'D';
	if (co->ab == R(16F) && co->c == R(16F) && co->compute == C(16F))
		return 'H';
	if (co->compute == C(32F) && co->ab != R(32F))
		return 'X'; /* cublasSgemmEx */
	return 0;
}

static cublasStatus_t call(const gcase *g, const void *alpha, const void *beta, void *dA,
			   void *dB, void *dC, long long sa, long long sb, long long sc,
			   void **arrays, int lda, int ldb, int ldc)
{
	const combo *co = g->co;
	cublasOperation_t ta = g->ta ? CUBLAS_OP_T : CUBLAS_OP_N;
	cublasOperation_t tb = g->tb ? CUBLAS_OP_T : CUBLAS_OP_N;
	cublasComputeType_t cp = (cublasComputeType_t)co->compute;
	cublasGemmAlgo_t algo = CUBLAS_GEMM_DEFAULT_TENSOR_OP;
	const void *const *aa = (const void *const *)arrays[0];
	const void *const *ab = (const void *const *)arrays[1];
	void *const *ac = (void *const *)arrays[2];
	int kind = typed_kind(co);

	switch (g->v) {
	case EX:
		return cublasGemmEx(H, ta, tb, g->m, g->n, g->k, alpha, dA, co->ab, lda, dB, co->ab,
				    ldb, beta, dC, co->c, ldc, cp, algo);
	case EX64:
		return cublasGemmEx_64(H, ta, tb, g->m, g->n, g->k, alpha, dA, co->ab, lda, dB,
				       co->ab, ldb, beta, dC, co->c, ldc, cp, algo);
	case STRIDED:
		return cublasGemmStridedBatchedEx(H, ta, tb, g->m, g->n, g->k, alpha, dA, co->ab,
						  lda, sa, dB, co->ab, ldb, sb, beta, dC, co->c,
						  ldc, sc, g->batch, cp, algo);
	case STRIDED64:
		return cublasGemmStridedBatchedEx_64(H, ta, tb, g->m, g->n, g->k, alpha, dA,
						     co->ab, lda, sa, dB, co->ab, ldb, sb, beta, dC,
						     co->c, ldc, sc, g->batch, cp, algo);
	case BATCHED:
		return cublasGemmBatchedEx(H, ta, tb, g->m, g->n, g->k, alpha, aa, co->ab, lda, ab,
					   co->ab, ldb, beta, ac, co->c, ldc, g->batch, cp, algo);
	case TYPED:
		if (kind == 'S')
			return cublasSgemm(H, ta, tb, g->m, g->n, g->k, alpha, dA, lda, dB, ldb,
					   beta, dC, ldc);
		if (kind == 'D')
			return cublasDgemm(H, ta, tb, g->m, g->n, g->k, alpha, dA, lda, dB, ldb,
					   beta, dC, ldc);
		if (kind == 'H')
			return cublasHgemm(H, ta, tb, g->m, g->n, g->k, alpha, dA, lda, dB, ldb,
					   beta, dC, ldc);
		return cublasSgemmEx(H, ta, tb, g->m, g->n, g->k, alpha, dA, co->ab, lda, dB,
				     co->ab, ldb, beta, dC, co->c, ldc);
	case TYPED_STRIDED:
		if (kind == 'S')
			return cublasSgemmStridedBatched(H, ta, tb, g->m, g->n, g->k, alpha, dA, lda,
							 sa, dB, ldb, sb, beta, dC, ldc, sc,
							 g->batch);
		if (kind == 'D')
			return cublasDgemmStridedBatched(H, ta, tb, g->m, g->n, g->k, alpha, dA, lda,
							 sa, dB, ldb, sb, beta, dC, ldc, sc,
							 g->batch);
		return cublasHgemmStridedBatched(H, ta, tb, g->m, g->n, g->k, alpha, dA, lda, sa,
						 dB, ldb, sb, beta, dC, ldc, sc, g->batch);
	case TYPED_BATCHED:
		if (kind == 'S')
			return cublasSgemmBatched(H, ta, tb, g->m, g->n, g->k, alpha,
						  (const float *const *)aa, lda,
						  (const float *const *)ab, ldb, beta,
						  (float *const *)ac, ldc, g->batch);
		if (kind == 'D')
			return cublasDgemmBatched(H, ta, tb, g->m, g->n, g->k, alpha,
						  (const double *const *)aa, lda,
						  (const double *const *)ab, ldb, beta,
						  (double *const *)ac, ldc, g->batch);
		return cublasHgemmBatched(H, ta, tb, g->m, g->n, g->k, alpha, aa, lda, ab, ldb,
					  beta, ac, ldc, g->batch);
	}
	return CUBLAS_STATUS_INTERNAL_ERROR;
}

static double value(int seed, int r, int c)
{
	return (double)((r * 7 + c * 3 + seed * 5) % 7 - 3);
}

static void run(const gcase *g)
{
	const combo *co = g->co;
	int ar = g->ta ? g->k : g->m, acols = g->ta ? g->m : g->k;
	int br = g->tb ? g->n : g->k, bcols = g->tb ? g->k : g->n;
	int lda = (ar > 0 ? ar : 1) + g->pad, ldb = (br > 0 ? br : 1) + g->pad, ldc = g->m + g->pad;
	long long sa = (long long)lda * acols + 3, sb = (long long)ldb * bcols + 3,
		  sc = (long long)ldc * g->n + 3;
	size_t ea = type_size(co->ab), ec = type_size(co->c), es = type_size(co->scale);
	double alpha = 2, beta = g->beta_zero ? 0 : is_int(co->c) ? 3 : 0.5;
	/* Padding and untouched C hold a sentinel: NaN for floats, 99 for integers. */
	double pad_a = is_int(co->ab) ? 99 : NAN, pad_c = is_int(co->c) ? 99 : NAN;
	unsigned char *A = malloc(sa * g->batch * ea), *B = malloc(sb * g->batch * ea);
	unsigned char *Cm = malloc(sc * g->batch * ec), sal[8], sbe[8];

	for (long long i = 0; i < sa * g->batch; i++)
		put(A, i, co->ab, pad_a);
	for (long long i = 0; i < sb * g->batch; i++)
		put(B, i, co->ab, pad_a);
	for (long long i = 0; i < sc * g->batch; i++)
		put(Cm, i, co->c, pad_c);
	for (int b = 0; b < g->batch; b++) {
		for (int c = 0; c < acols; c++)
			for (int r = 0; r < ar; r++)
				put(A, b * sa + r + (long long)c * lda, co->ab, value(b, r, c));
		for (int c = 0; c < bcols; c++)
			for (int r = 0; r < br; r++)
				put(B, b * sb + r + (long long)c * ldb, co->ab, value(b + 1, r, c));
		if (!g->beta_zero)
			for (int c = 0; c < g->n; c++)
				for (int r = 0; r < g->m; r++)
					put(Cm, b * sc + r + (long long)c * ldc, co->c, value(b + 2, r, c));
	}
	put(sal, 0, co->scale, alpha);
	put(sbe, 0, co->scale, beta);

	void *dA = dev_upload(A, sa * g->batch * ea), *dB = dev_upload(B, sb * g->batch * ea);
	void *dC = dev_upload(Cm, sc * g->batch * ec);
	void *arrays[3] = { NULL, NULL, NULL };
	if (g->v == BATCHED || g->v == TYPED_BATCHED) {
		void *ptrs[3][8];
		for (int b = 0; b < g->batch; b++) {
			ptrs[0][b] = (char *)dA + b * sa * ea;
			ptrs[1][b] = (char *)dB + b * sb * ea;
			ptrs[2][b] = (char *)dC + b * sc * ec;
		}
		for (int i = 0; i < 3; i++)
			arrays[i] = dev_upload(ptrs[i], sizeof(void *) * g->batch);
	}
	const void *pa = sal, *pb = sbe;
	if (g->device_scalars) {
		pa = dev_upload(sal, es);
		pb = dev_upload(sbe, es);
		cublasSetPointerMode(H, CUBLAS_POINTER_MODE_DEVICE);
	}
	cublasStatus_t st = call(g, pa, pb, dA, dB, dC, sa, sb, sc, arrays, lda, ldb, ldc);
	cublasSetPointerMode(H, CUBLAS_POINTER_MODE_HOST);
	if (st != CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "%s ab=%d c=%d compute=%d m=%d n=%d k=%d: %s\n", variant_names[g->v],
			co->ab, co->c, co->compute, g->m, g->n, g->k, cublasGetStatusName(st));
		failures++;
		goto out;
	}
	const unsigned char *out = dev_host(dC, sc * g->batch * ec);
	int bad = 0;
	for (int b = 0; b < g->batch && bad < 3; b++) {
		for (long long i = 0; i < sc && bad < 3; i++) {
			long long r = i % ldc, c = i / ldc;
			double want = pad_c;
			if (c < g->n && r < g->m) {
				double s = 0;
				for (int p = 0; p < g->k; p++)
					s += value(b, g->ta ? p : r, g->ta ? r : p) *
					     value(b + 1, g->tb ? c : p, g->tb ? p : c);
				want = ref_round(alpha * s + (g->beta_zero ? 0 : beta * value(b + 2, r, c)),
						 co->c);
			}
			double got = get(out, b * sc + i, co->c);
			if (!(got == want || (isnan(got) && isnan(want)))) {
				fprintf(stderr,
					"%s ab=%d c=%d compute=%d m=%d n=%d k=%d t=%d%d pad=%d "
					"beta0=%d dev=%d: batch %d C[%lld,%lld] = %g, want %g\n",
					variant_names[g->v], co->ab, co->c, co->compute, g->m, g->n,
					g->k, g->ta, g->tb, g->pad, g->beta_zero, g->device_scalars, b,
					r, c, got, want);
				bad++;
			}
		}
	}
	failures += bad;
out:
	free(A);
	free(B);
	free(Cm);
}

int main(void)
{
	static const int shapes[][3] = { { 3, 4, 5 }, { 1, 1, 1 }, { 7, 2, 9 }, { 5, 3, 0 } };
	int runs = 0;

	CHECK_STATUS(cublasCreate(&H), CUBLAS_STATUS_SUCCESS);
	for (size_t ci = 0; ci < sizeof(combos) / sizeof(combos[0]); ci++) {
		const combo *co = &combos[ci];
		for (int v = EX; v <= TYPED_BATCHED; v++) {
			int kind = typed_kind(co);
			if (v >= TYPED && !kind)
				continue;
			if (v > TYPED && (kind == 'X' || !kind))
				continue; /* no typed batched SgemmEx */
			for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
				for (int t = 0; t < 4; t++) {
					gcase g = { (enum variant)v, co, shapes[si][0], shapes[si][1],
						    shapes[si][2], t & 1, t >> 1, (int)(si + t) % 3,
						    v == STRIDED || v == STRIDED64 || v == BATCHED ||
								    v == TYPED_STRIDED ||
								    v == TYPED_BATCHED
							    ? 3
							    : 1,
						    (int)(si + t + v) % 4 == 0, (int)(ci + t) % 3 == 0 };
					run(&g);
					runs++;
				}
			}
		}
	}
	printf("%d GEMM cases\n", runs);
	CHECK_STATUS(cublasDestroy(H), CUBLAS_STATUS_SUCCESS);
	return test_done("gemm_combos_test");
}
