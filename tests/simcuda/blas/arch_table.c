/* Per-architecture behaviour: which GEMM configurations the simulated device refuses, and
 * with which status.  Data, one row per fact, each with its source; the first row that
 * matches a configuration on a device below its min_sm decides.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	int only_refusing;   /* a row of the stacks that refuse bf16 below sm_70 (below) */
} rows[] = {
	/* cuBLAS docs, cublasGemmEx return values: ARCH_MISMATCH "cublasGemmEx() is only
	 * supported for GPU with architecture capabilities equal or greater than 5.0". */
	{ ANY, 0, 50, CUBLAS_STATUS_ARCH_MISMATCH, 0 },
	/* bf16 operands on Maxwell/Pascal, where the stack refuses them: NOT_SUPPORTED, not
	 * ARCH_MISMATCH (doc/facts.md, "bf16 GEMMs on Maxwell and Pascal": P100 with CUDA
	 * 11.3, pytorch/pytorch#57773).  sm_70/75 run bf16 on non-tensor-core kernels
	 * (doc/facts.md: V100, T4), so the row stops at sm_70. */
	{ OPERAND, CUDA_R_16BF, 70, CUBLAS_STATUS_NOT_SUPPORTED, 1 },
	/* FP8 needs sm_89 (doc/facts.md; cuBLASLt docs, FP8 matmul: compute capability 8.9+).
	 * The heuristic answers NOT_SUPPORTED there (microsoft/superbenchmark#526). */
	{ OPERAND, CUDA_R_8F_E4M3, 89, CUBLAS_STATUS_NOT_SUPPORTED, 0 },
	{ OPERAND, CUDA_R_8F_E5M2, 89, CUBLAS_STATUS_NOT_SUPPORTED, 0 },
	/* TF32 needs sm_80 (doc/facts.md).  The project's spec refuses an explicit
	 * COMPUTE_32F_FAST_TF32 below sm_80; whether the real library instead runs it as plain
	 * fp32 there is not established.  The TF32 *math mode* is never refused (PyTorch sets
	 * it on every GPU). */
	{ COMPUTE, CUBLAS_COMPUTE_32F_FAST_TF32, 80, CUBLAS_STATUS_NOT_SUPPORTED, 0 },
	/* int8 GEMM kernels use dp4a (PTX ISA: sm_61+) or IMMA tensor cores (sm_75,
	 * doc/facts.md); nothing runs int8 below sm_61 (inference). */
	{ OPERAND, CUDA_R_8I, 61, CUBLAS_STATUS_NOT_SUPPORTED, 0 },
	/* Half arithmetic starts at sm_53; cuBLAS docs, cublasHgemm: ARCH_MISMATCH "the device
	 * does not support math in half precision". */
	{ COMPUTE, CUBLAS_COMPUTE_16F, 53, CUBLAS_STATUS_ARCH_MISMATCH, 0 },
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

/* Does this stack refuse bf16 GEMMs below sm_70?  cuBLAS 12 runs them on Maxwell and Pascal,
 * on kernels that convert to fp32 (doc/facts.md, "bf16 GEMMs on Maxwell and Pascal": P40, P4,
 * P100, M40 measured with CUDA 12.1 to 12.8), so the .12 stack runs them; the .13 stack keeps
 * the refusal of cuBLAS 11.3 on a P100 (CUDA 13 has no kernels for these GPUs at all, so
 * what it answers there is not modeled).  SIMCUDA_BF16_BELOW_SM70=refuse or =run chooses. */
static int refuses_bf16_below_sm70(void)
{
	static int warned;
	const char *v = getenv("SIMCUDA_BF16_BELOW_SM70");

	if (v && !strcmp(v, "refuse"))
		return 1;
	if (v && !strcmp(v, "run"))
		return 0;
	if (v && *v && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		fprintf(stderr, "simcuda: SIMCUDA_BF16_BELOW_SM70: ignoring '%s' (refuse or run)\n",
			v);
	return SIMCUDA_SOVERSION != 12;
}

cublasStatus_t blas_arch_check(const sim_device *dev, const blas_arch_query *q)
{
	int refusing;

	if (!dev)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	refusing = refuses_bf16_below_sm70();
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (dev->sm < rows[i].min_sm && row_matches(&rows[i], q) &&
		    (!rows[i].only_refusing || refusing))
			return rows[i].status;
	return CUBLAS_STATUS_SUCCESS;
}
