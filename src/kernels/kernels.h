/* The shim's device code: PTX text embedded in the library, and the parameter layout of each
 * kernel.  The PTX is written for .version 6.0 / .target sm_50 with none of the sm_80
 * instructions, so one image JIT-compiles on every GPU from Maxwell on, on CUDA 11-era
 * drivers (doc/facts.md, "CUDA versions").
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
 * the retry of 16F x 16F -> 32F GEMMs that cuBLAS refuses (doc/facts.md, bitsandbytes). */
#define KERNEL_CAST_F16_F32 "bf16shim_cast_f16_f32"

/* bf16shim_epilogue_f32(u64 d, u64 d_batch_stride, u32 rows, u32 cols,
 *                       view c (6 x u64), u32 ctype, f32 alpha, f32 beta,
 *                       u64 alpha_ptr, u64 beta_ptr,
 *                       u64 bias, u32 bias_type, u32 bias_along, u64 bias_batch_stride,
 *                       u32 act)
 *   d: compact fp32 result of the GEMM (ld = rows), batch item b at d + b*d_batch_stride*4.
 *   alpha/beta: used as given unless alpha_ptr/beta_ptr is non-zero, in which case the value
 *   is read from that device address (device pointer mode: no host synchronisation).
 *   out = act(alpha * d(r,c) + beta * c(r,c) + bias), in fp32 in this order:
 *     t = alpha*d; if (beta != 0) t = fma(beta, c, t); if (bias) t = t + bias; t = act(t)
 *   with beta == 0 the C operand is never read (NaN in an uninitialised C cannot leak).
 *   bias: 0 for none, else a device vector of bias_type (KERNEL_TYPE_*): the element is
 *   bias[b * bias_batch_stride + r] (bias_along == 0) or [... + c] (bias_along != 0, for a
 *   row-major problem computed transposed); bias_batch_stride in elements, 0 = one vector
 *   for every batch item.  The vector starts at the panel's origin (the host offsets it).
 *   act: KERNEL_ACT_NONE, KERNEL_ACT_RELU (t > 0 ? t : 0: NaN and -0 give +0, as
 *   fmaxf(t, 0)), KERNEL_ACT_GELU (below).
 *   Written to c(r,c) rounded to ctype: KERNEL_TYPE_F32 as is, KERNEL_TYPE_BF16
 *   round-to-nearest-even with NaN kept NaN (quiet), KERNEL_TYPE_F16 cvt.rn.f16.f32.
 *   Any other ctype, bias_type or act value writes nothing (and reads nothing).
 *
 * GELU is cuBLASLt's documented tanh approximation 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715
 * x^3))), evaluated as x / (1 + 2^s) with s = -2 log2(e) sqrt(2/pi)(x + 0.044715 x^3) (the
 * same function: 1 + tanh(u) = 2 / (1 + e^-2u)).  s is computed in f64 and split into
 * rint(s) + f, so 2^s = 2^rint(s) ex2.approx(f) with |f| <= 1/2: the error is ex2.approx's
 * own (at most 2 ulp on the GPU: CUDA's exp2f, which compiles to it, documents 2 ulp) plus
 * three f32 roundings, i.e. within 4 f32 ulps of the formula evaluated exactly, at every x
 * (a plain f32 evaluation loses |s| ulps for large |x|, and all of them for x < -5 where
 * 1 + tanh cancels).  Results that are subnormal are rounded once.  x <= -11.87 (s >= 200)
 * gives -0 (the exact value is below 2^-196); x >= 11.87 gives x; -Inf gives NaN and +Inf
 * +Inf (0 * Inf and Inf in the formula); NaN stays NaN.  tests/kernels checks all of this
 * against a double evaluation of the formula. */
#define KERNEL_EPILOGUE_F32 "bf16shim_epilogue_f32"
enum kernel_act { KERNEL_ACT_NONE = 0, KERNEL_ACT_RELU = 1, KERNEL_ACT_GELU = 2 };

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

/* bf16shim_epilogue_scaled(the first 15 parameters of bf16shim_epilogue_f32,
 *                          u64 row_words, u64 col_words, view a, u32 transa,
 *                          view b, u32 transb, u32 k,
 *                          u64 bias, u32 bias_type, u32 bias_along, u64 bias_batch_stride,
 *                          u32 act)
 *   a, b: the original bf16 operands (stored, as given to cuBLAS; trans non-zero = T),
 *   op(A) rows x k, op(B) k x cols; read only for flagged rows and columns.
 *   bias ... act: as bf16shim_epilogue_f32's, applied to alpha * t + beta * C. */
#define KERNEL_EPILOGUE_SCALED "bf16shim_epilogue_scaled"

#define KERNEL_SCALE_FLAG 0x80000000u

/* ---- Decode-shaped GEMMs (issue 4, point 3): small_gemm.ptx, same module, its own launch
 * shape. ----
 * bf16shim_gemm_small(view a, u32 transa, view b, u32 transb, u32 m, u32 n, u32 k,
 *                     view c, u32 c_transposed, u32 ctype, f32 alpha, f32 beta,
 *                     u64 alpha_ptr, u64 beta_ptr,
 *                     u64 bias, u32 bias_type, u32 bias_along, u64 bias_batch_stride,
 *                     u32 act)
 *   For each batch item (gridDim.z): C(i, j) = act(alpha * sum_l op(A)(i, l) op(B)(l, j)
 *   + beta * C(i, j) + bias) for i < m, j < n, 1 <= n <= KERNEL_SMALL_MAX_N (n == 0 does
 *   nothing); bias ... act as KERNEL_EPILOGUE_F32's, with bias_along == 0 indexing the bias
 *   by i (a row of op(A)) and non-zero by j, whatever c_transposed says.
 *   a, b: the bf16 operands as stored, op(A) m x k, op(B) k x n (trans non-zero = T:
 *   op(A)(i, l) = A(l, i)); k may be 0 (the sum is 0).  c_transposed non-zero stores (i, j)
 *   at C's (row0 + j) + (col0 + i) * ld: the host does m <= 16 as C^T = op(B)^T op(A)^T.
 *   alpha, beta, alpha_ptr, beta_ptr, ctype exactly as KERNEL_EPILOGUE_F32 (beta == 0 never
 *   reads C; ctype > 2 reads and writes nothing).
 *   Arithmetic: one fp32 fma chain per (i, j) in l order, so |sum - exact| <= k 2^-24
 *   sum |products| before the final rounding; NaN and Inf as IEEE fp32 gives them (a sum
 *   that overflows is Inf, as in a native GEMM with fp32 accumulation).
 *   Traffic per call and batch item: every element of op(A) read once and coalesced (for
 *   transa = T 16-byte loads when A's base, row0 and ld are multiples of 16 bytes, 4-byte
 *   when of 4, else 2-byte; for N 2-byte loads over consecutive rows); op(B) once per block,
 *   from shared memory after that; C once (if beta != 0) and written once; 32 bytes per
 *   block (pointer-array entries, device scalars, read by one thread).
 * Launch shape (not KERNEL_BLOCK's): one thread per row of op(A), k in chunks of 64:
 *   blockDim = (KERNEL_SMALL_BLOCK(n), 1, 1): any multiple of 32 up to 1024 computes the
 *     same result (anything else traps); rows per block = blockDim.x for either transa;
 *   gridDim = (ceil(m / blockDim.x), 1, batch): more x or y blocks do nothing;
 *   dynamic shared memory KERNEL_SMALL_SHMEM(blockDim.x) bytes (less traps), plus 4128
 *   bytes static.
 * KERNEL_SMALL_BLOCK(n) = 32 ceil(n / 2) is about 16 rows per column of op(B): op(B), read
 * once per block, then costs at most n / blockDim.x = 1/16 of A's bytes (the acceptance
 * allows 10 %), while n = 1 keeps blocks of one warp and many of them for parallelism.  The
 * price: for n > 8 and m of a few thousand there are only m / 256 blocks, fewer than a big
 * GPU has SMs, and the kernel is compute-bound there. */
#define KERNEL_GEMM_SMALL "bf16shim_gemm_small"
#define KERNEL_SMALL_MAX_N 16
#define KERNEL_SMALL_BLOCK(n) (32u * ((unsigned)(n) > 1u ? ((unsigned)(n) + 1u) / 2u : 1u))
#define KERNEL_SMALL_ROWS_PER_BLOCK_T(n) KERNEL_SMALL_BLOCK(n)
#define KERNEL_SMALL_ROWS_PER_BLOCK_N(n) KERNEL_SMALL_BLOCK(n)
#define KERNEL_SMALL_SHMEM(block) ((unsigned)(block) * 128u)

#define KERNEL_BLOCK 256

#endif
