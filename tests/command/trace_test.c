/* Drives src/base/trace.c directly (linked with log.c and config.c, no CUDA).  trace_check.py runs
 * it in each mode, with BF16SHIM_TRACE set as the mode needs, and checks what it wrote.
 *   threads N      8 threads x N records, then a forked child writes N more from 2 threads;
 *                  record i of thread t has m=t, n=i, k=pid-tag (0 parent, 1 child)
 *   names          one record per named enum value, checked against the vendor headers
 *                  when built with them (HAVE_CUDA_HEADERS), printed as "field value name"
 *                  lines; then a cublasLtMatmul record, whose algo is null
 *   enabled        prints trace_enabled() and writes one record
 *   tally N        (src/base/tally.c, BF16SHIM_TALLY=1) 8 threads x N records as in threads, then
 *                  prints tally_format(): "parent" and its lines; a forked child prints
 *                  its tally before and after writing 3 records ("child-before",
 *                  "child-after"); with the tally off, prints "off" when it returns -1 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bf16shim/bf16shim.h>

#include "tally.h"
#include "trace.h"

static int per_thread;

static struct trace_record sample(void)
{
	return (struct trace_record){
		.api = "cublasGemmEx", .m = 1, .n = 1, .k = 1, .batch = 1,
		.transa = 1, .transb = 0, .atype = 14, .btype = 14, .ctype = 14,
		.compute = 0, .algo = 99, .pointer_mode = 0, .device = 0, .sm = 61,
		.real_sm = 61, .decision = "fp32", .reason = "bf16 GEMMs are not supported below sm_70",
		.status = 0, .first_status = -1,
	};
}

struct writer {
	int thread, tag;
};

static void *write_records(void *arg)
{
	const struct writer *w = arg;
	for (int i = 0; i < per_thread; i++) {
		struct trace_record r = sample();
		r.m = w->thread;
		r.n = i;
		r.k = w->tag;
		/* Every other record is a failure with a refused first attempt; every third one
		 * was planned by the cost model. */
		r.status = i % 2 ? 15 : 0;
		r.first_status = i % 2 ? 15 : -1;
		r.modeled = i % 3 == 0;
		r.modeled_us = 1234.5678;
		r.rejected = "pass";
		r.rejected_us = 2345.0;
		r.splits = i % 5 == 0 ? 4 : 0; /* every fifth ran with k split in 4 */
		r.reason = "a reason with \"quotes\", a \\ and a\ttab";
		trace_write(&r);
	}
	return NULL;
}

static int run_threads(int nthreads, int tag)
{
	pthread_t t[8];
	struct writer w[8];
	for (int i = 0; i < nthreads; i++) {
		w[i] = (struct writer){i, tag};
		if (pthread_create(&t[i], NULL, write_records, &w[i]))
			return 1;
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int mode_threads(void)
{
	pid_t child;
	int status;

	if (run_threads(8, 0))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0)
		_exit(run_threads(2, 1));
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	return 0;
}

#ifdef HAVE_CUDA_HEADERS
#include <cublas_api.h>
#define VALUE(prefix, name) {prefix##name, #name}
#else
#define VALUE(prefix, name) {0, NULL}
#endif

struct named {
	int value;
	const char *name;
};

/* The names a reader of the trace sees, from the vendor's own enumerators. */
static const struct named types[] = {
	VALUE(CUDA_, R_16F), VALUE(CUDA_, R_16BF), VALUE(CUDA_, R_32F), VALUE(CUDA_, R_64F),
	VALUE(CUDA_, R_8I), VALUE(CUDA_, R_8U), VALUE(CUDA_, R_32I), VALUE(CUDA_, R_32U),
	VALUE(CUDA_, C_32F), VALUE(CUDA_, C_16BF), VALUE(CUDA_, R_8F_E4M3),
	VALUE(CUDA_, R_8F_E5M2), VALUE(CUDA_, R_4F_E2M1),
};
static const struct named computes[] = {
	VALUE(CUBLAS_, COMPUTE_16F), VALUE(CUBLAS_, COMPUTE_32F),
	VALUE(CUBLAS_, COMPUTE_32F_PEDANTIC), VALUE(CUBLAS_, COMPUTE_32F_FAST_16F),
	VALUE(CUBLAS_, COMPUTE_32F_FAST_16BF), VALUE(CUBLAS_, COMPUTE_32F_FAST_TF32),
	VALUE(CUBLAS_, COMPUTE_64F), VALUE(CUBLAS_, COMPUTE_32I),
	/* The legacy spelling PyTorch passes (doc/facts.md). */
	VALUE(CUDA_, R_32F), VALUE(CUDA_, R_16F),
};
static const struct named algos[] = {
	VALUE(CUBLAS_GEMM_, DEFAULT), VALUE(CUBLAS_GEMM_, DEFAULT_TENSOR_OP),
	VALUE(CUBLAS_GEMM_, ALGO0), VALUE(CUBLAS_GEMM_, ALGO23),
	VALUE(CUBLAS_GEMM_, ALGO0_TENSOR_OP), VALUE(CUBLAS_GEMM_, ALGO15_TENSOR_OP),
};
static const struct named ops[] = {VALUE(CUBLAS_OP_, N), VALUE(CUBLAS_OP_, T),
				   VALUE(CUBLAS_OP_, C)};
static const struct named statuses[] = {
	VALUE(, CUBLAS_STATUS_SUCCESS), VALUE(, CUBLAS_STATUS_NOT_INITIALIZED),
	VALUE(, CUBLAS_STATUS_ALLOC_FAILED), VALUE(, CUBLAS_STATUS_INVALID_VALUE),
	VALUE(, CUBLAS_STATUS_ARCH_MISMATCH), VALUE(, CUBLAS_STATUS_EXECUTION_FAILED),
	VALUE(, CUBLAS_STATUS_INTERNAL_ERROR), VALUE(, CUBLAS_STATUS_NOT_SUPPORTED),
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* One record per value; prints "field value name" for the checker. */
static int mode_names(void)
{
	struct { const char *field; const struct named *v; size_t n; } sets[] = {
		{"atype", types, COUNT(types)}, {"compute", computes, COUNT(computes)},
		{"algo", algos, COUNT(algos)}, {"transa", ops, COUNT(ops)},
		{"status", statuses, COUNT(statuses)},
	};
	if (!types[0].name) {
		printf("no vendor headers\n");
		return 77;
	}
	for (size_t s = 0; s < COUNT(sets); s++)
		for (size_t i = 0; i < sets[s].n; i++) {
			struct trace_record r = sample();
			int v = sets[s].v[i].value;
			if (!strcmp(sets[s].field, "atype"))
				r.atype = v;
			else if (!strcmp(sets[s].field, "compute"))
				r.compute = v;
			else if (!strcmp(sets[s].field, "algo"))
				r.algo = v;
			else if (!strcmp(sets[s].field, "transa"))
				r.transa = v;
			else
				r.status = v;
			trace_write(&r);
			printf("%s %d %s\n", sets[s].field, v, sets[s].v[i].name);
		}
	/* cuBLASLt's algorithm is opaque: no name, whatever the number. */
	{
		struct trace_record r = sample();
		r.api = "cublasLtMatmul";
		r.algo = -1;
		trace_write(&r);
		printf("lt-algo -1 null\n");
	}
	return 0;
}

static void print_tally(const char *who)
{
	long n = tally_format(NULL, 0);
	char *buf;

	if (n < 0) {
		printf("%s off\n", who);
		return;
	}
	buf = malloc((size_t)n + 1);
	/* A buffer too small gets the start of the text, NUL-terminated, and the full length. */
	if (n > 8 && (tally_format(buf, 8) != n || strlen(buf) != 7))
		printf("%s short-buffer-wrong\n", who);
	if (tally_format(buf, (size_t)n + 1) != n)
		printf("%s length-changed\n", who);
	printf("%s %ld\n%s", who, n, buf);
	free(buf);
}

static int mode_tally(void)
{
	pid_t child;
	int status;

	if (run_threads(8, 0))
		return 1;
	print_tally("parent");
	fflush(stdout);
	child = fork();
	if (child == 0) {
		struct trace_record r = sample();
		print_tally("child-before");
		for (int i = 0; i < 3; i++)
			trace_write(&r);
		print_tally("child-after");
		fflush(stdout);
		_exit(0);
	}
	return waitpid(child, &status, 0) != child || status != 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "threads")) {
		per_thread = atoi(argv[2]);
		return mode_threads();
	}
	if (argc == 3 && !strcmp(argv[1], "tally")) {
		per_thread = atoi(argv[2]);
		return mode_tally();
	}
	if (argc == 2 && !strcmp(argv[1], "names"))
		return mode_names();
	if (argc == 2 && !strcmp(argv[1], "enabled")) {
		struct trace_record r = sample();
		printf("%d\n", trace_enabled());
		trace_write(&r);
		return 0;
	}
	fprintf(stderr, "usage: trace_test threads N | tally N | names | enabled\n");
	return 2;
}
