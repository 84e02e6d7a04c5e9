/* Process life.  Each mode first uses the shim (a rewritten bf16 GEMM,
 * checked), then:
 *   fork-uses    forks; the child runs more bf16 GEMMs on the parent's handle and checks them
 *   fork-quiet   forks; the child never touches CUDA and exits: it must print nothing
 *   exec PROG..  execs PROG (the shim is preloaded there too)
 *   exit-queued  queues GEMMs on a stream and returns from main without synchronising
 *   reset N      cudaDeviceReset N times, each followed by a new handle and checked GEMMs
 *                (the shim's cached scratch and kernels died with the context)
 *   reset-driver N  the same through cuDevicePrimaryCtxReset, fetched from the runtime's
 *                driver entry-point lookup as CUDA 12+ programs do
 *   streams N    N streams, four alive at a time, a bf16 GEMM on each, each destroyed
 *                without a synchronisation; the shim must give a stream's scratch back
 *                (device memory kept at the end: no more than with the first four)
 *   fork-tally N (BF16SHIM_TALLY=1) fills the tally with 400 groups (GEMMs on no handle,
 *                which cuBLAS refuses at once, each of its own shape), then forks N times
 *                while one thread reads the whole tally over and over and another adds to
 *                it, both under the tally's lock; each child, which uses no CUDA (fork
 *                gives it none), finds the tally empty, makes one such call and finds it
 *                alone there; a child that hangs is killed after 10 s
 * Exit 0 iff the property held. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hard.h"

static int gemm_ok(cublasHandle_t h, int m, int n, int k, uint32_t seed)
{
	struct gm g;
	int ok;
	if (!gm_make(&g, m, n, k, CUBLAS_OP_T, CUBLAS_OP_N, CUDA_R_16BF, CUDA_R_16BF, seed))
		return 0;
	ok = gm_run(&g, h) == CUBLAS_STATUS_SUCCESS && !cudaDeviceSynchronize() &&
	     !gm_check(&g, "gemm");
	gm_free(&g);
	return ok;
}

/* Runs the child, whose stderr goes to a pipe; returns its exit status (-1: a signal) and
 * what it wrote. */
static int in_child(int (*body)(cublasHandle_t), cublasHandle_t h, char *err, size_t cap)
{
	int fd[2], status;
	ssize_t got, len = 0;
	pid_t pid;

	if (pipe(fd))
		return -2;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 2);
		exit(body(h)); /* exit, not _exit: destructors are part of what is tested */
	}
	close(fd[1]);
	while (len < (ssize_t)cap - 1 && (got = read(fd[0], err + len, cap - 1 - (size_t)len)) > 0)
		len += got;
	err[len] = 0;
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int child_gemms(cublasHandle_t h)
{
	for (int i = 0; i < 4; i++)
		if (!gemm_ok(h, 24 + i, i & 1 ? 4 : 20, 16, 500u + (unsigned)i))
			return 1;
	return 0;
}

static int child_quiet(cublasHandle_t h)
{
	(void)h;
	return 0;
}

static atomic_int stop;
static long (*tally)(char *, size_t);

/* A GEMM the shim counts and cuBLAS refuses at once (no handle): no device work. */
static void counted_call(int m)
{
	const float one = 1;
	cublasGemmEx(NULL, CUBLAS_OP_N, CUBLAS_OP_N, m, 8, 8, &one, NULL, CUDA_R_16BF, m, NULL,
		     CUDA_R_16BF, 8, &one, NULL, CUDA_R_16BF, m, CUBLAS_COMPUTE_32F,
		     CUBLAS_GEMM_DEFAULT);
}

static void *read_loop(void *arg)
{
	static char buf[1 << 20];
	(void)arg;
	while (!atomic_load(&stop))
		if (tally(buf, sizeof buf) <= 0)
			return (void *)1;
	return NULL;
}

static void *count_loop(void *arg)
{
	(void)arg;
	for (int i = 0; !atomic_load(&stop); i++)
		counted_call(1 + i % 400);
	return NULL;
}

/* In a child forked while other threads counted: its own calls only, and no hang. */
static int child_tally(void)
{
	char buf[4096];
	long before, after;

	alarm(10);
	before = tally(buf, sizeof buf);
	if (before != 0) {
		fprintf(stderr, "the child's tally before its own calls: %.200s\n", buf);
		return 1;
	}
	counted_call(8);
	after = tally(buf, sizeof buf);
	if (after <= 0 || !strstr(buf, "\"count\":1}") || strchr(buf, '\n') != buf + after - 1) {
		fprintf(stderr, "the child's tally after one call: %s\n", buf);
		return 1;
	}
	return 0;
}

static int fork_tally(int n)
{
	pthread_t t[2];
	void *res;
	int bad = 0;

	tally = (long (*)(char *, size_t))dlsym(RTLD_DEFAULT, "bf16shim_tally");
	if (!tally)
		return 2;
	for (int m = 1; m <= 400; m++)
		counted_call(m);
	pthread_create(&t[0], NULL, read_loop, NULL);
	pthread_create(&t[1], NULL, count_loop, NULL);
	for (int i = 0; i < n && !bad; i++) {
		int status;
		pid_t pid;
		usleep(1000);
		fflush(NULL);
		pid = fork();
		if (pid == 0)
			_exit(child_tally());
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "fork %d: the child %s %d\n", i,
				WIFSIGNALED(status) ? "was killed by signal" : "exited",
				WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			bad = 1;
		}
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], &res);
		bad |= res != NULL;
	}
	printf("%d children forked while the tally was read and added to: %s\n", n,
	       bad ? "one failed" : "each counted its own call only");
	return bad;
}

int main(int argc, char **argv)
{
	cublasHandle_t h;
	cudaStream_t s;
	char err[4096];
	int rc;

	if (argc < 2 || cublasCreate(&h))
		return 2;
	if (!gemm_ok(h, 33, 20, 24, 1) || !gemm_ok(h, 40, 2, 24, 2)) {
		fprintf(stderr, "the GEMMs before the test failed\n");
		return 1;
	}
	if (!strcmp(argv[1], "fork-uses") || !strcmp(argv[1], "fork-quiet")) {
		int quiet = argv[1][5] == 'q';
		rc = in_child(quiet ? child_quiet : child_gemms, h, err, sizeof err);
		if (rc != 0 || (quiet && err[0])) {
			fprintf(stderr, "child exited %d (-1: signal), its stderr: \"%s\"\n", rc, err);
			return 1;
		}
		/* The parent goes on working after the fork. */
		return gemm_ok(h, 20, 30, 12, 3) ? 0 : 1;
	}
	if (!strcmp(argv[1], "exec") && argc > 2) {
		fflush(NULL);
		execv(argv[2], argv + 2);
		perror("execv");
		return 1;
	}
	if (!strcmp(argv[1], "exit-queued")) {
		struct gm g[8];
		if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking))
			return 2;
		cublasSetStream(h, s);
		for (int i = 0; i < 8; i++)
			if (!gm_make(&g[i], 40, i & 1 ? 4 : 36, 32, CUBLAS_OP_N, CUBLAS_OP_N,
				     CUDA_R_16BF, CUDA_R_16BF, 10u + (unsigned)i) ||
			    gm_run(&g[i], h) != CUBLAS_STATUS_SUCCESS)
				return 1;
		return 0; /* no synchronisation, no destroy: the process just ends */
	}
	if (!strcmp(argv[1], "streams") && argc > 2) {
		/* Four streams live at a time (a new one before the oldest goes), so that
		 * handles are not simply reused one after the other. */
		cudaStream_t live[4] = {0};
		size_t free0 = 0, free1, total;
		struct gm g;
		int n = atoi(argv[2]);
		if (!gm_make(&g, 64, 48, 40, CUBLAS_OP_N, CUBLAS_OP_T, CUDA_R_16BF, CUDA_R_16BF, 77))
			return 2;
		for (int i = 0; i < n; i++) {
			cudaStream_t fresh, *slot = &live[i % 4];
			if (cudaStreamCreate(&fresh) || (*slot && cudaStreamDestroy(*slot)))
				return 1;
			*slot = fresh;
			if (cublasSetStream(h, fresh) || gm_run(&g, h) != CUBLAS_STATUS_SUCCESS)
				return 1;
			if (i == 3) { /* four streams' scratch: what is kept at most */
				cudaDeviceSynchronize();
				cudaMemGetInfo(&free0, &total);
			}
		}
		cublasSetStream(h, 0);
		cudaDeviceSynchronize();
		cudaMemGetInfo(&free1, &total);
		if (free1 < free0 || gm_check(&g, "gemm on the last stream")) {
			fprintf(stderr, "%d streams: %zu bytes more device memory kept than with 4\n",
				n, free1 < free0 ? free0 - free1 : 0);
			return 1;
		}
		for (int i = 0; i < 4; i++)
			cudaStreamDestroy(live[i]);
		gm_free(&g);
		return 0;
	}
	if (!strcmp(argv[1], "fork-tally") && argc > 2)
		return fork_tally(atoi(argv[2]));
	if (!strncmp(argv[1], "reset", 5) && argc > 2) {
		int (*primary_reset)(int) = NULL;
		enum cudaDriverEntryPointQueryResult q;
		if (!strcmp(argv[1], "reset-driver") &&
		    (cudaGetDriverEntryPointByVersion("cuDevicePrimaryCtxReset",
						      (void **)&primary_reset, 12000,
						      cudaEnableDefault, &q) ||
		     !primary_reset))
			return 2;
		for (int i = 0, n = atoi(argv[2]); i < n; i++) {
			cublasDestroy(h);
			if ((primary_reset ? primary_reset(0) : (int)cudaDeviceReset()) ||
			    cublasCreate(&h)) {
				fprintf(stderr, "reset %d: the runtime failed\n", i);
				return 1;
			}
			/* Both shapes: the copying paths (scratch) and the decode kernel. */
			if (!gemm_ok(h, 33, 20, 24, 100u + (unsigned)i) ||
			    !gemm_ok(h, 40, 2, 24, 200u + (unsigned)i)) {
				fprintf(stderr, "GEMMs after reset %d failed\n", i);
				return 1;
			}
		}
		return 0;
	}
	return 2;
}
