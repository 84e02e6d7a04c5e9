/* Host memory the device reaches and host work in stream order: registering ordinary memory as
 * page-locked (cudaHostRegister, which pin_memory can use), its device address and flags, and
 * host functions and callbacks on streams.  Each is its driver call; a runtime callback takes
 * a cudaError_t, so it goes through a trampoline that translates the driver's status. */
#include <stdlib.h>

#include "runtime_internal.h"

cudaError_t CUDARTAPI cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	RT_ENTER("cudaHostRegister");
	RT_ARG("ptr", "0x%llx", RT_PTR(ptr));
	RT_ARG("bytes", "%zu", size);
	RT_ARG("flags", "%u", flags);
	RT_CHECK_CONTEXT();
	/* cudaHostRegister* flags are the CU_MEMHOSTREGISTER_* bits. */
	RT_RETURN(RT_DRV(d->cuMemHostRegister(ptr, size, flags)));
}

cudaError_t CUDARTAPI cudaHostUnregister(void *ptr)
{
	RT_ENTER("cudaHostUnregister");
	RT_ARG("ptr", "0x%llx", RT_PTR(ptr));
	RT_CHECK_CONTEXT();
	RT_RETURN(RT_DRV(d->cuMemHostUnregister(ptr)));
}

cudaError_t CUDARTAPI cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
	CUdeviceptr p = 0;

	RT_ENTER("cudaHostGetDevicePointer");
	RT_ARG("ptr", "0x%llx", RT_PTR(pHost));
	RT_CHECK_CONTEXT();
	if (!pDevice)
		RT_RETURN(cudaErrorInvalidValue);
	RT_TRY(RT_DRV(d->cuMemHostGetDevicePointer(&p, pHost, flags)));
	*pDevice = (void *)(uintptr_t)p;
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
	RT_ENTER("cudaHostGetFlags");
	RT_ARG("ptr", "0x%llx", RT_PTR(pHost));
	RT_CHECK_CONTEXT();
	RT_RETURN(RT_DRV(d->cuMemHostGetFlags(pFlags, pHost)));
}

#define LAUNCH_HOST_FUNC(name, pt) \
	cudaError_t CUDARTAPI name(cudaStream_t stream, cudaHostFn_t fn, void *userData) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(RT_DRV(d->cuLaunchHostFunc((CUstream)stream, (CUhostFn)fn, userData))); \
	}

LAUNCH_HOST_FUNC(cudaLaunchHostFunc, 0)
LAUNCH_HOST_FUNC(cudaLaunchHostFunc_ptsz, 1)

struct trampoline {
	cudaStreamCallback_t fn;
	void *data;
};

/* A callback runs once: the trampoline goes with it. */
static void CUDA_CB bounce(CUstream stream, CUresult status, void *p)
{
	struct trampoline t = *(struct trampoline *)p;

	free(p);
	t.fn((cudaStream_t)stream, rt_status(status), t.data);
}

static cudaError_t add_callback(const struct rt_driver *d, cudaStream_t stream,
				cudaStreamCallback_t fn, void *data, unsigned flags)
{
	struct trampoline *t;
	CUresult st;

	if (!fn)
		return cudaErrorInvalidValue;
	t = malloc(sizeof *t);
	if (!t)
		return cudaErrorMemoryAllocation;
	*t = (struct trampoline){fn, data};
	st = d->cuStreamAddCallback((CUstream)stream, bounce, t, flags);
	if (st != CUDA_SUCCESS)
		free(t);
	return rt_status(st);
}

#define STREAM_ADD_CALLBACK(name, pt) \
	cudaError_t CUDARTAPI name(cudaStream_t stream, cudaStreamCallback_t callback, \
				   void *userData, unsigned int flags) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_ARG("flags", "%u", flags); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(add_callback(d, stream, callback, userData, flags)); \
	}

STREAM_ADD_CALLBACK(cudaStreamAddCallback, 0)
STREAM_ADD_CALLBACK(cudaStreamAddCallback_ptsz, 1)
