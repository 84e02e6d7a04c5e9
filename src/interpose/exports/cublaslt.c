/* Exported cuBLASLt entry points: one-line forwards to the shim's entry functions of the
 * same signatures (lt.c). */
#include "lt.h"

/* The vendor headers declare these; the shim does not include them. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define EXPORT __attribute__((visibility("default")))

EXPORT abi_status cublasLtMatmul(abi_lt_handle handle, abi_lt_desc desc, const void *alpha,
				 const void *A, abi_lt_layout adesc, const void *B,
				 abi_lt_layout bdesc, const void *beta, const void *C,
				 abi_lt_layout cdesc, void *D, abi_lt_layout ddesc,
				 const abi_lt_algo *algo, void *workspace,
				 size_t workspace_bytes, abi_stream stream)
{
	return shim_cublasLtMatmul(handle, desc, alpha, A, adesc, B, bdesc, beta, C, cdesc, D,
				   ddesc, algo, workspace, workspace_bytes, stream);
}

EXPORT abi_status cublasLtMatmulAlgoGetHeuristic(abi_lt_handle handle, abi_lt_desc desc,
						 abi_lt_layout adesc, abi_lt_layout bdesc,
						 abi_lt_layout cdesc, abi_lt_layout ddesc,
						 abi_lt_pref pref, int requested,
						 abi_lt_heuristic_result *results, int *returned)
{
	return shim_cublasLtMatmulAlgoGetHeuristic(handle, desc, adesc, bdesc, cdesc, ddesc,
						   pref, requested, results, returned);
}
