#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-code/extract.py --patch (docs/kernel.md, "Your patch"):
#   test-extract.sh EXTRACT_PY TREE_TABLE TARBALL PATCHDIR
# - a correct patch (examples/kernel-patches/retain-dontcache-first.patch)
#   is applied and its lines are in the extraction, with #line directives
#   into the patched fs/dcache.c;
# - a patch that does not apply stops with exit 1, naming it and its hunk;
# - a patch changing d_mark_dontcache(), outside the table's functions,
#   stops with exit 1, naming the function and its line;
# - a patch changing another file stops, naming the file.
set -u
extract=$1 tree=$2 big=$3 dir=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test-extract: $*" >&2; exit 1; }

# The members extract.py reads, once, in a small tarball: every run below
# then unpacks in milliseconds instead of decompressing 140 MB.
top=$(sed -n 's/^top[ \t]*//p' "$tree")
tar -xJf "$big" --occurrence=1 -C "$tmp" "$top/fs/dcache.c" "$top/lib/lockref.c" || fail "cannot unpack $big"
tarball=$tmp/small.tar
tar -cf "$tarball" -C "$tmp" "$top" || fail "cannot pack $tarball"
# The member cache (kernel-code/tarball_cache.py) lives and dies with $tmp.
export DCSIM_KC_CACHE="$tmp/cache"

# run WANT-RC OUT ARGS...
run() {
	want=$1 out=$2
	shift 2
	python3 "$extract" --tree "$tree" --tarball "$tarball" --name kp "$@" "$tmp/out" >"$out" 2>&1
	rc=$?
	[ "$rc" -eq "$want" ] || { cat "$out" >&2; fail "extract.py $* exited $rc, want $want"; }
}

run 0 "$tmp/o" --patch "$dir/retain-dontcache-first.patch"
h=$tmp/out/kp-dcache.h
# The first run filled the cache with the verbatim members, never with
# patched text; a run without the cache writes the same extraction.
cmp -s "$tmp/cache"/*/"$top/fs/dcache.c" "$tmp/$top/fs/dcache.c" ||
	fail "the cache does not hold the tarball's fs/dcache.c as it is"
cp "$h" "$tmp/cached.h"
(DCSIM_KC_CACHE=off; run 0 "$tmp/o" --patch "$dir/retain-dontcache-first.patch") || exit 1
cmp -s "$h" "$tmp/cached.h" || fail "the extraction differs with and without the cache"
grep -q "no need to ask ->d_delete() then" "$h" || fail "the patched line is not in the extraction"
grep -q "with retain-dontcache-first.patch" "$h" || fail "the header does not name the patch"
# retain_dentry() starts at the same line before and after (the patch is inside it).
grep -q '^#line [0-9]* "fs/dcache.c"$' "$h" || fail "no #line into fs/dcache.c"

run 1 "$tmp/o" --patch "$dir/does-not-apply.patch"
grep -q "does-not-apply.patch does not apply" "$tmp/o" || fail "no word naming the patch"
grep -q "hunk #1 failed" "$tmp/o" || { cat "$tmp/o" >&2; fail "no word naming the hunk"; }

run 1 "$tmp/o" --patch "$dir/outside-d-mark-dontcache.patch"
grep -q "changes d_mark_dontcache() (fs/dcache.c:[0-9]*), which is not in the extracted set" \
	"$tmp/o" || { cat "$tmp/o" >&2; fail "no word naming d_mark_dontcache()"; }

sed 's|fs/dcache.c|fs/namei.c|' "$dir/retain-dontcache-first.patch" >"$tmp/namei.patch"
run 1 "$tmp/o" --patch "$tmp/namei.patch"
grep -q "namei.patch changes fs/namei.c: only fs/dcache.c and lib/lockref.c" "$tmp/o" ||
	{ cat "$tmp/o" >&2; fail "no word naming fs/namei.c"; }
echo "test-extract: a correct patch extracts; bad ones are refused naming the hunk, the function, the file"
