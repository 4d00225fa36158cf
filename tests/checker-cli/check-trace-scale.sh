#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Trace replay is linear in the trace's length (docs/no-wrong-pass.md):
# the work, counted as instructions under callgrind (not wall time, which a
# busy machine stretches), of a trace of 4N dget lines is at most 5 times
# that of N lines (linear: 4, plus the fixed start-up; quadratic: 16).
# fast-htm: all three HTM configurations, the simulated ones through the
# explorer.
#   check-trace-scale.sh DCSIM_CHECK
set -u
bin=$1
command -v valgrind >/dev/null 2>&1 || { echo "check-trace-scale: no valgrind: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work() {
	{
		echo 'dcsim-trace 1'
		echo 'alloc /a'
		echo 'add /a'
		i=0
		while [ $i -lt "$1" ]; do echo 'dget /a'; i=$((i + 1)); done
	} >"$tmp/t$1.trace"
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" --strategy fast-htm \
		--trace "$tmp/t$1.trace" >"$tmp/o$1" 2>&1 ||
		{ cat "$tmp/o$1" >&2; echo "check-trace-scale: the $1-line trace failed" >&2; exit 1; }
	sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$tmp/o$1"
}
a=$(work 250)
b=$(work 1000)
[ -n "$a" ] && [ -n "$b" ] || { echo "check-trace-scale: no instruction count"; exit 1; }
echo "check-trace-scale: 250 lines: $a instructions; 1000 lines: $b"
awk -v a="$a" -v b="$b" 'BEGIN { r = b / a; printf "check-trace-scale: ratio %.2f (linear 4, at most 5)\n", r; exit !(r <= 5) }'
