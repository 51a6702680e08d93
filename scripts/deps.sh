#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages lockmeter's build and tests need, if missing.
# Only Debian's archive is used (apt-get); nothing is downloaded otherwise.
set -eu

PKGS="linux-source-6.12 linux-source-6.1 build-essential bc bison flex libelf-dev libssl-dev
cpio xz-utils kmod ccache rsync python3 perl qemu-system-x86 busybox-static
pkg-config libnl-3-dev libnl-genl-3-dev libncurses-dev tmux clang libclang-rt-dev
prometheus prometheus-node-exporter pcp python3-requests curl
gcc-aarch64-linux-gnu dpkg-dev debhelper lintian file dwarves linux-config-6.12 linux-config-6.1
e2fsprogs stress-ng"

# linux-source-6.1: Debian 12's own line, the second kernel line (KVER=6.1).
# make deb: dpkg-dev and debhelper build the packages (the kernel's
# bindeb-pkg calls dh_* too), lintian and file test them, dwarves has the
# pahole that a distribution config's CONFIG_DEBUG_INFO_BTF needs, and
# linux-config-6.12 and linux-config-6.1 are Debian's own configs of the
# two lines, the user's case that make check (6.12) and make deb-check
# KVER=6.1 merge lockmeter into.
# e2fsprogs: mkfs.ext4 makes the journal scenario's disk image.
# stress-ng: the workload of the scale boot (scripts/guest/scale.sh), packed
# into the distro-sized kernel's initramfs with its libraries.
# The export tests run promtool (prometheus), prometheus-node-exporter and
# a private pmcd with pmdaopenmetrics (pcp, python3-requests) on loopback.
# In a container without systemd as PID 1, pcp's postinst would fail on
# "systemctl start": SYSTEMD_OFFLINE=1 makes systemctl skip it (the tests
# start their own daemons), and a package left half-configured by an
# earlier run is configured again.
if [ ! -d /run/systemd/system ]; then
	export SYSTEMD_OFFLINE=1
fi

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done

[ -z "$missing" ] && exit 0

export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" -eq 0 ] && dpkg-query -W -f='${Status}\n' $PKGS 2>/dev/null |
	grep -q 'half-configured\|unpacked'; then
	dpkg --configure -a
fi

echo "deps: installing:$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages and not root; run as root or install:$missing" >&2
	exit 1
fi
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
