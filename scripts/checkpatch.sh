#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh KSRC: run the tree's checkpatch.pl --strict over every
# kernel-side file we add and every patch we apply.  Exit 1 on any finding.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
ksrc=$1
cp="$ksrc/scripts/checkpatch.pl"
[ -x "$cp" ] || { echo "checkpatch: $cp missing" >&2; exit 1; }
cd "$top"
rc=0
files=$(scripts/files.sh --kernel | awk '{print $1}')
for f in $files; do
	perl "$cp" --strict --no-tree --quiet --show-types -f "$f" || rc=1
done
for p in patches/linux-6.12/*.patch; do
	perl "$cp" --strict --no-tree --quiet --show-types --no-signoff "./$p" || rc=1
done
[ $rc -eq 0 ] && echo "checkpatch: clean ($(echo "$files" | wc -w) files, $(ls patches/linux-6.12/*.patch | wc -l) patches)"
exit $rc
