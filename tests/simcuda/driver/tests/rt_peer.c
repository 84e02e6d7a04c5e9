/* Peer access between two like devices (SIMCUDA_ARCH=sm_75,sm_75): the enable life cycle
 * the runtime and driver docs describe, and a device reset forgetting it. */
#include <cuda.h>

#include "rt_common.h"

int main(void)
{
	CUcontext ctx1 = NULL;
	int can = -1, v = 0, *a = NULL, *b = NULL;

	RT_OK(cudaDeviceCanAccessPeer(&can, 0, 1));
	CHECK_INT("sm_75 -> sm_75 peer", can, 1);
	CHECK_RT("NULL output", cudaDeviceCanAccessPeer(NULL, 0, 1), cudaErrorInvalidValue);
	CHECK_RT("device 5", cudaDeviceCanAccessPeer(&can, 0, 5), cudaErrorInvalidDevice);
	RT_OK(cudaSetDevice(0));
	CHECK_RT("flags", cudaDeviceEnablePeerAccess(1, 1), cudaErrorInvalidValue);
	CHECK_RT("disable before enable", cudaDeviceDisablePeerAccess(1),
		 cudaErrorPeerAccessNotEnabled);
	RT_OK(cudaDeviceEnablePeerAccess(1, 0));
	CHECK_RT("enable twice", cudaDeviceEnablePeerAccess(1, 0),
		 cudaErrorPeerAccessAlreadyEnabled);
	CHECK_RT("last error", cudaGetLastError(), cudaErrorPeerAccessAlreadyEnabled);

	/* Access is per direction: device 1 has not enabled device 0. */
	RT_OK(cudaSetDevice(1));
	CHECK_RT("other direction", cudaDeviceDisablePeerAccess(0), cudaErrorPeerAccessNotEnabled);
	RT_OK(cudaMalloc((void **)&b, sizeof v));
	RT_OK(cudaSetDevice(0));
	RT_OK(cudaMalloc((void **)&a, sizeof v));
	v = 77;
	RT_OK(cudaMemcpy(a, &v, sizeof v, cudaMemcpyHostToDevice));
	RT_OK(cudaMemcpyPeer(b, 1, a, 0, sizeof v));
	v = 0;
	RT_OK(cudaMemcpy(&v, b, sizeof v, cudaMemcpyDefault));
	CHECK_INT("peer copy", v, 77);

	/* The driver's own names for the same state. */
	CHECK_INT("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx1, 1), CUDA_SUCCESS);
	CHECK_INT("cuCtxEnablePeerAccess again", cuCtxEnablePeerAccess(ctx1, 0),
		  CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
	CHECK_INT("cuCtxEnablePeerAccess bad context", cuCtxEnablePeerAccess((CUcontext)&v, 0),
		  CUDA_ERROR_INVALID_CONTEXT);
	CHECK_INT("cuMemcpyPeer bad context",
		  cuMemcpyPeer((CUdeviceptr)(uintptr_t)b, (CUcontext)&v,
			       (CUdeviceptr)(uintptr_t)a, ctx1, sizeof v),
		  CUDA_ERROR_INVALID_CONTEXT);
	RT_OK(cudaDeviceDisablePeerAccess(1));
	RT_OK(cudaDeviceEnablePeerAccess(1, 0));

	/* Resetting device 0 destroys its context, and the access it had enabled with it. */
	RT_OK(cudaDeviceReset());
	RT_OK(cudaSetDevice(0));
	RT_OK(cudaDeviceEnablePeerAccess(1, 0));
	return check_report("rt_peer");
}
