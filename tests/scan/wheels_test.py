#!/usr/bin/env python3
"""bf16shim scan on real wheels, unmodified, judged for sm_61, sm_70 and sm_75 against two
independent references: the arch lists their builders publish, and the simulated driver
(tests/simcuda) loading the same modules (cuModuleLoadData: CUDA_ERROR_NO_BINARY_FOR_GPU
where nothing runs).

  wheels_test.py SOURCE_ROOT SIMDIR pypi
      Two wheels from PyPI, downloaded with pip into .cache/wheels (git-ignored) once:
      xformers 0.0.35, built with TORCH_CUDA_ARCH_LIST '7.5 8.0+PTX' plus '8.0 9.0a' for
      CUDA 12 (facebookresearch/xformers, .github/workflows/wheels_build.yml): SASS sm_75,
      sm_80, sm_90a and PTX for compute_80 only; autoawq-kernels 0.0.9, whose awq_v2_ext is
      built for compute capabilities {80, 86, 89, 90} with code=sm_XY only ("only
      compatible with ampere", casper-hansen/AutoAWQ_kernels, setup.py): SASS for sm_80
      and newer, no PTX.
  wheels_test.py SOURCE_ROOT SIMDIR clients VENVS
      The client environments' wheels (tests/clients): torch 2.7.1 for CUDA 12.6, built
      with TORCH_CUDA_ARCH_LIST="5.0;6.0;7.0;7.5;8.0;8.6;9.0" (pytorch/pytorch,
      .ci/manywheel/build_cuda.sh), and torch 2.15 for CUDA 13; each wheel's own list is
      torch._C._cuda_getArchFlags(); the nvidia-* libraries and Triton's CUPTI come with
      them.  Prints how long the scan of each took."""
import ctypes
import json
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

from elfsection import elf_section

src, simdir, mode = sys.argv[1:4]
command = os.path.join(src, "scripts", "bf16shim")
ARCHS = ["sm_61", "sm_70", "sm_75"]
NO_BINARY_FOR_GPU = 209
failures = checks = 0


def check(cond, what, *detail):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAILED:", what, *[str(d)[:800] for d in detail])


def scan(path, archs=ARCHS, deep=False):
    p = subprocess.run([command, "scan", "--json", "--arch", ",".join(archs)] +
                       (["--deep"] if deep else []) + [path], capture_output=True, text=True)
    check(p.returncode in (0, 1), "scan of " + path + " exits 0 or 1", p.returncode, p.stderr)
    return json.loads(p.stdout)


def files_by_tail(report):
    return {f["path"].split("-packages/", 1)[-1]: f for f in report["files"]}


def verdicts(f, archs=ARCHS):
    return [f["gpus"][a]["verdict"] for a in archs]


# --- the simulated driver, as the second opinion ---------------------------------------------
os.environ["SIMCUDA_ARCH"] = ",".join(ARCHS)
cuda = ctypes.CDLL(os.path.join(simdir, "libcuda.so.1"))
check(cuda.cuInit(0) == 0, "simulated cuInit")
contexts = []
for i in range(len(ARCHS)):
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    cuda.cuDeviceGet(ctypes.byref(dev), i)
    cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
    contexts.append(ctx)


def simulated_load(data, device):
    module = ctypes.c_void_p()
    cuda.cuCtxSetCurrent(contexts[device])
    rc = cuda.cuModuleLoadData(ctypes.byref(module), ctypes.create_string_buffer(data, len(data)))
    if rc == 0:
        cuda.cuModuleUnload(module)
    return rc


def nv_fatbin(path):
    """The containers of a file's .nv_fatbin section, read here without the scanner."""
    data = open(path, "rb").read()
    off, size = elf_section(data, ".nv_fatbin")
    end = off + size
    while off + 16 <= end:
        magic, _, header, body = struct.unpack_from("<IHHQ", data, off)
        if magic != 0xBA55ED50:
            off += 8
            continue
        yield data[off:off + header + body]
        off += header + body


def agree_with_simulator(path, most=40):
    """Each sampled module as a fatbin file of its own: the scanner's verdict on it and the
    simulated driver's load of it must agree for every GPU."""
    modules = list(nv_fatbin(path))
    step = max(1, len(modules) // most)
    work = tempfile.mkdtemp()
    for i in range(0, len(modules), step):
        open(os.path.join(work, "m%05d.fatbin" % i), "wb").write(modules[i])
    report = scan(work)
    judged = 0
    for f in report["files"]:
        if not f["modules"]:
            continue            # no kernels: nothing for the driver to refuse
        data = open(f["path"], "rb").read()
        for device, arch in enumerate(ARCHS):
            rc = simulated_load(data, device)
            # The driver alone: what runs through bf16shim has no code for it.
            runs = f["gpus"][arch]["verdict"] not in ("cannot run", "bf16shim")
            check(rc == (0 if runs else NO_BINARY_FOR_GPU),
                  "%s module %s on %s: scan says %s, the simulated driver %d" %
                  (os.path.basename(path), os.path.basename(f["path"]), arch,
                   f["gpus"][arch]["verdict"], rc))
        judged += 1
    check(judged > 0, os.path.basename(path) + ": modules judged", len(modules))
    print("%s: %d of %d modules loaded on the simulated %s: the same verdicts" %
          (os.path.basename(path), judged, len(modules), ", ".join(ARCHS)))
    for name in os.listdir(work):
        os.unlink(os.path.join(work, name))
    os.rmdir(work)


def deep_against_shallow(site, shallow):
    """--deep on the real files for sm_75 (lowered through the cache, checked by CUDA 13's
    ptxas where it is): the same modules as without it, kernels per verdict that add up, the
    modules built for sm_90a on their own, and what ptxas refuses counted as not running."""
    p = subprocess.run([command, "scan", "--json", "--deep", "--arch", "sm_75", site],
                       capture_output=True, text=True)
    check(p.returncode in (0, 1), "scan --deep of " + site, p.returncode, p.stderr[-2000:])
    deep = json.loads(p.stdout)
    print("%s --deep for sm_75: %.2f s" % (site, deep["seconds"]))
    before = {f["path"]: f for f in shallow["files"]}
    for f in deep["files"]:
        b = before.get(f["path"])
        check(b and (b["modules"], b["empty_modules"]) == (f["modules"], f["empty_modules"]),
              f["path"] + ": the same modules with and without --deep",
              b and (b["modules"], b["empty_modules"]), (f["modules"], f["empty_modules"]))
        g = f["gpus"]["sm_75"]
        if f["kernels"] is not None:
            check(sum(g["kernels"].values()) == f["kernels"],
                  f["path"] + ": kernels per verdict add up", g["kernels"], f["kernels"])
        refused = sum(n["modules"] for n in g["notes"] if "refused by ptxas" in n["kind"])
        check(refused <= g["none"], f["path"] + ": modules ptxas refuses cannot run", g)
        if refused:
            print("%s: %d lowered modules refused by ptxas %s for sm_75" %
                  (f["path"].split("-packages/")[-1], refused, deep["ptxas"]["sm_75"]["version"]))
    lt = [f for f in deep["files"] if f["path"].endswith("libcusparseLt.so.0")]
    check(lt and lt[0]["gpus"]["sm_75"]["elsewhere"] > 0 and
          lt[0]["gpus"]["sm_75"]["verdict"] in ("partly", "cannot run"),
          "cuSPARSELt: its sm_90a modules elsewhere", lt and lt[0]["gpus"]["sm_75"])


def pip():
    """A pip: this Python's, else one in a venv of the cache."""
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode == 0:
        return [sys.executable, "-m", "pip"]
    venv = os.path.join(src, ".cache", "wheels", "venv")
    if not os.path.exists(os.path.join(venv, "bin", "pip")):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    return [os.path.join(venv, "bin", "pip")]


if mode == "pypi":
    cache = os.path.join(src, ".cache", "wheels")
    site = os.path.join(cache, "site-packages")
    wanted = {"xformers-0.0.35-": "xformers==0.0.35",
              "autoawq_kernels-0.0.9-": "autoawq-kernels==0.0.9"}
    os.makedirs(cache, exist_ok=True)
    have = [w for w in os.listdir(cache) if w.endswith(".whl")]
    missing = [spec for prefix, spec in wanted.items() if not any(w.startswith(prefix) for w in have)]
    if missing:
        p = subprocess.run(pip() + ["download", "--quiet", "--no-deps", "--only-binary=:all:",
                                    "--python-version", "3.11", "--platform", "manylinux_2_28_x86_64",
                                    "--platform", "manylinux2014_x86_64", "-d", cache] + missing,
                           capture_output=True, text=True)
        check(p.returncode == 0, "pip download " + " ".join(missing), p.stdout, p.stderr)
    for w in sorted(os.listdir(cache)):
        if w.endswith(".whl") and not os.path.exists(os.path.join(site, "." + w)):
            zipfile.ZipFile(os.path.join(cache, w)).extractall(site)
            open(os.path.join(site, "." + w), "w").close()
    four = ARCHS + ["sm_80"]
    report = scan(site, four)
    files = files_by_tail(report)
    x = files.get("xformers/_C.so")
    check(x is not None, "xformers/_C.so found", sorted(files))
    if x:
        check(x["package"] == "xformers", "xformers: package", x["package"])
        check(x["targets"] == ["sm_75", "sm_80", "sm_90a", "compute_80"],
              "xformers: the published arch list", x["targets"])
        # Below sm_75 only its PTX compute_80 could run: bf16shim lowers it.
        check(verdicts(x, four) == ["bf16shim", "bf16shim", "native", "native"],
              "xformers: verdicts", verdicts(x, four))
        agree_with_simulator(x["path"])
        # With --deep, as the library would lower it: every kernel lowers (CUTLASS's sparse
        # GEMMs, mma.sp, through their dense equivalent), so every module runs through
        # bf16shim on sm_70 and sm_61.
        xd = files_by_tail(scan(x["path"], four, deep=True)).get("xformers/_C.so")
        for arch in ("sm_70", "sm_61"):
            g = xd["gpus"][arch] if xd else {}
            check(g.get("verdict") == "bf16shim" and g.get("bf16shim", 0) == x["modules"] and
                  not g.get("none", 0), "xformers --deep: every module through bf16shim on " + arch, g)
    v2 = [f for t, f in files.items() if t.startswith("awq_v2_ext")]
    check(len(v2) == 1, "awq_v2_ext found", sorted(files))
    for f in v2:
        sass = [t for t in f["targets"] if t.startswith("sm_")]
        check(f["package"] == "autoawq-kernels", "autoawq: package", f["package"])
        check(all(int(t[3:5]) >= 80 for t in sass) and not [t for t in f["targets"] if
              t.startswith("compute_")], "awq_v2_ext: SASS for sm_80 and newer only", f["targets"])
        check(verdicts(f, four) == ["cannot run"] * 3 + ["native"], "awq_v2_ext: verdicts",
              verdicts(f, four))
        check("AWQ" in f["gpus"]["sm_75"]["fix"], "awq_v2_ext: fix", f["gpus"]["sm_75"]["fix"])
        agree_with_simulator(f["path"])
    others = [f for t, f in files.items() if t.startswith("awq_ext")]
    check(others and verdicts(others[0], four) == ["cannot run", "cannot run", "native", "native"],
          "awq_ext (sm_75 and newer): verdicts", others and verdicts(others[0], four))
    check(report["status"] == 1, "exit status 1", report["status"])
elif mode == "clients":
    venvs = sys.argv[4]
    published_126 = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
    for env, native in (("torch-cu126", ARCHS), ("torch-cu13", ["sm_75"])):
        python = os.path.join(venvs, env, "bin", "python")
        check(os.path.exists(python), env + " installed (tests/clients/install.sh)", python)
        if not os.path.exists(python):
            continue
        out = subprocess.run([python, "-c", "import sysconfig, torch; print(sysconfig.get_paths()"
                              "['purelib']); print(torch._C._cuda_getArchFlags())"],
                             capture_output=True, text=True).stdout.split("\n")
        site, flags = out[0], out[1].split()
        if env == "torch-cu126":
            check(flags == published_126, "torch 2.7.1 cu126: the wheel's arch list is the "
                  "published one", flags)
        report = scan(site)
        print("%s: scanned %d files (%d ELF, %.0f MiB of GPU code) in %.2f s" %
              (env, report["files_read"], report["elf_files"], report["code_bytes"] / 2**20,
               report["seconds"]))
        files = files_by_tail(report)
        torch_cuda = files.get("torch/lib/libtorch_cuda.so")
        check(torch_cuda is not None, env + ": libtorch_cuda.so found", sorted(files))
        if not torch_cuda:
            continue
        sass = [t for t in torch_cuda["targets"] if t.startswith("sm_")]
        check(set(flags) <= set(sass), env + ": SASS for every arch of the wheel's list", sass, flags)
        check(torch_cuda["package"] == "torch", env + ": package", torch_cuda["package"])
        for arch in ARCHS:
            want = arch in native or any(int(f[3:]) // 10 == int(arch[3:]) // 10 and
                                         int(f[3:]) <= int(arch[3:]) for f in flags)
            got = torch_cuda["gpus"][arch]["verdict"]
            check((got != "cannot run") == want, env + " on " + arch, got, flags)
            if got == "cannot run":
                check("TORCH_CUDA_ARCH_LIST" in torch_cuda["gpus"][arch]["fix"], env + ": fix",
                      torch_cuda["gpus"][arch]["fix"])
        agree_with_simulator(torch_cuda["path"])
        # Triton brings CUPTI: CUDA 12's (sm_50 and newer) and, in 3.9, CUDA 13's for
        # Blackwell (sm_75 and newer).
        cupti = [f for t, f in files.items() if t.startswith("triton/") and "/cupti/" in t]
        check(cupti and all("cannot run" not in verdicts(f) for f in cupti),
              env + ": Triton's CUDA 12 CUPTI runs on each", [verdicts(f) for f in cupti])
        # Its CUDA 13 copy, for sm_75 and newer, is an alternative where the other runs.
        for t, f in files.items():
            if t.startswith("triton/") and "/cupti-blackwell/" in t:
                check(verdicts(f) == ["alternative", "alternative", "native"] and
                      "/cupti/" in f["gpus"]["sm_61"]["alternative"],
                      env + ": Triton's CUDA 13 CUPTI from sm_75 on, the other before", t,
                      verdicts(f))
        if env == "torch-cu126":
            deep_against_shallow(site, report)
            lt = files.get("nvidia/cusparselt/lib/libcusparseLt.so.0") or \
                 files.get("cusparselt/lib/libcusparseLt.so.0")
            # Its SASS is for sm_80 and newer; a few modules carry PTX that bf16shim lowers.
            check(lt is not None and all(v in ("cannot run", "partly") for v in verdicts(lt)) and
                  all(lt["gpus"][a]["none"] > lt["gpus"][a]["bf16shim"] for a in ARCHS),
                  "cuSPARSELt 0.6 (sm_80 and newer): most modules cannot run",
                  lt and [lt["gpus"][a] for a in ARCHS])
            blas = files.get("nvidia/cublas/lib/libcublas.so.12")
            check(blas is not None and "cannot run" not in verdicts(blas),
                  "cuBLAS 12 runs on every GPU here", blas and verdicts(blas))
        else:
            blas = files.get("nvidia/cu13/lib/libcublas.so.13")
            check(blas is not None and all(v in ("cannot run", "partly") for v in
                                           verdicts(blas)[:2]) and
                  all(blas["gpus"][a]["none"] > 0 for a in ARCHS[:2]),
                  "cuBLAS 13 (sm_75 and newer): modules that cannot run on sm_61, sm_70",
                  blas and [blas["gpus"][a] for a in ARCHS[:2]])
print("wheels_test.py %s: %d checks, %d failed" % (mode, checks, failures))
sys.exit(1 if failures else 0)
