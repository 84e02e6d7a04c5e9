/* Default contents of the cuBLASLt descriptors, shared by cuBLASLt's Create/Init entry points
 * and by cuBLAS, which builds descriptors for its nested cublasLtMatmul call.
 */
#include <string.h>

#include "blas_internal.h"

/* The application may place descriptors in the semi-opaque structs of cublasLt.h. */
_Static_assert(sizeof(lt_desc) <= sizeof(cublasLtMatmulDescOpaque_t), "lt_desc too big");
_Static_assert(sizeof(lt_layout) <= sizeof(cublasLtMatrixLayoutOpaque_t), "lt_layout too big");
_Static_assert(sizeof(lt_pref) <= sizeof(cublasLtMatmulPreferenceOpaque_t), "lt_pref too big");

void blas_lt_desc_init(lt_desc *d, cublasComputeType_t compute, cudaDataType scale)
{
	memset(d, 0, sizeof(*d));
	d->compute = compute;
	d->scale = scale;
	d->pointer_mode = CUBLASLT_POINTER_MODE_HOST;
	d->transa = d->transb = d->transc = CUBLAS_OP_N;
	d->fill_mode = CUBLAS_FILL_MODE_FULL;
	d->epilogue = CUBLASLT_EPILOGUE_DEFAULT;
	d->aux_type = -1;   /* header: default -1, i.e. D's type */
	d->bias_type = -1;
}

void blas_lt_layout_init(lt_layout *l, cudaDataType type, uint64_t rows, uint64_t cols,
			 int64_t ld)
{
	memset(l, 0, sizeof(*l));
	l->type = type;
	l->order = CUBLASLT_ORDER_COL;
	l->rows = rows;
	l->cols = cols;
	l->ld = ld;
	l->batch_count = 1;
	l->batch_mode = CUBLASLT_BATCH_MODE_STRIDED;
}

void blas_lt_pref_init(lt_pref *p)
{
	memset(p, 0, sizeof(*p));
	p->search_mode = CUBLASLT_SEARCH_BEST_FIT;
	p->reduction_mask = CUBLASLT_REDUCTION_SCHEME_MASK;
	p->max_workspace = 0;
	p->align_a = p->align_b = p->align_c = p->align_d = 256;
	p->impl_mask = UINT64_MAX;
}
