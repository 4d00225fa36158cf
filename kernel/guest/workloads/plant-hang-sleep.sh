#!/bin/sh
# A planted hang (kernel/debug/plant-hang.patch): one task sleeps forever
# with a mutex held, a second blocks on the mutex.  The hung-task detector
# must report them before the boot's time limit.
#@ hang
#@ fs tmpfs
#@ expect plant_hang: sleeping with a mutex held
#@ expect INFO: task .* blocked for more than [0-9]+ seconds
[ -e /sys/kernel/debug/plant_hang ] || { echo "no /sys/kernel/debug/plant_hang"; exit 1; }
echo sleep > /sys/kernel/debug/plant_hang &
sleep 2
echo sleep > /sys/kernel/debug/plant_hang &
wait
