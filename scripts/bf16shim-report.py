#!/usr/bin/env python3
"""bf16shim report: summarises call traces written by libbf16shim.so (BF16SHIM_TRACE).

Calls are grouped by api, operand types, compute type, decision and status; failed groups
(status != 0) come first, then the largest.  Each group lists its distinct shapes.
Usage: bf16shim report [--json] FILE...   (FILE may be -, standard input)
The schema of the trace is in README.md ("Trace format") and bf16shim(1)."""
import json
import sys

GROUP_KEYS = ("api", "atype", "btype", "ctype", "compute", "decision", "status",
              "status_name", "first_status", "first_status_name")
SHAPES_SHOWN = 6


def read_records(paths):
    """Yields (path, record); says on stderr how many lines were not records."""
    for path in paths:
        try:
            f = sys.stdin if path == "-" else open(path, encoding="utf-8", errors="replace")
        except OSError as e:
            raise SystemExit(f"bf16shim report: {e}")
        bad = 0
        with f:
            for line in f:
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                    if not isinstance(r, dict) or "api" not in r:
                        raise ValueError
                except ValueError:
                    bad += 1  # a process killed mid-line leaves a partial last line
                    continue
                yield path, r
        if bad:
            print(f"bf16shim report: {path}: {bad} lines are not trace records (skipped)",
                  file=sys.stderr)


def summarise(paths):
    return summarise_records((r for _, r in read_records(paths)), paths)


def summarise_records(records, paths=()):
    """The summary of records; one with a "count" stands for that many calls (the library's
    tally, which bf16shim.report() in Python reads)."""
    groups, pids, calls, failed = {}, set(), 0, 0
    for r in records:
        n = r.get("count", 1)
        calls += n
        pids.add(r.get("pid"))
        key = tuple(r.get(k) for k in GROUP_KEYS)
        g = groups.setdefault(key, {"count": 0, "shapes": {}, "reasons": {}})
        g["count"] += n
        shape = (r.get("m"), r.get("n"), r.get("k"), r.get("batch", 1))
        g["shapes"][shape] = g["shapes"].get(shape, 0) + n
        reason = r.get("reason", "")
        g["reasons"][reason] = g["reasons"].get(reason, 0) + n
        if r.get("status") != 0:
            failed += n
    out = []
    for key, g in groups.items():
        d = dict(zip(GROUP_KEYS, key))
        d = {k: v for k, v in d.items() if v is not None}
        d["failed"] = d.get("status") != 0
        d["count"] = g["count"]
        d["shapes"] = [{"m": s[0], "n": s[1], "k": s[2], "batch": s[3], "count": c}
                       for s, c in sorted(g["shapes"].items(), key=lambda x: (-x[1], str(x[0])))]
        d["reasons"] = sorted(g["reasons"], key=lambda x: -g["reasons"][x])
        out.append(d)
    out.sort(key=lambda d: (not d["failed"], -d["count"], str(d.get("api"))))
    return {"files": list(paths), "processes": len(pids), "calls": calls, "failed": failed,
            "groups": out}


def short_status(d, key):
    name = d.get(key + "_name")
    if name:
        return name.replace("CUBLAS_STATUS_", "")
    return str(d.get(key))


def types_text(d):
    a, b, c = d.get("atype"), d.get("btype"), d.get("ctype")
    ab = f"{a}" if a == b else f"{a} x {b}"
    return f"{ab} -> {c}"


def shape_text(s):
    text = f"{s['m']}x{s['n']}x{s['k']}"
    if s.get("batch") not in (None, 1):
        text += f" batch {s['batch']}"
    return text + (f" ({s['count']})" if s["count"] > 1 else "")


def text_of(summary):
    """The summary as `bf16shim report` prints it."""
    groups = summary["groups"]
    out = [f"{summary['calls']} calls from {summary['processes']} process"
           f"{'es' if summary['processes'] != 1 else ''}, {summary['failed']} failed"]
    if not groups:
        return out[0]
    rows = []
    for d in groups:
        status = short_status(d, "status")
        if "first_status" in d:
            status += " after " + short_status(d, "first_status")
        rows.append((str(d["count"]), status, str(d.get("api")), types_text(d),
                     str(d.get("compute")), str(d.get("decision"))))
    head = ("calls", "status", "api", "types (A, B -> C)", "compute", "decision")
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]

    def line(cells):
        first = cells[0].rjust(widths[0])
        rest = "  ".join(c.ljust(w) for c, w in zip(cells[1:], widths[1:]))
        return f"{first}  {rest}".rstrip()

    out += ["", line(head)]
    indent = " " * (widths[0] + 2)
    for d, row in zip(groups, rows):
        out.append(line(row))
        shapes = [shape_text(s) for s in d["shapes"][:SHAPES_SHOWN]]
        more = len(d["shapes"]) - SHAPES_SHOWN
        out.append(f"{indent}shapes: {', '.join(shapes)}"
                   f"{f', and {more} more' if more > 0 else ''}")
        reasons = [r for r in d["reasons"] if r]
        if reasons:
            out.append(f"{indent}why: {'; '.join(reasons)}")
    return "\n".join(out)


def main(argv):
    args = [a for a in argv if a != "--json"]
    if any(a in ("-h", "--help") for a in args) or not args or \
            any(a.startswith("--") for a in args):
        print(__doc__.strip(), file=sys.stderr)
        return 0 if any(a in ("-h", "--help") for a in args) else 2
    summary = summarise(args)
    if "--json" in argv:
        json.dump(summary, sys.stdout, indent=1)
        print()
    else:
        print(text_of(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
