#!/usr/bin/env python3
"""Writes the return type of every function the CUDA headers declare, one "name<TAB>type" a
line, for the stub generator (gen_stubs.py): a stub must return what the real function does
(void for cublasSgemm, float for cublasSdot, a struct for cudaCreateChannelDesc...).

The C headers are read by the compiler itself (gcc -aux-info prints every prototype after
preprocessing, so macros and attributes are already resolved).  The nvcc host-ABI functions
(__cudaRegisterFatBinary...) are declared only in C++ headers, which -aux-info cannot read;
their declarations are plain enough to be read from the text.

Usage: returns.py CUDA_INCLUDE OUT CC [CC_ARGS...]"""
import os, re, subprocess, sys, tempfile

# Translation units: headers that can be included together.  cublas.h (the legacy API) and
# cublas_v2.h exclude each other; __CUDA_API_VERSION_INTERNAL makes cuda.h declare every ABI
# version of the driver's functions (cuMemAlloc and cuMemAlloc_v2), as the driver is built.
UNITS = [
    ["cuda_runtime_api.h", "cuda_profiler_api.h"],
    ["cuda.h", "cudaProfiler.h"],
    ["cublas.h"],
    ["cublasXt.h"],
    ["cublasLt.h"],
]
# The nvcc host ABI: 'extern ["C"] [__host__ __device__] TYPE CUDARTAPI __cudaName('.
CXX_HEADERS = ["crt/host_runtime.h", "crt/device_functions.h"]
CXX_DECL = re.compile(r'extern\s+(?:"C"\s+)?(?:__host__\s+|__device__\s+)*([\w\s*]+?)\s*'
                      r'CUDARTAPI\s+(__cuda\w+)\s*\(')
# '/* FILE:LINE:NC */ extern TYPE NAME (PARAMS);'; a type with parentheses (a function
# pointer) does not match and the name keeps the default.
AUX_DECL = re.compile(r"/\* (\S+):\d+:\w+ \*/ (?:extern )?([^()]*?) ?\b(\w+) \(.*\);$")


def aux_info(cc, include, headers):
    with tempfile.TemporaryDirectory() as tmp:
        src, aux = os.path.join(tmp, "unit.c"), os.path.join(tmp, "unit.aux")
        with open(src, "w") as f:
            f.writelines(f"#include <{h}>\n" for h in headers)
        subprocess.run(cc + ["-D__CUDA_API_VERSION_INTERNAL", "-isystem", include,
                             "-fsyntax-only", "-aux-info", aux, src], check=True)
        with open(aux) as f:
            for line in f:
                m = AUX_DECL.match(line.strip())
                # Only the vendor's own functions, not the C library the headers include.
                if (m and os.path.realpath(m.group(1)).startswith(include + os.sep)
                        and "static" not in m.group(2).split()):
                    yield m.group(3), m.group(2).strip()


def main():
    include, out, cc = os.path.realpath(sys.argv[1]), sys.argv[2], sys.argv[3:]
    types = {}

    def add(name, rtype):
        rtype = " ".join(rtype.replace("*", " * ").split()).replace("* *", "**")
        if types.setdefault(name, rtype) != rtype:
            raise SystemExit(f"{name}: declared returning {types[name]} and {rtype}")

    for unit in UNITS:
        for name, rtype in aux_info(cc, include, unit):
            add(name, rtype)
    for header in CXX_HEADERS:
        with open(os.path.join(include, header)) as f:
            for rtype, name in CXX_DECL.findall(f.read()):
                add(name, rtype)
    with open(out, "w") as f:
        f.writelines(f"{n}\t{t}\n" for n, t in sorted(types.items()))


main()
