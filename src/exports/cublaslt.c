/* Exported cuBLASLt entry points.  The fast path calls the real function directly for nested
 * calls (cuBLAS into cuBLASLt) and with BF16SHIM_MODE=off, unless the algorithm is one our
 * heuristic returned; everything else goes to the dispatcher (lt.c). */
#include "../gemm.h"
#include "../lt.h"

/* The vendor headers declare these; the shim does not include them. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define EXPORT __attribute__((visibility("default")))

static inline int lt_fast_pass(const abi_lt_algo *algo)
{
	if (__builtin_expect(!__atomic_load_n(&shim_fast.lt_ready, __ATOMIC_ACQUIRE), 0))
		return 0;
	return (shim_depth || __atomic_load_n(&shim_fast.pass_all, __ATOMIC_RELAXED)) &&
	       !lt_algo_is_ours(algo);
}

/* Same parameters as the export, so both of its exits are plain tail calls: the fast path
 * never touches the arguments on the stack. */
__attribute__((noinline, cold)) static abi_status
matmul_slow(abi_lt_handle handle, abi_lt_desc desc, const void *alpha, const void *A,
	    abi_lt_layout adesc, const void *B, abi_lt_layout bdesc, const void *beta,
	    const void *C, abi_lt_layout cdesc, void *D, abi_lt_layout ddesc,
	    const abi_lt_algo *algo, void *workspace, size_t workspace_bytes, abi_stream stream)
{
	return shim_lt_matmul(&(struct lt_matmul_args){handle, desc, alpha, A, adesc, B, bdesc,
						       beta, C, cdesc, D, ddesc, algo, workspace,
						       workspace_bytes, stream});
}

EXPORT abi_status cublasLtMatmul(abi_lt_handle handle, abi_lt_desc desc, const void *alpha,
				 const void *A, abi_lt_layout adesc, const void *B,
				 abi_lt_layout bdesc, const void *beta, const void *C,
				 abi_lt_layout cdesc, void *D, abi_lt_layout ddesc,
				 const abi_lt_algo *algo, void *workspace, size_t workspace_bytes,
				 abi_stream stream)
{
	if (lt_fast_pass(algo))
		return real_lt.cublasLtMatmul(handle, desc, alpha, A, adesc, B, bdesc, beta, C,
					      cdesc, D, ddesc, algo, workspace, workspace_bytes,
					      stream);
	return matmul_slow(handle, desc, alpha, A, adesc, B, bdesc, beta, C, cdesc, D, ddesc,
			   algo, workspace, workspace_bytes, stream);
}

EXPORT abi_status cublasLtMatmulAlgoGetHeuristic(abi_lt_handle handle, abi_lt_desc desc,
						 abi_lt_layout adesc, abi_lt_layout bdesc,
						 abi_lt_layout cdesc, abi_lt_layout ddesc,
						 abi_lt_pref pref, int requested,
						 abi_lt_heuristic_result *results, int *returned)
{
	if (lt_fast_pass(NULL))
		return real_lt.cublasLtMatmulAlgoGetHeuristic(handle, desc, adesc, bdesc, cdesc,
							      ddesc, pref, requested, results,
							      returned);
	return shim_lt_heuristic(&(struct lt_heuristic_args){handle, desc, adesc, bdesc, cdesc,
							     ddesc, pref, requested, results,
							     returned});
}
