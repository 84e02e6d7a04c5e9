/* Concurrency: THREADS threads each run ITERS GEMMs, mixed bf16 (rewritten
 * below sm_80: fp32 or fp16 path, decode kernel) and fp32 (passed through), checking every
 * result against fp64.  Handles and streams are spread so that every sharing pattern occurs:
 *   threads 0, 1  own handle, own stream          threads 2, 3  own handles, one shared stream
 *   threads 4, 5  one shared handle on a stream   threads 6, 7  one shared handle, legacy stream
 * With several devices (SIMCUDA_ARCH=sm_75,sm_61) thread t works on device t % count.
 *
 *   stress_client [THREADS [ITERS]]      defaults 8 and 1000; exit 0 iff every GEMM was right */
#include <pthread.h>

#include "hard.h"

#define MAX_THREADS 64
#define SHAPES 4

static const struct {
	int m, n, k;
	cudaDataType ab, c;
} shapes[SHAPES] = {
	{20, 18, 16, CUDA_R_16BF, CUDA_R_16BF},   /* fp32 or fp16 path */
	{24, 3, 16, CUDA_R_16BF, CUDA_R_32F},     /* decode kernel */
	{16, 12, 8, CUDA_R_32F, CUDA_R_32F},      /* passed through */
	{17, 20, 12, CUDA_R_16BF, CUDA_R_32F},    /* fp32 or fp16 path, f32 out */
};

struct worker {
	int id, device, iters;
	cublasHandle_t handle;
	long done, wrong, failed;
};

static int ndev = 1;
static pthread_barrier_t ready, start;

static void *work(void *arg)
{
	struct worker *w = arg;
	struct gm g[SHAPES];
	cudaStream_t s = 0;

	int made = 0;

	/* Every thread's first allocations at once: they are the process's first device
	 * allocations, so whatever the stack reads lazily on that path is read by 8 threads
	 * together (ThreadSanitizer caught a racy cache there only about once in 100 runs
	 * while the threads allocated one after another). */
	cudaSetDevice(w->device);
	pthread_barrier_wait(&ready);
	while (made < SHAPES &&
	       gm_make(&g[made], shapes[made].m, shapes[made].n, shapes[made].k,
		       made & 1 ? CUBLAS_OP_T : CUBLAS_OP_N, w->id & 1 ? CUBLAS_OP_T : CUBLAS_OP_N,
		       shapes[made].ab, shapes[made].c, 1000u * (unsigned)w->id + (unsigned)made))
		made++;
	pthread_barrier_wait(&start);  /* reached even after a failure: no thread waits forever */
	if (made < SHAPES) {
		fprintf(stderr, "thread %d: no device memory\n", w->id);
		w->failed = 1;
		while (made > 0)
			gm_free(&g[--made]);
		return NULL;
	}
	cublasGetStream(w->handle, &s);
	for (int it = 0; it < w->iters; it++) {
		struct gm *x = &g[(it + w->id) % SHAPES];
		char name[64];
		cublasStatus_t st = gm_run(x, w->handle);
		if (st != CUBLAS_STATUS_SUCCESS) {
			if (w->failed++ < 3)
				fprintf(stderr, "thread %d GEMM %d: status %d\n", w->id, it, (int)st);
			continue;
		}
		cudaStreamSynchronize(s);
		snprintf(name, sizeof name, "thread %d GEMM %d (%dx%dx%d)", w->id, it, x->m, x->n,
			 x->k);
		if (gm_check(x, name))
			w->wrong++;
		w->done++;
	}
	for (int i = 0; i < SHAPES; i++)
		gm_free(&g[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 8, iters = argc > 2 ? atoi(argv[2]) : 1000;
	struct worker w[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	cublasHandle_t shared_h[2][8];
	cudaStream_t streams[2][8];
	long done = 0, wrong = 0, failed = 0;

	if (threads < 1 || threads > MAX_THREADS || iters < 1)
		return 2;
	if (cudaGetDeviceCount(&ndev) || ndev < 1)
		return 2;
	/* Per device: handles 0-3 owned, 4 shared by 4-5, 5 shared by 6-7; streams alike. */
	for (int d = 0; d < ndev && d < 2; d++) {
		cudaSetDevice(d);
		for (int i = 0; i < 8; i++) {
			if (cublasCreate(&shared_h[d][i]) || cudaStreamCreate(&streams[d][i]))
				return 2;
		}
	}
	pthread_barrier_init(&ready, NULL, (unsigned)threads);
	pthread_barrier_init(&start, NULL, (unsigned)threads);
	for (int t = 0; t < threads; t++) {
		int d = t % (ndev < 2 ? 1 : 2), slot = t % 8;
		cublasHandle_t h = shared_h[d][slot < 4 ? slot : slot < 6 ? 4 : 5];
		cudaStream_t s = slot < 2 ? streams[d][slot] : slot < 4 ? streams[d][2] :
				 slot < 6 ? streams[d][4] : 0;
		cublasSetStream(h, s);
		w[t] = (struct worker){.id = t, .device = d, .iters = iters, .handle = h};
	}
	for (int t = 0; t < threads; t++)
		pthread_create(&tid[t], NULL, work, &w[t]);
	for (int t = 0; t < threads; t++) {
		pthread_join(tid[t], NULL);
		done += w[t].done, wrong += w[t].wrong, failed += w[t].failed;
	}
	for (int d = 0; d < ndev && d < 2; d++)
		for (int i = 0; i < 8; i++) {
			cublasDestroy(shared_h[d][i]);
			cudaStreamDestroy(streams[d][i]);
		}
	printf("%d threads on %d device(s): %ld GEMMs checked, %ld wrong, %ld failed\n",
	       threads, ndev < 2 ? 1 : 2, done, wrong, failed);
	return wrong || failed || done != (long)threads * iters ? 1 : 0;
}
