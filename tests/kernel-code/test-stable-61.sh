#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The 6.1.y fix of the shrink_lock_dentry() finding (kernel/stable-6.1/,
# docs/findings/6.1-shrink-lock-dentry.md) through dcsim-check:
#   test-stable-61.sh DCSIM_CHECK KC_PLUGIN TARBALL PATCHDIR ALLOWFILE
# - every patch of PATCHDIR/series passes checkpatch.pl --strict (from the
#   tarball, --no-tree) but for the findings ALLOWFILE accepts;
# - the tree with the series (the variant k61-<first patch>) passes the
#   diff, explore and stress suites at the quick budget;
# - it passes the scenario prune-negative-create, named, at the soak
#   budget (2 x 2500 executions), where the unpatched k61 (KC_PLUGIN) fails
#   it at the default budget with the explorer's i_lock assertion.
# The misuse suite is left out: 6.1's fast_dput() has no underflow check
# (504e08cebe1d, 15220fbf1871 in corpus/), and the patched tree fails it
# exactly as the unpatched one does.  Exit 77 without the tarball.
set -u
exe=$1 plugin=$2 tarball=$3 dir=$4 allow=$5
[ -f "$tarball" ] || { echo "test-stable-61: SKIPPED: no $tarball (apt-get install linux-source-6.1)"; exit 77; }
kc=$(cd "$(dirname "$0")/../../kernel-code" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test-stable-61: FAIL: $*" >&2; exit 1; }
# The builds and the tarball's members go through dcsim-check's caches
# ($DCSIM_CACHE_DIR, $DCSIM_KC_CACHE, else ~/.cache/dcsim): a rerun
# decompresses nothing.

set --
while read -r p; do
	[ -n "$p" ] || continue
	[ -f "$dir/$p" ] || fail "series names $p, which is not in $dir"
	set -- "$@" --kernel-patch "$dir/$p"
done < "$dir/series"
[ $# -gt 0 ] || fail "empty series in $dir"

# checkpatch.pl --strict, with kernel/ci.sh's allow list.
# Debian's tarballs unpack into a directory named as the file.
top=$(basename "$tarball" .tar.xz)
python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import tarball_cache as t
err = t.unpack(sys.argv[2], sys.argv[3], sys.argv[5:], sys.argv[4])
sys.exit(err and print(err) or 0)' "$kc" "$tarball" "$top" "$tmp" scripts/checkpatch.pl \
	scripts/spelling.txt scripts/const_structs.checkpatch ||
	fail "cannot extract checkpatch.pl from $tarball"
while read -r p; do
	[ -n "$p" ] || continue
	out=$(cd "$tmp" && perl "$top/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
		"$dir/$p" 2>&1)
	echo "$out" | sed -nE 's/^[^:]+:[0-9]+: (ERROR|WARNING|CHECK):([A-Z_]+):.*/\2/p' | sort -u |
	while read -r type; do
		grep -v '^#' "$allow" | while read -r glob atype _; do
			# shellcheck disable=SC2254
			case $p in $glob) [ "$atype" = "$type" ] && echo ok ;; esac
		done | grep -q ok || { echo "$out" >&2; echo "$p: $type"; }
	done > "$tmp/bad"
	[ -s "$tmp/bad" ] && fail "checkpatch --strict: $(cat "$tmp/bad")"
	echo "test-stable-61: checkpatch --strict $p: $(echo "$out" | grep '^total:')"
done < "$dir/series"

"$exe" --kernel-tree "$tarball" "$@" --budget quick --suites diff,explore,stress >"$tmp/all.out" 2>&1 ||
	{ cat "$tmp/all.out" >&2; fail "the patched tree fails diff, explore or stress"; }
grep -q ": all checks passed" "$tmp/all.out" || { cat "$tmp/all.out" >&2; fail "no 'all checks passed'"; }
echo "test-stable-61: $(grep ': all checks passed' "$tmp/all.out")"

"$exe" --kernel-tree "$tarball" "$@" --budget soak --suites explore \
	--scenarios prune-negative-create >"$tmp/scn.out" 2>&1 ||
	{ cat "$tmp/scn.out" >&2; fail "the patched tree fails prune-negative-create"; }
grep -q "explore: .*: 2 runs on .*, ok" "$tmp/scn.out" ||
	{ cat "$tmp/scn.out" >&2; fail "prune-negative-create did not run twice (random, PCT)"; }
echo "test-stable-61: patched: prune-negative-create passed at the soak budget"

# The same scenario fails on the unpatched tree (--seed 2: PCT catches it
# at the second execution of 60; tests/kernel-code/test-finding-61.c pins
# the rate over seeds).
"$exe" --load "$plugin" --strategy k61 --seed 2 --suites explore \
	--scenarios prune-negative-create >"$tmp/k61.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q "without holding its inode's i_lock" "$tmp/k61.out" ||
	{ cat "$tmp/k61.out" >&2; fail "unpatched k61: exit $rc, want 1 with the i_lock assertion"; }
echo "test-stable-61: unpatched k61: $(grep '^check:' "$tmp/k61.out" | head -n 1)"
exit 0
