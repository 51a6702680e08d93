#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh KSRC: run the tree's checkpatch.pl --strict over every
# kernel-side file we add and every patch of KSRC's line we apply (a member
# of the series without hunks has nothing to check).  Exit 1 on any finding.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
ksrc=$1
cp="$ksrc/scripts/checkpatch.pl"
[ -x "$cp" ] || { echo "checkpatch: $cp missing" >&2; exit 1; }
line=$(awk '/^VERSION =/ { v = $3 } /^PATCHLEVEL =/ { p = $3 } END { print v "." p }' \
	"$ksrc/Makefile")
series=patches/linux-$line
cd "$top" || exit 1
[ -d "$series" ] || { echo "checkpatch: no series $series" >&2; exit 1; }
rc=0
files=$(scripts/files.sh --kernel | awk '{print $1}')
for f in $files; do
	perl "$cp" --strict --no-tree --quiet --show-types -f "$f" || rc=1
done
for p in "$series"/*.patch; do
	grep -q '^+++ ' "$p" || continue
	perl "$cp" --strict --no-tree --quiet --show-types --no-signoff "./$p" || rc=1
done
[ $rc -eq 0 ] && echo "checkpatch: clean ($(echo "$files" | wc -w) files, $(ls "$series"/*.patch | wc -l) patches of $series)"
exit $rc
