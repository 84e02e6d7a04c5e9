/* Stream capture: begin/end, status queries and the capture-mode rules.  The core records
 * the captured ops; the driver keeps what CUDA's rules need on top: each capture's mode,
 * thread and id, whether an illegal call invalidated it, and the calling thread's mode
 * (cuThreadExchangeStreamCaptureMode). */
#include <pthread.h>
#include <stdlib.h>

#include "driver_internal.h"

struct capture {
	sim_stream *stream;
	CUstreamCaptureMode mode;
	pthread_t thread;
	cuuint64_t id;
	int invalidated;
	struct capture *next;
};

static pthread_mutex_t captures_lock = PTHREAD_MUTEX_INITIALIZER;
static struct capture *captures;
static cuuint64_t next_capture_id = 1;
static __thread CUstreamCaptureMode thread_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

/* Caller holds captures_lock. */
static struct capture *find(sim_stream *s)
{
	struct capture *c;
	for (c = captures; c && c->stream != s; c = c->next)
		;
	return c;
}

void drv_capture_started(sim_stream *s, CUstreamCaptureMode mode)
{
	struct capture *c = calloc(1, sizeof *c);

	if (!c)
		return; /* The capture still works; only its mode rules are lost. */
	c->stream = s;
	c->mode = mode;
	c->thread = pthread_self();
	pthread_mutex_lock(&captures_lock);
	c->id = next_capture_id++;
	c->next = captures;
	captures = c;
	pthread_mutex_unlock(&captures_lock);
}

int drv_capture_ended(sim_stream *s)
{
	struct capture **pp, *c = NULL;
	int invalidated = 0;

	pthread_mutex_lock(&captures_lock);
	for (pp = &captures; *pp; pp = &(*pp)->next)
		if ((*pp)->stream == s) {
			c = *pp;
			*pp = c->next;
			break;
		}
	pthread_mutex_unlock(&captures_lock);
	if (c)
		invalidated = c->invalidated;
	free(c);
	return invalidated;
}

void drv_capture_invalidate(sim_stream *s)
{
	struct capture *c;

	pthread_mutex_lock(&captures_lock);
	c = find(s);
	if (c)
		c->invalidated = 1;
	pthread_mutex_unlock(&captures_lock);
}

CUstreamCaptureStatus drv_capture_status(sim_stream *s, cuuint64_t *id)
{
	CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
	struct capture *c;

	if (id)
		*id = 0;
	pthread_mutex_lock(&captures_lock);
	c = find(s);
	if (c) {
		st = c->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
			: CU_STREAM_CAPTURE_STATUS_ACTIVE;
		if (id)
			*id = c->id;
	}
	pthread_mutex_unlock(&captures_lock);
	/* A stream can join a capture it did not begin (the core knows; no mode or id here). */
	if (!c && sim_stream_capturing(s))
		st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
	return st;
}

/* The rules of cuThreadExchangeStreamCaptureMode: a thread in GLOBAL mode may not make a
 * potentially unsafe call while any GLOBAL capture runs anywhere or a non-RELAXED capture
 * runs on this thread; THREAD_LOCAL only looks at this thread; RELAXED never refuses. */
CUresult drv_capture_guard(void)
{
	CUresult st = CUDA_SUCCESS;
	pthread_t self = pthread_self();

	if (thread_mode == CU_STREAM_CAPTURE_MODE_RELAXED)
		return CUDA_SUCCESS;
	pthread_mutex_lock(&captures_lock);
	for (struct capture *c = captures; c; c = c->next) {
		int mine = pthread_equal(c->thread, self);
		if ((mine && c->mode != CU_STREAM_CAPTURE_MODE_RELAXED) ||
		    (!mine && thread_mode == CU_STREAM_CAPTURE_MODE_GLOBAL &&
		     c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL)) {
			c->invalidated = 1;
			st = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
		}
	}
	pthread_mutex_unlock(&captures_lock);
	return st;
}

/* The legacy stream synchronizes with every blocking stream of its device, so touching it
 * while one captures would make the capture depend on outside work. */
static CUresult legacy_guard(int device, int invalidate)
{
	CUresult st = CUDA_SUCCESS;

	pthread_mutex_lock(&captures_lock);
	for (struct capture *c = captures; c; c = c->next)
		if (sim_stream_device(c->stream) == device &&
		    !(sim_stream_flags(c->stream) & CU_STREAM_NON_BLOCKING)) {
			if (invalidate)
				c->invalidated = 1;
			st = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
		}
	pthread_mutex_unlock(&captures_lock);
	return st;
}

CUresult drv_capture_legacy_guard(int device)
{
	return legacy_guard(device, 1);
}

/* ------------------------------------------------------------ exports */

static int is_legacy(CUstream h, int per_thread)
{
	return h == CU_STREAM_LEGACY || (!h && !per_thread);
}

static CUresult begin_capture(sim_call *c, CUstream h, int per_thread, CUstreamCaptureMode mode)
{
	sim_stream *s;
	CUresult st;

	sim_call_arg(c, "stream", "0x%llx", DRV_PTR(h));
	sim_call_arg(c, "mode", "%d", (int)mode);
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = drv_stream(h, per_thread, &s);
	if (st != CUDA_SUCCESS)
		return st;
	if ((unsigned)mode > CU_STREAM_CAPTURE_MODE_RELAXED)
		return CUDA_ERROR_INVALID_VALUE;
	/* cuStreamBeginCapture docs: the legacy stream cannot be captured. */
	if (is_legacy(h, per_thread))
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	if (sim_stream_capturing(s))
		return CUDA_ERROR_ILLEGAL_STATE;
	st = drv_status(sim_capture_begin(s, (int)mode));
	if (st == CUDA_SUCCESS)
		drv_capture_started(s, mode);
	return st;
}

CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode)
{
	DRV_ENTER("cuStreamBeginCapture_v2");
	DRV_RETURN(begin_capture(&call_, hStream, 0, mode));
}

CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode)
{
	DRV_ENTER("cuStreamBeginCapture_v2_ptsz");
	DRV_RETURN(begin_capture(&call_, hStream, 1, mode));
}

/* The CUDA 10.0 form always captured in global mode. */
CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream)
{
	DRV_ENTER("cuStreamBeginCapture");
	DRV_RETURN(begin_capture(&call_, hStream, 0, CU_STREAM_CAPTURE_MODE_GLOBAL));
}

CUresult CUDAAPI cuStreamBeginCapture_ptsz(CUstream hStream)
{
	DRV_ENTER("cuStreamBeginCapture_ptsz");
	DRV_RETURN(begin_capture(&call_, hStream, 1, CU_STREAM_CAPTURE_MODE_GLOBAL));
}

static CUresult end_capture(sim_call *c, CUstream h, int per_thread, CUgraph *phGraph)
{
	struct capture *cap;
	sim_graph *g = NULL;
	sim_stream *s;
	CUresult st;
	int wrong_thread = 0;

	sim_call_arg(c, "stream", "0x%llx", DRV_PTR(h));
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = drv_stream(h, per_thread, &s);
	if (st != CUDA_SUCCESS)
		return st;
	if (!phGraph)
		return CUDA_ERROR_INVALID_VALUE;
	*phGraph = NULL;
	if (!sim_stream_capturing(s))
		return CUDA_ERROR_ILLEGAL_STATE;
	pthread_mutex_lock(&captures_lock);
	cap = find(s);
	if (cap && cap->mode != CU_STREAM_CAPTURE_MODE_RELAXED &&
	    !pthread_equal(cap->thread, pthread_self()))
		wrong_thread = 1;
	pthread_mutex_unlock(&captures_lock);
	if (wrong_thread)
		return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
	st = drv_status(sim_capture_end(s, &g));
	if (drv_capture_ended(s)) {
		/* An invalidated capture ends with no graph. */
		sim_graph_destroy(g);
		return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
	}
	if (st == CUDA_SUCCESS) {
		*phGraph = (CUgraph)g;
		sim_call_arg(c, "graph", "0x%llx", DRV_PTR(g));
		sim_call_arg(c, "nodes", "%zu", sim_graph_node_count(g));
	}
	return st;
}

CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
	DRV_ENTER("cuStreamEndCapture");
	DRV_RETURN(end_capture(&call_, hStream, 0, phGraph));
}

CUresult CUDAAPI cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph)
{
	DRV_ENTER("cuStreamEndCapture_ptsz");
	DRV_RETURN(end_capture(&call_, hStream, 1, phGraph));
}

/* Shared by IsCapturing and the GetCaptureInfo versions.  While capturing: the graph being
 * built (the caller does not own it) and, as the dependencies, the last node captured (each op
 * stands for its node); driver docs: the array is valid until the next call on the stream. */
static CUresult capture_info(sim_call *c, CUstream h, int per_thread,
			     CUstreamCaptureStatus *status, cuuint64_t *id, CUgraph *graph,
			     const CUgraphNode **deps, const CUgraphEdgeData **edges, size_t *ndeps)
{
	sim_op *const *last = NULL;
	sim_graph *g = NULL;
	sim_stream *s;
	CUresult st;

	sim_call_arg(c, "stream", "0x%llx", DRV_PTR(h));
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = drv_stream(h, per_thread, &s);
	if (st != CUDA_SUCCESS)
		return st;
	if (!status)
		return CUDA_ERROR_INVALID_VALUE;
	/* cuStreamIsCapturing docs: asking about the legacy stream while a blocking stream
	 * captures is an implicit dependency (reported, not invalidating). */
	if (is_legacy(h, per_thread)) {
		st = legacy_guard(sim_stream_device(s), 0);
		if (st != CUDA_SUCCESS)
			return st;
	}
	*status = drv_capture_status(s, id);
	if (*status == CU_STREAM_CAPTURE_STATUS_ACTIVE)
		g = sim_stream_capture_graph(s, &last);
	if (graph)
		*graph = (CUgraph)g;
	if (deps)
		*deps = (const CUgraphNode *)last;
	if (edges)
		*edges = NULL; /* default edges only (driver docs: NULL then) */
	if (ndeps)
		*ndeps = last ? 1 : 0;
	sim_call_arg(c, "status", "%d", (int)*status);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
	DRV_ENTER("cuStreamIsCapturing");
	DRV_RETURN(capture_info(&call_, hStream, 0, captureStatus, NULL, NULL, NULL, NULL, NULL));
}

CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
	DRV_ENTER("cuStreamIsCapturing_ptsz");
	DRV_RETURN(capture_info(&call_, hStream, 1, captureStatus, NULL, NULL, NULL, NULL, NULL));
}

CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
					cuuint64_t *id_out)
{
	DRV_ENTER("cuStreamGetCaptureInfo");
	DRV_RETURN(capture_info(&call_, hStream, 0, captureStatus_out, id_out, NULL, NULL, NULL,
				NULL));
}

CUresult CUDAAPI cuStreamGetCaptureInfo_ptsz(CUstream hStream,
					     CUstreamCaptureStatus *captureStatus_out,
					     cuuint64_t *id_out)
{
	DRV_ENTER("cuStreamGetCaptureInfo_ptsz");
	DRV_RETURN(capture_info(&call_, hStream, 1, captureStatus_out, id_out, NULL, NULL, NULL,
				NULL));
}

CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream,
					   CUstreamCaptureStatus *captureStatus_out,
					   cuuint64_t *id_out, CUgraph *graph_out,
					   const CUgraphNode **dependencies_out,
					   size_t *numDependencies_out)
{
	DRV_ENTER("cuStreamGetCaptureInfo_v2");
	DRV_RETURN(capture_info(&call_, hStream, 0, captureStatus_out, id_out, graph_out,
				dependencies_out, NULL, numDependencies_out));
}

CUresult CUDAAPI cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream,
						CUstreamCaptureStatus *captureStatus_out,
						cuuint64_t *id_out, CUgraph *graph_out,
						const CUgraphNode **dependencies_out,
						size_t *numDependencies_out)
{
	DRV_ENTER("cuStreamGetCaptureInfo_v2_ptsz");
	DRV_RETURN(capture_info(&call_, hStream, 1, captureStatus_out, id_out, graph_out,
				dependencies_out, NULL, numDependencies_out));
}

CUresult CUDAAPI cuStreamGetCaptureInfo_v3(CUstream hStream,
					   CUstreamCaptureStatus *captureStatus_out,
					   cuuint64_t *id_out, CUgraph *graph_out,
					   const CUgraphNode **dependencies_out,
					   const CUgraphEdgeData **edgeData_out,
					   size_t *numDependencies_out)
{
	DRV_ENTER("cuStreamGetCaptureInfo_v3");
	DRV_RETURN(capture_info(&call_, hStream, 0, captureStatus_out, id_out, graph_out,
				dependencies_out, edgeData_out, numDependencies_out));
}

CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream,
						CUstreamCaptureStatus *captureStatus_out,
						cuuint64_t *id_out, CUgraph *graph_out,
						const CUgraphNode **dependencies_out,
						const CUgraphEdgeData **edgeData_out,
						size_t *numDependencies_out)
{
	DRV_ENTER("cuStreamGetCaptureInfo_v3_ptsz");
	DRV_RETURN(capture_info(&call_, hStream, 1, captureStatus_out, id_out, graph_out,
				dependencies_out, edgeData_out, numDependencies_out));
}

CUresult CUDAAPI cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
	CUstreamCaptureMode old;

	DRV_ENTER("cuThreadExchangeStreamCaptureMode");
	if (mode)
		DRV_ARG("mode", "%d", (int)*mode);
	DRV_CHECK();
	if (!mode || (unsigned)*mode > CU_STREAM_CAPTURE_MODE_RELAXED)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	old = thread_mode;
	thread_mode = *mode;
	*mode = old;
	DRV_RETURN(CUDA_SUCCESS);
}
