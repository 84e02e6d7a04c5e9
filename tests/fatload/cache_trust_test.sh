#!/usr/bin/env bash
# Whose cache the library trusts.  Lowered modules read back are loaded into the process as
# device code, so the folder and each file read must be the user's own, as ssh and GnuPG ask
# of theirs: owned by the user, not writable by group or others, not a symbolic link.  Each
# refusal below must be one log line that says why and what to do, no file read (the module
# lowered again) or written, and the same results (cache_lib.sh runs the program):
#   1. a folder its group can write, and one anyone can write;
#   2. a folder owned by another user (run as root: one given to nobody; else /, root's);
#   3. a file owned by another user in the user's folder (as root: one given to nobody;
#      else a file of root's bind-mounted over it in a user namespace, or skipped with a
#      message where there is none);
#   4. a symbolic link to the user's folder.
# Usage: cache_trust_test.sh PROGRAM   (BF16SHIM_SIMDIR and BF16SHIM_LIB name the stack and
# library)
set -u
app=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/cache_lib.sh"
nobody=65534
listing() { ls -A "$1" | sort; }

# The user's own folder, filled by a first run and used by a second: what every refusal is
# compared with, and copied for cases 1 and 3.
run own
run own_again
[ "$(lowerings own)" -ge 1 ] && [ "$(hits own_again)" = "$(lowerings own)" ] ||
	fail "the user's own folder was not used: $(hits own_again) modules from it"
echo "the user's own folder: $(lowerings own) lowered, then $(hits own_again) from the cache"
fresh_copy() { rm -rf "$tmp/$1" && cp -a "$tmp/cache" "$tmp/$1"; }

# refused NAME WHAT PATTERN FOLDER: the run NAME with the cache in FOLDER said once that it
# has no cache, in words matching PATTERN, read nothing there and wrote nothing.
refused() {
	local name=$1 what=$2 pattern=$3 folder=$4 before said
	before=$(listing "$folder")
	run "$name" BF16SHIM_CACHE_DIR="$folder"
	said=$(grep 'no cache of lowered modules' "$tmp/$name.log")
	[ "$(grep -c . <<<"$said")" = 1 ] || fail "$what: said $(grep -c . <<<"$said") times"
	grep -q "no cache of lowered modules: $pattern" <<<"$said" || fail "$what: the log says '$said'"
	[ "$(hits "$name")" = 0 ] && [ "$(lowerings "$name")" = "$(lowerings own)" ] ||
		fail "$what: $(hits "$name") modules read from the cache"
	[ "$(listing "$folder")" = "$before" ] || fail "$what: files written: $(listing "$folder")"
	[ "$(results "$name")" = "$(results own)" ] || fail "$what: other results"
	echo "$what: ${said#*: }"
}

# 1. Writable by others.
fresh_copy group && chmod g+w "$tmp/group"
refused group "a folder its group can write" "$tmp/group can be written by its group (chmod go-w" "$tmp/group"
fresh_copy world && chmod 1777 "$tmp/world"
refused world "a folder anyone can write" "$tmp/world can be written by others" "$tmp/world"

# 2. Another user's folder.
fresh_copy theirs
if [ "$(id -u)" != 0 ]; then
	refused theirs "a folder of another user's (root's /)" "/ belongs to user 0, not to this one" /
elif chown -R "$nobody:$nobody" "$tmp/theirs"; then
	refused theirs "a folder of another user's" "$tmp/theirs belongs to user $nobody, not to this one (0)" "$tmp/theirs"
else
	echo "SKIP: a folder of another user's: root here cannot give one away (chown)"
fi

# 3. Another user's file in the user's own folder: the first file the program reads.
fresh_copy mixed
first=$(ls "$tmp/mixed"/*.lowered | head -n 1)
if [ "$(id -u)" = 0 ] && chown "$nobody" "$first"; then
	refused mixed "a file of another user's in the user's folder" "$first belongs to user $nobody" "$tmp/mixed"
elif [ "$(id -u)" != 0 ] && unshare -rm true 2>/dev/null; then
	# In a user namespace the user is root and root's files belong to nobody: /etc/passwd,
	# bound over the file, is another user's file in the user's own folder.
	wrap=(unshare -rm sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh /etc/passwd "$first")
	refused mixed "a file of another user's in the user's folder (a user namespace)" "$first belongs to user $nobody" "$tmp/mixed"
	wrap=()
else
	echo "SKIP: a file of another user's: neither chown (root) nor a user namespace" \
		"(unshare -rm) here"
fi

# 4. A symbolic link to the user's own folder.
ln -s "$tmp/cache" "$tmp/link"
refused link "a symbolic link to the user's folder" "$tmp/link is a symbolic link" "$tmp/link"

[ "$failures" = 0 ]
