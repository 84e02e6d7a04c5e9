#!/usr/bin/env python3
"""bf16shim scan on GPU code nvcc built here: host shared objects in every compression
mode (none, LZ4, Zstd, nvcc's default, -Xfatbin -compress-all) and for several arch lists,
a cubin, fatbin files and PTX files; then broken input (truncated and corrupted fatbins, a
huge declared size, a .so that is not ELF, an unreadable file, symbolic link loops), the
command's options and defaults, and doctor's pointer to scan.

Verdicts follow the driver's rules (CUDA C++ Programming Guide, "Binary Compatibility" and
"PTX Compatibility"): SASS sm_XY runs on the same major with minor >= Y, PTX compute_XY is
compiled for any GPU >= XY.
usage: scan_test.py SOURCE_ROOT BUILD_ROOT LIBS... CUBIN FATBIN SM90A_FATBIN REDUX_FATBIN"""
import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile

from elfsection import elf_section

src, build = sys.argv[1], sys.argv[2]
inputs = sys.argv[3:]
libs = {os.path.basename(p)[len("libk_"):-len(".so")]: p for p in inputs if p.endswith(".so")}
cubin = next(p for p in inputs if p.endswith(".cubin"))
fatbin, fatbin90a, fatbin_redux = [p for p in inputs if p.endswith(".fatbin")]
command = os.path.join(src, "scripts", "bf16shim")
ARCHS = ["sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
failures = 0
checks = 0


def check(cond, what, *detail):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAILED:", what, *detail)


def run(*args, env=None, user=None):
    e = dict(os.environ)
    e.update(env or {})
    argv = list(args)
    if user:
        argv = ["setpriv", "--reuid=" + user, "--regid=" + user, "--clear-groups"] + argv
    p = subprocess.run(argv, capture_output=True, text=True, env=e)
    return p.returncode, p.stdout, p.stderr


def scan_json(*paths, archs=ARCHS, deep=False, env=None):
    args = [command, "scan", "--json", "--arch", ",".join(archs)]
    if deep:
        args.append("--deep")
    rc, out, err = run(*args, *paths, env=env)
    check(rc in (0, 1), "scan exits 0 or 1", rc, err)
    try:
        return rc, json.loads(out), err
    except ValueError:
        check(False, "scan --json prints JSON", out[:500], err)
        return rc, {"files": [], "problems": []}, err


def by_name(report):
    return {os.path.basename(f["path"]): f for f in report["files"]}


work = tempfile.mkdtemp()
os.chmod(work, 0o755)
site = os.path.join(work, "site-packages")
pkg = os.path.join(site, "kpkg")
files = os.path.join(site, "files")
os.makedirs(pkg)
os.makedirs(files)
for p in list(libs.values()) + [cubin, fatbin, fatbin90a, fatbin_redux]:
    shutil.copy(p, pkg if p.endswith(".so") else files)
for p in ["data/mma_bf16.ptx", "data/plain80.ptx"]:
    shutil.copy(os.path.join(src, "tests", "scan", p), files)
shutil.copy(os.path.join(src, "tests", "ptx", "corpus", "rmsnorm.ptx"), files)

# --- verdicts by the driver's rules, per file and GPU -------------------------------------
N, J, S, X = "native", "JIT", "bf16shim", "cannot run"
# Where nothing else runs, PTX for a newer GPU is lowered by bf16shim on its way in.
sm75_ptx75 = [S, S, N, J, J, J]          # SASS sm_75 + PTX compute_75
expected = {
    "libk_none.so": sm75_ptx75, "libk_lz4.so": sm75_ptx75, "libk_zstd.so": sm75_ptx75,
    "libk_default.so": sm75_ptx75, "libk_all.so": sm75_ptx75,
    "libk_sm80.so": [X, X, X, N, N, X],  # SASS sm_80 only: the same major, nothing to lower
    "libk_ptx75.so": [S, S, J, J, J, J], # PTX only
    "libk_mixed.so": [S, S, N, J, J, J], # SASS sm_75 + PTX compute_80
    "sm75.cubin": [X, X, N, X, X, X],
    "default_size.fatbin": sm75_ptx75,
    # sm_90a: exactly 9.0; its PTX compute_90 (beside compute_90a) lowers for older GPUs
    "sm90a.fatbin": [S, S, S, S, S, N],
    # SASS sm_80 + PTX compute_80, a kernel with cvt.rna.tf32.f32: lowered, on trust
    "driver_kernels_plain.fatbin": [S, S, S, N, N, J],
    "rmsnorm.ptx": [S, S, S, J, J, J],   # bf16 PTX for sm_80, lowered below it
    "mma_bf16.ptx": [S, S, S, J, J, J],  # without --deep, the bf16 is taken on trust
    "plain80.ptx": [S, S, S, J, J, J],   # no bf16, but its .target is above the GPU
}
rc, report, err = scan_json(site)
files_found = by_name(report)
check(rc == 1, "exit status 1: some code cannot run", rc)
check(report["gpus"] == ARCHS, "gpus", report["gpus"])
for name, want in expected.items():
    f = files_found.get(name)
    check(f is not None, name + " found", sorted(files_found))
    if not f:
        continue
    got = [f["gpus"][a]["verdict"] for a in ARCHS]
    check(got == want, name + " verdicts", got, "want", want)
    for a, v in zip(ARCHS, got):
        g = f["gpus"][a]
        check((v == X) == bool(g["fix"]), name + " " + a + ": a fix exactly when it cannot run", g)
        check((v == X) == bool(g["why"]), name + " " + a + ": why exactly when it cannot run", g)
check(files_found["libk_none.so"]["package"] == "kpkg", "package from the folder",
      files_found["libk_none.so"]["package"])

codecs = {n: files_found["libk_" + n + ".so"]["codecs"] for n in
          ["none", "lz4", "zstd", "default", "all"]}
check(codecs["none"]["lz4"] == codecs["none"]["zstd"] == 0, "none: plain", codecs["none"])
check(codecs["lz4"]["lz4"] > 0 and codecs["lz4"]["zstd"] == 0, "speed: LZ4", codecs["lz4"])
check(codecs["zstd"]["zstd"] > 0 and codecs["zstd"]["plain"] == 0, "size: Zstd, all",
      codecs["zstd"])
check(codecs["default"]["zstd"] > 0 and codecs["default"]["plain"] > 0,
      "default: Zstd PTX, plain SASS", codecs["default"])
check(codecs["all"]["plain"] == 0, "-compress-all: nothing plain", codecs["all"])
targets = files_found["libk_mixed.so"]["targets"]
check(targets == ["sm_75", "compute_80"], "targets of the mixed build", targets)
check(files_found["libk_none.so"]["kernels"] == 2, "kernels from plain SASS",
      files_found["libk_none.so"]["kernels"])
# Compressed and small (at most 16 KiB): counted without --deep too, so that whether a
# module has kernels is known the same way with and without it.
check(files_found["libk_zstd.so"]["kernels"] == 2, "compressed and small: counted",
      files_found["libk_zstd.so"]["kernels"])
check("TORCH_CUDA_ARCH_LIST=6.1" in files_found["libk_sm80.so"]["gpus"]["sm_61"]["fix"] and
      "+PTX" in files_found["libk_sm80.so"]["gpus"]["sm_61"]["fix"], "the default fix",
      files_found["libk_sm80.so"]["gpus"]["sm_61"]["fix"])
check("no PTX" in (files_found["libk_sm80.so"]["gpus"]["sm_75"]["why"] or ""), "why: no PTX",
      files_found["libk_sm80.so"]["gpus"]["sm_75"]["why"])

# --deep: every module's kernels counted, the PTX checked by the lowering pass, and the
# chosen entries decompressed.
rc, deep, err = scan_json(site, deep=True)
deep_files = by_name(deep)
for n in ["none", "lz4", "zstd", "default", "all", "sm80", "ptx75", "mixed"]:
    check(deep_files["libk_" + n + ".so"]["kernels"] == 2, n + ": 2 kernels with --deep",
          deep_files["libk_" + n + ".so"]["kernels"])
mma = deep_files["mma_bf16.ptx"]["gpus"]["sm_75"]
check(mma["verdict"] == S and not mma["note"], "--deep: bf16 mma is lowered", mma)
check(deep_files["rmsnorm.ptx"]["gpus"]["sm_61"]["verdict"] == S, "--deep: rmsnorm lowers",
      deep_files["rmsnorm.ptx"]["gpus"]["sm_61"])
for a in ["sm_61", "sm_70"]:
    check(deep_files["libk_none.so"]["gpus"][a]["verdict"] == S,
          "--deep: a fatbin's PTX compute_75 lowers for " + a, deep_files["libk_none.so"]["gpus"][a])
# One of its two kernels cannot be lowered: the module loads with the other.
redux = deep_files["driver_kernels_plain.fatbin"]["gpus"]["sm_75"]
check(redux["verdict"] == "partly" and redux["kernels"]["bf16shim"] == 1 and
      redux["kernels"]["none"] == 1 and "warp_total" in (redux["note"] or "") and
      "cvt.rna.tf32.f32" in (redux["note"] or ""),
      "--deep: a fatbin kernel that cannot be lowered, named, the other kernel lowered", redux)
why = deep_files["libk_sm80.so"]["gpus"]["sm_75"]["why"]
check("SASS sm_80: no SASS for sm_75" in (why or ""), "why: SASS for newer GPUs only", why)

# A codec library that cannot be loaded: said once, clearly; the verdicts stay.
rc, nozstd, err = scan_json(os.path.join(pkg, "libk_zstd.so"), deep=True,
                            env={"BF16SHIM_LIBZSTD": "/nonexistent/libzstd.so.1"})
check(len([l for l in err.split("\n") if "/nonexistent/libzstd.so.1" in l]) == 1 and
      "cannot be loaded" in err,
      "missing libzstd: one clear line", err)
check(by_name(nozstd)["libk_zstd.so"]["gpus"]["sm_75"]["verdict"] == N,
      "missing libzstd: verdict kept", nozstd)

# --- broken input: a line each, the scan goes on, nothing crashes ---------------------------
bad = os.path.join(work, "bad")
os.makedirs(bad)


def patched(name, src_path, offset_in_fatbin, value, fmt):
    data = bytearray(open(src_path, "rb").read())
    off, _ = elf_section(bytes(data), ".nv_fatbin")
    struct.pack_into(fmt, data, off + offset_in_fatbin, value)
    open(os.path.join(bad, name), "wb").write(data)


# The first container's first entry header starts at 16: size field at 16+4, the
# uncompressed size at 16+56.
patched("corrupt_header.so", libs["none"], 16 + 4, 8, "<I")
none_data = open(libs["zstd"], "rb").read()
patched("huge_size.so", libs["zstd"], 16 + 56, 1 << 40, "<Q")
patched("past_end.so", libs["none"], 8, 1 << 50, "<Q")
data = open(fatbin, "rb").read()
open(os.path.join(bad, "truncated.fatbin"), "wb").write(data[: len(data) // 2])
# LZ4 PTX overwritten: parses, but --deep finds the entry the driver would JIT corrupt.
lz4 = bytearray(open(libs["lz4"], "rb").read())
off, size = elf_section(bytes(lz4), ".nv_fatbin")
# nvlink's module without kernels comes first; kernels.cu's container is the last.
end = off + size
while off + 16 + struct.unpack_from("<Q", lz4, off + 8)[0] < end - 16:
    off += 16 + struct.unpack_from("<Q", lz4, off + 8)[0]
entry = off + 16
first = struct.unpack_from("<I", lz4, entry + 4)[0] + struct.unpack_from("<Q", lz4, entry + 8)[0]
ptx_header = entry + first
ptx_payload = ptx_header + struct.unpack_from("<I", lz4, ptx_header + 4)[0]
check(struct.unpack_from("<Q", lz4, ptx_header + 40)[0] & 0x2000, "the second entry is LZ4")
lz4[ptx_payload:ptx_payload + 64] = b"\xff" * 64
open(os.path.join(bad, "corrupt_lz4.so"), "wb").write(lz4)
open(os.path.join(bad, "notelf.so"), "w").write("hello, I am not a shared library\n")
shutil.copy(libs["sm80"], os.path.join(bad, "unreadable.so"))
os.chmod(os.path.join(bad, "unreadable.so"), 0)
os.symlink("loop_b.so", os.path.join(bad, "loop_a.so"))
os.symlink("loop_a.so", os.path.join(bad, "loop_b.so"))
os.symlink(".", os.path.join(bad, "here"))
shutil.copy(libs["mixed"], os.path.join(bad, "good.so"))
for root, dirs, names in os.walk(work):
    for n in dirs + names:
        p = os.path.join(root, n)
        if not os.path.islink(p) and n != "unreadable.so":
            os.chmod(p, 0o755 if os.path.isdir(p) else 0o644)
# Root reads everything: the scan then runs as nobody, for whom the file is unreadable.
user = "65534" if os.geteuid() == 0 else None
args = [command, "scan", "--json", "--deep", "--arch", "sm_61,sm_80", bad]
rc, out, err = run(*args, user=user, env={"BF16SHIM_LIB": os.environ["BF16SHIM_LIB"]})
check(rc == 1, "bad input: exit 1 (no crash, the scan went on)", rc, err)
report = json.loads(out) if out.startswith("{") else {"files": [], "problems": []}
found = by_name(report)
lines = err.strip().split("\n")
for name, words in [("corrupt_header.so", "header size"), ("huge_size.so", "2^31"),
                    ("past_end.so", "runs past"), ("truncated.fatbin", "runs past"),
                    ("notelf.so", "not an ELF"), ("unreadable.so", "Permission denied"),
                    ("loop_a.so", "loop"), ("loop_b.so", "loop"), ("here", "loop")]:
    hits = [l for l in lines if "/" + name + ":" in l]
    check(len(hits) == 1 and words in hits[0], "bad input: one line for " + name, hits)
    check(any(name in p for p in report["problems"]), "bad input: JSON problem " + name)
for name in ["corrupt_header.so", "huge_size.so", "past_end.so", "truncated.fatbin"]:
    f = found.get(name, {})
    check(f.get("malformed_modules", 0) >= 1 and f["gpus"]["sm_80"]["verdict"] == X,
          name + ": malformed, cannot run anywhere", f)
corrupt = found.get("corrupt_lz4.so", {"gpus": {"sm_80": {}}})["gpus"]["sm_80"]
check(corrupt.get("verdict") == X and "decompress" in (corrupt.get("note") or ""),
      "--deep: corrupt LZ4 data the driver would JIT", corrupt)
check(found.get("good.so", {}).get("gpus", {}).get("sm_80", {}).get("verdict") == J,
      "bad input: the good file is still judged", sorted(found))

# --- the people's report --------------------------------------------------------------------
rc, out, err = run(command, "scan", "--arch", "sm_61", site)
check(rc == 1, "report: exit 1", rc)
rows = [l for l in out.split("\n") if l.startswith("  ") and l[2:3].isalpha()]
order = [l.split()[0] for l in rows if l.split()[0] in ("cannot", "bf16shim", "JIT")]
check(order and order == sorted(order, key=["cannot", "bf16shim", "JIT"].index),
      "report: worst first", order)
check("fix: " in out and "PACKAGE" in out and "kpkg" in out, "report: fixes and packages", out)
check(out.startswith("bf16shim scan: ") and " s\n" in out.split("\n")[0] + "\n",
      "report: first line says how long", out.split("\n")[0])
rc, out, err = run(command, "scan", "--arch", "sm_86", os.path.join(pkg, "libk_mixed.so"))
check(rc == 0, "report: exit 0 when everything runs", rc, out, err)

# --- the command: usage, the default GPU -------------------------------------------------------
for args in (["--arch", "pascal", site], ["--arch"], ["--frobnicate", site]):
    rc, out, err = run(command, "scan", *args)
    check(rc == 2 and "scan:" in err, "usage error exits 2: " + " ".join(args), rc, err)
rc, out, err = run(command, "scan", site, env={"BF16SHIM_LIBCUDA": "/nonexistent/libcuda.so.1"})
check(rc == 2 and "--arch" in err, "no GPU and no --arch: exit 2, naming --arch", rc, err)
rc, out, err = run(command, "sim", "sm_61", "--", command, "scan", site)
check(rc == 1 and "sm_61 (GPU 0, NVIDIA GeForce GTX 1080)" in out,
      "default: the GPUs doctor sees", rc, out[:600], err)

# --- doctor's pointer ----------------------------------------------------------------------
# The current Python (python3 on PATH, which runs the command): a virtual environment whose
# site-packages is made a link to the folder each case needs.
venv = os.path.join(work, "venv")
subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
venv_site = subprocess.run([os.path.join(venv, "bin", "python3"), "-c",
                            "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                           check=True, capture_output=True, text=True).stdout.strip()


def fake_python(site_dir):
    shutil.rmtree(venv_site, ignore_errors=True)
    if os.path.lexists(venv_site):
        os.remove(venv_site)
    os.symlink(site_dir, venv_site)


path_env = {"PATH": os.path.join(venv, "bin") + ":" + os.environ["PATH"]}
empty = os.path.join(work, "empty-site")
os.makedirs(empty)
fake_python(empty)
rc, plain, err = run(command, "doctor", "--sim", "sm_61", env=path_env)
check(rc == 0 and "bf16shim scan" not in plain, "doctor without GPU code: no pointer", plain)
fake_python(site)
rc, pointed, err = run(command, "doctor", "--sim", "sm_61", env=path_env)
extra = pointed[len(plain):] if pointed.startswith(plain) else None
check(extra == "\nCompiled GPU code in this environment cannot run on GPU 0 (sm_61): bf16shim "
      "scan says which and why.\n", "doctor: the rest unchanged, then one pointer line",
      repr(extra), pointed[-600:])
fake_python(pkg + "/../files/none-here")
rc, out, err = run(command, "doctor", "--sim", "sm_61", env=path_env)
check(rc == 0 and out == plain, "doctor: no pointer when there is nothing to scan", out[-300:])

shutil.rmtree(work, ignore_errors=True)
print("scan_test.py: %d checks, %d failed" % (checks, failures))
sys.exit(1 if failures else 0)
