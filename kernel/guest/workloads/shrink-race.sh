#!/bin/sh
# The 6.1 shrink_lock_dentry() window from user space
# (kernel/guest/shrink-race.c); WL_ARG is the debug-only delay in
# microseconds (needs an image built with kernel/debug/6.1-shrink-window.patch).
#@ cc shrink-race.c
#@ fs ext2
exec /bin/shrink-race "$WL_DIR" "$WL_SECS" "$WL_CPUS" "${WL_ARG:-0}"
