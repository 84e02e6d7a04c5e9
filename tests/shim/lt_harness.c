/* The cuBLASLt test client's harness: see lt_harness.h, and lt_client.c for the accuracy
 * contract that verify() checks. */
#include <math.h>
#include <string.h>

#include "lt_harness.h"

/* ------------------------------------------------------------------ matrices */
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
int has_bias(cublasLtEpilogue_t e)
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

/* Descriptor, layouts and preference as PyTorch sets them, plus the case's variants. */
void describe(const struct lcase *lc, struct run *r, cublasComputeType_t compute,
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

void setup(const struct lcase *lc, struct run *r, cudaDataType ab, cublasHandle_t h,
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

cublasStatus_t heuristic(struct run *r)
{
	r->returned = -1;
	r->heur_status = cublasLtMatmulAlgoGetHeuristic(r->handle, r->desc, r->la, r->lb, r->lc,
							r->ld, r->pref, 1, &r->result,
							&r->returned);
	return r->heur_status;
}

cublasStatus_t matmul(const struct lcase *lc, struct run *r, const cublasLtMatmulAlgo_t *algo,
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

void release(struct run *r, int separate_d)
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
int verify(const struct lcase *lc, struct run *r, double *worst)
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

