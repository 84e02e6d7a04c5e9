#!/usr/bin/env python3
"""Bar chart (SVG, no dependencies) of bench/gemm_bench.sh's CSV: time per GEMM for each
path, grouped by shape, with each path's ratio to native written on its bar.
Usage: chart.py IN.csv OUT.svg"""
import csv
import sys
from collections import OrderedDict

rows = list(csv.DictReader(open(sys.argv[1])))
shapes = OrderedDict()
for r in rows:
    shapes.setdefault((r["m"], r["n"], r["k"]), {})[r["label"]] = float(r["ms"])
paths = [p for p in ("native", "fp32", "fp16", "decode", "fused75", "fused70", "fusedfma")
         if any(p in v for v in shapes.values())]
colors = {"native": "#555555", "fp32": "#d95f02", "fp16": "#1b9e77", "decode": "#7570b3",
          "fused75": "#e7298a", "fused70": "#66a61e", "fusedfma": "#e6ab02"}
bar, gap, left, top, height = 22, 30, 60, 40, 300
width = max(left + len(shapes) * (len(paths) * bar + gap) + 20, left + 90 * len(paths) + 40, 560)
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 120}" '
       f'font-family="sans-serif" font-size="11">',
       '<text x="10" y="20" font-size="14">bf16 GEMM time per path (ratio to native; '
       'bars scaled per shape)</text>']
x = left
for shape, times in shapes.items():
    native = times.get("native")
    most = max(times.values()) or 1.0
    for i, p in enumerate(paths):
        if p not in times:
            continue
        h = height * times[p] / most
        bx = x + i * bar
        svg.append(f'<rect x="{bx}" y="{top + height - h:.1f}" width="{bar - 4}" '
                   f'height="{h:.1f}" fill="{colors[p]}"/>')
        label = f"{times[p] / native:.2f}x" if native else f"{times[p]:.3g}ms"
        svg.append(f'<text x="{bx + (bar - 4) / 2}" y="{top + height - h - 4:.1f}" '
                   f'text-anchor="middle" font-size="9">{label}</text>')
    svg.append(f'<text x="{x}" y="{top + height + 16}">{"x".join(shape)}</text>')
    x += len(paths) * bar + gap
for i, p in enumerate(paths):
    svg.append(f'<rect x="{left + i * 90}" y="{top + height + 40}" width="12" height="12" '
               f'fill="{colors[p]}"/><text x="{left + i * 90 + 16}" '
               f'y="{top + height + 50}">{p}</text>')
svg.append("</svg>")
open(sys.argv[2], "w").write("\n".join(svg) + "\n")
