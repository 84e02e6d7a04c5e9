"""bf16shim doctor's report: the libraries found and, for each GPU, what is native, what
bf16shim provides and what is unavailable (the capability table, bf16shim-capabilities,
beside the command), with the cost model's times; and its last line, a pointer to scan when
GPU code of this environment cannot run on one of the GPUs."""
import subprocess

from . import facts as factlib, options

STATUS = {"native": "native", "shim": "provided by bf16shim",
          "lower": "provided by bf16shim lower", "none": "unavailable"}


def generation(sm):
    if sm >= 100:
        return "Blackwell"
    if sm >= 90:
        return "Hopper"
    if sm == 89:
        return "Ada"
    if sm >= 80:
        return "Ampere"
    if sm == 75:
        return "Turing"
    for low, name in ((70, "Volta"), (60, "Pascal"), (50, "Maxwell")):
        if sm >= low:
            return name
    return "Kepler or older"


def capabilities(path):
    """The table's rows: (capability, lowest sm, highest sm, tensor cores, status, text)."""
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("cap|"):
                name, low, high, tc, status, text = line.rstrip("\n")[4:].split("|", 5)
                rows.append((name, int(low), int(high), tc, status, text))
    return rows


def library_line(label, lib):
    if not lib.get("lib"):
        return f"{label:<17} not found by the dynamic loader"
    return f"{label:<17} {lib.get('version') or '':<9} {lib['lib']}"


def report(facts, table, shimlib, lower, sim):
    """The report's lines and its exit status (1 when no GPU can be used)."""
    out = [f"{'bf16shim library':<17} {shimlib}"]
    driver = facts.libraries["driver"]
    if not driver.get("lib"):
        out.append(f"{'NVIDIA driver':<17} none ({driver.get('error') or ''})")
    else:
        out.append(f"{'NVIDIA driver':<17} {'CUDA ' + (driver.get('version') or ''):<9} "
                   f"{driver['lib']}")
    out.append(library_line("CUDA runtime", facts.libraries["runtime"]))
    out.append(library_line("cuBLAS", facts.libraries["cublas"]))
    out.append(library_line("cuBLASLt", facts.libraries["cublaslt"]))
    if not driver.get("lib"):
        out += ["", "No NVIDIA driver: no program on this machine can use a GPU, with or without",
                "bf16shim.  On a machine with an NVIDIA GPU, install its driver.  To see what",
                "bf16shim does for an older GPU without one: bf16shim doctor --sim sm_61, or",
                "bf16shim demo."]
        return out, 1
    if not facts.devices:
        out += ["", "The driver is installed but reports no usable GPU "
                f"({driver.get('error') or '0 devices'}).",
                "Check that the card is seen (nvidia-smi) and that CUDA_VISIBLE_DEVICES is not "
                "empty."]
        return out, 1
    cublas = facts.libraries["cublas"]
    if not cublas.get("lib"):
        out += ["", "cuBLAS is not on the loader path: programs that bundle it (PyTorch wheels) "
                "load", "their own copy, which bf16shim finds at run time."]
    cublas_major = int((cublas.get("version") or "0").split(".")[0] or 0)
    for d, dev in facts.devices:
        sm, tc = dev["sm"], dev["tensor_cores"]
        out += ["", f"GPU {d}: {dev['name']}, sm_{sm} ({generation(sm)}), "
                f"{'' if dev.get('memory_mb') is None else dev['memory_mb']} MiB, {'tensor cores' if tc else 'no tensor cores'}"]
        if not sim and cublas_major >= 13 and sm < 75:
            out.append("  note: CUDA 13 dropped sm_50-sm_72: use a CUDA 12 build of your "
                       "framework")
        seen = set()
        for name, low, high, need_tc, status, text in table:
            if name in seen or not low <= sm <= high:
                continue
            if (need_tc == "yes" and not tc) or (need_tc == "no" and tc):
                continue
            seen.add(name)
            verdict = STATUS[status] + (" (bf16shim-lower not found: reinstall bf16shim)"
                                       if status == "lower" and not lower else "")
            out.append(f"  {name:<30} {verdict}")
            if text:
                out += options.wrap("      ", text.split())
        out += model_lines(dev.get("model"))
    return out, 0


def model_lines(model):
    """The cost model's times for typical bf16 GEMMs on a GPU: modeled from the driver's
    figures, not measured."""
    if model is None:
        return []
    out = [f"  {'modeled times (not measured)':<30} {'natively':>12} {'with bf16shim':>14}"]
    for row in model:
        how = "(passed through)" if row["path"] == "pass" else f"({row['path']} path)"
        native = "refused" if row["native_us"] is None else f"{row['native_us']:.1f} us"
        out.append(f"    {row['gemm']:<28} {native:>12} {row['shim_us']:>11.1f} us {how}")
    return out


def scan_pointer(facts, scanner):
    """Doctor's last line: a pointer to scan when GPU code of this environment (scan's default
    paths) cannot run on one of the GPUs in facts.  None otherwise."""
    archs = facts.archs()
    paths = factlib.python_sites() + facts.library_paths()
    if not scanner or not archs or not paths:
        return None
    done = subprocess.run([scanner, "--quiet", "--arch", archs, "--"] + paths,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          universal_newlines=True)
    if done.returncode == 0 or not done.stdout.strip():
        return None
    failing = done.stdout.splitlines()
    gpus = [f"GPU {d} (sm_{dev['sm']})" for d, dev in facts.devices
            if any(line.startswith(f"sm_{dev['sm']} ") for line in failing)]
    return (f"\nCompiled GPU code in this environment cannot run on {', '.join(gpus)}: "
            "bf16shim scan says which and why.")
