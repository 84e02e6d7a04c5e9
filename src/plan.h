/* The planner: a pure function from (call, device facts, configuration) to a decision.
 * Nothing here touches CUDA, so every policy is unit-tested by tables (tests/shim/plan_test.c). */
#ifndef BF16SHIM_PLAN_H
#define BF16SHIM_PLAN_H

#include <stdint.h>

#include "config.h"

enum decision {
	DECIDE_PASS,              /* forward the call untouched */
	DECIDE_PASS_DEFAULT_ALGO, /* forward with CUBLAS_GEMM_DEFAULT instead of a tensor-op algo */
	DECIDE_FP32,              /* cast operands to fp32, fp32 GEMM, fused epilogue */
	DECIDE_FP16,              /* scale bf16 into fp16, tensor-core GEMM, exact epilogue */
	DECIDE_DECODE,            /* decode-shaped: one kernel reading bf16 directly */
};

/* One of m, n at most this: token-by-token inference shapes (issue 4). */
#define PLAN_DECODE_MAX 16

struct plan_call {
	int atype, btype, ctype;
	int compute;              /* cublasComputeType_t or the legacy cudaDataType spelling */
	int algo;
	int transa, transb;
	int64_t m, n, k, batch;
	int64_t lda, ldb, ldc;
};

struct plan_device {
	int sm;                   /* major*10+minor, after BF16SHIM_EMULATE_SM */
	int tensor_cores;
};

struct plan {
	enum decision decision;
	const char *reason;       /* one phrase, for the log and the trace */
};

struct plan plan_gemm(const struct plan_call *c, const struct plan_device *d,
		      const struct shim_config *cfg);

/* A forwarded call came back with status (NOT_SUPPORTED or ARCH_MISMATCH); attempted is what
 * was tried.  Returns the next thing to try, or DECIDE_PASS to give up and return status. */
struct plan plan_retry(const struct plan_call *c, const struct plan_device *d,
		       const struct shim_config *cfg, enum decision attempted, int status);

const char *plan_decision_name(enum decision d);
/* What to try when a path's own machinery is unavailable: DECODE -> FP16 or FP32 -> FP32 ->
 * PASS (the original call). */
enum decision plan_fallback(enum decision d, const struct plan_call *c,
			    const struct plan_device *dev);
int plan_is_tensor_op_algo(int algo);
/* Can the fp32 path compute this call (types and compute type)? */
int plan_fp32_supports(const struct plan_call *c);

#endif
