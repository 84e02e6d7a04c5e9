/* Why a rewrite path could not be taken: each reason with its text and whose fault it is
 * (log.h), so that the log blames the right party without guessing from the words.  A
 * resource or a limit is nobody's; a kernel missing from our own build is ours. */
#ifndef BF16SHIM_WHY_H
#define BF16SHIM_WHY_H

#include "log.h"

#define WHY_REASONS(X)                                                                     \
	X(WHY_NONE, LOG_BY_SHIM, "no reason given")                                        \
	/* The application's: its operands, its contexts. */                              \
	X(WHY_PAST_ALLOCATION, LOG_BY_USER, "an operand runs past its allocation")         \
	X(WHY_NO_CONTEXT, LOG_BY_USER, "no current CUDA context")                          \
	/* Limits and resources. */                                                        \
	X(WHY_K_TOO_LARGE, LOG_BY_NOBODY, "k is too large for BF16SHIM_WORKSPACE_MB")      \
	X(WHY_NO_SCRATCH, LOG_BY_NOBODY, "no device memory for scratch")                   \
	X(WHY_TOO_MANY_CONTEXTS, LOG_BY_NOBODY, "too many CUDA contexts")                  \
	X(WHY_NOT_DECODE_SHAPE, LOG_BY_NOBODY, "not a decode shape the kernel takes")      \
	X(WHY_NOT_FUSED_SHAPE, LOG_BY_NOBODY, "not a GEMM the fused kernels take")         \
	X(WHY_FP16_TAKES_BF16, LOG_BY_NOBODY, "the fp16 path takes bf16 operands only")    \
	/* A launch fails on a context an earlier fault poisoned, or on pointers inside the \
	 * caller's device arrays that point nowhere (GemmBatchedEx): nobody can tell. */  \
	X(WHY_LAUNCH_FAILED, LOG_BY_NOBODY, "a kernel launch failed")                      \
	/* The CUDA libraries': too old, or refusing what they should run. */             \
	X(WHY_CAPTURE_NEEDS_ASYNC, LOG_BY_VENDOR,                                          \
	  "stream capture needs stream-ordered allocation (CUDA 11.2+)")                   \
	X(WHY_DRIVER_LACKS_FP16, LOG_BY_VENDOR, "this driver lacks what the fp16 path needs") \
	X(WHY_DRIVER_LACKS_MODULES, LOG_BY_VENDOR,                                         \
	  "the driver lacks module or launch functions")                                   \
	X(WHY_HANDLE_UNREADABLE, LOG_BY_VENDOR,                                            \
	  "cannot read the handle's stream or pointer mode")                               \
	X(WHY_CUBLAS_LACKS_GEMM, LOG_BY_VENDOR, "this cuBLAS lacks the GEMM the rewrite needs") \
	X(WHY_CUBLASLT_LACKS, LOG_BY_VENDOR, "this cuBLASLt lacks what the rewrite needs") \
	X(WHY_FP32_GEMM_FAILED, LOG_BY_VENDOR, "the fp32 GEMM failed")                     \
	X(WHY_FP16_GEMM_FAILED, LOG_BY_VENDOR, "the fp16 GEMM failed")                     \
	/* Ours: the shim's own device code. */                                            \
	X(WHY_PTX_REFUSED, LOG_BY_SHIM, "the driver refused the shim's PTX")               \
	X(WHY_CONSTANTS_REFUSED, LOG_BY_SHIM, "the driver refused the shim's constants")   \
	X(WHY_KERNEL_MISSING, LOG_BY_SHIM, "a kernel is missing from the shim's PTX")      \
	X(WHY_CONSTANTS_MISSING, LOG_BY_SHIM, "the shim's constants are missing")          \
	X(WHY_NO_CAST_KERNEL, LOG_BY_SHIM, "no cast kernel for this operand type")         \
	X(WHY_FP16_KERNELS_MISSING, LOG_BY_SHIM, "the fp16 path's kernels are missing")    \
	X(WHY_DECODE_KERNEL_MISSING, LOG_BY_SHIM, "the decode kernel is missing")          \
	X(WHY_FUSED_KERNEL_MISSING, LOG_BY_SHIM, "the fused kernel for this GPU is missing")

enum why {
#define X(id, culprit, text) id,
	WHY_REASONS(X)
#undef X
};

/* The GEMM half's convention (src/gemm): a step of the shim's own machinery answers an enum
 * why, WHY_NONE when it was done; what cuBLAS answers stays an abi_status; questions answer
 * 1 or 0.  A step that cannot go on hands its caller the reason it got. */
#define WHY_FORWARD(expr)                                                                  \
	do {                                                                               \
		enum why why_forward_ = (expr);                                            \
		if (why_forward_ != WHY_NONE)                                              \
			return why_forward_;                                               \
	} while (0)

const char *why_text(enum why w);
enum log_culprit why_culprit(enum why w);

#endif
