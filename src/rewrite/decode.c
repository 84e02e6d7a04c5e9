/* The decode path: one kernel reads the bf16 operands directly, so traffic equals the
 * native GEMM's.  Waiting for its kernel (kernels.h, bf16shim_gemm_small). */
#include "rewrite_internal.h"

int rewrite_decode(const struct gemm_call *c, const struct device_facts *dev, const char **why)
{
	(void)c;
	(void)dev;
	*why = "the decode kernel is not in this build";
	return REWRITE_UNAVAILABLE;
}
