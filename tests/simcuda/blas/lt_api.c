/* Exported cuBLASLt helper entry points: handle life cycle, versions, status names.
 * A cuBLAS handle is a valid cuBLASLt handle too (see blas_internal.h), but only handles
 * made by cublasLtCreate are destroyed here.
 */
#include <stdint.h>

#include "blas_internal.h"

static int create(cublasLtHandle_t *out)
{
	blas_handle *h;
	cublasStatus_t st;

	if (!out) /* "Invalid handle was passed to cublasLtCreate." */
		return CUBLAS_STATUS_INVALID_VALUE;
	st = blas_handle_create(BLAS_HANDLE_LT, &h);
	if (st == CUBLAS_STATUS_SUCCESS)
		*out = (cublasLtHandle_t)h;
	return st;
}

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle)
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

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle)
{
	sim_call c;
	int st;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	sim_call_arg(&c, "handle", "0x%llx", (unsigned long long)(uintptr_t)handle);
	if (!sim_call_fault(&c, &st)) {
		blas_handle *h = blas_handle_get(handle, BLAS_KIND_LT);
		st = h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
		blas_handle_destroy(h);
	}
	return sim_call_end(&c, st);
}

const char *cublasLtGetStatusName(cublasStatus_t status)
{
	sim_call c;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	sim_call_arg(&c, "status", "%d", (int)status);
	sim_call_end(&c, CUBLAS_STATUS_SUCCESS);
	return blas_status_name(status);
}

const char *cublasLtGetStatusString(cublasStatus_t status)
{
	sim_call c;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	sim_call_arg(&c, "status", "%d", (int)status);
	sim_call_end(&c, CUBLAS_STATUS_SUCCESS);
	return blas_status_string(status);
}

size_t cublasLtGetVersion(void)
{
	sim_call c;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	sim_call_end(&c, CUBLAS_STATUS_SUCCESS);
	return BLAS_VERSION;
}

size_t cublasLtGetCudartVersion(void)
{
	sim_call c;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	sim_call_end(&c, CUBLAS_STATUS_SUCCESS);
	return BLAS_CUDART_VERSION;
}

cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value)
{
	sim_call c;
	int st;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	sim_call_arg(&c, "type", "%d", (int)type);
	if (!sim_call_fault(&c, &st))
		st = blas_get_property(type, value);
	return sim_call_end(&c, st);
}
