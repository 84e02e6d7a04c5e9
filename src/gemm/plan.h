/* The planner: a pure function from (call, device facts, configuration) to a decision.
 * Nothing here touches CUDA, so every policy is unit-tested by tables (tests/shim/plan_test.c). */
#ifndef BF16SHIM_PLAN_H
#define BF16SHIM_PLAN_H

#include <stdint.h>

#include "config.h"
#include "cost.h"

enum decision {
	DECIDE_PASS,              /* forward the call untouched */
	DECIDE_PASS_DEFAULT_ALGO, /* forward with CUBLAS_GEMM_DEFAULT instead of a tensor-op algo */
	DECIDE_PASS_COMPUTE_32F,  /* forward with CUBLAS_COMPUTE_32F (cuBLASLt: a fast mode the
				   * GPU lacks, LT_COMPUTE_32F) */
	DECIDE_FP32,              /* cast operands to fp32, fp32 GEMM, fused epilogue */
	DECIDE_FP16,              /* scale bf16 into fp16, tensor-core GEMM, exact epilogue */
	DECIDE_DECODE,            /* decode-shaped: one kernel reading bf16 directly */
	DECIDE_FUSED,             /* one GEMM kernel that reads bf16 and converts it in registers */
};

/* One of m, n at most this: token-by-token inference shapes. */
#define PLAN_DECODE_MAX 16

struct plan_call {
	int atype, btype, ctype;
	int compute;              /* cublasComputeType_t or the legacy cudaDataType spelling */
	int algo;
	int transa, transb;
	int64_t m, n, k, batch;
	int64_t lda, ldb, ldc;
	/* Set by the caller, who sees the pointers: a null or misaligned operand in a GEMM
	 * that has work to do.  Such calls are the library's to answer: a rewrite would fault
	 * in our kernels where cuBLAS returns a status. */
	int bad_pointers;
	int epilogue;             /* a fused bias or activation follows (cuBLASLt) */
	/* A cuBLASLt matmul: rewritten whatever the model says of the native call, since
	 * whether the library takes it as it came depends on epilogues, layouts and types
	 * (rewriting it is what the shim has always done below sm_80). */
	int lt;
};

struct plan_device {
	int sm;                   /* major*10+minor, after BF16SHIM_EMULATE_SM */
	int tensor_cores;
	/* What the cost model needs; where the driver could not tell (cost_device_known()
	 * false) the policy decides by the architecture alone. */
	struct cost_device cost;
	/* The real cuBLAS's major version, 0 when unknown: below sm_70, whether it runs bf16
	 * GEMMs at all (plan_library_runs_bf16). */
	int cublas_major;
};

/* A rewrite must model at most this fraction of the native GEMM's time to be taken on a GPU
 * that runs bf16 GEMMs itself (sm_70, sm_75): the model's errors, and the cost of being
 * wrong, are both smaller on the native side. */
#define PLAN_MARGIN 0.8

/* One thing to try, and why (one phrase, for the log and the trace). */
struct plan_step {
	enum decision decision;
	const char *reason;
};

/* What to try, in order.  The first step is the plan; each later one is tried when the one
 * before could not be taken (a path whose machinery is unavailable: no scratch, no kernels)
 * or was refused (a forward the library answered with NOT_SUPPORTED or ARCH_MISMATCH).  A
 * rewrite that ran is never followed: it may have written C, so its status is the answer.
 * A rewrite is followed by its fallbacks and the original call; a plan that forwards the
 * call is followed by what to try if the library refuses it (a bf16 GEMM on the fp32 path,
 * a tensor-op algorithm with the default one). */
#define PLAN_STEPS 4
/* What the cost model said, where it decided: the modeled time of the plan's first step and
 * of the best step it turned down (microseconds; cost.h; rejected_us < 0: none other could
 * run). */
struct plan_model {
	int valid;
	double chosen_us;
	enum decision rejected;
	double rejected_us;
};
struct plan {
	int n;
	struct plan_step step[PLAN_STEPS];
	struct plan_model model;
};

struct plan plan_gemm(const struct plan_call *c, const struct plan_device *d,
		      const struct shim_config *cfg);
const char *plan_decision_name(enum decision d);
/* The cost model's path for a decision (COST_NATIVE for a forward). */
enum cost_path plan_cost_path(enum decision d);
/* Would every call pass through untouched, GEMM and cuBLASLt, on devices of at least min_sm
 * (planned: after BF16SHIM_EMULATE_SM)?  Then nothing need look at a call before it goes
 * to the library: only a refusal, or an algorithm of ours, needs the shim. */
int plan_all_native(const struct shim_config *cfg, int min_sm);
/* Does this step forward the call to the library (as it came, with the default algorithm,
 * with fp32 compute)?  Every other decision is a rewrite. */
int plan_is_forward(enum decision d);
int plan_is_tensor_op_algo(int algo);
/* Does the library run bf16 GEMMs on this device, rather than refuse them?  From sm_70 on,
 * yes; below, cuBLAS 12 runs them and cuBLAS 11 (from 11.3) refuses them (doc/facts.md,
 * "bf16 GEMMs on Maxwell and Pascal"); an unknown version counts as refusing, so that the
 * first step is a rewrite that works either way. */
int plan_library_runs_bf16(const struct plan_device *d);
/* Can the fp32 path compute this call (types and compute type)? */
int plan_fp32_supports(const struct plan_call *c);

/* ---- cuBLASLt: a matmul as read from its descriptors and layouts ---- */
/* The activation of a fused epilogue (numbered as kernels.h's KERNEL_ACT_*). */
enum gemm_act { GEMM_ACT_NONE, GEMM_ACT_RELU, GEMM_ACT_GELU };

struct plan_lt_matrix {
	int type, order;             /* cudaDataType, cublasLtOrder_t */
	uint64_t rows, cols;
	int64_t ld, stride;          /* stride: STRIDED_BATCH_OFFSET, elements */
	int batch;
};

struct plan_lt_call {
	int compute, scale, pmode;   /* cublasComputeType_t, cudaDataType, cublasLtPointerMode_t */
	int transa, transb, transc;
	unsigned epilogue;           /* cublasLtEpilogue_t */
	uint64_t bias;
	int64_t bias_stride;
	int bias_type;               /* -1: D's type */
	struct plan_lt_matrix a, b, c, d;
	int c_is_d;                  /* C and D are the same pointer */
	const char *unhandled;       /* an attribute set that no rewrite honours, or NULL */
	int ours;                    /* the algorithm came from the shim's heuristic */
};

enum lt_decision {
	LT_PASS,                     /* the real cuBLASLt, untouched */
	LT_REWRITE,                  /* one of the GEMM rewrites, epilogue fused */
	LT_COMPUTE_32F,              /* the real cuBLASLt with CUBLAS_COMPUTE_32F */
};

struct lt_plan {
	enum lt_decision decision;
	const char *reason;
	/* LT_REWRITE: the problem in column-major terms.  With a row-major D it is the
	 * transposed one, D^T = op(B)^T op(A)^T: gemm's A is the caller's B and the bias runs
	 * along its columns. */
	struct plan_call gemm;
	struct plan rewrite;         /* the GEMM's plan: a rewrite, its fallbacks, the call */
	int transposed;
	int act;                     /* enum gemm_act */
	int has_bias;
};

struct lt_plan plan_lt(const struct plan_lt_call *c, const struct plan_device *d,
		       const struct shim_config *cfg);
const char *plan_lt_decision_name(enum lt_decision d);
/* The steps the walk takes for a cuBLASLt plan: a rewrite's plan (p->rewrite), or the one
 * forward its decision names. */
struct plan plan_lt_steps(const struct lt_plan *p);

#endif
