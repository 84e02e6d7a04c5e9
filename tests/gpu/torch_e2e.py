"""PyTorch end to end under the shim (scripts/gpu-suite runs it with LD_PRELOAD and
BF16SHIM_EMULATE_SM=75 or 61): bf16 matmul, bmm, nn.Linear with bias (cuBLASLt's bias
epilogue), F.linear on 2D and 3D inputs, decode-sized F.linear, addmm and a small MLP, each
against an fp32 reference on the CPU from the same bf16 inputs.  Prints each case's worst
error as a fraction of its bound; exit 1 when any case is past it (or not finite)."""
import os
import sys

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.backends.cuda.matmul.allow_tf32 = False
DEV = os.environ.get("TORCH_E2E_DEVICE", "cuda")  # cpu: checks this script itself
U = 2.0 ** -8  # bf16's unit roundoff (8-bit significand, round to nearest)
EPS32 = 2.0 ** -24


def bf(*shape):
    return torch.randn(*shape).to(torch.bfloat16)


def judge(name, got, ref, scale, k, extra=0.0):
    """Error model of a native bf16 GEMM with fp32 accumulation (README, "Accuracy"): the
    output rounding U |ref| plus (k + 2) fp32 roundings of sum |a b| (scale), with a factor 2
    of slack for the rewrite's extra fp32 rounding; EXTRA adds roundings of intermediates."""
    if got.dtype != torch.bfloat16:
        print(f"FAIL {name}: result is {got.dtype}, want bfloat16")
        return False
    got = got.float().cpu()
    bound = U * ref.abs() + 2 * (k + 2) * EPS32 * scale + extra + 1e-30
    err = (got - ref).abs()
    ratio = (err / bound).max().item() if err.numel() else 0.0
    ok = bool(torch.isfinite(got).all()) and ratio <= 1.0
    print(f"{'ok  ' if ok else 'FAIL'} {name:<34} max abs err {err.max().item():.3g}, "
          f"worst {ratio:.3f} of the bound")
    return ok


def gemm_case(name, fn, a, b, k):
    """fn(a, b) on the GPU against fp32 a @ b on the CPU."""
    got = fn(a.to(DEV), b.to(DEV))
    return judge(name, got, fn(a.float(), b.float()), fn(a.float().abs(), b.float().abs()), k)


def linear_case(name, x, w, bias):
    got = F.linear(x.to(DEV), w.to(DEV), None if bias is None else bias.to(DEV))
    b32 = None if bias is None else bias.float()
    ref = F.linear(x.float(), w.float(), b32)
    scale = F.linear(x.float().abs(), w.float().abs(), None if b32 is None else b32.abs())
    return judge(name, got, ref, scale, x.shape[-1])


def module_linear():
    """nn.Linear with bias on a 2D input: PyTorch's addmm path, cuBLASLt bias epilogue."""
    lin = torch.nn.Linear(512, 256, bias=True).to(torch.bfloat16)
    x = bf(32, 512)
    got = lin.to(DEV)(x.to(DEV))
    w, b = lin.weight.detach().float().cpu(), lin.bias.detach().float().cpu()
    return judge("nn.Linear(512, 256) + bias", got, F.linear(x.float(), w, b),
                 F.linear(x.float().abs(), w.abs(), b.abs()), 512)


def addmm():
    c, a, b = bf(96, 160), bf(96, 224), bf(224, 160)
    got = torch.addmm(c.to(DEV), a.to(DEV), b.to(DEV), beta=0.5, alpha=2.0)
    ref = torch.addmm(c.float(), a.float(), b.float(), beta=0.5, alpha=2.0)
    scale = torch.addmm(c.float().abs(), a.float().abs(), b.float().abs(), beta=0.5, alpha=2.0)
    return judge("addmm beta=0.5 alpha=2", got, ref, scale, 224)


def mlp():
    """Linear(256, 1024), GELU, Linear(1024, 256).  The reference rounds the hidden layer to
    bf16 as the GPU does; one ulp of difference there adds U |W2| |h| to the bound."""
    net = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.GELU(),
                              torch.nn.Linear(1024, 256)).to(torch.bfloat16)
    x = bf(16, 256)
    with torch.no_grad():
        got = net.to(DEV)(x.to(DEV))
        w1, b1, w2, b2 = (p.detach().float().cpu() for p in
                          (net[0].weight, net[0].bias, net[2].weight, net[2].bias))
    h = F.gelu(F.linear(x.float(), w1, b1).to(torch.bfloat16).float()).to(torch.bfloat16).float()
    ref = F.linear(h, w2, b2)
    scale = F.linear(h.abs(), w2.abs(), b2.abs())
    return judge("MLP 256-1024-256 with GELU", got, ref, scale, 1024, extra=2 * U * scale)


def main():
    if DEV == "cuda" and not torch.cuda.is_available():
        print("skipped: torch sees no CUDA device")
        return 77
    cases = [
        lambda: gemm_case("matmul 257x384 @ 384x129", torch.matmul, bf(257, 384), bf(384, 129),
                          384),
        lambda: gemm_case("matmul A^T (transposed operand)", lambda a, b: torch.matmul(a.t(), b),
                          bf(384, 200), bf(384, 72), 384),
        lambda: gemm_case("matmul 3x65x256 @ 256x96", torch.matmul, bf(3, 65, 256),
                          bf(256, 96), 256),
        lambda: gemm_case("bmm 4x64x128 @ 4x128x80", torch.bmm, bf(4, 64, 128), bf(4, 128, 80),
                          128),
        module_linear,
        lambda: linear_case("F.linear 2D, no bias", bf(48, 320), bf(200, 320), None),
        lambda: linear_case("F.linear 3D + bias", bf(2, 17, 512), bf(384, 512), bf(384)),
        lambda: linear_case("F.linear decode 4 tokens", bf(4, 2048), bf(2048, 2048), None),
        lambda: linear_case("F.linear decode 1 token + bias", bf(1, 1, 2048), bf(1024, 2048),
                            bf(1024)),
        addmm,
        mlp,
    ]
    failed = sum(not case() for case in cases)
    where = torch.cuda.get_device_name() if DEV == "cuda" else DEV
    print(f"torch e2e: {len(cases)} cases, {failed} failed (torch {torch.__version__}, CUDA "
          f"{torch.version.cuda}, {where})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
