#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A new user's trial of dcsim-check on patches to 6.12's fs/dcache.c, from a
# prefix install in a fresh clone (docs/dcsim-check.md):
#   examples/trial/run-trial.sh [WORKDIR]
# clones this repository's HEAD into WORKDIR (default: a temporary
# directory, removed at the end), builds only the library, the checker and
# the tools (-Dinstrument=true -Dtools_only=true), installs them into
# WORKDIR/prefix, and runs the installed dcsim-check, without
# LD_LIBRARY_PATH, on:
#   1. --help: it runs and lists the exit codes;
#   2. a refactor as git format-patch writes it ("-- " signature): passes,
#      with its changed-line coverage printed;
#   3. an empty patch: exit 2;
#   4. a slow-path change whose lines never run: a warning, and exit 3
#      with --require-coverage;
#   5. a patch that crashes under some interleavings, with --jobs 1: a
#      failure with a one-execution replay, which reproduces the crash
#      (exit 1, the crash reported) without crashing dcsim-check.
# Needs linux-source-6.12 (/usr/src/linux-source-6.12.tar.xz), meson,
# ninja, git, gcc, python3.  Takes minutes: one build, four patch builds.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-}
if [ -z "$work" ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
fail() { echo "run-trial: FAIL: $*" >&2; exit 1; }
step() { echo "run-trial: $*"; }

git clone -q "$here" "$work/src" || fail "git clone $here"
step "building from a fresh clone ($(git -C "$work/src" rev-parse --short HEAD)) into $work/prefix"
meson setup "$work/build" "$work/src" -Dinstrument=true -Dtools_only=true \
	-Dqemu_tests=disabled --prefix "$work/prefix" >"$work/setup.log" 2>&1 ||
	{ cat "$work/setup.log" >&2; fail "meson setup"; }
ninja -C "$work/build" install >"$work/install.log" 2>&1 ||
	{ tail -n 30 "$work/install.log" >&2; fail "ninja install"; }
check=$work/prefix/bin/dcsim-check
unset LD_LIBRARY_PATH DCSIM_KC_ROOT DCSIM_KC_INCLUDE
export DCSIM_CACHE_DIR="$work/cache"
mkdir "$work/p" && cd "$work/p" || fail "cd"

# run WANT-RC OUT ARGS...
run() {
	want=$1 out=$2
	shift 2
	"$check" "$@" >"$out" 2>&1
	rc=$?
	[ "$rc" -eq "$want" ] || { cat "$out" >&2; fail "dcsim-check $* exited $rc, want $want"; }
}
has() { grep -q -- "$2" "$1" || { cat "$1" >&2; fail "$1: no line matching '$2'"; }; }

run 0 help.out --help
has help.out "^  3   every check passed, but --require-coverage"
step "1. --help runs from the prefix without LD_LIBRARY_PATH and lists the exit codes"

{ cat "$here/examples/kernel-patches/retain-dontcache-first.patch"; printf -- '-- \n2.39.2\n\n'; } \
	>0001-retain-dontcache-first.patch
run 0 refactor.out --kernel-tree 6.12 --kernel-patch 0001-retain-dontcache-first.patch \
	--budget quick
has refactor.out "all checks passed"
has refactor.out "coverage of the change: all suites: changed lines reached 1/1"
step "2. the refactor (format-patch, signature) passes:" \
	"$(grep 'coverage of the change: all suites' refactor.out | sed 's/^dcsim-check: //')"

: >empty.patch
run 2 empty.out --kernel-tree 6.12 --kernel-patch empty.patch
step "3. an empty patch: exit 2 ($(grep -o 'holds no diff.*' empty.out))"

cp "$here/examples/kernel-patches/find-submount-refactor.patch" 0001-find-submount.patch
run 0 slow.out --kernel-tree 6.12 --kernel-patch 0001-find-submount.patch --budget quick
has slow.out "warning: 2 changed lines never ran"
run 3 slow-req.out --kernel-tree 6.12 --kernel-patch 0001-find-submount.patch --budget quick \
	--suites explore --require-coverage
step "4. a slow-path change that never ran: a warning, exit 3 with --require-coverage"

cat >0001-retain-crash.patch <<'EOF'
From: dcsim trial <trial@dcsim.invalid>
Subject: [PATCH] fs/dcache: retain_dentry: assert no one holds d_lock (wrong)

A planted crash: a lockless caller can see another CPU's d_lock held.
---
diff --git a/fs/dcache.c b/fs/dcache.c
--- a/fs/dcache.c
+++ b/fs/dcache.c
@@ -705,6 +705,7 @@
 
 	smp_rmb();
 	d_flags = READ_ONCE(dentry->d_flags);
+	BUG_ON(!locked && spin_is_locked(&dentry->d_lock));
 
 	// Unreachable? Nobody would be able to look it up, no point retaining
 	if (unlikely(d_unhashed(dentry)))
EOF
run 1 crash.out --kernel-tree 6.12 --kernel-patch 0001-retain-crash.patch --budget quick \
	--suites explore,misuse --jobs 1
has crash.out "^dcsim-check: FAIL: explore, .*died of signal"
has crash.out "^dcsim-check: misuse: .*: ok"
replay=$(grep '^replay: ' crash.out | grep -- '--execution-seed' | head -n 1 | sed 's/^replay: [^ ]* //')
[ -n "$replay" ] || { cat crash.out >&2; fail "no one-execution replay for the crash"; }
eval "set -- $replay"
run 1 replay.out "$@"
has replay.out "one execution replayed"
has replay.out "^dcsim-check: FAIL: explore, .*died of signal"
step "5. a crash with --jobs 1: reported with a one-execution replay that reproduces it"
step "all five steps as expected"
