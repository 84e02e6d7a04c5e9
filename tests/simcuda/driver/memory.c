/* Memory: device allocations (synchronous and stream-ordered) in the core's bounds-checked
 * pool, page-locked host allocations (plain host memory, remembered so pointer queries can
 * tell them apart), address ranges and pointer attributes. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "driver_internal.h"

/* ------------------------------------------------------------ device memory */

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	void *p = NULL;
	CUresult st;
	int dev;

	DRV_ENTER("cuMemAlloc_v2");
	DRV_ARG("bytes", "%zu", bytesize);
	DRV_CHECK();
	DRV_TRY(drv_current_device(&dev));
	if (!dptr || bytesize == 0)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* A synchronous allocation is a potentially unsafe call during capture. */
	DRV_TRY(drv_capture_guard());
	st = drv_status(sim_mem_alloc(dev, bytesize, SIM_ALLOC_DEVICE, "cuMemAlloc_v2", &p));
	if (st == CUDA_SUCCESS) {
		*dptr = (CUdeviceptr)(uintptr_t)p;
		DRV_ARG("ptr", "0x%llx", DRV_PTR(p));
	}
	DRV_RETURN(st);
}

CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
	DRV_ENTER("cuMemFree_v2");
	DRV_ARG("ptr", "0x%llx", (unsigned long long)dptr);
	DRV_CHECK();
	if (!dptr)
		DRV_RETURN(CUDA_SUCCESS);
	DRV_TRY(drv_capture_guard());
	DRV_RETURN(drv_status(sim_mem_free((void *)(uintptr_t)dptr)));
}

static CUresult alloc_async(sim_call *c, CUdeviceptr *dptr, size_t bytes, CUstream h,
			    int per_thread)
{
	sim_stream *s;
	void *p = NULL;
	CUresult st;

	sim_call_arg(c, "bytes", "%zu", bytes);
	sim_call_arg(c, "stream", "0x%llx", DRV_PTR(h));
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = drv_stream_for_work(h, per_thread, &s);
	if (st != CUDA_SUCCESS)
		return st;
	if (!dptr || bytes == 0)
		return CUDA_ERROR_INVALID_VALUE;
	/* Allocated at once, also while capturing: the pointer stays valid for every replay. */
	st = drv_status(sim_mem_alloc(sim_stream_device(s), bytes, SIM_ALLOC_ASYNC, c->api, &p));
	if (st == CUDA_SUCCESS) {
		*dptr = (CUdeviceptr)(uintptr_t)p;
		sim_call_arg(c, "ptr", "0x%llx", DRV_PTR(p));
	}
	return st;
}

CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	DRV_ENTER("cuMemAllocAsync");
	DRV_RETURN(alloc_async(&call_, dptr, bytesize, hStream, 0));
}

CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	DRV_ENTER("cuMemAllocAsync_ptsz");
	DRV_RETURN(alloc_async(&call_, dptr, bytesize, hStream, 1));
}

static CUresult free_async(sim_call *c, CUdeviceptr dptr, CUstream h, int per_thread)
{
	uint64_t base = 0;
	sim_stream *s;
	CUresult st;

	sim_call_arg(c, "ptr", "0x%llx", (unsigned long long)dptr);
	sim_call_arg(c, "stream", "0x%llx", DRV_PTR(h));
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = drv_stream_for_work(h, per_thread, &s);
	if (st != CUDA_SUCCESS)
		return st;
	if (sim_mem_range(dptr, &base, NULL) != SIM_OK || base != dptr)
		return CUDA_ERROR_INVALID_VALUE;
	/* Freed now, or with the graph when captured (a replay may still use it). */
	sim_graph_defer_free(s, (void *)(uintptr_t)dptr);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
	DRV_ENTER("cuMemFreeAsync");
	DRV_RETURN(free_async(&call_, dptr, hStream, 0));
}

CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
	DRV_ENTER("cuMemFreeAsync_ptsz");
	DRV_RETURN(free_async(&call_, dptr, hStream, 1));
}

CUresult CUDAAPI cuMemGetInfo_v2(size_t *free, size_t *total)
{
	int dev;

	DRV_ENTER("cuMemGetInfo_v2");
	DRV_CHECK();
	DRV_TRY(drv_current_device(&dev));
	if (!free || !total)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	sim_mem_info(dev, free, total);
	DRV_ARG("free", "%zu", *free);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
	uint64_t base;
	size_t size;

	DRV_ENTER("cuMemGetAddressRange_v2");
	DRV_ARG("ptr", "0x%llx", (unsigned long long)dptr);
	DRV_CHECK();
	if (sim_mem_range(dptr, &base, &size) != SIM_OK)
		DRV_RETURN(CUDA_ERROR_NOT_FOUND);
	if (pbase)
		*pbase = base;
	if (psize)
		*psize = size;
	DRV_RETURN(CUDA_SUCCESS);
}

/* ------------------------------------------------------------ host memory */

/* Page-locked host ranges: allocated by the driver (cuMemHostAlloc) or registered by the
 * program (cuMemHostRegister); each kind is released only by its own call. */
struct host_block {
	void *p;
	size_t size;
	unsigned flags;
	int registered;
	struct host_block *next;
};

static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;
static struct host_block *host_blocks;

int drv_host_alloc_find(const void *p, void **base, size_t *size)
{
	const char *a = p;
	int found = 0;

	pthread_mutex_lock(&host_lock);
	for (struct host_block *b = host_blocks; b; b = b->next)
		if (a >= (const char *)b->p && a < (const char *)b->p + b->size) {
			if (base)
				*base = b->p;
			if (size)
				*size = b->size;
			found = 1;
			break;
		}
	pthread_mutex_unlock(&host_lock);
	return found;
}

/* Logs what page-locking calls share, applies fault rules and wants a current context. */
static CUresult host_enter(sim_call *c, size_t bytes, unsigned flags)
{
	CUresult st;
	int dev;

	sim_call_arg(c, "bytes", "%zu", bytes);
	sim_call_arg(c, "flags", "%u", flags);
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = drv_current_device(&dev);
	return st;
}

#define KNOWN_HOST_FLAGS \
	(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED)

static CUresult host_alloc(sim_call *c, void **pp, size_t bytes, unsigned flags)
{
	struct host_block *b;
	CUresult st = host_enter(c, bytes, flags);

	if (st != CUDA_SUCCESS)
		return st;
	if (!pp || bytes == 0 || (flags & ~(unsigned)KNOWN_HOST_FLAGS))
		return CUDA_ERROR_INVALID_VALUE;
	b = calloc(1, sizeof *b);
	if (!b || posix_memalign(&b->p, 4096, bytes) != 0) {
		free(b);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	b->size = bytes;
	b->flags = flags;
	pthread_mutex_lock(&host_lock);
	b->next = host_blocks;
	host_blocks = b;
	pthread_mutex_unlock(&host_lock);
	*pp = b->p;
	sim_call_arg(c, "ptr", "0x%llx", DRV_PTR(b->p));
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
	DRV_ENTER("cuMemHostAlloc");
	DRV_RETURN(host_alloc(&call_, pp, bytesize, Flags));
}

CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize)
{
	DRV_ENTER("cuMemAllocHost_v2");
	DRV_RETURN(host_alloc(&call_, pp, bytesize, 0));
}

/* Ends a page-locked range of the kind asked for, by its start; the driver frees the memory it
 * allocated, a registered range goes back to being ordinary memory. */
static CUresult host_release(sim_call *c, void *p, int registered)
{
	struct host_block *b = NULL;
	CUresult st;

	sim_call_arg(c, "ptr", "0x%llx", DRV_PTR(p));
	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	pthread_mutex_lock(&host_lock);
	for (struct host_block **pp = &host_blocks; *pp; pp = &(*pp)->next)
		if ((*pp)->p == p && (*pp)->registered == registered) {
			b = *pp;
			*pp = b->next;
			break;
		}
	pthread_mutex_unlock(&host_lock);
	if (!b)
		return registered ? CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED : CUDA_ERROR_INVALID_VALUE;
	if (!registered)
		free(b->p);
	free(b);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFreeHost(void *p)
{
	DRV_ENTER("cuMemFreeHost");
	DRV_RETURN(host_release(&call_, p, 0));
}

#define KNOWN_REGISTER_FLAGS \
	(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_IOMEMORY | \
	 CU_MEMHOSTREGISTER_READ_ONLY)

/* Driver docs, cuMemHostRegister: pins [p, p + bytesize) of ordinary host memory; a range
 * overlapping page-locked memory already is HOST_MEMORY_ALREADY_REGISTERED.  IOMEMORY asks
 * for a device's I/O space, which plain memory is not (NOT_PERMITTED here, an inference). */
static CUresult host_register(sim_call *c, void *p, size_t bytes, unsigned flags)
{
	const char *a = p;
	struct host_block *b;
	CUresult st;

	sim_call_arg(c, "ptr", "0x%llx", DRV_PTR(p));
	st = host_enter(c, bytes, flags);
	if (st != CUDA_SUCCESS)
		return st;
	if (!p || bytes == 0 || (flags & ~(unsigned)KNOWN_REGISTER_FLAGS) ||
	    sim_mem_is_device(p))
		return CUDA_ERROR_INVALID_VALUE;
	if (flags & CU_MEMHOSTREGISTER_IOMEMORY)
		return CUDA_ERROR_NOT_PERMITTED;
	b = calloc(1, sizeof *b);
	if (!b)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*b = (struct host_block){p, bytes, flags, 1, NULL};
	pthread_mutex_lock(&host_lock);
	for (struct host_block *o = host_blocks; o; o = o->next)
		if (a < (const char *)o->p + o->size && (const char *)o->p < a + bytes) {
			pthread_mutex_unlock(&host_lock);
			free(b);
			return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
		}
	b->next = host_blocks;
	host_blocks = b;
	pthread_mutex_unlock(&host_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)
{
	DRV_ENTER("cuMemHostRegister");
	DRV_RETURN(host_register(&call_, p, bytesize, Flags));
}

CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
	DRV_ENTER("cuMemHostRegister_v2");
	DRV_RETURN(host_register(&call_, p, bytesize, Flags));
}

/* Driver docs: p must be the start of a range cuMemHostRegister pinned. */
CUresult CUDAAPI cuMemHostUnregister(void *p)
{
	DRV_ENTER("cuMemHostUnregister");
	DRV_RETURN(host_release(&call_, p, 1));
}

/* With unified addressing the device address of page-locked memory is its host address
 * (driver docs, cuMemHostGetDevicePointer); Flags must be 0. */
CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
	DRV_ENTER("cuMemHostGetDevicePointer_v2");
	DRV_ARG("ptr", "0x%llx", DRV_PTR(p));
	DRV_CHECK();
	if (!pdptr || Flags != 0 || !drv_host_alloc_find(p, NULL, NULL))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*pdptr = (CUdeviceptr)(uintptr_t)p;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
	unsigned flags = 0;
	int found = 0;

	DRV_ENTER("cuMemHostGetFlags");
	DRV_ARG("ptr", "0x%llx", DRV_PTR(p));
	DRV_CHECK();
	pthread_mutex_lock(&host_lock);
	for (struct host_block *b = host_blocks; b; b = b->next)
		if ((const char *)p >= (const char *)b->p &&
		    (const char *)p < (const char *)b->p + b->size) {
			flags = b->flags;
			found = 1;
			break;
		}
	pthread_mutex_unlock(&host_lock);
	if (!pFlags || !found)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*pFlags = flags;
	DRV_RETURN(CUDA_SUCCESS);
}

/* ------------------------------------------------------------ pointer attributes */

struct pointer_info {
	CUmemorytype type;      /* 0: not a CUDA pointer */
	int device;
	uint64_t base;
	size_t size;
};

static struct pointer_info classify(CUdeviceptr ptr)
{
	struct pointer_info pi = {0, -2, 0, 0};
	void *hbase;
	int dev;

	if (sim_mem_range(ptr, &pi.base, &pi.size) == SIM_OK) {
		pi.type = CU_MEMORYTYPE_DEVICE;
		/* The core does not say which device owns a block: the current one does. */
		pi.device = drv_current_device(&dev) == CUDA_SUCCESS ? dev : 0;
	} else if (drv_host_alloc_find((void *)(uintptr_t)ptr, &hbase, &pi.size)) {
		pi.type = CU_MEMORYTYPE_HOST;
		pi.base = (uint64_t)(uintptr_t)hbase;
		pi.device = drv_current_device(&dev) == CUDA_SUCCESS ? dev : 0;
	}
	return pi;
}

/* Writes one attribute; for pointers the driver does not know, the defaults that
 * cuPointerGetAttributes documents (NULL, 0, ordinal -2). */
static CUresult attribute(const struct pointer_info *pi, CUdeviceptr ptr,
			  CUpointer_attribute attr, void *data)
{
	int known = pi->type != 0;

	switch (attr) {
	case CU_POINTER_ATTRIBUTE_CONTEXT:
		*(CUcontext *)data = known ? (CUcontext)sim_ctx_primary(pi->device) : NULL;
		break;
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		*(unsigned *)data = (unsigned)pi->type;
		break;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
		*(CUdeviceptr *)data = known ? ptr : 0;
		break;
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		/* Device memory has no host address (it is PROT_NONE in this simulator too). */
		*(void **)data = pi->type == CU_MEMORYTYPE_HOST ? (void *)(uintptr_t)ptr : NULL;
		break;
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
		*(unsigned long long *)data = pi->base;
		break;
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
		*(unsigned *)data = 0;
		break;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		*(int *)data = pi->device;
		break;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		*(CUdeviceptr *)data = pi->base;
		break;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
		*(size_t *)data = pi->size;
		break;
	case CU_POINTER_ATTRIBUTE_MAPPED:
		*(unsigned *)data = known;
		break;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute_,
				       CUdeviceptr ptr)
{
	struct pointer_info pi;

	DRV_ENTER("cuPointerGetAttribute");
	DRV_ARG("attr", "%d", (int)attribute_);
	DRV_ARG("ptr", "0x%llx", (unsigned long long)ptr);
	DRV_CHECK();
	if (!data)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pi = classify(ptr);
	if (!pi.type)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (attribute_ == CU_POINTER_ATTRIBUTE_HOST_POINTER && pi.type != CU_MEMORYTYPE_HOST)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(attribute(&pi, ptr, attribute_, data));
}

/* Unlike the single query, unknown pointers succeed with default values (driver docs). */
CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes,
					CUpointer_attribute *attributes, void **data,
					CUdeviceptr ptr)
{
	struct pointer_info pi;

	DRV_ENTER("cuPointerGetAttributes");
	DRV_ARG("count", "%u", numAttributes);
	DRV_ARG("ptr", "0x%llx", (unsigned long long)ptr);
	DRV_CHECK();
	if (!attributes || !data)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pi = classify(ptr);
	for (unsigned i = 0; i < numAttributes; i++)
		if (data[i])
			DRV_TRY(attribute(&pi, ptr, attributes[i], data[i]));
	DRV_ARG("type", "%d", (int)pi.type);
	DRV_RETURN(CUDA_SUCCESS);
}
