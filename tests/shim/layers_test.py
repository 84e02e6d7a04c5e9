#!/usr/bin/env python3
"""The layout holds: the folders of src/ are the layers the README's layout table names, each
header includes only headers of its own layer or one below (the two halves, gemm/ and load/,
never each other), and every name the library exports is defined where a search for
`NAME(` finds it.  Usage: layers_test.py SOURCE_ROOT"""
import os
import re
import sys

root = sys.argv[1]
src = os.path.join(root, "src")
# From the floor up; gemm/ and load/ are the two halves, side by side.
RANK = {"base": 0, "cuda": 1, "gemm": 2, "load": 2, "interpose": 3}
SEARCH = ["base", "cuda", "gemm", "load", "interpose"]   # src_inc in src/meson.build
failures = []


def fail(what):
    failures.append(what)
    print("FAIL:", what)


def layer_of(path):
    return os.path.relpath(path, src).split(os.sep)[0]


def resolve(including, name):
    """The file an #include "name" in including reaches, as the compiler searches."""
    for d in [os.path.dirname(including)] + [os.path.join(src, s) for s in SEARCH]:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(p):
            return p
    return None


# 1. Every folder of src/ (two levels) is in the README's layout table, and every src/ folder
#    the table names exists.
folders = set()
for top in sorted(os.listdir(src)):
    if os.path.isdir(os.path.join(src, top)):
        folders.add("src/%s/" % top)
        for sub in sorted(os.listdir(os.path.join(src, top))):
            if os.path.isdir(os.path.join(src, top, sub)):
                folders.add("src/%s/%s/" % (top, sub))
if set(RANK) != {f.split("/")[1] for f in folders}:
    fail("the layers of this test %s are not the folders of src/ %s" % (sorted(RANK), sorted(folders)))
readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
layout = readme.split("\n## Layout\n", 1)[-1].split("\n## ", 1)[0]
named = set(re.findall(r"`(src/[a-z_]+/(?:[a-z_]+/)?)`", layout))
for f in sorted(folders - named):
    fail("README's layout table does not name %s" % f)
for f in sorted(named - folders):
    fail("README's layout table names %s, which is not a folder" % f)

# 2. Includes point down (or sideways within a layer), never from one half into the other.
for dirpath, _, files in os.walk(src):
    for f in files:
        if not f.endswith((".c", ".h")):
            continue
        path = os.path.join(dirpath, f)
        own = layer_of(path)
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            target = resolve(path, m.group(1))
            if target is None:
                fail("%s:%d: %s not found" % (os.path.relpath(path, root), n, m.group(1)))
                continue
            other = layer_of(target)
            if RANK[other] > RANK[own] or (RANK[other] == RANK[own] and other != own):
                fail("%s:%d: %s/ includes %s from %s/, a layer %s" %
                     (os.path.relpath(path, root), n, own, os.path.relpath(target, root), other,
                      "above it" if RANK[other] > RANK[own] else "beside it"))

# 3. A search for NAME( finds the definition of every exported name: a plain function
#    written out in src/, not one made by a macro.
exports = open(os.path.join(src, "interpose", "exports", "exports.map"), encoding="utf-8").read()
names = re.findall(r"^\s+([A-Za-z_]\w*);", exports.split("global:", 1)[1].split("local:", 1)[0],
                   re.M)
sources = {}
for dirpath, _, files in os.walk(src):
    for f in files:
        if f.endswith(".c"):
            sources[os.path.join(dirpath, f)] = open(os.path.join(dirpath, f), encoding="utf-8").read()
for name in names:
    definition = re.compile(r"^EXPORT\b[^;{]*?\b%s\(" % re.escape(name), re.M)
    where = [p for p, text in sources.items() if definition.search(text)]
    if len(where) != 1:
        fail("exported %s: %d definitions found by searching for '%s(' (want 1)" %
             (name, len(where), name))

print("%d folders, %d exported names, %d failures" % (len(folders), len(names), len(failures)))
sys.exit(1 if failures else 0)
