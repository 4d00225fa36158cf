#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Detection pinned at the default seed (docs/no-wrong-pass.md): strict
# priorities and fair-cycle detection must catch their planted livelocks
# within a bound on the executions to the first failure, about twice what
# they take today, and by the right detector.  "Caught somewhere" lets a
# scheduler that preempts less, or a detector that needs more rounds,
# pass while it finds the bug many times later.
#   check-detect-bounds.sh DCSIM_CHECK [KC_PLUGIN]
# With KC_PLUGIN (kernel-code/libdcsim-kc-corpus.so) it pins the kernel's
# own 6.12 code instead: k612's shrink_dcache_parent() waits with
# cond_resched(), which gives the CPU back under strict priorities (the
# suite passes) and not under rt (a livelock, caught within the bound).
set -u
bin=$1
kc=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
w=
# pin NAME BOUND WORK KIND ARGS...: the FAIL line's execution number <= BOUND, check:
# KIND; for a fair cycle also the decisions to its detection (where the cycle
# began, plus period x rounds) <= WORK.
pin() {
	name=$1 bound=$2 work=$3 kind=$4
	shift 4
	rc=0
	"$bin" --suites explore --budget quick "$@" >"$tmp/$name" 2>&1 || rc=$?
	n=$(sed -n 's/^dcsim-check: FAIL: explore, .*, execution \([0-9]*\) of [0-9]*$/\1/p' "$tmp/$name" | head -1)
	if [ "$rc" != 1 ] || [ -z "$n" ]; then
		echo "check-detect-bounds: FAIL: $name: not caught (exit $rc)"
		fail=1
	elif [ "$n" -gt "$bound" ]; then
		echo "check-detect-bounds: FAIL: $name: caught at execution $n, bound $bound"
		fail=1
	elif ! grep -q "^check: livelock ($kind)" "$tmp/$name"; then
		echo "check-detect-bounds: FAIL: $name: caught at execution $n, but not as 'livelock ($kind)'"
		fail=1
	elif [ "$kind" = "fair cycle" ] && ! w=$(sed -n 's/^check: livelock (fair cycle): the state at decision \([0-9]*\) came back every \([0-9]*\) decisions, \([0-9]*\) times.*/\1 \2 \3/p' \
			"$tmp/$name" | awk -v max="$work" '{ w = $1 + $2 * $3; print w; exit !(w <= max) }'); then
		echo "check-detect-bounds: FAIL: $name: the cycle took ${w:-?} decisions to detect, bound $work"
		fail=1
	else
		echo "check-detect-bounds: $name: execution $n (bound $bound)${w:+, $w decisions (bound $work)}, livelock ($kind)"
	fi
	w=
}
if [ -n "$kc" ]; then
	pin rt-k612-invalidate 12 - "real-time priorities" --load "$kc" --strategy k612 --sched rt \
		--scenarios invalidate
	rc=0
	"$bin" --load "$kc" --strategy k612 --suites explore --budget quick --sched strict \
		--scenarios invalidate >"$tmp/strict-k612" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		sed -n '/^dcsim-check: FAIL/,/^replay:/p' "$tmp/strict-k612"
		echo "check-detect-bounds: FAIL: strict-k612-invalidate: exit $rc, want 0 (cond_resched() yields)"
		fail=1
	else
		echo "check-detect-bounds: strict-k612-invalidate: passed"
	fi
	exit $fail
fi
pin strict-cond-resched 60 - "strict priorities" --strategy fast --fault restore-cond-resched \
	--sched strict --scenarios invalidate
pin fair-shrink-parent 26 33000 "fair cycle" --strategy fast \
	--fault 046b961b45f9-shrink-parent-trylock --scenarios invalidate,invalidate-cascade
pin fair-ancestor 58 16000 "fair cycle" --strategy fast --fault b2b80195d882-ancestor-trylock \
	--scenarios invalidate-cascade
exit $fail
