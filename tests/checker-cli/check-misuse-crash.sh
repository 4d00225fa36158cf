#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The kernel's own 6.1 code (k61) under the misuse suite: 6.1's dput() has
# no underflow handling, so the puts at count 0 go on to crash the process
# that runs the suite.  That is a finding about the code under test, and
# dcsim-check must report it as one: exit 1 (the documented code for "a
# check failed, or the code under test crashed"), the signal named, a
# replay line that reproduces the same crash, and --json saying so; never
# die by the signal itself.
#   check-misuse-crash.sh DCSIM_CHECK KC_PLUGIN
set -u
bin=$1
kc=$2
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "check-misuse-crash: FAIL: $*"
	exit 1
}
rc=0
"$bin" --load "$kc" --strategy k61 --suites misuse --json "$tmp/r.json" >"$tmp/o" 2>&1 || rc=$?
if [ "$rc" != 1 ]; then
	cat "$tmp/o"
	fail "exit $rc, want 1 (a crash of the code under test is a failed check)"
fi
grep -q "^dcsim-check: FAIL: misuse, strategy k61: the process running it died of signal" \
	"$tmp/o" || { cat "$tmp/o"; fail "the crash is not reported as a failure naming the signal"; }
grep -q "^dcsim-check: k61: FAILED" "$tmp/o" || { cat "$tmp/o"; fail "no verdict line"; }
replay=$(grep '^replay: dcsim-check ' "$tmp/o" | tail -n 1 | sed 's/^replay: dcsim-check //')
case $replay in
*"--suites misuse"*) ;;
*) cat "$tmp/o"; fail "no replay line for the misuse suite: '$replay'" ;;
esac
eval "set -- $replay"
rc=0
"$bin" "$@" >"$tmp/again" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "^dcsim-check: FAIL: misuse, strategy k61: the process running it died of signal" \
	"$tmp/again" || { cat "$tmp/again"; fail "the replay (exit $rc) did not crash the same way"; }
rc=0
python3 "$here/check-json.py" "$here/../../docs/dcsim-check.schema.json" "$tmp/r.json" \
	verdict=fail exit=1 suite.misuse.verdict=FAILED "suite.misuse.replay~--suites misuse" || rc=$?
case $rc in
0) ;;
77) echo "check-misuse-crash: --json not checked (no python3-jsonschema)" ;;
*) fail "--json: not valid, or not what the run found" ;;
esac
echo "check-misuse-crash: k61 misuse: the crash is a failure (exit 1) with a replay that reproduces it"
