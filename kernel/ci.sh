#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# CI entry point for the kernel series: bash kernel/ci.sh
#
# Installs what it needs (Debian 12, apt-get), checks that the series
# applies to a fresh extraction and passes checkpatch --strict, builds the
# four kernels (kernel/build.sh), boots them (kernel/boot-test.sh), and ends
# with a line "N passed, M failed".  Exits non-zero if anything failed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
root=${KBUILD_ROOT:-$repo/build-kernel}
tarball=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
pass=0 fail=0 failed=""
t_start=$SECONDS

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
fresh=$(mktemp -d)
files=$(sed -n 's@^+++ b/@@p' "$here"/patches/*.patch | sort -u)
existing=""
for f in $files; do
	grep -q "^+++ b/$f" "$here"/patches/*.patch &&
		! grep -qx -- "--- /dev/null" <(grep -B1 "^+++ b/$f$" "$here"/patches/*.patch | sed 's/^[^:]*[:-]//') &&
		existing="$existing linux-source-6.1/$f"
done
if tar -C "$fresh" -xf "$tarball" $existing &&
   (cd "$fresh/linux-source-6.1" &&
    while read -r p; do patch -p1 -s -F0 -N --no-backup-if-mismatch < "$here/patches/$p" || exit 1; done < "$here/patches/series"); then
	ok "series applies (patch -F0) to $(basename "$tarball")"
else
	ko "series applies"
fi
rm -rf "$fresh"

# --- build ------------------------------------------------------------------
step "build (kernel/build.sh)"
if bash "$here/build.sh"; then
	ok "build unpatched+patched x debug+prod"
else
	ko "build"
	summary
fi

# --- checkpatch ---------------------------------------------------------------
step "checkpatch --strict"
tree=$root/linux-source-6.1
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
	bad=0
	out=$(cd "$tree" && scripts/checkpatch.pl --strict --terse --show-types "$here/patches/$p" 2>&1)
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
	if [ $bad = 0 ]; then ok "checkpatch --strict $p"; else ko "checkpatch $p"; fi
done < "$here/patches/series"
# New files must have a MAINTAINERS entry (what FILE_PATH_CHANGES asks).
for f in $(grep -h -A3 "^new file mode" "$here"/patches/*.patch >/dev/null; sed -n 's@^+++ b/@@p' "$here"/patches/*.patch | sort -u); do
	[ -f "$tree/$f" ] || continue
	m=$(cd "$tree" && scripts/get_maintainer.pl --no-git --no-rolestats -f "$f" 2>/dev/null | grep -v "linux-kernel@vger" | head -1)
	[ -n "$m" ] || { echo "  no MAINTAINERS entry covers $f"; ko "MAINTAINERS $f"; }
done

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
