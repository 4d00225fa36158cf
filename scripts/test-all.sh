#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The whole test suite, from a clean clone on Debian 12 (what .ci/run runs):
#
#   1. packages            scripts/install-deps.sh --tests
#   2. build + meson test  --werror; unit, differential, concurrency (stress),
#                          bench smoke, and the qemu-user suite (x86-64 with
#                          forced HTM, ppc64le cross build under POWER9)
#   3. instrumented build         -Dinstrument=true: the deterministic explorer, the
#                          simulated HTM, the scenarios and planted bugs
#   4. sanitizers          scripts/sanitizers.sh: ASan+UBSan over everything,
#                          TSan over the stress tests
#   5. kernel              kernel/ci.sh: the patch series applied, checkpatch,
#                          built (debug, prod; patched, unpatched), six QEMU boots
#
# DCSIM_SKIP="kernel sanitizers" skips steps by name, for a quick local run.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
pass=0 fail=0 failed=""
t0=$SECONDS
stamp=$(mktemp)	# meson test logs newer than this are this run's
trap 'rm -f "$stamp"' EXIT

skipped() { case " ${DCSIM_SKIP:-} " in *" $1 "*) return 0 ;; esac; return 1; }
step() {	# name, command...
	local name=$1; shift
	if skipped "$name"; then
		echo "==== $name: skipped (DCSIM_SKIP)"
		return
	fi
	echo "==== $name [$((SECONDS - t0)) s]"
	if "$@"; then
		pass=$((pass + 1))
		echo "==== $name: ok [$((SECONDS - t0)) s]"
	else
		fail=$((fail + 1)); failed="$failed $name"
		echo "==== $name: FAILED [$((SECONDS - t0)) s]"
	fi
}

configure() {	# dir, options...
	local dir=$1; shift
	if [ -f "$dir/build.ninja" ]; then
		meson setup --reconfigure "$dir" "$@"
	else
		meson setup "$dir" "$@"
	fi
}

main_suite() {
	configure build-ci --werror &&
	ninja -C build-ci -j "$jobs" &&
	meson test -C build-ci --print-errorlogs --num-processes "$jobs"
}

check_suite() {
	configure build-ci-instr -Dinstrument=true -Dqemu_tests=disabled --werror &&
	ninja -C build-ci-instr -j "$jobs" &&
	meson test -C build-ci-instr --print-errorlogs --num-processes "$jobs"
}

step packages scripts/install-deps.sh --tests
step build-and-test main_suite
step instrumented-build check_suite
step sanitizers scripts/sanitizers.sh all
step kernel bash kernel/ci.sh

# The end of a CI log is often all that is shown: name what failed there.
if [ $fail != 0 ]; then
	echo "==== tests that did not pass (the end of each one's output):"
	python3 scripts/failed-tests.py --newer "$stamp" \
		build-ci build-ci-instr build-asan build-asan-check build-tsan build-tsan-check
fi
echo "==== test-all: done in $((SECONDS - t0)) s${failed:+; failed:$failed}"
echo "test-all: $pass passed, $fail failed"
[ $fail = 0 ]
