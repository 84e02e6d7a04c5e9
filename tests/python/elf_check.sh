#!/usr/bin/env bash
# The ELF files given need nothing but the C library (glibc's libc.so.6, and libdl.so.2 and
# libpthread.so.0 where glibc 2.28 keeps dlsym and pthread_once; on newer glibc they are
# stubs) and no glibc symbol version newer than 2.28 (src/base/glibc_floor.h).  Prints each
# file's NEEDED list and newest GLIBC_ version.
# Usage: elf_check.sh FILE...
set -u
failures=0
for f in "$@"; do
	needed=$(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	newest=$(readelf -V "$f" | grep -oE 'Name: GLIBC_[0-9]+\.[0-9]+(\.[0-9]+)?' |
		sed 's/Name: GLIBC_//' | sort -uV | tail -n 1)
	echo "$(basename "$f"): NEEDED ${needed}; newest glibc symbol version ${newest:-none}"
	for n in $needed; do
		case $n in
		libc.so.6 | libdl.so.2 | libpthread.so.0 | ld-linux-*.so.*) ;;
		*) echo "FAIL: $f needs $n, not part of the C library"; failures=$((failures + 1)) ;;
		esac
	done
	case $needed in *libc.so.6*) ;; *) echo "FAIL: $f does not need libc.so.6?"; failures=$((failures + 1)) ;; esac
	if [ -z "$newest" ] || [ "$(printf '%s\n2.28\n' "$newest" | sort -V | tail -n 1)" != 2.28 ]; then
		echo "FAIL: $f needs glibc ${newest:-(no versions found)}, newer than 2.28, for:" \
			$(readelf --dyn-syms -W "$f" | grep -oE '[^ ]+@GLIBC_(2\.(29|[3-9][0-9])|[3-9])[.0-9]*')
		failures=$((failures + 1))
	fi
done
[ "$failures" = 0 ]
