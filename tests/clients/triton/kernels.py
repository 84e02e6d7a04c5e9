"""bf16 Triton kernels written the way their authors write them.

rms_norm: xformers' RMSNorm (xformers/ops/_triton/rmsnorm_kernels.py): bf16 in and out, fp32
accumulation, a bf16 weight.  softmax: Triton's tutorial row softmax, bf16 in and out, fp32
inside.  matmul: Triton's tutorial matmul, bf16 operands, tl.dot into fp32, bf16 out (or, OUT_BF16 false,
fp32 out: run_triton_dot.py runs it with fp16 operands on the tensor-core path).
round_bf16: fp32 -> bf16 with the rounding mode named explicitly (rtne, rtz); pack_bf16x2: the
same conversion as inline PTX (cvt.rn.bf16x2.f32).
"""
import triton
import triton.language as tl

try:  # where xformers takes rsqrt from
    from triton.language.extra.cuda.libdevice import rsqrt
except ImportError:
    from triton.language.math import rsqrt


@triton.jit
def rms_norm(x_ptr, h1_ptr, w_ptr, eps, stride, N_COLS: tl.constexpr, BLOCK_SIZE: tl.constexpr,
             INCLUDE_WEIGHT: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    h1_ptr += row * stride

    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for offset in range(0, N_COLS, BLOCK_SIZE):
        cols = offset + tl.arange(0, BLOCK_SIZE)
        a = tl.load(x_ptr + cols, mask=cols < N_COLS, other=0.0, eviction_policy="evict_last").to(tl.float32)
        _mean += a * a

    rstd = rsqrt((tl.sum(_mean, axis=0) / N_COLS) + eps)
    for offset in range(0, N_COLS, BLOCK_SIZE):
        cols = offset + tl.arange(0, BLOCK_SIZE)
        mask = cols < N_COLS
        a = tl.load(x_ptr + cols, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
        if INCLUDE_WEIGHT:
            w = tl.load(w_ptr + cols, mask=mask)
            tl.store(h1_ptr + cols, a * rstd * w, mask=mask)
        else:
            tl.store(h1_ptr + cols, a * rstd, mask=mask)


@triton.jit
def softmax(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
            BLOCK_SIZE: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf')).to(tl.float32)
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output.to(tl.bfloat16), mask=mask)


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
           GROUP_SIZE_M: tl.constexpr, OUT_BF16: tl.constexpr = True):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if OUT_BF16:
        c = accumulator.to(tl.bfloat16)
    else:
        c = accumulator

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@triton.jit
def round_bf16(x_ptr, y_ptr, n, BLOCK: tl.constexpr, ROUNDING: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x.to(tl.bfloat16, fp_downcast_rounding=ROUNDING), mask=mask)


@triton.jit
def pack_bf16x2(x_ptr, y_ptr, n_pairs, BLOCK: tl.constexpr):
    # Two fp32 -> one bf16x2 word with the instruction written out, as hand-tuned kernels do.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_pairs
    lo = tl.load(x_ptr + 2 * offs, mask=mask)
    hi = tl.load(x_ptr + 2 * offs + 1, mask=mask)
    packed = tl.inline_asm_elementwise("cvt.rn.bf16x2.f32 $0, $2, $1;", "=r,f,f", [lo, hi],
                                       dtype=tl.int32, is_pure=True, pack=1)
    tl.store(y_ptr + offs, packed, mask=mask)
