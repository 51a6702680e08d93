#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# refresh-series.sh [--continue] SERIES SRC [WORK]
#
# Refresh a patch series (patches/linux-<line>/) against a new sublevel of
# its line: SRC is a pristine tree of it, or its tarball
# (/usr/src/linux-source-6.1.tar.xz).  The files the series touches are
# copied from SRC into WORK (build/refresh-<line> by default) and the
# patches applied there in order; each patch that applied, with an offset
# or fuzz or exactly, is written again from the diff of its files before
# and after, so that the series applies to SRC with no offset and no fuzz.
# A patch's description (everything before its first "--- a/") is kept.
#
# A patch with rejects stops the run: its rejects are listed (FILE.rej in
# WORK) and the files are left half patched.  Edit them in WORK into what
# the patch means on this sublevel, delete the .rej files, and run again
# with --continue: the patch is written from WORK's files and the rest of
# the series follows.  Exit 0 when the whole series is refreshed, 1 on
# rejects, 2 on misuse.
set -eu

cont=
[ "${1:-}" = --continue ] && { cont=1; shift; }
series=$(cd "${1:?usage: refresh-series.sh [--continue] SERIES SRC [WORK]}" && pwd)
src=${2:?usage: refresh-series.sh [--continue] SERIES SRC [WORK]}
top=$(cd "$(dirname "$0")/.." && pwd)
work=${3:-$top/build/refresh-$(basename "$series" | sed 's/^linux-//')}

die() { echo "refresh-series: $*" >&2; exit 2; }

# The files a patch touches, one a line.
files_of() { sed -n 's|^+++ b/\([^	]*\).*|\1|p' "$1"; }

# A fresh work dir: the files of the whole series as SRC has them.
if [ -z "$cont" ]; then
	rm -rf "$work"
	mkdir -p "$work/tree" "$work/before"
	cat "$series"/*.patch | files_of /dev/stdin | sort -u > "$work/files"
	if [ -d "$src" ]; then
		while read -r f; do
			[ -f "$src/$f" ] || continue
			mkdir -p "$(dirname "$work/tree/$f")"
			cp "$src/$f" "$work/tree/$f"
		done < "$work/files"
	else
		[ -r "$src" ] || die "$src: no tree or tarball"
		# the tarball's top directory (linux-source-6.1/) is dropped
		topdir=$(tar -tf "$src" | head -n 1 | cut -d/ -f1)
		sed "s|^|$topdir/|" "$work/files" > "$work/members"
		tar -C "$work/tree" --strip-components=1 -xf "$src" \
			--ignore-failed-read -T "$work/members" 2>/dev/null || true
	fi
	: > "$work/done"
else
	[ -f "$work/done" ] || die "$work: nothing to continue"
	[ -n "$(ls -A "$work/tree")" ] || die "$work/tree is empty"
	if find "$work/tree" -name '*.rej' | grep -q .; then
		find "$work/tree" -name '*.rej' | sed "s|^$work/tree/|  REJECT  |"
		die "rejects left in $work/tree: fix them and delete the .rej files"
	fi
fi

# Write patch $1 again from the files of "before" and "tree".
rewrite() {
	p=$1 new=$work/new.patch
	awk '/^--- a\// { exit } { print }' "$p" > "$new"
	files_of "$p" | while read -r f; do
		a=$work/before/$f b=$work/tree/$f
		[ -f "$a" ] || a=/dev/null
		[ -f "$b" ] || b=/dev/null
		diff -u --label "a/$f" --label "b/$f" "$a" "$b" >> "$new" || true
	done
	if cmp -s "$new" "$p"; then
		echo "  SAME    $(basename "$p")"
	else
		echo "  REFRESH $(basename "$p")"
		cp "$new" "$p"
	fi
	rm -f "$new"
	basename "$p" >> "$work/done"
}

# The patch that stopped the last run: its files are fixed by hand now.
if [ -n "$cont" ] && [ -f "$work/current" ]; then
	rewrite "$series/$(cat "$work/current")"
	rm -f "$work/current"
fi

for p in "$series"/*.patch; do
	name=$(basename "$p")
	grep -qx "$name" "$work/done" && continue
	rm -rf "$work/before"
	mkdir -p "$work/before"
	files_of "$p" | while read -r f; do
		[ -f "$work/tree/$f" ] || continue
		mkdir -p "$(dirname "$work/before/$f")"
		cp "$work/tree/$f" "$work/before/$f"
	done
	# no patch at all (an empty series member) is kept as it is
	if ! grep -q '^+++ b/' "$p"; then
		echo "  EMPTY   $name"
		echo "$name" >> "$work/done"
		continue
	fi
	if patch -d "$work/tree" -p1 -N -f --no-backup-if-mismatch < "$p" > "$work/log" 2>&1; then
		rewrite "$p"
	else
		echo "$name" > "$work/current"
		echo "  FAILED  $name"
		grep -i 'FAILED\|saving rejects\|malformed\|can.t find' "$work/log" | sed 's/^/          /'
		find "$work/tree" -name '*.rej' | sed "s|^$work/tree/|  REJECT  |"
		echo "fix the files in $work/tree, delete the .rej files, then:"
		echo "  $0 --continue $series $src $work"
		exit 1
	fi
done
echo "  DONE    $(basename "$series"): $(wc -l < "$work/done") patches"
