"""Reads an export list of this folder (written by update.sh): the version node from its
header, then the names, one per line.  Shared by the generators and the tests' helpers."""


def read(path):
    """Returns (node, names): node is None for an unversioned library (libcuda)."""
    node, names = None, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# version node:"):
                value = line.split(":", 1)[1].strip()
                node = None if value == "none" else value
            elif line and not line.startswith("#"):
                names.append(line)
    if names != sorted(set(names)):
        raise SystemExit(f"{path}: names must be sorted and unique (rerun update.sh)")
    return node, names
