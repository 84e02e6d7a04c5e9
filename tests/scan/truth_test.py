#!/usr/bin/env python3
"""What bf16shim scan says, held against what is so, one kind per run (doc/scan.md), on GPU
code nvcc builds for the test (meson.build) in folders the test lays out:

  deep      without --deep a PTX for a newer GPU "can be lowered"; with it, the module is
            lowered as the library lowers it and each lowered module goes through the
            target's ptxas: a stand-in that refuses sm_70 (its words, whole, in the verdict;
            asked once, its answer kept), and the real ones where they are (CUDA's, Triton's),
            against the same ptxas run here on what bf16shim lower writes.
  elsewhere code built for sm_90a only is "elsewhere", with its own words, and fails nothing;
            of alternative builds of one library (libx_cuda118.so beside libx_cuda124.so,
            lib/cupti beside lib/cupti-blackwell) the package runs if one of them does.
  kernels   kernels per verdict beside modules: a module that loads with two of its four
            kernels left out, counted against bf16shim lower's own count.
  words     "partly" says why (kernels left out, or modules for other GPUs); a kernel left out
            through a device function names it and its instruction; notes and names whole in
            JSON and text; one file, one module.
  packages  the package of files in an unpacked wheel and a pip --target folder, from their
            dist-info; the table's columns stay in place beside long names.
  agree     a file whose GPU code has no kernels: no verdict that fails, in JSON and text
            alike; with and without --deep, the same modules.
  alike     thirty alike files as one entry (--all: thirty); on a terminal, ten entries per
            verdict and a line for the rest, every entry through a pipe.
  table     --deep holds every lowered module against the library's table of what the target
            takes, whatever wrote it: a lowered module that holds an instruction the target
            lacks (planted in the cache) is refused, named, without ptxas.
  speed     --deep lowers each distinct PTX once per GPU, into the library's disk cache, which
            the library then reads for the same module; a second scan reads it back and says
            the same; any number of threads says the same; progress only on a terminal.

usage: truth_test.py SOURCE_ROOT BUILD_ROOT FILES... POINT"""
import glob
import hashlib
import json
import os
import pty
import shutil
import stat
import struct
import subprocess
import sys
import tempfile

from elfsection import elf_section

src, build, point = sys.argv[1], sys.argv[2], sys.argv[-1]
given = {os.path.basename(p): p for p in sys.argv[3:-1]}
command = os.path.join(src, "scripts", "bf16shim")
lower = os.path.join(build, "tools", "bf16shim-lower")
failures = checks = 0
work = tempfile.mkdtemp(prefix="scan-truth-")
os.chmod(work, 0o755)
cache = os.path.join(work, "cache")
BASE_ENV = {"BF16SHIM_CACHE_DIR": cache}


def check(cond, what, *detail):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAILED:", what, *[str(d)[:1500] for d in detail])


def run(*argv, env=None, tty_out=False, tty_err=False):
    """(status, stdout, stderr); a pseudo-terminal for stdout or stderr when asked."""
    e = dict(os.environ)
    e.update(BASE_ENV)
    e.update(env or {})
    if not (tty_out or tty_err):
        p = subprocess.run(list(argv), capture_output=True, text=True, env=e)
        return p.returncode, p.stdout, p.stderr
    master, slave = pty.openpty()
    p = subprocess.Popen(list(argv), env=e, stdout=slave if tty_out else subprocess.PIPE,
                         stderr=slave if tty_err else subprocess.PIPE)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    out, err = (b"", b"")
    if not tty_out:
        out = p.stdout.read()
    if not tty_err:
        err = p.stderr.read()
    p.wait()
    os.close(master)
    text = seen.decode(errors="replace").replace("\r\n", "\n")
    return (p.returncode, text if tty_out else out.decode(), text if tty_err else err.decode())


def scan(*args, archs="sm_61,sm_70,sm_75", env=None, **kw):
    return run(command, "scan", "--arch", archs, *args, env=env, **kw)


def scan_json(*args, **kw):
    rc, out, err = scan("--json", *args, **kw)
    try:
        return rc, json.loads(out), err
    except ValueError:
        check(False, "scan --json prints JSON", args, out[:800], err[:800])
        return rc, {"files": [], "packages": {}, "ptxas": {}}, err


def by_name(report):
    return {os.path.basename(f["path"]): f for f in report["files"]}


def folder(*parts):
    p = os.path.join(work, *parts)
    os.makedirs(p, exist_ok=True)
    return p


def put(src_path, *parts):
    dst = os.path.join(folder(*parts[:-1]), parts[-1])
    shutil.copy(src_path, dst)
    return dst


def dist_info(root, name, version, files):
    """NAME-VERSION.dist-info/RECORD in root, naming files (paths under root)."""
    d = folder(root, "%s-%s.dist-info" % (name, version))
    with open(os.path.join(d, "RECORD"), "w") as f:
        for p in files + ["%s-%s.dist-info/RECORD" % (name, version)]:
            f.write("%s,,\n" % p)


def stand_in_ptxas(refuse="sm_70"):
    """A ptxas that says it is 12.4, takes compute_61 and compute_70, refuses PTX whose target
    is `refuse`, and writes each check it is asked for into a log."""
    d = folder("standin")
    path, log = os.path.join(d, "ptxas"), os.path.join(d, "asked")
    with open(path, "w") as f:
        f.write("""#!/bin/sh
case $1 in
--version) echo 'ptxas: NVIDIA (R) Ptx optimizing assembler'
	echo 'Cuda compilation tools, release 12.4, V12.4.131'; exit 0 ;;
--help) echo '--gpu-name <gpu name>                               (-arch)'
	echo "        Allowed values for this option:  'compute_61','compute_70','sm_61','sm_70'."
	exit 0 ;;
esac
echo "$2" >> %s
if grep -q '^\\.target %s' "$3"; then
	echo "ptxas $3, line 3; error   : Stand-in refusal of %s" >&2
	exit 255
fi
exit 0
""" % (log, refuse, refuse))
    os.chmod(path, 0o755)
    return path, log


def leftout_site(name):
    """A site-packages folder in work/name with package lpkg: libleftout80.so."""
    site = folder(name, "site-packages")
    put(given["libleftout80.so"], name, "site-packages", "lpkg", "libleftout80.so")
    dist_info(site, "lpkg", "1.0", ["lpkg/libleftout80.so"])
    return site


def asked(log):
    return open(log).read().split() if os.path.exists(log) else []


def lowered_by_lower(lib, sm):
    """What bf16shim lower says and writes for lib on sm: (output, {file: text})."""
    out_dir = folder("lower", os.path.basename(lib), sm)
    p = subprocess.run([lower, lib, "-o", out_dir, "--target", sm, "-v"], capture_output=True,
                       text=True)
    texts = {n: open(os.path.join(out_dir, n)).read() for n in os.listdir(out_dir)}
    return p.stdout + p.stderr, texts


def table_rows(text, sm):
    """The package table of section sm: {package: [cells]}, and the header."""
    section = text.split("\nsm_%s" % sm[3:], 1)[1].split("\nsm_", 1)[0]
    lines = section.split("\n")
    head = next(i for i, l in enumerate(lines) if l.strip().startswith("PACKAGE"))
    rows = {}
    for l in lines[head + 1:]:
        if not l.startswith("  ") or l.strip().startswith("("):
            break
        cells = l.split()
        rows[cells[0]] = (cells, l)
    return rows, lines[head]


# ------------------------------------------------------------------------------------------
def point_deep():
    lib = given["libleftout80.so"]
    site = leftout_site("deep")
    # Without --deep: a prediction.
    rc, out, err = scan(site)
    check(rc == 0, "shallow: nothing fails", rc, out, err)
    check("can be lowered" in out and "modules lowered" not in out and " lowered," not in out,
          "shallow: 'can be lowered', never 'lowered'", out)
    check("--deep lowers it here" in out, "shallow: says what --deep would do", out)
    rc, rep, err = scan_json(site)
    g = by_name(rep)["libleftout80.so"]["gpus"]["sm_70"]
    check(g["verdict"] == "bf16shim" and g["bf16shim"] == 1, "shallow JSON: bf16shim", g)

    # With --deep and a stand-in ptxas that refuses sm_70: lowered, refused, in its words.
    standin, log = stand_in_ptxas()
    rc, rep, err = scan_json("--deep", "--ptxas", standin, site)
    f = by_name(rep)["libleftout80.so"]
    g70, g61, g75 = (f["gpus"][a] for a in ("sm_70", "sm_61", "sm_75"))
    check(rep["ptxas"]["sm_70"] == {"version": "12.4", "path": standin} and
          rep["ptxas"]["sm_75"] is None, "deep: the stand-in checks sm_61 and sm_70 only",
          rep["ptxas"])
    check(g70["verdict"] == "cannot run" and g70["none"] == 1 and rc == 1,
          "deep: a module ptxas refuses cannot run", g70, rc)
    notes = [n["text"] for n in g70["notes"]]
    check(any("lowered, refused by ptxas 12.4 for sm_70: line 3; error   : Stand-in refusal "
              "of sm_70" in n for n in notes) and not any("bf16shim-scan" in n for n in notes),
          "deep: ptxas's words, whole, without its temporary file", notes)
    check(g61["verdict"] == "partly" and g61["bf16shim"] == 1, "deep: sm_61 taken", g61)
    check(g75["verdict"] == "partly", "deep: sm_75 lowered, with no ptxas to ask", g75)
    check(sorted(set(asked(log))) == ["compute_61", "compute_70"] and len(asked(log)) == 2,
          "deep: the stand-in asked once per target", asked(log))
    rc, text, err = scan("--deep", "--ptxas", standin, site)
    check("lowered modules are held against the ISA table and checked by ptxas 12.4 (%s) for "
          "sm_61, sm_70; no ptxas at hand "
          "for sm_75" % standin in text, "deep text: which ptxas checks what", text)
    check("1 module lowered, refused by ptxas 12.4 for sm_70" in text or
          "lowered, refused by ptxas 12.4 for sm_70: line 3" in text, "deep text: the refusal",
          text)
    # Its answer is kept: asked again, the stand-in is not run.
    scan_json("--deep", "--ptxas", standin, site)
    check(len(asked(log)) == 2, "deep: ptxas's answers come from the cache the second time",
          asked(log))
    rc, rep2, err = scan_json("--deep", "--ptxas", standin, site)
    check(by_name(rep2)["libleftout80.so"]["gpus"] == f["gpus"], "deep: the same verdicts again")

    # The real ones, where they are: scan says exactly what the same ptxas says of what
    # bf16shim lower writes.
    real = [p for p in ["/usr/local/cuda/bin/ptxas"] +
            sorted(glob.glob(os.path.join(src, ".venv-clients", "*", "lib", "python3*",
                                          "site-packages", "triton", "backends", "nvidia",
                                          "bin", "ptxas"))) if os.access(p, os.X_OK)]
    if not real:
        print("no real ptxas here: its part is skipped")
        return
    args = []
    for p in real:
        args += ["--ptxas", p]
    rc, rep, err = scan_json("--deep", *args, site)
    f = by_name(rep)["libleftout80.so"]
    for sm in ("sm_61", "sm_70", "sm_75"):
        which = rep["ptxas"][sm]
        if not which:
            print("no real ptxas for", sm)
            continue
        said, texts = lowered_by_lower(lib, sm)
        check(len(texts) == 1, "bf16shim lower writes one module for " + sm, said)
        for name, text in texts.items():
            path = os.path.join(work, "real.ptx")
            open(path, "w").write(text)
            p = subprocess.run([which["path"], "--gpu-name", "compute_" + sm[3:], path, "-o",
                                "/dev/null"], capture_output=True, text=True)
            first = next((l for l in (p.stdout + p.stderr).split("\n")
                          if "error" in l or "fatal" in l), "")
            g = f["gpus"][sm]
            refused = [n for n in g["notes"] if "refused by ptxas " + which["version"] in n["kind"]]
            if p.returncode:
                words = first.split(path + ", ", 1)[-1]
                check(g["verdict"] == "cannot run" and refused and words in refused[0]["text"],
                      "real ptxas %s refuses the module for %s: scan says so, in its words" %
                      (which["version"], sm), words, g)
            else:
                check(g["verdict"] == "partly" and not refused,
                      "real ptxas %s takes the module for %s: scan says so" %
                      (which["version"], sm), g)
            print("%s: ptxas %s %s it%s" % (sm, which["version"],
                                            "refuses" if p.returncode else "takes",
                                            ": " + first if first else ""))


def point_elsewhere():
    site = folder("else", "site-packages")
    put(given["libk_90a.so"], "else", "site-packages", "fa3", "libfa3.so")
    dist_info(site, "fa3", "1.0", ["fa3/libfa3.so"])
    rc, rep, err = scan_json(site, archs="sm_75")
    g = by_name(rep)["libfa3.so"]["gpus"]["sm_75"]
    check(rc == 0 and g["verdict"] == "elsewhere" and g["elsewhere"] == 1 and not g["fix"],
          "sm_90a only: elsewhere, no fix, nothing fails", rc, g)
    check(g["why"] == "for sm_90a only; this library picks another kernel on this GPU",
          "sm_90a only: its own words", g["why"])
    rc, out, err = scan(site, archs="sm_75")
    rows, head = table_rows(out, "sm_75")
    check("ELSEWHERE" in head and rows.get("fa3", ([], ""))[0][-2:] == ["1/2", "elsewhere"],
          "the table has an ELSEWHERE column", head, rows)
    check("fix:" not in out and "for sm_90a only; this library picks another kernel" in out and
          "Some GPU code here cannot run" not in out, "text: no fix, no failure", out)
    # The control: the same code for sm_80 only cannot run on sm_75.
    put(given["libk_sm80.so"], "else", "other", "libk80.so")
    rc, rep, err = scan_json(os.path.join(work, "else", "other"), archs="sm_75")
    check(rc == 1 and by_name(rep)["libk80.so"]["gpus"]["sm_75"]["verdict"] == "cannot run",
          "sm_80 only: cannot run on sm_75", rc)

    # Alternative builds: one of them runs, the package runs.
    alt = folder("alt", "site-packages")
    put(given["libk_sm80.so"], "alt", "site-packages", "bnb", "libbnb_cuda118.so")
    put(given["libk_none.so"], "alt", "site-packages", "bnb", "libbnb_cuda124.so")
    put(given["libk_sm80.so"], "alt", "site-packages", "tri", "lib", "cupti-blackwell",
        "libcupti.so.13")
    put(given["libk_none.so"], "alt", "site-packages", "tri", "lib", "cupti", "libcupti.so.12")
    dist_info(alt, "bnb", "0.45", ["bnb/libbnb_cuda118.so", "bnb/libbnb_cuda124.so"])
    dist_info(alt, "tri", "3.9", ["tri/lib/cupti-blackwell/libcupti.so.13",
                                  "tri/lib/cupti/libcupti.so.12"])
    rc, rep, err = scan_json(alt, archs="sm_61,sm_75")
    files = by_name(rep)
    for name, other in (("libbnb_cuda118.so", "libbnb_cuda124.so"),
                        ("libcupti.so.13", "libcupti.so.12")):
        for sm in ("sm_61", "sm_75"):
            g = files[name]["gpus"][sm]
            check(g["verdict"] == "alternative" and g["alternative"].endswith("/" + other) and
                  not g["fix"], name + " on " + sm + ": an alternative to " + other, g)
    check(rc == 0, "alternatives: nothing fails", rc)
    rc, out, err = scan(alt, archs="sm_75")
    check("another build of it runs on sm_75: bnb/libbnb_cuda124.so" in out and rc == 0,
          "text: which build runs", out)
    # When none of them runs, each cannot run.
    put(given["libk_sm80.so"], "alt2", "site-packages", "bnb", "libbnb_cuda118.so")
    put(given["libk_sm80.so"], "alt2", "site-packages", "bnb", "libbnb_cuda124.so")
    rc, rep, err = scan_json(os.path.join(work, "alt2"), archs="sm_75")
    check(rc == 1 and [f["gpus"]["sm_75"]["verdict"] for f in rep["files"]] ==
          ["cannot run"] * 2, "alternatives none of which runs: cannot run", rep["files"])


def point_kernels():
    lib = given["libleftout80.so"]
    site = leftout_site("kern")
    said, texts = lowered_by_lower(lib, "sm_70")
    left = [l for l in said.split("\n") if "cannot be lowered" in l and " kernel " in l]
    check(len(left) == 2, "bf16shim lower leaves two kernels out", said)
    rc, rep, err = scan_json("--deep", "--ptxas", "none", site)
    f = by_name(rep)["libleftout80.so"]
    g = f["gpus"]["sm_70"]
    check(f["kernels"] == 4 and g["verdict"] == "partly" and g["bf16shim"] == 1 and
          g["none"] == 0, "one module that loads, four kernels", f["kernels"], g)
    check(g["kernels"] == {"native": 0, "jit": 0, "bf16shim": 2, "none": len(left),
                           "elsewhere": 0}, "kernels per verdict: two lowered, two left out",
          g["kernels"])
    pk = rep["packages"]["sm_70"][0]
    check(pk["kernels"]["bf16shim"] == 2 and pk["kernels"]["none"] == 2 and
          pk["kernels_total"] == 4, "the package's kernels per verdict", pk)
    rc, out, err = scan("--deep", "--ptxas", "none", site, archs="sm_70")
    check("(1 module: 1 lowered; 2 of 4 kernels cannot run)" in out, "text: kernels beside "
          "modules", out)
    rows, head = table_rows(out, "sm_70")
    cells = rows.get("lpkg", ([], ""))[0]
    check(cells[4:9] == ["0/0", "0/0", "1/2", "0/2", "0/0"], "table: modules/kernels per verdict",
          head, cells)


def point_words():
    lib = given["libleftout80.so"]
    site = leftout_site("words")
    said, texts = lowered_by_lower(lib, "sm_70")
    names = [l.split(" kernel ", 1)[1].split(" ", 1)[0] for l in said.split("\n")
             if "cannot be lowered" in l and " kernel " in l]
    check(len(names) == 2 and all(len(n) > 120 for n in names), "long kernel names", names)
    rc, rep, err = scan_json("--deep", "--ptxas", "none", site)
    g = by_name(rep)["libleftout80.so"]["gpus"]["sm_70"]
    note = g["notes"][0] if g["notes"] else {}
    check(note.get("kernels") == 2 and note.get("text", "").split(":", 1)[0] in
          ["kernel " + n for n in names], "JSON: the kernel's whole name", note)
    check("in _Z12needs_hopperf" in note.get("text", "") and
          "'wgmma.fence.sync.aligned' needs sm_90" in note.get("text", "") and
          "line 0" not in note.get("text", "") and "sm_0" not in note.get("text", ""),
          "JSON: the device function it calls and its instruction", note)
    rc, out, err = scan("--deep", "--ptxas", "none", site, archs="sm_70")
    check("2 kernels cannot be lowered: 'wgmma.fence.sync.aligned' needs sm_90" in out and
          any(n in out for n in names) and "_Z12needs_hopperf (which it calls)" in out,
          "text: what is left out, whole", out)
    check("launching a kernel left out fails" in out and "choose their kernels by GPU" not in out,
          "text: partly because of kernels left out, not as cuBLAS is", out)
    # Partly because a module is for another GPU: a fatbin file of two modules.
    two = os.path.join(folder("words2"), "two.fatbin")
    with open(two, "wb") as f:
        for part in (given["k75.fatbin"], given["k80.fatbin"]):
            data = open(part, "rb").read()
            f.write(data + b"\0" * (-len(data) % 8))
    rc, out, err = scan(two, archs="sm_75")
    check("(2 modules: 1 native, 1 with nothing for sm_75)" in out and
          "choose their kernels by GPU" in out and "left out" not in out,
          "text: partly because a module has nothing for the GPU", out)
    # One of each.
    one = folder("words3")
    put(given["libk_sm80.so"], "words3", "libk80.so")
    rc, out, err = scan(one, archs="sm_75")
    check("1 file cannot run" in out and "(its module does not run on sm_75)" in out and
          "1 files" not in out and "1 modules" not in out, "text: one file, one module", out)


def point_packages():
    # An unpacked wheel, and a pip --target folder holding two distributions.
    wheel = folder("unpacked", "mypkg-1.0")
    put(given["libk_sm80.so"], "unpacked", "mypkg-1.0", "mypkg", "_C.so")
    dist_info(wheel, "mypkg", "1.0", ["mypkg/_C.so"])
    target = folder("target")
    put(given["libk_sm80.so"], "target", "ops", "lib", "libops.so")
    put(given["libk_none.so"], "target", "ops_extra", "libextra.so")
    dist_info(target, "Fancy_Ops", "2.1", ["ops/lib/libops.so"])
    dist_info(target, "ops.extra", "0.3", ["ops_extra/libextra.so"])
    plain = folder("plain", "a-rather-long-folder-name-that-is-not-a-package-at-all")
    put(given["libk_sm80.so"], "plain", "a-rather-long-folder-name-that-is-not-a-package-at-all",
        "libplain.so")
    rc, rep, err = scan_json(os.path.join(work, "unpacked"), target, os.path.join(work, "plain"),
                             archs="sm_75")
    pk = {os.path.basename(f["path"]): f["package"] for f in rep["files"]}
    check(pk.get("_C.so") == "mypkg" and pk.get("libops.so") == "fancy-ops" and
          pk.get("libextra.so") == "ops-extra", "packages from their dist-info", pk)
    rc, out, err = scan(os.path.join(work, "unpacked"), target, os.path.join(work, "plain"),
                        archs="sm_75")
    check("  mypkg  mypkg/_C.so  " in out and "  fancy-ops  ops/lib/libops.so  " in out,
          "text: the package and the path from its folder", out)
    rows, head = table_rows(out, "sm_75")
    at, verdict = head.index("FILES") + len("FILES"), head.index("VERDICT")
    check(len(rows) == 4 and all(l[:at].endswith(" 1") and l[verdict - 1] == " " and
                                 l[verdict:] in ("cannot run", "native")
                                 for cells, l in rows.values()),
          "the table's columns stay in place", head, [l for c, l in rows.values()])


def point_agree():
    d = folder("agree")
    for name in ("libnokernels.so", "libnokernels_tiny.so", "libleftout80.so", "libk_none.so"):
        put(given[name], "agree", name)
    rc, rep, err = scan_json(d, archs="sm_61,sm_75")
    tiny = by_name(rep)["libnokernels_tiny.so"]
    check(tiny["modules"] == 0 and tiny["empty_modules"] >= 1 and
          all(g["verdict"] == "no kernels" and not g["fix"] for g in tiny["gpus"].values()),
          "GPU code without kernels: no verdict that fails, no fix", tiny)
    rc1, out, err = scan(os.path.join(d, "libnokernels_tiny.so"), archs="sm_61")
    rc2, rep1, err = scan_json(os.path.join(d, "libnokernels_tiny.so"), archs="sm_61")
    check(rc1 == rc2 == 0 and rep1["status"] == 0 and "no kernels found" in out,
          "text and JSON agree on it", rc1, rc2, out)
    big = by_name(rep)["libnokernels.so"]
    check(big["modules"] == 1 and big["kernels"] is None and big["codecs"]["zstd"] >= 2,
          "a compressed module too big to open without --deep: a module, not counted", big)
    rc, deep, err = scan_json("--deep", "--ptxas", "none", d, archs="sm_61,sm_75")
    for name, f in by_name(rep).items():
        g = by_name(deep)[name]
        check((f["modules"], f["empty_modules"]) == (g["modules"], g["empty_modules"]),
              name + ": the same modules with and without --deep",
              (f["modules"], f["empty_modules"]), (g["modules"], g["empty_modules"]))
    check(by_name(deep)["libnokernels.so"]["kernels"] == 0, "--deep counts its kernels: none")
    # The text counts modules as JSON does.
    rc, out, err = scan(os.path.join(d, "libnokernels.so"), archs="sm_75", env={})
    check("(1 module: 1 native)" in out or "runs natively" in out, "text: that module", out)


def point_alike():
    root = folder("alike")
    for i in range(30):
        put(given["libk_90a.so"], "alike", "fa3", "variant%02d" % i, "libfa3.so")
    dist_info(root, "fa3", "1.0", ["fa3/variant%02d/libfa3.so" % i for i in range(30)])
    rc, out, err = scan(root, archs="sm_75")
    entries = [l for l in out.split("\n") if l.startswith("  elsewhere ")]
    check(len(entries) == 1 and "30 files in fa3/" in entries[0],
          "thirty alike files, one entry", entries)
    rc, out, err = scan("--all", os.path.join(work, "alike"), archs="sm_75")
    check(len([l for l in out.split("\n") if l.startswith("  elsewhere ")]) == 30,
          "--all: thirty entries", out[:2000])
    # Twelve packages that cannot run, each its own entry.
    root = folder("capped")
    for i in range(12):
        put(given["libk_sm80.so"], "capped", "pkg%02d" % i, "libk.so")
        dist_info(root, "pkg%02d" % i, "1.0", ["pkg%02d/libk.so" % i])
    rc, piped, err = scan(root, archs="sm_75")
    check(len([l for l in piped.split("\n") if l.startswith("  cannot run ")]) == 12 and
          "more files that cannot run" not in piped, "through a pipe: every entry", piped)
    rc, tty, err = scan(root, archs="sm_75", tty_out=True)
    check(len([l for l in tty.split("\n") if l.startswith("  cannot run ")]) == 10 and
          "  ... and 2 more files that cannot run (--all lists them)" in tty,
          "on a terminal: ten entries and a line for the rest", tty)
    rc, tty_all, err = scan("--all", root, archs="sm_75", tty_out=True)
    check(len([l for l in tty_all.split("\n") if l.startswith("  cannot run ")]) == 12,
          "on a terminal with --all: every entry", tty_all)


def container_of(lib):
    """The last fatbin container of a shared object's .nv_fatbin: its kernels.cu module."""
    data = open(lib, "rb").read()
    off, size = elf_section(data, ".nv_fatbin")
    last, end = None, off + size
    while off + 16 <= end:
        magic, _, header, body = struct.unpack_from("<IHHQ", data, off)
        if magic != 0xBA55ED50:
            off += 8
            continue
        last = data[off:off + header + body]
        off += header + body
    return last


def point_speed():
    lib = given["libleftout80.so"]
    for where in (("a", "one", "libleftout80.so"), ("a", "two", "libleftout80.so"),
                  ("a", "three", "libcopy.so")):
        put(lib, "speed", *where)
    d = os.path.join(work, "speed")
    rc, rep, err = scan_json("--deep", "--ptxas", "none", "--jobs", "1", d, archs="sm_61,sm_70")
    kept = sorted(glob.glob(os.path.join(cache, "*.lowered")))
    check(len(kept) == 2, "one PTX in three files, two GPUs: kept twice", kept)
    # Without a cache to fall back on: lowered (and checked) once per GPU all the same.
    standin, log = stand_in_ptxas(refuse="sm_99")
    rc, nocache, err = scan_json("--deep", "--ptxas", standin, d, archs="sm_61,sm_70",
                                 env={"BF16SHIM_CACHE": "0"})
    check(sorted(asked(log)) == ["compute_61", "compute_70"],
          "one PTX in three files, two GPUs: lowered and checked twice", asked(log))
    times = {p: os.stat(p).st_mtime_ns for p in kept}
    # The library loads the same module on a simulated sm_70 and finds it in the cache.
    blob = os.path.join(work, "module.fatbin")
    open(blob, "wb").write(container_of(lib))
    loader = os.path.join(work, "load.py")
    open(loader, "w").write(
        "import ctypes, sys\n"
        "cuda = ctypes.CDLL('libcuda.so.1')\n"
        "dev, ctx, mod = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_void_p()\n"
        "cuda.cuInit(0)\n"
        "cuda.cuDeviceGet(ctypes.byref(dev), 0)\n"
        "cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)\n"
        "cuda.cuCtxSetCurrent(ctx)\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "print(cuda.cuModuleLoadData(ctypes.byref(mod), ctypes.create_string_buffer(data, len(data))))\n")
    rc, out, err = run(command, "run", "--sim", "sm_70", "--log", "debug", "--", sys.executable,
                       loader, blob)
    keys = [os.path.basename(p)[:16] for p in kept]
    hits = [l for l in err.split("\n") if "from the cache" in l and "for sm_70" in l]
    check(out.strip() == "0" and hits and any(k in hits[0] for k in keys),
          "the library loads the module scan lowered from the cache", out, err[-2000:], keys)
    check(not any("lowering module" in l for l in err.split("\n")),
          "the library lowers nothing itself", err[-2000:])
    # Again: read back, the same words, nothing lowered; any number of threads.
    rc2, rep2, err2 = scan_json("--deep", "--ptxas", "none", "--jobs", "3", d,
                                archs="sm_61,sm_70")
    check({p: os.stat(p).st_mtime_ns for p in kept} == times and
          sorted(glob.glob(os.path.join(cache, "*.lowered"))) == kept,
          "a second scan reads the cache and writes nothing")
    for r in (rep, rep2):
        r.pop("seconds")
    check(rep == rep2, "the same report, warm, on three threads as on one")
    os.makedirs(os.path.join(work, "cold"), exist_ok=True)
    rc3, rep3, err3 = scan_json("--deep", "--ptxas", "none", "--jobs", "4", d,
                                archs="sm_61,sm_70",
                                env={"BF16SHIM_CACHE_DIR": os.path.join(work, "cold")})
    rep3.pop("seconds")
    check(rep3 == rep, "the same report, cold, on four threads")
    # Progress: on a terminal only.
    rc, out, err = scan("--deep", "--ptxas", "none", d, archs="sm_75", tty_err=True,
                        env={"BF16SHIM_CACHE_DIR": os.path.join(work, "cold2")})
    check("modules lowered" in err, "progress on a terminal", err[-500:])
    rc, out, err = scan("--deep", "--ptxas", "none", d, archs="sm_75",
                        env={"BF16SHIM_CACHE_DIR": os.path.join(work, "cold3")})
    check("modules lowered" not in err and "\r" not in err, "no progress through a pipe", err)


# ------------------------------------------------------------------------------------------
def plant(path, statement):
    """Adds a kernel holding statement to the lowered module the cache file at path holds, and
    signs the file again (lowercache.c: the SHA-256 of what follows the first blank line), so
    that it reads as whole: what a lowering that let the statement through would have kept."""
    data = open(path, "rb").read()
    head, body = data.split(b"\n\n", 1)
    body += (".visible .entry planted()\n{\n\t.reg .b16 %%h<3>;\n\t%s\n\tret;\n}\n" %
             statement).encode()
    lines = head.split(b"\n")
    lines = [b"sha256 " + hashlib.sha256(body).hexdigest().encode() if l.startswith(b"sha256 ")
             else l for l in lines]
    with open(path, "wb") as f:
        f.write(b"\n".join(lines) + b"\n\n" + body)


def point_table():
    site = leftout_site("table")
    rc, rep, err = scan_json("--deep", "--ptxas", "none", site, archs="sm_70")
    g = by_name(rep)["libleftout80.so"]["gpus"]["sm_70"]
    check(g["bf16shim"] == 1 and g["none"] == 0, "table: lowered, and the table takes it", g)
    lowered = glob.glob(os.path.join(cache, "*.lowered"))
    checked = glob.glob(os.path.join(cache, "*.check-*"))
    check(len(lowered) == 1 and len(checked) == 1, "table: one module lowered, its check kept",
          os.listdir(cache) if os.path.isdir(cache) else None)
    if len(lowered) != 1:
        return
    # min.f16 needs sm_80 (PTX ISA 9.7.4, "Target ISA notes"): what a lowering with a bug
    # would leave for sm_70.  The check kept from before goes, as from a cache of its own.
    plant(lowered[0], "min.f16 %h0, %h1, %h2;")
    for c in checked:
        os.unlink(c)
    rc, rep, err = scan_json("--deep", "--ptxas", "none", site, archs="sm_70")
    f = by_name(rep)["libleftout80.so"]
    g = f["gpus"]["sm_70"]
    check(g["bf16shim"] == 0 and g["none"] == 1 and g["verdict"] == "cannot run" and rc == 1,
          "table: a lowered module with an instruction the target lacks gets no bf16shim "
          "verdict", g, rc)
    notes = [n["text"] for n in g["notes"]]
    check(any("lowered, refused by the ISA table for sm_70: line " in n and
              "'min.f16' needs sm_80" in n for n in notes),
          "table: the refusal says the line, the instruction and what it needs", notes)
    rc, text, err = scan("--deep", "--ptxas", "none", site, archs="sm_70")
    check("refused by the ISA table for sm_70" in text and rc == 1 and
          "lowered modules are held against the ISA table, not checked by ptxas" in text,
          "table: the text says so, and that the table checks", text)


POINTS = {"table": point_table, "deep": point_deep, "elsewhere": point_elsewhere, "kernels": point_kernels,
          "words": point_words, "packages": point_packages, "agree": point_agree,
          "alike": point_alike, "speed": point_speed}
try:
    POINTS[point]()
finally:
    shutil.rmtree(work, ignore_errors=True)
print("truth_test.py %s: %d checks, %d failed" % (point, checks, failures))
sys.exit(1 if failures else 0)
