/* The CUDA 2.x/3.0 forms with 32-bit device pointers and sizes (CUdeviceptr_v1), still
 * exported by the real driver so that cuGetProcAddress can answer for old versions.  A
 * 64-bit simulated address does not fit in them, so each logs itself and refuses. */
#include "driver_internal.h"

#define LEGACY_32BIT(name, params) \
	CUresult CUDAAPI name params \
	{ \
		DRV_ENTER(#name); \
		DRV_CHECK(); \
		DRV_RETURN(CUDA_ERROR_NOT_SUPPORTED); \
	}

LEGACY_32BIT(cuMemGetInfo, (unsigned int *free, unsigned int *total))
LEGACY_32BIT(cuMemAlloc, (CUdeviceptr_v1 *dptr, unsigned int bytesize))
LEGACY_32BIT(cuMemFree, (CUdeviceptr_v1 dptr))
LEGACY_32BIT(cuMemGetAddressRange, (CUdeviceptr_v1 *pbase, unsigned int *psize,
				    CUdeviceptr_v1 dptr))
LEGACY_32BIT(cuMemAllocHost, (void **pp, unsigned int bytesize))
LEGACY_32BIT(cuModuleGetGlobal, (CUdeviceptr_v1 *dptr, unsigned int *bytes, CUmodule hmod,
				 const char *name))
LEGACY_32BIT(cuMemcpyHtoD, (CUdeviceptr_v1 dstDevice, const void *srcHost, unsigned int ByteCount))
LEGACY_32BIT(cuMemcpyDtoH, (void *dstHost, CUdeviceptr_v1 srcDevice, unsigned int ByteCount))
LEGACY_32BIT(cuMemcpyDtoD, (CUdeviceptr_v1 dstDevice, CUdeviceptr_v1 srcDevice,
			    unsigned int ByteCount))
LEGACY_32BIT(cuMemcpyHtoDAsync, (CUdeviceptr_v1 dstDevice, const void *srcHost,
				 unsigned int ByteCount, CUstream hStream))
LEGACY_32BIT(cuMemcpyDtoHAsync, (void *dstHost, CUdeviceptr_v1 srcDevice, unsigned int ByteCount,
				 CUstream hStream))
LEGACY_32BIT(cuMemcpyDtoDAsync, (CUdeviceptr_v1 dstDevice, CUdeviceptr_v1 srcDevice,
				 unsigned int ByteCount, CUstream hStream))
LEGACY_32BIT(cuMemcpy2D, (const CUDA_MEMCPY2D_v1 *pCopy))
LEGACY_32BIT(cuMemcpy2DUnaligned, (const CUDA_MEMCPY2D_v1 *pCopy))
LEGACY_32BIT(cuMemcpy2DAsync, (const CUDA_MEMCPY2D_v1 *pCopy, CUstream hStream))
LEGACY_32BIT(cuMemsetD8, (CUdeviceptr_v1 dstDevice, unsigned char uc, unsigned int N))
LEGACY_32BIT(cuMemsetD16, (CUdeviceptr_v1 dstDevice, unsigned short us, unsigned int N))
LEGACY_32BIT(cuMemsetD32, (CUdeviceptr_v1 dstDevice, unsigned int ui, unsigned int N))
LEGACY_32BIT(cuMemsetD2D8, (CUdeviceptr_v1 dstDevice, unsigned int dstPitch, unsigned char uc,
			    unsigned int Width, unsigned int Height))
LEGACY_32BIT(cuMemsetD2D16, (CUdeviceptr_v1 dstDevice, unsigned int dstPitch, unsigned short us,
			     unsigned int Width, unsigned int Height))
LEGACY_32BIT(cuMemsetD2D32, (CUdeviceptr_v1 dstDevice, unsigned int dstPitch, unsigned int ui,
			     unsigned int Width, unsigned int Height))
