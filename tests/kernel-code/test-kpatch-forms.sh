#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# dcsim-check --kernel-patch: patches as developers have them, and the
# coverage of the change (docs/dcsim-check.md):
#   test-kpatch-forms.sh DCSIM_CHECK TREE PATCHDIR
# - git format-patch output with its "-- " signature is accepted, and the
#   run prints the changed lines it reached, counted in the suites' child
#   processes (diff and misuse both ran fs/dcache.c:718);
# - a change whose lines never run (find_submount()'s mountpoint branch:
#   the shims have no mounts) passes with a warning naming the lines, and
#   fails with --require-coverage (exit 3);
# - an mbox of two patches, a series directory and a series file apply in
#   order; a plain diff -u (no a/ b/) applies;
# - an empty patch, a mail without a diff, and a patch undone by the next
#   are exit 2, never a pass of the unpatched tree.
set -u
check=$1 tree=$2 dir=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test-kpatch-forms: $*" >&2; exit 1; }
export DCSIM_CACHE_DIR="$tmp/cache"
ok=$dir/retain-dontcache-first.patch

# run WANT-RC OUT ARGS...
run() {
	want=$1 out=$2
	shift 2
	"$check" --kernel-tree "$tree" "$@" >"$tmp/$out" 2>&1
	rc=$?
	[ "$rc" -eq "$want" ] || { cat "$tmp/$out" >&2; fail "dcsim-check $* exited $rc, want $want"; }
}
# has OUT REGEX: the output holds a line matching REGEX
has() {
	grep -q -- "$2" "$tmp/$1" || { cat "$tmp/$1" >&2; fail "$1: no line matching '$2'"; }
}

# git format-patch: the mail, then the diff, then "-- " and the version.
{ cat "$ok"; printf -- '-- \n2.39.2\n\n'; } >"$tmp/0001-retain.patch"
run 0 sig.out --kernel-patch "$tmp/0001-retain.patch" --suites diff,misuse --budget quick
has sig.out "all checks passed"
has sig.out "coverage of the change: all suites: changed lines reached 1/1"
# Counted in the child processes: both suites ran the changed condition.
has sig.out "fs/dcache.c:718 retain_dentry(): diff [1-9][0-9]* misuse [1-9][0-9]*"
has sig.out "coverage of the change: diff: changed lines reached 1/1, condition sides taken 2/2"

cp "$dir/find-submount-refactor.patch" "$tmp/0002-submount.patch"
run 0 slow.out --kernel-patch "$tmp/0002-submount.patch" --suites explore,misuse --budget quick
has slow.out "all checks passed"
has slow.out "changed lines reached 0/2; fs/dcache.c:1593, 1594 never ran"
has slow.out "warning: 2 changed lines never ran"
run 3 slow-req.out --kernel-patch "$tmp/0002-submount.patch" --suites misuse --require-coverage \
	--json "$tmp/slow.json" --junit "$tmp/slow.xml"
grep -q '<testcase classname="dcsim-check.k612-0002-submount" name="coverage of the change">' \
	"$tmp/slow.xml" && grep -q 'failure message="2 of 2 changed lines never ran"' "$tmp/slow.xml" ||
	{ cat "$tmp/slow.xml" >&2; fail "--junit: no failed coverage test case"; }
has slow-req.out "FAIL: 2 changed lines never ran"
here=$(dirname "$0")
python3 "$here/../checker-cli/check-json.py" "$here/../../docs/dcsim-check.schema.json" \
	"$tmp/slow.json" verdict=uncovered exit=3 coverage.lines=2 coverage.reached=0 \
	coverage.missed=2 || fail "--json of the uncovered run: not valid, or not what it found"

# Several patches in one mbox file, in order.
cat "$tmp/0001-retain.patch" "$tmp/0002-submount.patch" >"$tmp/both.mbox"
run 3 mbox.out --kernel-patch "$tmp/both.mbox" --suites misuse --require-coverage
has mbox.out "loaded .* as strategy k612-both.mbox"
has mbox.out "all suites: changed lines reached 1/3.*; fs/dcache.c:1593, 1594 never ran"
# A series directory (its series file decides the order) and the series file itself.
mkdir "$tmp/series"
cp "$tmp/0001-retain.patch" "$tmp/0002-submount.patch" "$tmp/series/"
printf '# in this order\n0002-submount.patch\n0001-retain.patch\n' >"$tmp/series/series"
run 0 dir.out --kernel-patch "$tmp/series" --suites misuse
has dir.out "as strategy k612-series"
has dir.out "all suites: changed lines reached 1/3"
run 0 file.out --kernel-patch "$tmp/series/series" --suites misuse
has file.out "as strategy k612-series"
# A directory of git format-patch -o output, without a series file.
mkdir "$tmp/fp"
cp "$tmp/0001-retain.patch" "$tmp/0002-submount.patch" "$tmp/fp/"
run 0 fp.out --kernel-patch "$tmp/fp" --suites misuse
has fp.out "all suites: changed lines reached 1/3"

# diff -u from the tree's top directory: no a/ b/ prefixes, timestamps.
sed -e 's|^--- a/fs/dcache.c$|--- fs/dcache.c.orig\t2024-01-01 00:00:00.000000000 +0000|' \
    -e 's|^+++ b/fs/dcache.c$|+++ fs/dcache.c\t2024-01-01 00:00:01.000000000 +0000|' \
    -e '/^From:/,/^---$/d' "$ok" >"$tmp/plain.diff"
grep -q '^+++ fs/dcache.c' "$tmp/plain.diff" || fail "the diff -u was not made"
run 0 plain.out --kernel-patch "$tmp/plain.diff" --suites misuse
has plain.out "changed lines reached 1/1"

# Nothing to check: exit 2, never a pass.
: >"$tmp/empty.patch"
run 2 empty.out --kernel-patch "$tmp/empty.patch" --suites misuse
has empty.out "holds no diff"
printf 'From: someone\nSubject: words only\n\nNo diff here.\n' >"$tmp/words.patch"
run 2 words.out --kernel-patch "$tmp/words.patch" --suites misuse
has words.out "holds no diff"
# The example and its reverse: applies, changes nothing.
awk '/^@@/ { split($2, o, ","); split($3, n, ",");
	     printf "@@ -%s,%s +%s,%s @@\n", substr(n[1], 2), n[2], substr(o[1], 2), o[2]; next }
     /^\+\+\+ / || /^--- / { print; next }
     /^\+/ { print "-" substr($0, 2); next }
     /^-/ { print "+" substr($0, 2); next }
     { print }' "$ok" >"$tmp/zz-revert.patch"
mkdir "$tmp/noop"
cp "$ok" "$tmp/noop/01.patch"
cp "$tmp/zz-revert.patch" "$tmp/noop/02.patch"
run 2 noop.out --kernel-patch "$tmp/noop" --suites misuse
has noop.out "change nothing in fs/dcache.c"
left=$(ls "$tmp/cache/kernel" | grep -c '^tmp-')
[ "$left" -eq 0 ] || fail "refused patches left $left temporary directories in the cache"
"$check" --cache-clean >"$tmp/clean.out" 2>&1 || fail "--cache-clean failed"
[ -z "$(ls -A "$tmp/cache/kernel")" ] || fail "--cache-clean left builds in the cache"
echo "test-kpatch-forms: format-patch, mbox, series and diff -u accepted; coverage of the" \
	"change reported, required with --require-coverage; empty and no-op patches refused"
