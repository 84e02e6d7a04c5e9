/* A cuBLASLt client written against the real API, calling it as PyTorch's gemm_and_bias does
 * (preampere.md): MatmulDescCreate(COMPUTE_32F, R_32F), TRANSA/TRANSB, EPILOGUE,
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
 * Accuracy contract (issue 4, README "Accuracy"), for pre = alpha * sum a b + beta * C + bias:
 *   |got - act(pre)| <= L * 2^-24 ((k + 4) |alpha| sum |a b| + 3 |beta C| + 2 |bias|)
 *                       + 4 ulp(act(pre)) (GELU only) + D's rounding
 * with L = 1.13 for GELU (its largest slope), 1 otherwise. */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                              \
	do {                                                                               \
		cudaError_t e_ = (x);                                                      \
		if (e_ != cudaSuccess) {                                                   \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,         \
				cudaGetErrorName(e_));                                     \
			exit(2);                                                           \
		}                                                                          \
	} while (0)
#define LT(x)                                                                              \
	do {                                                                               \
		cublasStatus_t s_ = (x);                                                   \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                                         \
			fprintf(stderr, "%s:%d: %s: status %d\n", __FILE__, __LINE__, #x,  \
				(int)s_);                                                  \
			exit(2);                                                           \
		}                                                                          \
	} while (0)

enum { COL = CUBLASLT_ORDER_COL, ROW = CUBLASLT_ORDER_ROW, MIXED = 99 };
#define WORKSPACE (4u << 20)

struct lcase {
	const char *name;
	int m, n, k, batch;
	cublasOperation_t ta, tb;
	int order;                       /* COL, ROW (all four), MIXED (A row, the rest col) */
	cudaDataType dtype;              /* C and D */
	cublasLtEpilogue_t epilogue;
	cudaDataType bias_type;
	int bias_per_item, device_scalars, separate_d, lt_handle, null_algo, no_workspace;
	float alpha, beta;
};

/* ------------------------------------------------------------------ matrices */
struct mat {
	cudaDataType type;
	int rows, cols, order, batch;
	int64_t ld, stride;
	size_t esz, bytes;
	unsigned char *host;
	void *dev;
};

static uint32_t rng = 4242;
static float frand(void)
{
	rng = rng * 1664525u + 1013904223u;
	return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static float from_bf16(uint16_t h)
{
	uint32_t x = (uint32_t)h << 16;
	float f;
	memcpy(&f, &x, 4);
	return f;
}

static uint16_t to_bf16(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

static double load(cudaDataType t, const unsigned char *p, size_t i)
{
	if (t == CUDA_R_32F) {
		float f;
		memcpy(&f, p + 4 * i, 4);
		return f;
	}
	uint16_t h;
	memcpy(&h, p + 2 * i, 2);
	return from_bf16(h);
}

static void store(cudaDataType t, unsigned char *p, size_t i, float v)
{
	if (t == CUDA_R_32F) {
		memcpy(p + 4 * i, &v, 4);
	} else {
		uint16_t h = to_bf16(v);
		memcpy(p + 2 * i, &h, 2);
	}
}

static size_t at(const struct mat *m, int b, int r, int c)
{
	return (size_t)(b * m->stride + (m->order == COL ? r + c * m->ld : r * m->ld + c));
}

/* rows x cols in `order`, ld padded by pad, items a gap apart; random values. */
static void mat_make(struct mat *m, cudaDataType type, int rows, int cols, int order, int pad,
		     int batch)
{
	m->type = type;
	m->rows = rows;
	m->cols = cols;
	m->order = order;
	m->batch = batch;
	m->ld = (order == COL ? rows : cols) + pad;
	m->stride = m->ld * (order == COL ? cols : rows) + 5;
	m->esz = type == CUDA_R_32F ? 4 : 2;
	m->bytes = (size_t)(m->stride * batch) * m->esz;
	m->host = malloc(m->bytes);
	for (size_t i = 0; i < m->bytes / m->esz; i++)
		store(type, m->host, i, frand());
	CK(cudaMalloc(&m->dev, m->bytes));
	CK(cudaMemcpy(m->dev, m->host, m->bytes, cudaMemcpyHostToDevice));
}

static cublasLtMatrixLayout_t layout_of(const struct mat *m)
{
	cublasLtMatrixLayout_t l;
	int32_t order = m->order, batch = m->batch;
	int64_t stride = m->stride;
	LT(cublasLtMatrixLayoutCreate(&l, m->type, (uint64_t)m->rows, (uint64_t)m->cols, m->ld));
	if (order != COL)
		LT(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &order,
						    sizeof order));
	if (batch > 1) {
		LT(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
						    sizeof batch));
		LT(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
						    &stride, sizeof stride));
	}
	return l;
}

/* ------------------------------------------------------------------ one case */
static int has_bias(cublasLtEpilogue_t e)
{
	return e == CUBLASLT_EPILOGUE_BIAS || e == CUBLASLT_EPILOGUE_RELU_BIAS ||
	       e == CUBLASLT_EPILOGUE_GELU_BIAS;
}

static int is_gelu(cublasLtEpilogue_t e)
{
	return e == CUBLASLT_EPILOGUE_GELU || e == CUBLASLT_EPILOGUE_GELU_BIAS;
}

static int is_relu(cublasLtEpilogue_t e)
{
	return e == CUBLASLT_EPILOGUE_RELU || e == CUBLASLT_EPILOGUE_RELU_BIAS;
}

/* cuBLASLt's GELU (tanh form) through 0.5 x (1 + tanh u) = x / (1 + e^-2u). */
static double gelu(double x)
{
	double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
	return x / (1.0 + exp(-2.0 * u));
}

struct run {
	struct mat a, b, c, d, bias;
	cublasLtHandle_t handle;
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t la, lb, lc, ld;
	cublasLtMatmulPreference_t pref;
	void *workspace, *dscal;
	cublasStatus_t heur_status;
	int returned;
	cublasLtMatmulHeuristicResult_t result;
};

/* Descriptor, layouts and preference as PyTorch sets them, plus the case's variants. */
static void describe(const struct lcase *lc, struct run *r, cublasComputeType_t compute,
		     cudaDataType scale)
{
	int32_t ta = lc->ta, tb = lc->tb;
	uint32_t epi = lc->epilogue;
	uint64_t ws = WORKSPACE;
	uint32_t align = 16;

	LT(cublasLtMatmulDescCreate(&r->desc, compute, scale));
	LT(cublasLtMatmulDescSetAttribute(r->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
	LT(cublasLtMatmulDescSetAttribute(r->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
	LT(cublasLtMatmulDescSetAttribute(r->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi,
					  sizeof epi));
	if (has_bias(lc->epilogue)) {
		int32_t bt = lc->bias_type;
		int64_t bstride = lc->bias_per_item ? lc->m + 3 : 0;
		LT(cublasLtMatmulDescSetAttribute(r->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
						  &r->bias.dev, sizeof r->bias.dev));
		if (lc->bias_type != lc->dtype || lc->bias_type == CUDA_R_16BF)
			LT(cublasLtMatmulDescSetAttribute(r->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
							  &bt, sizeof bt));
		if (lc->batch > 1)
			LT(cublasLtMatmulDescSetAttribute(r->desc,
							  CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE,
							  &bstride, sizeof bstride));
	}
	if (lc->device_scalars) {
		int32_t pm = CUBLASLT_POINTER_MODE_DEVICE;
		LT(cublasLtMatmulDescSetAttribute(r->desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pm,
						  sizeof pm));
	}
	r->la = layout_of(&r->a);
	r->lb = layout_of(&r->b);
	r->lc = layout_of(&r->c);
	r->ld = lc->separate_d ? layout_of(&r->d) : r->lc;
	LT(cublasLtMatmulPreferenceCreate(&r->pref));
	LT(cublasLtMatmulPreferenceSetAttribute(r->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
						&ws, sizeof ws));
	LT(cublasLtMatmulPreferenceSetAttribute(r->pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
						&align, sizeof align));
	LT(cublasLtMatmulPreferenceSetAttribute(r->pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
						&align, sizeof align));
	LT(cublasLtMatmulPreferenceSetAttribute(r->pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
						&align, sizeof align));
	LT(cublasLtMatmulPreferenceSetAttribute(r->pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
						&align, sizeof align));
}

static void setup(const struct lcase *lc, struct run *r, cudaDataType ab, cublasHandle_t h,
		  cublasLtHandle_t lth)
{
	int ar = lc->ta == CUBLAS_OP_N ? lc->m : lc->k, acl = lc->ta == CUBLAS_OP_N ? lc->k : lc->m;
	int br = lc->tb == CUBLAS_OP_N ? lc->k : lc->n, bcl = lc->tb == CUBLAS_OP_N ? lc->n : lc->k;
	int ord = lc->order == MIXED ? COL : lc->order;

	memset(r, 0, sizeof *r);
	mat_make(&r->a, ab, ar, acl, lc->order == MIXED ? ROW : ord, 3, lc->batch);
	mat_make(&r->b, ab, br, bcl, ord, 1, lc->batch);
	mat_make(&r->c, lc->dtype, lc->m, lc->n, ord, 2, lc->batch);
	/* A D apart from C has a layout of its own (in place needs one layout). */
	if (lc->separate_d)
		mat_make(&r->d, lc->dtype, lc->m, lc->n, ord, 4, lc->batch);
	else
		r->d = r->c;
	mat_make(&r->bias, lc->bias_type, 1,
		 lc->bias_per_item ? (lc->m + 3) * lc->batch : lc->m, COL, 0, 1);
	r->handle = lc->lt_handle ? lth : (cublasLtHandle_t)h;
	if (!lc->no_workspace)
		CK(cudaMalloc(&r->workspace, WORKSPACE));
	if (lc->device_scalars) {
		float s[2] = {lc->alpha, lc->beta};
		CK(cudaMalloc(&r->dscal, sizeof s));
		CK(cudaMemcpy(r->dscal, s, sizeof s, cudaMemcpyHostToDevice));
	}
}

static cublasStatus_t heuristic(struct run *r)
{
	r->returned = -1;
	r->heur_status = cublasLtMatmulAlgoGetHeuristic(r->handle, r->desc, r->la, r->lb, r->lc,
							r->ld, r->pref, 1, &r->result,
							&r->returned);
	return r->heur_status;
}

static cublasStatus_t matmul(const struct lcase *lc, struct run *r, const cublasLtMatmulAlgo_t *algo,
			     cudaStream_t stream)
{
	const float *alpha = &lc->alpha, *beta = &lc->beta;
	if (lc->device_scalars) {
		alpha = r->dscal;
		beta = (const float *)r->dscal + 1;
	}
	return cublasLtMatmul(r->handle, r->desc, alpha, r->a.dev, r->la, r->b.dev, r->lb, beta,
			      r->c.dev, r->lc, r->d.dev, r->ld, algo, r->workspace,
			      r->workspace ? WORKSPACE : 0, stream);
}

static void release(struct run *r, int separate_d)
{
	cublasLtMatmulPreferenceDestroy(r->pref);
	if (separate_d)
		cublasLtMatrixLayoutDestroy(r->ld);
	cublasLtMatrixLayoutDestroy(r->lc);
	cublasLtMatrixLayoutDestroy(r->lb);
	cublasLtMatrixLayoutDestroy(r->la);
	cublasLtMatmulDescDestroy(r->desc);
	cudaFree(r->a.dev);
	cudaFree(r->b.dev);
	cudaFree(r->c.dev);
	if (separate_d)
		cudaFree(r->d.dev);
	cudaFree(r->bias.dev);
	cudaFree(r->workspace);
	cudaFree(r->dscal);
}

/* Compares D (read back) with the fp64 reference; returns the number of bad elements. */
static int verify(const struct lcase *lc, struct run *r, double *worst)
{
	unsigned char *got = malloc(r->d.bytes), *c_now = malloc(r->c.bytes);
	int bad = 0;

	CK(cudaMemcpy(got, r->d.dev, r->d.bytes, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(c_now, r->c.dev, r->c.bytes, cudaMemcpyDeviceToHost));
	if (lc->separate_d && memcmp(c_now, r->c.host, r->c.bytes)) {
		fprintf(stderr, "  %s: C was written (D is a separate matrix)\n", lc->name);
		bad++;
	}
	for (int b = 0; b < lc->batch; b++)
		for (int j = 0; j < lc->n; j++)
			for (int i = 0; i < lc->m; i++) {
				double acc = 0, mag = 0, cv, bv = 0, pre, want, tol, g;
				for (int l = 0; l < lc->k; l++) {
					double x = lc->ta == CUBLAS_OP_N ? load(r->a.type, r->a.host, at(&r->a, b, i, l))
									 : load(r->a.type, r->a.host, at(&r->a, b, l, i));
					double y = lc->tb == CUBLAS_OP_N ? load(r->b.type, r->b.host, at(&r->b, b, l, j))
									 : load(r->b.type, r->b.host, at(&r->b, b, j, l));
					acc += x * y;
					mag += fabs(x * y);
				}
				cv = load(r->c.type, r->c.host, at(&r->c, b, i, j));
				if (has_bias(lc->epilogue))
					bv = load(r->bias.type, r->bias.host,
						  (size_t)(lc->bias_per_item ? b * (lc->m + 3) : 0) + i);
				pre = lc->alpha * acc + (lc->beta != 0 ? lc->beta * cv : 0) + bv;
				tol = ldexp((lc->k + 4) * fabs(lc->alpha) * mag +
					    3 * fabs(lc->beta * cv) + 2 * fabs(bv), -24);
				want = pre;
				if (is_relu(lc->epilogue))
					want = pre > 0 ? pre : 0;
				if (is_gelu(lc->epilogue)) {
					want = gelu(pre);
					tol = 1.13 * tol + 4 * ldexp(fabs(want), -23) + ldexp(1, -140);
				}
				/* D's own rounding: half an ulp of bf16 or fp32. */
				tol += ldexp(fabs(want) + tol, lc->dtype == CUDA_R_32F ? -24 : -8);
				g = load(r->d.type, got, at(&r->d, b, i, j));
				if (!(fabs(g - want) <= tol)) {
					if (bad++ < 3)
						fprintf(stderr, "  %s (%d,%d,%d): got %.9g, fp64 %.9g, tol %.3g\n",
							lc->name, b, i, j, g, want, tol);
				} else if (tol > 0 && fabs(g - want) / tol > *worst) {
					*worst = fabs(g - want) / tol;
				}
			}
	free(got);
	free(c_now);
	return bad;
}

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
	/* Decode shapes (n or m <= 16): the bf16-reading kernel, or the next path with a bias
	 * or an activation. */
	{"decode n=4", 48, 4, 40, 1, CUBLAS_OP_T, CUBLAS_OP_N, COL, CUDA_R_16BF, 0, CUDA_R_16BF,
	 0, 0, 0, 0, 0, 0, 1.0f, 0.0f},
	{"decode m=5 row-major", 5, 40, 24, 2, CUBLAS_OP_N, CUBLAS_OP_N, ROW, CUDA_R_32F, 0,
	 CUDA_R_32F, 1, 0, 0, 0, 0, 0, 1.0f, 0.5f},
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
