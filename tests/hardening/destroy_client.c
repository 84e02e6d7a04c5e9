/* Handles destroyed while GEMMs run on them.  The shim remembers each handle's device on
 * its first GEMM and forgets it in cublasDestroy; a lookup by one thread must never race
 * with a forget (or a re-use of the slot) by another.  THREADS threads run bf16 GEMMs on
 * shared handles, two devices' worth, checking every result against fp64, while one more
 * thread destroys those handles over and over.  The test runs with cuBLAS refusing every
 * destroy (SIMCUDA_FAIL='cublasDestroy_v2=...'): the shim forgets the handle all the same,
 * and the GEMMs that follow stay valid calls, so the only thing left to race is the shim's.
 *
 *   destroy_client [THREADS [ITERS]]      defaults 4 and 200; exit 0 iff every GEMM was
 *                                         right and every destroy reached cuBLAS */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "hard.h"

#define MAX_THREADS 16
#define HANDLES 4      /* per device */

static cublasHandle_t handles[2][HANDLES];
static int ndev = 1;
static atomic_int running;
static pthread_barrier_t start;

struct worker {
	int id, device, iters;
	long wrong, failed;
};

static void *gemms(void *arg)
{
	struct worker *w = arg;
	struct gm g;
	char name[64];

	cudaSetDevice(w->device);
	/* 20x18x16 bf16: the fp32 path on sm_61, the fp16 path on sm_75. */
	if (!gm_make(&g, 20, 18, 16, CUBLAS_OP_N, w->id & 1 ? CUBLAS_OP_T : CUBLAS_OP_N,
		     CUDA_R_16BF, CUDA_R_16BF, 7u * (unsigned)w->id + 1)) {
		fprintf(stderr, "thread %d: no device memory\n", w->id);
		w->failed = 1;
		atomic_fetch_sub(&running, 1);
		pthread_barrier_wait(&start);
		return NULL;
	}
	pthread_barrier_wait(&start);
	for (int it = 0; it < w->iters; it++) {
		cublasStatus_t st = gm_run(&g, handles[w->device][(it + w->id) % HANDLES]);
		if (st != CUBLAS_STATUS_SUCCESS) {
			if (w->failed++ < 3)
				fprintf(stderr, "thread %d GEMM %d: status %d\n", w->id, it, (int)st);
			continue;
		}
		cudaDeviceSynchronize();
		snprintf(name, sizeof name, "thread %d GEMM %d", w->id, it);
		w->wrong += gm_check(&g, name) != 0;
	}
	gm_free(&g);
	atomic_fetch_sub(&running, 1);
	return NULL;
}

/* Destroys every handle in turn while the GEMM threads run; counts the destroys that
 * reached cuBLAS (refused there, as the test asks) and those that did not. */
static void *destroyer(void *arg)
{
	long *counts = arg;

	pthread_barrier_wait(&start);
	while (atomic_load(&running) > 0) {
		for (int d = 0; d < ndev; d++)
			for (int i = 0; i < HANDLES; i++) {
				cublasStatus_t st = cublasDestroy(handles[d][i]);
				counts[st == CUBLAS_STATUS_INTERNAL_ERROR ? 0 : 1]++;
			}
		sched_yield();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4, iters = argc > 2 ? atoi(argv[2]) : 200;
	struct worker w[MAX_THREADS];
	pthread_t tid[MAX_THREADS], killer;
	long counts[2] = {0, 0}, wrong = 0, failed = 0;

	if (threads < 1 || threads > MAX_THREADS || iters < 1)
		return 2;
	if (cudaGetDeviceCount(&ndev) || ndev < 1)
		return 2;
	ndev = ndev < 2 ? 1 : 2;
	for (int d = 0; d < ndev; d++) {
		cudaSetDevice(d);
		for (int i = 0; i < HANDLES; i++)
			if (cublasCreate(&handles[d][i]))
				return 2;
	}
	atomic_store(&running, threads);
	pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
	pthread_create(&killer, NULL, destroyer, counts);
	for (int t = 0; t < threads; t++) {
		w[t] = (struct worker){.id = t, .device = t % ndev, .iters = iters};
		pthread_create(&tid[t], NULL, gemms, &w[t]);
	}
	for (int t = 0; t < threads; t++) {
		pthread_join(tid[t], NULL);
		wrong += w[t].wrong, failed += w[t].failed;
	}
	pthread_join(killer, NULL);
	printf("%d threads on %d device(s), %d GEMMs each: %ld wrong, %ld failed; %ld destroys "
	       "during them (%ld not refused as the test asks)\n", threads, ndev, iters, wrong,
	       failed, counts[0] + counts[1], counts[1]);
	return wrong || failed || counts[1] || counts[0] < 1 ? 1 : 0;
}
