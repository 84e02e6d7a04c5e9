"""What bf16shim-probe says of this machine's CUDA stack (its JSON: tools/probe.c), read in
one place for doctor and scan, and what they make of it: the GPUs' architectures, the
folders of the CUDA libraries a program would load, and the current Python's packages."""
import fnmatch
import json
import os
import site
import subprocess
import sysconfig

LIBRARIES = ("driver", "runtime", "cublas", "cublaslt")
# System folders hold much else: there the library files alone are scanned.
SYSTEM_DIRS = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/lib/*-linux-gnu*",
               "/usr/lib/*-linux-gnu*")


class Facts:
    """The probe's answer: libraries (name: {"lib", "version", "error"}) and devices (index:
    {"name", "sm", "tensor_cores", "memory_mb", "model"}), the ones the driver named."""

    def __init__(self, data):
        self.libraries = {k: data.get(k) or {} for k in LIBRARIES}
        self.devices = [(i, d) for i, d in enumerate(data.get("devices") or []) if d]

    def lib(self, key):
        return self.libraries[key].get("lib")

    def archs(self):
        """The GPUs' architectures, once each, as scan's --arch takes them: sm_61,sm_75."""
        return ",".join(sorted({f"sm_{d['sm']}" for _, d in self.devices}))

    def library_paths(self):
        """The CUDA libraries a program would load: their folder, or the file itself when it
        is in a system folder."""
        paths = set()
        for key in ("runtime", "cublas", "cublaslt"):
            lib = self.lib(key)
            if not lib or not lib.startswith("/"):
                continue
            folder = os.path.dirname(lib)
            if any(fnmatch.fnmatchcase(folder, p) for p in SYSTEM_DIRS):
                paths.add(os.path.realpath(lib))
            else:
                paths.add(folder)
        return sorted(paths)


def probe(program, environ=None):
    """Runs the probe (with environ); its Facts, or None when it fails or says nothing."""
    try:
        done = subprocess.run([program], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              env=environ)
    except OSError:
        return None
    if done.returncode != 0:
        return None
    try:
        return Facts(json.loads(done.stdout.decode("utf-8", "replace")))
    except ValueError:
        return None


def python_sites():
    """The folders this Python's packages are in: its site-packages and, where it reads it,
    the user's."""
    paths = sysconfig.get_paths()
    candidates = [paths.get("purelib"), paths.get("platlib")]
    candidates += list(getattr(site, "getsitepackages", lambda: [])())
    if site.ENABLE_USER_SITE:
        candidates.append(site.getusersitepackages())
    seen, out = set(), []
    for p in candidates:
        if p and os.path.isdir(p) and os.path.realpath(p) not in seen:
            seen.add(os.path.realpath(p))
            out.append(p)
    return out
