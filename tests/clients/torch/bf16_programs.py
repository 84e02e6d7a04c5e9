"""bf16 GEMMs as people write them in PyTorch, checked against fp64 on the CPU.

An ordinary program: it knows nothing of bf16shim or of the simulator.  Operands are made on
the CPU and moved to the GPU (the simulator cannot run PyTorch's own kernels, which are SASS
only), every result is copied back and compared with an fp64 reference of the same bf16
inputs, within the accuracy a GEMM with fp32 accumulation promises (README "Accuracy"):

    |result - ref| <= (k + 2) * 2^-24 * sum|terms| + 2^-8 * |ref| (rounding to bf16) + 2^-133

Usage: python bf16_programs.py [CASE...]     (no CASE: all of them)

Prints one line per case ("ok NAME worst=F", the worst error as a fraction of its bound).
Exit status 1 if any result is out of bounds; an exception (CUBLAS_STATUS_NOT_SUPPORTED on a
Pascal card without bf16shim) propagates as PyTorch raises it.
"""
import sys

import torch
import torch.nn.functional as F

DEV = "cuda"
BF16 = torch.bfloat16
torch.manual_seed(0)


def rand(*shape, scale=1.0):
    return (torch.randn(*shape) * scale).to(BF16)


def check(name, got, ref, terms, k):
    """got: the GPU result; ref, terms: fp64 reference and sum of |products| (+|other terms|)."""
    got = got.cpu().double()
    bound = (k + 2) * 2.0 ** -24 * terms + 2.0 ** -8 * ref.abs() + 2.0 ** -133
    err = (got - ref).abs()
    bad = ~(err <= bound)  # NaN counts as bad
    worst = float((err / bound).max())
    if bool(bad.any()):
        i = tuple(int(x) for x in bad.nonzero()[0])
        print(f"FAIL {name}: at {i} got {float(got[i])!r} want {float(ref[i])!r} "
              f"(bound {float(bound[i]):.3g})")
        return False
    print(f"ok {name} worst={worst:.3f}")
    return True


def mm_ref(a, b):
    a, b = a.double(), b.double()
    return a @ b, a.abs() @ b.abs()


def case_matmul():
    a, b = rand(64, 48), rand(48, 32)
    ref, terms = mm_ref(a, b)
    return check("matmul", a.to(DEV) @ b.to(DEV), ref, terms, 48)


def case_matmul_transposed():
    # Transposed views: no copy, cuBLAS gets transa/transb.
    a, b = rand(48, 64), rand(32, 48)
    ga, gb = a.to(DEV), b.to(DEV)
    ref, terms = mm_ref(a.t(), b.t())
    return check("matmul_transposed", ga.t() @ gb.t(), ref, terms, 48)


def case_bmm():
    a, b = rand(4, 32, 24), rand(4, 24, 16)
    ref, terms = mm_ref(a, b)
    return check("bmm", torch.bmm(a.to(DEV), b.to(DEV)), ref, terms, 24)


def case_3d_at_2d():
    # (batch, m, k) @ (k, n) folds the batch into m: one GEMM.
    a, b = rand(4, 16, 32), rand(32, 24)
    ref, terms = mm_ref(a, b)
    return check("3d_at_2d", a.to(DEV) @ b.to(DEV), ref, terms, 32)


def case_linear():
    x, w = rand(16, 64), rand(48, 64)
    ref, terms = mm_ref(x, w.t())
    return check("linear", F.linear(x.to(DEV), w.to(DEV)), ref, terms, 64)


def case_linear_bias():
    # addmm with a 1-D bias: cuBLASLt with the bias epilogue (gemm_and_bias).
    x, w, b = rand(16, 64), rand(48, 64), rand(48)
    ref, terms = mm_ref(x, w.t())
    ref, terms = ref + b.double(), terms + b.double().abs()
    got = F.linear(x.to(DEV), w.to(DEV), b.to(DEV))
    return check("linear_bias", got, ref, terms, 64)


def case_addmm_beta():
    c, a, b = rand(32, 24), rand(32, 40), rand(40, 24)
    ref, terms = mm_ref(a, b)
    ref, terms = 2.0 * ref + 0.5 * c.double(), 2.0 * terms + 0.5 * c.double().abs()
    got = torch.addmm(c.to(DEV), a.to(DEV), b.to(DEV), beta=0.5, alpha=2.0)
    return check("addmm_beta", got, ref, terms, 40)


def case_baddbmm_beta():
    c, a, b = rand(3, 16, 8), rand(3, 16, 32), rand(3, 32, 8)
    ref, terms = mm_ref(a, b)
    ref, terms = ref + 0.25 * c.double(), terms + 0.25 * c.double().abs()
    got = torch.baddbmm(c.to(DEV), a.to(DEV), b.to(DEV), beta=0.25)
    return check("baddbmm_beta", got, ref, terms, 32)


def case_sequential():
    # Layer after layer in bf16: each layer's reference takes the previous GPU output, so
    # every GEMM is held to its own bound.
    model = torch.nn.Sequential(torch.nn.Linear(64, 96), torch.nn.Linear(96, 32),
                                torch.nn.Linear(32, 16)).to(BF16)
    x = rand(8, 64)
    gpu = model.to(DEV)
    ok, h = True, x.to(DEV)
    for i, layer in enumerate(gpu):
        ref, terms = mm_ref(h.cpu(), layer.weight.cpu().t())
        bias = layer.bias.cpu().double()
        out = layer(h)
        ok &= check(f"sequential[{i}]", out, ref + bias, terms + bias.abs(), layer.in_features)
        h = out
    return ok


def case_decode():
    # Token-by-token decoding: one token, then four, against a wide weight.
    ok = True
    w = rand(512, 256)
    gw = w.to(DEV)
    for tokens in (1, 4):
        x = rand(tokens, 256)
        ref, terms = mm_ref(x, w.t())
        ok &= check(f"decode_{tokens}", F.linear(x.to(DEV), gw), ref, terms, 256)
    b = rand(512)
    x = rand(4, 256)
    ref, terms = mm_ref(x, w.t())
    ok &= check("decode_4_bias", F.linear(x.to(DEV), gw, b.to(DEV)), ref + b.double(),
                terms + b.double().abs(), 256)
    return ok


def case_wide_range():
    # Rows and columns scaled by powers of two from 2^-40 to 2^40, and one huge element
    # beside ordinary ones: what fp16 alone could not hold (products stay below bf16's
    # largest, 2^128).
    a, b = rand(32, 64), rand(64, 24)
    a = (a.double() * torch.pow(2.0, torch.arange(32).double() * 80 / 31 - 40)[:, None]).to(BF16)
    b = (b.double() * torch.pow(2.0, torch.arange(24).double() * 60 / 23 - 30)[None, :]).to(BF16)
    a[3, 5] = 2.0 ** 80
    ref, terms = mm_ref(a, b)
    return check("wide_range", a.to(DEV) @ b.to(DEV), ref, terms, 64)


def case_matmul_f32():
    # fp32 is not bf16's business: passed through, as accurate as before.
    a, b = torch.randn(40, 24), torch.randn(24, 16)
    ref, terms = mm_ref(a, b)
    got = (a.to(DEV) @ b.to(DEV)).cpu().double()
    bound = 26 * 2.0 ** -24 * terms + 2.0 ** -24 * ref.abs()
    ok = bool(((got - ref).abs() <= bound).all())
    print(("ok" if ok else "FAIL") + " matmul_f32")
    return ok


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


@torch.no_grad()
def main(names):
    # cuBLAS may pick reduced-precision reductions for fp32 on Ampere+ (TF32): not here.
    torch.backends.cuda.matmul.allow_tf32 = False
    failed = 0
    for name in names or CASES:
        failed += not CASES[name]()
    torch.cuda.synchronize()
    print(f"{failed} case(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
