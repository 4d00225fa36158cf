#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The corpus runner tells a crash from a hang, and keeps the replay
# (<dcsim/child.h>, docs/corpus.md):
#   check-child-ends.sh DCSIM_CHECK CRASH_PLUGIN HANG_PLUGIN
# tests/corpus/child-ends/ holds a planted crash (the explorer's overlap
# in crash-overlap) and a planted hang (hangs' put waits forever in the
# diff suite, where only the runner's time limit sees it).  Both must be
# caught; the crash's row says "a crash" with a one-execution replay, the
# hang's row says "a hang" with the suite's replay, and the reports say
# which it was.
set -u
bin=$1 crash=$2 hangs=$3
dir=$(cd "$(dirname "$0")/child-ends" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
DCSIM_CORPUS_TIMEOUT=5 "$bin" --load "$crash" --load "$hangs" --budget quick --corpus "$dir" \
	>"$out" 2>&1 || rc=$?
fail=0
say() { echo "check-child-ends: FAIL: $*"; fail=1; }
[ "$rc" = 0 ] || say "exit $rc, want 0 (both caught, as expected)"
grep -q '^| planted-crash | [^|]* | [^|]* | caught | caught | explore:final-dputs on crash-overlap | a crash | [^|]* | dcsim-check .*--strategy crash-overlap --suites explore --scenario final-dputs/crash-overlap/[a-z]* --explore-mode [a-z]* --execution-seed 0x[0-9a-f]*' "$out" ||
	say "the crash's row is not 'caught', 'a crash', with a one-execution replay"
grep -q '^| planted-hang | [^|]* | [^|]* | caught | caught | diff on hangs | a hang | [^|]* | dcsim-check .*--strategy hangs --suites diff |' "$out" ||
	say "the hang's row is not 'caught', 'a hang', with the suite's replay"
grep -q '^corpus planted-crash: explore:final-dputs on crash-overlap: crashed: the process died of signal' "$out" ||
	say "the crash is not reported as a crash"
grep -q '^corpus planted-hang: diff on hangs: hung: no result within the time limit (signal 9)' "$out" ||
	say "the hang is not reported as a hang"
if [ $fail = 1 ]; then
	cat "$out"
	exit 1
fi
echo "check-child-ends: a planted crash and a planted hang are caught and told apart, with replays"
