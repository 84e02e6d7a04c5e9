/* Streams and events.  cudaStream_t and cudaEvent_t are the driver's CUstream and CUevent
 * (cudaStreamLegacy and cudaStreamPerThread are its CU_STREAM_LEGACY / CU_STREAM_PER_THREAD);
 * the _ptsz forms use the per-thread driver table, where NULL is the thread's stream. */
#include "runtime_internal.h"

static cudaError_t stream_create(sim_call *c, const struct rt_driver *d, cudaStream_t *s,
				 unsigned flags, int priority, int with_priority)
{
	CUresult st;

	sim_call_arg(c, "flags", "%u", flags);
	if (!s)
		return cudaErrorInvalidValue;
	st = with_priority ? d->cuStreamCreateWithPriority((CUstream *)s, flags, priority)
		: d->cuStreamCreate((CUstream *)s, flags);
	if (st == CUDA_SUCCESS)
		sim_call_arg(c, "stream", "0x%llx", RT_PTR(*s));
	return rt_status(st);
}

cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t *pStream)
{
	RT_ENTER("cudaStreamCreate");
	RT_CHECK_CONTEXT();
	RT_RETURN(stream_create(&call_, d, pStream, cudaStreamDefault, 0, 0));
}

cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
	RT_ENTER("cudaStreamCreateWithFlags");
	RT_CHECK_CONTEXT();
	RT_RETURN(stream_create(&call_, d, pStream, flags, 0, 0));
}

cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
						   int priority)
{
	RT_ENTER("cudaStreamCreateWithPriority");
	RT_ARG("priority", "%d", priority);
	RT_CHECK_CONTEXT();
	RT_RETURN(stream_create(&call_, d, pStream, flags, priority, 1));
}

cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream)
{
	RT_ENTER("cudaStreamDestroy");
	RT_ARG("stream", "0x%llx", RT_PTR(stream));
	RT_CHECK_CONTEXT();
	RT_RETURN(RT_DRV(d->cuStreamDestroy((CUstream)stream)));
}

/* One-stream-argument calls that map 1:1 onto a driver call, with their _ptsz twins. */
#define STREAM_CALL(name, pt, drvcall) \
	cudaError_t CUDARTAPI name(cudaStream_t stream) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(RT_DRV(d->drvcall((CUstream)stream))); \
	}

STREAM_CALL(cudaStreamSynchronize, 0, cuStreamSynchronize)
STREAM_CALL(cudaStreamSynchronize_ptsz, 1, cuStreamSynchronize)
STREAM_CALL(cudaStreamQuery, 0, cuStreamQuery)
STREAM_CALL(cudaStreamQuery_ptsz, 1, cuStreamQuery)

#define STREAM_WAIT_EVENT(name, pt) \
	cudaError_t CUDARTAPI name(cudaStream_t stream, cudaEvent_t event, unsigned int flags) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_ARG("event", "0x%llx", RT_PTR(event)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(RT_DRV(d->cuStreamWaitEvent((CUstream)stream, (CUevent)event, flags))); \
	}

STREAM_WAIT_EVENT(cudaStreamWaitEvent, 0)
STREAM_WAIT_EVENT(cudaStreamWaitEvent_ptsz, 1)

#define STREAM_GET(name, pt, type, drvcall) \
	cudaError_t CUDARTAPI name(cudaStream_t stream, type *out) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(RT_DRV(d->drvcall((CUstream)stream, out))); \
	}

STREAM_GET(cudaStreamGetFlags, 0, unsigned int, cuStreamGetFlags)
STREAM_GET(cudaStreamGetFlags_ptsz, 1, unsigned int, cuStreamGetFlags)
STREAM_GET(cudaStreamGetPriority, 0, int, cuStreamGetPriority)
STREAM_GET(cudaStreamGetPriority_ptsz, 1, int, cuStreamGetPriority)
STREAM_GET(cudaStreamGetId, 0, unsigned long long, cuStreamGetId)
STREAM_GET(cudaStreamGetId_ptsz, 1, unsigned long long, cuStreamGetId)
STREAM_GET(cudaStreamGetDevice, 0, int, cuStreamGetDevice)
STREAM_GET(cudaStreamGetDevice_ptsz, 1, int, cuStreamGetDevice)

/* ------------------------------------------------------------ events */

static cudaError_t event_create(sim_call *c, const struct rt_driver *d, cudaEvent_t *e,
				unsigned flags)
{
	sim_call_arg(c, "flags", "%u", flags);
	if (!e)
		return cudaErrorInvalidValue;
	/* cudaEvent* flags are the CU_EVENT_* bits. */
	return rt_status(d->cuEventCreate((CUevent *)e, flags));
}

cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t *event)
{
	RT_ENTER("cudaEventCreate");
	RT_CHECK_CONTEXT();
	RT_RETURN(event_create(&call_, d, event, cudaEventDefault));
}

cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	RT_ENTER("cudaEventCreateWithFlags");
	RT_CHECK_CONTEXT();
	RT_RETURN(event_create(&call_, d, event, flags));
}

#define EVENT_CALL(name, drvcall) \
	cudaError_t CUDARTAPI name(cudaEvent_t event) \
	{ \
		RT_ENTER(#name); \
		RT_ARG("event", "0x%llx", RT_PTR(event)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(RT_DRV(d->drvcall((CUevent)event))); \
	}

EVENT_CALL(cudaEventDestroy, cuEventDestroy)
EVENT_CALL(cudaEventQuery, cuEventQuery)
EVENT_CALL(cudaEventSynchronize, cuEventSynchronize)

#define EVENT_RECORD(name, pt) \
	cudaError_t CUDARTAPI name(cudaEvent_t event, cudaStream_t stream) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("event", "0x%llx", RT_PTR(event)); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(RT_DRV(d->cuEventRecord((CUevent)event, (CUstream)stream))); \
	}
#define EVENT_RECORD_FLAGS(name, pt) \
	cudaError_t CUDARTAPI name(cudaEvent_t event, cudaStream_t stream, unsigned int flags) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("event", "0x%llx", RT_PTR(event)); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(RT_DRV(d->cuEventRecordWithFlags((CUevent)event, (CUstream)stream, \
							   flags))); \
	}

EVENT_RECORD(cudaEventRecord, 0)
EVENT_RECORD(cudaEventRecord_ptsz, 1)
EVENT_RECORD_FLAGS(cudaEventRecordWithFlags, 0)
EVENT_RECORD_FLAGS(cudaEventRecordWithFlags_ptsz, 1)

cudaError_t CUDARTAPI cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	RT_ENTER("cudaEventElapsedTime");
	RT_ARG("start", "0x%llx", RT_PTR(start));
	RT_ARG("end", "0x%llx", RT_PTR(end));
	RT_CHECK_CONTEXT();
	RT_RETURN(RT_DRV(d->cuEventElapsedTime(ms, (CUevent)start, (CUevent)end)));
}
