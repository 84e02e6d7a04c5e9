/* CUDA graphs: captures a memset and a GemmEx (beta = 1, so the GEMM's result is right only
 * if the memset ran first) on a stream, checks that nothing ran during capture and that
 * cudaStreamIsCapturing tells the phases apart, then launches the graph twice with new
 * inputs in between: both launches must give the fp64 reference result. */
#include <string.h>

#include "samples.h"

enum { M = 20, N = 12, K = 16 };

static void expect_capturing(const char *what, cudaStream_t s, enum cudaStreamCaptureStatus want)
{
	enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusInvalidated;
	CHECK_RT(cudaStreamIsCapturing(s, &st));
	printf("cudaStreamIsCapturing %s: %d\n", what, (int)st);
	EXPECT_INT(what, st, want);
}

/* Runs the graph and checks C = A B. */
static void launch_and_check(const char *what, cudaGraphExec_t exec, cudaStream_t s,
			     const double *a, const double *b, dbuf *C)
{
	double ref[M * N] = {0}, mag[M * N], got[M * N];

	CHECK_RT(cudaGraphLaunch(exec, s));
	dbuf_download(C, s);
	CHECK_RT(cudaStreamSynchronize(s));
	dbuf_values(C, got);
	ref_gemm('N', 'N', M, N, K, 1.0, a, M, b, K, 1.0, ref, M, mag);
	int bad = check_gemm(what, CUDA_R_32F, M, N, K, M, got, ref, mag, NULL);
	printf("%s: %s\n", what, bad ? "WRONG" : "ok");
	EXPECT_INT("mismatching elements of C", bad, 0);
}

int main(void)
{
	const float alpha = 1, beta = 1;
	double a[M * K], a2[M * K], b[K * N], sentinel[M * N], got[M * N];
	cudaStream_t s;
	cublasHandle_t h;
	cudaGraph_t graph = NULL;
	cudaGraphExec_t exec = NULL;
	dbuf A, B, C;
	cublasStatus_t st;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fill_random(CUDA_R_32F, a, M * K, 31);
	fill_random(CUDA_R_32F, a2, M * K, 32);
	fill_random(CUDA_R_32F, b, K * N, 33);
	fill_random(CUDA_R_32F, sentinel, M * N, 34);
	CHECK_RT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK_BLAS(cublasCreate(&h));
	CHECK_BLAS(cublasSetStream(h, s));
	dbuf_upload(&A, CUDA_R_32F, a, M * K, s);
	dbuf_upload(&B, CUDA_R_32F, b, K * N, s);
	dbuf_upload(&C, CUDA_R_32F, sentinel, M * N, s);
	CHECK_RT(cudaStreamSynchronize(s));

	expect_capturing("before capture", s, cudaStreamCaptureStatusNone);
	CHECK_RT(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	expect_capturing("during capture", s, cudaStreamCaptureStatusActive);
	CHECK_RT(cudaMemsetAsync(C.dev, 0, M * N * sizeof(float), s));
	st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, A.dev, CUDA_R_32F, M, B.dev,
			  CUDA_R_32F, K, &beta, C.dev, CUDA_R_32F, M, CUBLAS_COMPUTE_32F,
			  CUBLAS_GEMM_DEFAULT);
	EXPECT_BLAS("cublasGemmEx while capturing", st, CUBLAS_STATUS_SUCCESS);
	CHECK_RT(cudaStreamEndCapture(s, &graph));
	expect_capturing("after capture", s, cudaStreamCaptureStatusNone);
	EXPECT(graph != NULL, "cudaStreamEndCapture gave no graph");

	/* Capture records; it must not have run anything. */
	CHECK_RT(cudaMemcpy(C.host, C.dev, M * N * sizeof(float), cudaMemcpyDeviceToHost));
	dbuf_values(&C, got);
	EXPECT(memcmp(got, sentinel, sizeof got) == 0, "C changed during capture");

	CHECK_RT(cudaGraphInstantiate(&exec, graph, 0));
	launch_and_check("first launch", exec, s, a, b, &C);

	/* New A (in place: the graph holds its address) and C back to junk: the second launch
	 * must redo the memset and the GEMM on the current contents. */
	pack(CUDA_R_32F, a2, M * K, A.host);
	CHECK_RT(cudaMemcpy(A.dev, A.host, M * K * sizeof(float), cudaMemcpyHostToDevice));
	pack(CUDA_R_32F, sentinel, M * N, C.host);
	CHECK_RT(cudaMemcpy(C.dev, C.host, M * N * sizeof(float), cudaMemcpyHostToDevice));
	launch_and_check("second launch", exec, s, a2, b, &C);

	CHECK_RT(cudaGraphExecDestroy(exec));
	CHECK_RT(cudaGraphDestroy(graph));
	CHECK_BLAS(cublasDestroy(h));
	CHECK_RT(cudaStreamDestroy(s));
	dbuf_free(&A);
	dbuf_free(&B);
	dbuf_free(&C);
	CHECK_RT(cudaDeviceReset());
	printf("graph_capture: %d failed expectations\n", sample_failures);
	return sample_failures ? 1 : 0;
}
