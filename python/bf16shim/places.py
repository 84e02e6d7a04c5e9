"""Where the parts of bf16shim are: the library, the helper programs and the simulated CUDA
stack, by one rule that the command, the Python package and bf16shim-ptxas (which asks the
command) all follow:

  1. what a variable names: BF16SHIM_LIB (and the helpers beside it), BF16SHIM_SIMDIR;
  2. else the installation this command belongs to: the library in lib/<multiarch>/, lib64/
     or lib/ beside its bin/, the helpers in that folder's bf16shim/ or in bin/;
  3. else, in a source checkout, one build folder: BF16SHIM_BUILD, or else the build* folder
     whose library was built last, leaving out sanitizer builds (their libraries need the
     sanitizer's runtime loaded first) and wheel builds (no simulator); what is missing there
     is built, once, with the meson target 'command'.

The folder of the command (`here`: bin/, a checkout's scripts/, the wheel's bin/) is where
the rest is looked for.  Paths are kept as they are: spaces, quotes and colons included."""
import glob
import os
import sys

# Every `run` starts here: what only a build, a version or a build folder's options need is
# imported where it is needed.


class Missing(Exception):
    """A part of bf16shim is not there: the message says which and what to do."""


def _executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _sanitizer_or_wheel(build):
    """Is this a sanitizer build, or one laid out for the wheel?"""
    import json
    try:
        with open(os.path.join(build, "meson-info", "intro-buildoptions.json")) as f:
            options = {o["name"]: o["value"] for o in json.load(f)}
    except (OSError, ValueError, KeyError, TypeError):
        return False
    sanitize = options.get("b_sanitize", "none")
    return sanitize not in ("none", [], ["none"]) or options.get("python_package") is True


def _mtime(path):
    try:
        return os.stat(path).st_mtime
    except OSError:
        return -1


class Places:
    """The parts of the bf16shim whose command is in the folder here."""

    def __init__(self, here, environ=None):
        self.here = os.path.abspath(here)
        self.root = os.path.dirname(self.here)
        self.environ = os.environ if environ is None else environ
        self._built = False

    @classmethod
    def of_package(cls, environ=None):
        """For the Python package: the wheel's bin/ inside it, or a source checkout's
        scripts/ when the package is its python/bf16shim."""
        package = os.path.dirname(os.path.abspath(__file__))
        for here in (os.path.join(package, "bin"),
                     os.path.join(os.path.dirname(os.path.dirname(package)), "scripts")):
            if os.path.isfile(os.path.join(here, "bf16shim")):
                return cls(here, environ)
        return cls(os.path.join(package, "bin"), environ)

    def command(self):
        return os.path.join(self.here, "bf16shim")

    # --- an installation --------------------------------------------------------------------

    def installed_dirs(self):
        """The folders an installed library may be in, relative to bin/."""
        dirs = sorted(glob.glob(os.path.join(glob.escape(self.root), "lib", "*-linux-gnu*")))
        dirs += [os.path.join(self.root, "lib64"), os.path.join(self.root, "lib")]
        return [d for d in dirs if os.path.isdir(d)]

    def installed(self, name, test=os.path.isfile):
        return next((os.path.join(d, name) for d in self.installed_dirs()
                     if test(os.path.join(d, name))), None)

    # --- a source checkout ------------------------------------------------------------------

    def source(self):
        """Is this the command of a source checkout, which can build what it runs?"""
        return (os.path.isfile(os.path.join(self.root, "meson.build")) and
                _executable(os.path.join(self.root, "scripts", "test")))

    def build(self):
        """The checkout's build folder (rule 3)."""
        chosen = self.environ.get("BF16SHIM_BUILD")
        if chosen:
            return os.path.abspath(chosen)
        default = os.path.join(self.root, "build")
        builds = [b for b in glob.glob(os.path.join(glob.escape(self.root), "build*"))
                  if os.path.isdir(os.path.join(b, "meson-info")) and not _sanitizer_or_wheel(b)]
        if not builds:
            return default
        return max(builds, key=lambda b: (_mtime(os.path.join(b, "src", "libbf16shim.so")),
                                          b == default))

    def make(self, always=False):
        """Builds the meson target 'command' (the library, its helpers, both simulated stacks)
        into the build folder, once per process (always: even when something is there).
        False outside a source checkout; Missing when the build fails."""
        import subprocess
        import tempfile
        if not self.source():
            return False
        if self._built:
            return True
        build = self.build()
        if not os.path.isfile(os.path.join(build, "build.ninja")):
            print(f"Building bf16shim and the simulated CUDA stack into {build} (first run "
                  "only)...", file=sys.stderr)
        with tempfile.NamedTemporaryFile("w+", prefix="bf16shim-build-", suffix=".log",
                                         delete=False) as log:
            done = subprocess.run([os.path.join(self.root, "scripts", "test"), "--build-only",
                                   "command"], stdout=log, stderr=subprocess.STDOUT,
                                  env={**self.environ, "BF16SHIM_BUILD": build})
            if done.returncode != 0:
                log.seek(0)
                sys.stderr.write("".join(log.readlines()[-30:]))
                raise Missing(f"the build failed (above; whole log: {log.name})")
        os.unlink(log.name)
        self._built = True
        return True

    def _in_build(self, *parts, test=os.path.isfile):
        """A file of the build folder, built first where it is missing; None outside a
        source checkout or when the build does not make it."""
        if not self.source():
            return None
        path = os.path.join(self.build(), *parts)
        if not test(path):
            self.make()
            path = os.path.join(self.build(), *parts)
        return path if test(path) else None

    # --- the parts --------------------------------------------------------------------------

    def library(self):
        """libbf16shim.so: BF16SHIM_LIB, installed, or the build's."""
        lib = self.environ.get("BF16SHIM_LIB")
        if lib:
            if not os.path.isfile(lib):
                raise Missing(f"BF16SHIM_LIB={lib}: no such file")
            return os.path.realpath(lib)
        found = self.installed("libbf16shim.so") or (
            self._in_build("src", "libbf16shim.so"))
        if found:
            return os.path.realpath(found)
        if not self.source():
            raise Missing("libbf16shim.so is missing from this installation (looked in " +
                          " ".join(self.installed_dirs()) + f" next to {self.here}): "
                          "reinstall bf16shim, or set BF16SHIM_LIB")
        raise Missing("libbf16shim.so not found: build it (./scripts/test --build-only, or "
                      "meson setup build && ninja -C build), install it, or set BF16SHIM_LIB")

    def helper(self, name):
        """A helper program: beside BF16SHIM_LIB, installed, beside the command, or the
        build's tools/; None when there is none."""
        lib = self.environ.get("BF16SHIM_LIB")
        if lib:
            d = os.path.dirname(lib)
            for path in (os.path.join(d, "bf16shim", name), os.path.join(d, "..", "tools", name)):
                if _executable(path):
                    return path
        found = self.installed(os.path.join("bf16shim", name), _executable)
        if found:
            return found
        path = os.path.join(self.here, name)
        if _executable(path):
            return path
        return self._in_build("tools", name, test=_executable)

    def simdir(self, cuda):
        """The simulated CUDA stack of major cuda: BF16SHIM_SIMDIR or the build's."""
        names = ["libcuda.so.1", f"libcudart.so.{cuda}", f"libcublas.so.{cuda}",
                 f"libcublasLt.so.{cuda}", "libnvidia-ml.so.1"]

        def whole(d):
            return all(os.path.exists(os.path.join(d, n)) for n in names)

        given = self.environ.get("BF16SHIM_SIMDIR")
        if given:
            if not whole(given):
                raise Missing(f"BF16SHIM_SIMDIR={given} holds no simulated CUDA {cuda} stack "
                              f"({', '.join(names)})")
            return os.path.abspath(given)
        found = self._in_build("tests", "simcuda", f"v{cuda}", test=whole)
        if not found:
            raise Missing(f"no simulated CUDA {cuda} stack in {self.build()}: build one "
                          "(./scripts/test --build-only command) or set BF16SHIM_SIMDIR")
        return found

    def version(self):
        """The version: the checkout's meson.build, or the installed helper's."""
        try:
            with open(os.path.join(self.root, "meson.build")) as f:
                for line in f:
                    words = line.split("'")
                    if line.strip().startswith("version:") and len(words) >= 2:
                        return words[1]
        except OSError:
            pass
        probe = self.helper("bf16shim-probe")
        if probe:
            import subprocess
            done = subprocess.run([probe, "--version"], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, universal_newlines=True)
            if done.returncode == 0 and done.stdout.strip():
                return done.stdout.strip()
        return "unknown"

