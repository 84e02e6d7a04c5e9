"""A section of a 64-bit ELF file, read without tools: shared by the scan tests."""
import struct


def elf_section(data, wanted):
    """(offset, size) of the section named wanted in the ELF bytes data."""
    shoff, = struct.unpack_from("<Q", data, 40)
    size, num, names = struct.unpack_from("<HHH", data, 58)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * size) for i in range(num)]
    strtab = headers[names][4]
    for h in headers:
        if data[strtab + h[0]:data.index(b"\0", strtab + h[0])] == wanted.encode():
            return h[4], h[5]
    raise KeyError(wanted)
