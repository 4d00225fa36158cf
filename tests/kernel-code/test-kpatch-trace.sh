#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# dcsim-check --kernel-patch: a failure report that points at the patch
# (docs/dcsim-check.md, "Failure reports"):
#   test-kpatch-trace.sh DCSIM_CHECK TREE PATCHDIR
# The planted bug of examples/kernel-patches/ (retain_dentry() calls
# d_lru_add() without d_lock, from a changed line) must fail, and its
# interleaving must
# - mark with '>' the steps that ran a changed line, here d_lru_add()'s
#   accesses under the changed call, and leave retain_dentry()'s unchanged
#   lines unmarked;
# - name each kernel step's innermost function and, after '<-', the call
#   in the patched function: retain_dentry() at the line of its
#   d_lru_add() call in the patched source; a shim's step (smp_rmb())
#   names the kernel line that called it;
# - start at the first changed-line step at the latest, even when
#   --trace-steps asks for fewer steps than lie after it.
set -u
check=$1 tree=$2 dir=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test-kpatch-trace: $*" >&2; exit 1; }
export DCSIM_CACHE_DIR="$tmp/cache"

"$check" --kernel-tree "$tree" --kernel-patch "$dir/retain-dontcache-first-bug-lru-nolock.patch" \
	--suites explore --scenarios final-dputs-cold --budget quick --trace-steps 5 \
	>"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || { cat "$tmp/out" >&2; fail "the planted bug exited $rc, want 1"; }

# The patched source, and the line of retain_dentry()'s d_lru_add() call in it.
src=$(sed -n 's/^kpatch: .*: patched source \(.*\)$/\1/p' "$tmp/out" | head -1)
[ -f "$src" ] || { cat "$tmp/out" >&2; fail "no patched source named"; }
call=$(awk '/^static inline bool retain_dentry\(/ { in_fn = 1 }
	    in_fn && /d_lru_add\(dentry\);/ { print NR; exit }' "$src")
[ -n "$call" ] || fail "no d_lru_add() call in retain_dentry() of $src"

marked='^ *[0-9][0-9]*  T[0-9][0-9]*[ *]> '
grep -q "${marked}[a-z_]* *d_lru_add() fs/dcache.c:[0-9]* <- retain_dentry() fs/dcache.c:$call " \
	"$tmp/out" || { cat "$tmp/out" >&2
	fail "no step of d_lru_add() marked '>' and named as called from retain_dentry():$call"; }
# Unchanged lines of the patched function ran unmarked.
grep -q '^ *[0-9][0-9]*  T[0-9][0-9]*[ *]  [a-z_]* *retain_dentry() fs/dcache.c:[0-9]* <- ' \
	"$tmp/out" || { cat "$tmp/out" >&2; fail "no unmarked step of retain_dentry()"; }
# A barrier of the shims names the kernel line that called it.
grep -q '^ *[0-9][0-9]*  T[0-9][0-9]*[ *]  rmb *kc_smp_rmb:[0-9]* <- retain_dentry() fs/dcache.c:[0-9]*$' \
	"$tmp/out" || { cat "$tmp/out" >&2; fail "no smp_rmb() step named with its line in retain_dentry()"; }
# Marks only where a changed line ran: never in the lockless lockref path.
if grep -q "${marked}.*lockref_put_return()" "$tmp/out"; then
	cat "$tmp/out" >&2
	fail "a step of lockref_put_return() (no changed line on its stack) is marked"
fi

# The window: from the first changed-line step, though --trace-steps 5.
first=$(sed -n "s/.*'>' = ran a line the patch changed, first at step \([0-9]*\);.*/\1/p" \
	"$tmp/out" | head -1)
[ -n "$first" ] || { cat "$tmp/out" >&2; fail "the report does not say the first changed-line step"; }
shown=$(awk '/interleaving, last/ { on = 1; next }
	     on && /^ *[0-9]+  T[0-9]/ { print $1; exit }' "$tmp/out")
[ -n "$shown" ] && [ "$shown" -le "$first" ] ||
	{ cat "$tmp/out" >&2; fail "the interleaving starts at step $shown, after the first changed-line step $first"; }
grep -q "^ *$first  T[0-9][0-9]*[ *]> " "$tmp/out" ||
	{ cat "$tmp/out" >&2; fail "step $first is not printed with its mark"; }
echo "test-kpatch-trace: changed-line steps marked from step $first, callers named" \
	"(retain_dentry():$call), the window starts at step $shown"
