/* The one body behind every cuBLAS GEMM entry point: log the call, consult the fault
 * injector, validate, then either queue the GEMM op directly or -- for cublasGemmEx and
 * cublasGemmStridedBatchedEx, as real cuBLAS 12+ does (doc/facts.md) -- build cuBLASLt
 * descriptors and call cublasLtMatmul through its exported symbol, so that a preloaded
 * library sees a nested call and the log shows it at depth 1.
 */
#include <string.h>

#include "blas_internal.h"

static void log_args(sim_call *call, const blas_gemm_call *c, const blas_handle *h)
{
	char buf[BLAS_NAME_BUF];

	sim_call_arg(call, "transa", "%s", blas_trans_name(c->transa));
	sim_call_arg(call, "transb", "%s", blas_trans_name(c->transb));
	sim_call_arg(call, "m", "%lld", (long long)c->m);
	sim_call_arg(call, "n", "%lld", (long long)c->n);
	sim_call_arg(call, "k", "%lld", (long long)c->k);
	sim_call_arg(call, "atype", "%s", blas_type_name(c->atype));
	sim_call_arg(call, "btype", "%s", blas_type_name(c->btype));
	sim_call_arg(call, "ctype", "%s", blas_type_name(c->ctype));
	sim_call_arg(call, "compute", "%s", blas_compute_name(c->compute, buf));
	if (c->flags & BLAS_CALL_ALGO)
		sim_call_arg(call, "algo", "%s", blas_algo_name(c->algo, buf));
	sim_call_arg(call, "lda", "%lld", (long long)c->lda);
	sim_call_arg(call, "ldb", "%lld", (long long)c->ldb);
	sim_call_arg(call, "ldc", "%lld", (long long)c->ldc);
	if (c->flags & BLAS_CALL_STRIDED) {
		sim_call_arg(call, "stridea", "%lld", c->stridea);
		sim_call_arg(call, "strideb", "%lld", c->strideb);
		sim_call_arg(call, "stridec", "%lld", c->stridec);
	}
	sim_call_arg(call, "batch", "%lld", (long long)c->batch);
	if (h)
		sim_call_arg(call, "pmode", "%s",
			     h->pmode == CUBLAS_POINTER_MODE_DEVICE ? "device" : "host");
	sim_call_arg(call, "a", "0x%llx", (unsigned long long)(uintptr_t)c->a);
	sim_call_arg(call, "b", "0x%llx", (unsigned long long)(uintptr_t)c->b);
	sim_call_arg(call, "c", "0x%llx", (unsigned long long)(uintptr_t)c->c);
}

static void lt_matrix(lt_layout *l, const blas_matrix *mx, int64_t batch)
{
	blas_lt_layout_init(l, mx->type, (uint64_t)mx->rows, (uint64_t)mx->cols, mx->ld);
	l->batch_count = (int32_t)batch;
	l->batch_stride = mx->stride;
}

/* Descriptors live in the semi-opaque structs of cublasLt.h, as an application's would. */
static cublasStatus_t run_via_lt(blas_handle *h, const blas_gemm_call *c, const blas_gemm *g,
				 cublasComputeType_t compute)
{
	cublasLtMatmulDescOpaque_t desc;
	cublasLtMatrixLayoutOpaque_t la, lb, lc;
	lt_desc *d = (lt_desc *)&desc;

	blas_lt_desc_init(d, compute, g->scale_type);
	d->transa = c->transa;
	d->transb = c->transb;
	d->pointer_mode = h->pmode == CUBLAS_POINTER_MODE_DEVICE ? CUBLASLT_POINTER_MODE_DEVICE
								 : CUBLASLT_POINTER_MODE_HOST;
	lt_matrix((lt_layout *)&la, &g->a, g->batch);
	lt_matrix((lt_layout *)&lb, &g->b, g->batch);
	lt_matrix((lt_layout *)&lc, &g->c, g->batch);
	return cublasLtMatmul((cublasLtHandle_t)h, &desc, c->alpha, c->a, &la, c->b, &lb, c->beta,
			      c->c, &lc, c->c, &lc, NULL, h->workspace, h->workspace_bytes,
			      h->stream);
}

static cublasStatus_t run_direct(blas_handle *h, const blas_gemm_call *c, blas_gemm *g)
{
	sim_stream *s = sim_stream_resolve(h->stream, 0);

	if (!s) /* the kernel launch would fail on an invalid stream */
		return CUBLAS_STATUS_EXECUTION_FAILED;
	if (h->pmode == CUBLAS_POINTER_MODE_DEVICE) {
		g->scale_device = 1;
		g->alpha_dev = (uint64_t)(uintptr_t)c->alpha;
		g->beta_dev = (uint64_t)(uintptr_t)c->beta;
	} else {
		/* Host scalars are read at call time: the caller may reuse them at once. */
		blas_scalar_copy(g->alpha, c->alpha, g->scale_type);
		blas_scalar_copy(g->beta, c->beta, g->scale_type);
	}
	return blas_gemm_submit(s, g) == SIM_OK ? CUBLAS_STATUS_SUCCESS
						: CUBLAS_STATUS_EXECUTION_FAILED;
}

static cublasStatus_t gemm(const blas_gemm_call *c, blas_handle *h)
{
	const blas_combo *combo;
	cublasComputeType_t compute;
	cublasStatus_t st;
	blas_gemm g;

	if (!h)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	memset(&g, 0, sizeof(g));
	st = blas_gemm_validate(h, c, &g, &combo, &compute);
	if (st != CUBLAS_STATUS_SUCCESS)
		return st;
	if (g.m == 0 || g.n == 0 || g.batch == 0)
		return CUBLAS_STATUS_SUCCESS;
	/* cuBLASLt's batch count is an int32_t; larger _64 batches stay on the direct path. */
	if ((c->flags & BLAS_CALL_VIA_LT) && g.batch <= INT32_MAX)
		return run_via_lt(h, c, &g, compute);
	return run_direct(h, c, &g);
}

cublasStatus_t blas_gemm_entry(const blas_gemm_call *c)
{
	blas_handle *h = blas_handle_get(c->handle, BLAS_KIND_CLASSIC);
	sim_call call;
	int st;

	sim_call_begin(&call, SIM_FAM_BLAS, c->api);
	log_args(&call, c, h);
	if (sim_call_fault(&call, &st))
		return (cublasStatus_t)sim_call_end(&call, st);
	return (cublasStatus_t)sim_call_end(&call, gemm(c, h));
}
