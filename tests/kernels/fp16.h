/* Launchers of the fp16 path's scale kernels, shared by its two test files. */
#ifndef KERNELS_FP16_H
#define KERNELS_FP16_H

#include "harness.h"

ptx_status run_absmax(ptx_module *mod, int cols_kernel, const struct mat *src,
		      uint32_t *words, unsigned gx, unsigned gy);
ptx_status run_cast_scaled(ptx_module *mod, const struct mat *src, struct mat *dst,
			   uint32_t *words, uint32_t along, unsigned gx, unsigned gy);

#endif
