#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Public headers carry no build flavour: include/dcsim/*.h names neither
# the instrumented build's macro (DCSIM_INSTRUMENT) nor its old name
# (DCSIM_CHECK...), so that "check" means the checker only and a program
# sees one API whichever library it links.  What differs between the
# flavours lives in include/dcsim/flavour/{normal,instrumented}/, copied
# to <dcsim/flavour/*.h> by the build, which this test does not read.
#
#   tests/public-headers.sh SRCDIR        check SRCDIR/include/dcsim
#   tests/public-headers.sh --self-test   a planted name must be found
set -u
scan() {	# dir: print offending lines, exit 1 if any
	out=$(grep -rnE '\bDCSIM_(INSTRUMENT|CHECK)[A-Z_]*\b' "$1" --include='*.h' \
		--exclude-dir=flavour)
	[ -z "$out" ] && return 0
	printf '%s\n' "$out" | sed 's/$/: a flavour name in a public header/'
	return 1
}
if [ "${1:-}" = --self-test ]; then
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	mkdir -p "$t/flavour/instrumented"
	printf '#define DCSIM_H_CHECKER\nenum { DCSIM_BUDGET_QUICK };\n' >"$t/ok.h"
	printf '#ifdef DCSIM_INSTRUMENT\n#endif\n' >"$t/flavour/instrumented/ok.h"
	scan "$t" || { echo "public-headers: FAIL: a clean tree was refused"; exit 1; }
	for bad in '#ifdef DCSIM_INSTRUMENT' '#if DCSIM_CHECK' 'enum { DCSIM_CHECKER_QUICK };'; do
		printf '%s\n' "$bad" >"$t/bad.h"
		if scan "$t" >/dev/null; then
			echo "public-headers: FAIL: '$bad' in a public header was not found"
			exit 1
		fi
	done
	echo "public-headers: self-test ok (a clean tree passes, 3 planted names found)"
	exit 0
fi
scan "${1:?usage: $0 SRCDIR | --self-test}/include/dcsim" || exit 1
echo "public-headers: no flavour name in include/dcsim"
