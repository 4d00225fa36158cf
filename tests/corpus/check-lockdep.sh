#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The lock order validator on the two planted inversions (docs/lock-order.md):
#   check-lockdep.sh DCSIM_CHECK [KC_PLUGIN]
# - the model fault planted-shrink-i-lock-inversion on fast and retain, and
#   (with the plugin) the 6.1 kernel code with corpus/planted-i-lock-inversion.patch
#   (k61-planted-i-lock-inversion): dcsim-check exits 1 with a "possible
#   circular locking dependency" that prints both chains, each with the
#   function:line of both acquisitions, and a replay line that fails the same
#   way when run (here the replayed execution makes both orders itself; a
#   report also names the execution an older chain came from);
# - the same strategies without the fault, k61 and k612 pass the same
#   scenarios with edges recorded (no false positive; the validator ran).
set -u
bin=$1
plugin=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
me=check-lockdep
# shellcheck source=../checker-cli/cli-lib.sh
. "$(dirname "$0")/../checker-cli/cli-lib.sh"

scn=prune-vs-drop,prune-delete-alias

# caught OUT: the report of a cycle, with both chains and their sites
caught() {
	out=$1
	grep -q "possible circular locking dependency" "$out" || fail "no cycle reported"
	grep -q "^dcsim-lockdep: chain 1, the new dependency" "$out" || fail "no first chain"
	grep -q "^dcsim-lockdep: chain 2, the existing dependency" "$out" || fail "no second chain"
	# each chain names two acquisitions, function:line
	for c in 1 2; do
		n=$(sed -n "/^dcsim-lockdep: chain $c,/,/^dcsim-lockdep: [^ ]/p" "$out" |
		    grep -c "taken at [A-Za-z_][A-Za-z0-9_]*:[0-9]")
		[ "$n" -ge 2 ] || fail "chain $c has $n acquisition sites, want 2 or more"
	done
	grep -q "existing chain: .* -> i_lock at .*shrink_lock_dentry:[0-9]" "$out" ||
		fail "the summary line does not carry the existing chain"
	replay=$(grep -m1 "^replay: " "$out" | sed 's/^replay: //; s/^dcsim-check //')
	[ -n "$replay" ] || fail "no replay line"
	# shellcheck disable=SC2086 # the replay line is a list of arguments
	run 1 "$tmp/r" $replay
	grep -q "possible circular locking dependency" "$tmp/r" || fail "the replay shows no cycle: $replay"
	echo "$me: replay fails the same way: $replay"
}

# edges OUT: the explore summary says the validator recorded edges
edges() {
	grep -Eq "lock order: [1-9][0-9]* validated acquisitions, [0-9]+ trylocks, [1-9][0-9]* edges" "$1" ||
		fail "no edges recorded: $(grep 'lock order' "$1")"
}

for s in fast retain; do
	run 1 "$tmp/o" --strategy "$s" --fault planted-shrink-i-lock-inversion --suites explore \
		--scenarios "$scn"
	caught "$tmp/o"
	run 0 "$tmp/p" --strategy "$s" --suites explore --scenarios "$scn"
	edges "$tmp/p"
	echo "$me: $s: the planted model inversion is caught with both chains; without it, passes"
done

if [ -z "$plugin" ]; then
	echo "$me: no kernel-code plugin: the 6.1 planted patch is not tried"
	exit 0
fi
run 1 "$tmp/o" --load "$plugin" --strategy k61-planted-i-lock-inversion --suites explore \
	--scenarios "$scn"
caught "$tmp/o"
grep -q "shrink_lock_dentry:[0-9]" "$tmp/o" || fail "the kernel's function is not named"
for s in k61 k612; do
	run 0 "$tmp/p" --load "$plugin" --strategy "$s" --suites explore --scenarios "$scn"
	edges "$tmp/p"
done
echo "$me: k61-planted-i-lock-inversion is caught with both chains; k61 and k612 pass"
