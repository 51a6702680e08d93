#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# deb-lockstat.sh OUTDIR: build the lockstat Debian package into OUTDIR.
#
# The source package is staged in a temporary lockstat-VERSION directory,
# laid out as in the repository (tools/lockstat, the UAPI header it
# includes, the kernel documentation it ships) with
# packaging/lockstat/debian, and built there with dpkg-buildpackage
# (debhelper).  The repository is only read.
# DEB_BUILD_OPTIONS=nocheck skips the tool's test suite in the build.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: deb-lockstat.sh OUTDIR}
deb=$top/packaging/lockstat/debian

die() { echo "deb-lockstat: $*" >&2; exit 1; }

for t in dpkg-buildpackage dpkg-parsechangelog dh; do
	command -v $t >/dev/null ||
		die "$t missing (apt-get install dpkg-dev debhelper, or run scripts/deps.sh)"
done

# The package version is the tool's: a bump in lockstat.h needs a
# debian/changelog entry, or the package would carry the wrong number.
tool=$(sed -n 's/^#define LOCKSTAT_VERSION[[:space:]]*"\(.*\)"$/\1/p' \
	"$top/tools/lockstat/lockstat.h")
pkg=$(dpkg-parsechangelog -l "$deb/changelog" -S Version)
[ -n "$tool" ] || die "no LOCKSTAT_VERSION in tools/lockstat/lockstat.h"
[ "$tool" = "${pkg%-*}" ] ||
	die "lockstat is version $tool but packaging/lockstat/debian/changelog says $pkg: add a changelog entry (dch -v $tool)"

mkdir -p "$out"
out=$(cd "$out" && pwd)
# A short stage path: lockstat's screen tests show fixture paths on a
# 120-column status line.
stage=$(mktemp -d "${TMPDIR:-/tmp}/lsdeb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
src=$stage/lockstat-$pkg
mkdir -p "$src/tools" "$src/include/uapi/linux" "$src/Documentation/locking"
cp -a "$top/tools/lockstat" "$src/tools/"
cp "$top/include/uapi/linux/lockmeter.h" "$src/include/uapi/linux/"
cp "$top/Documentation/locking/lockmeter.rst" "$src/Documentation/locking/"
cp -a "$deb" "$src/debian"

echo "  DEB     lockstat $pkg (log in $out/lockstat-build.log)"
(cd "$src" && dpkg-buildpackage -b -us -uc) > "$out/lockstat-build.log" 2>&1 ||
	{ tail -n 40 "$out/lockstat-build.log" >&2; die "dpkg-buildpackage failed (log in $out/lockstat-build.log)"; }

# dpkg-buildpackage writes next to the source directory: move what the
# .changes file names into OUTDIR.
changes=$stage/lockstat_${pkg}_$(dpkg-architecture -qDEB_HOST_ARCH).changes
[ -f "$changes" ] || die "no $changes after the build"
sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]* [^ ]* [^ ]* //p' "$changes" |
while read -r f; do
	mv "$stage/$f" "$out/"
done
mv "$changes" "$out/"
ls "$out"/lockstat_"$pkg"_*.deb
