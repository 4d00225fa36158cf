#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the kernels built by kernel/build.sh in QEMU and torture dput().
#
#   kernel/boot-test.sh [--tree 6.1|6.12|all] [--flavour debug|prod|all]
#                       [--run NAME]... [--kvm] [--secs N] [--timeout N]
#                       [--cpus N]
#
# Runs (per tree and flavour; both trees by default), default all three:
#   unpatched   the tree as Debian ships it
#   auto        patched, dcache_htm=auto: TCG has no RTM, so no attempts,
#               and the log says why auto stays off
#   force       patched, dcache_htm=force: attempts > 0, all abort,
#               fallbacks == aborts, and the results still right
#   bogus       (not in the default set) dcache_htm=bogus: warns, acts as auto
# With --kvm the guest runs under KVM with "-cpu host" and tsx=on, and the
# patched runs expect commits (use on TSX hardware only; see README.md).
#
# Each boot: N CPUs (default 4) as N sockets of one core, so that SeaBIOS's
# MP table lists them all (a bare "-smp 4" is one socket of 4 cores, and
# these ACPI-less kernels then bring up one CPU); the log must say
# "Brought up 1 node, N CPUs" and the guest program fails with fewer CPUs
# online.  A busybox initramfs with guest/dput-torture.c built static, an
# ext2 image from "mke2fs -d" as a virtio disk.  A run fails on any WARNING,
# BUG, Oops, lockdep report, KUnit failure, panic, hang (timeout) or wrong
# counter, and prints the guest log.  Prints "PASS <run>-<flavour>-<tree>"
# or "FAIL ...".
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
root=${KBUILD_ROOT:-$repo/build-kernel}
work=$root/boot
kvers="6.1 6.12"
flavours="debug prod"
runs=""
kvm=0
secs=${DPUT_SECS:-12}
tmo=${BOOT_TIMEOUT:-300}
cpus=${BOOT_CPUS:-4}

while [ $# -gt 0 ]; do
	case $1 in
	--tree) [ "$2" = all ] || kvers=$2; shift 2 ;;
	--flavour) [ "$2" = all ] || flavours=$2; shift 2 ;;
	--run) runs="$runs $2"; shift 2 ;;
	--kvm) kvm=1; shift ;;
	--secs) secs=$2; shift 2 ;;
	--timeout) tmo=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	-h|--help) sed -n '4,29p' "$0"; exit 0 ;;
	*) echo "boot-test.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$runs" ] || runs="unpatched auto force"

log() { echo "[boot $(date +%T)] $*" >&2; }

mkdir -p "$work"

# --- guest userspace -------------------------------------------------------
build_initramfs() {
	local ir=$work/initramfs
	if [ -f "$work/initramfs.cpio.gz" ] &&
	   [ "$work/initramfs.cpio.gz" -nt "$here/guest/dput-torture.c" ] &&
	   [ "$work/initramfs.cpio.gz" -nt "$0" ]; then
		return
	fi
	log "building initramfs"
	rm -rf "$ir"
	mkdir -p "$ir"/{bin,dev,proc,sys,mnt,tmp}
	gcc -O2 -Wall -Wextra -Werror -static -pthread \
		-o "$ir/dput-torture" "$here/guest/dput-torture.c" || exit 1
	cp /bin/busybox "$ir/bin/busybox"
	for a in sh mount umount cat sed echo reboot sync sleep ls; do
		ln -s busybox "$ir/bin/$a"
	done
	cat > "$ir/init" <<'INIT'
#!/bin/sh
# Environment from the kernel command line: dput_secs, dput_cpus.
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t debugfs debugfs /sys/kernel/debug
mount -t devtmpfs dev /dev
stats() {
	f=/sys/kernel/debug/dcache_htm/stats
	[ -f $f ] && sed "s/^/STATS-$1 /" $f
}
echo "GUEST: cmdline $(cat /proc/cmdline)"
if mount -t ext2 /dev/vda /mnt; then
	stats BEFORE
	/dput-torture /mnt "${dput_secs:-10}" "${dput_cpus:-1}"
	echo "TORTURE-RC $?"
	stats AFTER
	umount /mnt && echo "UMOUNT-OK"
else
	echo "TORTURE-RC mount-failed"
fi
echo "BOOT-TEST-DONE"
sync
reboot -f
INIT
	chmod +x "$ir/init"
	(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initramfs.cpio.gz.tmp"
	mv "$work/initramfs.cpio.gz.tmp" "$work/initramfs.cpio.gz"
}

build_disk() {
	local st=$work/disk-root d f
	[ -f "$work/disk.img" ] && [ "$work/disk.img" -nt "$0" ] && return
	log "building ext2 image"
	rm -rf "$st"
	mkdir -p "$st/scratch"
	for d in $(seq 0 15); do
		mkdir -p "$st/tree/d$d"
		for f in $(seq 0 31); do
			echo "d$d/f$f" > "$st/tree/d$d/f$f"
		done
	done
	rm -f "$work/disk.img"
	mke2fs -q -F -t ext2 -b 1024 -N 2048 -d "$st" "$work/disk.img" 16M > /dev/null || exit 1
}

# --- one boot ----------------------------------------------------------------
# stat <file> <BEFORE|AFTER> <name>
stat_of() {
	sed -n "s/^.*STATS-$2 $3 \([0-9]*\).*$/\1/p" "$1" | tr -d '\r' | head -1
}
delta() {
	local a b
	a=$(stat_of "$1" BEFORE "$2"); b=$(stat_of "$1" AFTER "$2")
	echo $(( ${b:-0} - ${a:-0} ))
}

boot_one() {
	local kver=$1 flavour=$2 run=$3 variant=patched mode
	local name=$run-$flavour-$kver
	local out=$work/$name.log
	local img bad=""
	case $run in
	unpatched) variant=unpatched; mode="" ;;
	auto) mode="dcache_htm=auto" ;;
	force) mode="dcache_htm=force" ;;
	bogus) mode="dcache_htm=bogus" ;;
	*) echo "unknown run $run" >&2; return 1 ;;
	esac
	img=$root/$kver/images/$variant-$flavour/bzImage
	if [ ! -f "$img" ]; then
		echo "FAIL $name: no $img (run kernel/build.sh)"
		return 1
	fi
	cp "$work/disk.img" "$work/disk-run.img"

	local accel=(-accel tcg,thread=multi -cpu max) extra=""
	if [ $kvm = 1 ]; then
		accel=(-enable-kvm -cpu host)
		extra="tsx=on"
	fi
	log "booting $name ${accel[*]} $mode $extra"
	local t0=$SECONDS
	timeout "$tmo" qemu-system-x86_64 "${accel[@]}" \
		-smp "$cpus,sockets=$cpus,cores=1,threads=1" -m 512 \
		-nographic -no-reboot -monitor none -serial stdio \
		-kernel "$img" -initrd "$work/initramfs.cpio.gz" \
		-drive file="$work/disk-run.img",format=raw,if=virtio \
		-append "console=ttyS0 panic=-1 oops=panic $mode $extra dput_secs=$secs dput_cpus=$cpus" \
		< /dev/null > "$out" 2>&1
	local rc=$?
	tr -d '\r' < "$out" > "$out.tmp" && mv "$out.tmp" "$out"
	# Without printk timestamps, for the KTAP and marker checks.
	local plain=$work/$name.plain
	sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' "$out" > "$plain"
	log "$name: qemu exit $rc after $((SECONDS - t0)) s"

	[ $rc = 124 ] && bad="$bad hang(timeout ${tmo}s)"
	grep -q "^BOOT-TEST-DONE" "$out" || bad="$bad no-BOOT-TEST-DONE"
	grep -q "^TORTURE-RC 0" "$out" || bad="$bad torture-failed"
	grep -q "^dput-torture: PASS" "$out" || bad="$bad no-PASS"
	grep -q "^UMOUNT-OK" "$out" || bad="$bad umount-failed"
	grep -q "Brought up 1 node, $cpus CPUs" "$plain" || bad="$bad not-$cpus-cpus"
	grep -q "^dput-torture: $cpus CPUs online" "$out" || bad="$bad guest-not-$cpus-cpus"
	if grep -nE "WARNING:|BUG:|Oops|Kernel panic|Call Trace|kernel BUG|general protection|invalid opcode|INFO: task .* blocked|possible recursive locking|circular locking|inconsistent lock state|suspicious RCU usage|DEBUG_LOCKS_WARN_ON|bad unlock balance|lock held when returning|irq lock inversion|non-static key|lockdep is turned off|lockdep: " "$out" >&2; then
		bad="$bad kernel-splat"
	fi
	if grep -nE "^[[:space:]#]*not ok" "$plain" >&2; then
		bad="$bad kunit-not-ok"
	fi

	if [ "$variant" = patched ]; then
		# KUnit: the dcache_htm suite must have run and passed.
		grep -qE "^ok [0-9]+ dcache_htm$" "$plain" ||
			bad="$bad kunit-dcache_htm-missing"
		check_counters "$kver" "$flavour" "$run" "$out" || bad="$bad counters"
		# auto must say why it stays off; and KUnit's check of the auto
		# decision with a CPUID that claims RTM must refuse under TCG,
		# where XBEGIN executes but no transaction ever starts.
		if [ $kvm = 0 ]; then
			if [ "$run" = auto ] || [ "$run" = bogus ]; then
				grep -q "dcache: transactional dput off: " "$plain" ||
					bad="$bad no-auto-off-reason"
			fi
			grep -q "with RTM in CPUID, auto would be off: no trial transaction committed" "$plain" ||
				bad="$bad kunit-lying-cpuid-not-refused"
		fi
		if [ "$run" = bogus ]; then
			grep -q "dcache_htm=bogus not understood, using auto" "$plain" ||
				bad="$bad no-bad-parameter-warning"
			grep -q "^mode auto" <(sed -n 's/^STATS-AFTER //p' "$plain") ||
				bad="$bad mode-not-auto"
		fi
	fi

	if [ -n "$bad" ]; then
		echo "---- guest log $out ----"
		tail -150 "$out"
		echo "---- end of guest log ----"
		echo "FAIL $name:$bad"
		return 1
	fi
	echo "PASS $name ($(grep -o 'Brought up 1 node, [0-9]* CPUs' "$plain" | head -1); $(grep '^dput-torture: ops' "$out"))"
	return 0
}

# Counter expectations; printed whether or not they hold.
check_counters() {
	local kver=$1 flavour=$2 run=$3 out=$4 ok=0
	local enabled attempts commits aborts fallbacks fh fl fk other
	enabled=$(stat_of "$out" AFTER enabled)
	attempts=$(delta "$out" attempts); commits=$(delta "$out" commits)
	aborts=$(delta "$out" aborts); fallbacks=$(delta "$out" fallbacks)
	fh=$(delta "$out" final_put_htm); fl=$(delta "$out" final_put_lockless)
	fk=$(delta "$out" final_put_locked); other=$(delta "$out" abort_other)
	echo "  counters $run-$flavour-$kver (workload delta): enabled=$enabled probe=$(stat_of "$out" AFTER htm_probe) trial_commits=$(stat_of "$out" AFTER htm_trial_commits) attempts=$attempts commits=$commits aborts=$aborts abort_other=$other fallbacks=$fallbacks final_put_htm=$fh final_put_lockless=$fl final_put_locked=$fk"
	expect() { if ! eval "$1"; then echo "  expected $1"; ok=1; fi; }
	expect "[ -n '$enabled' ]"
	expect "[ $fk -gt 0 ]"
	# Lockless final puts need lockref's cmpxchg, compiled out in debug.
	if [ "$flavour" = prod ]; then expect "[ $fl -gt 0 ]"; else expect "[ $fl -eq 0 ]"; fi
	expect "[ $fallbacks -eq $aborts ]"
	expect "[ $attempts -eq $((commits + aborts)) ]"
	if [ $kvm = 1 ] && [ "$flavour" = debug ] && [ "$run" != force ]; then
		# auto stays off under lock debugging (no cmpxchg lockref).
		expect "[ '$enabled' = 0 ]"
		grep -q "transactional dput off: lock debugging" "$out" ||
			{ echo "  expected the lock-debugging reason"; ok=1; }
	elif [ $kvm = 1 ] && [ "$run" != unpatched ]; then
		expect "[ '$enabled' = 1 ]"
		expect "[ $commits -gt 0 ]"
		expect "[ $fh -gt 0 ]"
	elif [ "$run" = auto ] || [ "$run" = bogus ]; then
		expect "[ '$enabled' = 0 ]"
		expect "[ $(stat_of "$out" AFTER attempts) -eq 0 ]"
	elif [ "$run" = force ]; then
		expect "[ '$enabled' = 1 ]"
		expect "[ '$(stat_of "$out" AFTER htm_trial_commits)' = 0 ]"
		expect "[ $attempts -gt 0 ]"
		expect "[ $commits -eq 0 ]"
		expect "[ $fh -eq 0 ]"
	fi
	return $ok
}

build_initramfs
build_disk
pass=0 fail=0
for k in $kvers; do
	for f in $flavours; do
		for r in $runs; do
			if boot_one "$k" "$f" "$r"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
		done
	done
done
echo "boot-test: $pass passed, $fail failed"
[ $fail = 0 ]
