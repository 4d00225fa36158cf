#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The --kernel-patch cache's bound (docs/dcsim-check.md, "The cache"):
#   test-kpatch-cache.sh KPATCH_PY
# Five fake builds of 1 MB, used in the order b1..b5 (their mtimes): with
# at most 3 entries the two least recently used go; with at most 2 MB the
# next; a bad bound is exit 2 and removes nothing; tarball notes and
# builds in progress are never builds.
set -u
kpatch=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test-kpatch-cache: $*" >&2; exit 1; }
k=$tmp/cache/kernel
mkdir -p "$k/tarballs" "$k/tmp-abc"
i=0
for n in b1 b2 b3 b4 b5; do
	i=$((i + 1))
	d=$k/$(printf '%024x' "$i")
	mkdir "$d"
	head -c 1048576 /dev/zero >"$d/strategy.so"
	touch -d "2024-01-0$i 00:00:00" "$d"
	eval "$n=\$d"
done
have() { [ -d "$1" ] || fail "$2 was removed"; }
gone() { [ ! -d "$1" ] || fail "$2 was kept"; }

DCSIM_CACHE_MAX_MB=notanumber python3 "$kpatch" evict --cache "$tmp/cache" 2>"$tmp/err" &&
	fail "a bad DCSIM_CACHE_MAX_MB was accepted"
grep -q "DCSIM_CACHE_MAX_MB=notanumber: want a whole number" "$tmp/err" || fail "no message for a bad bound"
have "$b1" b1

DCSIM_CACHE_MAX_ENTRIES=3 python3 "$kpatch" evict --cache "$tmp/cache" 2>/dev/null ||
	fail "evict failed"
gone "$b1" b1; gone "$b2" b2; have "$b3" b3; have "$b4" b4; have "$b5" b5
# b3 used again: now the most recent.
touch "$b3"
DCSIM_CACHE_MAX_MB=2 python3 "$kpatch" evict --cache "$tmp/cache" 2>/dev/null || fail "evict failed"
gone "$b4" b4; have "$b3" b3; have "$b5" b5
have "$k/tarballs" "the tarball notes"; have "$k/tmp-abc" "a build in progress"
echo "test-kpatch-cache: least recently used builds evicted by count and by size; bad bound refused"
