/* Carrying out a rewrite decision.  Each path answers as the GEMM half does (why.h): WHY_NONE
 * when it ran, with the call's status in *st, or why our own machinery could not (no
 * scratch, kernels not loaded, a launch refused) before anything was written, so the caller
 * can forward the original call untouched. */
#ifndef BF16SHIM_REWRITE_H
#define BF16SHIM_REWRITE_H

#include "device.h"
#include "gemm.h"
#include "why.h"

/* Bytes of one element of a GEMM operand type (the types the rewrites take). */
size_t rewrite_elem_size(int type);

/* *splits: set to the number of parts k was split into where a path ran its kernel so
 * (decode, fused: the trace shows it), else left as it was. */
enum why rewrite_fp32(const struct gemm_call *c, const struct device_facts *dev, abi_status *st,
		      uint32_t *splits);
enum why rewrite_fp16(const struct gemm_call *c, const struct device_facts *dev, abi_status *st,
		      uint32_t *splits);
enum why rewrite_decode(const struct gemm_call *c, const struct device_facts *dev,
			abi_status *st, uint32_t *splits);
enum why rewrite_fused(const struct gemm_call *c, const struct device_facts *dev,
		       abi_status *st, uint32_t *splits);

/* Where c's alpha and beta live (ABI_POINTER_MODE_*), as its backend reads it; -1 if it
 * cannot tell.  A host call, never a GPU synchronisation: for the trace. */
int rewrite_pointer_mode(const struct gemm_call *c);

/* The backends: what a rewrite takes from cuBLAS (the handle's stream and pointer mode, its
 * strided batched GEMM) or from cuBLASLt (the call's own, cublasLtMatmul). */
extern const struct gemm_backend rewrite_via_cublas, rewrite_via_cublaslt;

/* Copies a rows x cols matrix (column-major, ld in elements; batch items stride elements
 * apart) on the stream, without synchronising: C into D before a rewritten cuBLASLt call
 * whose D is not its C.  WHY_NONE, or WHY_LAUNCH_FAILED. */
enum why rewrite_copy_matrix(abi_stream stream, const void *src, int64_t ld_src, int64_t stride_src,
			void *dst, int64_t ld_dst, int64_t stride_dst, int64_t rows, int64_t cols,
			int64_t batch, size_t esize);

#endif
