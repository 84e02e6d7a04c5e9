#!/usr/bin/env bash
# Installs what the python suite (tests/python/meson.build) needs into .venv-python/
# (git-ignored); a folder whose stamp matches its requirements is kept as it is, so reruns
# download nothing:
#   tools/          a virtual environment: requirements-tools.txt (meson-python, build, nbclient,
#                   auditwheel)
#   kernel-NAME/    requirements-kernel.txt (ipykernel) for the Python of each client
#                   environment .venv-clients/NAME, with pip --target: the tests put it on
#                   PYTHONPATH and never change the shared environment itself
# Run by scripts/test after tests/clients/install.sh.
# Usage: tests/python/install.sh   (BF16SHIM_PYTHON_DIR: the folder, default .venv-python)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=${BF16SHIM_PYTHON_DIR:-.venv-python}
clients=${BF16SHIM_CLIENTS_DIR:-.venv-clients}
python=${BF16SHIM_PYTHON:-python3}
pip_args=(--quiet --disable-pip-version-check)
mkdir -p "$root"

# fresh NAME REQUIREMENTS PYTHON: is $root/NAME complete for these requirements and Python?
# Sets $stamp.
fresh() {
	stamp=$( (cat "$2"; "$3" -c 'import sys; print(sys.version)') | sha256sum | cut -d' ' -f1)
	[ "$(cat "$root/$1/.installed" 2>/dev/null)" = "$stamp" ]
}

req=tests/python/requirements-tools.txt
if fresh tools "$req" "$python" && [ -x "$root/tools/bin/python" ]; then
	echo "tests/python/install.sh: tools are installed"
else
	echo "tests/python/install.sh: installing tools ($(grep -v '^#' "$req" | tr '\n' ' '))"
	rm -rf "$root/tools"
	"$python" -m venv "$root/tools"
	"$root/tools/bin/python" -m pip install "${pip_args[@]}" -r "$req"
	printf '%s\n' "$stamp" >"$root/tools/.installed"
fi

req=tests/python/requirements-kernel.txt
for env in "$clients"/*/; do
	name=$(basename "$env")
	[ -x "$env/bin/python" ] || continue
	if fresh "kernel-$name" "$req" "$env/bin/python"; then
		echo "tests/python/install.sh: kernel-$name is installed"
		continue
	fi
	rm -rf "$root/kernel-$name"
	# Environments on the same Python (the stamp says) share the packages: copied, not
	# downloaded again.
	same=$(grep -lx "$stamp" "$root"/kernel-*/.installed 2>/dev/null | head -n 1) || same=
	if [ -n "$same" ]; then
		echo "tests/python/install.sh: kernel-$name: the same as $(dirname "$same")"
		cp -a "$(dirname "$same")" "$root/kernel-$name"
		continue
	fi
	echo "tests/python/install.sh: installing kernel-$name (ipykernel for $name's Python)"
	"$env/bin/python" -m pip install "${pip_args[@]}" --target "$root/kernel-$name" -r "$req"
	printf '%s\n' "$stamp" >"$root/kernel-$name/.installed"
done
