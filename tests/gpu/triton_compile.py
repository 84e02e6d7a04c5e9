"""Compiles (never runs) a small bf16 Triton kernel for a pre-Ampere target, sm_75 unless
argv[1] names another: scripts/gpu-suite runs it with TRITON_PTXAS_PATH at bf16shim-ptxas,
which lowers the bf16 instructions that ptxas refuses below sm_80.  Exit 0 when Triton
produced a cubin; prints the PTX target, its bf16 mentions and the cubin's size."""
import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget


@triton.jit
def bf16_axpy(x_ptr, y_ptr, out_ptr, n, alpha):
    offs = tl.program_id(0) * 128 + tl.arange(0, 128)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    # bf16 -> fp32 -> bf16 conversions, and bf16 arithmetic left to the backend.
    s = (x.to(tl.float32) * alpha).to(tl.bfloat16) + y
    tl.store(out_ptr + offs, tl.maximum(s, y), mask=mask)


TYPES = ["*bf16", "*bf16", "*bf16", "i32", "fp32"]


def source():
    """The signature is keyed by argument name since Triton 3.x, by index before."""
    names = ["x_ptr", "y_ptr", "out_ptr", "n", "alpha"]
    try:
        return triton.compiler.ASTSource(fn=bf16_axpy, signature=dict(zip(names, TYPES)))
    except (TypeError, KeyError, AttributeError):
        return triton.compiler.ASTSource(fn=bf16_axpy, signature=dict(enumerate(TYPES)))


def main():
    arch = int(sys.argv[1]) if len(sys.argv) > 1 else 75
    kernel = triton.compile(source(), target=GPUTarget("cuda", arch, 32))
    ptx = kernel.asm["ptx"]
    if isinstance(ptx, bytes):
        ptx = ptx.decode()
    target = next((l.split()[1] for l in ptx.splitlines() if l.startswith(".target")), "?")
    cubin = kernel.asm.get("cubin", b"")
    print(f"triton {triton.__version__}: bf16_axpy compiled for sm_{arch}: PTX .target "
          f"{target}, {ptx.count('bf16')} bf16 mentions, cubin {len(cubin)} bytes")
    return 0 if cubin else 1


if __name__ == "__main__":
    sys.exit(main())
