#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# dcsim-check --jobs and --shard (docs/testing.md, "Parallel and sharded runs"):
#   check-jobs.sh DCSIM_INSTRUMENT PLANTED_SO HTM_NEVER_SO
# - a passing strategy passes with --jobs 2 and in both shards of 2;
# - the planted bug (it fails every trace and every exploration) gives with
#   --jobs 2 the same exit status and the same replay lines as --jobs 1:
#   the lowest failing unit, though the second process fails too;
# - shards 0/2 and 1/2 report different first failures (the split is
#   real), one of them the --jobs 1 run's;
# - a planted model fault that fails some explorations only (the lowest
#   failing unit is not the first unit) gives byte-identical FAIL and
#   replay lines (and check lines, but for addresses) with --jobs 1,
#   --jobs 2 (pinned or not) and --jobs 2 within shards, and the shards
#   0/2 + 1/2 together run every unit once;
# - an HTM strategy that never commits fails --jobs 2 (commits summed over
#   the processes), and a shard prints its commits for the merge;
# - the lock order validator's counts on the per-suite line are summed over
#   the processes: --jobs 2 gives the --jobs 1 figures (each unit's graph
#   is its own), for explore and for diff.
set -u
bin=$1 planted=$2 never=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
me=check-jobs
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"

run 0 "$tmp/p" --strategy fast --suites diff,explore,misuse --budget quick --jobs 2
grep -q "runs on 2 processes, ok" "$tmp/p" || fail "no per-suite line of the 2 processes"
for i in 0 1; do
	run 0 "$tmp/s$i" --strategy fast-htm --suites diff,explore --shard $i/2
	grep -q "^dcsim-check: shard $i/2: diff: fast-htm: [0-9]* runs, ok, [0-9]* simulated commits" \
		"$tmp/s$i" || { cat "$tmp/s$i" >&2; fail "shard $i/2: no merge line"; }
done

# lockorder OUT SUITE: the lock order part of SUITE's per-suite line
lockorder() {
	sed -n "s/^dcsim-check: $2: [^:]*: [0-9]* runs on [0-9]* process[es]*, ok; \(lock order: .*\)/\1/p" "$1"
}
for j in 1 2; do
	run 0 "$tmp/l$j" --strategy fast --suites explore,diff --scenarios prune-vs-drop,final-dputs \
		--jobs $j
done
for suite in explore diff; do
	for j in 1 2; do
		lockorder "$tmp/l$j" $suite >"$tmp/lo$j"
	done
	grep -Eq "^lock order: [1-9][0-9]* validated acquisitions, [0-9]+ trylocks, [1-9][0-9]* edges" \
		"$tmp/lo1" || { cat "$tmp/l1" >&2; fail "$suite --jobs 1: no lock order counts"; }
	cmp -s "$tmp/lo1" "$tmp/lo2" || fail "$suite: --jobs 2 sums the lock order counts differently:
$(cat "$tmp/lo1")
$(cat "$tmp/lo2")"
	echo "$me: $suite: $(cat "$tmp/lo2") (--jobs 1 and --jobs 2)"
done

for suite in diff explore; do
	run 1 "$tmp/j1" --load "$planted" --strategy planted-nolru --suites $suite
	run 1 "$tmp/j2" --load "$planted" --strategy planted-nolru --suites $suite --jobs 2
	grep '^replay: ' "$tmp/j1" >"$tmp/r1"
	grep '^replay: ' "$tmp/j2" >"$tmp/r2"
	[ "$(wc -l <"$tmp/r1")" -eq 1 ] || fail "$suite --jobs 1: want one replay line"
	cmp -s "$tmp/r1" "$tmp/r2" || { cat "$tmp/j2" >&2; fail "$suite: --jobs 2 replays differently:
$(cat "$tmp/r1")
$(cat "$tmp/r2")"; }
	for i in 0 1; do
		run 1 "$tmp/s$i" --load "$planted" --strategy planted-nolru --suites $suite --shard $i/2
		grep -q "^dcsim-check: shard $i/2: $suite: planted-nolru: .*FAILED" "$tmp/s$i" ||
			fail "$suite: shard $i/2 has no FAILED merge line"
		grep '^replay: ' "$tmp/s$i" >"$tmp/rs$i"
		[ "$(wc -l <"$tmp/rs$i")" -eq 1 ] || fail "$suite --shard $i/2: want one replay line"
	done
	cmp -s "$tmp/rs0" "$tmp/rs1" && fail "$suite: shards 0/2 and 1/2 failed at the same unit"
	cmp -s "$tmp/r1" "$tmp/rs0" || cmp -s "$tmp/r1" "$tmp/rs1" ||
		fail "$suite: neither shard reports the --jobs 1 run's failure"
done

# The lines of a report that must not depend on how the units were split
# (a check line's addresses change from run to run with ASLR: masked).
verdict() {
	grep -E '^(dcsim-check: FAIL|check: |replay: )' "$1" |
		sed '/^check: /s/0x[0-9a-f]\{8,\}/ADDR/g'
}
# The runs a suite's merge lines ("shard I/N: SUITE: ...: R runs") add up to.
shard_runs() { sed -n "s/^dcsim-check: shard [0-9]*\/[0-9]*: $1: [^:]*: \([0-9]*\) runs.*/\1/p" \
	"$2" "$3" | awk '{ n += $1 } END { print n + 0 }'; }

# husk-freed-early fails the invalidate scenario's random walks and later
# ones, not the first unit: the lowest failing unit must win, not the
# first failure to finish.
f="--strategy retain-htm --suites explore --budget quick --fault husk-freed-early"
# shellcheck disable=SC2086
{
	run 1 "$tmp/f1" $f --jobs 1
	run 1 "$tmp/f2" $f --jobs 2
	run 1 "$tmp/f0" $f --shard 0/2 --jobs 2
	run 1 "$tmp/f3" $f --shard 1/2 --jobs 2
	run 1 "$tmp/f4" $f --jobs 2 --no-pin
}
verdict "$tmp/f1" >"$tmp/v1"
verdict "$tmp/f2" >"$tmp/v2"
[ "$(grep -c '^replay: ' "$tmp/v1")" -eq 1 ] || fail "fault, --jobs 1: want one replay line"
grep -q '^replay: .*--scenario ' "$tmp/v1" || fail "fault, --jobs 1: not an exploration's replay"
cmp -s "$tmp/v1" "$tmp/v2" || fail "fault: --jobs 2 reports differently:
$(cat "$tmp/v1")
--- --jobs 2:
$(cat "$tmp/v2")"
verdict "$tmp/f4" >"$tmp/v4"
cmp -s "$tmp/v1" "$tmp/v4" || fail "fault: --jobs 2 --no-pin reports differently"
verdict "$tmp/f0" >"$tmp/v0"
verdict "$tmp/f3" >"$tmp/v3"
cmp -s "$tmp/v1" "$tmp/v0" || cmp -s "$tmp/v1" "$tmp/v3" ||
	fail "fault: neither shard 0/2 nor 1/2 (--jobs 2 each) reports the --jobs 1 failure"

# Coverage: a passing run's units, once each over the shards, for both suites.
p="--strategy fast-htm --suites diff,explore --budget quick"
# shellcheck disable=SC2086
{
	run 0 "$tmp/c1" $p
	run 0 "$tmp/c0" $p --shard 0/2 --jobs 2
	run 0 "$tmp/c3" $p --shard 1/2
}
want=$(sed -n 's/^dcsim-check: explore: fast-htm: \([0-9]*\) explorations, ok.*/\1/p' "$tmp/c1")
got=$(shard_runs explore "$tmp/c0" "$tmp/c3")
[ -n "$want" ] && [ "$want" -eq "$got" ] || fail "explore: shards ran $got units, --jobs 1 $want"
want=$(sed -n 's/^dcsim-check: diff: fast-htm: \([0-9]*\) runs,.*/\1/p' "$tmp/c1")
got=$(shard_runs diff "$tmp/c0" "$tmp/c3")
[ -n "$want" ] && [ "$want" -eq "$got" ] || fail "diff: shards ran $got runs, --jobs 1 $want"

run 1 "$tmp/n" --load "$never" --strategy htm-never --suites diff --jobs 2
grep -q "none of its transactions committed" "$tmp/n" || fail "--jobs 2: no word on 0 commits"
[ "$(grep -c '^replay: ' "$tmp/n")" -eq 1 ] || fail "--jobs 2, htm-never: want one replay line"

run 2 "$tmp/u" --strategy fast --shard 2/2
run 2 "$tmp/u" --strategy fast --jobs 0
echo "check-jobs: --jobs 2 and --shard I/2 give the verdicts and replay lines of --jobs 1"
