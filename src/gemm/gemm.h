/* One description for every intercepted GEMM, so the planner, the walk (walk.h) and the
 * rewrite paths see a single shape of call whatever API it came through.  What differs
 * between the APIs is the call's forward and its backend, both chosen when the call is
 * described (cublas.c, lt.c). */
#ifndef BF16SHIM_GEMM_H
#define BF16SHIM_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "abi.h"
#include "plan.h"

struct gemm_call;
struct gemm_backend;
struct lt_matmul_args;
struct device_facts;

/* Calls the real entry point a described call came through, with its arguments, in the
 * form a forward step of the plan names (plan_is_forward): as it came, with the default
 * algorithm, with plain fp32 compute. */
typedef abi_status (*gemm_forward_fn)(const struct gemm_call *c, enum decision how);

/* A cuBLASLt epilogue fused into ours: out = act(alpha*AB + beta*C + bias). */
struct gemm_epilogue {
	uint64_t bias;              /* device vector, 0 for none */
	int bias_type;              /* cudaDataType */
	int bias_along;             /* 0: bias[row of the output], 1: bias[column] */
	int64_t bias_batch_stride;  /* elements; 0: one vector for every batch item */
	int act;                    /* enum gemm_act */
};

/* What a cuBLASLt call brings that a cuBLAS one takes from its handle (read by its backend,
 * rewrite/via_cublaslt.c, and its forward). */
struct gemm_lt {
	abi_stream stream;
	/* cublasLtPointerMode_t, -1 if unread.  Host (0) and device (1) have the values of
	 * cublasPointerMode_t's, ABI_POINTER_MODE_*; only those two are ever rewritten. */
	int pmode;
	const struct lt_matmul_args *args; /* the call as it came */
};

struct gemm_call {
	const char *api;            /* the entry point called, for the log and the trace */
	gemm_forward_fn forward;
	const struct gemm_backend *backend; /* what the rewrite takes from that library */
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
	int first_status;           /* status of the entry's refused attempt, or -1 */
	/* A describer that planned the call itself (cuBLASLt, from its descriptors) sets the
	 * plan and the device it was made for; NULL: the walk plans a cuBLAS GEMM. */
	const struct plan *plan;
	const struct device_facts *dev;
	/* Zero for cuBLAS GEMMs. */
	const struct gemm_lt *lt;
	void *workspace;            /* scratch the caller lent (cuBLASLt's workspace) */
	size_t workspace_bytes;
	struct gemm_epilogue epilogue;
};

#endif
