#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# dcsim-check --jobs and --shard (docs/testing.md, "Parallel and sharded runs"):
#   check-jobs.sh DCSIM_CHECK PLANTED_SO HTM_NEVER_SO
# - a passing strategy passes with --jobs 2 and in both shards of 2;
# - the planted bug (it fails every trace and every exploration) gives with
#   --jobs 2 the same exit status and the same replay lines as --jobs 1:
#   the lowest failing unit, though the second process fails too;
# - shard 1/2 reports a different first failure (the split is real);
# - an HTM strategy that never commits fails --jobs 2 (commits summed over
#   the processes), and a shard prints its commits for the merge.
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

for suite in diff explore; do
	run 1 "$tmp/j1" --load "$planted" --strategy planted-nolru --suites $suite
	run 1 "$tmp/j2" --load "$planted" --strategy planted-nolru --suites $suite --jobs 2
	grep '^replay: ' "$tmp/j1" >"$tmp/r1"
	grep '^replay: ' "$tmp/j2" >"$tmp/r2"
	[ "$(wc -l <"$tmp/r1")" -eq 1 ] || fail "$suite --jobs 1: want one replay line"
	cmp -s "$tmp/r1" "$tmp/r2" || { cat "$tmp/j2" >&2; fail "$suite: --jobs 2 replays differently:
$(cat "$tmp/r1")
$(cat "$tmp/r2")"; }
	run 1 "$tmp/s1" --load "$planted" --strategy planted-nolru --suites $suite --shard 1/2
	grep -q "^dcsim-check: shard 1/2: $suite: planted-nolru: .*FAILED" "$tmp/s1" ||
		fail "$suite: shard 1/2 has no FAILED merge line"
	grep '^replay: ' "$tmp/s1" >"$tmp/rs"
	[ "$(wc -l <"$tmp/rs")" -eq 1 ] || fail "$suite --shard 1/2: want one replay line"
	cmp -s "$tmp/r1" "$tmp/rs" && fail "$suite: shard 1/2 failed at the same unit as shard 0"
done

run 1 "$tmp/n" --load "$never" --strategy htm-never --suites diff --jobs 2
grep -q "none of its transactions committed" "$tmp/n" || fail "--jobs 2: no word on 0 commits"
[ "$(grep -c '^replay: ' "$tmp/n")" -eq 1 ] || fail "--jobs 2, htm-never: want one replay line"

run 2 "$tmp/u" --strategy fast --shard 2/2
run 2 "$tmp/u" --strategy fast --jobs 0
echo "check-jobs: --jobs 2 and --shard I/2 give the verdicts and replay lines of --jobs 1"
