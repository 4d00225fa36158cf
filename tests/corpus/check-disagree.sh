#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The corpus runner fails a corpus whose results disagree with its entries'
# expect: (docs/no-wrong-pass.md).  tests/corpus/disagree/ has three entries
# that must disagree (caught but "missed", missed but "caught", a control
# that fails) and two that must agree; the run must exit 1 and mark
# exactly the three.
#   check-disagree.sh DCSIM_CHECK
set -u
bin=$1
dir=$(cd "$(dirname "$0")/disagree" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
"$bin" --budget quick --corpus "$dir" >"$out" 2>&1 || rc=$?
fail=0
say() { echo "check-disagree: FAIL: $*"; fail=1; }
[ "$rc" = 1 ] || say "exit $rc, want 1"
for e in caught-says-missed missed-says-caught control-fails; do
	grep -q "^| $e | .*(DISAGREES)" "$out" || say "$e is not marked DISAGREES"
done
for e in caught-says-caught control-passes; do
	grep -q "^| $e | " "$out" || say "$e has no row"
	grep -q "^| $e | .*(DISAGREES)" "$out" && say "$e is marked DISAGREES"
done
grep -q "^| caught-says-missed | [^|]* | [^|]* | caught (DISAGREES)" "$out" ||
	say "caught-says-missed: result is not 'caught'"
grep -q "^| missed-says-caught | [^|]* | [^|]* | missed (DISAGREES)" "$out" ||
	say "missed-says-caught: result is not 'missed'"
grep -q "^| control-fails | [^|]* | [^|]* | flagged (DISAGREES)" "$out" ||
	say "control-fails: result is not 'flagged'"
grep -q "; 3 disagree with their expect: field" "$out" || say "the summary does not count 3"
if [ $fail = 1 ]; then
	cat "$out"
	exit 1
fi
echo "check-disagree: 3 disagreeing entries fail the run, 2 agreeing ones pass"
