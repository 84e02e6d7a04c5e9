/* Out-of-bounds accesses: copies and GEMMs that run past an allocation must fail, and the
 * report on stderr and in the call log must name the address and the allocation (the
 * simulator's stand-in for compute-sanitizer).  Fails when any of that breaks. */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "samples.h"

static char *log_path_text(const char *path)
{
	char *t = read_text(path);
	return t ? t : strdup("");
}

/* The report on stderr and the note in the log both contain every needle. */
static void expect_report(const char *what, const char *err, const char *log, const char *n1,
			  const char *n2)
{
	EXPECT(strstr(err, n1) && strstr(err, n2), "%s: stderr lacks '%s' / '%s':\n%s", what, n1,
	       n2, err);
	/* Notes are "# ..." lines; look for one holding both. */
	int found = 0;
	for (const char *l = log; l && *l && !found;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		char *line = strndup(l, len);
		found = line[0] == '#' && strstr(line, n1) && strstr(line, n2);
		free(line);
		l = e ? e + 1 : NULL;
	}
	EXPECT(found, "%s: no '# ...' note with '%s' and '%s' in the call log", what, n1, n2);
}

static void hex(char *buf, size_t cap, const void *p)
{
	snprintf(buf, cap, "0x%llx", (unsigned long long)(uintptr_t)p);
}

static void copies(const char *log_path)
{
	unsigned char host[2048], back[2048];
	char at[40], base[40], block[96];
	void *d = NULL, *e = NULL;
	cudaError_t err;
	char *text, *log;

	for (size_t i = 0; i < sizeof host; i++)
		host[i] = (unsigned char)(i * 7 + 1);
	CHECK_RT(cudaMalloc(&d, 1000));
	CHECK_RT(cudaMalloc(&e, 64));   /* a neighbour, so "past the end" is not the range end */
	hex(base, sizeof base, d);
	snprintf(block, sizeof block, "1000-byte block at %s", base);

	/* Control: in bounds works and round-trips. */
	EXPECT_RT("in-bounds cudaMemcpy H2D", cudaMemcpy(d, host, 1000, cudaMemcpyHostToDevice),
		  cudaSuccess);
	memset(back, 0, sizeof back);
	EXPECT_RT("in-bounds cudaMemcpy D2H", cudaMemcpy(back, d, 1000, cudaMemcpyDeviceToHost),
		  cudaSuccess);
	EXPECT(memcmp(host, back, 1000) == 0, "round trip changed the bytes");

	/* 1024 bytes into a 1000-byte allocation. */
	stderr_begin();
	err = cudaMemcpy(d, host, 1024, cudaMemcpyHostToDevice);
	text = stderr_end();
	log = log_path_text(log_path);
	printf("cudaMemcpy H2D 1024 bytes into a 1000-byte allocation: %s\n", cudaGetErrorName(err));
	EXPECT(err != cudaSuccess, "H2D overrun returned cudaSuccess");
	expect_report("H2D overrun", text, log, base, block);
	free(text), free(log);
	cudaGetLastError();

	/* A read starting inside, running 512 bytes past the end. */
	hex(at, sizeof at, (char *)d + 512);
	stderr_begin();
	err = cudaMemcpy(back, (char *)d + 512, 1000, cudaMemcpyDeviceToHost);
	text = stderr_end();
	log = log_path_text(log_path);
	printf("cudaMemcpy D2H of 1000 bytes from offset 512: %s\n", cudaGetErrorName(err));
	EXPECT(err != cudaSuccess, "D2H overrun returned cudaSuccess");
	expect_report("D2H overrun", text, log, at, block);
	free(text), free(log);
	cudaGetLastError();

	/* Use after free. */
	hex(at, sizeof at, e);
	CHECK_RT(cudaFree(e));
	stderr_begin();
	err = cudaMemcpy(back, e, 16, cudaMemcpyDeviceToHost);
	text = stderr_end();
	log = log_path_text(log_path);
	printf("cudaMemcpy D2H from a freed allocation: %s\n", cudaGetErrorName(err));
	EXPECT(err != cudaSuccess, "read of freed memory returned cudaSuccess");
	expect_report("use after free", text, log, at, "freed");
	free(text), free(log);
	cudaGetLastError();

	CHECK_RT(cudaFree(d));
}

/* GEMMs whose dimensions or leading dimension run past an operand fail with
 * EXECUTION_FAILED, as the real cuBLAS does when its kernel faults, and leave the report. */
static void gemms(const char *log_path)
{
	const int m = 16, n = 8, k = 12;
	const float alpha = 1, beta = 0;
	char base[40], block[64];
	void *A, *B, *C;
	cublasHandle_t h;
	cublasStatus_t st;
	char *text, *log;

	CHECK_RT(cudaMalloc(&A, (size_t)m * k * 4));
	CHECK_RT(cudaMalloc(&B, (size_t)(k + 4) * n * 4));
	CHECK_RT(cudaMalloc(&C, (size_t)m * n * 4));
	CHECK_RT(cudaMemset(A, 0, (size_t)m * k * 4));
	CHECK_RT(cudaMemset(B, 0, (size_t)(k + 4) * n * 4));
	CHECK_BLAS(cublasCreate(&h));

	/* Control: the same shapes in bounds. */
	st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, CUDA_R_32F, m, B,
			  CUDA_R_32F, k, &beta, C, CUDA_R_32F, m, CUBLAS_COMPUTE_32F,
			  CUBLAS_GEMM_DEFAULT);
	EXPECT_BLAS("in-bounds GemmEx", st, CUBLAS_STATUS_SUCCESS);

	/* ldc = m + 8: the last columns of C lie past its allocation. */
	hex(base, sizeof base, C);
	snprintf(block, sizeof block, "%d-byte block at %s", m * n * 4, base);
	stderr_begin();
	st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, CUDA_R_32F, m, B,
			  CUDA_R_32F, k, &beta, C, CUDA_R_32F, m + 8, CUBLAS_COMPUTE_32F,
			  CUBLAS_GEMM_DEFAULT);
	text = stderr_end();
	log = log_path_text(log_path);
	printf("cublasGemmEx with ldc past C: %s\n", blas_status_name(st));
	EXPECT_BLAS("GemmEx ldc overrun", st, CUBLAS_STATUS_EXECUTION_FAILED);
	expect_report("GemmEx ldc overrun", text, log, block, "cublas");
	free(text), free(log);

	/* k + 4: reads of A run past it. */
	hex(base, sizeof base, A);
	snprintf(block, sizeof block, "%d-byte block at %s", m * k * 4, base);
	stderr_begin();
	st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k + 4, &alpha, A, CUDA_R_32F, m, B,
			  CUDA_R_32F, k + 4, &beta, C, CUDA_R_32F, m, CUBLAS_COMPUTE_32F,
			  CUBLAS_GEMM_DEFAULT);
	text = stderr_end();
	log = log_path_text(log_path);
	printf("cublasGemmEx with k past A: %s\n", blas_status_name(st));
	EXPECT_BLAS("GemmEx k overrun", st, CUBLAS_STATUS_EXECUTION_FAILED);
	expect_report("GemmEx k overrun", text, log, block, "cublas");
	free(text), free(log);

	/* Like an illegal address on a GPU, the fault may stay sticky until the reset. */
	printf("after the faulting GEMMs: cudaDeviceSynchronize -> %s\n",
	       cudaGetErrorName(cudaDeviceSynchronize()));
	cublasDestroy(h);
	CHECK_RT(cudaDeviceReset());
	CHECK_RT(cudaMalloc(&A, 64));
	CHECK_RT(cudaFree(A));
}

int main(void)
{
	const char *log_path = log_to_temp();

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("call log: %s\n", log_path);
	copies(log_path);
	gemms(log_path);
	unlink(log_path);
	printf("oob: %d failed expectations\n", sample_failures);
	return sample_failures ? 1 : 0;
}
