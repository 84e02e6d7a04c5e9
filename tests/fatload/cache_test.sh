#!/usr/bin/env bash
# The disk cache of lowered modules, on a harness program built for sm_80 run on simulated
# sm_75 (cache_lib.sh; whose folders and files it trusts: cache_trust_test.sh):
#   1. a first run lowers and fills the cache; a second loads from it, lowering nothing, and
#      prints the same results;
#   2. a cache file with a byte changed, or cut short, is said, removed and rebuilt;
#   3. four processes filling an empty cache at once all run right and leave whole files;
#   4. a cache folder that cannot be made: one log line, no cache, the program runs;
#   5. BF16SHIM_CACHE=0: nothing written, lowering at every run.
# Usage: cache_test.sh PROGRAM   (BF16SHIM_SIMDIR and BF16SHIM_LIB name the stack and library)
set -u
app=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/cache_lib.sh"

# 1. Filled, then used.
run first
run second
echo "first run: $(lowerings first) lowered, $(hits first) from the cache;" \
	"second run: $(lowerings second) lowered, $(hits second) from the cache"
[ "$(lowerings first)" -ge 1 ] && [ "$(hits first)" = 0 ] || fail "the first run did not lower"
[ "$(lowerings second)" = 0 ] && [ "$(hits second)" = "$(lowerings first)" ] ||
	fail "the second run did not take every module from the cache"
[ "$(results first)" = "$(results second)" ] && [ -n "$(results first)" ] ||
	fail "the second run printed other results"
files=$(ls "$tmp/cache" | grep -c '\.lowered$')
[ "$files" = "$(lowerings first)" ] || fail "$files cache files for $(lowerings first) modules"
grep -q "cvt.rna.tf32" "$tmp/cache"/*.lowered || fail "no left-out kernel in the cache file"
grep -q "_Z10warp_totalPKjPj (warp_total" "$tmp/second.log" ||
	fail "a run from the cache did not name the kernel that stays out"

# 2. Damaged files.
for damage in byte cut; do
	f=$(ls "$tmp/cache"/*.lowered | head -n 1)
	if [ $damage = byte ]; then
		size=$(stat -c %s "$f")
		printf 'X' | dd of="$f" bs=1 seek=$((size - 40)) conv=notrunc status=none
	else
		# Cut as the library would have left it: its own file, private whatever the umask
		# (a group-writable one is a trust question, cache_trust_test.sh's).
		head -c 200 "$f" >"$f.cut" && chmod 600 "$f.cut" && mv "$f.cut" "$f"
	fi
	run $damage
	grep -q "cache file .* removed, lowering again" "$tmp/$damage.log" ||
		fail "a cache file with a $damage changed was not reported"
	[ "$(lowerings $damage)" = 1 ] || fail "after a $damage changed: $(lowerings $damage) lowered"
	[ "$(results $damage)" = "$(results first)" ] || fail "after a $damage changed: other results"
	run after_$damage
	[ "$(lowerings after_$damage)" = 0 ] || fail "the rebuilt cache file was not used"
done
echo "a changed byte and a cut file: reported, removed, rebuilt, used again"

# 3. Four processes at once on an empty cache.
rm -rf "$tmp/cache"
for i in 1 2 3 4; do run together$i & done
wait
for i in 1 2 3 4; do
	[ "$(results together$i)" = "$(results first)" ] || fail "process $i of 4 printed other results"
done
[ -z "$(ls -A "$tmp/cache" | grep -v '\.lowered$')" ] || fail "temporary files left: $(ls -A "$tmp/cache")"
run after_together
[ "$(lowerings after_together)" = 0 ] || fail "the cache filled by four processes was not whole"
echo "four processes at once: same results, whole files"

# 4. A folder that cannot be made (below a regular file: root may write anywhere else).
touch "$tmp/file"
run unwritable BF16SHIM_CACHE_DIR="$tmp/file/cache"
[ "$(grep -c 'no cache of lowered modules' "$tmp/unwritable.log")" = 1 ] ||
	fail "an unusable cache folder was not said once"
[ "$(results unwritable)" = "$(results first)" ] || fail "without a usable cache: other results"
echo "an unusable folder: $(grep -o 'no cache of lowered modules: [^(]*' "$tmp/unwritable.log")"

# 5. Off.
rm -rf "$tmp/cache"
run off1 BF16SHIM_CACHE=0
run off2 BF16SHIM_CACHE=0
[ ! -e "$tmp/cache" ] || fail "BF16SHIM_CACHE=0 made $tmp/cache"
[ "$(lowerings off2)" = "$(lowerings first)" ] || fail "BF16SHIM_CACHE=0: the second run did not lower"
echo "BF16SHIM_CACHE=0: nothing written, lowered at every run"
[ "$failures" = 0 ]
