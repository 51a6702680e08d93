#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# prepare-tree.sh KSRC [LINE]
#
# Make KSRC a Linux LINE tree (6.12 by default, or 6.1) with lockmeter in
# it:
#  - if KSRC does not exist, unpack Debian's linux-source-LINE there;
#  - copy the project's new files into the tree (only files whose content
#    changed are rewritten, so an unchanged tree rebuilds nothing);
#  - apply patches/linux-LINE/*.patch in order (a member without hunks,
#    such as 6.1's PREEMPT_RT patch, is skipped).  The set applied last is
#    kept in KSRC/.lockmeter/; when the series changes, the old one is
#    reverted first.  A patch that does not apply stops with a message.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
ksrc=${1:?usage: prepare-tree.sh KSRC [LINE]}
line=${2:-6.12}
tarball=/usr/src/linux-source-$line.tar.xz
series=$top/patches/linux-$line
state=$ksrc/.lockmeter

die() { echo "prepare-tree: $*" >&2; exit 1; }

[ -d "$series" ] || die "no patch series for Linux $line ($series)"

if [ ! -e "$ksrc/Makefile" ]; then
	[ -r "$tarball" ] || die "$tarball missing (apt-get install linux-source-$line)"
	parent=$(dirname "$ksrc")
	mkdir -p "$parent"
	echo "  UNPACK  $tarball -> $ksrc"
	rm -rf "$parent/linux-source-$line"
	tar -C "$parent" -xf "$tarball"
	mv "$parent/linux-source-$line" "$ksrc"
fi

grep -q "^PATCHLEVEL = ${line#*.}\$" "$ksrc/Makefile" &&
	grep -q "^VERSION = ${line%%.*}\$" "$ksrc/Makefile" ||
	die "$ksrc is not a Linux $line tree"
mkdir -p "$state"

"$top/scripts/files.sh" > "$state/manifest.new"
# Files we put there before but no longer ship: remove them.
if [ -f "$state/manifest" ]; then
	awk '{print $2}' "$state/manifest.new" | sort > "$state/new.list"
	awk '{print $2}' "$state/manifest" | sort | comm -23 - "$state/new.list" |
	while read -r dst; do
		echo "  RM      $dst"
		rm -f "$ksrc/$dst"
	done
	rm -f "$state/new.list"
fi
while read -r src dst; do
	if ! cmp -s "$top/$src" "$ksrc/$dst"; then
		mkdir -p "$(dirname "$ksrc/$dst")"
		cp "$top/$src" "$ksrc/$dst"
	fi
done < "$state/manifest.new"
mv "$state/manifest.new" "$state/manifest"

# The patch series.  A series that stopped half way is reverted as far
# as it got.
if [ -d "$state/applying" ] && [ ! -d "$state/applied" ]; then
	mv "$state/applying" "$state/applied"
fi
rm -rf "$state/applying"
if ! diff -r -q "$series" "$state/applied" >/dev/null 2>&1; then
	if [ -d "$state/applied" ]; then
		for p in $(ls "$state/applied"/*.patch 2>/dev/null | sort -r); do
			grep -q '^+++ ' "$p" || continue
			echo "  REVERT  $(basename "$p")"
			patch -d "$ksrc" -p1 -R -s -f < "$p" >/dev/null ||
				die "cannot revert $(basename "$p"); restore $ksrc by hand"
		done
		rm -rf "$state/applied"
	fi
	mkdir -p "$state/applying"
	for p in $(ls "$series"/*.patch | sort); do
		if ! grep -q '^+++ ' "$p"; then
			cp "$p" "$state/applying/"
			continue
		fi
		if ! patch -d "$ksrc" -p1 -N -s -f --dry-run < "$p" >/dev/null 2>&1; then
			patch -d "$ksrc" -p1 -N -f --dry-run < "$p" >&2 || true
			die "$(basename "$p") does not apply to $ksrc; fix the patch (already applied patches are listed in $state/applying)"
		fi
		echo "  PATCH   $(basename "$p")"
		patch -d "$ksrc" -p1 -N -s -f < "$p" >/dev/null
		cp "$p" "$state/applying/"
	done
	mv "$state/applying" "$state/applied"
fi
