#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The checkers' mutation run (docs/no-wrong-pass.md, "Mutation run").
#
# usage: scripts/mutate-checkers.sh [--scratch DIR] [MUTANT...]
#        scripts/mutate-checkers.sh --check
#
# Each tests/mutation/NAME.patch plants one plausible slip in a checker
# feature; its head says the feature and the tests that guard it:
#   # feature: the corpus runner
#   # tests: corpus-disagree
#   # targets: tests/unit/test-verify-gauges   (optional: what else to build)
# The tree (tracked and untracked files, as they are now) is copied to a
# scratch directory (default: a new temporary one; --scratch DIR reuses
# DIR and its build) and built there instrumented.  The guarding tests
# must pass on the unchanged copy; then every mutant is applied on its
# own, the copy rebuilt, and its tests run: a mutant is killed when one
# of them fails.  The worktree is never changed.
# --check only tells whether every mutant still applies to the tree as it
# is (no fuzz) and names its feature and tests (the test mutants-apply):
# a refactor that moves the code a mutant plants its slip in must bring
# the mutant along, or the mutation run stops at it.
# Exit: 0 every mutant killed, 1 a mutant survived (or the baseline failed,
# or, with --check, a mutant does not apply), 2 usage.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
scratch=
check_only=
while [ $# -gt 0 ]; do
	case $1 in
	--scratch) scratch=$2; shift 2 ;;
	--check) check_only=1; shift ;;
	-h|--help) sed -n '3,25p' "$0"; exit 0 ;;
	-*) echo "usage: $0 [--scratch DIR] [MUTANT...]" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $# -gt 0 ]; then
	mutants=
	for m in "$@"; do
		[ -f "$top/tests/mutation/$m.patch" ] || { echo "mutate: no mutant '$m'" >&2; exit 2; }
		mutants="$mutants $top/tests/mutation/$m.patch"
	done
else
	mutants=$(ls "$top"/tests/mutation/*.patch)
fi
if [ -n "$check_only" ]; then
	bad=0 n=0
	for m in $mutants; do
		n=$((n + 1))
		name=$(basename "$m" .patch)
		for field in feature tests mutant; do
			grep -q "^# $field: ." "$m" || { echo "mutate: $name: no '# $field:' line"; bad=1; }
		done
		if ! out=$(cd "$top" && patch -p1 --dry-run -F0 -f <"$m" 2>&1) ||
		   printf '%s\n' "$out" | grep -q 'offset\|fuzz'; then
			echo "mutate: $name does not apply cleanly to the tree:"
			printf '%s\n' "$out" | sed 's/^/  /'
			bad=1
		fi
	done
	[ $bad = 0 ] && echo "mutate: all $n mutants apply"
	exit $bad
fi
if [ -z "$scratch" ]; then
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/dcsim-mutate.XXXXXX")
fi
mkdir -p "$scratch/src"
# The copy: what git would commit now, without build directories.
(cd "$top" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf -) | (cd "$scratch/src" && tar -xf -)
b=$scratch/build
if [ ! -f "$b/build.ninja" ]; then
	meson setup "$b" "$scratch/src" -Dinstrument=true -Dqemu_tests=disabled >"$scratch/setup.log" 2>&1 ||
		{ tail -20 "$scratch/setup.log"; echo "mutate: meson setup failed"; exit 1; }
fi
tests_of() { sed -n 's/^# tests: //p' "$1"; }
targets_of() { sed -n 's/^# targets: //p' "$1"; }
all_tests=$(for m in $mutants; do tests_of "$m"; done | tr ' ' '\n' | sort -u | tr '\n' ' ')
# The tests' programs only, not the whole tree: the checkers' library, the
# tools and the plugins they load.
targets="tools/dcsim-check tests/checker-cli/libdies.so tests/checker-cli/libno-strategy.so
	tests/concurrency/test-explore-schedule $(for m in $mutants; do targets_of "$m"; done)"
build() {
	# shellcheck disable=SC2086
	nice -n 10 ninja -C "$b" -j2 $targets >"$scratch/build.log" 2>&1
}
runtests() {
	# shellcheck disable=SC2086
	meson test -C "$b" --no-rebuild --print-errorlogs $1 >"$scratch/test.log" 2>&1
}
echo "mutate: building $scratch (instrumented)"
build || { tail -30 "$scratch/build.log"; echo "mutate: the unchanged copy does not build"; exit 1; }
if ! runtests "$all_tests"; then
	grep -E "^ *[0-9]+/[0-9]+ " "$scratch/test.log"
	echo "mutate: the guarding tests fail on the unchanged copy: fix that first"
	exit 1
fi
killed=0 total=0 survivors=
for m in $mutants; do
	name=$(basename "$m" .patch)
	total=$((total + 1))
	(cd "$scratch/src" && patch -p1 -s <"$m") || { echo "mutate: $name does not apply"; exit 1; }
	verdict=SURVIVED
	if ! build; then
		verdict="killed (does not build)"
	elif ! runtests "$(tests_of "$m")"; then
		verdict="killed by $(grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT|ERROR)' "$scratch/test.log" |
			awk '{ print $4 }' | sort -u | tr '\n' ' ')"
	fi
	(cd "$scratch/src" && patch -p1 -R -s <"$m")
	case $verdict in
	killed*) killed=$((killed + 1)) ;;
	*) survivors="$survivors $name" ;;
	esac
	printf 'mutate: %-32s %-24s %s\n' "$name" "$(sed -n 's/^# feature: //p' "$m")" "$verdict"
done
build || true
echo "mutate: $killed of $total mutants killed${survivors:+; survivors:$survivors}"
[ "$killed" = "$total" ]
