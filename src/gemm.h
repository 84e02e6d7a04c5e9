/* One description for every intercepted GEMM entry point, so the planner and the rewrite
 * paths see a single shape of call whatever API it came through. */
#ifndef BF16SHIM_GEMM_H
#define BF16SHIM_GEMM_H

#include <stdint.h>

#include "abi.h"
#include "real.h"

struct gemm_call;
typedef abi_status (*gemm_forward_fn)(const struct gemm_call *c);

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
};

/* The dispatcher: plan, then forward, retry or rewrite. */
abi_status shim_gemm(struct gemm_call *c);
/* cublasDestroy: drops what the shim keeps per handle, then destroys it. */
abi_status shim_cublas_destroy(abi_handle handle);

/* Re-entrancy: calls made while the shim is working (ours into cuBLAS, cuBLAS into its own
 * exported functions) go straight to the real function. */
extern __thread int shim_depth __attribute__((tls_model("initial-exec")));

#endif
