/* Stream capture and graphs: each entry point is one driver call (the _ptsz forms through
 * the per-thread table).  cudaStreamGetCaptureInfo changed shape across versions: the .12
 * build also exports the CUDA 12 names (_v2 with dependencies, _v3 with edge data; their
 * prototypes in ../v12/cuda12_abi.h). */
#include "runtime_internal.h"
#include "cuda12_abi.h"

#define BEGIN_CAPTURE(name, pt) \
	cudaError_t CUDARTAPI name(cudaStream_t stream, enum cudaStreamCaptureMode mode) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_ARG("mode", "%d", (int)mode); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(RT_DRV(d->cuStreamBeginCapture((CUstream)stream, \
							 (CUstreamCaptureMode)mode))); \
	}
#define END_CAPTURE(name, pt) \
	cudaError_t CUDARTAPI name(cudaStream_t stream, cudaGraph_t *pGraph) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(RT_DRV(d->cuStreamEndCapture((CUstream)stream, (CUgraph *)pGraph))); \
	}
#define IS_CAPTURING(name, pt) \
	cudaError_t CUDARTAPI name(cudaStream_t stream, enum cudaStreamCaptureStatus *pStatus) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(RT_DRV(d->cuStreamIsCapturing((CUstream)stream, \
							(CUstreamCaptureStatus *)pStatus))); \
	}

BEGIN_CAPTURE(cudaStreamBeginCapture, 0)
BEGIN_CAPTURE(cudaStreamBeginCapture_ptsz, 1)
END_CAPTURE(cudaStreamEndCapture, 0)
END_CAPTURE(cudaStreamEndCapture_ptsz, 1)
IS_CAPTURING(cudaStreamIsCapturing, 0)
IS_CAPTURING(cudaStreamIsCapturing_ptsz, 1)

/* All versions of cudaStreamGetCaptureInfo: the driver's _v3 with what the caller passed. */
static cudaError_t capture_info(const struct rt_driver *d, cudaStream_t stream,
				enum cudaStreamCaptureStatus *status, unsigned long long *id,
				cudaGraph_t *graph, const cudaGraphNode_t **deps,
				const cudaGraphEdgeData **edges, size_t *ndeps)
{
	return rt_status(d->cuStreamGetCaptureInfo((CUstream)stream, (CUstreamCaptureStatus *)status,
						   (cuuint64_t *)id, (CUgraph *)graph,
						   (const CUgraphNode **)deps,
						   (const CUgraphEdgeData **)edges, ndeps));
}

#define CAPTURE_INFO_V3(name, pt) \
	cudaError_t CUDARTAPI name(cudaStream_t stream, enum cudaStreamCaptureStatus *status, \
				   unsigned long long *id, cudaGraph_t *graph, \
				   const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges, \
				   size_t *ndeps) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(capture_info(d, stream, status, id, graph, deps, edges, ndeps)); \
	}

#if SIMCUDA_SOVERSION == 12
/* CUDA 12 names.  The unversioned one has only status and id in CUDA 12; it keeps the
 * CUDA 13 prototype (the header in this tree) but reads no argument past id, so both kinds
 * of caller are safe. */
#define CAPTURE_INFO_V1(name, pt) \
	cudaError_t CUDARTAPI name(cudaStream_t stream, enum cudaStreamCaptureStatus *status, \
				   unsigned long long *id, cudaGraph_t *graph, \
				   const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges, \
				   size_t *ndeps) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(capture_info(d, stream, status, id, NULL, NULL, NULL, NULL)); \
	}
#define CAPTURE_INFO_V2(name, pt) \
	cudaError_t CUDARTAPI name(cudaStream_t stream, enum cudaStreamCaptureStatus *status, \
				   unsigned long long *id, cudaGraph_t *graph, \
				   const cudaGraphNode_t **deps, size_t *ndeps) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(capture_info(d, stream, status, id, graph, deps, NULL, ndeps)); \
	}
CAPTURE_INFO_V1(cudaStreamGetCaptureInfo, 0)
CAPTURE_INFO_V1(cudaStreamGetCaptureInfo_ptsz, 1)
CAPTURE_INFO_V2(cudaStreamGetCaptureInfo_v2, 0)
CAPTURE_INFO_V2(cudaStreamGetCaptureInfo_v2_ptsz, 1)
CAPTURE_INFO_V3(cudaStreamGetCaptureInfo_v3, 0)
CAPTURE_INFO_V3(cudaStreamGetCaptureInfo_v3_ptsz, 1)
#else
CAPTURE_INFO_V3(cudaStreamGetCaptureInfo, 0)
CAPTURE_INFO_V3(cudaStreamGetCaptureInfo_ptsz, 1)
#endif

cudaError_t CUDARTAPI cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
	RT_ENTER("cudaThreadExchangeStreamCaptureMode");
	RT_CHECK();
	RT_RETURN(RT_DRV(d->cuThreadExchangeStreamCaptureMode((CUstreamCaptureMode *)mode)));
}

static cudaError_t instantiate(sim_call *c, const struct rt_driver *d, cudaGraphExec_t *exec,
			       cudaGraph_t graph, unsigned long long flags)
{
	sim_call_arg(c, "graph", "0x%llx", RT_PTR(graph));
	sim_call_arg(c, "flags", "%llu", flags);
	return rt_status(d->cuGraphInstantiate((CUgraphExec *)exec, (CUgraph)graph, flags));
}

cudaError_t CUDARTAPI cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
					   unsigned long long flags)
{
	RT_ENTER("cudaGraphInstantiate");
	RT_CHECK_CONTEXT();
	RT_RETURN(instantiate(&call_, d, pGraphExec, graph, flags));
}

cudaError_t CUDARTAPI cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec,
						    cudaGraph_t graph, unsigned long long flags)
{
	RT_ENTER("cudaGraphInstantiateWithFlags");
	RT_CHECK_CONTEXT();
	RT_RETURN(instantiate(&call_, d, pGraphExec, graph, flags));
}

#define GRAPH_LAUNCH(name, pt) \
	cudaError_t CUDARTAPI name(cudaGraphExec_t graphExec, cudaStream_t stream) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("exec", "0x%llx", RT_PTR(graphExec)); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(RT_DRV(d->cuGraphLaunch((CUgraphExec)graphExec, (CUstream)stream))); \
	}

GRAPH_LAUNCH(cudaGraphLaunch, 0)
GRAPH_LAUNCH(cudaGraphLaunch_ptsz, 1)

cudaError_t CUDARTAPI cudaGraphDestroy(cudaGraph_t graph)
{
	RT_ENTER("cudaGraphDestroy");
	RT_ARG("graph", "0x%llx", RT_PTR(graph));
	RT_CHECK_CONTEXT();
	RT_RETURN(RT_DRV(d->cuGraphDestroy((CUgraph)graph)));
}

cudaError_t CUDARTAPI cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
	RT_ENTER("cudaGraphExecDestroy");
	RT_ARG("exec", "0x%llx", RT_PTR(graphExec));
	RT_CHECK_CONTEXT();
	RT_RETURN(RT_DRV(d->cuGraphExecDestroy((CUgraphExec)graphExec)));
}
