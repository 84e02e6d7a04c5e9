/* The call log (SIMCUDA_LOG): makes a known sequence of runtime and cuBLAS calls, then reads
 * the log back and checks that the application's calls appear at depth 0, exactly and in
 * order, with their key arguments and statuses; that the calls cuBLAS makes into cuBLASLt
 * appear nested (depth > 0) before the GEMM that made them; and that sequence numbers and
 * thread ids are consistent.  Log line: "<seq> <tid> <depth> <api> k=v ... -> STATUS". */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "samples.h"

struct entry {
	unsigned long seq;
	long tid;
	int depth;
	char api[64];
	char *args;    /* " k=v k=v " with a space at both ends */
	char status[64];
};

/* What the log must hold for one application call: an api, "k=v" tokens ("*=v": any key
 * with that value) and a status. */
struct want {
	const char *api;
	const char *args[20];   /* NULL-terminated */
	const char *status;
};

static int parse_log(char *text, struct entry *out, int cap)
{
	int n = 0;

	for (char *line = strtok(text, "\n"); line && n < cap; line = strtok(NULL, "\n")) {
		struct entry *e = &out[n];
		char *arrow = strstr(line, " -> ");
		int used = 0;

		if (line[0] == '#')
			continue;  /* a note, not a call */
		if (!arrow) {
			fprintf(stderr, "call log: no ' -> STATUS' in '%s'\n", line);
			sample_failures++;
			continue;
		}
		*arrow = '\0'; /* before scanning, so that empty arguments stay empty */
		if (sscanf(line, "%lu %ld %d %63s %n", &e->seq, &e->tid, &e->depth, e->api, &used) != 4) {
			fprintf(stderr, "call log: malformed line '%s -> %s'\n", line, arrow + 4);
			sample_failures++;
			continue;
		}
		snprintf(e->status, sizeof e->status, "%s", arrow + 4);
		if (asprintf(&e->args, " %s ", line + used) < 0)
			abort();
		n++;
	}
	return n;
}

static int has_token(const struct entry *e, const char *tok)
{
	char pat[160];

	if (strncmp(tok, "*=", 2) == 0) {
		snprintf(pat, sizeof pat, "=%s ", tok + 2);
		return strstr(e->args, pat) != NULL;
	}
	snprintf(pat, sizeof pat, " %s ", tok);
	return strstr(e->args, pat) != NULL;
}

static void check_entry(int idx, const struct entry *e, const struct want *w)
{
	EXPECT(strcmp(e->api, w->api) == 0, "application call %d: api %s, want %s", idx, e->api,
	       w->api);
	EXPECT(strcmp(e->status, w->status) == 0, "%s (call %d): status %s, want %s", w->api, idx,
	       e->status, w->status);
	for (int i = 0; w->args[i]; i++)
		EXPECT(has_token(e, w->args[i]), "%s (call %d): no '%s' in '%s'", w->api, idx,
		       w->args[i], e->args);
}

int main(void)
{
	enum { M = 4, N = 3, K = 5 };
	const char *path = log_to_temp();
	const float alpha = 1, beta = 0;
	uint16_t host[64] = {0};
	void *A, *B, *C, *huge = NULL;
	char a_hex[40], b_hex[40], c_hex[40];
	cublasHandle_t h;
	cudaError_t big;
	cublasStatus_t st[3];
	struct entry entries[256];
	char *text;
	int n, app = 0, nested_before_gemm = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	CHECK_RT(cudaMalloc(&A, K * M * 2));
	CHECK_RT(cudaMalloc(&B, K * N * 2));
	CHECK_RT(cudaMalloc(&C, M * N * 4));
	CHECK_RT(cudaMemcpy(A, host, K * M * 2, cudaMemcpyHostToDevice));
	CHECK_RT(cudaMemcpy(B, host, K * N * 2, cudaMemcpyHostToDevice));
	CHECK_BLAS(cublasCreate(&h));
	st[0] = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, A, CUDA_R_16F, K, B,
			     CUDA_R_16F, K, &beta, C, CUDA_R_32F, M, CUBLAS_COMPUTE_32F,
			     CUBLAS_GEMM_DEFAULT);
	/* PyTorch's spelling: legacy compute type, tensor-op algo (doc/facts.md). */
	st[1] = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, 2, &alpha, A, CUDA_R_16BF, M, B,
			     CUDA_R_16BF, 2, &beta, C, CUDA_R_32F, M,
			     (cublasComputeType_t)CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
	st[2] = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, N, K, &alpha, A, CUDA_R_16F, M, B,
			     CUDA_R_16F, K, &beta, C, CUDA_R_32F, M, CUBLAS_COMPUTE_32F,
			     CUBLAS_GEMM_DEFAULT);
	big = cudaMalloc(&huge, (size_t)1 << 40);
	cudaGetLastError();
	CHECK_BLAS(cublasDestroy(h));
	CHECK_RT(cudaFree(A));
	CHECK_RT(cudaFree(B));
	CHECK_RT(cudaFree(C));
	/* No cudaGetErrorName here: it would be one more logged call. */
	printf("GemmEx: %s, %s, %s; cudaMalloc(1 TiB): error %d\n", blas_status_name(st[0]),
	       blas_status_name(st[1]), blas_status_name(st[2]), (int)big);

	snprintf(a_hex, sizeof a_hex, "*=0x%llx", (unsigned long long)(uintptr_t)A);
	snprintf(b_hex, sizeof b_hex, "*=0x%llx", (unsigned long long)(uintptr_t)B);
	snprintf(c_hex, sizeof c_hex, "*=0x%llx", (unsigned long long)(uintptr_t)C);
	const struct want wants[] = {
		{"cudaMalloc", {"*=40"}, "cudaSuccess"},
		{"cudaMalloc", {"*=30"}, "cudaSuccess"},
		{"cudaMalloc", {"*=48"}, "cudaSuccess"},
		{"cudaMemcpy", {"*=40", a_hex}, "cudaSuccess"},
		{"cudaMemcpy", {"*=30", b_hex}, "cudaSuccess"},
		{"cublasCreate_v2", {NULL}, "CUBLAS_STATUS_SUCCESS"},
		{"cublasGemmEx",
		 {"transa=T", "transb=N", "m=4", "n=3", "k=5", "atype=R_16F", "btype=R_16F",
		  "ctype=R_32F", "compute=COMPUTE_32F", "algo=DEFAULT", "lda=5", "ldb=5", "ldc=4",
		  "pmode=host", a_hex, c_hex},
		 "CUBLAS_STATUS_SUCCESS"},
		{"cublasGemmEx",
		 {"transa=N", "transb=N", "k=2", "atype=R_16BF", "ctype=R_32F", "compute=R_32F",
		  "algo=DEFAULT_TENSOR_OP"},
		 "CUBLAS_STATUS_SUCCESS"},
		{"cublasGemmEx", {"m=-1", "n=3"}, "CUBLAS_STATUS_INVALID_VALUE"},
		{"cudaMalloc", {"*=1099511627776"}, "cudaErrorMemoryAllocation"},
		{"cudaGetLastError", {NULL}, "cudaErrorMemoryAllocation"},
		{"cublasDestroy_v2", {NULL}, "CUBLAS_STATUS_SUCCESS"},
		{"cudaFree", {a_hex}, "cudaSuccess"},
		{"cudaFree", {b_hex}, "cudaSuccess"},
		{"cudaFree", {c_hex}, "cudaSuccess"},
	};
	const int nwants = sizeof wants / sizeof wants[0];

	text = read_text(path);
	EXPECT(text != NULL, "cannot read the call log %s", path);
	n = text ? parse_log(text, entries, 256) : 0;
	printf("call log %s: %d calls\n", path, n);
	for (int i = 0; i < n; i++) {
		const struct entry *e = &entries[i];
		printf("  %lu %d %s%s-> %s\n", e->seq, e->depth, e->api, e->args, e->status);
		EXPECT_INT("sequence number", e->seq, entries[0].seq + (unsigned long)i);
		EXPECT_INT("thread id (one thread)", e->tid, entries[0].tid);
		if (e->depth > 0) {
			/* Nested: the enclosing application call is logged after it. */
			nested_before_gemm |= app == 6 && strncmp(e->api, "cublasLt", 8) == 0;
			continue;
		}
		if (app < nwants)
			check_entry(app, e, &wants[app]);
		app++;
	}
	EXPECT_INT("application calls (depth 0) in the log", app, nwants);
	EXPECT(nested_before_gemm, "no nested (depth > 0) cublasLt* call logged inside the first "
	       "cublasGemmEx (libcublas reaches cuBLASLt through exported symbols)");
	if (n > 0)
		EXPECT_INT("first sequence number", entries[0].seq, 1);
	unlink(path);
	printf("call_log: %d failed expectations\n", sample_failures);
	return sample_failures ? 1 : 0;
}
