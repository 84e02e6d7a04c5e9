/* Compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM (nvcc --default-stream per-thread): the
 * runtime header maps these calls to the _ptsz/_ptds exports, as in such a program. */
#include "rt_common.h"

cudaError_t ptds_memcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
	return cudaMemcpy(dst, src, n, kind);
}

cudaError_t ptds_memcpy_async(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
			      cudaStream_t s)
{
	return cudaMemcpyAsync(dst, src, n, kind, s);
}

cudaError_t ptds_memset_async(void *p, int v, size_t n, cudaStream_t s)
{
	return cudaMemsetAsync(p, v, n, s);
}

cudaError_t ptds_stream_get_id(cudaStream_t s, unsigned long long *id)
{
	return cudaStreamGetId(s, id);
}

cudaError_t ptds_stream_synchronize(cudaStream_t s)
{
	return cudaStreamSynchronize(s);
}

cudaError_t ptds_is_capturing(cudaStream_t s, enum cudaStreamCaptureStatus *st)
{
	return cudaStreamIsCapturing(s, st);
}

cudaError_t ptds_begin_capture(cudaStream_t s, enum cudaStreamCaptureMode mode)
{
	return cudaStreamBeginCapture(s, mode);
}

cudaError_t ptds_end_capture(cudaStream_t s, cudaGraph_t *g)
{
	return cudaStreamEndCapture(s, g);
}

cudaError_t ptds_graph_launch(cudaGraphExec_t e, cudaStream_t s)
{
	return cudaGraphLaunch(e, s);
}
