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

#endif
