/* Events: create, record on a stream (captured like other work), query, synchronize and
 * elapsed time.  Work completes at submission, so a recorded event has always happened. */
#include "driver_internal.h"

#define KNOWN_EVENT_FLAGS \
	(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS)

CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
	sim_event *e = NULL;
	CUresult st;
	int dev;

	DRV_ENTER("cuEventCreate");
	DRV_ARG("flags", "%u", Flags);
	DRV_CHECK();
	DRV_TRY(drv_current_device(&dev));
	/* Driver docs: an interprocess event must also be created without timing. */
	if (!phEvent || (Flags & ~(unsigned)KNOWN_EVENT_FLAGS) ||
	    (Flags & CU_EVENT_INTERPROCESS && !(Flags & CU_EVENT_DISABLE_TIMING)))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	st = drv_status(sim_event_create(Flags, &e));
	if (st == CUDA_SUCCESS) {
		*phEvent = (CUevent)e;
		DRV_ARG("event", "0x%llx", DRV_PTR(e));
	}
	DRV_RETURN(st);
}

static CUresult destroy(sim_call *c, CUevent e)
{
	CUresult st;

	sim_call_arg(c, "event", "0x%llx", DRV_PTR(e));
	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	return drv_status(sim_event_destroy((sim_event *)e));
}

CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent)
{
	DRV_ENTER("cuEventDestroy_v2");
	DRV_RETURN(destroy(&call_, hEvent));
}

CUresult CUDAAPI cuEventDestroy(CUevent hEvent)
{
	DRV_ENTER("cuEventDestroy");
	DRV_RETURN(destroy(&call_, hEvent));
}

static CUresult record(sim_call *c, CUevent e, CUstream h, unsigned flags, int per_thread)
{
	sim_stream *s;
	CUresult st;

	sim_call_arg(c, "event", "0x%llx", DRV_PTR(e));
	sim_call_arg(c, "stream", "0x%llx", DRV_PTR(h));
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = drv_stream_for_work(h, per_thread, &s);
	if (st != CUDA_SUCCESS)
		return st;
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL)
		return CUDA_ERROR_INVALID_VALUE;
	st = drv_status(sim_event_record((sim_event *)e, s));
	if (st != CUDA_SUCCESS && sim_stream_capturing(s))
		drv_capture_invalidate(s);
	return st;
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream)
{
	DRV_ENTER("cuEventRecord");
	DRV_RETURN(record(&call_, hEvent, hStream, 0, 0));
}

CUresult CUDAAPI cuEventRecord_ptsz(CUevent hEvent, CUstream hStream)
{
	DRV_ENTER("cuEventRecord_ptsz");
	DRV_RETURN(record(&call_, hEvent, hStream, 0, 1));
}

CUresult CUDAAPI cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags)
{
	DRV_ENTER("cuEventRecordWithFlags");
	DRV_RETURN(record(&call_, hEvent, hStream, flags, 0));
}

CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream,
					     unsigned int flags)
{
	DRV_ENTER("cuEventRecordWithFlags_ptsz");
	DRV_RETURN(record(&call_, hEvent, hStream, flags, 1));
}

CUresult CUDAAPI cuEventQuery(CUevent hEvent)
{
	DRV_ENTER("cuEventQuery");
	DRV_ARG("event", "0x%llx", DRV_PTR(hEvent));
	DRV_CHECK();
	if (!hEvent)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	DRV_RETURN(drv_status(sim_event_query((sim_event *)hEvent)));
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
	DRV_ENTER("cuEventSynchronize");
	DRV_ARG("event", "0x%llx", DRV_PTR(hEvent));
	DRV_CHECK();
	if (!hEvent)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	DRV_TRY(drv_status(sim_event_query((sim_event *)hEvent)));
	DRV_RETURN(drv_sticky_status(sim_sticky_error()));
}

static CUresult elapsed(sim_call *c, float *ms, CUevent a, CUevent b)
{
	sim_err err;
	CUresult st;

	sim_call_arg(c, "start", "0x%llx", DRV_PTR(a));
	sim_call_arg(c, "end", "0x%llx", DRV_PTR(b));
	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	if (!ms)
		return CUDA_ERROR_INVALID_VALUE;
	if (!a || !b)
		return CUDA_ERROR_INVALID_HANDLE;
	err = sim_event_elapsed((sim_event *)a, (sim_event *)b, ms);
	/* cuEventElapsedTime docs: an event never recorded, or created with
	 * CU_EVENT_DISABLE_TIMING, is an invalid handle. */
	return err == SIM_ENOTREADY ? CUDA_ERROR_INVALID_HANDLE : drv_status(err);
}

CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
	DRV_ENTER("cuEventElapsedTime_v2");
	DRV_RETURN(elapsed(&call_, pMilliseconds, hStart, hEnd));
}

CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
	DRV_ENTER("cuEventElapsedTime");
	DRV_RETURN(elapsed(&call_, pMilliseconds, hStart, hEnd));
}
