#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-arm64.sh KSRC KOBJ TAP: "make check-arm64", part of make check.
# arm64 inlines its spinlock operations (ARCH_INLINE_*), which
# CONFIG_LOCKMETER undoes, and has no TSC: build arm64's defconfig with
# lockmeter and its test module, cross-compiled with Debian's
# gcc-aarch64-linux-gnu, as far as the objects lockmeter touches (the
# locking code, the scheduler and fork hooks, the test module), and fail
# on any compiler warning in them.  It builds without
# CONFIG_LOCKMETER_HIST, the other side of the x86 guests' kernels.
# Writes one TAP result to TAP.
set -u

ksrc=$(cd "$1" && pwd) kobj=$2 tap=$3
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$kobj"
kobj=$(cd "$kobj" && pwd)
log=$kobj/check-arm64.log
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$top}" CCACHE_NOHASHDIR=1
what="arm64 defconfig + LOCKMETER, LOCKMETER_HIST=n: kernel/locking, sched/core, fork, test_lockmeter compile without warnings"
objs="kernel/locking/ kernel/sched/core.o kernel/fork.o lib/test_lockmeter.o"
amake() {
	make -s -C "$ksrc" O="$kobj" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
		CC="ccache aarch64-linux-gnu-gcc" HOSTCC="ccache gcc" "$@"
}

result() {	# result OK|"not ok"
	printf 'TAP version 13\n1..1\n%s 1 - %s\n' "$1" "$what" > "$tap"
	[ "$1" = ok ] || { tail -n 40 "$log" | sed 's/^/# /' >> "$tap"; cat "$tap"; exit 1; }
	echo "  ARM64   $what"
}

command -v aarch64-linux-gnu-gcc >/dev/null ||
	{ echo "check-arm64: aarch64-linux-gnu-gcc missing (apt-get install gcc-aarch64-linux-gnu)" > "$log"; result "not ok"; }
if [ ! -f "$kobj/.config" ]; then
	amake defconfig > "$log" 2>&1 || result "not ok"
	"$ksrc/scripts/config" --file "$kobj/.config" -e DEBUG_KERNEL -e LOCKMETER \
		-m TEST_LOCKMETER >> "$log" 2>&1 || result "not ok"
fi
"$ksrc/scripts/config" --file "$kobj/.config" -d LOCKMETER_HIST >> "$log" 2>&1 ||
	result "not ok"
amake olddefconfig >> "$log" 2>&1 || result "not ok"
grep -qx 'CONFIG_LOCKMETER=y' "$kobj/.config" &&
	grep -qx '# CONFIG_LOCKMETER_HIST is not set' "$kobj/.config" ||
	{ echo "check-arm64: CONFIG_LOCKMETER=y, LOCKMETER_HIST=n did not stick" >> "$log"; result "not ok"; }
# shellcheck disable=SC2086
amake -j"${JOBS:-$(nproc)}" $objs > "$log" 2>&1 || result "not ok"
# -s keeps the log to what the compiler says: any warning is a failure
grep -q 'warning:' "$log" && result "not ok"
result ok
