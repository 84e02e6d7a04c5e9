/* Argument validation of the cuBLAS GEMMs, in the real library's order and statuses.
 *
 * cuBLAS docs (cublasGemmEx / cublasGemmStridedBatchedEx, "Return value"):
 *   INVALID_VALUE  m, n or k < 0; transa/transb not N, T or C; lda < max(1, m) for N and
 *                  < max(1, k) otherwise; ldb < max(1, k) for N and < max(1, n) otherwise;
 *                  ldc < max(1, m); alpha or beta NULL; "Atype or Btype or Ctype or algo
 *                  or computeType is not supported" -- read here as a value that is no
 *                  member of its enum;
 *   NOT_SUPPORTED  "the combination of the parameters Atype, Btype and Ctype or the
 *                  algorithm, algo is not supported" -- valid values outside the table;
 *   ARCH_MISMATCH and arch-dependent NOT_SUPPORTED come from arch_table.c.
 */
#include "blas_internal.h"

static int trans_ok(int t)
{
	return t == CUBLAS_OP_N || t == CUBLAS_OP_T || t == CUBLAS_OP_C;
}

static int algo_ok(int a)
{
	return a == CUBLAS_GEMM_DEFAULT || a == CUBLAS_GEMM_DEFAULT_TENSOR_OP ||
	       a == CUBLAS_GEMM_AUTOTUNE ||
	       (a >= CUBLAS_GEMM_ALGO0 && a <= CUBLAS_GEMM_ALGO23) ||
	       (a >= CUBLAS_GEMM_ALGO0_TENSOR_OP && a <= CUBLAS_GEMM_ALGO15_TENSOR_OP);
}

static int64_t max1(int64_t v)
{
	return v > 1 ? v : 1;
}

static void matrix(blas_matrix *mx, const void *p, int type, int64_t rows, int64_t cols,
		   int64_t ld, long long stride)
{
	mx->ptr = (uint64_t)(uintptr_t)p;
	mx->type = (cudaDataType)type;
	mx->rows = rows;
	mx->cols = cols;
	mx->ld = ld;
	mx->row_major = 0;
	mx->stride = stride;
}

cublasStatus_t blas_gemm_validate(const blas_handle *h, const blas_gemm_call *c, blas_gemm *g,
				  const blas_combo **combo, cublasComputeType_t *compute)
{
	int na = c->transa == CUBLAS_OP_N, nb = c->transb == CUBLAS_OP_N;
	cublasStatus_t st;

	if (!trans_ok(c->transa) || !trans_ok(c->transb))
		return CUBLAS_STATUS_INVALID_VALUE;
	if (c->m < 0 || c->n < 0 || c->k < 0 || c->batch < 0)
		return CUBLAS_STATUS_INVALID_VALUE;
	if (c->lda < max1(na ? c->m : c->k) || c->ldb < max1(nb ? c->k : c->n) ||
	    c->ldc < max1(c->m))
		return CUBLAS_STATUS_INVALID_VALUE;
	if (!c->alpha || !c->beta)
		return CUBLAS_STATUS_INVALID_VALUE;
	if (!blas_type_known(c->atype) || !blas_type_known(c->btype) || !blas_type_known(c->ctype))
		return CUBLAS_STATUS_INVALID_VALUE;
	if ((c->flags & BLAS_CALL_ALGO) && !algo_ok(c->algo))
		return CUBLAS_STATUS_INVALID_VALUE;
	st = blas_compute_normalise(c->compute, h->math, compute);
	if (st != CUBLAS_STATUS_SUCCESS)
		return st;
	*combo = blas_combo_find(0, *compute, (cudaDataType)c->atype, (cudaDataType)c->btype,
				 (cudaDataType)c->ctype, (cudaDataType)c->ctype);
	if (!*combo)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	blas_arch_query q = { *compute, (cudaDataType)c->atype, (cudaDataType)c->btype,
			      (cudaDataType)c->ctype };
	st = blas_arch_check(sim_device_get(h->device), &q);
	if (st != CUBLAS_STATUS_SUCCESS)
		return st;

	g->api = c->api;
	g->transa = !na;
	g->transb = !nb;
	g->m = c->m;
	g->n = c->n;
	g->k = c->k;
	g->batch = c->batch;
	matrix(&g->a, c->a, c->atype, na ? c->m : c->k, na ? c->k : c->m, c->lda, c->stridea);
	matrix(&g->b, c->b, c->btype, nb ? c->k : c->n, nb ? c->n : c->k, c->ldb, c->strideb);
	matrix(&g->c, c->c, c->ctype, c->m, c->n, c->ldc, c->stridec);
	g->d = g->c;
	g->acc = (*combo)->acc;
	g->scale_type = (*combo)->scale;
	g->ptr_array = !!(c->flags & BLAS_CALL_PTR_ARRAY);
	g->epilogue = 0;
	return CUBLAS_STATUS_SUCCESS;
}
