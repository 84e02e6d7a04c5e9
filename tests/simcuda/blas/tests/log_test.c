/* The call log and fault injection as seen from cuBLAS: cublasGemmEx reaches cuBLASLt through
 * cublasLtMatmul (logged at depth 1, before the outer line, which ends later); typed and
 * pointer-array GEMMs do not; SIMCUDA_FAIL rules match on the logged keys, e.g. the
 * bitsandbytes-on-2080-Ti refusal of A=16F, C=32F with a tensor-op algo (doc/facts.md).
 *
 * Run with SIMCUDA_LOG=<file> and
 * SIMCUDA_FAIL="cublasGemmEx:atype=R_16F,ctype=R_32F,algo=DEFAULT_TENSOR_OP=NOT_SUPPORTED;
 *               cublasSgemm_v2#2=EXECUTION_FAILED"
 */
#include "testutil.h"

static FILE *log_file;

/* The log lines written since the last call, as "depth api ... -> STATUS" (seq/tid cut). */
static int new_lines(char lines[][1024], int max)
{
	char buf[2048];
	int n = 0;

	while (n < max && fgets(buf, sizeof buf, log_file)) {
		unsigned long seq;
		int tid, off = 0;
		if (buf[0] == '#')
			continue; /* notes */
		if (sscanf(buf, "%lu %d %n", &seq, &tid, &off) < 2 || !off)
			continue;
		snprintf(lines[n], 1024, "%s", buf + off);
		lines[n][strcspn(lines[n], "\n")] = 0;
		n++;
	}
	clearerr(log_file);
	return n;
}

/* The lines since the last check must be exactly the expected ones, each starting with
 * "depth api" and containing every listed fragment. */
static void expect(const char *what, int n_want, const char *const want[][4])
{
	char got[8][1024];
	int n = new_lines(got, 8);

	if (n != n_want) {
		fprintf(stderr, "%s: %d log lines, want %d\n", what, n, n_want);
		for (int i = 0; i < n; i++)
			fprintf(stderr, "  %s\n", got[i]);
		failures++;
		return;
	}
	for (int i = 0; i < n; i++) {
		if (strncmp(got[i], want[i][0], strlen(want[i][0]))) {
			fprintf(stderr, "%s: line %d is '%s', want it to start '%s'\n", what, i,
				got[i], want[i][0]);
			failures++;
		}
		for (int j = 1; j < 4 && want[i][j]; j++) {
			if (!strstr(got[i], want[i][j])) {
				fprintf(stderr, "%s: line %d '%s' lacks '%s'\n", what, i, got[i],
					want[i][j]);
				failures++;
			}
		}
	}
}

int main(void)
{
	const char *path = getenv("SIMCUDA_LOG");
	const cublasOperation_t N = CUBLAS_OP_N;
	cublasHandle_t h;
	float one = 1, zero = 0;

	if (!path || !getenv("SIMCUDA_FAIL")) {
		fprintf(stderr, "log_test needs SIMCUDA_LOG and SIMCUDA_FAIL\n");
		return 2;
	}
	fclose(fopen(path, "w")); /* before the first simulated call opens it for appending */
	log_file = fopen(path, "r");

	CHECK_STATUS(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
	void *d = dev_alloc(4096);
	new_lines((char[8][1024]){ { 0 } }, 8);

	/* PyTorch's bf16 GEMM: legacy compute spelling, tensor-op algo; nested Lt call. */
	CHECK_STATUS(cublasGemmEx(h, N, N, 4, 4, 4, &one, d, CUDA_R_16BF, 4, d, CUDA_R_16BF, 4, &zero,
				  d, CUDA_R_16BF, 4, (cublasComputeType_t)CUDA_R_32F,
				  CUBLAS_GEMM_DEFAULT_TENSOR_OP),
		     CUBLAS_STATUS_SUCCESS);
	expect("bf16 GemmEx", 2,
	       (const char *const[][4]){
		       { "1 cublasLtMatmul ", "atype=R_16BF", "compute=COMPUTE_32F", "-> CUBLAS_STATUS_SUCCESS" },
		       { "0 cublasGemmEx ", "transa=N transb=N m=4 n=4 k=4 atype=R_16BF btype=R_16BF "
					    "ctype=R_16BF compute=R_32F algo=DEFAULT_TENSOR_OP",
			 "lda=4 ldb=4 ldc=4 batch=1 pmode=host", "-> CUBLAS_STATUS_SUCCESS" } });

	CHECK_STATUS(cublasGemmStridedBatchedEx(h, N, N, 2, 2, 2, &one, d, CUDA_R_32F, 2, 4, d,
						CUDA_R_32F, 2, 4, &zero, d, CUDA_R_32F, 2, 4, 2,
						CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
		     CUBLAS_STATUS_SUCCESS);
	expect("strided", 2,
	       (const char *const[][4]){ { "1 cublasLtMatmul ", "batch=2", NULL, NULL },
					 { "0 cublasGemmStridedBatchedEx ", "stridea=4", "batch=2",
					   "compute=COMPUTE_32F" } });

	/* The bitsandbytes case, injected: refused before any nested call. */
	CHECK_STATUS(cublasGemmEx(h, N, N, 4, 4, 4, &one, d, CUDA_R_16F, 4, d, CUDA_R_16F, 4, &zero,
				  d, CUDA_R_32F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP),
		     CUBLAS_STATUS_NOT_SUPPORTED);
	expect("injected refusal", 1,
	       (const char *const[][4]){ { "0 cublasGemmEx ", "atype=R_16F", "ctype=R_32F",
					   "-> CUBLAS_STATUS_NOT_SUPPORTED" } });
	CHECK_STATUS(cublasGemmEx(h, N, N, 4, 4, 4, &one, d, CUDA_R_16F, 4, d, CUDA_R_16F, 4, &zero,
				  d, CUDA_R_32F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasGemmEx(h, N, N, 4, 4, 4, &one, d, CUDA_R_16F, 4, d, CUDA_R_16F, 4, &zero,
				  d, CUDA_R_16F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP),
		     CUBLAS_STATUS_SUCCESS);
	expect("other algo, other C type", 4,
	       (const char *const[][4]){ { "1 cublasLtMatmul ", NULL, NULL, NULL },
					 { "0 cublasGemmEx ", "algo=DEFAULT ", NULL, NULL },
					 { "1 cublasLtMatmul ", NULL, NULL, NULL },
					 { "0 cublasGemmEx ", "ctype=R_16F", NULL, NULL } });

	/* Typed and pointer-array GEMMs run directly; the #2 rule fails only the second. */
	for (int i = 0; i < 3; i++)
		CHECK_STATUS(cublasSgemm(h, N, N, 2, 2, 2, &one, d, 2, d, 2, &zero, d, 2),
			     i == 1 ? CUBLAS_STATUS_EXECUTION_FAILED : CUBLAS_STATUS_SUCCESS);
	expect("Sgemm #2", 3,
	       (const char *const[][4]){ { "0 cublasSgemm_v2 ", "atype=R_32F", "-> CUBLAS_STATUS_SUCCESS", NULL },
					 { "0 cublasSgemm_v2 ", "-> CUBLAS_STATUS_EXECUTION_FAILED", NULL, NULL },
					 { "0 cublasSgemm_v2 ", "-> CUBLAS_STATUS_SUCCESS", NULL, NULL } });
	void **arr = dev_alloc(3 * sizeof(void *));
	void *ptrs[3] = { d, d, d };
	memcpy(dev_host(arr, sizeof(ptrs)), ptrs, sizeof(ptrs));
	CHECK_STATUS(cublasGemmBatchedEx(h, N, N, 2, 2, 2, &one, (const void *const *)arr, CUDA_R_32F,
					 2, (const void *const *)arr, CUDA_R_32F, 2, &zero,
					 (void *const *)arr, CUDA_R_32F, 2, 1, CUBLAS_COMPUTE_32F,
					 CUBLAS_GEMM_DEFAULT),
		     CUBLAS_STATUS_SUCCESS);
	expect("batched", 1, (const char *const[][4]){ { "0 cublasGemmBatchedEx ", NULL, NULL, NULL } });

	/* cuBLASLt called by the application: depth 0. */
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t l;
	cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
	cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 2, 2, 2);
	new_lines((char[8][1024]){ { 0 } }, 8);
	CHECK_STATUS(cublasLtMatmul((cublasLtHandle_t)h, desc, &one, d, l, d, l, &zero, d, l, d, l,
				    NULL, NULL, 0, NULL),
		     CUBLAS_STATUS_SUCCESS);
	expect("Lt direct", 1,
	       (const char *const[][4]){ { "0 cublasLtMatmul ", "epilogue=DEFAULT", "dtype=R_32F", NULL } });
	cublasLtMatrixLayoutDestroy(l);
	cublasLtMatmulDescDestroy(desc);
	CHECK_STATUS(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
	fclose(log_file);
	return test_done("log_test");
}
