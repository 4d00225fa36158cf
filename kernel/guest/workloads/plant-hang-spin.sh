#!/bin/sh
# A planted hang (kernel/debug/plant-hang.patch): spin forever with a
# d_lock held.  The soft-lockup detector and RCU's stall detector must
# report it before the boot's time limit.
#@ hang
#@ fs tmpfs
#@ expect plant_hang: spinning with d_lock
#@ expect BUG: soft lockup - CPU#[0-9]+ stuck for
#@ expect rcu: INFO: rcu_[a-z]+ (self-)?detected stall
[ -e /sys/kernel/debug/plant_hang ] || { echo "no /sys/kernel/debug/plant_hang"; exit 1; }
echo spin > /sys/kernel/debug/plant_hang
