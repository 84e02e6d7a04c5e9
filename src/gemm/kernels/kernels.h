/* The shim's device code: PTX text embedded in the library, and the parameter layout of each
 * kernel.  The PTX is written for .version 6.0 / .target sm_50 with none of the sm_80
 * instructions, so one image JIT-compiles on every GPU from Maxwell on, on CUDA 11-era
 * drivers (doc/facts.md, "CUDA versions").  The tensor-core modules are the exception:
 * KERNEL_FP16_TAIL's (.target sm_70), the fused path's Volta kernel (.target sm_70, PTX 6.4)
 * and Turing kernel (.target sm_75, PTX 6.5), each loaded only where the GPU has them.
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
 *                       u32 act, u32 splits, u64 d_split_stride)
 *   d: compact fp32 result of the GEMM (ld = rows), batch item b at d + b*d_batch_stride*4;
 *   with splits > 1, the sum of that many such results d_split_stride elements apart, added
 *   in order (the partial results of a split k), before anything else.
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

/* ---- fp16 path: fp16_scale.ptx, fp16_epilogue.ptx (this module), fp16_tail.ptx (the
 * tensor-core module below). ----
 * C = alpha * op(A) op(B) + beta * C with bf16 A, B on fp16 tensor cores.  A "vector" is a
 * row of op(A) or a column of op(B): k elements.
 *   1. bf16shim_fp16_slices, one launch for both operands: per vector the scale
 *          s = floor(log2(max |x| over finite x)) - 15   (0 when that max is 0)
 *      and two fp16 copies ("slices"), compact, vector after vector (element l of vector v
 *      of batch item b at dst[(b * vecs + v) * k + l]):
 *          slice 1: x * 2^-s where that f16 is exactly x * 2^-s, else 0;
 *          slice 2: x * 2^(33 - s) where x is not in slice 1 and that f16 is exact, else 0
 *                   (written only for a vector that has such an element).
 *      bf16's 8 significant bits fit fp16's 11, so slice 1 holds every element within 2^32
 *      of the vector's largest (and Inf and NaN), slice 2 the next 33 binades; an element in
 *      neither is at most 2^-65 of the largest.  And two words per vector (8 bytes, at
 *      words[(b * vecs + v) * 2]), magnitudes as bf16 bits:
 *          w0: bits 0-14 the largest finite |x|; bit 15: slice 2 is not empty;
 *              bits 16-31 g1 = the largest |x| outside slice 1 (0 for none)
 *          w1: bits 0-15 g2 = the largest |x| in neither slice (0 for none); bits 16-31
 *              S = the sum of all |x|, rounded up (Inf or NaN if the vector has one)
 *   2. the fp16 GEMM of the slices 1, fp32 accumulation: d (ld = m), the converted
 *      operands as k x m and k x n column-major (transa = T, transb = N);
 *   3. bf16shim_fp16_tail (sm_70 and newer): d += 2^-33 (A2 B1 + A1 B2) where the row or the
 *      column has a slice 2, on the tensor cores; tiles without one cost two word reads;
 *   4. bf16shim_epilogue_scaled: t = d * 2^(s_r + s_c) (exact outside underflow) unless the
 *      bound on the products the slices left out,
 *          with the tail:    k g1_r g1_c + g2_r S_c + g2_c S_r
 *          without it:       g1_r S_c + g1_c S_r
 *      (rounded up) exceeds 2^-28 |t|: then t is the fp32 dot product of the bf16 inputs
 *      (fma in k order: O(k) reads for that output).  Then out = alpha * t (+ beta * C ...)
 *      exactly as KERNEL_EPILOGUE_F32.
 * Why 2^-28 |t| keeps the accuracy bound (README, "Accuracy"): products of fp16 values are
 * exact in fp32 and power-of-two scales commute with rounding, so the computed part errs by
 * at most R <= (k + 1) 2^-24 sum |a b| (k - 1 additions in the GEMM, one for the tail, one
 * combining).  If R <= |t| / 2 and the left-out part L <= |t| / 4, sum |a b| >= |exact| >=
 * |t| / 4; otherwise sum |a b| >= R / ((k + 1) 2^-24) >= |t| / (2 (k + 1) 2^-24).  Either
 * way L <= 2^-28 |t| <= 2^-24 sum |a b| for k < 2^26, and the total stays within
 * (k + 2) 2^-24 sum |a b|.  No decision comes back to the host: which vectors have a slice
 * 2, which tiles run the tail and which outputs are recomputed are all settled on the
 * device. */

/* bf16shim_fp16_slices(job 0: view src, u32 vecs, u32 k, u32 vec_rows, u64 dst1, u64 dst2,
 *                             u64 words, u32 vpb, u32 staged,
 *                      job 1: the same 14, u32 blocks0)
 *   Blocks x < blocks0 take job 0 (op(A)), the others job 1 (op(B)); gridDim.z = batch.
 *   vec_rows: 0 when a vector is a stored column (element l of vector v at src(l, v)), else
 *   a stored row (src(v, l)).  A block takes vpb vectors (1, 2, 4 ... 32), blockDim.x = 256.
 *   staged != 0: the vectors are kept in dynamic shared memory (vpb * k * 2 bytes, the
 *   launch's dynamic shared memory the largest of the two jobs'), so each element is read
 *   once; else passes 2 and 3 read it again.  Traffic per vector: 2k read (4k unstaged),
 *   2k written for slice 1, 2k more (and 2k read unstaged) only with a slice 2, 8 bytes of
 *   words. */
#define KERNEL_FP16_SLICES "bf16shim_fp16_slices"
#define KERNEL_FP16_WORD_BYTES 8
#define KERNEL_FP16_VPB_MAX 32

/* bf16shim_epilogue_scaled(the first 15 parameters of bf16shim_epilogue_f32,
 *                          u64 row_words, u64 col_words, u32 row_vecs, u32 col_vecs,
 *                          view a, u32 transa, view b, u32 transb, u32 k, u32 tail,
 *                          u64 bias, u32 bias_type, u32 bias_along, u64 bias_batch_stride,
 *                          u32 act)
 *   row_words: the words of row 0 of the tile (batch item b at + b * row_vecs * 8 bytes);
 *   col_words likewise.  a, b: the original bf16 operands (stored, as given to cuBLAS;
 *   trans non-zero = T), op(A) rows x k, op(B) k x cols; read only for recomputed outputs.
 *   tail: non-zero if bf16shim_fp16_tail ran on d.  bias ... act: as bf16shim_epilogue_f32's.
 *   Launch: KERNEL_BLOCK threads along rows, a thread's columns y, y + gridDim.y, ...; a
 *   block reads its columns' words once into shared memory, so gridDim.y must be at least
 *   ceil(cols / KERNEL_EPILOGUE_COLS_MAX) (fewer writes nothing).  Per output: d read, C
 *   written (and read with beta); the row's words once a thread, the column's once a block. */
#define KERNEL_EPILOGUE_COLS_MAX 256
#define KERNEL_EPILOGUE_SCALED "bf16shim_epilogue_scaled"

/* The tensor-core module: embedded as bf16shim_kernels_tc_ptx, .target sm_70, loaded only
 * where the GPU has tensor cores.
 * bf16shim_fp16_tail(u64 a1, u64 a2, u64 a_bstride, u64 b1, u64 b2, u64 b_bstride,
 *                    u64 row_words, u32 row_vecs, u64 col_words, u32 col_vecs,
 *                    u32 m, u32 n, u32 k, u64 d, u64 d_bstride, u64 ldd)
 *   a1, a2: slices of row 0 of the tile (k elements a row, batch item b at + b * a_bstride
 *   elements); b1, b2 likewise for columns; the words as the epilogue takes them; d: the
 *   tile's fp32 result, ld = ldd, batch item b at + b * d_bstride elements.
 *   For every (i, j) whose row or column has a slice 2: d(i, j) += 2^-33 (sum over l of
 *   [row i has one] A2(i, l) B1(l, j) + [column j has one] A1(i, l) B2(l, j)), products
 *   summed on the tensor cores in fp32, one rounding adding them to d.
 *   Launch: blockDim = (256, 1, 1), gridDim = (ceil(m / 64), ceil(n / 64), batch): a block
 *   per 64 x 64 tile, 8 warps of two 16 x 16 fragments.  A tile with no slice 2 reads its
 *   128 rows' and columns' first words and stops; one with some reads, per 16 of k, its
 *   flagged rows' slice 2 and all of B's slice 1 (and the reverse for flagged columns), and
 *   reads and writes only its flagged outputs of d. */
extern const char bf16shim_kernels_tc_ptx[];
#define KERNEL_FP16_TAIL "bf16shim_fp16_tail"
#define KERNEL_FP16_TAIL_TILE 64

/* ---- Decode-shaped GEMMs: small_gemm.ptx, same module, its own launch
 * shape. ----
 * bf16shim_gemm_small(view a, u32 transa, view b, u32 transb, u32 m, u32 n, u32 k,
 *                     view c, u32 c_transposed, u32 ctype, f32 alpha, f32 beta,
 *                     u64 alpha_ptr, u64 beta_ptr,
 *                     u64 bias, u32 bias_type, u32 bias_along, u64 bias_batch_stride,
 *                     u32 act, u32 kc, u64 c_split_stride)
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
 *   split k (kc != 0): gridDim.y = ceil(k / kc), block row y sums l from y kc, kc of them
 *   (a multiple of 64), into its own C, c_split_stride elements after row y - 1's: the host
 *   gives C as an fp32 scratch with alpha 1, beta 0, no bias or activation, and adds the
 *   splits in the fp32 epilogue (KERNEL_EPILOGUE_F32's splits);
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

/* ---- Fused path: one kernel that reads bf16 and converts it in registers (issue 28):
 * fused_tc75.ptx (Turing tensor cores, mma.m16n8k8 with ldmatrix; module
 * bf16shim_kernels_tc75_ptx, .target sm_75) and fused_tc70.ptx (Volta tensor cores,
 * mma.m8n8k4; module bf16shim_kernels_tc70_ptx, .target sm_70), one body (fused_tc.ptxi)
 * with the fragments fused_*.ptxi; they differ only in how a warp multiplies its tiles.
 * fused_fma.ptx (the CUDA cores, main module) for GPUs without tensor cores. ----
 * bf16shim_fused_tc75 and bf16shim_fused_tc70
 *                    (view a, u32 transa, view b, u32 transb, u32 m, u32 n, u32 k,
 *                     view c, u32 ctype, f32 alpha, f32 beta, u64 alpha_ptr, u64 beta_ptr,
 *                     u64 bias, u32 bias_type, u32 bias_along, u64 bias_batch_stride,
 *                     u32 act, u32 group_m)
 *   For each batch item (gridDim.z): C(i, j) = act(alpha sum_l op(A)(i, l) op(B)(l, j)
 *   + beta C(i, j) + bias) for i < m, j < n: views, transposes, scalars (device pointer
 *   mode too), bias, activation and ctype as KERNEL_GEMM_SMALL's (beta == 0 never reads
 *   C; ctype, bias_type or act out of range reads and writes nothing), k may be 0.
 *   Launch: blockDim = (KERNEL_FUSED_THREADS, 1, 1) (.reqntid), gridDim = (ceil(m /
 *   KERNEL_FUSED_TC_M), ceil(n / KERNEL_FUSED_TC_N), batch), no dynamic shared memory.
 *   Blocks take their tiles in launch order over groups of group_m rows of tiles (0: all),
 *   each group column by column (odd groups from the last column, so that a group starts
 *   on the op(B) panels its predecessor ended on): the blocks a card runs at once then
 *   share a few panels of op(A), which stay in the L2 while C goes out through
 *   evict-first (.cs) stores; the host picks group_m for the least op(A) and op(B)
 *   traffic its model of the L2 gives (rewrite/fused.c, group_rows).
 *   A block computes a 128 x 256 tile of C over k in chunks of 32: the bf16 elements of
 *   the chunk are loaded as stored (16-byte loads along k, 4-byte across, element by
 *   element at the edges and for unaligned views), the next chunk's while this one is
 *   multiplied; each row of op(A) and column of op(B) (a "vector") has a capacity, the
 *   exponent of its largest element so far plus 4 binades, and is scaled by the power of
 *   two that puts that capacity at fp16's top, 2^15..2^16: its elements are rounded to fp16
 *   (slice 1), exact for all but tiny ones, nonzero and below 2^-17 once scaled.  A vector
 *   that outgrows its capacity takes a new one and its outputs' accumulators shrink by
 *   the same power of two (exact; a drop past 2^-40 flags the vector "left out").  A chunk
 *   where some vector has tiny elements also multiplies their second slices, rn((x s -
 *   slice 1) 2^33), exact down to 2^-50 once scaled (below: the vector is flagged), against
 *   the other operand's first slices, on the tensor cores, from the values already loaded:
 *   acc = (acc 2^33 + A2 B1) 2^-33 and (acc 2^33 + A1 B2) 2^-33, exact scalings.  Products
 *   of fp16 values are exact in fp32, so the accumulators hold the sum of every product
 *   but those of two second slices and of what is in neither slice, each at most 2^-50 and
 *   2^-41 (in the accumulator's units: the product of the two scales) a product.  The
 *   epilogue (fused_out.ptxi) removes the scales (exactly, but for the one rounding of a
 *   result in fp32's subnormal range), and where the row and the column have flags
 *   compares that bound, k 2^-50 + k 2^-41 per flag, with 2^-28 |acc|: beyond it, the
 *   output is recomputed from the bf16 inputs as one fp32 fma chain in k order.  The
 *   argument of KERNEL_FP16_SLICES (2^-28 |t| keeps the README's accuracy bound) applies
 *   as written.  Nothing comes back to the host and nothing is written but C, once.
 *   Split k (rewrite/fused.c; cost.h, cost_fused_splits): the host runs one GEMM as a
 *   batch of s whose views step k / s along k from one item to the next, into fp32
 *   partial results that bf16shim_epilogue_f32 adds; the kernel does not know.
 *   Traffic: op(A) once per column block, op(B) once per row block (a card's L2 serves
 *   the repeats), C written once (read once with beta != 0), 24 bytes a block of views and
 *   scalars; more only for recomputed outputs.
 *   Volta's kernel spills a little (ptxas 12.4: 124 bytes, in the conversion): its
 *   m8n8k4 accumulators need more registers than Turing's m16n8k8.
 * bf16shim_fused_fma(the same parameters)
 *   The same GEMM on the CUDA cores, for Maxwell, Pascal and GTX 16xx: a block computes a
 *   128 x 128 tile (KERNEL_FUSED_FMA_M, _N; gridDim as above with them) over k in chunks
 *   of 8, each thread 8 x 8 outputs; the chunk's bf16 elements are loaded as stored (one
 *   8-byte load of four along k or four across, element by element at the edges and for
 *   unaligned views), the next chunk's while this one is multiplied, widened to fp32
 *   (exact) into shared memory, and every output is one fp32 fma chain in k order from
 *   zero: bit for bit the reference the accuracy contract names, infinities and NaN
 *   included, with no scales, slices or recompute.  The epilogue is the tensor-core
 *   kernels' (fused_out.ptxi, with every scale 1).  Two blocks share a multiprocessor:
 *   .minnctapersm 2 keeps ptxas to 128 registers, and 32 KiB of shared memory a block
 *   fits twice in the 64 KiB of P100, Maxwell and GTX 16xx.  Traffic as above. */
extern const char bf16shim_kernels_tc70_ptx[];
extern const char bf16shim_kernels_tc75_ptx[];
#define KERNEL_FUSED_TC75 "bf16shim_fused_tc75"
#define KERNEL_FUSED_TC70 "bf16shim_fused_tc70"
#define KERNEL_FUSED_FMA "bf16shim_fused_fma"
#define KERNEL_FUSED_THREADS 256
#define KERNEL_FUSED_TC_M 128
#define KERNEL_FUSED_TC_N 256
#define KERNEL_FUSED_FMA_M 128
#define KERNEL_FUSED_FMA_N 128
/* Blocks of a fused kernel that share a multiprocessor (the CUDA cores' kernel: see above;
 * the tensor-core kernels take all registers and one block fits). */
#define KERNEL_FUSED_FMA_BLOCKS_PER_SM 2

#define KERNEL_BLOCK 256

#endif
