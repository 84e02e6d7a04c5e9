/* Stream capture and graphs through the runtime: captured copies and fills do not run at
 * capture time and run again at each launch; synchronous calls during capture fail and
 * invalidate it (cudaErrorStreamCaptureUnsupported, then ...Invalidated at the end); the
 * capture-mode exchange; stream-ordered allocation inside a capture. */
#include <cuda.h>

#include "rt_common.h"

#define N 1024

static unsigned char h[N];
static unsigned char *a, *b;

static void check_replay(cudaStream_t s)
{
	CUresult (*graph_nodes)(CUgraph, CUgraphNode *, size_t *) = NULL;
	enum cudaStreamCaptureStatus st;
	unsigned long long id = 0;
	cudaGraphExec_t exec = NULL;
	cudaGraph_t graph = NULL;
	size_t nodes = 0;

	memset(h, 0, sizeof h);
	RT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	RT_OK(cudaMemsetAsync(a, 7, N, s));
	RT_OK(cudaMemcpyAsync(b, a, N, cudaMemcpyDeviceToDevice, s));
	RT_OK(cudaMemcpyAsync(h, b, N, cudaMemcpyDeviceToHost, s));
	RT_OK(cudaStreamIsCapturing(s, &st));
	CHECK_INT("capturing", st, cudaStreamCaptureStatusActive);
	RT_OK(cudaStreamGetCaptureInfo(s, &st, &id, NULL, NULL, NULL, NULL));
	CHECK(id != 0, "capture id 0");
	RT_OK(cudaStreamEndCapture(s, &graph));
	CHECK(graph != NULL, "no graph");
	CHECK_INT("host buffer after capture", h[0], 0);
	RT_OK(cudaStreamIsCapturing(s, &st));
	CHECK_INT("capturing after the end", st, cudaStreamCaptureStatusNone);

	RT_OK(cudaGetDriverEntryPointByVersion("cuGraphGetNodes", (void **)&graph_nodes, 13000,
					       cudaEnableDefault, NULL));
	if (graph_nodes) {
		CHECK_INT("cuGraphGetNodes", graph_nodes((CUgraph)graph, NULL, &nodes), CUDA_SUCCESS);
		CHECK_INT("captured nodes", nodes, 3);
	}

	RT_OK(cudaGraphInstantiate(&exec, graph, 0));
	RT_OK(cudaGraphLaunch(exec, s));
	RT_OK(cudaStreamSynchronize(s));
	CHECK(h[0] == 7 && h[N - 1] == 7, "first replay: %d %d", h[0], h[N - 1]);
	memset(h, 0, sizeof h);
	RT_OK(cudaMemset(a, 0, N));
	RT_OK(cudaMemset(b, 0, N));
	RT_OK(cudaGraphLaunch(exec, s));
	RT_OK(cudaStreamSynchronize(s));
	CHECK(h[0] == 7 && h[N - 1] == 7, "second replay: %d %d", h[0], h[N - 1]);
	RT_OK(cudaGraphExecDestroy(exec));
	RT_OK(cudaGraphDestroy(graph));
}

/* A synchronous call while capturing fails and invalidates the capture. */
static void check_invalidation(cudaStream_t s)
{
	enum cudaStreamCaptureStatus st;
	cudaGraph_t graph = (cudaGraph_t)1;
	void *p = NULL;

	RT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	RT_OK(cudaMemsetAsync(a, 1, N, s));
	CHECK_RT("cudaMemcpy during capture", cudaMemcpy(h, a, N, cudaMemcpyDeviceToHost),
		 cudaErrorStreamCaptureUnsupported);
	RT_OK(cudaStreamIsCapturing(s, &st));
	CHECK_INT("status after the illegal call", st, cudaStreamCaptureStatusInvalidated);
	CHECK_RT("work on an invalidated capture", cudaMemsetAsync(a, 2, N, s),
		 cudaErrorStreamCaptureInvalidated);
	CHECK_RT("end of an invalidated capture", cudaStreamEndCapture(s, &graph),
		 cudaErrorStreamCaptureInvalidated);
	CHECK_PTR("graph of an invalidated capture", graph, NULL);
	RT_OK(cudaStreamIsCapturing(s, &st));
	CHECK_INT("status after the end", st, cudaStreamCaptureStatusNone);

	RT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CHECK_RT("cudaStreamSynchronize during capture", cudaStreamSynchronize(s),
		 cudaErrorStreamCaptureUnsupported);
	CHECK_RT("end after synchronize", cudaStreamEndCapture(s, &graph),
		 cudaErrorStreamCaptureInvalidated);

	RT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CHECK_RT("cudaMalloc during global capture", cudaMalloc(&p, 64),
		 cudaErrorStreamCaptureUnsupported);
	CHECK_RT("end after cudaMalloc", cudaStreamEndCapture(s, &graph),
		 cudaErrorStreamCaptureInvalidated);

	/* Relaxed mode lets this thread allocate while capturing. */
	enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
	RT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	RT_OK(cudaThreadExchangeStreamCaptureMode(&mode));
	CHECK_INT("previous capture mode", mode, cudaStreamCaptureModeGlobal);
	RT_OK(cudaMalloc(&p, 64));
	RT_OK(cudaThreadExchangeStreamCaptureMode(&mode));
	RT_OK(cudaStreamEndCapture(s, &graph));
	CHECK(graph != NULL, "no graph after a relaxed allocation");
	RT_OK(cudaGraphDestroy(graph));
	RT_OK(cudaFree(p));

	CHECK_RT("capturing the legacy stream", cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal),
		 cudaErrorStreamCaptureUnsupported);
	CHECK_RT("ending a capture never begun", cudaStreamEndCapture(s, &graph),
		 cudaErrorIllegalState);
	(void)cudaGetLastError();
}

/* cudaMallocAsync / cudaFreeAsync inside a capture: the memory lives for the replays. */
static void check_stream_ordered(cudaStream_t s)
{
	cudaGraphExec_t exec = NULL;
	cudaGraph_t graph = NULL;
	void *tmp = NULL;

	memset(h, 0, sizeof h);
	RT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	RT_OK(cudaMallocAsync(&tmp, N, s));
	RT_OK(cudaMemsetAsync(tmp, 5, N, s));
	RT_OK(cudaMemcpyAsync(h, tmp, N, cudaMemcpyDeviceToHost, s));
	RT_OK(cudaFreeAsync(tmp, s));
	RT_OK(cudaStreamEndCapture(s, &graph));
	RT_OK(cudaGraphInstantiateWithFlags(&exec, graph, 0));
	RT_OK(cudaGraphLaunch(exec, s));
	RT_OK(cudaGraphLaunch(exec, s));
	RT_OK(cudaStreamSynchronize(s));
	CHECK(h[0] == 5 && h[N - 1] == 5, "stream-ordered replay: %d %d", h[0], h[N - 1]);
	RT_OK(cudaGraphExecDestroy(exec));
	RT_OK(cudaGraphDestroy(graph));
}

int main(void)
{
	cudaStream_t s = NULL;

	RT_OK(cudaStreamCreate(&s));
	RT_OK(cudaMalloc((void **)&a, N));
	RT_OK(cudaMalloc((void **)&b, N));
	check_replay(s);
	check_invalidation(s);
	check_stream_ordered(s);
	RT_OK(cudaFree(a));
	RT_OK(cudaFree(b));
	RT_OK(cudaStreamDestroy(s));
	return check_report("rt_graph");
}
