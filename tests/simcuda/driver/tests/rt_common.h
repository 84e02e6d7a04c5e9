/* Shared by the runtime tests: fatal runtime checks, a private call log, and the calls a
 * program built with CUDA_API_PER_THREAD_DEFAULT_STREAM makes (ptds_calls.c, compiled that
 * way, so they reach the _ptsz/_ptds exports the way such programs do). */
#ifndef SIMCUDA_RT_COMMON_H
#define SIMCUDA_RT_COMMON_H

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

#define RT_OK(call)                                                                      \
	do {                                                                             \
		cudaError_t e_ = (call);                                                 \
		if (e_ != cudaSuccess) {                                                 \
			fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call,  \
				cudaGetErrorName(e_));                                   \
			exit(1);                                                         \
		}                                                                        \
	} while (0)
#define CHECK_RT(what, got, want)                                                        \
	do {                                                                             \
		cudaError_t g_ = (got), w_ = (want);                                     \
		CHECK(g_ == w_, "%s: got %s, want %s", what, cudaGetErrorName(g_),       \
		      cudaGetErrorName(w_));                                             \
	} while (0)

/* Points SIMCUDA_LOG at a fresh temporary file (before the first CUDA call) and returns it. */
static inline const char *rt_log_to_temp(void)
{
	static char path[256];
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(path, sizeof path, "%s/simcuda-rt-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		exit(1);
	}
	close(fd);
	setenv("SIMCUDA_LOG", path, 1);
	return path;
}

/* ptds_calls.c: the per-thread-default-stream spellings. */
cudaError_t ptds_memcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind);
cudaError_t ptds_memcpy_async(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
			      cudaStream_t s);
cudaError_t ptds_memset_async(void *p, int v, size_t n, cudaStream_t s);
cudaError_t ptds_stream_get_id(cudaStream_t s, unsigned long long *id);
cudaError_t ptds_stream_synchronize(cudaStream_t s);
cudaError_t ptds_is_capturing(cudaStream_t s, enum cudaStreamCaptureStatus *st);
cudaError_t ptds_begin_capture(cudaStream_t s, enum cudaStreamCaptureMode mode);
cudaError_t ptds_end_capture(cudaStream_t s, cudaGraph_t *g);
cudaError_t ptds_graph_launch(cudaGraphExec_t e, cudaStream_t s);

#endif
