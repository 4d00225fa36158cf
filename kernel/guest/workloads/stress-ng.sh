#!/bin/sh
# stress-ng's dcache stressors, all at once, WL_INSTANCES instances each,
# for WL_SECS seconds, with their files in the file system under test.
# The procfs and sysfs stressors read /proc and /sys.  stress-ng is
# Debian's (/usr/bin/stress-ng, 0.15), copied in with its libraries.
#@ bin /usr/bin/stress-ng
#@ fs ext2
#@ expect stress-ng: info: .*successful run completed
online=$(grep -c '^processor' /proc/cpuinfo)
echo "stress-ng: $online CPUs online"
[ "$online" -ge "$WL_CPUS" ] || { echo "stress-ng: FAIL $online CPUs, $WL_CPUS wanted"; exit 1; }
args=""
for s in dentry dir rename link symlink open getdent filename sysfs procfs; do
	args="$args --$s $WL_INSTANCES"
done
mkdir -p "$WL_DIR/stress"
# shellcheck disable=SC2086
stress-ng $args --timeout "${WL_SECS}s" --temp-path "$WL_DIR/stress" \
	--metrics-brief --oomable --no-rand-seed
