#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# CI entry point for the kernel series: bash kernel/ci.sh
#
# Installs what it needs (Debian 12, apt-get), checks that the series
# applies to a fresh extraction and passes checkpatch --strict, builds the
# four kernels (kernel/build.sh), boots them (kernel/boot-test.sh), and ends
# with a line "N passed, M failed".  Exits non-zero if anything failed.
# "--checks-only" stops after the apply and checkpatch checks.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
root=${KBUILD_ROOT:-$repo/build-kernel}
tarball=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
pass=0 fail=0 failed=""
t_start=$SECONDS
checks_only=0
[ "${1:-}" = --checks-only ] && checks_only=1	# skip build and boots

step() { echo "==== kernel ci [$((SECONDS - t_start)) s]: $*"; }
ok() { pass=$((pass + 1)); echo "ok: $1"; }
ko() { fail=$((fail + 1)); failed="$failed $1"; echo "FAILED: $1"; }

summary() {
	echo "==== kernel ci: done in $((SECONDS - t_start)) s${failed:+; failed:$failed}"
	echo "kernel: $pass passed, $fail failed"
	echo "$pass passed, $fail failed"
	[ $fail = 0 ]
	exit $?
}

# --- packages ------------------------------------------------------------
pkgs="linux-source-6.1 qemu-system-x86 busybox-static e2fsprogs bc bison flex
      libelf-dev libssl-dev cpio gcc make libc6-dev xz-utils patch perl"
step "packages"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "installing:$missing"
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	export DEBIAN_FRONTEND=noninteractive
	if ! { $sudo apt-get update -q && $sudo apt-get install -y -q --no-install-recommends $missing; } > "/tmp/kernel-ci-apt.log" 2>&1; then
		tail -20 /tmp/kernel-ci-apt.log
		ko "apt-get install"
		summary
	fi
fi

# --- the series applies to a fresh extraction, without fuzz ------------------
step "series applies to a fresh tree"
fresh=$(mktemp -d "${TMPDIR:-/tmp}/kernel-ci.XXXXXX")
ftree=$fresh/linux-source-6.1
applied=1
if tar -C "$fresh" -xf "$tarball" &&
   (cd "$ftree" && while read -r p; do
	[ -n "$p" ] || continue
	patch -p1 -s -F0 -N --no-backup-if-mismatch < "$here/patches/$p" || exit 1
   done < "$here/patches/series"); then
	ok "series applies (patch -F0) to a fresh $(basename "$tarball")"
else
	ko "series applies"
	applied=0
fi

# --- checkpatch (in the fresh tree: in-tree mode) -------------------------------
step "checkpatch --strict"
allowed() {	# allowed <patch> <type>
	local glob type reason
	while read -r glob type reason; do
		case $glob in ''|\#*) continue ;; esac
		# shellcheck disable=SC2254
		case $1 in $glob) [ "$type" = "$2" ] && return 0 ;; esac
	done < "$here/checkpatch-allow"
	return 1
}
while read -r p; do
	[ -n "$p" ] || continue
	bad=0
	out=$(cd "$ftree" && scripts/checkpatch.pl --strict --terse --show-types "$here/patches/$p" 2>&1)
	while IFS= read -r line; do
		type=$(echo "$line" | sed -nE 's/^[^:]+:[0-9]+: (ERROR|WARNING|CHECK):([A-Z_]+):.*/\2/p')
		[ -n "$type" ] || continue
		if allowed "$p" "$type"; then
			echo "  allowed: $line"
		else
			echo "  $line"
			bad=1
		fi
	done <<< "$out"
	echo "  $(echo "$out" | grep -E '^total:' || echo "$out" | tail -1)"
	if [ $bad = 0 ]; then ok "checkpatch --strict $p"; else ko "checkpatch $p"; fi
done < "$here/patches/series"

# Every file the series adds must be covered by a MAINTAINERS entry (the
# question FILE_PATH_CHANGES asks).
if [ $applied = 1 ]; then
	newfiles=$(awk '/^--- \/dev\/null/ { n = 1; next }
			n && /^\+\+\+ b\// { print substr($0, 7) } { n = 0 }' "$here"/patches/*.patch)
	mbad=0
	for f in $newfiles; do
		m=$(cd "$ftree" && scripts/get_maintainer.pl --no-git --no-rolestats -f "$f" 2>/dev/null |
			grep -v "linux-kernel@vger" | head -1)
		echo "  $f: ${m:-NOBODY}"
		[ -n "$m" ] || mbad=1
	done
	if [ $mbad = 0 ]; then ok "MAINTAINERS covers new files"; else ko "MAINTAINERS coverage"; fi
fi
rm -rf "$fresh"

[ $checks_only = 1 ] && summary

# --- build ------------------------------------------------------------------
step "build (kernel/build.sh)"
if bash "$here/build.sh"; then
	ok "build unpatched+patched x debug+prod"
else
	ko "build"
	summary
fi

# --- boots ------------------------------------------------------------------
step "boot tests (kernel/boot-test.sh)"
bootlog=$root/boot-test.log
bash "$here/boot-test.sh" 2>&1 | tee "$bootlog"
while read -r line; do
	case $line in
	PASS\ *) ok "boot ${line#PASS }" ;;
	FAIL\ *) ko "boot ${line#FAIL }" ;;
	esac
done < <(grep -E "^(PASS|FAIL) " "$bootlog")
grep -qE "^boot-test: [0-9]+ passed" "$bootlog" || ko "boot-test.sh did not finish"

summary
