#!/usr/bin/env python3
"""embed_ptx.py's includes: a fragment's {NAME} takes the including line's VALUE and a
placeholder that is a sum of products of integers and integer NAMEs their sum, as the fused
kernels use them to write a tile of accumulators from one fragment; a missing NAME or a
non-integer term stops the build.  And no file of the device code grows past 800 lines (the
style asks for about 600; repeated runs belong in a fragment, as the fused kernels' unrolled
tiles are; small_gemm.ptx, one long kernel, is the largest at 790).
Usage: embed_ptx_test.py EMBED_PTX.py KERNELS_DIR"""
import os
import subprocess
import sys
import tempfile

embed, kernels = sys.argv[1], sys.argv[2]
failures = 0


def check(ok, what):
    global failures
    if not ok:
        print('FAIL:', what)
        failures += 1


def run(files, main):
    with tempfile.TemporaryDirectory() as d:
        for name, text in files.items():
            with open(os.path.join(d, name), 'w') as f:
                f.write(text)
        return subprocess.run([sys.executable, embed, '--print', os.path.join(d, main)],
                              capture_output=True, text=True)


HEAD = '.version 6.0\n.target sm_50\n.address_size 64\n'
frag = '\tmul.rn.f32 %d{32*M}, %d{B+1}, %fa{2*M+1};\n\tst.shared.f32 [%t+{O+4*M-8}], %{R};\n'
r = run({'m.ptx': HEAD + '//@include f.ptxi M=3 B=7 O=100 R=x9\n', 'f.ptxi': frag}, 'm.ptx')
check(r.returncode == 0, f'expansion failed: {r.stderr}')
check('\tmul.rn.f32 %d96, %d8, %fa7;\n\tst.shared.f32 [%t+104], %x9;\n' in r.stdout,
      f'arithmetic placeholders: {r.stdout!r}')
check('{' not in r.stdout.replace('{%', ''), f'a placeholder left: {r.stdout!r}')
r = run({'m.ptx': HEAD + '//@include f.ptxi M=3 B=7 O=100\n', 'f.ptxi': frag}, 'm.ptx')
check(r.returncode != 0 and '{R}' in r.stderr, f'a missing NAME: {r.returncode} {r.stderr}')
r = run({'m.ptx': HEAD + '//@include f.ptxi M=three B=7 O=100 R=x\n', 'f.ptxi': frag}, 'm.ptx')
check(r.returncode != 0 and 'not an integer' in r.stderr, f'a non-integer term: {r.stderr}')

for name in sorted(os.listdir(kernels)):
    if name.endswith(('.ptx', '.ptxi')):
        with open(os.path.join(kernels, name)) as f:
            n = sum(1 for _ in f)
        check(n <= 800, f'{name}: {n} lines (at most 800; repeated runs belong in a fragment)')
print('embed_ptx: %d failure(s)' % failures)
sys.exit(1 if failures else 0)
