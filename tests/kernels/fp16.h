/* The fp16 path's kernels (kernels.h, KERNEL_FP16_SLICES, KERNEL_EPILOGUE_SCALED,
 * KERNEL_FP16_TAIL): launchers and the C reference of the slices, shared by the test files. */
#ifndef KERNELS_FP16_H
#define KERNELS_FP16_H

#include "harness.h"

/* One job of bf16shim_fp16_slices. */
struct sjob {
	struct view v;
	uint32_t vecs, k, vec_rows;
	uint64_t dst1, dst2, words;
	uint32_t vpb, staged;
};
/* Launches the slices kernel over one or two jobs for batch items; dynamic shared memory as
 * the jobs need it. */
ptx_status run_slices(ptx_module *mod, struct sjob *jobs, int njobs, unsigned batch,
		      ptx_launch_stats *stats);

/* The reference of one vector: its two slices (k f16 each) and words; S is checked apart
 * (s_ok), as the kernel rounds its sum up in its own order. */
struct slices_ref {
	uint32_t w0, g2;
	double sum;          /* exact sum of |x| (Inf, NaN as they come) */
	int has2;
};
void ref_slices(const uint16_t *x, unsigned k, uint16_t *s1, uint16_t *s2,
		struct slices_ref *r);
/* Is bf16 S (bits 16-31 of w1) an upper bound of sum within 2^-6? */
int s_ok(uint32_t w1, double sum);
/* The scale exponent a word's max gives (kernels.h). */
int word_scale(uint32_t w0);

#endif
