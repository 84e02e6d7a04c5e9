/* Copies and fills (cuMemcpy*, cuMemset*): every form becomes one 2D copy or fill op on a
 * stream, so a captured copy replays like a captured kernel.  Device ranges are checked
 * (and a bad one reported by sim_mem_map) before the op is queued, so the call itself fails
 * as the real driver's argument check does. */
#include <stdlib.h>
#include <string.h>

#include "driver_internal.h"

/* Where an address points: the simulated device or the host; UNIFIED decides by address. */
enum side { HOST, DEVICE, UNIFIED };

struct end {
	uint64_t addr;
	int device;
	size_t pitch;
};

#define ADDR(x) ((uint64_t)(uintptr_t)(x))

static size_t span(size_t pitch, size_t width, size_t height)
{
	return height ? pitch * (height - 1) + width : 0;
}

/* Host view of one end of a copy or fill; NULL (reported for device memory) if invalid. */
static void *map_end(const struct end *e, size_t width, size_t height, int write,
		     const char *what)
{
	if (e->device)
		return sim_mem_map(e->addr, span(e->pitch, width, height), write, what);
	/* A device address used as a host pointer would fault the host: refuse it. */
	if (!e->addr || sim_mem_is_device((void *)(uintptr_t)e->addr))
		return NULL;
	return (void *)(uintptr_t)e->addr;
}

/* ------------------------------------------------------------ the ops */

struct copy_op {
	sim_op op;
	struct end dst, src;
	size_t width, height;
};

static sim_err copy_run(sim_op *op)
{
	struct copy_op *c = (struct copy_op *)op;
	unsigned char *d = map_end(&c->dst, c->width, c->height, 1, "memcpy");
	const unsigned char *s = map_end(&c->src, c->width, c->height, 0, "memcpy");

	if (!d || !s)
		return SIM_EFAULT;
	for (size_t r = 0; r < c->height; r++)
		memmove(d + r * c->dst.pitch, s + r * c->src.pitch, c->width);
	return SIM_OK;
}

struct fill_op {
	sim_op op;
	struct end dst;
	size_t width, height;    /* width in elements */
	unsigned elem;           /* 1, 2 or 4 bytes */
	uint32_t value;
};

static sim_err fill_run(sim_op *op)
{
	struct fill_op *f = (struct fill_op *)op;
	unsigned char *d = map_end(&f->dst, f->width * f->elem, f->height, 1, "memset");

	if (!d)
		return SIM_EFAULT;
	for (size_t r = 0; r < f->height; r++) {
		unsigned char *row = d + r * f->dst.pitch;
		if (f->elem == 1) {
			memset(row, (int)f->value, f->width);
			continue;
		}
		for (size_t i = 0; i < f->width; i++)
			memcpy(row + i * f->elem, &f->value, f->elem); /* little-endian, as the GPU */
	}
	return SIM_OK;
}

static void op_release(sim_op *op)
{
	free(op);
}

/* ------------------------------------------------------------ submission */

/* The stream the work goes to.  Synchronous forms use the default stream (legacy, or the
 * thread's for _ptds) and are potentially unsafe calls under capture rules; they also
 * report an earlier asynchronous failure, as CUDA's synchronous calls do. */
static CUresult target(CUstream h, int per_thread, int async, sim_stream **s)
{
	CUresult st;

	if (!async) {
		st = drv_capture_guard();
		if (st != CUDA_SUCCESS)
			return st;
	}
	st = drv_stream_for_work(async ? h : NULL, per_thread, s);
	if (st == CUDA_SUCCESS && !async)
		st = drv_sticky_status(sim_sticky_error());
	return st;
}

static struct end make_end(enum side side, uint64_t addr, size_t pitch)
{
	struct end e = {addr, side == DEVICE, pitch};
	if (side == UNIFIED)
		e.device = sim_mem_is_device((void *)(uintptr_t)addr);
	return e;
}

static CUresult copy(sim_call *c, struct end dst, struct end src, size_t width, size_t height,
		     CUstream h, int per_thread, int async)
{
	struct copy_op *op;
	sim_stream *s;
	CUresult st;

	sim_call_arg(c, "dst", "0x%llx", (unsigned long long)dst.addr);
	sim_call_arg(c, "src", "0x%llx", (unsigned long long)src.addr);
	sim_call_arg(c, "bytes", "%zu", width * height);
	if (height > 1)
		sim_call_arg(c, "height", "%zu", height);
	if (async)
		sim_call_arg(c, "stream", "0x%llx", DRV_PTR(h));
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = target(h, per_thread, async, &s);
	if (st != CUDA_SUCCESS || width == 0 || height == 0)
		return st;
	if (!map_end(&dst, width, height, 1, "memcpy") || !map_end(&src, width, height, 0, "memcpy"))
		return CUDA_ERROR_INVALID_VALUE;
	op = calloc(1, sizeof *op);
	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*op = (struct copy_op){{"memcpy", copy_run, op_release}, dst, src, width, height};
	return drv_submit(s, &op->op);
}

static CUresult copy_1d(sim_call *c, enum side dside, uint64_t dst, enum side sside,
			uint64_t src, size_t bytes, CUstream h, int per_thread, int async)
{
	return copy(c, make_end(dside, dst, bytes), make_end(sside, src, bytes), bytes, 1, h,
		    per_thread, async);
}

CUresult drv_copy_dtod(sim_call *c, CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream h,
		       int per_thread, int async)
{
	return copy_1d(c, DEVICE, dst, DEVICE, src, bytes, h, per_thread, async);
}

/* One end of a CUDA_MEMCPY2D, offset to its (x, y) start. */
static CUresult end_2d(CUmemorytype type, const void *host, CUdeviceptr device, size_t x,
		       size_t y, size_t pitch, struct end *out)
{
	switch (type) {
	case CU_MEMORYTYPE_HOST:
		*out = make_end(HOST, ADDR(host), pitch);
		break;
	case CU_MEMORYTYPE_DEVICE:
		*out = make_end(DEVICE, device, pitch);
		break;
	case CU_MEMORYTYPE_UNIFIED:
		*out = make_end(UNIFIED, device, pitch);
		break;
	default:
		return CUDA_ERROR_NOT_SUPPORTED; /* CUDA arrays are not simulated */
	}
	out->addr += y * pitch + x;
	return CUDA_SUCCESS;
}

static CUresult copy_2d(sim_call *c, const CUDA_MEMCPY2D *p, CUstream h, int per_thread,
			int async)
{
	struct end dst, src;
	CUresult st;

	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	st = end_2d(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstXInBytes, p->dstY,
		    p->dstPitch, &dst);
	if (st == CUDA_SUCCESS)
		st = end_2d(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes, p->srcY,
			    p->srcPitch, &src);
	if (st != CUDA_SUCCESS)
		return st;
	/* A row must fit in its pitch (a pitch is ignored for a single row). */
	if (p->Height > 1 && (p->WidthInBytes > p->dstPitch || p->WidthInBytes > p->srcPitch))
		return CUDA_ERROR_INVALID_VALUE;
	return copy(c, dst, src, p->WidthInBytes, p->Height, h, per_thread, async);
}

static CUresult fill(sim_call *c, CUdeviceptr dst, size_t pitch, uint32_t value, unsigned elem,
		     size_t width, size_t height, CUstream h, int per_thread, int async)
{
	struct fill_op *op;
	struct end e = make_end(DEVICE, dst, pitch ? pitch : width * elem);
	sim_stream *s;
	CUresult st;

	sim_call_arg(c, "dst", "0x%llx", (unsigned long long)dst);
	sim_call_arg(c, "value", "%u", value);
	sim_call_arg(c, "count", "%zu", width * height);
	if (async)
		sim_call_arg(c, "stream", "0x%llx", DRV_PTR(h));
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = target(h, per_thread, async, &s);
	if (st != CUDA_SUCCESS || width == 0 || height == 0)
		return st;
	if (dst % elem || e.pitch % elem || (height > 1 && e.pitch < width * elem))
		return CUDA_ERROR_INVALID_VALUE;
	if (!map_end(&e, width * elem, height, 1, "memset"))
		return CUDA_ERROR_INVALID_VALUE;
	op = calloc(1, sizeof *op);
	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*op = (struct fill_op){{"memset", fill_run, op_release}, e, width, height, elem, value};
	return drv_submit(s, &op->op);
}

/* ------------------------------------------------------------ exports
 * One line per entry point: name, per-thread flag, parameter types and sides. */

#define COPY_SYNC(name, pt, dtype, dside, stype, sside) \
	CUresult CUDAAPI name(dtype dst, stype src, size_t ByteCount) \
	{ \
		DRV_ENTER(#name); \
		DRV_RETURN(copy_1d(&call_, dside, ADDR(dst), sside, ADDR(src), ByteCount, NULL, \
				   pt, 0)); \
	}
#define COPY_ASYNC(name, pt, dtype, dside, stype, sside) \
	CUresult CUDAAPI name(dtype dst, stype src, size_t ByteCount, CUstream hStream) \
	{ \
		DRV_ENTER(#name); \
		DRV_RETURN(copy_1d(&call_, dside, ADDR(dst), sside, ADDR(src), ByteCount, \
				   hStream, pt, 1)); \
	}

COPY_SYNC(cuMemcpy, 0, CUdeviceptr, UNIFIED, CUdeviceptr, UNIFIED)
COPY_SYNC(cuMemcpy_ptds, 1, CUdeviceptr, UNIFIED, CUdeviceptr, UNIFIED)
COPY_ASYNC(cuMemcpyAsync, 0, CUdeviceptr, UNIFIED, CUdeviceptr, UNIFIED)
COPY_ASYNC(cuMemcpyAsync_ptsz, 1, CUdeviceptr, UNIFIED, CUdeviceptr, UNIFIED)
COPY_SYNC(cuMemcpyHtoD_v2, 0, CUdeviceptr, DEVICE, const void *, HOST)
COPY_SYNC(cuMemcpyHtoD_v2_ptds, 1, CUdeviceptr, DEVICE, const void *, HOST)
COPY_ASYNC(cuMemcpyHtoDAsync_v2, 0, CUdeviceptr, DEVICE, const void *, HOST)
COPY_ASYNC(cuMemcpyHtoDAsync_v2_ptsz, 1, CUdeviceptr, DEVICE, const void *, HOST)
COPY_SYNC(cuMemcpyDtoH_v2, 0, void *, HOST, CUdeviceptr, DEVICE)
COPY_SYNC(cuMemcpyDtoH_v2_ptds, 1, void *, HOST, CUdeviceptr, DEVICE)
COPY_ASYNC(cuMemcpyDtoHAsync_v2, 0, void *, HOST, CUdeviceptr, DEVICE)
COPY_ASYNC(cuMemcpyDtoHAsync_v2_ptsz, 1, void *, HOST, CUdeviceptr, DEVICE)
COPY_SYNC(cuMemcpyDtoD_v2, 0, CUdeviceptr, DEVICE, CUdeviceptr, DEVICE)
COPY_SYNC(cuMemcpyDtoD_v2_ptds, 1, CUdeviceptr, DEVICE, CUdeviceptr, DEVICE)
COPY_ASYNC(cuMemcpyDtoDAsync_v2, 0, CUdeviceptr, DEVICE, CUdeviceptr, DEVICE)
COPY_ASYNC(cuMemcpyDtoDAsync_v2_ptsz, 1, CUdeviceptr, DEVICE, CUdeviceptr, DEVICE)

#define COPY_2D(name, pt, async) \
	CUresult CUDAAPI name(const CUDA_MEMCPY2D *pCopy) \
	{ \
		DRV_ENTER(#name); \
		DRV_RETURN(copy_2d(&call_, pCopy, NULL, pt, async)); \
	}
#define COPY_2D_ASYNC(name, pt) \
	CUresult CUDAAPI name(const CUDA_MEMCPY2D *pCopy, CUstream hStream) \
	{ \
		DRV_ENTER(#name); \
		DRV_RETURN(copy_2d(&call_, pCopy, hStream, pt, 1)); \
	}

COPY_2D(cuMemcpy2D_v2, 0, 0)
COPY_2D(cuMemcpy2D_v2_ptds, 1, 0)
COPY_2D(cuMemcpy2DUnaligned_v2, 0, 0)
COPY_2D(cuMemcpy2DUnaligned_v2_ptds, 1, 0)
COPY_2D_ASYNC(cuMemcpy2DAsync_v2, 0)
COPY_2D_ASYNC(cuMemcpy2DAsync_v2_ptsz, 1)

#define FILL_1D(name, pt, type, elem) \
	CUresult CUDAAPI name(CUdeviceptr dstDevice, type value, size_t N) \
	{ \
		DRV_ENTER(#name); \
		DRV_RETURN(fill(&call_, dstDevice, 0, value, elem, N, 1, NULL, pt, 0)); \
	}
#define FILL_1D_ASYNC(name, pt, type, elem) \
	CUresult CUDAAPI name(CUdeviceptr dstDevice, type value, size_t N, CUstream hStream) \
	{ \
		DRV_ENTER(#name); \
		DRV_RETURN(fill(&call_, dstDevice, 0, value, elem, N, 1, hStream, pt, 1)); \
	}
#define FILL_2D(name, pt, type, elem) \
	CUresult CUDAAPI name(CUdeviceptr dstDevice, size_t dstPitch, type value, size_t Width, \
			      size_t Height) \
	{ \
		DRV_ENTER(#name); \
		DRV_RETURN(fill(&call_, dstDevice, dstPitch, value, elem, Width, Height, NULL, pt, \
				0)); \
	}
#define FILL_2D_ASYNC(name, pt, type, elem) \
	CUresult CUDAAPI name(CUdeviceptr dstDevice, size_t dstPitch, type value, size_t Width, \
			      size_t Height, CUstream hStream) \
	{ \
		DRV_ENTER(#name); \
		DRV_RETURN(fill(&call_, dstDevice, dstPitch, value, elem, Width, Height, hStream, \
				pt, 1)); \
	}

FILL_1D(cuMemsetD8_v2, 0, unsigned char, 1)
FILL_1D(cuMemsetD8_v2_ptds, 1, unsigned char, 1)
FILL_1D(cuMemsetD16_v2, 0, unsigned short, 2)
FILL_1D(cuMemsetD16_v2_ptds, 1, unsigned short, 2)
FILL_1D(cuMemsetD32_v2, 0, unsigned int, 4)
FILL_1D(cuMemsetD32_v2_ptds, 1, unsigned int, 4)
FILL_1D_ASYNC(cuMemsetD8Async, 0, unsigned char, 1)
FILL_1D_ASYNC(cuMemsetD8Async_ptsz, 1, unsigned char, 1)
FILL_1D_ASYNC(cuMemsetD16Async, 0, unsigned short, 2)
FILL_1D_ASYNC(cuMemsetD16Async_ptsz, 1, unsigned short, 2)
FILL_1D_ASYNC(cuMemsetD32Async, 0, unsigned int, 4)
FILL_1D_ASYNC(cuMemsetD32Async_ptsz, 1, unsigned int, 4)
FILL_2D(cuMemsetD2D8_v2, 0, unsigned char, 1)
FILL_2D(cuMemsetD2D8_v2_ptds, 1, unsigned char, 1)
FILL_2D(cuMemsetD2D16_v2, 0, unsigned short, 2)
FILL_2D(cuMemsetD2D16_v2_ptds, 1, unsigned short, 2)
FILL_2D(cuMemsetD2D32_v2, 0, unsigned int, 4)
FILL_2D(cuMemsetD2D32_v2_ptds, 1, unsigned int, 4)
FILL_2D_ASYNC(cuMemsetD2D8Async, 0, unsigned char, 1)
FILL_2D_ASYNC(cuMemsetD2D8Async_ptsz, 1, unsigned char, 1)
FILL_2D_ASYNC(cuMemsetD2D16Async, 0, unsigned short, 2)
FILL_2D_ASYNC(cuMemsetD2D16Async_ptsz, 1, unsigned short, 2)
FILL_2D_ASYNC(cuMemsetD2D32Async, 0, unsigned int, 4)
FILL_2D_ASYNC(cuMemsetD2D32Async_ptsz, 1, unsigned int, 4)
