/* cuBLAS helpers, argument validation and the per-architecture table.
 *
 *   api_test SM VERSION   SM: the compute capability SIMCUDA_ARCH selects (e.g. 61);
 *                         VERSION: what cublasGetVersion must say (130002 or 120804)
 *
 * The arch expectations below are the facts the table encodes (doc/facts.md, cuBLAS docs),
 * restated per configuration: bf16 from sm_70, int8 from sm_61, half arithmetic from sm_53,
 * TF32 compute from sm_80, FP8 from sm_89.
 */
#include "cuda12_abi.h"
#include "testutil.h"

#undef cublasGetVersion
cublasStatus_t cublasGetVersion(int *version);
cublasStatus_t cublasHgemm(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
			   const void *, const void *, int, const void *, int, const void *,
			   void *, int);

static cublasHandle_t H;
static const cublasOperation_t N = CUBLAS_OP_N, T = CUBLAS_OP_T;

/* Matmul descriptor attributes one cuBLASLt major has and the other lacks: the atomic-sync
 * ones (12 only, values from cublasLt.h 12.6) and the emulation descriptor (13 only). */
static void lt_version_attributes(int version)
{
	cublasLtMatmulDesc_t d;
	int32_t chunks = 4;
	void *p = NULL;
	cublasStatus_t in12 = version < 130000 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
	cublasStatus_t in13 = version >= 130000 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;

	CHECK_STATUS(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasLtMatmulDescSetAttribute(d, (cublasLtMatmulDescAttributes_t)
		     CUDA12_LT_DESC_ATOMIC_SYNC_NUM_CHUNKS_D_ROWS, &chunks, 4), in12);
	CHECK_STATUS(cublasLtMatmulDescSetAttribute(d, (cublasLtMatmulDescAttributes_t)
		     CUDA12_LT_DESC_ATOMIC_SYNC_OUT_COUNTERS_POINTER, &p, sizeof p), in12);
	CHECK_STATUS(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR,
		     &p, sizeof p), in13);
	CHECK_STATUS(cublasLtMatmulDescDestroy(d), CUBLAS_STATUS_SUCCESS);
}

static void helpers(int version)
{
	cublasHandle_t h;
	cublasPointerMode_t pm;
	cublasMath_t mm;
	cublasAtomicsMode_t am;
	cudaStream_t s = (cudaStream_t)0x1234;
	int v = 0;

	CHECK_STATUS(cublasCreate(NULL), CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasGetVersion_v2(H, &v), CUBLAS_STATUS_SUCCESS);
	CHECK_INT(v, version);
	v = 0;
	CHECK_STATUS(cublasGetVersion(&v), CUBLAS_STATUS_SUCCESS); /* the legacy export */
	CHECK_INT(v, version);
	CHECK_INT(cublasLtGetVersion(), version);
	CHECK_STATUS(cublasGetProperty(MAJOR_VERSION, &v), CUBLAS_STATUS_SUCCESS);
	CHECK_INT(v, version / 10000);
	CHECK_STATUS(cublasGetProperty(MINOR_VERSION, &v), CUBLAS_STATUS_SUCCESS);
	CHECK_INT(v, version / 100 % 100);
	CHECK_STATUS(cublasLtGetProperty(PATCH_LEVEL, &v), CUBLAS_STATUS_SUCCESS);
	CHECK_INT(v, version % 100);
	CHECK_STATUS(cublasGetProperty((libraryPropertyType)7, &v), CUBLAS_STATUS_INVALID_VALUE);
	CHECK_INT(cublasGetCudartVersion(), version / 10000 == 13 ? 13000 : 12080);
	CHECK_INT(cublasLtGetCudartVersion(), cublasGetCudartVersion());

	/* Names and messages as the real libcublasLt.so.13 spells them. */
	CHECK(!strcmp(cublasGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED), "CUBLAS_STATUS_NOT_SUPPORTED"));
	CHECK(!strcmp(cublasGetStatusString(CUBLAS_STATUS_NOT_SUPPORTED),
		      "the requested functionality is not supported"));
	CHECK(!strcmp(cublasLtGetStatusName(CUBLAS_STATUS_EXECUTION_FAILED),
		      "CUBLAS_STATUS_EXECUTION_FAILED"));
	CHECK(!strcmp(cublasLtGetStatusString(CUBLAS_STATUS_INVALID_VALUE),
		      "an unsupported value or parameter was passed to the function"));
	CHECK(!strcmp(cublasGetStatusName((cublasStatus_t)99), "unrecognized status"));

	/* Modes: NULL handle, NULL output, invalid values. */
	CHECK_STATUS(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasGetPointerMode(NULL, &pm), CUBLAS_STATUS_NOT_INITIALIZED);
	CHECK_STATUS(cublasGetPointerMode(h, NULL), CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasGetPointerMode(h, &pm), CUBLAS_STATUS_SUCCESS);
	CHECK_INT(pm, CUBLAS_POINTER_MODE_HOST);
	CHECK_STATUS(cublasSetPointerMode(h, (cublasPointerMode_t)5), CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasGetPointerMode(h, &pm), CUBLAS_STATUS_SUCCESS);
	CHECK_INT(pm, CUBLAS_POINTER_MODE_DEVICE);
	CHECK_STATUS(cublasGetMathMode(h, &mm), CUBLAS_STATUS_SUCCESS);
	CHECK_INT(mm, CUBLAS_DEFAULT_MATH);
	CHECK_STATUS(cublasSetMathMode(h, (cublasMath_t)(CUBLAS_TF32_TENSOR_OP_MATH |
							 CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasGetMathMode(h, &mm), CUBLAS_STATUS_SUCCESS);
	CHECK_INT(mm, 19);
	CHECK_STATUS(cublasSetMathMode(h, (cublasMath_t)7), CUBLAS_STATUS_INVALID_VALUE);
	/* The emulation modes came with cuBLAS 12.9 (BF16x9) and 13.0 (fixed-point FP64). */
	CHECK_STATUS(cublasSetMathMode(h, CUBLAS_FP32_EMULATED_BF16X9_MATH),
		     version >= 120900 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasSetMathMode(h, CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH),
		     version >= 130000 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE);
	lt_version_attributes(version);
	CHECK_STATUS(cublasSetAtomicsMode(h, CUBLAS_ATOMICS_ALLOWED), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasGetAtomicsMode(h, &am), CUBLAS_STATUS_SUCCESS);
	CHECK_INT(am, CUBLAS_ATOMICS_ALLOWED);
	CHECK_STATUS(cublasSetAtomicsMode(h, (cublasAtomicsMode_t)2), CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasSetSmCountTarget(h, 7), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasGetSmCountTarget(h, &v), CUBLAS_STATUS_SUCCESS);
	CHECK_INT(v, 7);
	CHECK_STATUS(cublasSetStream(h, s), CUBLAS_STATUS_SUCCESS);
	s = NULL;
	CHECK_STATUS(cublasGetStream(h, &s), CUBLAS_STATUS_SUCCESS);
	CHECK(s == (cudaStream_t)0x1234);
	/* A stream that does not exist: the GEMM cannot launch. */
	float one = 1;
	CHECK_STATUS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST), CUBLAS_STATUS_SUCCESS);
	void *d = dev_alloc(4);
	CHECK_STATUS(cublasSgemm(h, N, N, 1, 1, 1, &one, d, 1, d, 1, &one, d, 1),
		     CUBLAS_STATUS_EXECUTION_FAILED);
	/* cuBLAS docs: the workspace must be 256-byte aligned. */
	void *ws = dev_alloc(4096);
	CHECK_STATUS(cublasSetWorkspace(h, (char *)ws + 16, 1024), CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasSetWorkspace(h, ws, 4096), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasSetWorkspace(NULL, ws, 4096), CUBLAS_STATUS_NOT_INITIALIZED);
	CHECK_STATUS(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasDestroy(NULL), CUBLAS_STATUS_NOT_INITIALIZED);
}

/* cublasGemmEx with the given arguments on 16F inputs unless said otherwise. */
typedef struct args {
	cublasHandle_t h;
	int ta, tb, m, n, k, lda, ldb, ldc;
	int at, bt, ct, compute, algo;
	int no_alpha, no_beta;
} args;

static cublasStatus_t gemm_ex(args a)
{
	static void *buf;
	float one = 1;
	if (!buf)
		buf = dev_alloc(1 << 16);
	return cublasGemmEx(a.h, (cublasOperation_t)a.ta, (cublasOperation_t)a.tb, a.m, a.n, a.k,
			    a.no_alpha ? NULL : &one, buf, (cudaDataType)a.at, a.lda, buf,
			    (cudaDataType)a.bt, a.ldb, a.no_beta ? NULL : &one, buf,
			    (cudaDataType)a.ct, a.ldc, (cublasComputeType_t)a.compute,
			    (cublasGemmAlgo_t)a.algo);
}

static void validation(void)
{
	/* A valid call, then one change at a time. */
	const args ok = { H, N, N, 4, 3, 2, 4, 2, 4, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
			  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, 0, 0 };
	args a;
#define TRY(change, want)                    \
	do {                                 \
		a = ok;                      \
		change;                      \
		CHECK_STATUS(gemm_ex(a), want); \
	} while (0)
	TRY((void)0, CUBLAS_STATUS_SUCCESS);
	TRY(a.h = NULL, CUBLAS_STATUS_NOT_INITIALIZED);
	TRY((a.h = NULL, a.m = -1), CUBLAS_STATUS_NOT_INITIALIZED);
	TRY(a.ta = 7, CUBLAS_STATUS_INVALID_VALUE);
	TRY(a.tb = -1, CUBLAS_STATUS_INVALID_VALUE);
	TRY(a.m = -1, CUBLAS_STATUS_INVALID_VALUE);
	TRY(a.n = -1, CUBLAS_STATUS_INVALID_VALUE);
	TRY(a.k = -1, CUBLAS_STATUS_INVALID_VALUE);
	TRY(a.lda = 3, CUBLAS_STATUS_INVALID_VALUE);           /* < m for N */
	TRY((a.ta = T, a.lda = 2), CUBLAS_STATUS_SUCCESS);       /* >= k for T */
	TRY((a.ta = T, a.lda = 1), CUBLAS_STATUS_INVALID_VALUE);
	TRY(a.ldb = 1, CUBLAS_STATUS_INVALID_VALUE);             /* < k for N */
	TRY((a.tb = T, a.ldb = 2), CUBLAS_STATUS_INVALID_VALUE); /* < n for T */
	TRY(a.ldc = 3, CUBLAS_STATUS_INVALID_VALUE);
	TRY((a.m = 0, a.lda = 0), CUBLAS_STATUS_INVALID_VALUE);  /* max(1, m) */
	TRY((a.m = 0, a.lda = 1, a.ldc = 1), CUBLAS_STATUS_SUCCESS);
	TRY(a.no_alpha = 1, CUBLAS_STATUS_INVALID_VALUE);
	TRY(a.no_beta = 1, CUBLAS_STATUS_INVALID_VALUE);
	/* Values that are no member of their enum: INVALID_VALUE (docs list). */
	TRY(a.at = 999, CUBLAS_STATUS_INVALID_VALUE);
	TRY(a.ct = 999, CUBLAS_STATUS_INVALID_VALUE);
	TRY(a.algo = 12345, CUBLAS_STATUS_INVALID_VALUE);
	TRY(a.compute = 999, CUBLAS_STATUS_INVALID_VALUE);
	TRY(a.algo = CUBLAS_GEMM_ALGO23, CUBLAS_STATUS_SUCCESS);
	TRY(a.algo = CUBLAS_GEMM_ALGO15_TENSOR_OP, CUBLAS_STATUS_SUCCESS);
	/* Valid values outside the table: NOT_SUPPORTED. */
	TRY((a.at = a.bt = CUDA_R_16F, a.ct = CUDA_R_16BF), CUBLAS_STATUS_NOT_SUPPORTED);
	TRY(a.bt = CUDA_R_16F, CUBLAS_STATUS_NOT_SUPPORTED);
	TRY((a.at = a.bt = a.ct = CUDA_C_32F), CUBLAS_STATUS_NOT_SUPPORTED);
	TRY((a.at = a.bt = CUDA_R_8F_E4M3), CUBLAS_STATUS_NOT_SUPPORTED); /* cuBLASLt only */
	TRY(a.compute = CUBLAS_COMPUTE_64F, CUBLAS_STATUS_NOT_SUPPORTED);
	TRY(a.compute = CUDA_R_16BF, CUBLAS_STATUS_NOT_SUPPORTED); /* no compute meaning */
	TRY(a.compute = CUDA_R_32F, CUBLAS_STATUS_SUCCESS);        /* legacy spelling */
	/* Order: ld before types. */
	TRY((a.ldc = 1, a.at = 999), CUBLAS_STATUS_INVALID_VALUE);
	TRY((a.ldc = 1, a.bt = CUDA_R_16F), CUBLAS_STATUS_INVALID_VALUE);
#undef TRY

	float one = 1;
	void *d = dev_alloc(256);
	CHECK_STATUS(cublasGemmStridedBatchedEx(H, N, N, 2, 2, 2, &one, d, CUDA_R_32F, 2, 4, d,
						CUDA_R_32F, 2, 4, &one, d, CUDA_R_32F, 2, 4, -1,
						CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_STATUS(cublasGemmStridedBatchedEx(H, N, N, 2, 2, 2, &one, NULL, CUDA_R_32F, 2, 4,
						NULL, CUDA_R_32F, 2, 4, &one, NULL, CUDA_R_32F, 2,
						4, 0, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_STATUS(cublasSgemm(NULL, N, N, 2, 2, 2, &one, d, 2, d, 2, &one, d, 2),
		     CUBLAS_STATUS_NOT_INITIALIZED);
	CHECK_STATUS(cublasSgemmEx(H, N, N, 2, 2, 2, &one, d, CUDA_R_64F, 2, d, CUDA_R_64F, 2, &one,
				   d, CUDA_R_64F, 2),
		     CUBLAS_STATUS_NOT_SUPPORTED);
}

/* ---------------------------------------------------------- architectures */

static cublasStatus_t lt_heuristic(cudaDataType ab, cudaDataType cd, int trans_a, int *count)
{
	cublasLtMatmulDesc_t d;
	cublasLtMatrixLayout_t la, lb, lc;
	cublasLtMatmulPreference_t p;
	cublasLtMatmulHeuristicResult_t r[4];
	int32_t ta = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;

	cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F);
	cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &ta, 4);
	cublasLtMatrixLayoutCreate(&la, ab, 16, 16, 16);
	cublasLtMatrixLayoutCreate(&lb, ab, 16, 16, 16);
	cublasLtMatrixLayoutCreate(&lc, cd, 16, 16, 16);
	cublasLtMatmulPreferenceCreate(&p);
	*count = -1;
	cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic((cublasLtHandle_t)H, d, la, lb, lc, lc,
							   p, 4, r, count);
	cublasLtMatmulPreferenceDestroy(p);
	cublasLtMatrixLayoutDestroy(la);
	cublasLtMatrixLayoutDestroy(lb);
	cublasLtMatrixLayoutDestroy(lc);
	cublasLtMatmulDescDestroy(d);
	return st;
}

/* FP8 E4M3 inputs (TN) with A and B scale factors, bf16 output. */
static void fp8_matmul(void)
{
	/* A^T (2x4) . B (4x1): A stored 4x2.  E4M3 0x38 = 1.0, 0x40 = 2.0, 0xC0 = -2.0. */
	unsigned char a[8] = { 0x38, 0x40, 0x38, 0x38, 0xC0, 0x38, 0x38, 0x38 };
	unsigned char b[4] = { 0x38, 0x38, 0x40, 0x38 };
	float alpha = 1, beta = 0, sa = 0.5f, sb = 3;
	uint16_t out[2] = { 0xffff, 0xffff };
	void *dA = dev_upload(a, 8), *dB = dev_upload(b, 4), *dD = dev_upload(out, 4);
	void *dsa = dev_upload(&sa, 4), *dsb = dev_upload(&sb, 4);
	cublasLtMatmulDesc_t d;
	cublasLtMatrixLayout_t la, lb, ld;
	int32_t t = CUBLAS_OP_T;

	cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F);
	cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &t, 4);
	cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &dsa, 8);
	cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &dsb, 8);
	cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, 4, 2, 4);
	cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, 4, 1, 4);
	cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, 2, 1, 2);
	CHECK_STATUS(cublasLtMatmul((cublasLtHandle_t)H, d, &alpha, dA, la, dB, lb, &beta, dD, ld, dD,
				    ld, NULL, NULL, 0, NULL),
		     CUBLAS_STATUS_SUCCESS);
	const uint16_t *o = dev_host(dD, 4);
	/* column 0 of A: 1+2+2+1 = 6; column 1: -2+1+2+1 = 2; times 0.5 * 3. */
	CHECK_DBL(bf16_value(o[0]), 9);
	CHECK_DBL(bf16_value(o[1]), 3);
	/* FP8 wants TN (cuBLASLt docs): the same product with A stored 2x4, untransposed. */
	cublasLtMatrixLayout_t la_n;
	cublasLtMatrixLayoutCreate(&la_n, CUDA_R_8F_E4M3, 2, 4, 2);
	t = CUBLAS_OP_N;
	cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &t, 4);
	CHECK_STATUS(cublasLtMatmul((cublasLtHandle_t)H, d, &alpha, dA, la_n, dB, lb, &beta, dD, ld,
				    dD, ld, NULL, NULL, 0, NULL),
		     CUBLAS_STATUS_NOT_SUPPORTED);
	cublasLtMatrixLayoutDestroy(la_n);
	cublasLtMatrixLayoutDestroy(la);
	cublasLtMatrixLayoutDestroy(lb);
	cublasLtMatrixLayoutDestroy(ld);
	cublasLtMatmulDescDestroy(d);
}

static void arch(int sm, int refusing)
{
	const cublasStatus_t ok = CUBLAS_STATUS_SUCCESS, unsup = CUBLAS_STATUS_NOT_SUPPORTED;
	const args base = { H, N, N, 4, 3, 2, 4, 2, 4, 0, 0, 0, CUBLAS_COMPUTE_32F,
			    CUBLAS_GEMM_DEFAULT_TENSOR_OP, 0, 0 };
	args a = base;
	int count;

	CHECK_INT(sim_device_get(0)->sm, sm);
	/* bf16: runs from Volta; on Maxwell/Pascal NOT_SUPPORTED where the stack refuses it
	 * (cuBLAS 11.5), runs where it does not (cuBLAS 12; doc/facts.md, "bf16 GEMMs on
	 * Maxwell and Pascal"). */
	int bf16_runs = sm >= 70 || !refusing;
	a.at = a.bt = a.ct = CUDA_R_16BF;
	CHECK_STATUS(gemm_ex(a), bf16_runs ? ok : unsup);
	a.compute = CUDA_R_32F; /* PyTorch's legacy spelling */
	a.ct = CUDA_R_32F;
	CHECK_STATUS(gemm_ex(a), bf16_runs ? ok : unsup);
	CHECK_STATUS(lt_heuristic(CUDA_R_16BF, CUDA_R_16BF, 0, &count), bf16_runs ? ok : unsup);
	CHECK(bf16_runs ? count > 0 : count == 0);
	/* fp16 storage with fp32 compute runs everywhere; half arithmetic from sm_53. */
	a = base;
	a.at = a.bt = a.ct = CUDA_R_16F;
	CHECK_STATUS(gemm_ex(a), ok);
	a.compute = CUBLAS_COMPUTE_16F;
	CHECK_STATUS(gemm_ex(a), sm >= 53 ? ok : CUBLAS_STATUS_ARCH_MISMATCH);
	uint16_t h1 = 0x3c00;
	void *d = dev_alloc(64);
	CHECK_STATUS(cublasHgemm(H, N, N, 2, 2, 2, &h1, d, 2, d, 2, &h1, d, 2),
		     sm >= 53 ? ok : CUBLAS_STATUS_ARCH_MISMATCH);
	/* int8 from sm_61 (dp4a). */
	a = base;
	a.at = a.bt = CUDA_R_8I;
	a.ct = CUDA_R_32I;
	a.compute = CUBLAS_COMPUTE_32I;
	CHECK_STATUS(gemm_ex(a), sm >= 61 ? ok : unsup);
	/* TF32 compute from sm_80; the TF32 math mode is never refused. */
	a = base;
	a.at = a.bt = a.ct = CUDA_R_32F;
	a.compute = CUBLAS_COMPUTE_32F_FAST_TF32;
	CHECK_STATUS(gemm_ex(a), sm >= 80 ? ok : unsup);
	CHECK_STATUS(cublasSetMathMode(H, CUBLAS_TF32_TENSOR_OP_MATH), ok);
	float one = 1;
	CHECK_STATUS(cublasSgemm(H, N, N, 2, 2, 2, &one, d, 2, d, 2, &one, d, 2), ok);
	CHECK_STATUS(cublasSetMathMode(H, CUBLAS_DEFAULT_MATH), ok);
	/* FP8 (cuBLASLt only) from sm_89. */
	CHECK_STATUS(lt_heuristic(CUDA_R_8F_E4M3, CUDA_R_16BF, 1, &count), sm >= 89 ? ok : unsup);
	CHECK(sm >= 89 ? count > 0 : count == 0);
	if (sm >= 89)
		fp8_matmul();
}

int main(int argc, char **argv)
{
	if (argc < 4 || (strcmp(argv[3], "refuse") && strcmp(argv[3], "run"))) {
		fprintf(stderr, "usage: api_test SM VERSION refuse|run (bf16 below sm_70)\n");
		return 2;
	}
	CHECK_STATUS(cublasCreate(&H), CUBLAS_STATUS_SUCCESS);
	helpers(atoi(argv[2]));
	validation();
	arch(atoi(argv[1]), !strcmp(argv[3], "refuse"));
	CHECK_STATUS(cublasDestroy(H), CUBLAS_STATUS_SUCCESS);
	return test_done("api_test");
}
