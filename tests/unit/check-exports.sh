#!/bin/sh
# The shared library exports the dcsim_* API and nothing else.
set -eu
lib=$1
syms=$(nm -D --defined-only "$lib" | awk '{print $3}')
[ -n "$syms" ] || { echo "no dynamic symbols in $lib"; exit 1; }
bad=$(printf '%s\n' "$syms" | grep -v '^dcsim_' || true)
if [ -n "$bad" ]; then
	echo "exported symbols without the dcsim_ prefix:"
	printf '  %s\n' $bad
	exit 1
fi
echo "$(printf '%s\n' "$syms" | wc -l) symbols exported, all dcsim_*"
