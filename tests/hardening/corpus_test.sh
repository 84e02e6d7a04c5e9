#!/bin/bash
# Differential corpus on one architecture: corpus_client without and with the shim.
# Every call the shim may not rewrite: identical line (status and hash of C's bytes).
# Every rewritable call: status 0 with the shim, C within the accuracy contract (fp64).
# Usage: corpus_test.sh CLIENT SHIM ARCH [N [EXCLUDE]]
#   EXCLUDE: calls left out, a regex on "API fault-class" (e.g. 'GemmBatchedEx misaligned')
#   of the comparison and only counted: known divergences, listed where the test is defined.
set -eu
client=$1 shim=$2 arch=$3 n=${4:-600} exclude=${5:-} seed=0x5eed
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export SIMCUDA_ARCH=$arch
# A call that poisons the context ends the process (status 3, as a real program would die);
# the next process resumes after it.
corpus() { # name env...
  local name=$1 first=0 rc; shift
  : > "$out/$name"; : > "$out/$name.rec"
  while [ "$first" -lt "$n" ]; do
    rc=0
    env "$@" "$client" run "$n" "$seed" "$out/$name.rec" "$first" >> "$out/$name" || rc=$?
    [ "$rc" = 0 ] && break
    [ "$rc" = 3 ] || { echo "FAIL: $name run exited with $rc"; tail -3 "$out/$name"; exit 1; }
    first=$(( $(tail -1 "$out/$name" | cut -d' ' -f1) + 1 ))
  done
}
corpus plain
corpus shim LD_PRELOAD="$shim" BF16SHIM_LOG_FILE="$out/log"
calls=$(wc -l < "$out/plain")
[ "$calls" = "$n" ] && [ "$(wc -l < "$out/shim")" = "$n" ] ||
  { echo "FAIL: $calls and $(wc -l < "$out/shim") lines for $n calls"; exit 1; }
keep() { # file: the lines compared byte for byte
  grep -v ' rewritable$' "$1" | { if [ -n "$exclude" ]; then awk -v re="^($exclude)\$" '($2 " " $3) !~ re'; else cat; fi; } || true
}
keep "$out/plain" > "$out/a"
keep "$out/shim" > "$out/b"
divergent=$(diff "$out/a" "$out/b" | grep -c '^>' || true)
if [ "$divergent" != 0 ]; then
  diff -u "$out/a" "$out/b" | grep '^[-+][0-9]' | head -40
fi
known=0
if [ -n "$exclude" ]; then
  known=$(diff <(grep -v ' rewritable$' "$out/plain") <(grep -v ' rewritable$' "$out/shim") |
    grep -c '^>' || true)
  known=$((known - divergent))
fi
rewritten=$(grep -c ' rewritable$' "$out/shim" || true)
refused=$(grep ' rewritable$' "$out/shim" | grep -v ' status=0 ' || true)
if [ -n "$refused" ]; then
  echo "FAIL: rewritable calls that did not succeed with the shim:"; echo "$refused" | head
  divergent=$((divergent + $(echo "$refused" | wc -l)))
fi
if ! "$client" compare "$out/shim.rec"; then
  divergent=$((divergent + 1))
fi
# Every failure in the corpus is the caller's: the shim's log must not blame itself, and an
# operand past its allocation is the application's fault.
if grep -q 'bf16shim bug:' "$out/log" 2>/dev/null ||
   grep 'past its allocation' "$out/log" 2>/dev/null | grep -qv 'application: '; then
  echo "FAIL: the shim's log blames the wrong party:"; grep -E 'bug:|past its' "$out/log" | head
  divergent=$((divergent + 1))
fi
blamed=$(grep -c 'application: .*past its allocation' "$out/log" 2>/dev/null || true)
echo "corpus: $calls calls, $rewritten rewritten, $divergent divergences," \
  "$blamed operand-past-allocation warnings on the application ($arch${exclude:+;" \
  "$known known divergences in the excluded classes $exclude})"
[ "$divergent" = 0 ]
