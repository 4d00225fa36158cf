# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by check-cli.sh and check-jobs.sh: the dcsim-check runner they
# share.  The caller sets $bin (dcsim-check), $tmp and $me (its name, for
# messages) first.

fail() { echo "$me: $*" >&2; exit 1; }

# run EXPECTED-RC OUT-FILE ARGS...: run dcsim-check (stdout and stderr, where
# its progress and reports go, into OUT-FILE), check its exit status.
run() {
	want=$1 out=$2
	shift 2
	"$bin" "$@" >"$out" 2>&1
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		cat "$out" >&2
		fail "dcsim-check $* exited $rc, want $want"
	fi
}
