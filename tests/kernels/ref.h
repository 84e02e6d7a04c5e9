/* C reference for the kernels' arithmetic, written independently of the PTX's bit tricks:
 * rounding goes through double and nearbyint (round-to-nearest-even), decoding through
 * ldexp, so a slip in the kernel's shifts and masks cannot be mirrored here. */
#ifndef KERNELS_REF_H
#define KERNELS_REF_H

#include <stdint.h>

float ref_bf16_to_f32(uint16_t h);
float ref_f16_to_f32(uint16_t h);
uint16_t ref_bf16_rne(float f);          /* not for NaN */
uint16_t ref_f16_rne(float f);           /* not for NaN */
int ref_scale(uint32_t word);           /* s(word) of kernels.h */
uint32_t ref_absmax_bits(uint16_t h);   /* |h| bits, 0 for Inf/NaN */
float ref_epilogue(float alpha, float d, float beta, float c);   /* C unused when beta == 0 */

/* Checks one kernel output (bits of ctype) against the exact value want: bit-for-bit, except
 * that a NaN only has to be a NaN (quiet, for bf16), since NaN payloads differ by platform. */
void check_out(int ctype, uint32_t got, float want, const char *ctx);

/* The bias and activation parameters both epilogue kernels end with (kernels.h). */
struct epi_extra {
	uint64_t bias;
	uint32_t bias_type, bias_along;
	uint64_t bias_bstride;
	uint32_t act;
};
void push_epi_extra(void **argv, int *n, struct epi_extra *e);
/* Element i of a bias vector of a KERNEL_TYPE_* type. */
float ref_load(int type, const void *base, uint64_t i);
/* cuBLASLt's GELU (tanh form) in double, through the identity 0.5 x (1 + tanh u) =
 * x / (1 + e^-2u), which does not cancel for negative x as 1 + tanh(u) does. */
double ref_gelu(double x);
/* Checks an output against act(pre) (act a KERNEL_ACT_*): exactly for none and ReLU, within
 * 4 f32 ulps of ref_gelu (kernels.h) before the rounding to ctype for GELU. */
void check_act(int ctype, uint32_t got, float pre, uint32_t act, const char *ctx);

#endif
