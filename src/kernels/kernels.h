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

/* bf16shim_cast_f16_f32: same parameters, for fp16 operands (cvt.f32.f16, exact).  Serves
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
 *   round-to-nearest-even with NaN kept NaN (quiet), KERNEL_TYPE_F16 cvt.rn.f16.f32. */
#define KERNEL_EPILOGUE_F32 "bf16shim_epilogue_f32"

enum kernel_type { KERNEL_TYPE_F32 = 0, KERNEL_TYPE_BF16 = 1, KERNEL_TYPE_F16 = 2 };

#define KERNEL_BLOCK 256

#endif
