#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The lock order validator on real threads (docs/lock-order.md, "Real threads"),
# through dcsim-check's stress suite:
#   check-lockdep-stress.sh DCSIM_CHECK ABBA_PLUGIN [KC_PLUGIN]
# - planted-abba (tests/checker-cli/planted-abba.c), two threads that really
#   deadlock: dcsim-check exits 1 within the time limit, with a "possible
#   circular locking dependency" that prints both chains (function:line of
#   each acquisition), the command that reproduces it, and says that the
#   threads deadlocked after the report (so a hang is a diagnosis);
# - the model fault planted-shrink-i-lock-inversion on fast, and (with the
#   plugin) k61-planted-i-lock-inversion, the same change in 6.1's own code:
#   caught under the stress suite with both chains (a few seeds are tried:
#   the OS schedules);
# - fast and (with the plugin) k61 without the fault pass the stress suite
#   with edges recorded (no false positive; the validator ran).
set -u
bin=$1
abba=$2
plugin=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
me=check-lockdep-stress
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"

# Never hang: a run past this limit is the failure this test is about.
limit=300

# chains OUT: both chains, each with two or more function:line sites
chains() {
	out=$1
	grep -q "possible circular locking dependency" "$out" || fail "no cycle reported"
	grep -q "^dcsim-lockdep: chain 1, the new dependency" "$out" || fail "no first chain"
	grep -q "^dcsim-lockdep: chain 2, the existing dependency" "$out" || fail "no second chain"
	for c in 1 2; do
		n=$(sed -n "/^dcsim-lockdep: chain $c,/,/^dcsim-lockdep: [^ ]/p" "$out" |
		    grep -c "taken at [A-Za-z_][A-Za-z0-9_]*:[0-9]")
		[ "$n" -ge 2 ] || fail "chain $c has $n acquisition sites, want 2 or more"
	done
	grep -q "^dcsim-lockdep: reproduce: dcsim-check .*--suites stress --seed [0-9]" "$out" ||
		fail "no command to reproduce it"
	grep -q "^check: possible circular locking dependency: .* existing chain: " "$out" ||
		fail "the check line does not carry both chains"
	grep -q "^replay: .*--suites stress --seed [0-9]" "$out" || fail "no replay line"
}

# limited RC OUT ARGS...: dcsim-check under the time limit, exit status RC
limited() {
	want=$1 out=$2
	shift 2
	timeout "$limit" "$bin" "$@" >"$out" 2>&1
	rc=$?
	[ "$rc" -ne 124 ] || { cat "$out" >&2; fail "dcsim-check $* hung (killed after $limit s)"; }
	[ "$rc" -eq "$want" ] || { cat "$out" >&2; fail "dcsim-check $* exited $rc, want $want"; }
}

# planted STRATEGY ARGS...: caught under the stress suite within a few seeds
planted() {
	for seed in 20130930 1 2 3 4; do
		timeout "$limit" "$bin" "$@" --suites stress --seed "$seed" >"$tmp/o" 2>&1
		rc=$?
		[ "$rc" -ne 124 ] || { cat "$tmp/o" >&2; fail "dcsim-check $* hung"; }
		if [ "$rc" -eq 1 ]; then
			chains "$tmp/o"
			echo "$me: $*: caught under stress (seed $seed) with both chains"
			return
		fi
		[ "$rc" -eq 0 ] || { cat "$tmp/o" >&2; fail "dcsim-check $* exited $rc"; }
		echo "$me: $*: missed with seed $seed (real threads), trying another"
	done
	fail "$*: the planted inversion was not caught under stress in 5 seeds"
}

# edges OUT: the stress suite's lock order line, with work done and edges recorded
edges() {
	grep -Eq "stress: .*: lock order: [1-9][0-9]* validated acquisitions, [0-9]+ trylocks, [1-9][0-9]* edges$" "$1" ||
		fail "no edges recorded: $(grep 'lock order' "$1")"
}

limited 1 "$tmp/a" --load "$abba" --strategy planted-abba --suites stress
chains "$tmp/a"
grep -q "deadlocked, as it predicted" "$tmp/a" || fail "the deadlock after the report is not said"
grep -q "abba_first:[0-9]" "$tmp/a" && grep -q "abba_second:[0-9]" "$tmp/a" ||
	fail "the chains do not name both functions"
echo "$me: planted-abba: a real deadlock, reported with both chains before it, and the run ends"

planted --strategy fast --fault planted-shrink-i-lock-inversion
grep -q "shrink_lock_dentry:[0-9]" "$tmp/o" || fail "the model's function is not named"
limited 0 "$tmp/p" --strategy fast --suites stress
edges "$tmp/p"
echo "$me: fast passes the stress suite with edges recorded"

if [ -z "$plugin" ]; then
	echo "$me: no kernel-code plugin: the 6.1 planted patch is not tried"
	exit 0
fi
planted --load "$plugin" --strategy k61-planted-i-lock-inversion
grep -q "shrink_lock_dentry:[0-9]" "$tmp/o" || fail "the kernel's function is not named"
limited 0 "$tmp/p" --load "$plugin" --strategy k61 --suites stress
edges "$tmp/p"
echo "$me: k61 passes the stress suite with edges recorded"
