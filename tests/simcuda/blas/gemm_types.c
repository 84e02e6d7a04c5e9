/* The type combinations a GEMM may use: one table for cublasGemmEx (and the typed GEMMs,
 * which are rows of it) and cuBLASLt, plus the mapping of the legacy computeType spelling.
 * Anything not listed here is CUBLAS_STATUS_NOT_SUPPORTED.  Complex types are left out: the
 * simulator does not compute them (a real library would).
 */
#include "blas_internal.h"

#define R(x) CUDA_R_##x
#define C(x) CUBLAS_COMPUTE_##x

/* Sources: cuBLAS docs, cublasGemmEx "supported combinations of computeType, scaleType,
 * Atype/Btype, Ctype" (CUDA 12.x/13.x), and cublasLtMatmul "Regular" and FP8 tables. */
static const blas_combo combos[] = {
	/* compute     scale   A        B        C       D       acc */
	{ C(16F),     R(16F), R(16F),  R(16F),  R(16F), R(16F), BLAS_ACC_F32, 0 },
	{ C(32I),     R(32I), R(8I),   R(8I),   R(32I), R(32I), BLAS_ACC_I32, 0 },
	{ C(32F),     R(32F), R(16BF), R(16BF), R(16BF), R(16BF), BLAS_ACC_F32, 0 },
	{ C(32F),     R(32F), R(16F),  R(16F),  R(16F), R(16F), BLAS_ACC_F32, 0 },
	{ C(32F),     R(32F), R(8I),   R(8I),   R(32F), R(32F), BLAS_ACC_F32, 0 },
	{ C(32F),     R(32F), R(16BF), R(16BF), R(32F), R(32F), BLAS_ACC_F32, 0 },
	{ C(32F),     R(32F), R(16F),  R(16F),  R(32F), R(32F), BLAS_ACC_F32, 0 },
	{ C(32F),     R(32F), R(32F),  R(32F),  R(32F), R(32F), BLAS_ACC_F32, 0 },
	/* The fast and emulated fp32 modes only permit lower-precision inner steps; the
	 * simulator computes them as plain fp32. */
	{ C(32F_FAST_16F),  R(32F), R(32F), R(32F), R(32F), R(32F), BLAS_ACC_F32, 0 },
	{ C(32F_FAST_16BF), R(32F), R(32F), R(32F), R(32F), R(32F), BLAS_ACC_F32, 0 },
	{ C(32F_FAST_TF32), R(32F), R(32F), R(32F), R(32F), R(32F), BLAS_ACC_F32, 0 },
	{ C(32F_EMULATED_16BFX9), R(32F), R(32F), R(32F), R(32F), R(32F), BLAS_ACC_F32, 0 },
	{ C(64F),     R(64F), R(64F),  R(64F),  R(64F), R(64F), BLAS_ACC_F64, 0 },
	{ C(64F_EMULATED_FIXEDPOINT), R(64F), R(64F), R(64F), R(64F), R(64F), BLAS_ACC_F64, 0 },
	/* cuBLASLt FP8 (both operands FP8, not both E5M2); FP8 outputs are not simulated. */
	{ C(32F), R(32F), R(8F_E4M3), R(8F_E4M3), R(16BF), R(16BF), BLAS_ACC_F32, 1 },
	{ C(32F), R(32F), R(8F_E4M3), R(8F_E4M3), R(16F),  R(16F),  BLAS_ACC_F32, 1 },
	{ C(32F), R(32F), R(8F_E4M3), R(8F_E4M3), R(32F),  R(32F),  BLAS_ACC_F32, 1 },
	{ C(32F), R(32F), R(8F_E4M3), R(8F_E5M2), R(16BF), R(16BF), BLAS_ACC_F32, 1 },
	{ C(32F), R(32F), R(8F_E4M3), R(8F_E5M2), R(16F),  R(16F),  BLAS_ACC_F32, 1 },
	{ C(32F), R(32F), R(8F_E4M3), R(8F_E5M2), R(32F),  R(32F),  BLAS_ACC_F32, 1 },
	{ C(32F), R(32F), R(8F_E5M2), R(8F_E4M3), R(16BF), R(16BF), BLAS_ACC_F32, 1 },
	{ C(32F), R(32F), R(8F_E5M2), R(8F_E4M3), R(16F),  R(16F),  BLAS_ACC_F32, 1 },
	{ C(32F), R(32F), R(8F_E5M2), R(8F_E4M3), R(32F),  R(32F),  BLAS_ACC_F32, 1 },
};

/* _PEDANTIC asks for the same arithmetic without shortcuts: same row. */
static cublasComputeType_t compute_base(cublasComputeType_t c)
{
	switch (c) {
	case CUBLAS_COMPUTE_16F_PEDANTIC:
		return CUBLAS_COMPUTE_16F;
	case CUBLAS_COMPUTE_32F_PEDANTIC:
		return CUBLAS_COMPUTE_32F;
	case CUBLAS_COMPUTE_64F_PEDANTIC:
		return CUBLAS_COMPUTE_64F;
	case CUBLAS_COMPUTE_32I_PEDANTIC:
		return CUBLAS_COMPUTE_32I;
	default:
		return c;
	}
}

const blas_combo *blas_combo_find(int lt, cublasComputeType_t compute, cudaDataType a,
				  cudaDataType b, cudaDataType c, cudaDataType d)
{
	cublasComputeType_t base = compute_base(compute);

	for (size_t i = 0; i < sizeof(combos) / sizeof(combos[0]); i++) {
		const blas_combo *r = &combos[i];
		if (r->lt_only && !lt)
			continue;
		if (r->compute == base && r->a == a && r->b == b && r->c == c && r->d == d)
			return r;
	}
	return NULL;
}

/* Legacy spellings as cublasMigrateComputeType (cublas_api.h) maps them for C++ callers;
 * C callers and old binaries pass the cudaDataType value itself, which cuBLAS accepts. */
static const struct {
	cudaDataType legacy;
	cublasComputeType_t normal, pedantic;
} legacy_computes[] = {
	{ CUDA_R_32F, CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F_PEDANTIC },
	{ CUDA_C_32F, CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F_PEDANTIC },
	{ CUDA_R_64F, CUBLAS_COMPUTE_64F, CUBLAS_COMPUTE_64F_PEDANTIC },
	{ CUDA_C_64F, CUBLAS_COMPUTE_64F, CUBLAS_COMPUTE_64F_PEDANTIC },
	{ CUDA_R_16F, CUBLAS_COMPUTE_16F, CUBLAS_COMPUTE_16F_PEDANTIC },
	{ CUDA_R_32I, CUBLAS_COMPUTE_32I, CUBLAS_COMPUTE_32I_PEDANTIC },
};

cublasStatus_t blas_compute_normalise(int compute, cublasMath_t math, cublasComputeType_t *out)
{
	if (blas_compute_known(compute)) {
		*out = (cublasComputeType_t)compute;
		return CUBLAS_STATUS_SUCCESS;
	}
	for (size_t i = 0; i < sizeof(legacy_computes) / sizeof(legacy_computes[0]); i++) {
		if ((int)legacy_computes[i].legacy == compute) {
			int pedantic = (math & 0xf) == CUBLAS_PEDANTIC_MATH;
			*out = pedantic ? legacy_computes[i].pedantic : legacy_computes[i].normal;
			return CUBLAS_STATUS_SUCCESS;
		}
	}
	/* A data type with no compute meaning (cublasMigrateComputeType's default case). */
	if (blas_type_known(compute))
		return CUBLAS_STATUS_NOT_SUPPORTED;
	return CUBLAS_STATUS_INVALID_VALUE;
}
