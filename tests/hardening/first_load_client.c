/* The shim's own kernels are loaded (compiled by the driver) once per context at the first
 * rewritten GEMM there, and no thread waits for another's compile.  Judged from the
 * simulator's call log, which the client writes to a file of its own:
 *
 *   first_load_client race     SIMCUDA_ARCH=sm_61,sm_61 and SIMCUDA_FAIL=
 *        'cuModuleLoadData#1:depth=0=wait:MS': thread A's GEMM on device 0 starts the first
 *        load, which waits; while it does (the log's note says so), thread B runs a GEMM on
 *        device 1 and thread C one on device 0.  Both must be done before A's load returns
 *        (a lock held across the load would hold them), and A's modules, loaded for a
 *        context that has C's by then, must be given back: the modules still loaded at the
 *        end are one set per context.
 *   first_load_client failed   SIMCUDA_FAIL='cuModuleLoadData:depth=0=...' (every load of
 *        the shim refused) with BF16SHIM_MODE=force on sm_80: one GEMM, then 4 threads of
 *        GEMMs; the shim tries to load once, and every GEMM is right all the same (the call
 *        as it came).
 * Exit 0 iff every GEMM was right and the property held. */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>

#include "hard.h"

#define MODULES_PER_CONTEXT 2   /* the kernels and the constants (sm_61: no tensor cores) */

static char log_path[] = "/tmp/bf16shim-first-load-XXXXXX";

struct worker {
	int device, seed;
	cublasHandle_t handle;
	pid_t tid;
	int wrong;
};

static void *gemm_thread(void *arg)
{
	struct worker *w = arg;
	struct gm g;

	w->tid = gettid();
	cudaSetDevice(w->device);
	if (!gm_make(&g, 20, 18, 16, CUBLAS_OP_T, CUBLAS_OP_N, CUDA_R_16BF, CUDA_R_16BF,
		     (uint32_t)w->seed)) {
		w->wrong = 1;
		return NULL;
	}
	w->wrong = gm_run(&g, w->handle) != CUBLAS_STATUS_SUCCESS || cudaDeviceSynchronize() ||
		   gm_check(&g, "gemm");
	gm_free(&g);
	return NULL;
}

static char *read_log(void)
{
	FILE *f = fopen(log_path, "r");
	char *text = NULL;
	size_t cap = 0;

	if (f) {
		if (getdelim(&text, &cap, '\0', f) < 0) {
			free(text);
			text = NULL;
		}
		fclose(f);
	}
	return text;
}

/* From the log: the depth-0 calls (the program's and the shim's) of api, all of them or (ok)
 * those that worked; the sequence number of the first one whose line holds with, and of
 * the last call of thread tid (api NULL: any call). */
struct log_count {
	int calls;
	unsigned long seq_with, last_of_tid;
};

static struct log_count count_calls(const char *text, const char *api, int ok,
				    const char *with, pid_t tid)
{
	struct log_count c = {0, 0, 0};
	char *copy = strdup(text ? text : ""), *save = NULL;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long seq;
		int t, depth, at = 0;
		char name[64];
		if (sscanf(line, "%lu %d %d %63s %n", &seq, &t, &depth, name, &at) != 4 ||
		    depth != 0 || (api && strcmp(name, api) != 0) ||
		    (ok && !strstr(line, "-> CUDA_SUCCESS") &&
		     !strstr(line, "-> CUBLAS_STATUS_SUCCESS")))
			continue;
		c.calls++;
		if (with && strstr(line + at, with) && !c.seq_with)
			c.seq_with = seq;
		if (tid && t == tid && seq > c.last_of_tid)
			c.last_of_tid = seq;
	}
	free(copy);
	return c;
}

static int race(void)
{
	struct worker a = {0, 1, NULL, 0, 0}, b = {1, 2, NULL, 0, 0}, c = {0, 3, NULL, 0, 0};
	struct worker *all[] = {&a, &b, &c};
	pthread_t ta, tb, tc;
	char *text = NULL;
	int bad = 0, n;

	for (int i = 0; i < 3; i++) {
		cudaSetDevice(all[i]->device);
		if (cublasCreate(&all[i]->handle))
			return 2;
	}
	pthread_create(&ta, NULL, gemm_thread, &a);
	for (n = 0; n < 3000; n++) {  /* 30 s at most */
		free(text);
		text = read_log();
		if (text && strstr(text, "# cuModuleLoadData waits"))
			break;
		usleep(10000);
	}
	if (n == 3000) {
		fprintf(stderr, "the first load never waited: is SIMCUDA_FAIL set as the test says?\n");
		return 2;
	}
	pthread_create(&tb, NULL, gemm_thread, &b);
	pthread_create(&tc, NULL, gemm_thread, &c);
	pthread_join(tb, NULL);
	pthread_join(tc, NULL);
	pthread_join(ta, NULL);
	free(text);
	text = read_log();
	{
		struct log_count loads = count_calls(text, "cuModuleLoadData", 1, "waited_ms=", 0);
		struct log_count unloads = count_calls(text, "cuModuleUnload", 1, NULL, 0);
		unsigned long b_done = count_calls(text, NULL, 0, NULL, b.tid).last_of_tid;
		unsigned long c_done = count_calls(text, NULL, 0, NULL, c.tid).last_of_tid;
		int live = loads.calls - unloads.calls;

		/* A thread's last call is its check's copy of C, after its GEMM. */
		printf("the first load (device 0) returned at call %lu; the threads on device 1 "
		       "and device 0 made their last calls at %lu and %lu; %d modules loaded, "
		       "%d unloaded\n", loads.seq_with, b_done, c_done, loads.calls,
		       unloads.calls);
		if (!loads.seq_with || !b_done || b_done > loads.seq_with)
			bad += fprintf(stderr, "device 1's GEMM waited for device 0's load\n") > 0;
		if (!c_done || c_done > loads.seq_with)
			bad += fprintf(stderr, "device 0's second thread waited for the first's "
				       "load\n") > 0;
		if (unloads.calls < 1 || live != 2 * MODULES_PER_CONTEXT)
			bad += fprintf(stderr, "%d modules still loaded, want %d (one set per "
				       "context; the load that came back second given back)\n",
				       live, 2 * MODULES_PER_CONTEXT) > 0;
	}
	free(text);
	for (int i = 0; i < 3; i++)
		bad += all[i]->wrong;
	return bad ? 1 : 0;
}

static int failed(void)
{
	struct worker first = {0, 1, NULL, 0, 0}, w[4];
	pthread_t t[4];
	struct log_count loads;
	char *text;
	int bad;

	if (cublasCreate(&first.handle))
		return 2;
	gemm_thread(&first);
	bad = first.wrong;
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){0, 10 + i, first.handle, 0, 0};
		pthread_create(&t[i], NULL, gemm_thread, &w[i]);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		bad += w[i].wrong;
	}
	text = read_log();
	loads = count_calls(text, "cuModuleLoadData", 0, NULL, 0);
	free(text);
	printf("5 GEMMs in one context whose kernels cannot be loaded: %d loads tried\n",
	       loads.calls);
	if (loads.calls != 1)
		bad += fprintf(stderr, "the failed load was tried %d times, want once\n",
			       loads.calls) > 0;
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	int fd = mkstemp(log_path), rc;

	if (argc != 2 || fd < 0)
		return 2;
	close(fd);
	/* Before any CUDA call: the simulator opens its log at the first. */
	setenv("SIMCUDA_LOG", log_path, 1);
	rc = strcmp(argv[1], "race") == 0 ? race() : strcmp(argv[1], "failed") == 0 ? failed() : 2;
	unlink(log_path);
	return rc;
}
