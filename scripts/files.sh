#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# files.sh [--kernel]: the files lockmeter adds to a Linux tree, one
# "repo-path tree-path" pair per line.  With --kernel, only the kernel-side
# files (the ones checkpatch must pass).  The one list used by
# prepare-tree.sh, mkpatch.sh and checkpatch.sh.
set -eu
cd "$(dirname "$0")/.."

echo "Kconfig.lockstat kernel/Kconfig.lockstat"
for f in kernel/locking/lockmeter*.[chS] include/linux/lockmeter*.h \
	 include/uapi/linux/lockmeter*.h lib/test_lockmeter.c \
	 Documentation/locking/lockmeter.rst \
	 Documentation/netlink/specs/lockmeter.yaml; do
	[ -f "$f" ] && echo "$f $f"
done
[ "${1:-}" = --kernel ] && exit 0
find selftests -type f | LC_ALL=C sort | while read -r f; do
	echo "$f tools/testing/selftests/lockmeter/${f#selftests/}"
done
if [ -d tools/lockstat ]; then
	find tools/lockstat -type f | LC_ALL=C sort | while read -r f; do
		echo "$f $f"
	done
fi
