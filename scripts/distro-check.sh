#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# distro-check.sh need BUILD | passed BUILD | key | tap BUILD KOBJ TAP
#
# The distro-sized kernel of make check (x86_64_defconfig +
# config/distro.config, build/obj-distro) is the longest build of all, so
# make check builds and boots it only when what it is made of changed
# since its last passing run: the lockmeter files of the tree
# (scripts/files.sh: kernel, test module, kselftests, lockstat), the
# patches, the config fragment, the guest's scripts, the scripts that
# build it, and the version of Debian's kernel source.  BUILD/distro.pass
# holds that run's key.  DISTRO=force builds and boots it whatever the key.
#
#   need    exit 0 and write BUILD/distro.key when the kernel must be built
#           and booted; else say why not, remove BUILD/distro.key, exit 1
#   passed  the run of BUILD/distro.key passed: it becomes BUILD/distro.pass
#   key     print the key of the tree as it is
#   tap BUILD KOBJ TAP
#           one TAP result: the build in KOBJ said no compiler warning
#           (KOBJ/.lockmeter-build.err, which build-kernel.sh keeps)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)

key() {
	(
		cd "$top"
		scripts/files.sh | while read -r f _; do
			sha256sum "$f"
		done
		find patches config/distro.config scripts/guest scripts/build-kernel.sh scripts/kcc \
		     scripts/mkinitramfs.sh scripts/distro-check.sh -type f |
			LC_ALL=C sort | xargs sha256sum
		dpkg-query -W -f '${Version}\n' linux-source-6.12 2>/dev/null || true
	) | sha256sum | cut -d' ' -f1
}

case ${1:-} in
key)
	key
	;;
need)
	build=$2
	mkdir -p "$build"
	k=$(key)
	if [ "${DISTRO:-}" != force ] && [ -f "$build/distro.pass" ] &&
	   [ "$(sed -n 1p "$build/distro.pass")" = "$k" ]; then
		rm -f "$build/distro.key"
		echo "  DISTRO  skipped: the sources are those of its passing run of" \
		     "$(sed -n 2p "$build/distro.pass") (build/distro.pass; DISTRO=force runs it)"
		exit 1
	fi
	if [ "${DISTRO:-}" = force ]; then
		why="DISTRO=force"
	elif [ -f "$build/distro.pass" ]; then
		why="sources changed since its passing run of $(sed -n 2p "$build/distro.pass")"
	else
		why="no passing run recorded in build/distro.pass"
	fi
	echo "  DISTRO  the distro-sized kernel is built and booted: $why"
	echo "$k" > "$build/distro.key"
	;;
passed)
	build=$2
	if [ -f "$build/distro.key" ]; then
		{ cat "$build/distro.key"; date -u '+%Y-%m-%d %H:%M UTC'; } > "$build/distro.pass"
		rm -f "$build/distro.key"
	fi
	;;
tap)
	err=$3/.lockmeter-build.err tap=$4
	what="distro-sized kernel (x86_64_defconfig + config/distro.config) built without a compiler warning"
	if [ -f "$err" ] && ! grep -q 'warning:' "$err"; then
		printf 'TAP version 13\n1..1\nok 1 - %s\n' "$what" > "$tap"
	else
		printf 'TAP version 13\n1..1\nnot ok 1 - %s\n' "$what" > "$tap"
		grep -s -A3 'warning:' "$err" | head -n 40 | sed 's/^/# /' >> "$tap"
		[ -f "$err" ] || echo "# $err missing" >> "$tap"
	fi
	;;
*)
	echo "usage: distro-check.sh need BUILD | passed BUILD | key | tap BUILD KOBJ TAP" >&2
	exit 2
	;;
esac
