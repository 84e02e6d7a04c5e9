/* Contexts: the primary context of each device (retain count and flags kept here, the
 * context itself in the core) and the per-thread current-context stack.  cuCtxCreate hands
 * out the device's primary context (the core has no other kind): enough for programs that
 * create one context per device and use it. */
#include <pthread.h>

#include "driver_internal.h"

#define MAX_DEVICES 16

static pthread_mutex_t primary_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int retained;
	unsigned flags;
} primary[MAX_DEVICES];

/* CU_CTX_SCHED_* | MAP_HOST | LMEM_RESIZE_TO_MAX | COREDUMP | USER_COREDUMP | SYNC_MEMOPS */
#define KNOWN_CTX_FLAGS 0xffu

CUresult drv_current_device(int *device)
{
	sim_ctx *ctx = sim_ctx_current();
	if (!ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	*device = sim_ctx_device(ctx);
	return CUDA_SUCCESS;
}

/* ------------------------------------------------------------ primary contexts */

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	DRV_ENTER("cuDevicePrimaryCtxRetain");
	DRV_ARG("dev", "%d", dev);
	DRV_CHECK();
	DRV_TRY(drv_check_device(dev));
	if (!pctx || dev >= MAX_DEVICES)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&primary_lock);
	primary[dev].retained++;
	pthread_mutex_unlock(&primary_lock);
	*pctx = (CUcontext)sim_ctx_primary(dev);
	DRV_RETURN(CUDA_SUCCESS);
}

static CUresult primary_release(sim_call *c, CUdevice dev)
{
	CUresult st;

	sim_call_arg(c, "dev", "%d", dev);
	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	if (drv_check_device(dev) != CUDA_SUCCESS || dev >= MAX_DEVICES)
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&primary_lock);
	if (primary[dev].retained > 0)
		primary[dev].retained--;
	else
		st = CUDA_ERROR_INVALID_CONTEXT;
	pthread_mutex_unlock(&primary_lock);
	return st;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	DRV_ENTER("cuDevicePrimaryCtxRelease_v2");
	DRV_RETURN(primary_release(&call_, dev));
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev)
{
	DRV_ENTER("cuDevicePrimaryCtxRelease");
	DRV_RETURN(primary_release(&call_, dev));
}

static CUresult primary_set_flags(sim_call *c, CUdevice dev, unsigned flags)
{
	CUresult st;

	sim_call_arg(c, "dev", "%d", dev);
	sim_call_arg(c, "flags", "%u", flags);
	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	if (drv_check_device(dev) != CUDA_SUCCESS || dev >= MAX_DEVICES)
		return CUDA_ERROR_INVALID_DEVICE;
	if (flags & ~KNOWN_CTX_FLAGS)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&primary_lock);
	primary[dev].flags = flags;
	pthread_mutex_unlock(&primary_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
	DRV_ENTER("cuDevicePrimaryCtxSetFlags_v2");
	DRV_RETURN(primary_set_flags(&call_, dev, flags));
}

CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
	DRV_ENTER("cuDevicePrimaryCtxSetFlags");
	DRV_RETURN(primary_set_flags(&call_, dev, flags));
}

CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
	DRV_ENTER("cuDevicePrimaryCtxGetState");
	DRV_ARG("dev", "%d", dev);
	DRV_CHECK();
	DRV_TRY(drv_check_device(dev));
	if (!flags || !active || dev >= MAX_DEVICES)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&primary_lock);
	*flags = primary[dev].flags;
	*active = primary[dev].retained > 0 || sim_ctx_primary_implicit(dev);
	pthread_mutex_unlock(&primary_lock);
	DRV_RETURN(CUDA_SUCCESS);
}

/* Frees the device's memory and modules and clears its sticky error, as destroying the
 * context does. */
static CUresult primary_reset(sim_call *c, CUdevice dev)
{
	CUresult st;

	sim_call_arg(c, "dev", "%d", dev);
	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	if (drv_check_device(dev) != CUDA_SUCCESS || dev >= MAX_DEVICES)
		return CUDA_ERROR_INVALID_DEVICE;
	sim_device_reset(dev);
	drv_peer_forget(dev);
	/* "Resetting the primary context does not release it" (driver API reference): the
	 * reference count stays, and the context comes back on its next use. */
	pthread_mutex_lock(&primary_lock);
	primary[dev].flags = 0;
	pthread_mutex_unlock(&primary_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
	DRV_ENTER("cuDevicePrimaryCtxReset_v2");
	DRV_RETURN(primary_reset(&call_, dev));
}

CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev)
{
	DRV_ENTER("cuDevicePrimaryCtxReset");
	DRV_RETURN(primary_reset(&call_, dev));
}

/* ------------------------------------------------------------ created contexts */

static CUresult ctx_create(sim_call *c, CUcontext *pctx, unsigned flags, CUdevice dev)
{
	sim_ctx *ctx;
	CUresult st;

	sim_call_arg(c, "flags", "%u", flags);
	sim_call_arg(c, "dev", "%d", dev);
	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	if (drv_check_device(dev) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!pctx || (flags & ~KNOWN_CTX_FLAGS))
		return CUDA_ERROR_INVALID_VALUE;
	ctx = sim_ctx_primary(dev);
	if (sim_ctx_push(ctx) != SIM_OK)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*pctx = (CUcontext)ctx;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	DRV_ENTER("cuCtxCreate");
	DRV_RETURN(ctx_create(&call_, pctx, flags, dev));
}

CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	DRV_ENTER("cuCtxCreate_v2");
	DRV_RETURN(ctx_create(&call_, pctx, flags, dev));
}

/* Execution-affinity parameters (v3) are accepted and ignored. */
CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
				unsigned int flags, CUdevice dev)
{
	DRV_ENTER("cuCtxCreate_v3");
	DRV_RETURN(ctx_create(&call_, pctx, flags, dev));
}

CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
				unsigned int flags, CUdevice dev)
{
	DRV_ENTER("cuCtxCreate_v4");
	DRV_RETURN(ctx_create(&call_, pctx, flags, dev));
}

static CUresult ctx_destroy(sim_call *c, CUcontext ctx)
{
	CUresult st;

	sim_call_arg(c, "ctx", "0x%llx", DRV_PTR(ctx));
	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	if (!ctx)
		return CUDA_ERROR_INVALID_VALUE;
	if (sim_ctx_current() == (sim_ctx *)ctx)
		sim_ctx_pop(NULL);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
	DRV_ENTER("cuCtxDestroy_v2");
	DRV_RETURN(ctx_destroy(&call_, ctx));
}

CUresult CUDAAPI cuCtxDestroy(CUcontext ctx)
{
	DRV_ENTER("cuCtxDestroy");
	DRV_RETURN(ctx_destroy(&call_, ctx));
}

/* ------------------------------------------------------------ current context */

static CUresult ctx_push(sim_call *c, CUcontext ctx)
{
	CUresult st;

	sim_call_arg(c, "ctx", "0x%llx", DRV_PTR(ctx));
	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	if (!ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	return sim_ctx_push((sim_ctx *)ctx) == SIM_OK ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx)
{
	DRV_ENTER("cuCtxPushCurrent_v2");
	DRV_RETURN(ctx_push(&call_, ctx));
}

CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx)
{
	DRV_ENTER("cuCtxPushCurrent");
	DRV_RETURN(ctx_push(&call_, ctx));
}

static CUresult ctx_pop(sim_call *c, CUcontext *pctx)
{
	sim_ctx *ctx = NULL;
	CUresult st;

	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	if (sim_ctx_pop(&ctx) != SIM_OK)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (pctx)
		*pctx = (CUcontext)ctx;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *pctx)
{
	DRV_ENTER("cuCtxPopCurrent_v2");
	DRV_RETURN(ctx_pop(&call_, pctx));
}

CUresult CUDAAPI cuCtxPopCurrent(CUcontext *pctx)
{
	DRV_ENTER("cuCtxPopCurrent");
	DRV_RETURN(ctx_pop(&call_, pctx));
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
	DRV_ENTER("cuCtxSetCurrent");
	DRV_ARG("ctx", "0x%llx", DRV_PTR(ctx));
	DRV_CHECK();
	sim_ctx_set_current((sim_ctx *)ctx);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
	DRV_ENTER("cuCtxGetCurrent");
	DRV_CHECK();
	if (!pctx)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*pctx = (CUcontext)sim_ctx_current();
	DRV_RETURN(CUDA_SUCCESS);
}

/* ctx NULL: the current one. */
static CUresult ctx_device(CUcontext ctx, int *dev)
{
	if (!dev)
		return CUDA_ERROR_INVALID_VALUE;
	if (ctx) {
		*dev = sim_ctx_device((sim_ctx *)ctx);
		return CUDA_SUCCESS;
	}
	return drv_current_device(dev);
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
	DRV_ENTER("cuCtxGetDevice");
	DRV_CHECK();
	DRV_RETURN(ctx_device(NULL, device));
}

CUresult CUDAAPI cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
	DRV_ENTER("cuCtxGetDevice_v2");
	DRV_ARG("ctx", "0x%llx", DRV_PTR(ctx));
	DRV_CHECK();
	DRV_RETURN(ctx_device(ctx, device));
}

CUresult CUDAAPI cuCtxGetFlags(unsigned int *flags)
{
	int dev;

	DRV_ENTER("cuCtxGetFlags");
	DRV_CHECK();
	DRV_TRY(drv_current_device(&dev));
	if (!flags)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&primary_lock);
	*flags = dev < MAX_DEVICES ? primary[dev].flags : 0;
	pthread_mutex_unlock(&primary_lock);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
	int dev;

	DRV_ENTER("cuCtxGetApiVersion");
	DRV_CHECK();
	if (!version)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!ctx)
		DRV_TRY(drv_current_device(&dev));
	*version = 3020; /* the context ABI of cuCtxCreate_v2 and later */
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
	DRV_ENTER("cuCtxGetStreamPriorityRange");
	DRV_CHECK();
	if (leastPriority)
		*leastPriority = 0;
	if (greatestPriority)
		*greatestPriority = -5;
	DRV_RETURN(CUDA_SUCCESS);
}

/* Work runs at submission, so this only reports the sticky error of failed work. */
static CUresult ctx_synchronize(CUcontext ctx)
{
	int dev;
	CUresult st;

	st = ctx_device(ctx, &dev);
	if (st != CUDA_SUCCESS)
		return st;
	st = drv_capture_guard();
	if (st != CUDA_SUCCESS)
		return st;
	return drv_sticky_status(sim_device_synchronize());
}

CUresult CUDAAPI cuCtxSynchronize(void)
{
	DRV_ENTER("cuCtxSynchronize");
	DRV_CHECK();
	DRV_RETURN(ctx_synchronize(NULL));
}

CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx)
{
	DRV_ENTER("cuCtxSynchronize_v2");
	DRV_ARG("ctx", "0x%llx", DRV_PTR(ctx));
	DRV_CHECK();
	DRV_RETURN(ctx_synchronize(ctx));
}
