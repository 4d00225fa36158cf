#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Sanitizer builds, runnable from a clean clone; exits non-zero on any failure.
#
#   scripts/sanitizers.sh [asan|tsan|all]   (default: all)
#
#  asan: ASan+UBSan, normal and check (-Dinstrument=true) builds, the whole
#        meson test suite of each, any UBSan report fatal.
#  tsan: TSan, normal and check builds, the real-thread stress suite (every
#        strategy; in the check build also the real threads' lock order
#        validator and its class table).
#        HTM is off (DCSIM_HTM=off): TSan's instrumentation would abort
#        every hardware transaction anyway, and cannot model one.
#        liburcu is not instrumented, so src/base/rcu.c annotates what RCU
#        guarantees (__tsan_acquire/__tsan_release) instead of suppressing
#        reports; no suppression file is used.
#
# Build directories: build-asan, build-asan-check, build-tsan, build-tsan-check
# (reused).
set -eu
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=${JOBS:-$(nproc)}

setup() {	# dir, meson options...
	dir=$1; shift
	if [ -d "$dir" ]; then
		meson setup --reconfigure "$dir" "$@" >/dev/null
	else
		meson setup "$dir" "$@" >/dev/null
	fi
	ninja -C "$dir" -j "$jobs" >/dev/null
}

run_asan() {
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	for check in false true; do
		dir=build-asan; [ "$check" = true ] && dir=build-asan-check
		echo "== ASan+UBSan, check=$check: $dir"
		# qemu_tests off: the emulated suites add nothing a sanitizer sees.
		setup "$dir" -Db_sanitize=address,undefined -Db_lundef=false -Dqemu_tests=disabled \
			-Dinstrument=$check -Dbuildtype=debugoptimized --werror
		# Sanitized code runs several times slower than the timeouts assume.
		meson test -C "$dir" --num-processes "$jobs" --print-errorlogs --timeout-multiplier 5
	done
}

run_tsan() {
	# halt_on_error: the first report fails the run.
	export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
	for check in false true; do
		dir=build-tsan; [ "$check" = true ] && dir=build-tsan-check
		echo "== TSan, check=$check: $dir, stress suite"
		setup "$dir" -Db_sanitize=thread -Db_lundef=false -Dqemu_tests=disabled \
			-Dinstrument=$check -Dbuildtype=debugoptimized --werror
		DCSIM_HTM=off meson test -C "$dir" --suite stress --print-errorlogs --timeout-multiplier 5
		# More threads than cores, time-bounded (ticket locks convoy when oversubscribed).
		DCSIM_HTM=off "./$dir/tests/concurrency/dcsim-stress" --threads 4 --seconds 2
	done
}

case $what in
asan) run_asan ;;
tsan) run_tsan ;;
all) run_asan; run_tsan ;;
*) echo "usage: $0 [asan|tsan|all]" >&2; exit 2 ;;
esac
echo "== sanitizers: all clean"
