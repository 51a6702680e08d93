#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-compile.sh VARIANT KSRC KOBJ TAP: "make check-compile", part of
# make check.  Builds the patched tree in a configuration no guest of
# make check boots, as far as the objects lockmeter touches (the locking
# code, the scheduler and fork hooks, and the users of the inlined
# unlocks), and fails on any compiler warning in them.  VARIANT:
#
#   arm64  arm64's defconfig with lockmeter, its test module, and no
#          LOCKMETER_HIST, cross-compiled with Debian's
#          gcc-aarch64-linux-gnu: arm64 inlines its spinlock operations
#          (ARCH_INLINE_*), which CONFIG_LOCKMETER undoes, and has no TSC;
#   off    x86_64's defconfig without lockmeter, at -Os as make bench's
#          baseline (-O2 folded away a call -Os kept): the hooks in the patched
#          headers must compile away, as make bench's baseline kernel
#          needs them to, calls included: no object may want an lm_* or
#          lockmeter_* symbol, which only lockmeter's own files define.
#
# Writes one TAP result to TAP.
set -u
# The kernel's make takes its own -j: not the job server of a make -j
# that runs this script (make check's), which it would warn about.
unset MAKEFLAGS MFLAGS

variant=$1 ksrc=$(cd "$2" && pwd) kobj=$3 tap=$4
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$kobj"
kobj=$(cd "$kobj" && pwd)
log=$kobj/check-compile.log
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$top}" CCACHE_NOHASHDIR=1
# Depend mode: a miss compiles once, with no preprocessor run to hash,
# which made a cold kernel build a third dearer in CPU (measured on
# fs/ext4 and kernel/sched: 63 CPU seconds, 47 in depend mode or
# without ccache); a hit is as before.
export CCACHE_DEPEND=1
objs="kernel/locking/ kernel/sched/core.o kernel/fork.o"
case $variant in
arm64)
	what="arm64 defconfig + LOCKMETER, LOCKMETER_HIST=n: kernel/locking, sched/core, fork, test_lockmeter compile without warnings"
	objs="$objs lib/test_lockmeter.o"
	set -- ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CC="ccache aarch64-linux-gnu-gcc"
	cc=aarch64-linux-gnu-gcc pkg=gcc-aarch64-linux-gnu
	edits="-e DEBUG_KERNEL -e LOCKMETER -m TEST_LOCKMETER -d LOCKMETER_HIST"
	want="CONFIG_LOCKMETER=y|# CONFIG_LOCKMETER_HIST is not set"
	;;
off)
	what="x86_64 defconfig -Os, LOCKMETER=n: kernel/locking, sched/core, fork, mm/memory, fs/pipe compile without warnings or calls into lockmeter"
	objs="$objs mm/memory.o fs/pipe.o"
	set -- ARCH=x86_64 CC="ccache gcc"
	cc=gcc pkg=gcc
	edits="-d LOCKMETER -d CC_OPTIMIZE_FOR_PERFORMANCE -e CC_OPTIMIZE_FOR_SIZE"
	want="# CONFIG_LOCKMETER is not set|# CONFIG_LOCK_STAT is not set|CONFIG_CC_OPTIMIZE_FOR_SIZE=y"
	;;
*)
	echo "check-compile: unknown variant '$variant' (arm64, off)" >&2
	exit 2
	;;
esac

kmake() {
	make -s -C "$ksrc" O="$kobj" HOSTCC="ccache gcc" "$@"
}

result() {	# result ok|"not ok"
	printf 'TAP version 13\n1..1\n%s 1 - %s\n' "$1" "$what" > "$tap"
	[ "$1" = ok ] || { tail -n 40 "$log" | sed 's/^/# /' >> "$tap"; cat "$tap"; exit 1; }
	echo "  BUILD   $what"
}

command -v "$cc" >/dev/null ||
	{ echo "check-compile: $cc missing (apt-get install $pkg)" > "$log"; result "not ok"; }
if [ ! -f "$kobj/.config" ]; then
	kmake "$@" defconfig > "$log" 2>&1 || result "not ok"
fi
# shellcheck disable=SC2086
"$ksrc/scripts/config" --file "$kobj/.config" $edits >> "$log" 2>&1 || result "not ok"
kmake "$@" olddefconfig >> "$log" 2>&1 || result "not ok"
old_ifs=$IFS IFS='|'
for line in $want; do
	grep -qx "$line" "$kobj/.config" ||
		{ echo "check-compile: '$line' did not stick" >> "$log"; result "not ok"; }
done
IFS=$old_ifs
# shellcheck disable=SC2086
kmake "$@" -j"${JOBS:-$(nproc)}" $objs > "$log" 2>&1 || result "not ok"
# -s keeps the log to what the compiler says: any warning is a failure
grep -q 'warning:' "$log" && result "not ok"
# off: every hook must compile away, calls included (a kernel without
# lockmeter links none of its code): no object built may want an lm_*
# or lockmeter_* symbol
if [ "$variant" = off ]; then
	for o in "$kobj"/kernel/locking/*.o "$kobj"/kernel/sched/core.o \
		 "$kobj"/kernel/fork.o "$kobj"/mm/memory.o "$kobj"/fs/pipe.o; do
		nm -u "$o" | sed -n "s#^ *U \(lm_.*\|lockmeter_.*\)#${o#"$kobj"/} wants \1#p"
	done > "$kobj/undefined.txt"
	if [ -s "$kobj/undefined.txt" ]; then
		cat "$kobj/undefined.txt" >> "$log"
		result "not ok"
	fi
fi
result ok
