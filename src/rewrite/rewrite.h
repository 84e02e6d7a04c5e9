/* Carrying out a rewrite decision.  Each path returns REWRITE_UNAVAILABLE when our own
 * machinery fails (no scratch, kernels not loaded, a launch refused) before anything was
 * written, so the caller can forward the original call untouched. */
#ifndef BF16SHIM_REWRITE_H
#define BF16SHIM_REWRITE_H

#include "../device.h"
#include "../gemm.h"

#define REWRITE_UNAVAILABLE (-1)

/* Returns a cublasStatus_t, or REWRITE_UNAVAILABLE with *why set. */
int rewrite_fp32(const struct gemm_call *c, const struct device_facts *dev, const char **why);
int rewrite_fp16(const struct gemm_call *c, const struct device_facts *dev, const char **why);
int rewrite_decode(const struct gemm_call *c, const struct device_facts *dev, const char **why);

#endif
