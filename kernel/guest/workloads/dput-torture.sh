#!/bin/sh
# The project's own dput() torture (kernel/guest/dput-torture.c) on the
# disk image's tree/ and scratch/.  tmpfs pins its dentries, so only the
# disk file systems are worth it.
#@ cc dput-torture.c
#@ fs ext2
exec /bin/dput-torture "$WL_DIR" "$WL_SECS" "$WL_CPUS"
