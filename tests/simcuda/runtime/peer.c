/* Peer devices: whether one device may access another's memory, enabling that access for the
 * current device, copies between devices, and a device's PCI bus id.  Each is the driver call
 * of the same name on the devices' primary contexts, which the runtime retains as it does on
 * a device's first use. */
#include <pthread.h>

#include "runtime_internal.h"

#define MAX_DEVICES 16

static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext peer_ctx[MAX_DEVICES];

static cudaError_t check_device(const struct rt_driver *d, int dev)
{
	int n = 0;
	cudaError_t err = rt_status(d->cuDeviceGetCount(&n));

	if (err == cudaSuccess && (dev < 0 || dev >= n || dev >= MAX_DEVICES))
		err = cudaErrorInvalidDevice;
	return err;
}

/* The current context's device, through whichever cuCtxGetDevice this version gets. */
static cudaError_t current_device(const struct rt_driver *d, int *dev)
{
#if RT_VERSION >= 13000
	return rt_status(d->cuCtxGetDevice(dev, NULL));
#else
	return rt_status(d->cuCtxGetDevice(dev));
#endif
}

/* The device's primary context, retained once for peer use. */
static cudaError_t device_context(const struct rt_driver *d, int dev, CUcontext *ctx)
{
	cudaError_t err = check_device(d, dev);
	CUresult st = CUDA_SUCCESS;

	if (err != cudaSuccess)
		return err;
	pthread_mutex_lock(&peer_lock);
	if (!peer_ctx[dev])
		st = d->cuDevicePrimaryCtxRetain(&peer_ctx[dev], dev);
	*ctx = peer_ctx[dev];
	pthread_mutex_unlock(&peer_lock);
	return rt_status(st);
}

cudaError_t CUDARTAPI cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
	RT_ENTER("cudaDeviceCanAccessPeer");
	RT_ARG("dev", "%d", device);
	RT_ARG("peer", "%d", peerDevice);
	RT_CHECK();
	RT_TRY(check_device(d, device));
	RT_TRY(check_device(d, peerDevice));
	if (!canAccessPeer)
		RT_RETURN(cudaErrorInvalidValue);
	RT_TRY(RT_DRV(d->cuDeviceCanAccessPeer(canAccessPeer, device, peerDevice)));
	RT_ARG("can", "%d", *canAccessPeer);
	RT_RETURN(cudaSuccess);
}

/* Runtime docs: access from the current device to peerDevice's memory; flags must be 0, and a
 * device is not its own peer (cudaErrorInvalidDevice). */
cudaError_t CUDARTAPI cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
	CUcontext ctx = NULL;
	int self = 0;

	RT_ENTER("cudaDeviceEnablePeerAccess");
	RT_ARG("peer", "%d", peerDevice);
	RT_ARG("flags", "%u", flags);
	RT_CHECK_CONTEXT();
	RT_TRY(current_device(d, &self));
	RT_TRY(check_device(d, peerDevice));
	if (peerDevice == self)
		RT_RETURN(cudaErrorInvalidDevice);
	if (flags != 0)
		RT_RETURN(cudaErrorInvalidValue);
	RT_TRY(device_context(d, peerDevice, &ctx));
	RT_RETURN(RT_DRV(d->cuCtxEnablePeerAccess(ctx, flags)));
}

cudaError_t CUDARTAPI cudaDeviceDisablePeerAccess(int peerDevice)
{
	CUcontext ctx = NULL;

	RT_ENTER("cudaDeviceDisablePeerAccess");
	RT_ARG("peer", "%d", peerDevice);
	RT_CHECK_CONTEXT();
	RT_TRY(device_context(d, peerDevice, &ctx));
	RT_RETURN(RT_DRV(d->cuCtxDisablePeerAccess(ctx)));
}

static cudaError_t copy_peer(sim_call *c, const struct rt_driver *d, void *dst, int dstDevice,
			     const void *src, int srcDevice, size_t count, cudaStream_t stream,
			     int async)
{
	CUcontext dctx = NULL, sctx = NULL;
	cudaError_t err;

	sim_call_arg(c, "dst", "0x%llx", RT_PTR(dst));
	sim_call_arg(c, "dst_dev", "%d", dstDevice);
	sim_call_arg(c, "src", "0x%llx", RT_PTR(src));
	sim_call_arg(c, "src_dev", "%d", srcDevice);
	sim_call_arg(c, "bytes", "%zu", count);
	err = device_context(d, dstDevice, &dctx);
	if (err == cudaSuccess)
		err = device_context(d, srcDevice, &sctx);
	if (err != cudaSuccess || count == 0)
		return err;
	return rt_status(async ? d->cuMemcpyPeerAsync((CUdeviceptr)(uintptr_t)dst, dctx,
						      (CUdeviceptr)(uintptr_t)src, sctx, count,
						      (CUstream)stream)
			       : d->cuMemcpyPeer((CUdeviceptr)(uintptr_t)dst, dctx,
						 (CUdeviceptr)(uintptr_t)src, sctx, count));
}

cudaError_t CUDARTAPI cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
				     size_t count)
{
	RT_ENTER("cudaMemcpyPeer");
	RT_CHECK_CONTEXT();
	RT_RETURN(copy_peer(&call_, d, dst, dstDevice, src, srcDevice, count, NULL, 0));
}

cudaError_t CUDARTAPI cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
					  int srcDevice, size_t count, cudaStream_t stream)
{
	RT_ENTER("cudaMemcpyPeerAsync");
	RT_ARG("stream", "0x%llx", RT_PTR(stream));
	RT_CHECK_CONTEXT();
	RT_RETURN(copy_peer(&call_, d, dst, dstDevice, src, srcDevice, count, stream, 1));
}

cudaError_t CUDARTAPI cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
	RT_ENTER("cudaDeviceGetPCIBusId");
	RT_ARG("dev", "%d", device);
	RT_CHECK();
	RT_TRY(check_device(d, device));
	if (!pciBusId || len <= 0)
		RT_RETURN(cudaErrorInvalidValue);
	RT_RETURN(RT_DRV(d->cuDeviceGetPCIBusId(pciBusId, len, device)));
}
