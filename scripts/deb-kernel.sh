#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# deb-kernel.sh KSRC KOBJ OUTDIR KCONFIG: "make deb", the kernel part.
#
# Debian packages of the lockmeter kernel, built by the kernel's own
# bindeb-pkg out of tree in KOBJ from the config KCONFIG (a distribution's
# /boot/config-*, say) with CONFIG_LOCKMETER=y (and the DEBUG_KERNEL it
# needs) merged in, and LOCALVERSION=-lockmeter, so the kernel installs
# next to the distribution's.  The packages (linux-image, linux-headers,
# linux-libc-dev, and linux-image-*-dbg when the config has debug info)
# are moved to OUTDIR with their .buildinfo and .changes; OUTDIR/kernel-files
# lists them.
#
# DEB_CONFIG_ONLY=1 stops after writing the config, KOBJ/.config.
#
# Nothing is rebuilt when nothing changed since the last build: the same
# KCONFIG, the same scripts, no file in KSRC newer than the last build,
# and the packages still in OUTDIR as built.  KCONFIG itself is only read.
set -eu
# The kernel's make takes its own -j: not the job server of a make -j
# that runs this script (make check's), which it would warn about.
unset MAKEFLAGS MFLAGS

top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 4 ] || { echo "usage: deb-kernel.sh KSRC KOBJ OUTDIR KCONFIG" >&2; exit 2; }
ksrc=$(cd "$1" && pwd) kconfig=$4
mkdir -p "$2" "$3"
kobj=$(cd "$2" && pwd) out=$(cd "$3" && pwd)
jobs=${JOBS:-$(nproc)}
cc=${KCC:-$top/scripts/kcc}
localversion=-lockmeter
list=$out/kernel-files
# Paths below the repository are hashed relative to it: the guest config
# built here hits the ccache entries of build/obj (a sibling directory).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$top}" CCACHE_NOHASHDIR=1
# Depend mode: a miss compiles once, with no preprocessor run to hash,
# which made a cold kernel build a third dearer in CPU (measured on
# fs/ext4 and kernel/sched: 63 CPU seconds, 47 in depend mode or
# without ccache); a hit is as before.
export CCACHE_DEPEND=1

die() { echo "deb-kernel: $*" >&2; exit 1; }

if [ -z "$kconfig" ]; then
	die "no kernel config to start from: neither /boot/config-$(uname -r) nor a
  /boot/config-LINE.* of the line built exists on this machine.
  Name one: make deb KCONFIG=/path/to/config (a distribution kernel's
  /boot/config-*, or build/obj/.config for the QEMU guest's)"
fi
[ -f "$kconfig" ] && [ -r "$kconfig" ] ||
	die "KCONFIG=$kconfig: no such readable file; name a kernel config: make deb KCONFIG=/path/to/config
  (a distribution kernel's /boot/config-*, or build/obj/.config for the QEMU guest's)"
grep -q '^CONFIG_' "$kconfig" || die "KCONFIG=$kconfig has no CONFIG_ lines: not a kernel config"
case $kconfig in /*) ;; *) kconfig=$(pwd)/$kconfig ;; esac
[ ! "$kconfig" -ef "$kobj/.config" ] ||
	die "KCONFIG=$kconfig is make deb's own config: to build it as edited, run make deb with the KCONFIG it came from (or copy it elsewhere first)"
for t in dpkg-buildpackage dh_gencontrol; do
	command -v $t >/dev/null ||
		die "$t missing (apt-get install dpkg-dev debhelper, or run scripts/deps.sh)"
done
[ ! -f "$ksrc/.config" ] ||
	die "$ksrc has an in-tree .config: bindeb-pkg builds with O=, run 'make mrproper' in $ksrc first"
release() { sed -n "s/^$1 = //p" "$ksrc/Makefile"; }
line=$(release VERSION).$(release PATCHLEVEL)
kver=$line.$(release SUBLEVEL)$(release EXTRAVERSION)

fragment=$kobj/.lockmeter-deb-fragment
printf 'CONFIG_DEBUG_KERNEL=y\nCONFIG_LOCKMETER=y\n' > "$fragment.new"

# The config: KCONFIG with the fragment merged, again whenever either changed.
cat "$kconfig" "$fragment.new" > "$kobj/.lockmeter-deb-input.new"
kmake() { make -s -C "$ksrc" O="$kobj" CC="$cc" HOSTCC="$cc" LOCALVERSION="$localversion" "$@"; }
if ! cmp -s "$kobj/.lockmeter-deb-input.new" "$kobj/.lockmeter-deb-input" ||
   [ ! -f "$kobj/.config" ]; then
	echo "  CONFIG  $kconfig + CONFIG_DEBUG_KERNEL=y CONFIG_LOCKMETER=y"
	cp "$kconfig" "$kobj/.config"
	"$ksrc/scripts/kconfig/merge_config.sh" -m -O "$kobj" "$kobj/.config" \
		"$fragment.new" >/dev/null
	# A distribution config names its own signing certificates, which a
	# kernel.org tree does not have: build without them.
	for key in SYSTEM_TRUSTED_KEYS SYSTEM_REVOCATION_KEYS; do
		f=$(sed -n "s/^CONFIG_$key=\"\(.*\)\"$/\1/p" "$kobj/.config")
		if [ -n "$f" ] && [ ! -e "$ksrc/$f" ] && [ ! -e "$kobj/$f" ] && [ ! -e "$f" ]; then
			echo "  CONFIG  CONFIG_$key=\"$f\": no such file here, set to \"\""
			"$ksrc/scripts/config" --file "$kobj/.config" --set-str "$key" ""
		fi
	done
	kmake olddefconfig >/dev/null
	for opt in LOCKMETER DEBUG_KERNEL; do
		grep -qx "CONFIG_$opt=y" "$kobj/.config" && continue
		why=$(grep -E '^CONFIG_(SMP|64BIT|PREEMPT_RT)[= ]|^# CONFIG_(SMP|64BIT) ' "$kobj/.config" | tr '\n' ' ')
		die "CONFIG_$opt=y did not stick in $kconfig: CONFIG_LOCKMETER needs SMP, 64BIT, DEBUG_KERNEL and no PREEMPT_RT (the config has: $why)"
	done
	mv "$kobj/.lockmeter-deb-input.new" "$kobj/.lockmeter-deb-input"
fi
rm -f "$kobj/.lockmeter-deb-input.new"
mv "$fragment.new" "$fragment"
if grep -qx 'CONFIG_DEBUG_INFO_BTF=y' "$kobj/.config" && ! command -v pahole >/dev/null; then
	die "the config has CONFIG_DEBUG_INFO_BTF=y, which needs pahole: apt-get install dwarves"
fi
if [ "${DEB_CONFIG_ONLY:-}" = 1 ]; then
	echo "  CONFIG  $kobj/.config: kernel $(kmake kernelrelease)," \
		"$(grep -c '=m$' "$kobj/.config") modules"
	exit 0
fi

# What the packages are made of, short of the kernel sources themselves:
# those are judged by their mtimes against the last build's start.  The
# config is KOBJ/.config, so an edit there (after DEB_CONFIG_ONLY=1, say)
# counts as a change.
inputs() {
	echo "ksrc $ksrc $kver cc $cc localversion $localversion"
	ls -l --time-style=full-iso "/usr/src/linux-source-$line.tar.xz" 2>/dev/null || true
	cat "$kobj/.config" "$fragment" "$0"
}
stamp=$kobj/.lockmeter-deb-stamp since=$kobj/.lockmeter-deb-since
if [ -f "$stamp" ] && [ -f "$list" ] && [ -f "$since" ] &&
   [ "$(head -n 1 "$stamp")" = "$(inputs | sha256sum | cut -d' ' -f1)" ] &&
   (cd "$out" && sed 1d "$stamp" | sha256sum -c --quiet - >/dev/null 2>&1) &&
   [ -z "$(find "$ksrc" -path "$ksrc/.lockmeter" -prune -o -newer "$since" -print | head -n 1)" ]; then
	echo "  DEB     up to date: $(grep '\.deb$' "$list" | tr '\n' ' ')in $out"
	exit 0
fi

# bindeb-pkg's dpkg-buildpackage writes next to KOBJ: the files its
# .changes names are moved to OUTDIR.  A failed build leaves OUTDIR as it
# was.
echo "  DEB     $kobj: bindeb-pkg of $kver$localversion, -j$jobs (log in $kobj/deb-build.log)"
start=$(date +%s)
rm -f "$stamp"
touch "$since.new"
if ! kmake -j"$jobs" bindeb-pkg > "$kobj/deb-build.log" 2>&1; then
	grep -E 'error|Error|warning: .* (is|are) not' "$kobj/deb-build.log" | tail -n 30 >&2
	die "bindeb-pkg failed (log in $kobj/deb-build.log)"
fi
parent=$(dirname "$kobj")
source=$(dpkg-parsechangelog -l "$kobj/debian/changelog" -S Source)
version=$(dpkg-parsechangelog -l "$kobj/debian/changelog" -S Version)
changes=$parent/${source}_${version}_$(cat "$kobj/debian/arch").changes
[ -f "$changes" ] || die "bindeb-pkg left no $changes"
files=$(sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]* [^ ]* [^ ]* //p' "$changes")
# The packages of the previous build in OUTDIR make way for the new ones.
if [ -f "$list" ]; then
	(cd "$out" && xargs rm -f < "$list")
fi
: > "$list.new"
for f in $files "$(basename "$changes")"; do
	mv "$parent/$f" "$out/$f"
	echo "$f" >> "$list.new"
done
mv "$list.new" "$list"
# after the build: bindeb-pkg's olddefconfig has the last word on .config
{ inputs | sha256sum | cut -d' ' -f1; (cd "$out" && xargs sha256sum < "$list"); } > "$stamp.new"
mv "$stamp.new" "$stamp"
mv "$since.new" "$since"
echo "  DEB     $(grep '\.deb$' "$list" | tr '\n' ' ')in $out ($(($(date +%s) - start))s)"
