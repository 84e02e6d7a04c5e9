/* Host work in stream order: cuLaunchHostFunc and cuStreamAddCallback.  Each is one op on the
 * stream, so it runs after the work queued before it (at submission here, simcore.h) and, for
 * a host function in a capturing stream, at every replay of the graph, as a host node does.
 * Driver docs: a callback is not allowed in a capturing stream, and its flags must be 0. */
#include <stdlib.h>

#include "driver_internal.h"

struct host_op {
	sim_op op;
	CUhostFn fn;               /* cuLaunchHostFunc */
	CUstreamCallback callback; /* cuStreamAddCallback */
	CUstream stream;           /* as the caller named it, for the callback */
	void *data;
};

static sim_err host_run(sim_op *op)
{
	struct host_op *h = (struct host_op *)op;

	if (h->fn)
		h->fn(h->data);
	else
		h->callback(h->stream, drv_sticky_status(sim_sticky_error()), h->data);
	return SIM_OK;
}

static void host_release(sim_op *op)
{
	free(op);
}

static CUresult enqueue(sim_call *c, CUstream h, int per_thread, CUhostFn fn,
			CUstreamCallback callback, void *data, unsigned flags)
{
	struct host_op *op;
	sim_stream *s;
	CUresult st;

	sim_call_arg(c, "stream", "0x%llx", DRV_PTR(h));
	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	if ((!fn && !callback) || flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	st = drv_stream_for_work(h, per_thread, &s);
	if (st != CUDA_SUCCESS)
		return st;
	if (callback && sim_stream_capturing(s)) {
		drv_capture_invalidate(s);
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	}
	op = calloc(1, sizeof *op);
	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*op = (struct host_op){{"host function", host_run, host_release}, fn, callback, h, data};
	return drv_submit(s, &op->op);
}

CUresult CUDAAPI cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
	DRV_ENTER("cuLaunchHostFunc");
	DRV_RETURN(enqueue(&call_, hStream, 0, fn, NULL, userData, 0));
}

CUresult CUDAAPI cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void *userData)
{
	DRV_ENTER("cuLaunchHostFunc_ptsz");
	DRV_RETURN(enqueue(&call_, hStream, 1, fn, NULL, userData, 0));
}

CUresult CUDAAPI cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData,
				     unsigned int flags)
{
	DRV_ENTER("cuStreamAddCallback");
	DRV_RETURN(enqueue(&call_, hStream, 0, NULL, callback, userData, flags));
}

CUresult CUDAAPI cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback,
					  void *userData, unsigned int flags)
{
	DRV_ENTER("cuStreamAddCallback_ptsz");
	DRV_RETURN(enqueue(&call_, hStream, 1, NULL, callback, userData, flags));
}
