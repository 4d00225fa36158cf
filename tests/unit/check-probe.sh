#!/bin/sh
# dcsim-htm-probe must report RTM exactly as the kernel sees this CPU, and
# never claim commits where the trial shows none.
set -eu
probe=$1
out=$(DCSIM_HTM=auto "$probe")
printf '%s\n' "$out"
if grep -qw rtm /proc/cpuinfo; then want=present; else want=absent; fi
printf '%s\n' "$out" | grep -q "RTM (EBX bit 11): $want" || {
	echo "FAIL: /proc/cpuinfo says RTM is $want, the probe disagrees"; exit 1; }
if [ "$want" = absent ]; then
	printf '%s\n' "$out" | grep -q "RTM is absent on this CPU" || { echo "FAIL: not said plainly"; exit 1; }
	printf '%s\n' "$out" | grep -q "transactions not attempted" || { echo "FAIL: trial ran"; exit 1; }
fi
# Bad input is an error, not a default.
if DCSIM_HTM=bogus "$probe" >/dev/null 2>&1; then echo "FAIL: DCSIM_HTM=bogus accepted"; exit 1; fi
if "$probe" --policy maybe >/dev/null 2>&1; then echo "FAIL: --policy maybe accepted"; exit 1; fi
if "$probe" --trials 0 >/dev/null 2>&1; then echo "FAIL: --trials 0 accepted"; exit 1; fi
out=$(DCSIM_HTM=off "$probe")
printf '%s\n' "$out" | grep -q "off -> NOT executed" || { echo "FAIL: policy off not reported"; exit 1; }
echo "probe agrees with /proc/cpuinfo (RTM $want)"
