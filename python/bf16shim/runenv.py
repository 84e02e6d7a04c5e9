"""What `bf16shim run` gives its command, computed once for every way in: `run` and `sim`
exec with it, `env` prints it, `kernel install` writes it into a kernelspec, enable() sets it
in its own process.  The library first in LD_PRELOAD, the settings the options name,
Triton's ptxas, and with --sim the simulated CUDA stack."""
import os
import re
import zlib

from . import options
from .places import Missing

# What run and --sim may set besides the settings of the options, in the order `env` prints.
FIXED = ("LD_PRELOAD", "LD_LIBRARY_PATH", "BF16SHIM_LIB", "TRITON_PTXAS_PATH", "BF16SHIM_LOWER")


class Setup:
    """environ: the environment for the command; files: what LD_PRELOAD gained, as paths in
    the order it names them (enable() loads them, since ld.so read its LD_PRELOAD already)."""

    def __init__(self, environ):
        self.environ, self.files = environ, []


def _prepend_path(environ, name, folder):
    """folder first in the ':'-separated list environ[name], unless it is there."""
    old = environ.get(name, "")
    if folder not in old.split(":"):
        environ[name] = folder + (":" + old if old else "")


def preload_word(path, environ, what):
    """What LD_PRELOAD can carry for the library at path.  ld.so splits LD_PRELOAD on ':' and
    ' ', so a path with either (a folder named "My Drive", a pip install under one) is
    preloaded by its bare name, found through LD_LIBRARY_PATH, which splits on ':' and ';'
    only: its folder, put first there, or where that has one of those too, a folder of links
    in the user's cache."""
    if not re.search("[: ]", path):
        return path
    name, folder = os.path.basename(path), os.path.dirname(path)
    if re.search("[:;]", folder):
        cache = environ.get("XDG_CACHE_HOME") or os.path.join(environ.get("HOME", "/"), ".cache")
        folder = os.path.join(cache, "bf16shim", str(zlib.crc32(path.encode())))
        if re.search("[:; ]", folder):
            raise Missing(f"{what}: {path} cannot be preloaded: its folder has ':', and so "
                          f"has the cache folder {folder}: install bf16shim elsewhere")
        try:
            os.makedirs(folder, exist_ok=True)
            link = os.path.join(folder, name)
            if os.path.islink(link) or os.path.exists(link):
                os.unlink(link)
            os.symlink(path, link)
        except OSError as e:
            raise Missing(f"{what}: cannot link {path} into {folder}: {e.strerror}") from None
    _prepend_path(environ, "LD_LIBRARY_PATH", folder)
    return name


def preload_with(lib, word, current):
    """LD_PRELOAD with word (for lib) first, everything else that was there kept in order,
    and no other copy of the shim: an entry is dropped when it resolves to the same file or
    is another libbf16shim.so (two shims would both interpose cuBLAS)."""
    kept = []
    for entry in re.split("[: ]", current or ""):
        if not entry or os.path.basename(entry).startswith("libbf16shim.so"):
            continue
        if os.path.realpath(entry) == lib:
            continue
        kept.append(entry)
    return ":".join([word] + kept)


def add_simulator(setup, places, cuda, arch, what):
    """The simulated CUDA stack of major cuda as device(s) arch, for what follows."""
    simdir = places.simdir(cuda)
    if re.search("[:;]", simdir):
        raise Missing(f"{what}: the simulated stack's folder {simdir} has ':' or ';', which "
                      "LD_LIBRARY_PATH splits on: use a build folder without them")
    environ = setup.environ
    _prepend_path(environ, "LD_LIBRARY_PATH", simdir)
    # Preloaded as well: a library that finds its CUDA libraries through DT_RPATH (PyTorch's
    # wheels point theirs at nvidia/*/lib), which wins over LD_LIBRARY_PATH, gets the ones
    # already loaded under the same soname.  After anything already preloaded, so that
    # bf16shim (run puts it first) still interposes on them.
    files = [os.path.join(simdir, n) for n in ("libcuda.so.1", f"libcudart.so.{cuda}",
                                                f"libcublasLt.so.{cuda}", f"libcublas.so.{cuda}")]
    words = [preload_word(f, environ, what) for f in files]
    environ["LD_PRELOAD"] = ":".join([p for p in [environ.get("LD_PRELOAD")] if p] + words)
    environ["SIMCUDA_ARCH"] = arch
    setup.files += files


def run_setup(places, values, base, what):
    """What run gives its command for the parsed options values, from the environment base;
    Missing when a part is not there (what: the subcommand, for messages)."""
    setup = Setup(dict(base))
    environ = setup.environ
    environ.update(options.settings(values))
    lib = places.library()
    # Children that run bf16shim again (a nested run, doctor) find the same library.
    environ["BF16SHIM_LIB"] = lib
    environ["LD_PRELOAD"] = preload_with(lib, preload_word(lib, environ, what),
                                         environ.get("LD_PRELOAD"))
    setup.files.append(lib)
    # Triton assembles its kernels with the ptxas TRITON_PTXAS_PATH names; the wrapper lowers
    # bf16 PTX below sm_80 first, with the lowering helper of the library's build or install.
    # What the user chose is kept.
    for variable, helper in (("TRITON_PTXAS_PATH", "bf16shim-ptxas"),
                             ("BF16SHIM_LOWER", "bf16shim-lower")):
        if not environ.get(variable):
            found = places.helper(helper)
            if found:
                environ[variable] = found
    if "sim" in values:
        add_simulator(setup, places, values.get("cuda", "13"), values["sim"], what)
    return setup


def sim_setup(places, cuda, arch, base, what):
    """The simulated stack alone, without the shim (`bf16shim sim`)."""
    setup = Setup(dict(base))
    add_simulator(setup, places, cuda, arch, what)
    return setup


def changes(base, environ):
    """The variables environ changes from base, in the order `env` prints them."""
    order = list(FIXED) + options.variables() + ["SIMCUDA_ARCH"]
    return {k: environ[k] for k in order if k in environ and base.get(k) != environ[k]}


def quoted(value):
    """value as one shell word in single quotes."""
    return "'" + value.replace("'", "'\\''") + "'"
