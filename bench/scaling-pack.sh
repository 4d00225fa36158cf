#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/scaling-pack.sh BUILD DEST: put what bench/scaling-run.sh needs on
# a machine without liburcu into DEST: the built dcsim-bench (libdcsim is
# linked in statically) and the shared libraries it loads that are not
# glibc's (liburcu-memb, liburcu-common, libjansson), found with ldd.
set -eu
[ $# = 2 ] || { echo "usage: $0 BUILD DEST" >&2; exit 2; }
build=$1 dest=$2
bench=$build/bench/dcsim-bench
[ -x "$bench" ] || { echo "$0: $bench not built" >&2; exit 1; }
rm -rf "$dest"; mkdir -p "$dest/lib"
cp "$bench" "$dest/"
ldd "$bench" | awk '$3 ~ /^\// {print $3}' | while read -r so; do
	case $(basename "$so") in
	libc.so*|libm.so*|libpthread.so*|libdl.so*|ld-linux*) ;;
	*) cp -L "$so" "$dest/lib/" ;;
	esac
done
cp "$(dirname "$0")/scaling-run.sh" "$dest/"
ls -l "$dest" "$dest/lib"
