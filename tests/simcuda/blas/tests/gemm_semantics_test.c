/* What a GEMM does beyond the table: fp32 (not wider) accumulation in ascending k order,
 * one round-to-nearest-even to the output type, beta == 0 never reading C, k == 0 and
 * alpha == 0 never reading A/B, m/n == 0 touching nothing, traffic counters, device scalars
 * read when the op runs (graph capture and replay), and out-of-bounds operands failing.
 * Usage: gemm_semantics_test [nocompute]   (nocompute: run with SIMCUDA_COMPUTE=0)
 */
#include "testutil.h"

cublasStatus_t cublasHgemm(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
			   const void *, const void *, int, const void *, int, const void *,
			   void *, int);

static cublasHandle_t H;
static const cublasOperation_t N = CUBLAS_OP_N;

/* 1 x k times k x 1 through cublasGemmEx with compute 32F; returns C's value. */
static double dot(cudaDataType ab, cudaDataType ct, const double *a, int k)
{
	unsigned char ha[64], hb[64], hc[8];
	float alpha = 1, beta = 0;

	for (int i = 0; i < k; i++) {
		put(ha, i, ab, a[i]);
		put(hb, i, ab, 1);
	}
	put(hc, 0, ct, NAN);
	void *dA = dev_upload(ha, k * type_size(ab)), *dB = dev_upload(hb, k * type_size(ab));
	void *dC = dev_upload(hc, type_size(ct));
	CHECK_STATUS(cublasGemmEx(H, N, N, 1, 1, k, &alpha, dA, ab, 1, dB, ab, k, &beta, dC, ct, 1,
				  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
		     CUBLAS_STATUS_SUCCESS);
	return get(dev_host(dC, type_size(ct)), 0, ct);
}

static void accumulation_and_rounding(void)
{
	const double big = 16777216.0; /* 2^24 */
	double a1[] = { big, 1, -big };
	float fa[3] = { (float)big, 1, (float)-big }, ones[3] = { 1, 1, 1 }, c = NAN;
	double da[3] = { big, 1, -big }, dones[3] = { 1, 1, 1 }, dc = NAN;
	float alpha = 1, beta = 0;
	double dalpha = 1, dbeta = 0;

	/* fp32 fused accumulation: 2^24 + 1 rounds back to 2^24, so the sum is 0 (fp64: 1). */
	CHECK_DBL(dot(CUDA_R_32F, CUDA_R_32F, a1, 3), 0);
	void *dA = dev_upload(fa, 12), *dB = dev_upload(ones, 12), *dC = dev_upload(&c, 4);
	CHECK_STATUS(cublasSgemm(H, N, N, 1, 1, 3, &alpha, dA, 1, dB, 3, &beta, dC, 1),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_DBL(*(float *)dev_host(dC, 4), 0);
	dA = dev_upload(da, 24), dB = dev_upload(dones, 24), dC = dev_upload(&dc, 8);
	CHECK_STATUS(cublasDgemm(H, N, N, 1, 1, 3, &dalpha, dA, 1, dB, 3, &dbeta, dC, 1),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_DBL(*(double *)dev_host(dC, 8), 1);

	/* bf16 inputs accumulate in fp32: 1 + 3*2^-9 rounds to 1 + 2^-7 at the end (a bf16
	 * accumulator would stay at 1). */
	double a2[] = { 1, ldexp(1, -9), ldexp(1, -9), ldexp(1, -9) };
	CHECK_DBL(dot(CUDA_R_16BF, CUDA_R_16BF, a2, 4), 1 + ldexp(1, -7));
	CHECK_DBL(dot(CUDA_R_16BF, CUDA_R_32F, a2, 4), 1 + 3 * ldexp(1, -9));

	/* One rounding, to nearest even: exact ties go to the even neighbour. */
	double t1[] = { 1, ldexp(1, -8) }, t2[] = { 1 + ldexp(1, -7), ldexp(1, -8) };
	CHECK_DBL(dot(CUDA_R_16BF, CUDA_R_16BF, t1, 2), 1);
	CHECK_DBL(dot(CUDA_R_16BF, CUDA_R_16BF, t2, 2), 1 + ldexp(1, -6));
	double h1[] = { 2048, 1 }, h2[] = { 2050, 1 };
	CHECK_DBL(dot(CUDA_R_16F, CUDA_R_16F, h1, 2), 2048);
	CHECK_DBL(dot(CUDA_R_16F, CUDA_R_16F, h2, 2), 2052);
	/* Overflow of the output type gives inf; NaN inputs give NaN (bf16 keeps NaN). */
	double o1[] = { 65504, 16 }, n1[] = { 1, NAN };
	CHECK_DBL(dot(CUDA_R_16F, CUDA_R_16F, o1, 2), INFINITY);
	CHECK(isnan(dot(CUDA_R_16BF, CUDA_R_16BF, n1, 2)));

	/* COMPUTE_16F is approximated by an fp32 accumulator rounded once to fp16 (documented
	 * in gemm_exec.c): 2048 + 1 + 1 gives 2050 (an fp16 accumulator would give 2048). */
	unsigned char hh[6], ho[6], hc[2], hal[2], hbe[2];
	for (int i = 0; i < 3; i++) {
		put(hh, i, CUDA_R_16F, i ? 1 : 2048);
		put(ho, i, CUDA_R_16F, 1);
	}
	put(hal, 0, CUDA_R_16F, 1);
	put(hbe, 0, CUDA_R_16F, 0);
	put(hc, 0, CUDA_R_16F, NAN);
	dA = dev_upload(hh, 6), dB = dev_upload(ho, 6), dC = dev_upload(hc, 2);
	CHECK_STATUS(cublasHgemm(H, N, N, 1, 1, 3, hal, dA, 1, dB, 3, hbe, dC, 1),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_DBL(get(dev_host(dC, 2), 0, CUDA_R_16F), 2050);
}

static void untouched_operands(void)
{
	float c[6] = { 1, 2, 3, 4, 5, 6 }, alpha = 2, beta = 0.5f, zero = 0;
	float *dC = dev_upload(c, sizeof(c)), *out;

	/* k == 0: C = beta * C, and A/B (NULL here) are never read. */
	CHECK_STATUS(cublasSgemm(H, N, N, 2, 3, 0, &alpha, NULL, 2, NULL, 1, &beta, dC, 2),
		     CUBLAS_STATUS_SUCCESS);
	out = dev_host(dC, sizeof(c));
	for (int i = 0; i < 6; i++)
		CHECK_DBL(out[i], c[i] * 0.5);
	/* alpha == 0 reads neither A nor B (reference BLAS). */
	CHECK_STATUS(cublasSgemm(H, N, N, 2, 3, 4, &zero, NULL, 2, NULL, 4, &beta, dC, 2),
		     CUBLAS_STATUS_SUCCESS);
	for (int i = 0; i < 6; i++)
		CHECK_DBL(out[i], c[i] * 0.25);
	/* m == 0 or n == 0: success, nothing touched (C is NULL). */
	CHECK_STATUS(cublasSgemm(H, N, N, 0, 3, 4, &alpha, NULL, 1, NULL, 4, &beta, NULL, 1),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasSgemm(H, N, N, 2, 0, 4, &alpha, NULL, 2, NULL, 4, &beta, NULL, 2),
		     CUBLAS_STATUS_SUCCESS);
	/* op C is op T for real types. */
	float a[4] = { 1, 2, 3, 4 }, b[2] = { 1, 1 }, z = 0, one = 1;
	float *dA = dev_upload(a, 16), *dB = dev_upload(b, 8);
	CHECK_STATUS(cublasSgemm(H, CUBLAS_OP_C, N, 2, 1, 2, &one, dA, 2, dB, 2, &z, dC, 2),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_DBL(out[0], 3);
	CHECK_DBL(out[1], 7);
}

static void traffic(int compute)
{
	float a[4 * 5], b[5 * 4], c[3 * 4], alpha = 1, beta = 1, zero = 0;
	sim_stats s0, s1;

	for (int i = 0; i < 20; i++)
		a[i] = b[i] = 1;
	for (int i = 0; i < 12; i++)
		c[i] = 7;
	float *dA = dev_upload(a, sizeof(a)), *dB = dev_upload(b, sizeof(b));
	float *dC = dev_upload(c, sizeof(c));
	/* m=3 n=4 k=5, lda=4: A spans (4*4+3)*4 = 76 bytes, B (3*5+5)*4 = 80, C 48. */
	sim_stats_get(&s0);
	CHECK_STATUS(cublasSgemm(H, N, N, 3, 4, 5, &alpha, dA, 4, dB, 5, &beta, dC, 3),
		     CUBLAS_STATUS_SUCCESS);
	sim_stats_get(&s1);
	CHECK_INT(s1.gemms - s0.gemms, 1);
	CHECK_INT(s1.bytes_read - s0.bytes_read, 76 + 80 + 48);
	CHECK_INT(s1.bytes_written - s0.bytes_written, 48);
	/* Device memory sees the same bytes: a GEMM computed here moves its operands once. */
	CHECK_INT(s1.dram_read - s0.dram_read, 76 + 80 + 48);
	CHECK_INT(s1.dram_written - s0.dram_written, 48);
	CHECK_INT(s1.warp_instructions - s0.warp_instructions, 0);
	CHECK_INT(s1.mma_instructions - s0.mma_instructions, 0);
	CHECK_DBL(((float *)dev_host(dC, 48))[0], compute ? 12 : 7);
	/* beta == 0: C is not read. */
	sim_stats_get(&s0);
	CHECK_STATUS(cublasSgemm(H, N, N, 3, 4, 5, &alpha, dA, 4, dB, 5, &zero, dC, 3),
		     CUBLAS_STATUS_SUCCESS);
	sim_stats_get(&s1);
	CHECK_INT(s1.bytes_read - s0.bytes_read, 76 + 80);
	CHECK_INT(s1.dram_read - s0.dram_read, 76 + 80);
	CHECK_DBL(((float *)dev_host(dC, 48))[0], compute ? 5 : 7);
}

/* Device scalars and pointer arrays are read when the op runs: a captured GEMM replays
 * with the values current at launch. */
static void capture_replay(void)
{
	sim_stream *s;
	sim_graph *g;
	sim_graph_exec *e;
	float a[2] = { 1, 2 }, b[1] = { 3 }, c[2] = { 0, 0 }, alpha = 1, beta = 0;
	float *dA = dev_upload(a, 8), *dB = dev_upload(b, 4), *dC = dev_upload(c, 8);
	float *dC2 = dev_upload(c, 8), *dal = dev_upload(&alpha, 4), *dbe = dev_upload(&beta, 4);
	void *ptrs[3] = { dA, dB, dC };
	void **arr = dev_upload(ptrs, sizeof(ptrs));
	float *out = dev_host(dC, 8), *out2 = dev_host(dC2, 8);

	CHECK_INT(sim_stream_create(sim_current_device(), 0, 0, &s), SIM_OK);
	CHECK_STATUS(cublasSetStream(H, (cudaStream_t)s), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasSetPointerMode(H, CUBLAS_POINTER_MODE_DEVICE), CUBLAS_STATUS_SUCCESS);
	CHECK_INT(sim_capture_begin(s, 0), SIM_OK);
	/* One GEMM through the cuBLASLt path, one through the pointer-array path. */
	CHECK_STATUS(cublasGemmEx(H, N, N, 2, 1, 1, dal, dA, CUDA_R_32F, 2, dB, CUDA_R_32F, 1, dbe,
				  dC, CUDA_R_32F, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasGemmBatchedEx(H, N, N, 2, 1, 1, dal, (const void *const *)&arr[0],
					 CUDA_R_32F, 2, (const void *const *)&arr[1], CUDA_R_32F, 1,
					 dbe, (void *const *)&arr[2], CUDA_R_32F, 2, 1,
					 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_INT(sim_capture_end(s, &g), SIM_OK);
	CHECK_INT(sim_graph_node_count(g), 2);
	CHECK_DBL(out[1], 0); /* captured, not run */
	CHECK_INT(sim_graph_instantiate(g, &e), SIM_OK);
	*(float *)dev_host(dal, 4) = 2;
	CHECK_INT(sim_graph_launch(e, s), SIM_OK);
	CHECK_DBL(out[1], 12);
	*(float *)dev_host(dal, 4) = 3;
	((void **)dev_host(arr, sizeof(ptrs)))[2] = dC2;
	CHECK_INT(sim_graph_launch(e, s), SIM_OK);
	CHECK_DBL(out[1], 18);
	CHECK_DBL(out2[0], 9);
	CHECK_DBL(out2[1], 18);
	sim_graph_exec_destroy(e);
	sim_graph_destroy(g);
	CHECK_STATUS(cublasSetPointerMode(H, CUBLAS_POINTER_MODE_HOST), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasSetStream(H, NULL), CUBLAS_STATUS_SUCCESS);
}

/* Out-of-bounds operands: reported, the op fails, cuBLAS says EXECUTION_FAILED.  Last:
 * faults poison the context, as on a GPU. */
static void out_of_bounds(void)
{
	float a[6] = { 0 }, alpha = 1, beta = 0;
	float *dA = dev_upload(a, sizeof(a)), *dC = dev_upload(a, sizeof(a));
	float *dal = dev_alloc(4);

	/* A is 2 x 3 with lda 4: needs (2*4+2)*4 = 40 bytes of a 24-byte block. */
	CHECK_STATUS(cublasSgemm(H, N, N, 2, 1, 3, &alpha, dA, 4, dA, 3, &beta, dC, 2),
		     CUBLAS_STATUS_EXECUTION_FAILED);
	CHECK_STATUS(cublasGemmEx(H, N, N, 2, 1, 3, &alpha, dA, CUDA_R_32F, 4, dA, CUDA_R_32F, 3,
				  &beta, dC, CUDA_R_32F, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
		     CUBLAS_STATUS_EXECUTION_FAILED);
	/* Device alpha that is not device memory. */
	CHECK_STATUS(cublasSetPointerMode(H, CUBLAS_POINTER_MODE_DEVICE), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasSgemm(H, N, N, 2, 1, 3, dal + 1, dA, 2, dA, 3, dal, dC, 2),
		     CUBLAS_STATUS_EXECUTION_FAILED);
	CHECK_STATUS(cublasSetPointerMode(H, CUBLAS_POINTER_MODE_HOST), CUBLAS_STATUS_SUCCESS);
}

int main(int argc, char **argv)
{
	int compute = !(argc > 1 && !strcmp(argv[1], "nocompute"));

	CHECK_INT(sim_compute_enabled(), compute);
	CHECK_STATUS(cublasCreate(&H), CUBLAS_STATUS_SUCCESS);
	if (compute) {
		accumulation_and_rounding();
		untouched_operands();
		capture_replay();
	}
	traffic(compute);
	out_of_bounds();
	CHECK_STATUS(cublasDestroy(H), CUBLAS_STATUS_SUCCESS);
	return test_done(compute ? "gemm_semantics_test" : "gemm_semantics_test nocompute");
}
