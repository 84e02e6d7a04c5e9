/* Library handles, shared by cuBLAS and cuBLASLt: created on the current device, holding
 * the stream, pointer mode, math mode, atomics mode and workspace a GEMM runs with.
 */
#include <stdlib.h>

#include "blas_internal.h"

cublasStatus_t blas_handle_create(uint32_t kind, blas_handle **out)
{
	blas_handle *h;

	/* Both libraries initialise the runtime on the current device; no device, no handle. */
	if (sim_device_count() <= 0)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	int dev = sim_current_device();
	if (!sim_device_get(dev))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	h = calloc(1, sizeof(*h));
	if (!h)
		return CUBLAS_STATUS_ALLOC_FAILED;
	h->magic = kind;
	h->device = dev;
	h->stream = NULL;
	h->pmode = CUBLAS_POINTER_MODE_HOST;
	h->math = CUBLAS_DEFAULT_MATH;
	h->atomics = CUBLAS_ATOMICS_NOT_ALLOWED;
	*out = h;
	return CUBLAS_STATUS_SUCCESS;
}

void blas_handle_destroy(blas_handle *h)
{
	if (!h)
		return;
	h->magic = 0; /* so a stale handle reads as uninitialised */
	free(h);
}

blas_handle *blas_handle_get(const void *p, int kinds)
{
	blas_handle *h = (blas_handle *)p;

	if (!h)
		return NULL;
	if ((kinds & BLAS_KIND_CLASSIC) && h->magic == BLAS_HANDLE_CLASSIC)
		return h;
	if ((kinds & BLAS_KIND_LT) && h->magic == BLAS_HANDLE_LT)
		return h;
	return NULL;
}
