#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# deb-test.sh packages BUILD KSRC TAP
#	Test the packages of "make deb" as make check builds them: the
#	lockstat package in BUILD/deb (lintian, an install into a scratch
#	root with dpkg --root, the installed binary against the tree's
#	(BUILD/lockstat/lockstat, the guest's static build) on lockstat's
#	fixtures, removal) and the kernel packages built from the
#	guest's config in BUILD/deb/guest (what dpkg -c lists, the config
#	and the image inside).  Then unpack the kernel package into
#	BUILD/deb-boot and pack an initramfs with its modules, for
#	run-guest.sh to boot BUILD/deb-boot/vmlinuz.  And make deb's config
#	step (DEB_CONFIG_ONLY=1, in BUILD/obj-deb-debian) on Debian's own
#	6.12 config (linux-config-6.12), the case of a user's /boot/config.
#	Writes TAP to TAP.
# deb-test.sh booted BUILD LOG TAP
#	After that boot: the kernel that ran (LOG) is the package's.
# KVER=6.1 in the environment: the other kernel line's, whose make deb
# and guest build names end in -6.1 (BUILD/deb-6.1, BUILD/deb-boot-6.1,
# BUILD/kselftest-6.1 ...), on Debian's 6.1 config (linux-config-6.1).
set -u
line=${KVER:-6.12}
sfx=
[ "$line" = 6.12 ] || sfx=-$line

top=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-} build=${2:-}
case $mode in
packages) [ $# -eq 4 ] && ksrc=$3 tap=$4 ;;
booted) [ $# -eq 4 ] && log=$3 tap=$4 ;;
esac
[ -n "${tap:-}" ] || { echo "usage: deb-test.sh packages BUILD KSRC TAP | booted BUILD LOG TAP" >&2; exit 2; }
build=$(cd "$build" && pwd)
boot=$build/deb-boot$sfx
results=$(mktemp)
trap 'rm -f "$results"' EXIT
n=0

# result OK|"not ok" NAME [DIAGNOSTIC-FILE]
result() {
	n=$((n + 1))
	echo "$1 $n - $2" >> "$results"
	if [ "$1" != ok ] && [ -n "${3:-}" ] && [ -s "$3" ]; then
		head -n 30 "$3" | sed 's/^/# /' >> "$results"
	fi
}
check() {	# check NAME DIAGNOSTIC-FILE COMMAND...: ok when COMMAND succeeds
	name=$1 diag=$2
	shift 2
	if "$@"; then result ok "$name"; else result "not ok" "$name" "$diag"; fi
}
finish() {
	{ echo 'TAP version 13'; echo "1..$n"; cat "$results"; } > "$tap"
	if grep -q '^not ok' "$results"; then
		grep -v '^ok' "$results"
		echo "deb-test: $(grep -c '^not ok' "$results") of $n failed (TAP in $tap)"
	else
		echo "  DEBTEST $n passed (TAP in $tap)"
	fi
	exit 0
}

if [ "$mode" = booted ]; then
	rel=$(cat "$boot/release" 2>/dev/null)
	# a serial port may end its lines with \r (onlcr)
	ran=$(tr -d '\r' < "$log" 2>/dev/null |
		sed -n 's/^LM-GUEST: start .* kernel=\([^ ]*\).*/\1/p' | head -n 1)
	echo "packaged kernel $rel, guest ran ${ran:-nothing}" > "$boot/booted.txt"
	check "the guest booted the packaged kernel ${rel:-(none)}" "$boot/booted.txt" \
		test -n "$rel" -a "$rel" = "$ran"
	finish
fi

work=$build/deb-test$sfx
rm -rf "$work"
mkdir -p "$work"
tools=$top/tools/lockstat
fx=$tools/tests/fixtures
intree=$build/lockstat/lockstat
version=$(sed -n 's/^#define LOCKSTAT_VERSION[[:space:]]*"\(.*\)"$/\1/p' "$tools/lockstat.h")

# ---- the lockstat package ----
deb=$build/deb$sfx/lockstat_${version}_$(dpkg --print-architecture).deb
if [ ! -f "$deb" ]; then
	echo "no $deb (scripts/deb-lockstat.sh)" > "$work/none"
	result "not ok" "lockstat package built" "$work/none"
else
	# lintian refuses nothing as root, but says it is not recommended
	lintian --fail-on error --info "$deb" > "$work/lintian.txt" 2>"$work/lintian.err"
	rc=$?
	cat "$work/lintian.err" >> "$work/lintian.txt"
	check "lockstat package: lintian reports no errors ($(grep -c '^W:' "$work/lintian.txt") warnings, in build/deb-test/lintian.txt)" \
		"$work/lintian.txt" test $rc -eq 0 -a -z "$(grep '^E:' "$work/lintian.txt")"

	# A scratch root with an empty dpkg database.  The package has no
	# maintainer scripts, so nothing runs inside it; as another user
	# than root dpkg needs --force-not-root.  Its dependencies are the
	# host's libraries, which the installed binary runs with.
	root=$work/root
	mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
	: > "$root/var/lib/dpkg/status"
	notroot=
	[ "$(id -u)" -eq 0 ] || notroot=--force-not-root
	dpkg() { command dpkg --root="$root" --log=/dev/null $notroot "$@"; }
	dpkg --force-depends -i "$deb" > "$work/install.txt" 2>&1
	rc=$?
	dpkg -s lockstat >> "$work/install.txt" 2>&1
	check "lockstat package: dpkg --root installs it into a scratch root" "$work/install.txt" \
		test $rc -eq 0 -a -n "$(dpkg -s lockstat 2>/dev/null | grep -x 'Status: install ok installed')"
	dpkg -L lockstat > "$work/files.txt" 2>&1
	man8=$root/usr/share/man/man8/lockstat.8.gz
	{ zcat "$man8" | cmp - "$tools/lockstat.8"; } > "$work/man.txt" 2>&1
	check "lockstat package: /usr/sbin/lockstat, the tree's lockstat.8, README, lockmeter.rst, copyright" \
		"$work/files.txt" test -x "$root/usr/sbin/lockstat" -a ! -s "$work/man.txt" \
		-a -f "$root/usr/share/doc/lockstat/README.md.gz" \
		-a -f "$root/usr/share/doc/lockstat/lockmeter.rst.gz" \
		-a -f "$root/usr/share/doc/lockstat/copyright"
	command dpkg-deb -f "$deb" Depends > "$work/depends.txt" 2>&1
	check "lockstat package: Depends names libnl-genl-3 and ncursesw (shlibs)" "$work/depends.txt" \
		grep -q 'libnl-genl-3-200.*libtinfo\|libnl-genl-3-200.*ncursesw\|ncursesw.*libnl-genl-3-200' \
		"$work/depends.txt"

	pkgbin=$root/usr/sbin/lockstat
	"$pkgbin" --version > "$work/v-pkg.txt" 2>&1
	"$intree" --version > "$work/v-tree.txt" 2>&1
	diff "$work/v-tree.txt" "$work/v-pkg.txt" > "$work/v.diff" 2>&1 ||
		cat "$work/v-tree.txt" "$work/v-pkg.txt" >> "$work/v.diff"
	check "lockstat package: lockstat --version says $version, as the tree's binary" "$work/v.diff" \
		test ! -s "$work/v.diff" -a -n "$(grep "^lockstat $version " "$work/v-pkg.txt")"

	for args in "report $fx/demo.snap" "report --json $fx/demo.snap" \
		    "report --stacks $fx/stacks.snap" "report $fx/proc.txt"; do
		# shellcheck disable=SC2086
		"$pkgbin" $args > "$work/r-pkg.txt" 2>&1
		rp=$?
		# shellcheck disable=SC2086
		"$intree" $args > "$work/r-tree.txt" 2>&1
		rt=$?
		name="lockstat package: lockstat $(echo "$args" | sed "s|$fx/|fixtures/|") prints what the tree's binary prints"
		if [ $rp -eq 0 ] && [ $rt -eq 0 ] && [ -s "$work/r-pkg.txt" ] &&
		   cmp -s "$work/r-tree.txt" "$work/r-pkg.txt"; then
			result ok "$name"
		else
			{ echo "exit $rt, packaged $rp"; diff "$work/r-tree.txt" "$work/r-pkg.txt"; } \
				> "$work/r.diff" 2>&1
			result "not ok" "$name" "$work/r.diff"
		fi
	done

	dpkg --purge lockstat > "$work/purge.txt" 2>&1
	rc=$?
	left=$(cd "$root" && find . ! -path './var/lib/dpkg*' ! -type d)
	echo "left: $left" >> "$work/purge.txt"
	check "lockstat package: dpkg --purge removes every file it installed" "$work/purge.txt" \
		test $rc -eq 0 -a -z "$left" -a ! -e "$root/usr/sbin/lockstat"
	unset -f dpkg
fi

# ---- make deb's config step on Debian's own config ----
dconfig=/usr/src/linux-config-$line/config.amd64_none_amd64.xz
dobj=$build/obj-deb-debian$sfx
if [ -r "$dconfig" ]; then
	xz -dc "$dconfig" > "$work/debian.config"
	# as a distribution's /boot/config names its own certificates
	echo 'CONFIG_SYSTEM_TRUSTED_KEYS="debian/certs/debian-uefi-certs.pem"' >> "$work/debian.config"
	DEB_CONFIG_ONLY=1 "$top/scripts/deb-kernel.sh" "$ksrc" "$dobj" "$work/debian-out" \
		"$work/debian.config" > "$work/dconfig.txt" 2>&1
	rc=$?
	for opt in 'CONFIG_LOCKMETER=y' 'CONFIG_PREEMPT_DYNAMIC=y' 'CONFIG_SYSTEM_TRUSTED_KEYS=""'; do
		grep -qx "$opt" "$dobj/.config" 2>/dev/null || echo "missing: $opt" >> "$work/dconfig.txt"
	done
	check "make deb's config step on Debian's amd64 $line config: LOCKMETER=y, PREEMPT_DYNAMIC kept, no missing certificate, release $line.*-lockmeter" \
		"$work/dconfig.txt" test $rc -eq 0 -a -z "$(grep '^missing' "$work/dconfig.txt")" \
		-a -n "$(grep "kernel $(echo "$line" | sed 's/\./\\./g')\.[0-9]*-lockmeter," "$work/dconfig.txt")"
	# the config's other half: without DEBUG_KERNEL there is no LOCKMETER
	sed '/^CONFIG_DEBUG_KERNEL=/d' "$work/debian.config" > "$work/nodebug.config"
	echo '# CONFIG_DEBUG_KERNEL is not set' >> "$work/nodebug.config"
	DEB_CONFIG_ONLY=1 "$top/scripts/deb-kernel.sh" "$ksrc" "$dobj" "$work/debian-out" \
		"$work/nodebug.config" > "$work/nodebug.txt" 2>&1
	rc=$?
	check "make deb on a config without DEBUG_KERNEL merges it in" "$work/nodebug.txt" \
		test $rc -eq 0 -a -n "$(grep -x 'CONFIG_LOCKMETER=y' "$dobj/.config")"
	DEB_CONFIG_ONLY=1 "$top/scripts/deb-kernel.sh" "$ksrc" "$dobj" "$work/debian-out" \
		"$work/no-such.config" > "$work/missing.txt" 2>&1
	rc=$?
	check "make deb KCONFIG=missing file: an error that says how to name one" "$work/missing.txt" \
		test $rc -ne 0 -a -n "$(grep 'KCONFIG=.*no such readable file; name a kernel config: make deb KCONFIG=' "$work/missing.txt")"
else
	echo "$dconfig missing (apt-get install linux-config-$line, or scripts/deps.sh)" > "$work/none"
	result "not ok" "make deb's config step on Debian's amd64 config" "$work/none"
fi

# ---- the kernel packages, from the guest's config ----
gdir=$build/deb$sfx/guest
image=$(grep '^linux-image-.*-lockmeter_.*\.deb$' "$gdir/kernel-files" 2>/dev/null | grep -v -- '-dbg_' | head -n 1)
headers=$(grep '^linux-headers-.*\.deb$' "$gdir/kernel-files" 2>/dev/null | head -n 1)
if [ -z "$image" ] || [ ! -f "$gdir/$image" ]; then
	echo "no linux-image package listed in $gdir/kernel-files (scripts/deb-kernel.sh)" > "$work/none"
	result "not ok" "kernel package built from the guest's config" "$work/none"
	finish
fi
rel=${image#linux-image-}
rel=${rel%%_*}
dpkg -c "$gdir/$image" > "$work/image.txt" 2>&1
missing=
for f in boot/vmlinuz-$rel boot/System.map-$rel boot/config-$rel \
	 lib/modules/$rel/kernel/lib/test_lockmeter.ko lib/modules/$rel/modules.dep; do
	grep -q " \./$f\$" "$work/image.txt" || missing="$missing $f"
done
echo "missing:$missing" > "$work/image.diag"
cat "$work/image.txt" >> "$work/image.diag"
check "kernel package $image: bzImage, System.map, config, modules (test_lockmeter.ko, modules.dep)" \
	"$work/image.diag" test -z "$missing"
case $rel in
*-lockmeter) result ok "kernel package: release $rel has the -lockmeter local version" ;;
*) echo "release: $rel" > "$work/rel.txt"; result "not ok" "kernel package: -lockmeter local version" "$work/rel.txt" ;;
esac

rm -rf "$boot"
mkdir -p "$boot"
dpkg-deb -x "$gdir/$image" "$boot/root" > "$work/x.txt" 2>&1
cfg=$boot/root/boot/config-$rel
check "kernel package: its config has CONFIG_LOCKMETER=y and CONFIG_TEST_LOCKMETER=m" "$work/x.txt" \
	test -n "$(grep -x 'CONFIG_LOCKMETER=y' "$cfg" 2>/dev/null)" \
	-a -n "$(grep -x 'CONFIG_TEST_LOCKMETER=m' "$cfg" 2>/dev/null)"
img=$boot/root/boot/vmlinuz-$rel
file -b "$img" > "$work/file.txt" 2>&1
check "kernel package: vmlinuz-$rel is an x86 bzImage of $rel" "$work/file.txt" \
	grep -q "bzImage, version $rel " "$work/file.txt"
check "kernel package: System.map-$rel has lockmeter's symbols" "$work/x.txt" \
	grep -q ' [Tt] lockmeter_' "$boot/root/boot/System.map-$rel"
if [ -n "$headers" ] && [ -f "$gdir/$headers" ]; then
	# what an out-of-tree module build reads: the kernel's auto.conf
	dpkg-deb --fsys-tarfile "$gdir/$headers" |
		tar -xOf - "./usr/src/linux-headers-$rel/include/config/auto.conf" > "$work/hcfg.txt" 2>&1
	check "headers package $headers: include/config/auto.conf has CONFIG_LOCKMETER=y" "$work/hcfg.txt" \
		grep -qx 'CONFIG_LOCKMETER=y' "$work/hcfg.txt"
else
	echo "no linux-headers package in $gdir/kernel-files" > "$work/none"
	result "not ok" "headers package built" "$work/none"
fi

# What the guest boots: the package's image and an initramfs with the
# package's modules and the usual user space.
cp "$img" "$boot/vmlinuz"
echo "$rel" > "$boot/release"
"$top/scripts/mkinitramfs.sh" "$boot/initramfs.cpio.gz" "$boot/initramfs" "$boot/root" \
	"$build/kselftest$sfx" "$build/lockstat/lockstat" > "$work/initramfs.txt" 2>&1
check "kernel package: an initramfs with its modules" "$work/initramfs.txt" \
	test -s "$boot/initramfs.cpio.gz"
finish
