/* Devices and the runtime's context model: each thread has a current device (0 until
 * cudaSetDevice), whose primary context the runtime retains once and makes current on first
 * use, unless the thread already has a driver context.  Versions, attributes, synchronize
 * and reset. */
#include <pthread.h>

#include "runtime_internal.h"

#define MAX_DEVICES 16

static pthread_mutex_t primary_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext primary[MAX_DEVICES];   /* retained primary contexts */

static __thread int chosen_device = -1;  /* cudaSetDevice */
static __thread int context_bound;       /* this thread has a current context */

static cudaError_t retain_primary(const struct rt_driver *d, int dev, CUcontext *ctx)
{
	CUresult st = CUDA_SUCCESS;

	if (dev < 0 || dev >= MAX_DEVICES)
		return cudaErrorInvalidDevice;
	pthread_mutex_lock(&primary_lock);
	if (!primary[dev])
		st = d->cuDevicePrimaryCtxRetain(&primary[dev], dev);
	*ctx = primary[dev];
	pthread_mutex_unlock(&primary_lock);
	return rt_status(st);
}

static cudaError_t bind_device(const struct rt_driver *d, int dev)
{
	CUcontext ctx = NULL;
	cudaError_t err = retain_primary(d, dev, &ctx);

	if (err == cudaSuccess)
		err = rt_status(d->cuCtxSetCurrent(ctx));
	if (err == cudaSuccess)
		context_bound = 1;
	return err;
}

static CUresult context_device(const struct rt_driver *d, CUdevice *dev);

cudaError_t rt_context(void)
{
	const struct rt_driver *d = rt_drv(0);
	CUcontext cur = NULL;
	CUdevice dev;
	int retained;

	if (context_bound)
		return cudaSuccess;
	if (d->cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur) {
		/* A context made current through the driver API.  Every simulated context is
		 * its device's primary one: after cudaDeviceReset it is still current but no
		 * longer retained, and the runtime retains it again, as it does on first use. */
		if (context_device(d, &dev) != CUDA_SUCCESS || dev < 0 || dev >= MAX_DEVICES)
			return cudaErrorInvalidDevice;
		pthread_mutex_lock(&primary_lock);
		retained = primary[dev] != NULL;
		pthread_mutex_unlock(&primary_lock);
		if (!retained)
			return bind_device(d, dev);
		context_bound = 1;
		return cudaSuccess;
	}
	return bind_device(d, chosen_device >= 0 ? chosen_device : 0);
}

/* The current context's device, through whichever cuCtxGetDevice this version gets. */
static CUresult context_device(const struct rt_driver *d, CUdevice *dev)
{
#if RT_VERSION >= 13000
	return d->cuCtxGetDevice(dev, NULL);
#else
	return d->cuCtxGetDevice(dev);
#endif
}

/* The device runtime calls act on. */
cudaError_t rt_current_device(const struct rt_driver *d, int *dev)
{
	cudaError_t err = rt_context();

	if (err != cudaSuccess)
		return err;
	return rt_status(context_device(d, dev));
}

cudaError_t CUDARTAPI cudaGetDeviceCount(int *count)
{
	RT_ENTER("cudaGetDeviceCount");
	if (count)
		*count = 0;
	RT_CHECK();
	if (!count)
		RT_RETURN(cudaErrorInvalidValue);
	RT_TRY(RT_DRV(d->cuDeviceGetCount(count)));
	RT_ARG("count", "%d", *count);
	RT_RETURN(cudaSuccess);
}

static cudaError_t check_ordinal(const struct rt_driver *d, int dev)
{
	int n = 0;
	cudaError_t err = rt_status(d->cuDeviceGetCount(&n));

	if (err == cudaSuccess && (dev < 0 || dev >= n))
		err = cudaErrorInvalidDevice;
	return err;
}

cudaError_t CUDARTAPI cudaSetDevice(int device)
{
	RT_ENTER("cudaSetDevice");
	RT_ARG("dev", "%d", device);
	RT_CHECK();
	RT_TRY(check_ordinal(d, device));
	RT_TRY(bind_device(d, device));
	chosen_device = device;
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGetDevice(int *device)
{
	CUcontext cur = NULL;
	CUdevice dev = 0;

	RT_ENTER("cudaGetDevice");
	RT_CHECK();
	if (!device)
		RT_RETURN(cudaErrorInvalidValue);
	if (chosen_device < 0 && d->cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur)
		RT_TRY(RT_DRV(context_device(d, &dev)));
	*device = chosen_device >= 0 ? chosen_device : dev;
	RT_ARG("dev", "%d", *device);
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
	CUcontext ctx = NULL;

	RT_ENTER("cudaInitDevice");
	RT_ARG("dev", "%d", device);
	RT_CHECK();
	RT_TRY(check_ordinal(d, device));
	if (flags & ~(unsigned)cudaInitDeviceFlagsAreValid)
		RT_RETURN(cudaErrorInvalidValue);
	if (flags & cudaInitDeviceFlagsAreValid)
		RT_TRY(RT_DRV(d->cuDevicePrimaryCtxSetFlags(device, deviceFlags)));
	RT_RETURN(retain_primary(d, device, &ctx));
}

cudaError_t CUDARTAPI cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
	RT_ENTER("cudaDeviceGetAttribute");
	RT_ARG("attr", "%d", (int)attr);
	RT_ARG("dev", "%d", device);
	RT_CHECK();
	if (!value)
		RT_RETURN(cudaErrorInvalidValue);
	/* cudaDeviceAttr values are the driver's CUdevice_attribute values. */
	RT_RETURN(RT_DRV(d->cuDeviceGetAttribute(value, (CUdevice_attribute)attr, device)));
}

cudaError_t CUDARTAPI cudaDriverGetVersion(int *driverVersion)
{
	RT_ENTER("cudaDriverGetVersion");
	if (!driverVersion)
		RT_RETURN(cudaErrorInvalidValue);
	/* No driver: version 0 and success (runtime docs). */
	*driverVersion = 0;
	if (rt_init() != cudaSuccess)
		RT_RETURN(cudaSuccess);
	RT_CHECK();
	RT_RETURN(RT_DRV(d->cuDriverGetVersion(driverVersion)));
}

cudaError_t CUDARTAPI cudaRuntimeGetVersion(int *runtimeVersion)
{
	RT_ENTER("cudaRuntimeGetVersion");
	if (!runtimeVersion)
		RT_RETURN(cudaErrorInvalidValue);
	*runtimeVersion = RT_VERSION;
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaDeviceSynchronize(void)
{
	RT_ENTER("cudaDeviceSynchronize");
	RT_CHECK_CONTEXT();
#if RT_VERSION >= 13000
	RT_RETURN(RT_DRV(d->cuCtxSynchronize(NULL)));
#else
	RT_RETURN(RT_DRV(d->cuCtxSynchronize()));
#endif
}

/* Destroys the device's primary context (its memory goes with it); the next runtime call
 * on any thread creates it afresh. */
cudaError_t CUDARTAPI cudaDeviceReset(void)
{
	int dev = 0;

	RT_ENTER("cudaDeviceReset");
	RT_CHECK();
	RT_TRY(rt_current_device(d, &dev));
	RT_TRY(RT_DRV(d->cuDevicePrimaryCtxReset(dev)));
	rt_modules_forget(dev);
	pthread_mutex_lock(&primary_lock);
	if (dev < MAX_DEVICES)
		primary[dev] = NULL;
	pthread_mutex_unlock(&primary_lock);
	context_bound = 0;
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaSetDeviceFlags(unsigned int flags)
{
	int dev = 0;

	RT_ENTER("cudaSetDeviceFlags");
	RT_ARG("flags", "%u", flags);
	RT_CHECK();
	dev = chosen_device >= 0 ? chosen_device : 0;
	/* cudaDeviceSchedule*, MapHost and LmemResizeToMax are the CU_CTX_* bits. */
	RT_RETURN(RT_DRV(d->cuDevicePrimaryCtxSetFlags(dev, flags & ~(unsigned)cudaDeviceMapHost)));
}

cudaError_t CUDARTAPI cudaGetDeviceFlags(unsigned int *flags)
{
	unsigned f = 0;
	int active = 0, dev = 0;

	RT_ENTER("cudaGetDeviceFlags");
	RT_CHECK();
	if (!flags)
		RT_RETURN(cudaErrorInvalidValue);
	dev = chosen_device >= 0 ? chosen_device : 0;
	RT_TRY(RT_DRV(d->cuDevicePrimaryCtxGetState(dev, &f, &active)));
	*flags = f | cudaDeviceMapHost; /* host mapping is always on with unified addressing */
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
	RT_ENTER("cudaDeviceGetStreamPriorityRange");
	RT_CHECK_CONTEXT();
	RT_RETURN(RT_DRV(d->cuCtxGetStreamPriorityRange(leastPriority, greatestPriority)));
}
