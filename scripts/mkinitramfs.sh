#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT.cpio.gz STAGE MODROOT KSELFTEST_DIR [BIN...]
#
# Build the guest's initramfs: static busybox, /init and the guest scripts,
# the installed kernel modules, the installed kselftests (KSELFTEST_DIR
# none: none, as in make demo's), and any extra binaries (placed in
# /bin).  Those are static, but for a dynamic one
# (Debian's stress-ng, in the distro-sized kernel's initramfs) the
# libraries ldd lists and the dynamic loader go in as well, each at the
# path ldd names, so the loader finds them in its default directories.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=$1 stage=$2 modroot=$3 ksft=$4
shift 4

die() { echo "mkinitramfs: $*" >&2; exit 1; }
[ -x /bin/busybox ] || die "/bin/busybox missing (apt-get install busybox-static)"
file -L /bin/busybox 2>/dev/null | grep -q static ||
	ldd /bin/busybox 2>&1 | grep -q 'not a dynamic' || die "/bin/busybox is not static"

rm -rf "$stage"
mkdir -p "$stage"/bin "$stage"/sbin "$stage"/etc "$stage"/proc "$stage"/sys \
	"$stage"/dev "$stage"/tmp "$stage"/root "$stage"/lm "$stage"/lib "$stage"/mnt
cp /bin/busybox "$stage"/bin/busybox
ln -s busybox "$stage"/bin/sh
cp "$top"/scripts/guest/init "$stage"/init
cp "$top"/scripts/guest/check.sh "$top"/scripts/guest/demo.sh "$top"/scripts/guest/bench.sh \
	"$top"/scripts/guest/torture.sh "$top"/scripts/guest/scenario.sh "$top"/scripts/guest/lib.sh \
	"$top"/scripts/guest/scale.sh "$top"/scripts/guest/soak.sh "$stage"/lm/
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' \
	> "$stage"/etc/passwd
printf 'root:x:0:\nnogroup:x:65534:\n' > "$stage"/etc/group
[ -d "$modroot/lib/modules" ] && cp -a "$modroot/lib/modules" "$stage"/lib/
[ -d "$ksft" ] && cp -a "$ksft" "$stage"/kselftest
for b in "$@"; do
	cp "$b" "$stage"/bin/
	# ldd of a static binary says "not a dynamic executable" and fails
	libs=$(ldd "$b" 2>/dev/null) || continue
	# "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)", the loader
	# as "/lib64/ld-linux-x86-64.so.2 (0x...)", the vDSO with no path
	echo "$libs" | grep -q 'not found' && die "$b: a library ldd cannot find: $libs"
	for lib in $(echo "$libs" | sed -n 's|.*=> \(/[^ ]*\) (0x.*|\1|p; s|^[[:space:]]*\(/[^ ]*\) (0x.*|\1|p'); do
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
done
# terminfo entries for curses programs (lockstat top): the console, and
# what a serial console behind tmux or an xterm calls itself
for name in linux vt100 vt102 vt220 screen screen-256color tmux tmux-256color xterm \
	    xterm-256color; do
	d=$(printf %.1s "$name")
	for t in /usr/share/terminfo/$d/$name /lib/terminfo/$d/$name; do
		if [ -f "$t" ]; then
			mkdir -p "$stage"/usr/share/terminfo/$d
			cp "$t" "$stage"/usr/share/terminfo/$d/
			break
		fi
	done
done

(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
