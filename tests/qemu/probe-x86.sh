#!/bin/sh
# Under qemu-x86_64 -cpu max: CPUID shows no RTM, and with DCSIM_HTM=force
# every one of the trial transactions executes and aborts.
set -eu
qemu=$1 probe=$2
out=$(DCSIM_HTM=force "$qemu" -cpu max "$probe")
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -q "RTM (EBX bit 11): absent" || { echo "FAIL: RTM not reported absent"; exit 1; }
printf '%s\n' "$out" | grep -q "1000 transactions: 0 committed, 1000 aborted" ||
	{ echo "FAIL: expected every trial transaction to abort"; exit 1; }
out=$(DCSIM_HTM=auto "$qemu" -cpu max "$probe")
printf '%s\n' "$out" | grep -q "transactions not attempted" || { echo "FAIL: auto ran transactions"; exit 1; }
echo "qemu-x86_64: RTM absent, forced transactions all abort"
