/* Streams and events: the legacy and per-thread default streams are distinct (ids, capture
 * state, the implicit-dependency rule), created streams keep their flags, events record,
 * query and time. */
#include <pthread.h>

#include "rt_common.h"

static enum cudaStreamCaptureStatus other_thread_status;

static void *other_thread(void *arg)
{
	(void)arg;
	other_thread_status = (enum cudaStreamCaptureStatus)-1;
	RT_OK(ptds_is_capturing(0, &other_thread_status));
	return NULL;
}

static void check_default_streams(void)
{
	unsigned long long legacy = 0, legacy2 = 0, per_thread = 0, per_thread2 = 0;
	enum cudaStreamCaptureStatus st;
	cudaGraphExec_t exec = NULL;
	cudaGraph_t graph = NULL;
	unsigned char h[64];
	unsigned char *d = NULL;
	pthread_t t;

	RT_OK(cudaStreamGetId(0, &legacy));
	RT_OK(cudaStreamGetId(cudaStreamLegacy, &legacy2));
	RT_OK(ptds_stream_get_id(0, &per_thread));
	RT_OK(cudaStreamGetId(cudaStreamPerThread, &per_thread2));
	CHECK(legacy == legacy2, "NULL %llu vs cudaStreamLegacy %llu", legacy, legacy2);
	CHECK(per_thread == per_thread2, "ptsz NULL %llu vs cudaStreamPerThread %llu", per_thread,
	      per_thread2);
	CHECK(legacy != per_thread, "legacy and per-thread default streams share id %llu", legacy);

	/* Capture the per-thread stream: work sent there with the _ptsz spelling is recorded,
	 * the legacy stream is not capturing but may not be touched (it would depend on it). */
	RT_OK(cudaMalloc((void **)&d, sizeof h));
	RT_OK(cudaMemset(d, 1, sizeof h));
	RT_OK(ptds_begin_capture(0, cudaStreamCaptureModeThreadLocal));
	RT_OK(ptds_is_capturing(0, &st));
	CHECK_INT("per-thread stream capturing", st, cudaStreamCaptureStatusActive);
	CHECK_RT("legacy stream while a blocking stream captures",
		 cudaStreamIsCapturing(cudaStreamLegacy, &st), cudaErrorStreamCaptureImplicit);
	pthread_create(&t, NULL, other_thread, NULL);
	pthread_join(t, NULL);
	CHECK_INT("another thread's per-thread stream", other_thread_status,
		  cudaStreamCaptureStatusNone);
	RT_OK(ptds_memset_async(d, 9, sizeof h, 0));
	RT_OK(ptds_end_capture(0, &graph));
	CHECK(graph != NULL, "no graph from the per-thread stream");
	RT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
	CHECK_INT("captured fill ran early", h[0], 1);
	RT_OK(cudaGraphInstantiate(&exec, graph, 0));
	RT_OK(ptds_graph_launch(exec, 0));
	RT_OK(ptds_stream_synchronize(0));
	RT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
	CHECK_INT("replayed fill", h[63], 9);
	RT_OK(cudaGraphExecDestroy(exec));
	RT_OK(cudaGraphDestroy(graph));
	RT_OK(cudaFree(d));
	(void)cudaGetLastError();
}

static void check_created_streams(void)
{
	cudaStream_t s = NULL, nb = NULL, pr = NULL;
	unsigned long long id1 = 0, id2 = 0;
	unsigned flags = 99;
	int least = 1, greatest = 1;

	RT_OK(cudaStreamCreate(&s));
	RT_OK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
	RT_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
	RT_OK(cudaStreamCreateWithPriority(&pr, cudaStreamDefault, greatest));
	RT_OK(cudaStreamGetFlags(nb, &flags));
	CHECK_INT("non-blocking flags", flags, cudaStreamNonBlocking);
	RT_OK(cudaStreamGetFlags(s, &flags));
	CHECK_INT("default flags", flags, cudaStreamDefault);
	RT_OK(cudaStreamGetId(s, &id1));
	RT_OK(cudaStreamGetId(nb, &id2));
	CHECK(id1 != id2, "two streams share id %llu", id1);
	RT_OK(cudaStreamSynchronize(s));
	RT_OK(cudaStreamQuery(nb));
	RT_OK(cudaStreamDestroy(s));
	RT_OK(cudaStreamDestroy(nb));
	RT_OK(cudaStreamDestroy(pr));
	CHECK_RT("destroying the default stream", cudaStreamDestroy(0),
		 cudaErrorInvalidResourceHandle);
	CHECK_RT("using a destroyed stream", cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
	(void)cudaGetLastError();
}

static void check_events(void)
{
	cudaEvent_t a = NULL, b = NULL, never = NULL, bad = NULL;
	cudaStream_t s = NULL;
	void *d = NULL;
	float ms = -1;

	RT_OK(cudaStreamCreate(&s));
	RT_OK(cudaMalloc(&d, 1 << 16));
	RT_OK(cudaEventCreate(&a));
	RT_OK(cudaEventCreateWithFlags(&b, cudaEventBlockingSync));
	RT_OK(cudaEventCreateWithFlags(&never, cudaEventDisableTiming));
	CHECK_RT("unknown event flag", cudaEventCreateWithFlags(&bad, 0x80), cudaErrorInvalidValue);
	RT_OK(cudaEventRecord(a, s));
	RT_OK(cudaMemsetAsync(d, 0, 1 << 16, s));
	RT_OK(cudaEventRecord(b, s));
	RT_OK(cudaStreamWaitEvent(0, b, 0));
	RT_OK(cudaEventSynchronize(b));
	RT_OK(cudaEventQuery(a));
	RT_OK(cudaEventElapsedTime(&ms, a, b));
	CHECK(ms >= 0 && ms < 10000, "elapsed %f ms", ms);
	CHECK_RT("elapsed with an unrecorded event", cudaEventElapsedTime(&ms, a, never),
		 cudaErrorInvalidResourceHandle);
	RT_OK(cudaEventDestroy(a));
	RT_OK(cudaEventDestroy(b));
	RT_OK(cudaEventDestroy(never));
	RT_OK(cudaFree(d));
	RT_OK(cudaStreamDestroy(s));
	(void)cudaGetLastError();
}

int main(void)
{
	check_default_streams();
	check_created_streams();
	check_events();
	return check_report("rt_streams");
}
