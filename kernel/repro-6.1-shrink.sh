#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Reproduce the 6.1 shrink_lock_dentry() finding on the real kernel, in
# QEMU (TCG, 4 CPUs, the debug flavour: lockdep, DEBUG_SPINLOCK), with the
# shrink-race workload on an ext2 image on a virtio disk.
#
#   kernel/repro-6.1-shrink.sh [--runs N] [--secs S] [--delay US]
#                              [--fix PATCH] [--set pristine|window|fix]...
#                              [--fs ext2|ext4] [--delays "US..."]
#
# Kernels (built by kernel/build.sh, incrementally in the debug object dir):
#   pristine  Debian's linux-source-6.1 as shipped
#   window    the same plus the debug-only patches of kernel/debug/: the
#             window knob (6.1-shrink-window.patch: a delay between
#             dropping d_lock and taking the parent's, and three counters)
#             and the planted hang (unused here)
#   fix       the fix (--fix, default kernel/stable-6.1/ from its series)
#             under the same debug-only patches
# Boots, N each (default 5), S seconds of shrink-race each (default 20),
# on an ext2 image (--fs ext4 for ext4) on a virtio disk:
# pristine with no delay; window and fix with delay 0 and delay US
# (default 2000), or with each delay of --delays.  A boot "hits" when the kernel log has lockdep's "bad
# unlock balance", DEBUG_SPINLOCK's "spinlock already unlocked"/"wrong
# CPU", or the knob's "killing positive ... without its i_lock".  Prints
# one row per boot and "M of N boots hit" per kernel and delay, and exits
# non-zero if a boot of the fixed kernel hit or failed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
root=${KBUILD_ROOT:-$repo/build-kernel}
runs=5
secs=20
delay=2000
fix=""
sets=""
fs=ext2
delays_opt=""
if [ -f "$here/stable-6.1/series" ]; then
	fix=$here/stable-6.1/$(grep -v '^#' "$here/stable-6.1/series" | head -1)
fi

while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--secs) secs=$2; shift 2 ;;
	--delay) delay=$2; shift 2 ;;
	--fix) fix=$2; shift 2 ;;
	--set) sets="$sets $2"; shift 2 ;;
	--fs) fs=$2; shift 2 ;;
	--delays) delays_opt=$2; shift 2 ;;
	-h|--help) sed -n '4,28p' "$0"; exit 0 ;;
	*) echo "repro-6.1-shrink.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$sets" ] || sets="pristine window fix"
case $fs in ext2|ext4) ;; *) echo "repro-6.1-shrink.sh: --fs $fs: ext2 or ext4" >&2; exit 2 ;; esac
for v in "$runs" "$secs" "$delay" $delays_opt; do
	case $v in ''|*[!0-9]*) echo "repro-6.1-shrink.sh: $v is not a number" >&2; exit 2 ;; esac
done
for s in $sets; do
	case $s in
	pristine|window) ;;
	fix) [ -f "$fix" ] || { echo "repro-6.1-shrink.sh: no fix patch (--fix PATCH)" >&2; exit 2; } ;;
	*) echo "repro-6.1-shrink.sh: unknown set $s" >&2; exit 2 ;;
	esac
done

dbg=(--extra "$here/debug/6.1-shrink-window.patch" --extra "$here/debug/plant-hang.patch")
hit_re="bad unlock balance|spinlock already unlocked|spinlock wrong CPU|shrink window: killing positive"
work=$root/boot
bad=0
table=""

for s in $sets; do
	case $s in
	pristine) bargs=(); suffix=""; delays="0" ;;
	window) bargs=("${dbg[@]}"); suffix=6.1-shrink-window+plant-hang; delays=${delays_opt:-0 $delay} ;;
	fix)
		bargs=(--extra "$fix" "${dbg[@]}")
		suffix=$(basename "$fix" .patch)+6.1-shrink-window+plant-hang
		delays=${delays_opt:-0 $delay} ;;
	esac
	echo "== $s: kernel/build.sh --tree 6.1 --flavour debug --variant unpatched ${bargs[*]}"
	if ! bash "$here/build.sh" --tree 6.1 --flavour debug --variant unpatched "${bargs[@]}"; then
		echo "repro-6.1-shrink.sh: build of $s failed" >&2
		exit 1
	fi
	for d in $delays; do
		hits=0
		for i in $(seq 1 "$runs"); do
			iargs=()
			[ -z "$suffix" ] || iargs=(--image "$suffix")
			out=$(bash "$here/boot-test.sh" --tree 6.1 --flavour debug --run unpatched \
				--workload shrink-race --fs "$fs" "${iargs[@]}" --arg "$d" --secs "$secs" 2>/dev/null |
				grep -E "^(PASS|FAIL) ")
			name=$(echo "$out" | sed -E 's/^(PASS|FAIL) ([^: ]+).*/\2/')
			# Each boot's log is kept under its own name: the boot test
			# reuses one name per kernel and delay.
			log=$work/repro-6.1-shrink/$s-$fs-delay$d-run$i.log
			mkdir -p "$(dirname "$log")"
			cp "$work/$name.log" "$log" 2>/dev/null || : > "$log"
			n=$(grep -cE "$hit_re" "$log" 2>/dev/null)
			counters=$(sed -n 's/^shrink-race: window opened \(.*\)$/opened \1/p' "$log" | tail -1)
			ops=$(sed -n 's/^shrink-race: creates \([0-9]*\).*/creates \1/p' "$log" | tail -1)
			verdict=clean
			[ "${n:-0}" -gt 0 ] && { verdict=HIT; hits=$((hits + 1)); }
			# Anything else wrong (no finish, a workload error, another splat)?
			other=$(echo "$out" | grep -oE "hang\([^)]*\)|no-BOOT-TEST-DONE|workload-failed|not-[0-9]+-cpus" | tr '\n' ' ')
			echo "$s delay=$d run $i: $verdict (${n:-0} report lines; ${counters:-no counters}; ${ops:-no ops}) ${other}log $log"
			if [ "$s" = fix ] && { [ $verdict = HIT ] || [ -n "$other" ]; }; then
				bad=1
			fi
			[ -z "$other" ] || [ "$s" = fix ] || echo "  (boot problem: $other)"
			if [ $verdict = HIT ]; then
				grep -nE -A12 "$hit_re" "$log" | head -40 | sed 's/^/    /'
			fi
		done
		table="$table$s delay=${d}us: $hits of $runs boots hit"$'\n'
	done
done
echo "== summary (${secs} s of shrink-race per boot on $fs, 4 CPUs, TCG)"
printf '%s' "$table"
exit $bad
