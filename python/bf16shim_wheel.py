"""The wheel's build backend: meson-python's, then the tag.

meson-python tags a wheel holding native code for the Python that built it (cp311-cp311-
linux_x86_64); this one has no Python extension, only a library and programs that need the C
library, so it is retagged py3-none-manylinux_2_NN_<arch>, NN being the newest glibc symbol
version its ELF files need, and never below 28 (what the project promises, src/base/glibc_floor.h;
tests/python check the figure).  Everything else is meson-python's."""
import hashlib
import base64
import os
import re
import struct
import zipfile

from mesonpy import *  # noqa: F401,F403 (the hooks this module does not change)
import mesonpy

GLIBC_FLOOR = (2, 28)
MACHINES = {62: "x86_64", 183: "aarch64"}  # ELF e_machine


def _glibc_versions(data):
    """(machine, the GLIBC_x.y versions an ELF file needs), from its .gnu.version_r."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    machine, = struct.unpack_from("<H", data, 18)
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum = struct.unpack_from("<HH", data, 58)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]
    versions = set()
    for _, kind, _, _, offset, _, link, info, _, _ in sections:
        if kind != 0x6FFFFFFE:  # SHT_GNU_verneed: info entries, names in section `link`
            continue
        strings = sections[link][4]
        for _ in range(info):
            _, count, _, aux, nxt = struct.unpack_from("<HHIII", data, offset)
            a = offset + aux
            for _ in range(count):
                _, _, _, name, anext = struct.unpack_from("<IHHII", data, a)
                text = data[strings + name:data.index(b"\0", strings + name)].decode()
                m = re.fullmatch(r"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", text)
                if m:
                    versions.add((int(m.group(1)), int(m.group(2))))
                a += anext
            offset += nxt
    return MACHINES.get(machine), versions


def manylinux_tag(wheel):
    """py3-none-manylinux_2_NN_<arch> for the ELF files in wheel."""
    machines, newest = set(), GLIBC_FLOOR
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            with z.open(info) as f:
                if f.read(4) != b"\x7fELF":
                    continue
            machine, versions = _glibc_versions(z.read(info))
            machines.add(machine)
            newest = max([newest] + list(versions))
    if len(machines) != 1 or None in machines:
        raise mesonpy.BuildError(f"{wheel}: ELF files for {machines or 'no'} architecture")
    return f"py3-none-manylinux_{newest[0]}_{newest[1]}_{machines.pop()}"


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def retag(path, tag):
    """Rewrites the wheel at path with tag (its WHEEL file, RECORD and name); the new path."""
    folder, name = os.path.split(path)
    distribution, version = name.split("-")[:2]
    new_path = os.path.join(folder, f"{distribution}-{version}-{tag}.whl")
    with zipfile.ZipFile(path) as old, zipfile.ZipFile(new_path, "w", zipfile.ZIP_DEFLATED) as new:
        names = [i.filename for i in old.infolist()]
        wheel_file = next(n for n in names if n.endswith(".dist-info/WHEEL"))
        record_file = next(n for n in names if n.endswith(".dist-info/RECORD"))
        wheel_text = re.sub(r"(?m)^Tag: .*$", f"Tag: {tag}", old.read(wheel_file).decode())
        wheel_text = re.sub(r"(?m)^Root-Is-Purelib: .*$", "Root-Is-Purelib: false", wheel_text)
        record = [_record_line(wheel_file, wheel_text.encode()) if line.startswith(wheel_file + ",")
                  else line for line in old.read(record_file).decode().splitlines()]
        for info in old.infolist():
            if info.filename == wheel_file:
                new.writestr(info, wheel_text)
            elif info.filename == record_file:
                new.writestr(info, "\n".join(record) + "\n")
            else:
                new.writestr(info, old.read(info))
    if new_path != path:
        os.remove(path)
    return new_path


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = mesonpy.build_wheel(wheel_directory, config_settings, metadata_directory)
    path = os.path.join(wheel_directory, name)
    return os.path.basename(retag(path, manylinux_tag(path)))
