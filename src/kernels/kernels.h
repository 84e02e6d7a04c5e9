/* The shim's device code: PTX text embedded in the library, and the parameter layout of each
 * kernel.  The PTX is written for .version 6.0 / .target sm_50 with none of the sm_80
 * instructions, so one image JIT-compiles on every GPU from Maxwell on, on CUDA 11-era
 * drivers (preampere.md, "CUDA versions").
 *
 * Matrix operands are described the same way for every kernel (a "view"): element (r, c) of
 * batch item b lives at
 *     base_b + ((row0 + r) + (col0 + c) * ld) * elem_size
 *     base_b = ptr_array ? ((u64 *)ptr_array)[b] : ptr + b * batch_stride * elem_size
 * (column-major, as cuBLAS stores matrices; ptr_array is a device array of device pointers,
 * read on the device, for the *BatchedEx entry points; row0/col0 select a panel).  A view is
 * passed as six consecutive .u64 kernel parameters: ptr, ptr_array, batch_stride, ld, row0,
 * col0 (batch_stride, ld, row0, col0 are element counts, held in .u64 but never negative).
 *
 * Launch shape for all of them: blockDim = (256, 1, 1); gridDim.x covers rows in chunks of
 * 256 (threads along rows: column-major memory is contiguous along rows, so warps coalesce);
 * gridDim.y covers columns with a grid-stride loop (so gridDim.y may be smaller than cols);
 * gridDim.z = batch count.  Kernels must tolerate any gridDim.x >= ceil(rows/256) too.
 */
#ifndef BF16SHIM_KERNELS_H
#define BF16SHIM_KERNELS_H

#include <stddef.h>

/* The embedded PTX module (NUL-terminated). */
extern const char bf16shim_kernels_ptx[];

/* bf16shim_cast_bf16_f32(view src (6 x u64), u32 rows, u32 cols, u64 dst, u64 dst_batch_stride)
 *   dst[b * dst_batch_stride + r + c * rows] = (float)src(r, c)     (exact: a 16-bit shift)
 *   dst is a compact fp32 column-major matrix (ld = rows). */
#define KERNEL_CAST_BF16_F32 "bf16shim_cast_bf16_f32"

/* bf16shim_cast_f16_f32: same parameters, for fp16 operands (cvt.f32.f16, exact: every f16,
 * subnormals included, is an f32; NaN stays NaN, payload not guaranteed).  Serves
 * the retry of 16F x 16F -> 32F GEMMs that cuBLAS refuses (preampere.md, bitsandbytes). */
#define KERNEL_CAST_F16_F32 "bf16shim_cast_f16_f32"

/* bf16shim_epilogue_f32(u64 d, u64 d_batch_stride, u32 rows, u32 cols,
 *                       view c (6 x u64), u32 ctype, f32 alpha, f32 beta,
 *                       u64 alpha_ptr, u64 beta_ptr)
 *   d: compact fp32 result of the GEMM (ld = rows), batch item b at d + b*d_batch_stride*4.
 *   alpha/beta: used as given unless alpha_ptr/beta_ptr is non-zero, in which case the value
 *   is read from that device address (device pointer mode: no host synchronisation).
 *   out = alpha * d(r,c) + beta * c(r,c), computed as t = alpha*d; if (beta != 0) t = fma(beta, c, t);
 *   with beta == 0 the C operand is never read (NaN in an uninitialised C cannot leak).
 *   Written to c(r,c) rounded to ctype: KERNEL_TYPE_F32 as is, KERNEL_TYPE_BF16
 *   round-to-nearest-even with NaN kept NaN (quiet), KERNEL_TYPE_F16 cvt.rn.f16.f32.
 *   Any other ctype value writes nothing (and reads nothing). */
#define KERNEL_EPILOGUE_F32 "bf16shim_epilogue_f32"

enum kernel_type { KERNEL_TYPE_F32 = 0, KERNEL_TYPE_BF16 = 1, KERNEL_TYPE_F16 = 2 };

/* ---- fp16 fast path (issue 4): fp16_scale.ptx, fp16_epilogue.ptx; same module, same launch
 * shape. ----
 * C = alpha * op(A) op(B) + beta * C with bf16 A, B on fp16 tensor cores:
 *   1. zero the scale words (cuMemsetD32Async): one u32 per row of op(A) and per column of
 *      op(B) and batch item ("row words" [batch][m], "column words" [batch][n]);
 *   2. absmax: word = max over finite x of |x|'s bf16 bits (bits 0-15; Inf/NaN ignored).
 *      Rows of op(A) are stored rows when transa is N, stored columns when T; columns of
 *      op(B) are stored columns when transb is N, stored rows when T;
 *   3. cast each operand to a compact fp16 copy (same stored layout, ld = stored rows)
 *      scaled by 2^-s per row / column, with
 *          s(word) = floor(log2(max)) - 15   (0 when max == 0)
 *      so the max lands in [2^15, 2^16): bf16's 8-bit significands fit fp16's 11, nothing
 *      overflows, and any element within 2^32 of its row's max is exact.  An element fp16
 *      cannot hold exactly sets bit 31 of its word ("flagged"; Inf/NaN are never flagged);
 *   4. the fp16 GEMM, fp32 accumulation, fp32 compact output d (ld = m);
 *   5. epilogue: t = d * 2^(s_row + s_col) rounded once (exact for normal results), or
 *      for a flagged row or column the fp32 dot product of the bf16 inputs (fma in k order);
 *      then out = alpha * t (+ beta * C) to ctype exactly as KERNEL_EPILOGUE_F32.
 * Unflagged products are exact in fp16 x fp16 -> fp32, and power-of-two scaling commutes
 * with fp32 rounding, so outside underflow the result equals an fp32 GEMM of the same
 * summation order.  Flagged rows cost O(n k) each: the host should fall back to the fp32
 * path when many are flagged (reading the words back costs a synchronisation). */

/* bf16shim_absmax_rows(view src, u32 rows, u32 cols, u64 words)
 *   words[b * rows + r] = max(words[...], max_c |src(r, c)| bits)   (atomic max)
 * bf16shim_absmax_cols(view src, u32 rows, u32 cols, u64 words)
 *   words[b * cols + c] = max(words[...], max_r |src(r, c)| bits)
 *   (warp shuffles: needs the documented blockDim of 256, a multiple of 32) */
#define KERNEL_ABSMAX_ROWS "bf16shim_absmax_rows"
#define KERNEL_ABSMAX_COLS "bf16shim_absmax_cols"

/* bf16shim_cast_bf16_f16_scaled(view src, u32 rows, u32 cols, u64 dst, u64 dst_batch_stride,
 *                               u64 words, u32 along)
 *   dst[b * dst_batch_stride + r + c * rows] = f16(src(r, c) * 2^-s(w)), w the word of
 *   stored row r (along = 0: words[b * rows + r]) or column c (along = 1: words[b * cols + c]);
 *   sets bit 31 of w (atomic or) when that f16 is not exactly src(r, c) * 2^-s. */
#define KERNEL_CAST_BF16_F16_SCALED "bf16shim_cast_bf16_f16_scaled"

/* bf16shim_epilogue_scaled(the 15 parameters of bf16shim_epilogue_f32,
 *                          u64 row_words, u64 col_words, view a, u32 transa,
 *                          view b, u32 transb, u32 k)
 *   a, b: the original bf16 operands (stored, as given to cuBLAS; trans non-zero = T),
 *   op(A) rows x k, op(B) k x cols; read only for flagged rows and columns. */
#define KERNEL_EPILOGUE_SCALED "bf16shim_epilogue_scaled"

#define KERNEL_SCALE_FLAG 0x80000000u

#define KERNEL_BLOCK 256

#endif
