#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Self-test of kernel/boot-test.sh's verdicts, without a kernel: a fake
# qemu-system-x86_64 (first in PATH) prints the guest log of a chosen
# scenario and answers the monitor's "info registers -a", and fake images
# (an empty bzImage and a small System.map) stand in for build.sh's.
# Checks that a clean run passes, that a kernel splat, a failed workload,
# a hang-detector report and wrong counters fail it, that a planted hang
# passes only when every expected report is there (and is stopped early),
# and that the diagnosis (sysrq over the serial line, registers, the RIP
# resolved to a symbol) lands in the log.
#
#   kernel/test-boot-harness.sh        # prints "harness: N passed, M failed"
#   HARNESS_ONLY="splat hang-detected" kernel/test-boot-harness.sh
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/boot-harness.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export KBUILD_ROOT=$tmp/root
# Short pauses: the fake guest answers at once.
export BOOT_DIAG_PAUSE=1 BOOT_DIAG_LEAD=10 BOOT_DIAG_GRACE=3
mkdir -p "$tmp/bin"
pass=0 fail=0

for img in unpatched-debug patched-debug unpatched-debug+plant-hang unpatched-debug+6.1-shrink-window+plant-hang; do
	d=$KBUILD_ROOT/6.1/images/$img
	mkdir -p "$d"
	: > "$d/bzImage"
	printf '%s\n' "ffffffff81000000 T _text" "ffffffff81000100 T fake_spin_with_lock" \
		"ffffffff81000200 T fake_other" > "$d/System.map"
done

cat > "$tmp/bin/qemu-system-x86_64" <<'FAKE'
#!/bin/bash
# Fake QEMU: the guest log of $FAKE_SCENARIO on stdout.
append="" initrd=""
while [ $# -gt 0 ]; do
	case $1 in -append) append=$2; shift 2 ;; -initrd) initrd=$2; shift 2 ;; *) shift ;; esac
done
# The workloads the initramfs runs, in order, as its init would.
order=$(zcat "$initrd" | (cd "$(mktemp -d)" && cpio -i --quiet -d "*workloads/order" && cat workloads/order))
rc() {	# rc <status> <workload>: what the init prints after one workload
	echo "WORKLOAD-RC $1 $2"
}
k() { echo "[    1.000000] $*"; }
stats() {	# stats <BEFORE|AFTER> <enabled> <attempts> [<final_put_locked>]
	echo "STATS-$1 enabled $2"; echo "STATS-$1 htm_probe 1"; echo "STATS-$1 htm_trial_commits 0"
	echo "STATS-$1 attempts $3"; echo "STATS-$1 commits 0"; echo "STATS-$1 aborts $3"
	echo "STATS-$1 abort_other $3"; echo "STATS-$1 fallbacks $3"; echo "STATS-$1 final_put_htm 0"
	echo "STATS-$1 final_put_lockless 0"; echo "STATS-$1 final_put_locked ${4:-5}"
}
answer_monitor() {	# until killed: registers on request
	while IFS= read -r line; do
		case $line in
		*"info registers"*) echo "CPU#0"; echo "RIP=ffffffff81000123 RFL=00000246"
			echo "CPU#1"; echo "RIP=ffffffff81000234 RFL=00000246" ;;
		esac
	done
	sleep 1000
}
k "smp: Brought up 1 node, 4 CPUs"
echo "GUEST: cmdline $append"
case $FAKE_SCENARIO in
hang-*) ;;
*)
	k "ok 1 dcache_htm"
	# Under dcache_htm=off the KUnit case skips its CPUID check (unless
	# the scenario says it did not).
	if [[ $append == *dcache_htm=off* ]] && [ "$FAKE_SCENARIO" != off-not-skipped ]; then
		k "    ok 1 dcache_htm_test_auto # SKIP dcache_htm=off: no boot checks ran"
	else
		k "    # with RTM in CPUID, auto would be off: no trial transaction committed"
	fi
	;;
esac
case $FAKE_SCENARIO in
torture|torture-fail)
	# The default workload, dput-torture, on a patched force boot.
	stats BEFORE 1 10
	echo "dput-torture: 4 CPUs online, 4 required"
	echo "dput-torture: ops 12345 errors 0"
	if [ "$FAKE_SCENARIO" = torture ]; then echo "dput-torture: PASS"; rc 0 dput-torture
	else echo "dput-torture: FAIL"; rc 1 dput-torture; fi
	# A second workload in the same boot (dput-torture+stress-ng).
	for w in $order; do
		[ "$w" = dput-torture ] && continue
		echo "stress-ng: info:  [12] successful run completed in 10.00s"
		if [ "$FAKE_SCENARIO" = torture ]; then rc "${FAKE_SECOND_RC:-0}" "$w"; else rc 0 "$w"; fi
	done
	stats AFTER 1 900 80
	echo "UMOUNT-OK"; echo "BOOT-TEST-DONE"
	exit 0 ;;
clean|splat|wlfail|counters-off-ok|counters-off-bad|counters-force-ok|off-not-skipped)
	case $FAKE_SCENARIO in
	counters-off-ok|off-not-skipped) stats BEFORE 0 0 ;;
	counters-off-bad) stats BEFORE 0 0 ;;
	counters-force-ok) stats BEFORE 1 10 ;;
	esac
	echo "stress-ng: info:  [12] successful run completed in 10.00s"
	[ "$FAKE_SCENARIO" = splat ] && k "WARNING: bad unlock balance detected!"
	for w in $order; do
		if [ "$FAKE_SCENARIO" = wlfail ]; then rc 2 "$w"; else rc 0 "$w"; fi
	done
	case $FAKE_SCENARIO in
	counters-off-ok|off-not-skipped) stats AFTER 0 0 ;;
	counters-off-bad) stats AFTER 0 7 ;;
	counters-force-ok) stats AFTER 1 900 ;;
	esac
	echo "UMOUNT-OK"; echo "BOOT-TEST-DONE"
	exit 0 ;;
hang-detected)
	k "plant_hang: spinning with d_lock of plant_hang held"
	sleep 2
	k "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [sh:70]"
	k "rcu: INFO: rcu_preempt self-detected stall on CPU"
	answer_monitor ;;
hang-partial)
	k "plant_hang: spinning with d_lock of plant_hang held"
	k "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [sh:70]"
	answer_monitor ;;
hang-silent)
	answer_monitor ;;
esac
FAKE
chmod +x "$tmp/bin/qemu-system-x86_64"
export PATH=$tmp/bin:$PATH

# expect <PASS|FAIL> <scenario> <what the log must contain or -> <boot-test args...>
expect() {
	local want=$1 scen=$2 grepfor=$3 out verdict log t0=$SECONDS
	shift 3
	case " ${HARNESS_ONLY:-$scen} " in *" $scen "*) ;; *) return ;; esac
	out=$(FAKE_SCENARIO=$scen bash "$here/boot-test.sh" --tree 6.1 --flavour debug "$@" 2>/dev/null)
	verdict=$(echo "$out" | grep -oE "^(PASS|FAIL) [^ :]+" | head -1)
	log=$KBUILD_ROOT/boot/${verdict#* }.log
	if [ "${verdict%% *}" != "$want" ]; then
		echo "harness: FAILED $scen $*: wanted $want, got '${verdict:-nothing}'"
		echo "$out" | grep -E "^(PASS|FAIL)"
		fail=$((fail + 1))
	elif [ "$grepfor" != - ] && ! grep -qE "$grepfor" "$log" <(echo "$out"); then
		echo "harness: FAILED $scen $*: no '$grepfor' in the log or verdict"
		fail=$((fail + 1))
	else
		echo "harness: ok $scen: $verdict ($((SECONDS - t0)) s)"
		pass=$((pass + 1))
	fi
}

# The default workload and run names, as kernel/ci.sh's prod boots use them.
expect PASS torture "PASS force-debug-6.1 " --run force --secs 1
expect FAIL torture-fail "workload-failed" --run force --secs 1
# Two workloads in one boot, as kernel/ci.sh's debug boots run them: both
# must exit 0, and dput-torture's own checks still apply.
both=(--workload dput-torture+stress-ng --secs 1)
expect PASS torture "PASS force-debug-6.1-dput-torture\+stress-ng-ext2 " "${both[@]}" --run force
FAKE_SECOND_RC=3 expect FAIL torture "workload-failed\(stress-ng\)" "${both[@]}" --run force
expect FAIL torture-fail "workload-failed\(dput-torture\)" "${both[@]}" --run force
sn=(--workload stress-ng --secs 1)
expect PASS clean - "${sn[@]}" --run unpatched
expect FAIL splat "kernel-splat" "${sn[@]}" --run unpatched
expect FAIL wlfail "workload-failed" "${sn[@]}" --run unpatched
expect PASS counters-off-ok - "${sn[@]}" --run off
expect FAIL counters-off-bad "expected \[ 7 -eq 0 \]|counters" "${sn[@]}" --run off
expect PASS counters-force-ok "attempts=890" "${sn[@]}" --run force
# dcache_htm=off: KUnit's auto case must say it skipped its boot checks.
expect FAIL off-not-skipped "kunit-auto-not-skipped-under-off" "${sn[@]}" --run off
# A detector's report in an ordinary run: fails, diagnosed, stopped early.
expect FAIL hang-detected "RIP ffffffff81000123 is in fake_spin_with_lock" "${sn[@]}" --run unpatched --timeout 200
# A workload built from source (#@ cc), on an image with debug patches.
expect PASS clean "shrink-race-ext2\+6.1-shrink-window\+plant-hang-2000" --workload shrink-race \
	--image 6.1-shrink-window+plant-hang --arg 2000 --secs 1 --run unpatched
expect FAIL splat "kernel-splat" --workload shrink-race \
	--image 6.1-shrink-window+plant-hang --arg 2000 --secs 1 --run unpatched
ph=(--workload plant-hang-spin --image plant-hang --run unpatched)
expect PASS hang-detected "BOOT-TEST: diagnosing" "${ph[@]}" --timeout 200
expect FAIL hang-partial "no-report" "${ph[@]}" --timeout 20
expect FAIL hang-silent "no-report" "${ph[@]}" --timeout 20
echo "harness: $pass passed, $fail failed"
[ $fail = 0 ]
