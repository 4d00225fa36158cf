#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fuzz one parser (docs/no-wrong-pass.md, "Fuzzing").
#
# usage: tests/fuzz/run-fuzz.sh [--seconds N] [--corpus DIR] [--timeout N] [--log FILE]
#                               HARNESS BUILDDIR
#   HARNESS   parse (the number parser), trace (the trace parser), json
#             (dcsim-bench --from/--compare readers), bug (the .bug parser,
#             corpus/corpus.py, with bugfuzz.py)
#   BUILDDIR  a meson build directory (normal or instrumented) that has been
#             built: the harness links its libdcsim
#   --seconds N   how long (default 30; the suite's short run)
#   --corpus DIR  keep the grown corpus there (default: a temporary copy of
#             tests/fuzz/seeds/HARNESS, removed at the end)
#   --timeout N   an input that runs longer than N wall-clock seconds is a
#             finding (default 20; libFuzzer's timer is wall-clock, so a
#             long run niced on a loaded machine needs more)
#   --log FILE    keep libFuzzer's whole output there (its progress lines:
#             executions, cov/ft, corpus size, exec/s); default: only the
#             summary lines are printed
#
# The C harnesses are built here with clang and -fsanitize=fuzzer,address,
# undefined (CLANG, default clang-14, else clang); without a clang that has
# libFuzzer the run is skipped (exit 77).  Every regression input of
# tests/fuzz/seeds/HARNESS runs first.  Exit: 0 clean, 1 a finding (the
# input is kept, its path printed), 2 usage, 77 skipped.
set -eu
seconds=30
keep=
log=
timeout=20
while [ $# -gt 2 ]; do
	case $1 in
	--seconds) seconds=$2; shift 2 ;;
	--corpus) keep=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	*) echo "usage: $0 [--seconds N] [--corpus DIR] [--timeout N] [--log FILE] parse|trace|json|bug BUILDDIR" >&2; exit 2 ;;
	esac
done
[ $# -eq 2 ] || { echo "usage: $0 [--seconds N] [--corpus DIR] [--timeout N] [--log FILE] parse|trace|json|bug BUILDDIR" >&2; exit 2; }
h=$1
build=$(cd "$2" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
seeds=$src/tests/fuzz/seeds/$h
[ -d "$seeds" ] || { echo "run-fuzz: no harness '$h'" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	corpus=$keep
else
	corpus=$work/corpus
	mkdir -p "$corpus"
fi
cp "$seeds"/* "$corpus"/ 2>/dev/null || true

if [ "$h" = bug ]; then
	exec nice -n 10 python3 "$src/tests/fuzz/bugfuzz.py" "$src/corpus/corpus.py" "$seconds" \
		"$corpus" "$build/fuzz-findings"
fi

cc=${CLANG:-}
if [ -z "$cc" ]; then
	for c in clang-14 clang; do
		command -v "$c" >/dev/null 2>&1 && { cc=$c; break; }
	done
fi
[ -n "$cc" ] || { echo "run-fuzz: no clang: skipped"; exit 77; }
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' >"$work/probe.c"
if ! "$cc" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" >/dev/null 2>&1; then
	echo "run-fuzz: $cc has no libFuzzer (-fsanitize=fuzzer): skipped"
	exit 77
fi
lib=$(ls "$build"/src/libdcsim-instrumented.so "$build"/src/libdcsim.so 2>/dev/null | head -1)
[ -n "$lib" ] || { echo "run-fuzz: no libdcsim in $build/src: build it first" >&2; exit 2; }
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-I$src/include -I$build/include -I$src/src"
case $h in
parse) files="$src/tests/fuzz/fuzz-parse.c $src/src/base/parse.c"; libs= ;;
trace) files="$src/tests/fuzz/fuzz-trace.c $src/src/checker/trace.c $src/src/checker/spec.c
	$src/src/checker/diff-step.c $src/src/checker/spec-op.c $src/src/base/parse.c"
	flags="$flags -I$src/src/checker"; libs="$lib -Wl,-rpath,$(dirname "$lib")" ;;
json) files="$src/tests/fuzz/fuzz-json.c"
	for f in from compare report aggregate targets stats json plot outfile workloads bounds harness host sharing; do
		files="$files $src/bench/$f.c"
	done
	flags="$flags -I$src/bench"
	libs="$lib -Wl,-rpath,$(dirname "$lib") -ljansson -lm -lpthread"
	export FUZZ_JSON_GOOD="$seeds/hot-locked.json" ;;
esac
exe=$build/tests/fuzz/fuzz-$h
mkdir -p "$(dirname "$exe")"
# Built again only when a source, a header or the library is newer than it.
stale=
if [ ! -x "$exe" ]; then
	stale=1
else
	# shellcheck disable=SC2086
	for f in $files "$lib" $(find "$src/include" "$src/src/checker" "$src/bench" -name '*.h'); do
		[ "$f" -nt "$exe" ] && { stale=1; break; }
	done
fi
if [ -n "$stale" ]; then
	# shellcheck disable=SC2086
	nice -n 10 "$cc" $flags -o "$exe.tmp" $files $libs && mv "$exe.tmp" "$exe"
fi
case $log in ''|/*) ;; *) log=$PWD/$log ;; esac
cd "$work"
# One process: a finding stops the run; -print_final_stats for the figures.
rc=0
nice -n 10 "$exe" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$build/fuzz-findings-$h-" "$corpus" \
	>"$work/log" 2>&1 || rc=$?
[ -z "$log" ] || cp "$work/log" "$log"
grep -E '^#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb|ERROR:|SUMMARY:|Test unit written' "$work/log" || true
if [ $rc -ne 0 ]; then
	tail -60 "$work/log"
	echo "run-fuzz: $h: FINDING (exit $rc); the input: $build/fuzz-findings-$h-*"
	exit 1
fi
echo "run-fuzz: $h: clean for $seconds s"
