/* Streams: handles (NULL / CU_STREAM_LEGACY / CU_STREAM_PER_THREAD / created ones), creation,
 * synchronization and queries.  Work runs at submission (simcore.h), so synchronizing only
 * reports the sticky error of failed work, and refuses what capture forbids. */
#include <stdint.h>

#include "driver_internal.h"

static int is_default_handle(CUstream h)
{
	return !h || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD;
}

CUresult drv_stream(CUstream h, int per_thread, sim_stream **out)
{
	int dev;

	/* Default streams belong to the current context: none without one. */
	if (is_default_handle(h) && drv_current_device(&dev) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_CONTEXT;
	*out = sim_stream_resolve(h, per_thread);
	return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult drv_stream_for_work(CUstream h, int per_thread, sim_stream **out)
{
	CUresult st = drv_stream(h, per_thread, out);

	if (st != CUDA_SUCCESS)
		return st;
	if (drv_capture_status(*out, NULL) == CU_STREAM_CAPTURE_STATUS_INVALIDATED)
		return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
	if (h == CU_STREAM_LEGACY || (!h && !per_thread))
		return drv_capture_legacy_guard(sim_stream_device(*out));
	return CUDA_SUCCESS;
}

CUresult drv_submit(sim_stream *s, sim_op *op)
{
	int capturing = sim_stream_capturing(s);
	sim_err err = sim_stream_submit(s, op);

	if (err != SIM_OK && capturing)
		drv_capture_invalidate(s);
	return drv_status(err);
}

/* ------------------------------------------------------------ create / destroy */

static CUresult create(sim_call *c, CUstream *ph, unsigned flags, int priority)
{
	sim_stream *s;
	CUresult st;
	int dev;

	sim_call_arg(c, "flags", "%u", flags);
	sim_call_arg(c, "priority", "%d", priority);
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = drv_current_device(&dev);
	if (st != CUDA_SUCCESS)
		return st;
	if (!ph || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
		return CUDA_ERROR_INVALID_VALUE;
	/* Out-of-range priorities are clamped to [greatest, least] = [-5, 0], as documented. */
	priority = priority < -5 ? -5 : priority > 0 ? 0 : priority;
	st = drv_status(sim_stream_create(dev, flags, priority, &s));
	if (st == CUDA_SUCCESS) {
		*ph = (CUstream)s;
		sim_call_arg(c, "stream", "0x%llx", DRV_PTR(s));
	}
	return st;
}

CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
	DRV_ENTER("cuStreamCreate");
	DRV_RETURN(create(&call_, phStream, Flags, 0));
}

CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
	DRV_ENTER("cuStreamCreateWithPriority");
	DRV_RETURN(create(&call_, phStream, flags, priority));
}

static CUresult destroy(sim_call *c, CUstream h)
{
	sim_stream *s;
	CUresult st;

	sim_call_arg(c, "stream", "0x%llx", DRV_PTR(h));
	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	if (is_default_handle(h))
		return CUDA_ERROR_INVALID_HANDLE;
	s = sim_stream_resolve(h, 0);
	if (!s)
		return CUDA_ERROR_INVALID_HANDLE;
	drv_capture_ended(s);
	return drv_status(sim_stream_destroy(s));
}

CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream)
{
	DRV_ENTER("cuStreamDestroy_v2");
	DRV_RETURN(destroy(&call_, hStream));
}

CUresult CUDAAPI cuStreamDestroy(CUstream hStream)
{
	DRV_ENTER("cuStreamDestroy");
	DRV_RETURN(destroy(&call_, hStream));
}

/* ------------------------------------------------------------ synchronize / query */

/* Synchronizing a capturing stream is illegal and invalidates the capture; the legacy
 * stream waits for blocking streams, so it may not while one of them captures. */
static CUresult synchronize(sim_call *c, CUstream h, int per_thread)
{
	sim_stream *s;
	CUresult st;

	sim_call_arg(c, "stream", "0x%llx", DRV_PTR(h));
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = drv_stream(h, per_thread, &s);
	if (st != CUDA_SUCCESS)
		return st;
	if (sim_stream_capturing(s)) {
		drv_capture_invalidate(s);
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	}
	if (h == CU_STREAM_LEGACY || (!h && !per_thread)) {
		st = drv_capture_legacy_guard(sim_stream_device(s));
		if (st != CUDA_SUCCESS)
			return st;
	}
	return drv_sticky_status(sim_stream_synchronize(s));
}

CUresult CUDAAPI cuStreamSynchronize(CUstream hStream)
{
	DRV_ENTER("cuStreamSynchronize");
	DRV_RETURN(synchronize(&call_, hStream, 0));
}

CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream hStream)
{
	DRV_ENTER("cuStreamSynchronize_ptsz");
	DRV_RETURN(synchronize(&call_, hStream, 1));
}

/* All submitted work is done, so a query answers like a synchronize. */
CUresult CUDAAPI cuStreamQuery(CUstream hStream)
{
	DRV_ENTER("cuStreamQuery");
	DRV_RETURN(synchronize(&call_, hStream, 0));
}

CUresult CUDAAPI cuStreamQuery_ptsz(CUstream hStream)
{
	DRV_ENTER("cuStreamQuery_ptsz");
	DRV_RETURN(synchronize(&call_, hStream, 1));
}

static CUresult wait_event(sim_call *c, CUstream h, CUevent e, unsigned flags, int per_thread)
{
	sim_stream *s;
	CUresult st;

	sim_call_arg(c, "stream", "0x%llx", DRV_PTR(h));
	sim_call_arg(c, "event", "0x%llx", DRV_PTR(e));
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = drv_stream_for_work(h, per_thread, &s);
	if (st != CUDA_SUCCESS)
		return st;
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	if (flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL)
		return CUDA_ERROR_INVALID_VALUE;
	return drv_status(sim_stream_wait_event(s, (sim_event *)e));
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
	DRV_ENTER("cuStreamWaitEvent");
	DRV_RETURN(wait_event(&call_, hStream, hEvent, Flags, 0));
}

CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
	DRV_ENTER("cuStreamWaitEvent_ptsz");
	DRV_RETURN(wait_event(&call_, hStream, hEvent, Flags, 1));
}

/* ------------------------------------------------------------ properties */

enum property { PROP_CTX, PROP_FLAGS, PROP_PRIORITY, PROP_ID, PROP_DEVICE };

static CUresult property(sim_call *c, CUstream h, int per_thread, enum property what, void *out)
{
	sim_stream *s;
	CUresult st;

	sim_call_arg(c, "stream", "0x%llx", DRV_PTR(h));
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = drv_stream(h, per_thread, &s);
	if (st != CUDA_SUCCESS)
		return st;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	switch (what) {
	case PROP_CTX:
		*(CUcontext *)out = (CUcontext)sim_ctx_primary(sim_stream_device(s));
		break;
	case PROP_FLAGS:
		*(unsigned *)out = sim_stream_flags(s);
		break;
	case PROP_PRIORITY:
		/* The core keeps no priority getter: every stream reads as the default. */
		*(int *)out = 0;
		break;
	case PROP_ID:
		*(unsigned long long *)out = sim_stream_id(s);
		sim_call_arg(c, "id", "%llu", *(unsigned long long *)out);
		break;
	case PROP_DEVICE:
		*(CUdevice *)out = sim_stream_device(s);
		break;
	}
	return CUDA_SUCCESS;
}

#define STREAM_PROPERTY(name, pt, what, type) \
	CUresult CUDAAPI name(CUstream hStream, type *out) \
	{ \
		DRV_ENTER(#name); \
		DRV_RETURN(property(&call_, hStream, pt, what, out)); \
	}

STREAM_PROPERTY(cuStreamGetCtx, 0, PROP_CTX, CUcontext)
STREAM_PROPERTY(cuStreamGetCtx_ptsz, 1, PROP_CTX, CUcontext)
STREAM_PROPERTY(cuStreamGetFlags, 0, PROP_FLAGS, unsigned int)
STREAM_PROPERTY(cuStreamGetFlags_ptsz, 1, PROP_FLAGS, unsigned int)
STREAM_PROPERTY(cuStreamGetPriority, 0, PROP_PRIORITY, int)
STREAM_PROPERTY(cuStreamGetPriority_ptsz, 1, PROP_PRIORITY, int)
STREAM_PROPERTY(cuStreamGetId, 0, PROP_ID, unsigned long long)
STREAM_PROPERTY(cuStreamGetId_ptsz, 1, PROP_ID, unsigned long long)
STREAM_PROPERTY(cuStreamGetDevice, 0, PROP_DEVICE, CUdevice)
STREAM_PROPERTY(cuStreamGetDevice_ptsz, 1, PROP_DEVICE, CUdevice)
