/* Exported cuBLAS helper entry points: handle life cycle, stream, pointer/math/atomics modes,
 * workspace, versions and status names.  Each logs itself and consults the fault injector;
 * the work is in the static helper beside it.
 */
#include <stdint.h>

#include "blas_internal.h"

/* cublas_v2.h maps the name to cublasGetVersion_v2; the library exports both. */
#undef cublasGetVersion
cublasStatus_t cublasGetVersion(int *version);

#define HANDLE(p) blas_handle_get((p), BLAS_KIND_CLASSIC)

static int create(cublasHandle_t *out)
{
	blas_handle *h;
	cublasStatus_t st;

	if (!out)
		return CUBLAS_STATUS_INVALID_VALUE;
	st = blas_handle_create(BLAS_HANDLE_CLASSIC, &h);
	if (st == CUBLAS_STATUS_SUCCESS)
		*out = (cublasHandle_t)h;
	return st;
}

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
	sim_call c;
	int st;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	if (!sim_call_fault(&c, &st)) {
		st = create(handle);
		if (st == CUBLAS_STATUS_SUCCESS)
			sim_call_arg(&c, "handle", "0x%llx", (unsigned long long)(uintptr_t)*handle);
	}
	return sim_call_end(&c, st);
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
	sim_call c;
	int st;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	sim_call_arg(&c, "handle", "0x%llx", (unsigned long long)(uintptr_t)handle);
	if (!sim_call_fault(&c, &st)) {
		blas_handle *h = HANDLE(handle);
		st = h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
		blas_handle_destroy(h);
	}
	return sim_call_end(&c, st);
}

static int get_version(int *version)
{
	if (!version)
		return CUBLAS_STATUS_INVALID_VALUE;
	*version = BLAS_VERSION;
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version)
{
	sim_call c;
	int st;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	if (!sim_call_fault(&c, &st))
		st = get_version(version);
	return sim_call_end(&c, st);
}

cublasStatus_t cublasGetVersion(int *version)
{
	sim_call c;
	int st;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	if (!sim_call_fault(&c, &st))
		st = get_version(version);
	return sim_call_end(&c, st);
}

cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value)
{
	sim_call c;
	int st;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	sim_call_arg(&c, "type", "%d", (int)type);
	if (!sim_call_fault(&c, &st))
		st = blas_get_property(type, value);
	return sim_call_end(&c, st);
}

size_t cublasGetCudartVersion(void)
{
	sim_call c;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	sim_call_end(&c, CUBLAS_STATUS_SUCCESS);
	return BLAS_CUDART_VERSION;
}

const char *cublasGetStatusName(cublasStatus_t status)
{
	sim_call c;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	sim_call_arg(&c, "status", "%d", (int)status);
	sim_call_end(&c, CUBLAS_STATUS_SUCCESS);
	return blas_status_name(status);
}

const char *cublasGetStatusString(cublasStatus_t status)
{
	sim_call c;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	sim_call_arg(&c, "status", "%d", (int)status);
	sim_call_end(&c, CUBLAS_STATUS_SUCCESS);
	return blas_status_string(status);
}

/* ------------------------------------------------------------ settings */

/* cuBLAS docs, cublasSetWorkspace: INVALID_VALUE when the pointer is not 256-byte aligned. */
static int set_workspace(cublasHandle_t handle, void *ws, size_t bytes)
{
	blas_handle *h = HANDLE(handle);

	if (!h)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if ((uintptr_t)ws % 256)
		return CUBLAS_STATUS_INVALID_VALUE;
	h->workspace = ws;
	h->workspace_bytes = ws ? bytes : 0;
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t bytes)
{
	sim_call c;
	int st;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	sim_call_arg(&c, "workspace", "0x%llx", (unsigned long long)(uintptr_t)workspace);
	sim_call_arg(&c, "bytes", "%zu", bytes);
	if (!sim_call_fault(&c, &st))
		st = set_workspace(handle, workspace, bytes);
	return sim_call_end(&c, st);
}

/* cuBLAS docs, cublasSetStream: also resets the workspace to the default pool. */
static int set_stream(cublasHandle_t handle, cudaStream_t stream)
{
	blas_handle *h = HANDLE(handle);

	if (!h)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	h->stream = stream;
	h->workspace = NULL;
	h->workspace_bytes = 0;
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream)
{
	sim_call c;
	int st;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	sim_call_arg(&c, "stream", "0x%llx", (unsigned long long)(uintptr_t)stream);
	if (!sim_call_fault(&c, &st))
		st = set_stream(handle, stream);
	return sim_call_end(&c, st);
}

/* Getters and setters of one int-sized handle field each, described by a table. */
enum field { F_STREAM, F_PMODE, F_ATOMICS, F_MATH, F_SMCOUNT };

/* The emulation modes are newer than cuBLAS 12.8 (the .12 build's version): BF16x9 came
 * with 12.9, fixed-point FP64 with 13.0 (cuBLAS release notes); older libraries refuse them. */
static int math_ok(int mode)
{
	int base = mode & ~CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
	return base == CUBLAS_DEFAULT_MATH || base == CUBLAS_TENSOR_OP_MATH ||
	       base == CUBLAS_PEDANTIC_MATH || base == CUBLAS_TF32_TENSOR_OP_MATH ||
	       (base == CUBLAS_FP32_EMULATED_BF16X9_MATH && BLAS_VERSION >= 120900) ||
	       (base == CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH && BLAS_VERSION >= 130000);
}

static int get_field(cublasHandle_t handle, enum field f, void *out)
{
	blas_handle *h = HANDLE(handle);

	if (!h)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (!out)
		return CUBLAS_STATUS_INVALID_VALUE;
	switch (f) {
	case F_STREAM:
		*(cudaStream_t *)out = h->stream;
		break;
	case F_PMODE:
		*(cublasPointerMode_t *)out = h->pmode;
		break;
	case F_ATOMICS:
		*(cublasAtomicsMode_t *)out = h->atomics;
		break;
	case F_MATH:
		*(cublasMath_t *)out = h->math;
		break;
	case F_SMCOUNT:
		*(int *)out = h->sm_count_target;
		break;
	}
	return CUBLAS_STATUS_SUCCESS;
}

static int set_field(cublasHandle_t handle, enum field f, int v)
{
	blas_handle *h = HANDLE(handle);

	if (!h)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	switch (f) {
	case F_PMODE:
		if (v != CUBLAS_POINTER_MODE_HOST && v != CUBLAS_POINTER_MODE_DEVICE)
			return CUBLAS_STATUS_INVALID_VALUE;
		h->pmode = (cublasPointerMode_t)v;
		break;
	case F_ATOMICS:
		if (v != CUBLAS_ATOMICS_NOT_ALLOWED && v != CUBLAS_ATOMICS_ALLOWED)
			return CUBLAS_STATUS_INVALID_VALUE;
		h->atomics = (cublasAtomicsMode_t)v;
		break;
	case F_MATH:
		if (!math_ok(v))
			return CUBLAS_STATUS_INVALID_VALUE;
		h->math = (cublasMath_t)v;
		break;
	case F_SMCOUNT:
		if (v < 0)
			return CUBLAS_STATUS_INVALID_VALUE;
		h->sm_count_target = v;
		break;
	case F_STREAM:
		return CUBLAS_STATUS_INTERNAL_ERROR;
	}
	return CUBLAS_STATUS_SUCCESS;
}

#define GETTER(NAME, F, T)                                        \
	cublasStatus_t NAME(cublasHandle_t handle, T *out)        \
	{                                                         \
		sim_call c;                                       \
		int st;                                           \
		sim_call_begin(&c, SIM_FAM_BLAS, #NAME);          \
		if (!sim_call_fault(&c, &st))                     \
			st = get_field(handle, F, out);           \
		return sim_call_end(&c, st);                      \
	}
#define SETTER(NAME, F, T, KEY)                                   \
	cublasStatus_t NAME(cublasHandle_t handle, T v)           \
	{                                                         \
		sim_call c;                                       \
		int st;                                           \
		sim_call_begin(&c, SIM_FAM_BLAS, #NAME);          \
		sim_call_arg(&c, KEY, "%d", (int)v);              \
		if (!sim_call_fault(&c, &st))                     \
			st = set_field(handle, F, (int)v);        \
		return sim_call_end(&c, st);                      \
	}

GETTER(cublasGetStream_v2, F_STREAM, cudaStream_t)
GETTER(cublasGetPointerMode_v2, F_PMODE, cublasPointerMode_t)
SETTER(cublasSetPointerMode_v2, F_PMODE, cublasPointerMode_t, "mode")
GETTER(cublasGetAtomicsMode, F_ATOMICS, cublasAtomicsMode_t)
SETTER(cublasSetAtomicsMode, F_ATOMICS, cublasAtomicsMode_t, "mode")
GETTER(cublasGetMathMode, F_MATH, cublasMath_t)
SETTER(cublasSetMathMode, F_MATH, cublasMath_t, "mode")
GETTER(cublasGetSmCountTarget, F_SMCOUNT, int)
SETTER(cublasSetSmCountTarget, F_SMCOUNT, int, "count")
