#!/bin/sh
# Cross-build dcsim for ppc64le and run its suites under qemu-ppc64le
# -cpu power9 (the cross file's exe_wrapper): with HTM off, then forced.
set -eu
src=$1 bld=$2
if [ ! -f "$bld/build.ninja" ]; then
	meson setup "$bld" "$src" --cross-file "$src/cross/ppc64le-linux-gnu.txt" \
		-Dqemu_tests=disabled --werror
fi
ninja -C "$bld"
run() {
	echo "== ppc64le: DCSIM_HTM=$1 =="
	DCSIM_HTM=$1 DCSIM_TEST_EXPECT=$2 meson test -C "$bld" --no-rebuild --print-errorlogs \
		--suite unit --suite differential --suite stress
}
run off off
run force abort
# The probe must see no HTM in AT_HWCAP2 and decode the forced aborts.
out=$(DCSIM_HTM=force qemu-ppc64le -cpu power9 "$bld/tools/dcsim-htm-probe")
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -q "1000 transactions: 0 committed, 1000 aborted" || exit 1
printf '%s\n' "$out" | grep -q "aborted (nested): 1000" || { echo "FAIL: TEXASR not decoded as QEMU sets it"; exit 1; }
