#!/bin/sh
# The exported dlopen forwards every load it does not inspect with a jump into the real
# dlopen, never a call: glibc takes the return address as the caller, whose RUNPATH, RPATH
# and $ORIGIN apply.  Instrumented builds (--coverage, -finstrument-functions) lose such
# jumps unless told not to (src/interpose/exports/dlfcn.c); this looks at the built code.  (A
# ThreadSanitizer build loses it too; its own dlopen interceptor breaks RUNPATH anyway.)
# Usage: dlopen_tail_test.sh LIBBF16SHIM   (x86-64; skipped elsewhere or without objdump)
lib=$1
[ "$(uname -m)" = x86_64 ] || { echo "not x86-64: skipped"; exit 77; }
command -v objdump >/dev/null || { echo "no objdump: skipped"; exit 77; }
body=$(objdump -d --no-show-raw-insn "$lib" | awk '/<dlopen>:$/,/^$/')
[ -n "$body" ] || { echo "FAIL: no dlopen in $lib"; exit 1; }
if ! echo "$body" | grep -qE 'jmp +\*%r'; then
	echo "FAIL: dlopen does not jump into the real dlopen:"; echo "$body"; exit 1
fi
if echo "$body" | grep -qE 'call +\*%r'; then
	echo "FAIL: dlopen calls the real dlopen (the caller would be the shim):"; echo "$body"
	exit 1
fi
echo "dlopen forwards with an indirect jump"
