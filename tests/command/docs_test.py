#!/usr/bin/env python3
"""The documentation matches the code: every field the trace writer emits is described in
the README's "Trace format" and in the man page's TRACE FORMAT; every variable the library
reads is in the README's configuration table; every option of the command's table is in the
man page, and each of run's beside its variable in the README's table; the README's Quick
start is exactly the two commands of a fresh machine; every Markdown document a file cites
is in the repository.
Usage: docs_test.py SOURCE_ROOT TRACE_TEST"""
import json
import os
import re
import subprocess
import sys
import tempfile

failures = []


def check(what, ok, detail=""):
    if not ok:
        failures.append(what)
        print(f"FAILED: {what}{': ' + detail if detail else ''}")


def section(text, title):
    """The Markdown section under '## title', up to the next '## '."""
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    return m.group(1) if m else ""


def main():
    root, trace_test = sys.argv[1], sys.argv[2]
    readme = open(os.path.join(root, "README.md")).read()
    man = open(os.path.join(root, "doc", "bf16shim.1")).read()
    man_trace = man.split(".SH TRACE FORMAT", 1)[-1].split(".SH ", 1)[0].replace("\\", "")

    # The fields the writer emits, with every optional one present (a failed record has a
    # first_status).
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.jsonl")
        subprocess.run([trace_test, "threads", "2"], check=True,
                       env={**os.environ, "BF16SHIM_TRACE": path})
        keys = set()
        for line in open(path):
            keys |= set(json.loads(line))
    check("the writer emits first_status on failures", "first_status" in keys, str(keys))
    trace_doc = section(readme, "Trace format")
    for key in sorted(keys):
        check(f"README documents trace field {key}", f"`{key}`" in trace_doc)
        check(f"man page documents trace field {key}",
              re.search(rf"^\.BR? .*\b{key}\b", man_trace, re.M) is not None)

    # The library's settings (quoted names in src/ and its public header, which names
    # them) in the configuration table.
    names = set()
    for top in ("src", "include"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".c", ".h")):
                    names |= set(re.findall(r'"(BF16SHIM_[A-Z_]+)"',
                                            open(os.path.join(dirpath, f)).read()))
    config = section(readme, "Configuration")
    check("variables found in src/", "BF16SHIM_TRACE" in names, str(names))
    for name in sorted(names):
        check(f"README configuration lists {name}", f"`{name}`" in config)

    # The options (the table of python/bf16shim/options.py): each of run's beside the variable
    # it sets in the README's configuration table and in the man page; each keyword of
    # enable() in the man page.
    sys.path.insert(0, os.path.join(root, "python"))
    from bf16shim import options
    for o in options.options_of("run"):
        if o.flag and o.variable:
            check(f"README configuration: `{o.variable}` set by `{o.flag}`",
                  re.search(rf"^\| `{o.variable}` \| `{o.flag}` \|", config, re.M) is not None)
        if o.flag:
            check(f"man page documents {o.flag}", o.flag.replace("-", "\\-") in man)
    for o in options.options_of("enable"):
        check(f"man page lists enable()'s keyword {o.keyword}",
              re.search(rf"^\.BR? {o.keyword}\b", man, re.M) is not None)

    # Quick start: the two commands, in this order, and nothing else in the first block.
    quick = section(readme, "Quick start")
    block = re.search(r"```sh\n(.*?)```", quick, re.S)
    commands = block.group(1).split("\n")[:-1] if block else []
    check("Quick start has exactly the two commands",
          commands == ["./scripts/bf16shim demo", "./scripts/test"], str(commands))
    cited = check_citations(root)
    print(f"docs: {len(keys)} trace fields, {len(names)} variables, "
          f"{len(options.OPTIONS)} options, {cited} document citations checked")


def check_citations(root):
    """Every Markdown document a file of the repository names (a word ending in .md) is
    in the repository: the project's facts live in the project.  Returns how many names
    were checked."""
    try:
        files = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard"],
                               check=True, capture_output=True, text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        print("docs: not a git checkout, document citations not checked")
        return 0
    have = set(files) | {os.path.basename(f) for f in files}
    checked = 0
    for f in files:
        path = os.path.join(root, f)
        try:
            text = open(path, encoding="utf-8").read()
        except (OSError, UnicodeDecodeError):
            continue  # binary files, or removed in the working tree
        for name in set(re.findall(r"[\w./-]*[\w-]\.md\b", text)):
            if "://" in name or name.startswith("github.com"):
                continue
            checked += 1
            rel = os.path.normpath(os.path.join(os.path.dirname(f), name))
            ok = name in have or rel in have or os.path.basename(name) in have
            check(f"{f} cites {name}, which is in the repository", ok)
    return checked


main()
sys.exit(1 if failures else 0)
