"""The GEMMs of one transformer decoder layer, in bf16 through PyTorch, with the device
traffic each one causes on the simulated GPU (bench/transformer_layer.sh runs it with and
without bf16shim).

Pre-norm, causal self-attention with heads of 64 and a SwiGLU MLP of 4d: the q, k, v and o
projections, Q K^T and P V (batched over the heads), the MLP's up, gate and down projections,
as F.linear and torch.bmm make them (C bf16, as PyTorch writes it).  Everything else
(RMSNorm, softmax, SiLU, the residuals, splitting and merging heads) runs on the CPU, since the
simulator cannot run PyTorch's own kernels: each GEMM's operands are moved to the GPU, and
its result back.  Copies cost no device traffic in the simulator's counters (its GEMMs and
kernels do), so each GEMM's bytes and launches are exactly its own.

Usage: python transformer_layer.py SEQ D      prints "name,m,n,k,batch,bytes,launches,gemms,dram"
lines, one per GEMM (bytes: every global access; launches: kernels besides the GEMMs; dram:
what device memory sees behind the simulator's L2 model), then the layer's totals.
"""
import ctypes
import math
import sys

import torch
import torch.nn.functional as F

BF16 = torch.bfloat16
DEV = "cuda"


class Stats(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in
                ("bytes_read", "bytes_written", "kernel_launches", "gemms", "dram_read",
                 "dram_written", "warp_instructions", "mma_instructions")]


def simulator():
    """The simulator's counters (sim_stats_get in libsimcuda.so, loaded with the driver)."""
    torch.empty(1, device=DEV)  # initialises CUDA; no kernel
    with open("/proc/self/maps") as maps:
        paths = [line.split()[-1] for line in maps if line.rstrip().endswith("/libsimcuda.so")]
    if not paths:
        sys.exit("not running on the simulator")
    lib = ctypes.CDLL(paths[0])
    lib.sim_stats_get.argtypes = [ctypes.POINTER(Stats)]

    def read():
        s = Stats()
        torch.cuda.synchronize()
        lib.sim_stats_get(ctypes.byref(s))
        return s
    return read


def main():
    seq, d = int(sys.argv[1]), int(sys.argv[2])
    heads, dff = d // 64, 4 * d
    torch.manual_seed(0)
    stats = simulator()
    rows = []

    def gpu(name, fn, *operands):
        ops = [t.contiguous().to(DEV) for t in operands]
        s0 = stats()
        out = fn(*ops)
        s1 = stats()
        moved = s1.bytes_read - s0.bytes_read + s1.bytes_written - s0.bytes_written
        dram = s1.dram_read - s0.dram_read + s1.dram_written - s0.dram_written
        rows.append((name, moved, s1.kernel_launches - s0.kernel_launches, s1.gemms - s0.gemms,
                     dram))
        return out.cpu()

    def weight(rows_, cols):
        return (torch.randn(rows_, cols) * 0.02).to(BF16)

    def rmsnorm(x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(BF16)

    wq, wk, wv, wo = (weight(d, d) for _ in range(4))
    wup, wgate, wdown = weight(dff, d), weight(dff, d), weight(d, dff)
    x = torch.randn(seq, d).to(BF16)

    h = rmsnorm(x)
    q = gpu("q", F.linear, h, wq)
    k = gpu("k", F.linear, h, wk)
    v = gpu("v", F.linear, h, wv)

    def split(t):
        return t.view(seq, heads, 64).transpose(0, 1)

    # Q K^T: K passed transposed (a view: cuBLAS gets transb, nothing is copied).
    scores = gpu("qk", lambda a, b: torch.bmm(a, b.transpose(1, 2)), split(q), split(k))
    mask = torch.ones(seq, seq, dtype=torch.bool).triu(1)
    logits = scores.float() / math.sqrt(64)
    p = torch.softmax(logits.masked_fill(mask, float("-inf")), -1).to(BF16)
    attn = gpu("pv", torch.bmm, p, split(v))
    o = gpu("o", F.linear, attn.transpose(0, 1).reshape(seq, d), wo)
    x = (x.float() + o.float()).to(BF16)

    h = rmsnorm(x)
    up = gpu("up", F.linear, h, wup)
    gate = gpu("gate", F.linear, h, wgate)
    act = (F.silu(gate.float()) * up.float()).to(BF16)
    gpu("down", F.linear, act, wdown)

    shapes = {"q": (seq, d, d, 1), "k": (seq, d, d, 1), "v": (seq, d, d, 1),
              "qk": (seq, seq, 64, heads), "pv": (seq, 64, seq, heads), "o": (seq, d, d, 1),
              "up": (seq, dff, d, 1), "gate": (seq, dff, d, 1), "down": (seq, d, dff, 1)}
    for name, moved, launches, gemms, dram in rows:
        m, n, kk, batch = shapes[name]
        print(f"{name},{m},{n},{kk},{batch},{moved},{launches},{gemms},{dram}")
    print(f"layer,,,,,{sum(r[1] for r in rows)},{sum(r[2] for r in rows)},"
          f"{sum(r[3] for r in rows)},{sum(r[4] for r in rows)}")


if __name__ == "__main__":
    main()
