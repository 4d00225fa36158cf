#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# dcsim-check --kernel-tree --kernel-patch from a prefix install (docs/kernel.md,
# "Checking a patch of yours"):
#   test-kpatch.sh BUILD_ROOT TREE PATCHDIR
# meson install --destdir into a temporary directory, then, from another
# temporary directory (outside the source and build trees), the installed
# dcsim-check on TREE (6.12 or the tarball) with examples/kernel-patches/:
# - retain-dontcache-first.patch passes every suite; a rerun is a cache hit;
# - its planted-bug twin fails (exit 1) with a dcsim-check replay line and
#   an interleaving that names fs/dcache.c lines;
# - a patch that does not apply, or that changes d_mark_dontcache(), is
#   refused (exit 2) by name, one that does not compile gets the compiler's
#   error at its fs/dcache.c line, and none leaves anything in the cache;
# - a tarball that is not there, or a tree table whose package is not
#   installed, is exit 77, naming the package.
set -u
build=$1 tree=$2 dir=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test-kpatch: $*" >&2; exit 1; }

meson install -C "$build" --no-rebuild --destdir "$tmp/dest" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "meson install --destdir failed"; }
exe=$(find "$tmp/dest" -path '*/bin/dcsim-check' -type f)
[ -x "$exe" ] || fail "no bin/dcsim-check under $tmp/dest"
lib=$(dirname "$(find "$tmp/dest" -name 'libdcsim-instrumented.so.*' -type f | head -n 1)")
[ -f "$(dirname "$exe")/../share/dcsim-check/kernel-code/kpatch.py" ] ||
	fail "kernel-code/kpatch.py not installed under share/dcsim-check"

mkdir "$tmp/work"
cd "$tmp/work" || fail "cd"
export DCSIM_CACHE_DIR="$tmp/cache" LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset DCSIM_KC_ROOT DCSIM_KC_INCLUDE

# run WANT-RC OUT ARGS...
run() {
	want=$1 out=$2
	shift 2
	"$exe" --kernel-tree "$tree" "$@" >"$out" 2>&1
	rc=$?
	[ "$rc" -eq "$want" ] || { cat "$out" >&2; fail "dcsim-check $* exited $rc, want $want"; }
}

run 0 ok.out --kernel-patch "$dir/retain-dontcache-first.patch" --budget quick
grep -q "k612-retain-dontcache-first: all checks passed" ok.out ||
	{ cat ok.out >&2; fail "the correct patch: no 'all checks passed'"; }
run 0 ok2.out --kernel-patch "$dir/retain-dontcache-first.patch" --budget quick --suites diff
grep -q "cached build" ok2.out || { cat ok2.out >&2; fail "the rerun rebuilt"; }

run 1 bug.out --kernel-patch "$dir/retain-dontcache-first-bug-lru-nolock.patch" \
	--budget quick --suites diff,explore
grep -q "^replay: .*dcsim-check --kernel-tree $tree --kernel-patch [^ ]*retain-dontcache-first-bug-lru-nolock.patch" bug.out ||
	{ cat bug.out >&2; fail "the planted bug: no replay line with --kernel-patch"; }
grep -q "retain_dentry() fs/dcache.c:[0-9]" bug.out ||
	{ cat bug.out >&2; fail "the planted bug: no fs/dcache.c line in the report"; }

run 2 na.out --kernel-patch "$dir/does-not-apply.patch"
grep -q "does-not-apply.patch does not apply" na.out && grep -q "hunk #1 failed" na.out ||
	{ cat na.out >&2; fail "no word naming the patch and its hunk"; }
run 2 out.out --kernel-patch "$dir/outside-d-mark-dontcache.patch"
grep -q "changes d_mark_dontcache() (fs/dcache.c:[0-9]*), which is not in the extracted set" out.out ||
	{ cat out.out >&2; fail "no word naming d_mark_dontcache()"; }
# A patch that applies but does not compile: the compiler names the line of
# the patched fs/dcache.c (extract.py's #line directives).
sed 's|^+	// Explicitly told not to bother; no need to ask ->d_delete() then$|+	int kp_no_such_syntax = ;|' \
	"$dir/retain-dontcache-first.patch" >"$tmp/syntax.patch"
run 2 cc.out --kernel-patch "$tmp/syntax.patch"
grep -q "fs/dcache.c:717:[0-9]*: error" cc.out ||
	{ cat cc.out >&2; fail "a compiler error does not name fs/dcache.c:717"; }
left=$(ls "$tmp/cache/kernel" | grep -c '^tmp-')
[ "$left" -eq 0 ] || fail "failed builds left $left temporary directories in the cache"
[ "$(ls "$tmp/cache/kernel" | grep -vc "^tarballs$")" -eq 2 ] || fail "the cache holds other than the two builds"

"$exe" --kernel-tree "$tmp/linux-source-6.12.tar.xz" --kernel-patch "$dir/retain-dontcache-first.patch" \
	>miss.out 2>&1
rc=$?
[ "$rc" -eq 77 ] && grep -q "linux-source-6.12" miss.out ||
	{ cat miss.out >&2; fail "a missing tarball: exit $rc, want 77 naming linux-source-6.12"; }
# A tree whose Debian package is not installed: a copy of the installed
# kernel-code/ with a table for 9.99 ($DCSIM_KC_ROOT), exit 77 naming it.
cp -r "$(dirname "$exe")/../share/dcsim-check" "$tmp/kc" || fail "cannot copy share/dcsim-check"
sed 's/6\.12/9.99/g' "$tmp/kc/kernel-code/trees/6.12.tree" >"$tmp/kc/kernel-code/trees/9.99.tree"
DCSIM_KC_ROOT="$tmp/kc" DCSIM_KC_INCLUDE="$(dirname "$exe")/../include/dcsim-check" \
	"$exe" --kernel-tree 9.99 --kernel-patch "$dir/retain-dontcache-first.patch" >pkg.out 2>&1
rc=$?
[ "$rc" -eq 77 ] && grep -q "apt-get install linux-source-9.99" pkg.out ||
	{ cat pkg.out >&2; fail "a tree without its package: exit $rc, want 77 naming linux-source-9.99"; }
echo "test-kpatch: the installed dcsim-check passes the example patch, fails its planted bug" \
	"at fs/dcache.c lines with a replay line, refuses bad patches by name"
