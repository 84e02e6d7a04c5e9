/* One description for every intercepted GEMM entry point, so the planner and the rewrite
 * paths see a single shape of call whatever API it came through. */
#ifndef BF16SHIM_GEMM_H
#define BF16SHIM_GEMM_H

#include <stdint.h>

#include "abi.h"
#include "plan.h"
#include "real.h"

struct gemm_call;
typedef abi_status (*gemm_forward_fn)(const struct gemm_call *c);

/* A cuBLASLt epilogue fused into ours: out = act(alpha*AB + beta*C + bias). */
struct gemm_epilogue {
	uint64_t bias;              /* device vector, 0 for none */
	int bias_type;              /* cudaDataType */
	int bias_along;             /* 0: bias[row of the output], 1: bias[column] */
	int64_t bias_batch_stride;  /* elements; 0: one vector for every batch item */
	int act;                    /* enum gemm_act */
};

/* What a cuBLASLt call brings that a cuBLAS one takes from its handle. */
struct gemm_lt {
	abi_stream stream;
	int pmode;                  /* ABI_POINTER_MODE_* */
	void *workspace;            /* the caller's, usable as scratch */
	size_t workspace_bytes;
};

struct gemm_call {
	enum real_cublas_sym sym;   /* the entry point, for forwarding and the log */
	gemm_forward_fn forward;    /* calls the real entry point with these arguments */
	abi_handle handle;
	int transa, transb;
	int64_t m, n, k;
	const void *alpha, *beta;   /* float: every rewritten call computes in fp32 */
	const void *a, *b;          /* matrices, or device arrays of pointers (ptr_array) */
	void *c;
	int atype, btype, ctype;
	int64_t lda, ldb, ldc;
	int64_t stride_a, stride_b, stride_c;  /* elements; strided batches only */
	int64_t batch;
	int compute;                /* either spelling */
	int algo;
	int ptr_array;              /* the *BatchedEx form */
	int first_status;           /* status of a fast-path attempt already made, or -1 */
	/* Zero for cuBLAS GEMMs (the exported wrappers initialise the members above only). */
	const char *api;            /* the name for the log, if not sym's */
	const struct gemm_lt *lt;   /* a cuBLASLt call: inner GEMMs go through cuBLASLt */
	struct gemm_epilogue epilogue;
};

/* What the exported wrappers' fast path reads: set once everything is initialised. */
struct shim_fast {
	int ready;        /* real functions found, configuration read */
	int pass_all;     /* BF16SHIM_MODE=off */
	int lt_ready;     /* the same for cuBLASLt (found on its own) */
};
extern struct shim_fast shim_fast;
extern void *real_cublas_fn[SYM_CUBLAS_COUNT];

/* The dispatcher: plan, then forward, retry or rewrite. */
abi_status shim_gemm(struct gemm_call *c);
/* Carries out decision p for c, falling back along plan_fallback() down to c->forward. */
struct device_facts;
abi_status shim_gemm_run(const struct gemm_call *c, const struct device_facts *dev,
			 const struct plan *p);
/* A null or misaligned operand in a GEMM with work to do: never rewritten (plan.h). */
int gemm_bad_pointers(const struct gemm_call *c);
/* cublasDestroy: drops what the shim keeps per handle, then destroys it. */
abi_status shim_cublas_destroy(abi_handle handle);

/* Re-entrancy: calls made while the shim is working (ours into cuBLAS, cuBLAS into its own
 * exported functions) go straight to the real function. */
extern __thread int shim_depth __attribute__((tls_model("initial-exec")));

/* Can this call go straight to the real function?  Nested calls, mode off, and calls with
 * no bf16 operand once no configuration has needed a retry.  A few loads: this is the cost
 * every passed-through GEMM pays (bench/passthrough_cost.sh). */
static inline int shim_fast_pass(int atype, int btype)
{
	extern int verdict_count;
	if (__builtin_expect(!__atomic_load_n(&shim_fast.ready, __ATOMIC_ACQUIRE), 0))
		return 0;
	return shim_depth || __atomic_load_n(&shim_fast.pass_all, __ATOMIC_RELAXED) ||
	       (atype != ABI_R_16BF && btype != ABI_R_16BF &&
		!__atomic_load_n(&verdict_count, __ATOMIC_RELAXED));
}

/* A status that sends a fast-path call to the dispatcher for a retry. */
static inline int shim_refused(abi_status st)
{
	return __builtin_expect(st == ABI_STATUS_NOT_SUPPORTED || st == ABI_STATUS_ARCH_MISMATCH, 0);
}

#endif
