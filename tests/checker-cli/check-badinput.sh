#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Bad input is refused (docs/no-wrong-pass.md): each input that once ran
# as a wrong pass, a wrapped number or lost text is here, and must exit 2
# with a message naming the option, or the file, line and field.
#   check-badinput.sh options DCSIM_CHECK NO_STRATEGY_SO
#   check-badinput.sh trace DCSIM_CHECK
#   check-badinput.sh bug DCSIM_CHECK CORPUS_PY
set -u
mode=$1
bin=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
me="check-badinput $mode"
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"

# want2 TEXT ARGS...: exit 2, and TEXT in what it printed.
want2() {
	text=$1
	shift
	run 2 "$tmp/o" "$@"
	grep -qF -- "$text" "$tmp/o" || { cat "$tmp/o" >&2; fail "dcsim-check $*: no '$text'"; }
}

case $mode in
options)
	want2 "bad --seed '-1'" --strategy fast --seed -1
	want2 "bad --seed '18446744073709551616': out of range" --strategy fast --seed 18446744073709551616
	want2 "bad --seed '010'" --strategy fast --seed 010
	want2 "bad --seed ' 5'" --strategy fast --seed ' 5'
	want2 "bad --execution-seed '-5'" --strategy fast --suites explore \
		--scenario unlink-alias --explore-mode random --execution-seed -5
	want2 "bad --pct-steps '-1'" --strategy fast --suites explore \
		--scenario unlink-alias --explore-mode pct --pct-steps -1
	want2 "bad --jobs '4294967297'" --strategy fast --jobs 4294967297
	want2 "bad --diff-steps '1001'" --strategy fast --diff-steps 1001
	want2 "bad --shard '1/-2'" --strategy fast --shard 1/-2
	# A scenario name that is none, or none of this strategy: an error, never "0 explorations, ok".
	want2 "--scenario 'prune-vs-dorp/fast/off' is no scenario of strategy fast" \
		--strategy fast --suites explore --scenario prune-vs-dorp/fast/off \
		--explore-mode random --execution-seed 1
	want2 "--scenario 'unlink-alias/locked/off' is no scenario of strategy fast" \
		--strategy fast --suites explore --scenario unlink-alias/locked/off \
		--explore-mode random --execution-seed 1
	# The short form a FAIL line prints: one HTM configuration, so it names one execution.
	run 0 "$tmp/o" --strategy fast --suites explore --scenario unlink-alias \
		--explore-mode random --execution-seed 1
	grep -q "explore: fast: 1 explorations, ok" "$tmp/o" || fail "the short form ran nothing"
	# With three HTM configurations it is ambiguous: the full names are listed.
	want2 "SCENARIO/fast-htm/HTM" --strategy fast-htm --suites explore --scenario unlink-alias \
		--explore-mode random --execution-seed 1
	want2 "registered no dput strategy" --load "$3" --list
	echo "$me: every bad option exits 2 with its name"
	;;
trace)
	printf 'dcsim-trace 1\nalloc /a\nprune 010\n' >"$tmp/octal.trace"
	want2 "octal.trace:3: prune: count '010'" --strategy fast --trace "$tmp/octal.trace"
	printf 'dcsim-trace 1\nalloc /a\nprune -1\n' >"$tmp/neg.trace"
	want2 "neg.trace:3: prune: count '-1'" --strategy fast --trace "$tmp/neg.trace"
	printf 'dcsim-trace 1\nalloc /a\ndget /a#0\n' >"$tmp/ref0.trace"
	want2 "ref0.trace:3: no dentry '/a#0'" --strategy fast --trace "$tmp/ref0.trace"
	printf 'dcsim-trace 1\nalloc /a\ndget /a#010\n' >"$tmp/ref8.trace"
	want2 "ref8.trace:3: no dentry '/a#010'" --strategy fast --trace "$tmp/ref8.trace"
	printf 'dcsim-trace 1\nalloc /a\000 ignored\n' >"$tmp/nul.trace"
	want2 "nul.trace:2: NUL byte" --strategy fast --trace "$tmp/nul.trace"
	# Paths longer than 255 characters are compared whole.
	n=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
	{
		echo 'dcsim-trace 1'
		echo "alloc /$n"
		echo "alloc /$n/$n"
		echo "alloc /$n/$n/$n"
		echo "dget /$n/$n/$n"
		echo "dput /$n/$n/$n"
	} >"$tmp/long-ok.trace"
	run 0 "$tmp/o" --strategy fast --trace "$tmp/long-ok.trace"
	{
		echo 'dcsim-trace 1'
		echo "alloc /$n"
		echo "alloc /$n/$n"
		echo "alloc /$n/$n/$n"
		echo "dput /$n/$n/${n}yy"
	} >"$tmp/long.trace"
	want2 "long.trace:5: no dentry '/$n/$n/${n}yy'" --strategy fast --trace "$tmp/long.trace"
	echo "$me: every bad trace exits 2 with its file and line"
	;;
bug)
	py=$3
	base() {
		cat <<'EOT'
commit: 89dc77bcdabf
subject: vfs: fix dentry LRU list handling and nr_dentry_unused accounting
fixed-in: v3.12-rc1
id-check: verified
verified-by: a test of the parser
class: counter-drift
kind: b
fault: DCSIM_DCACHE_FAULT_LRU_ACCOUNTING
expect: caught
catch: diff
needs: the model fault
strategies: fast
plant: 89dc77bcdabf-lru-accounting
suites: diff
status: a test of the parser
EOT
	}
	# bad NAME TEXT: the corpus of one entry NAME.bug (in $tmp/NAME/) exits 2 saying TEXT.
	bad() {
		want2 "$2" --corpus "$tmp/$1"
	}
	entry() {
		mkdir -p "$tmp/$1"
		cat >"$tmp/$1/$1.bug"
	}
	base | sed 's/$/\r/' | entry crlf
	bad crlf "crlf.bug:1: carriage return"
	{ base; printf 'note: a\000strategies: locked\n'; } | entry nul
	bad nul "nul.bug:16: NUL byte"
	{ base; echo 'sched: bogus'; } | entry sched
	bad sched "sched.bug:16: sched must be fair, strict, rt or window, not 'bogus'"
	{ base; echo 'budget: bogus'; } | entry budget
	bad budget "budget.bug:16: budget must be quick, default or soak, not 'bogus'"
	base | sed 's/^strategies: fast$/strategies: fast s2 s3 s4 s5 s6 s7 s8 s9 s10 s11 s12 s13 s14 s15 s16 s17/' | entry words17
	bad words17 "words17.bug:12: strategies: 17 words, the runner takes at most 16"
	{ base; echo 'suites: explore'; } | entry twice
	bad twice "twice.bug:16: field 'suites' given twice"
	{ base; echo 'colour: blue'; } | entry unknown
	bad unknown "unknown.bug:16: unknown field 'colour'"
	base | sed 's/^suites: diff$/suites: explore:unlink-alias,nosuch/' | entry scn
	bad scn "scn.bug:14: suites: no explore scenario 'nosuch'"
	base | sed 's/^plant: .*/plant: no-such-fault/' | entry plant
	bad plant "plant.bug:13: plant: no model fault 'no-such-fault'"
	# A note longer than any line buffer stays a note: nothing after byte 2047 becomes a field.
	{ base; printf 'note: %2100s strategies: locked\n' x; } | entry longnote
	python3 "$py" --dump "$tmp/longnote" >"$tmp/dump" || fail "corpus.py --dump longnote failed"
	grep -qx 'strategies 12 fast' "$tmp/dump" || { cat "$tmp/dump" >&2; fail "the long note became a field"; }
	echo "$me: every bad .bug exits 2 with its file, line and field"
	;;
esac
