#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# k612's invalidate runs the kernel's own 6.12 code (docs/no-wrong-pass.md):
# with DCSIM_KC_COVERAGE the kernel-code functions count their entries, and
# after the diff suite and the invalidate scenario on k612 the 6.12 copies
# of d_invalidate(), shrink_dcache_parent() and d_walk() (and select_collect()
# in the scenario) must have run.  A glue slip that sends k612's invalidate
# to the model's d_walk() would make the kernel-code differential compare
# the model with itself; these counts would be 0.
#   check-kc-reach.sh DCSIM_CHECK KC_PLUGIN
set -u
bin=$1 plugin=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# count FILE FUNC: the k612 copy's entries.
count() {
	sed -n "s/^kernel-code coverage: k612-dcache.h  *$2  *\([0-9]*\)\$/\1/p" "$1"
}
check() {
	out=$1
	shift
	for f in "$@"; do
		n=$(count "$out" "$f")
		if [ -z "$n" ] || [ "$n" -eq 0 ]; then
			echo "check-kc-reach: FAIL: $(basename "$out"): k612's $f ran ${n:-no} times"
			fail=1
		else
			echo "check-kc-reach: $(basename "$out"): k612's $f ran $n times"
		fi
	done
}
DCSIM_KC_COVERAGE=1 "$bin" --load "$plugin" --strategy k612 --suites diff --budget quick \
	>"$tmp/diff" 2>&1 || { cat "$tmp/diff"; echo "check-kc-reach: diff failed"; exit 1; }
check "$tmp/diff" d_invalidate shrink_dcache_parent d_walk
DCSIM_KC_COVERAGE=1 "$bin" --load "$plugin" --strategy k612 --suites explore \
	--scenarios invalidate --budget quick >"$tmp/invalidate" 2>&1 ||
	{ cat "$tmp/invalidate"; echo "check-kc-reach: explore failed"; exit 1; }
check "$tmp/invalidate" d_invalidate shrink_dcache_parent d_walk select_collect
exit $fail
