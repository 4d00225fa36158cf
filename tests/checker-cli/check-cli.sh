#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The dcsim-check contract (docs/testing.md):
#   check-cli.sh pass DCSIM_INSTRUMENT        a built-in strategy passes (exit 0)
#   check-cli.sh usage DCSIM_INSTRUMENT       bad usage exits 2, with the reason
#   check-cli.sh planted DCSIM_INSTRUMENT SO  the planted bug fails (exit 1) with a
#                                        report whose replay line, and whose
#                                        printed trace, fail the same way
#   check-cli.sh htm-never DCSIM_INSTRUMENT SO  an HTM strategy that never
#                                        commits fails diff and explore
#   check-cli.sh nolock DCSIM_INSTRUMENT SO   dcsim_dput_locked_final() without
#                                        d_lock ends every suite with exit 1,
#                                        a replay line and (but misuse) the
#                                        library's warning: no hang
#   check-cli.sh crash DCSIM_INSTRUMENT SO    a crash in the explorer (--jobs 1) is
#                                        a failure with a one-execution replay,
#                                        which crashes the same way without
#                                        ending dcsim-check; later suites run
#   check-cli.sh merge DCSIM_INSTRUMENT SO    shards fanned out with GNU parallel,
#                                        merged (--merge), give the unsharded
#                                        verdict: the planted bug fails, fast-htm
#                                        passes with the same runs
#   check-cli.sh traces DCSIM_INSTRUMENT DIR  every trace of DIR passes on every
#                                        built-in strategy
#   check-cli.sh dies DCSIM_INSTRUMENT SO    a --jobs worker killed by a signal
#                                        fails the run (exit 1), in diff and
#                                        in explore
#   check-cli.sh orphan DCSIM_INSTRUMENT SO  a suite's child that hangs dies with
#                                        dcsim-check killed by SIGKILL
set -u
mode=$1
bin=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
me=check-cli
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"

# children_of PID: the pids whose parent is PID (from /proc: no procps needed).
children_of() {
	for st in /proc/[0-9]*/status; do
		awk -v p="$1" '$1 == "PPid:" && $2 == p { found = 1 } END { exit !found }' "$st" 2>/dev/null &&
			basename "$(dirname "$st")"
	done
}

# alive PID: it runs (not gone, and not a zombie nobody has reaped yet).
alive() {
	[ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

case $mode in
pass)
	run 0 "$tmp/o" --strategy fast --suites diff,misuse,explore,stress --budget quick
	run 0 "$tmp/o" --strategy fast-htm --suites diff,misuse --budget quick
	echo "check-cli: fast (every suite) and fast-htm (diff, misuse) pass"
	;;
merge)
	so=$3
	here=$(dirname "$0")
	command -v parallel >/dev/null || { echo "check-cli: SKIPPED: GNU parallel not installed"; exit 77; }
	# compare NAME ARGS...: unsharded, then 3 shards by parallel, merged: same verdict.
	compare() {
		name=$1
		shift
		"$bin" "$@" --json "$tmp/$name-all.json" >"$tmp/$name-all.out" 2>&1
		want=$?
		# The recipe docs/dcsim-check.md gives, as it is.
		parallel "$bin" "$@" --shard {}/3 --json "$tmp/$name-{}.json" ::: 0 1 2 \
			>"$tmp/$name-par.out" 2>&1
		run "$want" "$tmp/$name-merge.out" --merge "$tmp/$name-0.json" "$tmp/$name-1.json" \
			"$tmp/$name-2.json" --json "$tmp/$name-merged.json"
		python3 "$here/check-json.py" "$here/../../docs/dcsim-check.schema.json" \
			"$tmp/$name-merged.json" >/dev/null || fail "$name: the merged --json is not valid"
		python3 - "$tmp/$name-all.json" "$tmp/$name-merged.json" <<'EOF2' || fail "$name: merged != unsharded"
import json, sys
a, m = (json.load(open(p)) for p in sys.argv[1:])
va = [(s["name"], s["verdict"]) for s in a["suites"]]
vm = [(s["name"], s["verdict"]) for s in m["suites"]]
assert (a["verdict"], va) == (m["verdict"], vm), (a["verdict"], va, m["verdict"], vm)
if a["verdict"] == "pass":
    assert [s["runs"] for s in a["suites"]] == [s["runs"] for s in m["suites"]], "runs differ"
# Each unit, in the same order, with the same outcome; the suites' first
# failure and replay are that of the lowest failing unit, as unsharded.
assert a["units"] == m["units"], "units differ: %d unsharded, %d merged" % (len(a["units"]), len(m["units"]))
fa = [(s["failure"], s["replay"]) for s in a["suites"]]
fm = [(s["failure"], s["replay"]) for s in m["suites"]]
assert fa == fm, (fa, fm)
EOF2
	}
	compare planted --load "$so" --strategy planted-nolru --suites diff,misuse
	compare htm --strategy fast-htm --suites diff,misuse
	# A shard missing, or one given twice: bad usage.
	run 2 "$tmp/o" --merge "$tmp/htm-0.json" "$tmp/htm-0.json" "$tmp/htm-2.json"
	grep -q "each once" "$tmp/o" || fail "a shard given twice: no reason"
	echo "check-cli: 3 shards by GNU parallel, merged, give the unsharded verdict"
	;;
crash)
	so=$3
	run 1 "$tmp/o" --load "$so" --strategy crash-overlap --suites explore,misuse --budget quick \
		--jobs 1
	grep -q "^dcsim-check: FAIL: explore, strategy crash-overlap: the process running .*died of signal" \
		"$tmp/o" || { cat "$tmp/o" >&2; fail "the crash is not reported as a failure"; }
	grep -q "^dcsim-check: misuse: crash-overlap: ok" "$tmp/o" ||
		{ cat "$tmp/o" >&2; fail "the crash ended the run: misuse did not run after it"; }
	replay=$(grep '^replay: ' "$tmp/o" | head -n 1 | sed 's/^replay: dcsim-check //')
	case $replay in
	*"--scenario final-dputs"*"--execution-seed 0x"*) ;;
	*) cat "$tmp/o" >&2; fail "no one-execution replay: $replay" ;;
	esac
	eval "set -- $replay"
	run 1 "$tmp/r" "$@"
	grep -q "one execution replayed" "$tmp/r" && grep -q "crashed with signal 11" "$tmp/r" &&
		grep -q "^dcsim-check: FAIL: explore, strategy crash-overlap: the process running it died" \
		"$tmp/r" || { cat "$tmp/r" >&2; fail "the replay did not crash the same way"; }
	# The corpus runner's row keeps the crash's one-execution replay.
	mkdir "$tmp/corpus"
	printf '%s\n' "commit: planted" "subject: a put entered while another is inside crashes" \
		"fixed-in: never upstream" "id-check: planted" "verified-by: planted" \
		"class: use-after-free" "kind: b" "fault: the plugin's own NULL dereference" \
		"strategies: crash-overlap" "fixed: fast" \
		"suites: explore:final-dputs" "expect: caught" "catch: explorer" "needs: nothing" \
		"status: test" >"$tmp/corpus/crash-overlap.bug"
	"$bin" --load "$so" --corpus "$tmp/corpus" --budget quick >"$tmp/c" 2>"$tmp/c.err" ||
		{ cat "$tmp/c" "$tmp/c.err" >&2; fail "--corpus: the crash entry disagrees"; }
	grep -q "| crash-overlap | .* | caught | caught | .* | a crash | .*--scenario final-dputs/crash-overlap/off --explore-mode [a-z]* --execution-seed 0x" \
		"$tmp/c" || { cat "$tmp/c" >&2; fail "--corpus: the crash's row has no one-execution replay"; }
	# --json: valid by the schema, with the crash's replay and the verdict.
	here=$(dirname "$0")
	run 1 "$tmp/j" --load "$so" --strategy crash-overlap --suites explore,misuse --budget quick \
		--json "$tmp/r.json"
	python3 "$here/check-json.py" "$here/../../docs/dcsim-check.schema.json" "$tmp/r.json" \
		verdict=fail exit=1 suite.explore.verdict=FAILED "suite.explore.replay~--execution-seed" \
		suite.misuse.verdict=ok units.explore.last.kind=crash units.explore.last.seed=None \
		"units.explore.last.replay~--execution-seed" \
		units.explore.last.scenario=final-dputs/crash-overlap/off units.misuse.0.verdict=ok ||
		fail "--json: not valid, or not what the run found"
	run 0 "$tmp/j" --strategy fast --suites misuse --json "$tmp/p.json"
	python3 "$here/check-json.py" "$here/../../docs/dcsim-check.schema.json" "$tmp/p.json" \
		verdict=pass exit=0 coverage=None || fail "--json of a pass: not valid"
	# --junit: one test case per suite, explore's a failure with its replay.
	run 1 "$tmp/j" --load "$so" --strategy crash-overlap --suites explore,misuse --budget quick \
		--junit "$tmp/r.xml"
	python3 - "$tmp/r.xml" <<'EOF2' || fail "--junit: not the XML the run found"
import sys
import xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
cases = {c.get("name"): c for c in suite.findall("testcase")}
assert suite.get("tests") == "2" and suite.get("failures") == "1", suite.attrib
assert cases["explore"].find("failure") is not None
assert "--execution-seed" in cases["explore"].find("failure").text
assert cases["misuse"].find("failure") is None
EOF2
	# The report's window: --trace-steps, else DCSIM_EXPLORE_TRACE.
	run 1 "$tmp/t" "$@" --trace-steps 3
	grep -q "interleaving, last 3 of " "$tmp/t" || { cat "$tmp/t" >&2; fail "--trace-steps 3 ignored"; }
	export DCSIM_EXPLORE_TRACE=2
	run 1 "$tmp/t" "$@"
	unset DCSIM_EXPLORE_TRACE
	grep -q "interleaving, last 2 of " "$tmp/t" ||
		{ cat "$tmp/t" >&2; fail "DCSIM_EXPLORE_TRACE=2 ignored"; }
	echo "check-cli: a crash is a failure with a one-execution replay that reproduces it"
	;;
usage)
	run 2 "$tmp/o" --strategy fast --no-such-flag
	grep -q "unknown or incomplete option '--no-such-flag'" "$tmp/o" || fail "no reason for a bad flag"
	run 2 "$tmp/o" --strategy no-such-strategy
	grep -q "unknown strategy 'no-such-strategy'" "$tmp/o" || fail "no reason for a bad strategy"
	grep -q "fast-htm" "$tmp/o" || fail "the valid names are not listed"
	run 2 "$tmp/o" --load ./no-such-lib.so --strategy fast
	grep -q "no-such-lib.so" "$tmp/o" || fail "no dlerror() for a missing library"
	run 2 "$tmp/o" --strategy fast --suites diff,nope
	run 2 "$tmp/o" --strategy fast --budget huge
	run 2 "$tmp/o" --suites diff
	run 2 "$tmp/o" --strategy fast --trace "$tmp/none.trace"
	printf 'dcsim-trace 1\ndput /nope\n' >"$tmp/bad.trace"
	run 2 "$tmp/o" --strategy fast --trace "$tmp/bad.trace"
	grep -q "bad.trace:2: no dentry '/nope'" "$tmp/o" || fail "no line number for a bad trace"
	echo "check-cli: bad usage exits 2 with the reason"
	;;
dies)
	so=$3
	for suite in diff explore; do
		run 1 "$tmp/o" --load "$so" --strategy dies --suites $suite --jobs 2
		grep -Eq "FAIL: $suite, strategy dies: (a process died|the process running unit [0-9]+ died of signal)" "$tmp/o" ||
			{ cat "$tmp/o" >&2; fail "$suite --jobs 2: a dead worker is not reported"; }
		grep -q "^replay: " "$tmp/o" || fail "$suite --jobs 2: no replay line for a dead worker"
		grep -q "$suite: dies: .* runs on 2 processes, FAILED" "$tmp/o" ||
			fail "$suite --jobs 2: the suite line does not say FAILED"
	done
	echo "check-cli: a --jobs worker killed by a signal fails the run"
	;;
orphan)
	# A child left behind by a killed dcsim-check would hang for ever:
	# strategy "hangs" pause()s in every suite's child after 200 puts.
	so=$3
	for jobs in 1 2; do
		"$bin" --load "$so" --strategy hangs --suites diff --jobs $jobs >"$tmp/o" 2>&1 &
		parent=$!
		children=
		for _ in $(seq 100); do
			children=$(children_of $parent)
			[ -n "$children" ] && break
			sleep 0.1
		done
		[ -n "$children" ] || { kill -9 $parent; cat "$tmp/o" >&2; fail "--jobs $jobs: no child in 10 s"; }
		sleep 1	# past the 200 puts: the children hang now
		kill -9 $parent
		wait $parent 2>/dev/null
		for _ in $(seq 50); do
			left=
			for c in $children; do alive $c && left="$left $c"; done
			[ -z "$left" ] && break
			sleep 0.1
		done
		if [ -n "$left" ]; then
			kill -9 $left
			fail "--jobs $jobs: child$left still running 5 s after dcsim-check was killed"
		fi
	done
	echo "check-cli: the children of a killed dcsim-check die with it (--jobs 1 and 2)"
	;;
many)
	# No silent cap: 48 strategies from one plugin all load and run, and
	# the kernel-code plugin loaded after them still registers k61.
	so=$3 kc=${4:-}
	run 0 "$tmp/o" --load "$so" --list
	n=$(grep -c '^ *many-[0-9]' "$tmp/o")
	[ "$n" -eq 48 ] || { cat "$tmp/o" >&2; fail "--list shows $n of the 48 strategies"; }
	run 0 "$tmp/o" --load "$so" --strategy many-47 --suites diff --budget quick
	if [ -n "$kc" ]; then
		run 0 "$tmp/o" --load "$so" --load "$kc" --strategy k61 --suites diff --budget quick
		grep -q "all checks passed" "$tmp/o" || { cat "$tmp/o" >&2; fail "k61 after 48 strategies"; }
	fi
	echo "check-cli: 48 strategies of one plugin load and run${kc:+, and k61 loads after them}"
	;;
planted)
	so=$3
	run 1 "$tmp/o" --load "$so" --strategy planted-nolru --suites diff
	cat "$tmp/o"
	for want in "FAIL: diff" "model:" "spec:" "dcsim-trace 1" "replay: "; do
		grep -q "$want" "$tmp/o" || fail "the report lacks '$want'"
	done
	if grep -q "first:\|second:" "$tmp/o"; then fail "first:/second: labels"; fi
	[ "$(grep -c '^replay: ' "$tmp/o")" -eq 1 ] || fail "want exactly one replay line"
	check=$(grep '^check: ' "$tmp/o")
	# The replay line, rerun as printed (its first word is the tool).
	line=$(sed -n 's/^replay: dcsim-check //p' "$tmp/o")
	eval "run 1 \"\$tmp/r\" $line"
	[ "$(grep '^check: ' "$tmp/r")" = "$check" ] || fail "the replay failed differently"
	# The printed trace, saved as a file, fails the same way.
	sed -n '/^dcsim-trace 1$/,/^replay: /p' "$tmp/o" | sed '$d' >"$tmp/saved.trace"
	run 1 "$tmp/t" --load "$so" --strategy planted-nolru --trace "$tmp/saved.trace"
	[ "$(grep '^check: ' "$tmp/t")" = "$check" ] || fail "the saved trace failed differently"
	# ... and passes on a correct strategy.
	run 0 "$tmp/t" --strategy lockref --trace "$tmp/saved.trace"
	# The explorer finds it too, in each mode, and the replay line reruns
	# that one execution.
	for mode in random pct; do
		run 1 "$tmp/e" --load "$so" --strategy planted-nolru --suites explore --explore-mode $mode
		cat "$tmp/e"
		[ "$(grep -c '^replay: ' "$tmp/e")" -eq 1 ] || fail "explore: want exactly one replay line"
		check=$(grep '^check: ' "$tmp/e")
		line=$(sed -n 's/^replay: dcsim-check //p' "$tmp/e")
		eval "run 1 \"\$tmp/r\" $line"
		[ "$(grep '^check: ' "$tmp/r")" = "$check" ] || fail "the $mode replay failed differently"
		grep -q "execution 1 of 1" "$tmp/r" || fail "the $mode replay ran more than one execution"
	done
	echo "check-cli: planted bug found by diff and explore; the replay lines and the saved trace reproduce it"
	;;
htm-never)
	so=$3
	run 1 "$tmp/o" --load "$so" --strategy htm-never --suites diff
	cat "$tmp/o"
	grep -q "none of its transactions committed" "$tmp/o" || fail "no word on 0 commits"
	[ "$(grep -c '^replay: ' "$tmp/o")" -eq 1 ] || fail "want exactly one replay line"
	run 1 "$tmp/e" --load "$so" --strategy htm-never --suites explore
	grep -q "none of its transactions committed" "$tmp/e" || fail "explore: no word on 0 commits"
	[ "$(grep -c '^replay: ' "$tmp/e")" -eq 1 ] || fail "explore: want exactly one replay line"
	echo "check-cli: an HTM strategy that never commits fails diff and explore"
	;;
nolock)
	so=$3
	for suite in diff explore stress misuse; do
		run 1 "$tmp/$suite" --load "$so" --strategy nolock-final --suites "$suite"
		# misuse expects one warning per bad put: its report is about
		# the state the refused slow path left, not the warning.
		[ "$suite" = misuse ] ||
		grep -q "dcsim_dput_locked_final().*spin_is_locked" "$tmp/$suite" ||
			{ cat "$tmp/$suite" >&2; fail "$suite: no warning naming dcsim_dput_locked_final()"; }
		[ "$(grep -c '^replay: ' "$tmp/$suite")" -ge 1 ] ||
			{ cat "$tmp/$suite" >&2; fail "$suite: no replay line"; }
	done
	echo "check-cli: dcsim_dput_locked_final() without d_lock fails every suite with the warning"
	;;
traces)
	dir=$3
	n=0
	for s in $("$bin" --list | awk '{print $1}'); do
		for t in "$dir"/*.trace; do
			run 0 "$tmp/o" --strategy "$s" --trace "$t"
			n=$((n + 1))
		done
	done
	[ "$n" -gt 0 ] || fail "no traces in $dir"
	echo "check-cli: $n trace replays passed"
	;;
*)
	fail "unknown mode $mode"
	;;
esac
