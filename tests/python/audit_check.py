"""The wheel as auditwheel (PyPI's manylinux tooling) judges it: consistent with the
manylinux_2_28 policy or an older one, and no external shared library to graft into it.
Prints what auditwheel said; exit status 1 when the wheel fails either, 2 when auditwheel
could not judge it.
Usage: audit_check.py WHEEL   (run with the Python that has auditwheel)"""
import json
import platform
import re
import subprocess
import sys

NEWEST_GLIBC_MINOR = 28

show = subprocess.run([sys.executable, "-m", "auditwheel", "show", "--json", sys.argv[1]],
                      capture_output=True, text=True)
try:
    report = json.loads(show.stdout)
except ValueError:
    print(f"auditwheel show gave no report (exit status {show.returncode}):\n"
          f"{show.stdout}{show.stderr}", file=sys.stderr)
    sys.exit(2)
tag = report.get("overall_tag") or ""
external = report.get("external_libs")
print(f"auditwheel: {report.get('wheel')} is consistent with {tag or '(no tag)'}; "
      f"external libraries to graft: {json.dumps(external)}")
m = re.fullmatch(r"manylinux_2_(\d+)_" + re.escape(platform.machine()), tag)
bad = []
if not m or int(m.group(1)) > NEWEST_GLIBC_MINOR:
    bad.append(f"want manylinux_2_{NEWEST_GLIBC_MINOR}_{platform.machine()} or older, "
               f"got {tag or 'none'}")
if external != {}:
    bad.append(f"libraries to graft: {', '.join(external or ['(no list)'])}")
for b in bad:
    print(f"auditwheel: {b}")
sys.exit(1 if bad else 0)
