#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Install what dcsim needs on Debian 12 (run as root or with sudo).
#
#   scripts/install-deps.sh          build, tools and benchmark (gnuplot)
#   scripts/install-deps.sh --tests  also the test suites: cmocka, qemu-user,
#                                    the ppc64le cross toolchain and the
#                                    ppc64el libraries (dpkg multiarch), and
#                                    linux-source-6.1 and linux-source-6.12
#                                    (+ patch, xz) for the kernel-code suite,
#                                    which skips without them
#
# The kernel series installs its own packages (kernel/ci.sh).
set -eu
tests=0
case "${1:-}" in
"") ;;
--tests) tests=1 ;;
*) echo "usage: $0 [--tests]" >&2; exit 2 ;;
esac

sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
apt_install() {
	$sudo apt-get install -y -q --no-install-recommends "$@"
}

pkgs="meson ninja-build pkg-config gcc libc6-dev liburcu-dev libjansson-dev libcmocka-dev gnuplot-nox"
if [ $tests = 1 ]; then
	pkgs="$pkgs valgrind qemu-user gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross binutils"
	# kernel-code/ builds the kernel's own dput() from these tarballs
	# (kernel-code/trees/*.tree name them).
	pkgs="$pkgs linux-source-6.1 linux-source-6.12 patch xz-utils"
	# dcsim-check's fan-out recipe (--shard, --merge) runs with GNU parallel;
	# its --json is validated with python3-jsonschema.
	pkgs="$pkgs parallel python3-jsonschema"
	# The fuzz suite's libFuzzer harnesses (tests/fuzz/run-fuzz.sh).
	pkgs="$pkgs clang libclang-rt-14-dev"
	if ! dpkg --print-foreign-architectures | grep -qx ppc64el; then
		$sudo dpkg --add-architecture ppc64el
	fi
fi
# A mirror caught mid-sync fails one index now and then ("File has
# unexpected size"): retry, and if an index still fails, go on with the
# lists there are; the install below fails only if a package cannot be had.
apt_update() {
	for try in 1 2 3; do
		$sudo apt-get update -q && return 0
		echo "install-deps: apt-get update failed (try $try of 3)" >&2
		sleep 10
	done
	echo "install-deps: apt-get update kept failing; installing from the lists there are" >&2
}
apt_update
apt_install $pkgs
if [ $tests = 1 ]; then
	# Target libraries for the ppc64le cross build run under qemu-ppc64le.
	apt_install liburcu-dev:ppc64el libjansson-dev:ppc64el libcmocka-dev:ppc64el
fi
