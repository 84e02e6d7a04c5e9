/* Exported cuBLASLt descriptor entry points: matmul descriptors, matrix layouts and matmul
 * preferences -- Create, Init_internal, Destroy, SetAttribute, GetAttribute.  Attributes are
 * rows of a table (id, field, size); cublasLt.h documents each size, and a buffer of any
 * other size is INVALID_VALUE, as is an attribute the table does not have.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "blas_internal.h"
#include "cuda12_abi.h"

typedef struct attr_row {
	int id;
	const char *name;
	size_t offset, size;
	char kind;           /* 'i' signed, 'u' unsigned, 'p' pointer, 'f' float: for the log */
} attr_row;

#define A(T, ID, FIELD, KIND) \
	{ ID, #ID, offsetof(T, FIELD), sizeof(((T *)0)->FIELD), KIND }

#define D(ID, FIELD, KIND) A(lt_desc, CUBLASLT_MATMUL_DESC_##ID, FIELD, KIND)
static const attr_row desc_attrs[] = {
	D(COMPUTE_TYPE, compute, 'i'),       D(SCALE_TYPE, scale, 'i'),
	D(POINTER_MODE, pointer_mode, 'i'),  D(TRANSA, transa, 'i'),
	D(TRANSB, transb, 'i'),              D(TRANSC, transc, 'i'),
	D(FILL_MODE, fill_mode, 'i'),        D(EPILOGUE, epilogue, 'u'),
	D(BIAS_POINTER, bias, 'p'),          D(BIAS_BATCH_STRIDE, bias_batch_stride, 'i'),
	D(EPILOGUE_AUX_POINTER, aux, 'p'),   D(EPILOGUE_AUX_LD, aux_ld, 'i'),
	D(EPILOGUE_AUX_BATCH_STRIDE, aux_batch_stride, 'i'),
	D(ALPHA_VECTOR_BATCH_STRIDE, alpha_vector_batch_stride, 'i'),
	D(SM_COUNT_TARGET, sm_count_target, 'i'),
	D(A_SCALE_POINTER, a_scale, 'p'),    D(B_SCALE_POINTER, b_scale, 'p'),
	D(C_SCALE_POINTER, c_scale, 'p'),    D(D_SCALE_POINTER, d_scale, 'p'),
	D(AMAX_D_POINTER, amax_d, 'p'),      D(EPILOGUE_AUX_DATA_TYPE, aux_type, 'i'),
	D(EPILOGUE_AUX_SCALE_POINTER, aux_scale, 'p'),
	D(EPILOGUE_AUX_AMAX_POINTER, aux_amax, 'p'),
	D(FAST_ACCUM, fast_accum, 'i'),      D(BIAS_DATA_TYPE, bias_type, 'i'),
	D(A_SCALE_MODE, a_scale_mode, 'i'),  D(B_SCALE_MODE, b_scale_mode, 'i'),
	D(C_SCALE_MODE, c_scale_mode, 'i'),  D(D_SCALE_MODE, d_scale_mode, 'i'),
	D(EPILOGUE_AUX_SCALE_MODE, aux_scale_mode, 'i'),
	D(D_OUT_SCALE_POINTER, d_out_scale, 'p'),
	D(D_OUT_SCALE_MODE, d_out_scale_mode, 'i'),
#if SIMCUDA_SOVERSION >= 13
	D(EMULATION_DESCRIPTOR, emulation, 'p'),   /* new in cuBLASLt 13.0 */
#else
	/* Removed in cuBLASLt 13.0; values from cublasLt.h 12.6. */
	A(lt_desc, CUDA12_LT_DESC_ATOMIC_SYNC_NUM_CHUNKS_D_ROWS, atomic_chunks_rows, 'i'),
	A(lt_desc, CUDA12_LT_DESC_ATOMIC_SYNC_NUM_CHUNKS_D_COLS, atomic_chunks_cols, 'i'),
	A(lt_desc, CUDA12_LT_DESC_ATOMIC_SYNC_IN_COUNTERS_POINTER, atomic_in_counters, 'p'),
	A(lt_desc, CUDA12_LT_DESC_ATOMIC_SYNC_OUT_COUNTERS_POINTER, atomic_out_counters, 'p'),
#endif
};

#define L(ID, FIELD, KIND) A(lt_layout, CUBLASLT_MATRIX_LAYOUT_##ID, FIELD, KIND)
static const attr_row layout_attrs[] = {
	L(TYPE, type, 'u'),              L(ORDER, order, 'i'),
	L(ROWS, rows, 'u'),              L(COLS, cols, 'u'),
	L(LD, ld, 'i'),                  L(BATCH_COUNT, batch_count, 'i'),
	L(STRIDED_BATCH_OFFSET, batch_stride, 'i'),
	L(PLANE_OFFSET, plane_offset, 'i'),
	L(BATCH_MODE, batch_mode, 'u'),
};

#define P(ID, FIELD, KIND) A(lt_pref, CUBLASLT_MATMUL_PREF_##ID, FIELD, KIND)
static const attr_row pref_attrs[] = {
	P(SEARCH_MODE, search_mode, 'u'),
	P(MAX_WORKSPACE_BYTES, max_workspace, 'u'),
	P(REDUCTION_SCHEME_MASK, reduction_mask, 'u'),
	P(MIN_ALIGNMENT_A_BYTES, align_a, 'u'),  P(MIN_ALIGNMENT_B_BYTES, align_b, 'u'),
	P(MIN_ALIGNMENT_C_BYTES, align_c, 'u'),  P(MIN_ALIGNMENT_D_BYTES, align_d, 'u'),
	P(MAX_WAVES_COUNT, max_waves, 'f'),
	P(IMPL_MASK, impl_mask, 'u'),
};

static const attr_row *attr_find(const attr_row *rows, size_t n, int id)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].id == id)
			return &rows[i];
	return NULL;
}

/* "attr=CUBLASLT_MATMUL_DESC_EPILOGUE value=4" (the value when the buffer is readable). */
static void log_attr(sim_call *c, const attr_row *r, int id, const void *buf, size_t size)
{
	const char *prefix[] = { "CUBLASLT_MATMUL_DESC_", "CUBLASLT_MATRIX_LAYOUT_",
				 "CUBLASLT_MATMUL_PREF_" };
	const char *name = NULL;

	if (r) {
		name = r->name;
		for (size_t i = 0; i < 3; i++)
			if (!strncmp(name, prefix[i], strlen(prefix[i])))
				name += strlen(prefix[i]);
		sim_call_arg(c, "attr", "%s", name);
	} else {
		sim_call_arg(c, "attr", "%d", id);
	}
	sim_call_arg(c, "size", "%zu", size);
	if (!r || !buf || size != r->size)
		return;
	if (r->kind == 'f') {
		float f;
		memcpy(&f, buf, 4);
		sim_call_arg(c, "value", "%g", f);
	} else {
		uint64_t u = 0;
		int64_t s;
		memcpy(&u, buf, size);
		s = size == 1 ? (int8_t)u : size == 4 ? (int32_t)u : (int64_t)u;
		if (r->kind == 'p')
			sim_call_arg(c, "value", "0x%llx", (unsigned long long)u);
		else if (r->kind == 'u')
			sim_call_arg(c, "value", "%llu", (unsigned long long)u);
		else
			sim_call_arg(c, "value", "%lld", (long long)s);
	}
}

static int attr_set(const attr_row *r, void *obj, const void *buf, size_t size)
{
	if (!obj || !r || !buf || size != r->size)
		return CUBLAS_STATUS_INVALID_VALUE;
	memcpy((char *)obj + r->offset, buf, size);
	return CUBLAS_STATUS_SUCCESS;
}

/* cublasLt.h: size 0 asks for the size; otherwise it must match the storage. */
static int attr_get(const attr_row *r, const void *obj, void *buf, size_t size, size_t *written)
{
	if (!obj || !r)
		return CUBLAS_STATUS_INVALID_VALUE;
	if (size == 0) {
		if (!written)
			return CUBLAS_STATUS_INVALID_VALUE;
		*written = r->size;
		return CUBLAS_STATUS_SUCCESS;
	}
	if (!buf || size != r->size)
		return CUBLAS_STATUS_INVALID_VALUE;
	memcpy(buf, (const char *)obj + r->offset, size);
	if (written)
		*written = size;
	return CUBLAS_STATUS_SUCCESS;
}

/* Set/GetAttribute of one descriptor kind, from its table. */
#define ATTR_API(SET, GET, HANDLE_T, ATTR_T, TABLE)                                            \
	cublasStatus_t SET(HANDLE_T obj, ATTR_T attr, const void *buf, size_t size)            \
	{                                                                                      \
		const attr_row *r = attr_find(TABLE, sizeof(TABLE) / sizeof(TABLE[0]), attr);  \
		sim_call c;                                                                    \
		int st;                                                                        \
		sim_call_begin(&c, SIM_FAM_BLAS, #SET);                                        \
		log_attr(&c, r, attr, buf, size);                                              \
		if (!sim_call_fault(&c, &st))                                                  \
			st = attr_set(r, obj, buf, size);                                      \
		return sim_call_end(&c, st);                                                   \
	}                                                                                      \
	cublasStatus_t GET(HANDLE_T obj, ATTR_T attr, void *buf, size_t size, size_t *written) \
	{                                                                                      \
		const attr_row *r = attr_find(TABLE, sizeof(TABLE) / sizeof(TABLE[0]), attr);  \
		sim_call c;                                                                    \
		int st;                                                                        \
		sim_call_begin(&c, SIM_FAM_BLAS, #GET);                                        \
		log_attr(&c, r, attr, NULL, size);                                             \
		if (!sim_call_fault(&c, &st))                                                  \
			st = attr_get(r, obj, buf, size, written);                             \
		return sim_call_end(&c, st);                                                   \
	}

ATTR_API(cublasLtMatmulDescSetAttribute, cublasLtMatmulDescGetAttribute, cublasLtMatmulDesc_t,
	 cublasLtMatmulDescAttributes_t, desc_attrs)
ATTR_API(cublasLtMatrixLayoutSetAttribute, cublasLtMatrixLayoutGetAttribute,
	 cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t, layout_attrs)
ATTR_API(cublasLtMatmulPreferenceSetAttribute, cublasLtMatmulPreferenceGetAttribute,
	 cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t, pref_attrs)

/* ------------------------------------------------- create, init, destroy */

/* Logs, checks the fault injector, and runs init on the caller's (or fresh) storage. */
#define LIFECYCLE_BEGIN(NAME)                      \
	sim_call c;                                \
	int st;                                    \
	sim_call_begin(&c, SIM_FAM_BLAS, NAME)

static int init_storage(void *obj, size_t have, size_t need)
{
	if (!obj)
		return CUBLAS_STATUS_INVALID_VALUE;
	return have < need ? CUBLAS_STATUS_ALLOC_FAILED : CUBLAS_STATUS_SUCCESS;
}

static void *new_storage(void **out, size_t size, int *st)
{
	void *p;

	*st = CUBLAS_STATUS_INVALID_VALUE;
	if (!out)
		return NULL;
	*st = CUBLAS_STATUS_ALLOC_FAILED;
	if (!(p = calloc(1, size)))
		return NULL;
	*st = CUBLAS_STATUS_SUCCESS;
	*out = p;
	return p;
}

cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t desc, size_t size,
					       cublasComputeType_t compute, cudaDataType_t scale)
{
	LIFECYCLE_BEGIN(__func__);
	if (!sim_call_fault(&c, &st) &&
	    (st = init_storage(desc, size, sizeof(lt_desc))) == CUBLAS_STATUS_SUCCESS)
		blas_lt_desc_init((lt_desc *)desc, compute, scale);
	return sim_call_end(&c, st);
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc, cublasComputeType_t compute,
					cudaDataType_t scale)
{
	char buf[BLAS_NAME_BUF];
	void *p;

	LIFECYCLE_BEGIN(__func__);
	sim_call_arg(&c, "compute", "%s", blas_compute_name(compute, buf));
	sim_call_arg(&c, "scale", "%s", blas_type_name(scale));
	if (!sim_call_fault(&c, &st) &&
	    (p = new_storage((void **)desc, sizeof(cublasLtMatmulDescOpaque_t), &st)))
		blas_lt_desc_init(p, compute, scale);
	return sim_call_end(&c, st);
}

cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t layout, size_t size,
						 cudaDataType type, uint64_t rows, uint64_t cols,
						 int64_t ld)
{
	LIFECYCLE_BEGIN(__func__);
	if (!sim_call_fault(&c, &st) &&
	    (st = init_storage(layout, size, sizeof(lt_layout))) == CUBLAS_STATUS_SUCCESS)
		blas_lt_layout_init((lt_layout *)layout, type, rows, cols, ld);
	return sim_call_end(&c, st);
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout, cudaDataType type,
					  uint64_t rows, uint64_t cols, int64_t ld)
{
	void *p;

	LIFECYCLE_BEGIN(__func__);
	sim_call_arg(&c, "type", "%s", blas_type_name(type));
	sim_call_arg(&c, "rows", "%llu", (unsigned long long)rows);
	sim_call_arg(&c, "cols", "%llu", (unsigned long long)cols);
	sim_call_arg(&c, "ld", "%lld", (long long)ld);
	if (!sim_call_fault(&c, &st) &&
	    (p = new_storage((void **)layout, sizeof(cublasLtMatrixLayoutOpaque_t), &st)))
		blas_lt_layout_init(p, type, rows, cols, ld);
	return sim_call_end(&c, st);
}

cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t pref, size_t size)
{
	LIFECYCLE_BEGIN(__func__);
	if (!sim_call_fault(&c, &st) &&
	    (st = init_storage(pref, size, sizeof(lt_pref))) == CUBLAS_STATUS_SUCCESS)
		blas_lt_pref_init((lt_pref *)pref);
	return sim_call_end(&c, st);
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
	void *p;

	LIFECYCLE_BEGIN(__func__);
	if (!sim_call_fault(&c, &st) &&
	    (p = new_storage((void **)pref, sizeof(cublasLtMatmulPreferenceOpaque_t), &st)))
		blas_lt_pref_init(p);
	return sim_call_end(&c, st);
}

/* Destroy accepts NULL, as the real ones do. */
#define DESTROY(NAME, T)                                        \
	cublasStatus_t NAME(T obj)                              \
	{                                                       \
		LIFECYCLE_BEGIN(#NAME);                         \
		if (!sim_call_fault(&c, &st)) {                 \
			free(obj);                              \
			st = CUBLAS_STATUS_SUCCESS;             \
		}                                               \
		return sim_call_end(&c, st);                    \
	}
DESTROY(cublasLtMatmulDescDestroy, cublasLtMatmulDesc_t)
DESTROY(cublasLtMatrixLayoutDestroy, cublasLtMatrixLayout_t)
DESTROY(cublasLtMatmulPreferenceDestroy, cublasLtMatmulPreference_t)
