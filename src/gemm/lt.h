/* cuBLASLt calls: reading their descriptors through the real cuBLASLt API (lt_describe.c),
 * and the entries (lt.c) that plan them (plan_lt) and hand them to the walk, which forwards
 * them, rewrites them on the GEMM paths with the epilogue fused, or runs them with plain
 * fp32 compute. */
#ifndef BF16SHIM_LT_H
#define BF16SHIM_LT_H

#include "abi.h"
#include "plan.h"

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

/* The entry functions behind the exported names (exports/cublaslt.c), of the same
 * signatures. */
abi_status shim_cublasLtMatmul(abi_lt_handle handle, abi_lt_desc desc, const void *alpha,
			       const void *A, abi_lt_layout adesc, const void *B,
			       abi_lt_layout bdesc, const void *beta, const void *C,
			       abi_lt_layout cdesc, void *D, abi_lt_layout ddesc,
			       const abi_lt_algo *algo, void *workspace, size_t workspace_bytes,
			       abi_stream stream);
abi_status shim_cublasLtMatmulAlgoGetHeuristic(abi_lt_handle handle, abi_lt_desc desc,
					       abi_lt_layout adesc, abi_lt_layout bdesc,
					       abi_lt_layout cdesc, abi_lt_layout ddesc,
					       abi_lt_pref pref, int requested,
					       abi_lt_heuristic_result *results, int *returned);
/* Where gate_lt_route sends a cublasLtMatmul that is not nested: straight to the library
 * when the gate allows, else described and walked. */
abi_status lt_matmul_entry(abi_lt_handle handle, abi_lt_desc desc, const void *alpha,
			   const void *A, abi_lt_layout adesc, const void *B, abi_lt_layout bdesc,
			   const void *beta, const void *C, abi_lt_layout cdesc, void *D,
			   abi_lt_layout ddesc, const abi_lt_algo *algo, void *workspace,
			   size_t workspace_bytes, abi_stream stream);

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
