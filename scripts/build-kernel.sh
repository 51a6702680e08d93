#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh KSRC KOBJ MODROOT FRAGMENT...
#
# Configure (KBASE, tinyconfig by default, + FRAGMENTs, only when the base
# or a fragment changed) and build bzImage, modules and the UAPI headers
# out of tree in KOBJ, then install the modules under MODROOT.  HEADERS=0:
# no UAPI headers (the kselftests build against the guest kernel's alone;
# installing them costs about a minute of CPU).
set -eu
# The kernel's make takes its own -j: not the job server of a make -j
# that runs this script (make check's), which it would warn about.
unset MAKEFLAGS MFLAGS

mkdir -p "$2"
ksrc=$(cd "$1" && pwd) kobj=$(cd "$2" && pwd) modroot=$3
case $modroot in /*) ;; *) modroot=$(pwd)/$modroot ;; esac
shift 3
jobs=${JOBS:-$(nproc)}
# Paths below the repository are hashed relative to it, so that a fresh
# clone elsewhere (CI's) hits the same ccache entries.
top=$(cd "$(dirname "$0")/.." && pwd)
cc=${KCC:-$top/scripts/kcc}
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$top}" CCACHE_NOHASHDIR=1
# Depend mode: a miss compiles once, with no preprocessor run to hash,
# which made a cold kernel build a third dearer in CPU (measured on
# fs/ext4 and kernel/sched: 63 CPU seconds, 47 in depend mode or
# without ccache); a hit is as before.
export CCACHE_DEPEND=1
kmake() { make -s -C "$ksrc" O="$kobj" CC="$cc" HOSTCC="$cc" "$@"; }

die() { echo "build-kernel: $*" >&2; exit 1; }

base=${KBASE:-tinyconfig}
{ echo "# base: $base"; cat "$@"; } > "$kobj/.lockmeter-fragment.new"
if ! cmp -s "$kobj/.lockmeter-fragment.new" "$kobj/.lockmeter-fragment" ||
   [ ! -f "$kobj/.config" ]; then
	echo "  CONFIG  $base + $*"
	kmake "$base" >/dev/null
	"$ksrc/scripts/kconfig/merge_config.sh" -m -O "$kobj" "$kobj/.config" \
		"$kobj/.lockmeter-fragment.new" >/dev/null
	kmake olddefconfig >/dev/null
	# Every option the fragments ask for must have survived.
	grep -h '^CONFIG_' "$kobj/.lockmeter-fragment.new" | while read -r line; do
		grep -qx "$line" "$kobj/.config" ||
			die "config: $line did not stick (a dependency is missing)"
	done
	mv "$kobj/.lockmeter-fragment.new" "$kobj/.lockmeter-fragment"
fi
rm -f "$kobj/.lockmeter-fragment.new"
# New Kconfig symbols (ours or the tree's) get their defaults, silently.
kmake olddefconfig >/dev/null

headers=${HEADERS:-1}
echo "  BUILD   $kobj (bzImage modules$([ "$headers" = 0 ] || echo ' headers'), -j$jobs)"
# what the compiler said (ccache replays it for cached objects) stays in
# KOBJ/.lockmeter-build.err for the checks that allow no warning
rc=0
kmake -j"$jobs" bzImage modules 2> "$kobj/.lockmeter-build.err" || rc=$?
cat "$kobj/.lockmeter-build.err" >&2
[ $rc -eq 0 ] || exit $rc
[ "$headers" = 0 ] || kmake headers >/dev/null
rm -rf "$modroot"
kmake INSTALL_MOD_PATH="$modroot" INSTALL_MOD_STRIP=1 modules_install >/dev/null
