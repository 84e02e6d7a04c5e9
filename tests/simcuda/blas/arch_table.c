/* Per-architecture behaviour: which GEMM configurations the simulated device refuses, and
 * with which status.  Data, one row per fact, each with its source; the first row that
 * matches a configuration on a device below its min_sm decides.
 */
#include "blas_internal.h"

enum match {
	ANY,          /* every GEMM */
	OPERAND,      /* A or B has type `value` */
	COMPUTE,      /* the (normalised) compute type is `value`, _PEDANTIC included */
};

static const struct arch_row {
	enum match match;
	int value;
	int min_sm;
	cublasStatus_t status;
} rows[] = {
	/* cuBLAS docs, cublasGemmEx return values: ARCH_MISMATCH "cublasGemmEx() is only
	 * supported for GPU with architecture capabilities equal or greater than 5.0". */
	{ ANY, 0, 50, CUBLAS_STATUS_ARCH_MISMATCH },
	/* bf16 operands on Maxwell/Pascal: NOT_SUPPORTED, not ARCH_MISMATCH (doc/facts.md:
	 * P100 with CUDA 11.3, GP100, M40 with torch 2.5.1+cu124).  sm_70/75 run bf16 on
	 * non-tensor-core kernels (doc/facts.md: V100, T4), so the row stops at sm_70. */
	{ OPERAND, CUDA_R_16BF, 70, CUBLAS_STATUS_NOT_SUPPORTED },
	/* FP8 needs sm_89 (doc/facts.md; cuBLASLt docs, FP8 matmul: compute capability 8.9+).
	 * The heuristic answers NOT_SUPPORTED there (microsoft/superbenchmark#526). */
	{ OPERAND, CUDA_R_8F_E4M3, 89, CUBLAS_STATUS_NOT_SUPPORTED },
	{ OPERAND, CUDA_R_8F_E5M2, 89, CUBLAS_STATUS_NOT_SUPPORTED },
	/* TF32 needs sm_80 (doc/facts.md).  The project's spec refuses an explicit
	 * COMPUTE_32F_FAST_TF32 below sm_80; whether the real library instead runs it as plain
	 * fp32 there is not established.  The TF32 *math mode* is never refused (PyTorch sets
	 * it on every GPU). */
	{ COMPUTE, CUBLAS_COMPUTE_32F_FAST_TF32, 80, CUBLAS_STATUS_NOT_SUPPORTED },
	/* int8 GEMM kernels use dp4a (PTX ISA: sm_61+) or IMMA tensor cores (sm_75,
	 * doc/facts.md); nothing runs int8 below sm_61 (inference). */
	{ OPERAND, CUDA_R_8I, 61, CUBLAS_STATUS_NOT_SUPPORTED },
	/* Half arithmetic starts at sm_53; cuBLAS docs, cublasHgemm: ARCH_MISMATCH "the device
	 * does not support math in half precision". */
	{ COMPUTE, CUBLAS_COMPUTE_16F, 53, CUBLAS_STATUS_ARCH_MISMATCH },
};

static int row_matches(const struct arch_row *r, const blas_arch_query *q)
{
	cublasComputeType_t c = q->compute;

	switch (r->match) {
	case ANY:
		return 1;
	case OPERAND:
		return (int)q->a == r->value || (int)q->b == r->value;
	case COMPUTE:
		if (c == CUBLAS_COMPUTE_16F_PEDANTIC)
			c = CUBLAS_COMPUTE_16F;
		return (int)c == r->value;
	}
	return 0;
}

cublasStatus_t blas_arch_check(const sim_device *dev, const blas_arch_query *q)
{
	if (!dev)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (dev->sm < rows[i].min_sm && row_matches(&rows[i], q))
			return rows[i].status;
	return CUBLAS_STATUS_SUCCESS;
}
