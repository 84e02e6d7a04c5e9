#!/usr/bin/env bash
# Installs the Python environments the client suite runs (tests/clients/meson.build): one
# folder per requirements-NAME.txt under .venv-clients/ (git-ignored).  An environment whose
# stamp matches its requirements file is complete and is kept as it is: reruns download
# nothing.  Installs python3-venv with apt-get when Python cannot make environments.
# Usage: tests/clients/install.sh        (BF16SHIM_CLIENTS_DIR: the folder, default .venv-clients)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=${BF16SHIM_CLIENTS_DIR:-.venv-clients}
python=${BF16SHIM_PYTHON:-python3}

if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
	sudo=()
	[ "$(id -u)" = 0 ] || sudo=(sudo)
	echo "tests/clients/install.sh: installing python3-venv" >&2
	"${sudo[@]}" apt-get update && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y python3-venv
fi

mkdir -p "$root"
for req in tests/clients/requirements-*.txt; do
	name=${req##*/requirements-}
	name=${name%.txt}
	env=$root/$name
	stamp=$(sha256sum "$req" | cut -d' ' -f1)
	if [ -x "$env/bin/python" ] && [ "$(cat "$env/.installed" 2>/dev/null)" = "$stamp" ]; then
		echo "tests/clients/install.sh: $name is installed"
		continue
	fi
	echo "tests/clients/install.sh: installing $name ($(grep -v '^#' "$req" | tr '\n' ' '))"
	rm -rf "$env"
	"$python" -m venv "$env"
	# No pip cache: the wheels are gigabytes, and a complete environment is never reinstalled.
	"$env/bin/python" -m pip install --quiet --no-cache-dir --disable-pip-version-check \
		-r "$req"
	printf '%s\n' "$stamp" >"$env/.installed"
done
