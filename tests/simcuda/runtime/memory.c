/* Allocation entry points: device memory (synchronous and stream-ordered), page-locked host
 * memory and memory queries, each one driver call away. */
#include <string.h>

#include "runtime_internal.h"
#include "cuda12_abi.h"

cudaError_t CUDARTAPI cudaMalloc(void **devPtr, size_t size)
{
	CUdeviceptr p = 0;

	RT_ENTER("cudaMalloc");
	RT_ARG("bytes", "%zu", size);
	RT_CHECK_CONTEXT();
	if (!devPtr)
		RT_RETURN(cudaErrorInvalidValue);
	*devPtr = NULL;
	if (size == 0)
		RT_RETURN(cudaSuccess); /* runtime docs: a zero-byte request returns NULL */
	RT_TRY(RT_DRV(d->cuMemAlloc(&p, size)));
	*devPtr = (void *)(uintptr_t)p;
	RT_ARG("ptr", "0x%llx", RT_PTR(*devPtr));
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaFree(void *devPtr)
{
	RT_ENTER("cudaFree");
	RT_ARG("ptr", "0x%llx", RT_PTR(devPtr));
	RT_CHECK_CONTEXT();
	if (!devPtr)
		RT_RETURN(cudaSuccess); /* cudaFree(0) only initializes the context */
	RT_RETURN(RT_DRV(d->cuMemFree((CUdeviceptr)(uintptr_t)devPtr)));
}

static cudaError_t malloc_async(sim_call *c, const struct rt_driver *d, void **devPtr,
				size_t size, cudaStream_t stream)
{
	CUdeviceptr p = 0;
	cudaError_t err;

	if (!devPtr)
		return cudaErrorInvalidValue;
	*devPtr = NULL;
	if (size == 0)
		return cudaSuccess;
	err = rt_status(d->cuMemAllocAsync(&p, size, (CUstream)stream));
	if (err == cudaSuccess) {
		*devPtr = (void *)(uintptr_t)p;
		sim_call_arg(c, "ptr", "0x%llx", RT_PTR(*devPtr));
	}
	return err;
}

#define MALLOC_ASYNC(name, pt) \
	cudaError_t CUDARTAPI name(void **devPtr, size_t size, cudaStream_t hStream) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("bytes", "%zu", size); \
		RT_ARG("stream", "0x%llx", RT_PTR(hStream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(malloc_async(&call_, d, devPtr, size, hStream)); \
	}
#define FREE_ASYNC(name, pt) \
	cudaError_t CUDARTAPI name(void *devPtr, cudaStream_t hStream) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("ptr", "0x%llx", RT_PTR(devPtr)); \
		RT_ARG("stream", "0x%llx", RT_PTR(hStream)); \
		RT_CHECK_CONTEXT(); \
		if (!devPtr) \
			RT_RETURN(cudaSuccess); \
		RT_RETURN(RT_DRV(d->cuMemFreeAsync((CUdeviceptr)(uintptr_t)devPtr, \
						   (CUstream)hStream))); \
	}

MALLOC_ASYNC(cudaMallocAsync, 0)
MALLOC_ASYNC(cudaMallocAsync_ptsz, 1)
FREE_ASYNC(cudaFreeAsync, 0)
FREE_ASYNC(cudaFreeAsync_ptsz, 1)

static cudaError_t host_alloc(sim_call *c, const struct rt_driver *d, void **ptr, size_t size,
			      unsigned flags)
{
	sim_call_arg(c, "bytes", "%zu", size);
	if (!ptr)
		return cudaErrorInvalidValue;
	*ptr = NULL;
	if (size == 0)
		return cudaSuccess;
	/* cudaHostAlloc* flags are the CU_MEMHOSTALLOC_* bits. */
	return rt_status(d->cuMemHostAlloc(ptr, size, flags));
}

cudaError_t CUDARTAPI cudaMallocHost(void **ptr, size_t size)
{
	RT_ENTER("cudaMallocHost");
	RT_CHECK_CONTEXT();
	RT_RETURN(host_alloc(&call_, d, ptr, size, 0));
}

cudaError_t CUDARTAPI cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
	RT_ENTER("cudaHostAlloc");
	RT_ARG("flags", "%u", flags);
	RT_CHECK_CONTEXT();
	RT_RETURN(host_alloc(&call_, d, pHost, size, flags));
}

cudaError_t CUDARTAPI cudaFreeHost(void *ptr)
{
	RT_ENTER("cudaFreeHost");
	RT_ARG("ptr", "0x%llx", RT_PTR(ptr));
	RT_CHECK_CONTEXT();
	if (!ptr)
		RT_RETURN(cudaSuccess);
	RT_RETURN(RT_DRV(d->cuMemFreeHost(ptr)));
}

cudaError_t CUDARTAPI cudaMemGetInfo(size_t *free, size_t *total)
{
	RT_ENTER("cudaMemGetInfo");
	RT_CHECK_CONTEXT();
	RT_RETURN(RT_DRV(d->cuMemGetInfo(free, total)));
}

/* CUDA 13 appended reserved words to struct cudaPointerAttributes (cleared here); a CUDA 12
 * program passes the 24-byte form (../v12/cuda12_abi.h), so the .12 build writes no more. */
cudaError_t CUDARTAPI cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
					       const void *ptr)
{
	CUpointer_attribute which[] = {
		CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
		CU_POINTER_ATTRIBUTE_DEVICE_POINTER, CU_POINTER_ATTRIBUTE_HOST_POINTER,
		CU_POINTER_ATTRIBUTE_IS_MANAGED,
	};
	unsigned type = 0, managed = 0;
	int device = cudaInvalidDeviceId;
	CUdeviceptr dptr = 0;
	void *hptr = NULL;
	void *data[] = {&type, &device, &dptr, &hptr, &managed};
#if SIMCUDA_SOVERSION == 12
	struct cuda12_pointer_attributes *out = (struct cuda12_pointer_attributes *)attributes;
#else
	struct cudaPointerAttributes *out = attributes;
#endif

	RT_ENTER("cudaPointerGetAttributes");
	RT_ARG("ptr", "0x%llx", RT_PTR(ptr));
	RT_CHECK_CONTEXT();
	if (!attributes)
		RT_RETURN(cudaErrorInvalidValue);
	RT_TRY(RT_DRV(d->cuPointerGetAttributes(sizeof which / sizeof which[0], which, data,
						 (CUdeviceptr)(uintptr_t)ptr)));
	memset(out, 0, sizeof *out);
	out->type = managed ? cudaMemoryTypeManaged
		: type == CU_MEMORYTYPE_DEVICE ? cudaMemoryTypeDevice
		: type == CU_MEMORYTYPE_HOST ? cudaMemoryTypeHost
		: cudaMemoryTypeUnregistered;
	out->device = type ? device : cudaInvalidDeviceId;
	out->devicePointer = (void *)(uintptr_t)dptr;
	out->hostPointer = hptr;
	RT_ARG("type", "%d", (int)out->type);
	RT_RETURN(cudaSuccess);
}
