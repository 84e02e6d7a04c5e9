/* cuBLASLt calls: reading their descriptors through the real cuBLASLt API (lt_describe.c) and
 * the dispatcher (lt.c) that plans them (plan_lt) and forwards them, rewrites them on the
 * GEMM paths with the epilogue fused, or runs them with plain fp32 compute. */
#ifndef BF16SHIM_LT_H
#define BF16SHIM_LT_H

#include "abi.h"
#include "entry_points.h"
#include "plan.h"

/* data[0] of an algorithm our heuristic returned ("bf16shim" in ASCII, little-endian). */
#define LT_ALGO_MAGIC 0x6d69687336316662ull

static inline int lt_algo_is_ours(const abi_lt_algo *algo)
{
	return algo && algo->data[0] == LT_ALGO_MAGIC;
}

struct lt_matmul_args {
	abi_lt_handle handle;
	abi_lt_desc desc;
	const void *alpha, *a;
	abi_lt_layout adesc;
	const void *b;
	abi_lt_layout bdesc;
	const void *beta, *c;
	abi_lt_layout cdesc;
	void *d;
	abi_lt_layout ddesc;
	const abi_lt_algo *algo;
	void *workspace;
	size_t workspace_bytes;
	abi_stream stream;
};

struct lt_heuristic_args {
	abi_lt_handle handle;
	abi_lt_desc desc;
	abi_lt_layout adesc, bdesc, cdesc, ddesc;
	abi_lt_pref pref;
	int requested;
	abi_lt_heuristic_result *results;
	int *returned;
};

/* The entry functions behind the exported names, of the same signatures. */
abi_status shim_cublasLtMatmul LT_MATMUL_PARAMS;
abi_status shim_cublasLtMatmulAlgoGetHeuristic LT_HEURISTIC_PARAMS;

/* Where this thread's cublasLtMatmul calls go: shim_cublasLtMatmul is one jump through it.
 * Normally the shim's own entry (which passes the call through or dispatches it); while
 * cuBLAS runs a GEMM the shim passed to it, lt_matmul_nested: cuBLAS calls cuBLASLt inside
 * every GEMM, and those calls go straight to the real function (once it is found).
 * initial-exec, as shim_depth (gemm.h). */
typedef abi_status (*lt_matmul_fn) LT_MATMUL_PARAMS;
extern __thread lt_matmul_fn lt_matmul_route __attribute__((tls_model("initial-exec")));
extern lt_matmul_fn lt_matmul_nested;

/* Is there anything to plan: a bf16 or FP8 operand, or a reduced-precision fast compute
 * type?  One or two attribute reads, the only cost a plain cuBLASLt call pays (cuBLAS 12+
 * makes one for each of its own GEMMs). */
int lt_worth_planning(abi_lt_desc desc, abi_lt_layout a, abi_lt_layout b);
/* Reads everything plan_lt() looks at (pointers and c_is_d excepted); 0 if the descriptor
 * or a layout cannot be read (the call then goes to the library as it is). */
int lt_describe(abi_lt_desc desc, abi_lt_layout a, abi_lt_layout b, abi_lt_layout c,
		abi_lt_layout d, struct plan_lt_call *out);
/* A new descriptor equal to desc but for its compute type; the caller destroys it. */
int lt_desc_with_compute(abi_lt_desc desc, int compute, abi_lt_desc *out);

#endif
