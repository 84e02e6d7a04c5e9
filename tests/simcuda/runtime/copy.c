/* cudaMemcpy / cudaMemset and their 2D, async and per-thread forms: the copy kind picks the
 * driver call (HtoD, DtoH, DtoD, or the unified cuMemcpy for cudaMemcpyDefault), and the _ptds
 * / _ptsz forms go through the per-thread-default-stream driver table. */
#include "runtime_internal.h"

/* For the log: the kind as spelled after "cudaMemcpy". */
static const char *kind_name(enum cudaMemcpyKind kind)
{
	static const char *const names[] = {"HostToHost", "HostToDevice", "DeviceToHost",
					    "DeviceToDevice", "Default"};
	return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "invalid";
}

cudaError_t rt_copy(const struct rt_driver *d, void *dst, const void *src, size_t count,
		    enum cudaMemcpyKind kind, cudaStream_t stream, int async)
{
	CUdeviceptr ddst = (CUdeviceptr)(uintptr_t)dst, dsrc = (CUdeviceptr)(uintptr_t)src;
	CUstream s = (CUstream)stream;
	CUresult st;

	switch (kind) {
	case cudaMemcpyHostToDevice:
		st = async ? d->cuMemcpyHtoDAsync(ddst, src, count, s) : d->cuMemcpyHtoD(ddst, src, count);
		break;
	case cudaMemcpyDeviceToHost:
		st = async ? d->cuMemcpyDtoHAsync(dst, dsrc, count, s) : d->cuMemcpyDtoH(dst, dsrc, count);
		break;
	case cudaMemcpyDeviceToDevice:
		st = async ? d->cuMemcpyDtoDAsync(ddst, dsrc, count, s)
			: d->cuMemcpyDtoD(ddst, dsrc, count);
		break;
	case cudaMemcpyHostToHost:
	case cudaMemcpyDefault:
		st = async ? d->cuMemcpyAsync(ddst, dsrc, count, s) : d->cuMemcpy(ddst, dsrc, count);
		break;
	default:
		return cudaErrorInvalidMemcpyDirection;
	}
	return rt_status(st);
}

#define MEMCPY(name, pt) \
	cudaError_t CUDARTAPI name(void *dst, const void *src, size_t count, \
				   enum cudaMemcpyKind kind) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("dst", "0x%llx", RT_PTR(dst)); \
		RT_ARG("src", "0x%llx", RT_PTR(src)); \
		RT_ARG("bytes", "%zu", count); \
		RT_ARG("kind", "%s", kind_name(kind)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(rt_copy(d, dst, src, count, kind, NULL, 0)); \
	}
#define MEMCPY_ASYNC(name, pt) \
	cudaError_t CUDARTAPI name(void *dst, const void *src, size_t count, \
				   enum cudaMemcpyKind kind, cudaStream_t stream) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("dst", "0x%llx", RT_PTR(dst)); \
		RT_ARG("src", "0x%llx", RT_PTR(src)); \
		RT_ARG("bytes", "%zu", count); \
		RT_ARG("kind", "%s", kind_name(kind)); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(rt_copy(d, dst, src, count, kind, stream, 1)); \
	}

MEMCPY(cudaMemcpy, 0)
MEMCPY(cudaMemcpy_ptds, 1)
MEMCPY_ASYNC(cudaMemcpyAsync, 0)
MEMCPY_ASYNC(cudaMemcpyAsync_ptsz, 1)

/* Memory types of a copy's two ends, by kind. */
static int kind_types(enum cudaMemcpyKind kind, CUmemorytype *dst, CUmemorytype *src)
{
	switch (kind) {
	case cudaMemcpyHostToHost: *dst = *src = CU_MEMORYTYPE_HOST; return 1;
	case cudaMemcpyHostToDevice: *dst = CU_MEMORYTYPE_DEVICE; *src = CU_MEMORYTYPE_HOST; return 1;
	case cudaMemcpyDeviceToHost: *dst = CU_MEMORYTYPE_HOST; *src = CU_MEMORYTYPE_DEVICE; return 1;
	case cudaMemcpyDeviceToDevice: *dst = *src = CU_MEMORYTYPE_DEVICE; return 1;
	case cudaMemcpyDefault: *dst = *src = CU_MEMORYTYPE_UNIFIED; return 1;
	default: return 0;
	}
}

static cudaError_t copy_2d(const struct rt_driver *d, void *dst, size_t dpitch, const void *src,
			   size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
			   cudaStream_t stream, int async)
{
	CUDA_MEMCPY2D p = {0};

	if (!kind_types(kind, &p.dstMemoryType, &p.srcMemoryType))
		return cudaErrorInvalidMemcpyDirection;
	if (width > dpitch || width > spitch)
		return cudaErrorInvalidPitchValue;
	p.dstHost = dst;
	p.dstDevice = (CUdeviceptr)(uintptr_t)dst;
	p.dstPitch = dpitch;
	p.srcHost = src;
	p.srcDevice = (CUdeviceptr)(uintptr_t)src;
	p.srcPitch = spitch;
	p.WidthInBytes = width;
	p.Height = height;
	return rt_status(async ? d->cuMemcpy2DAsync(&p, (CUstream)stream) : d->cuMemcpy2D(&p));
}

#define MEMCPY_2D(name, pt) \
	cudaError_t CUDARTAPI name(void *dst, size_t dpitch, const void *src, size_t spitch, \
				   size_t width, size_t height, enum cudaMemcpyKind kind) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("dst", "0x%llx", RT_PTR(dst)); \
		RT_ARG("src", "0x%llx", RT_PTR(src)); \
		RT_ARG("width", "%zu", width); \
		RT_ARG("height", "%zu", height); \
		RT_ARG("kind", "%s", kind_name(kind)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(copy_2d(d, dst, dpitch, src, spitch, width, height, kind, NULL, 0)); \
	}
#define MEMCPY_2D_ASYNC(name, pt) \
	cudaError_t CUDARTAPI name(void *dst, size_t dpitch, const void *src, size_t spitch, \
				   size_t width, size_t height, enum cudaMemcpyKind kind, \
				   cudaStream_t stream) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("dst", "0x%llx", RT_PTR(dst)); \
		RT_ARG("src", "0x%llx", RT_PTR(src)); \
		RT_ARG("width", "%zu", width); \
		RT_ARG("height", "%zu", height); \
		RT_ARG("kind", "%s", kind_name(kind)); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(copy_2d(d, dst, dpitch, src, spitch, width, height, kind, stream, 1)); \
	}

MEMCPY_2D(cudaMemcpy2D, 0)
MEMCPY_2D(cudaMemcpy2D_ptds, 1)
MEMCPY_2D_ASYNC(cudaMemcpy2DAsync, 0)
MEMCPY_2D_ASYNC(cudaMemcpy2DAsync_ptsz, 1)

/* cudaMemset* write bytes: the value's low byte, as cuMemsetD8. */
#define MEMSET(name, pt) \
	cudaError_t CUDARTAPI name(void *devPtr, int value, size_t count) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("ptr", "0x%llx", RT_PTR(devPtr)); \
		RT_ARG("value", "%d", value); \
		RT_ARG("bytes", "%zu", count); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(RT_DRV(d->cuMemsetD8((CUdeviceptr)(uintptr_t)devPtr, \
					       (unsigned char)value, count))); \
	}
#define MEMSET_ASYNC(name, pt) \
	cudaError_t CUDARTAPI name(void *devPtr, int value, size_t count, cudaStream_t stream) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("ptr", "0x%llx", RT_PTR(devPtr)); \
		RT_ARG("value", "%d", value); \
		RT_ARG("bytes", "%zu", count); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(RT_DRV(d->cuMemsetD8Async((CUdeviceptr)(uintptr_t)devPtr, \
						    (unsigned char)value, count, \
						    (CUstream)stream))); \
	}
#define MEMSET_2D(name, pt) \
	cudaError_t CUDARTAPI name(void *devPtr, size_t pitch, int value, size_t width, \
				   size_t height) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("ptr", "0x%llx", RT_PTR(devPtr)); \
		RT_ARG("value", "%d", value); \
		RT_ARG("width", "%zu", width); \
		RT_ARG("height", "%zu", height); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(RT_DRV(d->cuMemsetD2D8((CUdeviceptr)(uintptr_t)devPtr, pitch, \
						 (unsigned char)value, width, height))); \
	}
#define MEMSET_2D_ASYNC(name, pt) \
	cudaError_t CUDARTAPI name(void *devPtr, size_t pitch, int value, size_t width, \
				   size_t height, cudaStream_t stream) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("ptr", "0x%llx", RT_PTR(devPtr)); \
		RT_ARG("value", "%d", value); \
		RT_ARG("width", "%zu", width); \
		RT_ARG("height", "%zu", height); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(RT_DRV(d->cuMemsetD2D8Async((CUdeviceptr)(uintptr_t)devPtr, pitch, \
						      (unsigned char)value, width, height, \
						      (CUstream)stream))); \
	}

MEMSET(cudaMemset, 0)
MEMSET(cudaMemset_ptds, 1)
MEMSET_ASYNC(cudaMemsetAsync, 0)
MEMSET_ASYNC(cudaMemsetAsync_ptsz, 1)
MEMSET_2D(cudaMemset2D, 0)
MEMSET_2D(cudaMemset2D_ptds, 1)
MEMSET_2D_ASYNC(cudaMemset2DAsync, 0)
MEMSET_2D_ASYNC(cudaMemset2DAsync_ptsz, 1)
