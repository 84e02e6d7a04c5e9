"""Each kernel of kernels.py with its inputs, launch and fp64 reference on the CPU.

A case builds the same inputs every time (fixed seeds), launches as its library does
(grid, num_warps, block sizes), and checks the outputs against PyTorch on the CPU:

- rms_norm, softmax: random inputs; at most 1 bf16 ulp from the correctly rounded fp64
  result.  Their fp32 arithmetic (sums of at most 1000 positive terms, rsqrt and ex2
  approximations within 2^-22) is off by less than 1e-4 relative even in the worst case,
  far below half a bf16 ulp (2^-9), so a result can land on the neighbour of the correctly
  rounded value only when the exact value lies that close to a rounding boundary; 2 ulps is
  a bug.
- matmul: operands are multiples of 2^-4 in [-1, 1] (exact in bf16), so every product and
  partial sum is exact in fp32 in any order, and the one rounding is the final one to
  bf16: the result must be exactly the correctly rounded fp64 product (0 ulps).  Sums reach
  72 with 8 fractional bits, so that rounding sees ties.
- round_rtz, round_rtne, pack_bf16x2: every result bit-exact for non-NaN inputs (zeros,
  subnormals, ties, overflow to infinity, random bit patterns), NaN for NaN inputs.
"""
import torch

BF16 = torch.bfloat16


def cdiv(a, b):
    return (a + b - 1) // b


def bf16_rne(ref):
    """fp64 -> bf16, correctly rounded (torch goes through fp32: two roundings)."""
    r32 = ref.float()
    # Where the fp32 rounding landed exactly on a bf16 tie, step back towards the exact value.
    tie = ((r32.view(torch.int32) & 0xFFFF) == 0x8000) & (r32.double() != ref)
    toward = torch.where(r32.double() < ref, float("inf"), float("-inf")).float()
    return torch.where(tie, torch.nextafter(r32, toward), r32).to(BF16)


def ordered(bits16):
    """bf16 bit patterns (int32) -> integers in value order (+0 and -0 both 0)."""
    mag = bits16 & 0x7FFF
    return torch.where((bits16 & 0x8000) != 0, -mag, mag)


def bf16_bits(t):
    return t.contiguous().view(torch.int16).to(torch.int32) & 0xFFFF


def is_nan_bits(bits16):
    return ((bits16 & 0x7F80) == 0x7F80) & ((bits16 & 0x7F) != 0)


def ulp_distance(got, ref64):
    """Largest distance in bf16 ulps between bf16 GOT and the correctly rounded REF64; NaN in
    either counts as infinitely far unless both are NaN."""
    g, r = bf16_bits(got), bf16_bits(bf16_rne(ref64))
    gn, rn = is_nan_bits(g), is_nan_bits(r)
    if bool((gn != rn).any()):
        return float("inf")
    d = (ordered(g) - ordered(r)).abs()[~gn]
    return int(d.max()) if d.numel() else 0


class Case:
    """name, fn (attribute of kernels), args() -> (args, constexprs, num_warps, grid,
    outputs), check(args) -> (ok, text)."""


class RmsNorm(Case):
    name, fn = "rms_norm", "rms_norm"
    rows, cols, eps = 4, 1000, 1e-6

    def args(self):
        g = torch.Generator().manual_seed(1)
        x = torch.randn(self.rows, self.cols, generator=g).to(BF16)
        w = (1 + 0.1 * torch.randn(self.cols, generator=g)).to(BF16)
        out = torch.zeros_like(x)
        # xformers: BLOCK_SIZE = min(64 KiB / element size, next power of 2 >= N),
        # num_warps = min(max(BLOCK_SIZE // 256, 1), 8), one program per row.
        block = min(65536 // x.element_size(), 1 << (self.cols - 1).bit_length())
        warps = min(max(block // 256, 1), 8)
        return ([x, out, w, self.eps, x.stride(0)],
                dict(N_COLS=self.cols, BLOCK_SIZE=block, INCLUDE_WEIGHT=True), warps,
                (self.rows, 1, 1), [1])

    def check(self, a):
        x, out, w = a[0].double(), a[1], a[2].double()
        rstd = 1 / torch.sqrt((x * x).mean(dim=1, keepdim=True) + self.eps)
        d = ulp_distance(out, x * rstd * w)
        return d <= 1, f"max {d} ulp"


class Softmax(Case):
    name, fn = "softmax", "softmax"
    rows, cols, programs = 6, 781, 4

    def args(self):
        g = torch.Generator().manual_seed(2)
        x = (3 * torch.randn(self.rows, self.cols, generator=g)).to(BF16)
        y = torch.zeros_like(x)
        block = 1 << (self.cols - 1).bit_length()
        # Fewer programs than rows: the tutorial's persistent loop takes the rest.
        return ([y, x, x.stride(0), y.stride(0), self.rows, self.cols], dict(BLOCK_SIZE=block), 4,
                (self.programs, 1, 1), [0])

    def check(self, a):
        d = ulp_distance(a[0], torch.softmax(a[1].double(), dim=1))
        return d <= 1, f"max {d} ulp"


class Matmul(Case):
    name, fn = "matmul", "matmul"
    m, n, k = 64, 40, 72     # n and k not multiples of the blocks: masked edges
    blocks = dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=4)

    def args(self):
        g = torch.Generator().manual_seed(3)
        a = (torch.randint(-16, 17, (self.m, self.k), generator=g) / 16).to(BF16)
        b = (torch.randint(-16, 17, (self.k, self.n), generator=g) / 16).to(BF16)
        c = torch.zeros(self.m, self.n, dtype=BF16)
        grid = cdiv(self.m, self.blocks["BLOCK_SIZE_M"]) * cdiv(self.n, self.blocks["BLOCK_SIZE_N"])
        return ([a, b, c, self.m, self.n, self.k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                 c.stride(0), c.stride(1)], dict(self.blocks), 4, (grid, 1, 1), [2])

    def check(self, a):
        d = ulp_distance(a[2], a[0].double() @ a[1].double())
        return d == 0, f"max {d} ulp"


def special_floats():
    """fp32 bit patterns that test a rounding: zeros, subnormals, ties, overflow, NaN, and
    random patterns over the whole range."""
    s = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001,
         0x3F800000, 0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF, 0xBF808000, 0xBF818000,
         0x00000001, 0x007FFFFF, 0x00008000, 0x00018000, 0x80008000, 0x00800000, 0x7F7FFFFF,
         0x7F7F8000, 0x7F7F7FFF, 0xFF7FFFFF, 0x477FE000, 0x3EAAAAAB, 0xC2F6E979]
    g = torch.Generator().manual_seed(4)
    r = torch.randint(0, 1 << 32, (1000 - len(s),), generator=g, dtype=torch.int64)
    return torch.cat([torch.tensor(s, dtype=torch.int64), r])


def as_f32(bits64):
    return ((bits64 + (1 << 31)) % (1 << 32) - (1 << 31)).to(torch.int32).view(torch.float32)


def expected_bf16(bits64, mode):
    """The bf16 bits of each fp32 pattern, rounded by MODE; -1 where the input is NaN."""
    b = bits64 & 0xFFFFFFFF
    nan = ((b & 0x7F800000) == 0x7F800000) & ((b & 0x7FFFFF) != 0)
    if mode == "rtz":
        r = b >> 16
    else:
        r = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return torch.where(nan, torch.full_like(r, -1), r & 0xFFFF)


def conversion_check(got_bits, want):
    nan = want < 0
    bad_nan = ~is_nan_bits(got_bits[nan])
    wrong = (got_bits[~nan] != want[~nan])
    n = int(wrong.sum()) + int(bad_nan.sum())
    return n == 0, "exact" if n == 0 else f"{n} of {want.numel()} wrong"


class Round(Case):
    block = 256

    fn = "round_bf16"

    def __init__(self, mode):
        self.mode = mode
        self.name = "round_" + mode

    def args(self):
        x = as_f32(special_floats())
        y = torch.zeros(x.numel(), dtype=BF16)
        return ([x, y, x.numel()], dict(BLOCK=self.block, ROUNDING=self.mode), 4,
                (cdiv(x.numel(), self.block), 1, 1), [1])

    def check(self, a):
        return conversion_check(bf16_bits(a[1]).to(torch.int64), expected_bf16(special_floats(), self.mode))


class PackBf16x2(Case):
    name, fn = "pack_bf16x2", "pack_bf16x2"
    block = 128

    def args(self):
        x = as_f32(special_floats())
        y = torch.zeros(x.numel() // 2, dtype=torch.int32)
        return ([x, y, y.numel()], dict(BLOCK=self.block), 4, (cdiv(y.numel(), self.block), 1, 1), [1])

    def check(self, a):
        return conversion_check(bf16_bits(a[1].view(BF16)).to(torch.int64),
                                expected_bf16(special_floats(), "rtne"))


CASES = [RmsNorm(), Softmax(), Matmul(), Round("rtne"), Round("rtz"), PackBf16x2()]
