#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# run-examples.sh BUILD_DIR EXAMPLES_DIR
#
# The user's path, end to end: install the instrumented build into a temporary
# directory, build examples/ there against it with pkg-config (as an
# outside project would), then run the installed dcsim-check on every
# example strategy.  The correct one must pass (exit 0); each buggy one
# must fail (exit 1) with a report whose replay command line, run again,
# fails (exit 1) again.
#
# Exit: 0 passed, 1 failed, 77 skipped (no dcsim-check installed by this
# build, not an instrumented build, or no make/cc/pkg-config/meson), 99 setup error.
# Environment: MESON (the meson command), DCSIM_EXAMPLES_BUDGET (default
# quick), DCSIM_EXAMPLES_KEEP=1 (keep the temporary directory).

set -u

build=${1:?usage: run-examples.sh BUILD_DIR EXAMPLES_DIR}
src=${2:?usage: run-examples.sh BUILD_DIR EXAMPLES_DIR}
meson=${MESON:-meson}
budget=${DCSIM_EXAMPLES_BUDGET:-quick}

say() { echo "run-examples: $*"; }
skip() { say "SKIP: $*"; exit 77; }

for tool in make cc pkg-config "$meson"; do
	command -v "$tool" >/dev/null 2>&1 || skip "'$tool' not found"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dcsim-examples.XXXXXX") || exit 99
if [ "${DCSIM_EXAMPLES_KEEP:-0}" = 1 ]; then
	say "keeping $tmp"
else
	trap 'rm -rf "$tmp"' EXIT
fi
root=$tmp/root

# 1. A prefix install of this build (DESTDIR style: the prefix as configured).
if ! "$meson" install -C "$build" --no-rebuild --quiet --destdir "$root" >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	say "FAIL: meson install --destdir failed"
	exit 1
fi

# The instrumented flavour may install as dcsim-instrumented.pc; try it first, then dcsim.pc.
# meson puts it under <prefix>/lib/<multiarch>/pkgconfig on Debian.
pc=$(find "$root" -name dcsim-instrumented.pc | head -n 1)
[ -n "$pc" ] || pc=$(find "$root" -name dcsim.pc | head -n 1)
[ -n "$pc" ] || { say "FAIL: no dcsim-instrumented.pc or dcsim.pc installed"; exit 1; }
pcdir=$(dirname "$pc")
module=$(basename "$pc" .pc)
libdir=$(dirname "$pcdir")
config=$(find "$root" -path '*/dcsim/config.h' | head -n 1)
grep -Eq '^#define DCSIM_INSTRUMENT 1' "$config" 2>/dev/null ||
	skip "not an instrumented build ($config has no DCSIM_INSTRUMENT 1)"
say "installed into $root; pkg-config module $module in $pcdir"

# 2. Build the examples outside the source tree, as an outside project.
cp -R "$src" "$tmp/ex" || exit 99
if ! (cd "$tmp/ex" && PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_PATH=$pcdir \
	make DCSIM_PC="$module") >"$tmp/make.log" 2>&1; then
	cat "$tmp/make.log"
	say "FAIL: the examples do not build against the installed $module"
	exit 1
fi
say "examples built against $module: $(cd "$tmp/ex" && echo lib*.so)"

# 3. The installed checker.
checker=$(find "$root" -type f -name dcsim-check -perm -u+x | head -n 1)
[ -n "$checker" ] || skip "dcsim-check is not installed by this build (examples built, not checked)"
bindir=$(dirname "$checker")
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$bindir:$PATH"

failed=0

# run NAME LOG: dcsim-check on libNAME.so, in the examples directory.
run() {
	(cd "$tmp/ex" && dcsim-check --load "./lib$1.so" --strategy "$1" --budget "$budget") >"$2" 2>&1
}

# The replay command line of a report: the text after a "replay:" marker
# that runs dcsim-check, else a line that starts with dcsim-check (after
# optional VAR=value words) and has options.
replay_line() {
	line=$(sed -n 's/^.*replay:[[:space:]]*//p' "$1" | grep 'dcsim-check' | head -n 1)
	[ -n "$line" ] ||
		line=$(grep -E '^[[:space:]]*([A-Za-z_][A-Za-z0-9_]*=[^[:space:]]*[[:space:]]+)*[^[:space:]]*dcsim-check[[:space:]]+-' "$1" | head -n 1)
	printf '%s\n' "$line"
}

say "dcsim-check --budget $budget: example-fast-htm must pass"
run example-fast-htm "$tmp/correct.log"
rc=$?
if [ "$rc" -ne 0 ]; then
	tail -n 60 "$tmp/correct.log"
	say "FAIL: example-fast-htm: exit $rc, expected 0"
	failed=1
else
	say "ok: example-fast-htm passed"
fi

for bug in nolru early-read txn-nolock norcu; do
	name=example-bug-$bug
	log=$tmp/$name.log
	run "$name" "$log"
	rc=$?
	if [ "$rc" -ne 1 ]; then
		tail -n 60 "$log"
		say "FAIL: $name: exit $rc, expected 1 (a check failed)"
		failed=1
		continue
	fi
	replay=$(replay_line "$log")
	case $replay in
	*--load*"$name"*) ;;
	*)
		tail -n 60 "$log"
		say "FAIL: $name: no replay line naming --load and the strategy in the report"
		failed=1
		continue
		;;
	esac
	(cd "$tmp/ex" && sh -c "$replay") >"$log.replay" 2>&1
	rrc=$?
	if [ "$rrc" -ne 1 ]; then
		tail -n 40 "$log.replay"
		say "FAIL: $name: replay '$replay' exited $rrc, expected 1"
		failed=1
		continue
	fi
	say "ok: $name caught; replay reproduces it: $replay"
done

[ "$failed" -eq 0 ] || { say "FAILED"; exit 1; }
say "passed"
exit 0
