/* Peer access between simulated devices: whether one device may map another's memory
 * (cuDeviceCanAccessPeer), the enables a context holds (cuCtxEnablePeerAccess) and peer
 * copies.  All simulated memory lives in one address space, so an enable changes what the
 * API reports and allows, and a peer copy is a device-to-device copy.
 *
 * Which pairs may: two distinct devices of the same compute capability.  That is this
 * simulator's rule, an inference (P2P over PCIe or NVLink needs like GPUs; a device is never
 * its own peer, cuDeviceCanAccessPeer(d, d) answers 0 on real drivers). */
#include <pthread.h>

#include "driver_internal.h"

#define MAX_DEVICES 16

static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char enabled[MAX_DEVICES][MAX_DEVICES]; /* [from][to] */

static int can_access(int dev, int peer)
{
	const sim_device *a = sim_device_get(dev), *b = sim_device_get(peer);

	return a && b && dev != peer && a->sm == b->sm;
}

/* The device of a simulated context; -1 for anything else.  Contexts are the devices'
 * primary ones, so the check needs no dereference of an unknown pointer. */
static int context_device(CUcontext ctx)
{
	for (int i = 0; i < sim_device_count() && i < MAX_DEVICES; i++)
		if (ctx && (sim_ctx *)ctx == sim_ctx_primary(i))
			return i;
	return -1;
}

void drv_peer_forget(int device)
{
	if (device < 0 || device >= MAX_DEVICES)
		return;
	pthread_mutex_lock(&peer_lock);
	for (int i = 0; i < MAX_DEVICES; i++)
		enabled[device][i] = enabled[i][device] = 0;
	pthread_mutex_unlock(&peer_lock);
}

CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
	DRV_ENTER("cuDeviceCanAccessPeer");
	DRV_ARG("dev", "%d", dev);
	DRV_ARG("peer", "%d", peerDev);
	DRV_CHECK();
	DRV_TRY(drv_check_device(dev));
	DRV_TRY(drv_check_device(peerDev));
	if (!canAccessPeer)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*canAccessPeer = can_access(dev, peerDev);
	DRV_ARG("can", "%d", *canAccessPeer);
	DRV_RETURN(CUDA_SUCCESS);
}

/* Driver docs, cuCtxEnablePeerAccess: the current context gains access to peerContext's
 * memory; Flags must be 0; enabling twice is PEER_ACCESS_ALREADY_ENABLED. */
CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
	int self, peer;

	DRV_ENTER("cuCtxEnablePeerAccess");
	DRV_ARG("peer_ctx", "0x%llx", DRV_PTR(peerContext));
	DRV_ARG("flags", "%u", Flags);
	DRV_CHECK();
	DRV_TRY(drv_current_device(&self));
	peer = context_device(peerContext);
	if (peer < 0)
		DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
	if (Flags != 0)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!can_access(self, peer))
		DRV_RETURN(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
	pthread_mutex_lock(&peer_lock);
	if (enabled[self][peer]) {
		pthread_mutex_unlock(&peer_lock);
		DRV_RETURN(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
	}
	enabled[self][peer] = 1;
	pthread_mutex_unlock(&peer_lock);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext)
{
	int self, peer, was;

	DRV_ENTER("cuCtxDisablePeerAccess");
	DRV_ARG("peer_ctx", "0x%llx", DRV_PTR(peerContext));
	DRV_CHECK();
	DRV_TRY(drv_current_device(&self));
	peer = context_device(peerContext);
	if (peer < 0)
		DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
	pthread_mutex_lock(&peer_lock);
	was = enabled[self][peer];
	enabled[self][peer] = 0;
	pthread_mutex_unlock(&peer_lock);
	DRV_RETURN(was ? CUDA_SUCCESS : CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
}

/* cuMemcpyPeer needs no enabled access (driver docs): both contexts must be valid. */
static CUresult copy_peer(sim_call *c, CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src,
			  CUcontext srcCtx, size_t bytes, CUstream h, int per_thread, int async)
{
	sim_call_arg(c, "dst_ctx", "0x%llx", DRV_PTR(dstCtx));
	sim_call_arg(c, "src_ctx", "0x%llx", DRV_PTR(srcCtx));
	if (drv_initialized() && (context_device(dstCtx) < 0 || context_device(srcCtx) < 0)) {
		CUresult st = drv_check(c);
		return st != CUDA_SUCCESS ? st : CUDA_ERROR_INVALID_CONTEXT;
	}
	return drv_copy_dtod(c, dst, src, bytes, h, per_thread, async);
}

#define COPY_PEER(name, pt) \
	CUresult CUDAAPI name(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, \
			      CUcontext srcContext, size_t ByteCount) \
	{ \
		DRV_ENTER(#name); \
		DRV_RETURN(copy_peer(&call_, dstDevice, dstContext, srcDevice, srcContext, \
				     ByteCount, NULL, pt, 0)); \
	}
#define COPY_PEER_ASYNC(name, pt) \
	CUresult CUDAAPI name(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, \
			      CUcontext srcContext, size_t ByteCount, CUstream hStream) \
	{ \
		DRV_ENTER(#name); \
		DRV_RETURN(copy_peer(&call_, dstDevice, dstContext, srcDevice, srcContext, \
				     ByteCount, hStream, pt, 1)); \
	}

COPY_PEER(cuMemcpyPeer, 0)
COPY_PEER(cuMemcpyPeer_ptds, 1)
COPY_PEER_ASYNC(cuMemcpyPeerAsync, 0)
COPY_PEER_ASYNC(cuMemcpyPeerAsync_ptsz, 1)
