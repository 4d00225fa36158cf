#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kernels for the boot test: Debian's linux-source-6.1 and
# linux-source-6.12, unpatched and with their series applied
# (kernel/patches/ for 6.1, kernel/patches-6.12/ for 6.12), each in two
# flavours (debug, prod), plus a kasan flavour on request.
#
#   kernel/build.sh [--tree 6.1|6.12|all] [--flavour debug|prod|kasan|all]
#                   [--variant unpatched|patched|all]
#                   [--config FRAGMENT]... [--extra PATCH]...
#
# Flavours: debug = base + config/debug.config (lock debugging and the hang
# detectors), prod = base + config/prod.config, kasan = the debug fragments
# + config/kasan.config ("all" is debug and prod).  --config adds fragments
# after the flavour's; --extra applies patches (e.g. the debug-only ones
# in kernel/debug/) after the series, if any.  Either one names the image
# <variant>-<flavour>+<name>+..., the names being the files' base names
# without .config/.patch, so that it never overwrites a plain image.
#
# Everything goes under $KBUILD_ROOT (default: build-kernel/ at the repo
# root, git-ignored), one folder per tree, <kver>/ (6.1/, 6.12/):
#   linux-source-<kver>/  one source tree; the series is pushed and popped
#   applied/            the patches currently applied, as applied (quilt-like)
#   o-<flavour>/        out-of-tree object dirs, so rebuilds are incremental
#   images/<image>/bzImage, config, stamp
# The trees never share objects: per-tree object dirs are what keep a
# switch between unpatched and patched incremental.  With KBUILD_CCACHE=1
# (and ccache installed) gcc runs through ccache (CCACHE_DIR defaults to
# $KBUILD_ROOT/ccache): worth it only for a runner that keeps that folder,
# since within one run no object is compiled twice, and a cold cache
# preprocesses every file once more.
# The unpatched and patched kernels share a tree and an object dir per
# flavour: switching re-applies or reverts four patches and recompiles only
# what they touch.  A stamp (hash of the fragments, the series and the
# sources that matter) skips a kernel that is already up to date.  The
# configuration is cached too: tinyconfig runs once per tree, and a
# kernel whose fragments and applied patches are those of the object dir's
# last configuration is not configured again.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
top=${KBUILD_ROOT:-$repo/build-kernel}
jobs=${JOBS:-$(nproc)}
kvers="6.1 6.12"
flavours="debug prod"
variants="unpatched patched"
xfrags=""
xpatches=""

while [ $# -gt 0 ]; do
	case $1 in
	--tree) [ "$2" = all ] || kvers=$2; shift 2 ;;
	--flavour) [ "$2" = all ] || flavours=$2; shift 2 ;;
	--variant) [ "$2" = all ] || variants=$2; shift 2 ;;
	--config|--extra)
		[ -f "$2" ] || { echo "build.sh: $1 $2: no such file" >&2; exit 2; }
		f=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
		case $f in *" "*) echo "build.sh: $1 $2: no spaces in paths, please" >&2; exit 2 ;; esac
		if [ "$1" = --config ]; then xfrags="$xfrags $f"; else xpatches="$xpatches $f"; fi
		shift 2 ;;
	-h|--help) sed -n '4,39p' "$0"; exit 0 ;;
	*) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

for fl in $flavours; do
	case $fl in
	debug|prod|kasan) ;;
	*) echo "build.sh: unknown flavour $fl (debug, prod, kasan)" >&2; exit 2 ;;
	esac
done
for va in $variants; do
	case $va in
	unpatched|patched) ;;
	*) echo "build.sh: unknown variant $va (unpatched, patched)" >&2; exit 2 ;;
	esac
done

log() { echo "[build $kver $(date +%T)] $*" >&2; }

# flavour_frags <flavour>: the fragments of a flavour, base first.
flavour_frags() {
	case $1 in
	kasan) echo "$here/config/base.config $here/config/debug.config $here/config/kasan.config" ;;
	*) echo "$here/config/base.config $here/config/$1.config" ;;
	esac
}

# image_name <variant> <flavour>: <variant>-<flavour>[+extra]...
image_name() {
	local n=$1-$2 f b
	for f in $xfrags $xpatches; do
		b=$(basename "$f"); b=${b%.config}; b=${b%.patch}
		n=$n+$b
	done
	echo "$n"
}

# set_tree <kver>: the globals the functions below work on.
set_tree() {
	kver=$1
	root=$top/$kver
	tarball=/usr/src/linux-source-$kver.tar.xz
	tree=$root/linux-source-$kver
	case $kver in
	6.1) pdir=$here/patches ;;
	6.12) pdir=$here/patches-6.12 ;;
	*) echo "build.sh: unknown tree $kver (6.1 or 6.12)" >&2; exit 2 ;;
	esac
	mkdir -p "$root/applied" "$root/images"
}

cc="gcc"
if [ "${KBUILD_CCACHE:-0}" = 1 ]; then
	command -v ccache > /dev/null || { echo "build.sh: KBUILD_CCACHE=1 but no ccache (apt-get install ccache)" >&2; exit 2; }
	cc="ccache gcc"
	export CCACHE_DIR=${CCACHE_DIR:-$top/ccache}
fi

extract() {
	[ -f "$tree/Makefile" ] && return
	[ -f "$tarball" ] || { echo "missing $tarball (apt-get install linux-source-$kver)" >&2; exit 1; }
	log "extracting $tarball"
	rm -rf "$tree.tmp" "$root/applied"/*
	mkdir -p "$tree.tmp"
	tar -C "$tree.tmp" --strip-components=1 -xf "$tarball"
	mv "$tree.tmp" "$tree"
}

# The applied/ directory holds a copy of each applied patch, in order, so
# that popping reverts exactly what was applied even if the repo's copy has
# changed since.
applied_list() { ls "$root/applied" 2>/dev/null | sort; }

pop_all() {
	local p
	for p in $(applied_list | sort -r); do
		log "reverting $p"
		patch -d "$tree" -p1 -R -s --no-backup-if-mismatch < "$root/applied/$p"
		rm "$root/applied/$p"
	done
}

# want_list <variant>: the patch files to apply, in order.
want_list() {
	local p
	if [ "$1" = patched ]; then
		while read -r p; do
			[ -n "$p" ] && echo "$pdir/$p"
		done < "$pdir/series"
	fi
	for p in $xpatches; do echo "$p"; done
}

# push_all <variant>: make applied/ hold exactly want_list, in order.
push_all() {
	local n=0 p want=() names="" same=1
	mapfile -t want < <(want_list "$1")
	for p in "${want[@]}"; do
		n=$((n + 1))
		names="$names$(printf %03d-%s $n "$(basename "$p")")"$'\n'
	done
	n=0
	# Already applied and identical? Nothing to do.
	if [ "$(applied_list)" = "${names%$'\n'}" ]; then
		for p in "${want[@]}"; do
			n=$((n + 1))
			cmp -s "$root/applied/$(printf %03d-%s $n "$(basename "$p")")" "$p" || same=0
		done
		[ $same = 1 ] && return
	fi
	pop_all
	n=0
	for p in "${want[@]}"; do
		n=$((n + 1))
		log "applying $(basename "$p")"
		if ! patch -d "$tree" -p1 -s -N --no-backup-if-mismatch --dry-run < "$p" > /dev/null; then
			echo "build.sh: $p does not apply to $kver (after the $((n - 1)) before it)" >&2
			pop_all
			exit 2
		fi
		patch -d "$tree" -p1 -s -N --no-backup-if-mismatch < "$p"
		cp "$p" "$root/applied/$(printf %03d-%s $n "$(basename "$p")")"
	done
}

# configure <variant> <flavour> <objdir>: tinyconfig plus the fragments.
# Written to a scratch dir first and copied only when it differs, so that
# an unchanged config does not look new to make.  tinyconfig's output is
# kept per tree (the tree is a fixed tarball; options that a patch adds
# come from olddefconfig), and the whole step is skipped when the
# fragments and the applied patches are those of the object dir's last
# configuration.
configure() {
	local variant=$1 flavour=$2 o=$3 tmp=$root/cfg-tmp key
	local frags
	frags="$(flavour_frags "$flavour")"
	[ "$variant" = patched ] && frags="$frags $here/config/patched.config"
	frags="$frags $xfrags"
	# A glob with no match stays literal: ls, not cat, lists applied/.
	key=$( { cat $frags; for f in $(applied_list); do cat "$root/applied/$f"; done; } | sha256sum | cut -d' ' -f1)
	if [ -f "$o/.config" ] && [ "$(cat "$o/config.key" 2>/dev/null)" = "$key" ]; then
		log "configuration unchanged"
		return
	fi
	# The kconfig tools built in $tmp are kept for the next kernel of this
	# tree (minutes on a loaded machine).
	mkdir -p "$tmp" "$o"; rm -f "$tmp/.config" "$tmp/.config.old"
	if [ ! -f "$root/tinyconfig" ]; then
		make -s -C "$tree" O="$tmp" tinyconfig >/dev/null
		cp "$tmp/.config" "$root/tinyconfig"
	fi
	cp "$root/tinyconfig" "$tmp/.config"
	(cd "$tree" && scripts/kconfig/merge_config.sh -m -O "$tmp" "$tmp/.config" $frags) > "$tmp/merge.log" 2>&1
	make -s -C "$tree" O="$tmp" olddefconfig >/dev/null
	check_config "$tmp/.config" $frags
	cmp -s "$tmp/.config" "$o/.config" || cp "$tmp/.config" "$o/.config"
	echo "$key" > "$o/config.key"
}

# Every value a fragment asks for must survive olddefconfig.
check_config() {
	local config=$1 bad=0 line sym val got f; shift
	for f in "$@"; do
		while read -r line; do
			case $line in
			CONFIG_*=*) sym=${line%%=*}; val=${line#*=} ;;
			"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}; val=n ;;
			*) continue ;;
			esac
			got=$(sed -n "s/^$sym=//p" "$config")
			[ -n "$got" ] || got=n
			if [ "$got" != "$val" ]; then
				echo "config: $sym=$val requested by $(basename "$f"), got $got" >&2
				bad=1
			fi
		done < "$f"
	done
	return $bad
}

stamp_of() {
	local variant=$1 flavour=$2
	{
		echo "$kver $variant $flavour $cc"
		cat $(flavour_frags "$flavour") $xfrags $xpatches
		if [ "$variant" = patched ]; then
			cat "$here/config/patched.config" "$pdir/series"
			cat "$pdir/"*.patch
		fi
	} | sha256sum | cut -d' ' -f1
}

build_one() {
	local variant=$1 flavour=$2
	local o=$root/o-$flavour img=$root/images/$(image_name "$variant" "$flavour")
	local stamp
	stamp=$(stamp_of "$variant" "$flavour")
	if [ -f "$img/bzImage" ] && [ "$(cat "$img/stamp" 2>/dev/null)" = "$stamp" ]; then
		log "$(basename "$img") up to date"
		return
	fi
	push_all "$variant"
	configure "$variant" "$flavour" "$o"
	log "building $(basename "$img") (make -j$jobs)"
	local t0=$SECONDS
	if ! make -C "$tree" O="$o" CC="$cc" -j"$jobs" bzImage > "$o/build.log" 2>&1; then
		tail -40 "$o/build.log" >&2
		echo "build of $(basename "$img") failed, full log: $o/build.log" >&2
		exit 1
	fi
	grep -E "warning:" "$o/build.log" >&2 || true
	mkdir -p "$img"
	cp "$o/arch/x86/boot/bzImage" "$img/bzImage"
	cp "$o/.config" "$img/config"
	cp "$o/System.map" "$img/System.map"
	echo "$stamp" > "$img/stamp"
	log "built $(basename "$img") in $((SECONDS - t0)) s"
}

for k in $kvers; do
	set_tree "$k"
	extract
	# Flavour by flavour: the second variant of an object dir is the
	# incremental one.
	for fl in $flavours; do
		for va in $variants; do
			build_one "$va" "$fl"
		done
	done
done
