#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkdisk.sh IMG: a fresh 64 MiB ext4 file system with a 4 MiB journal in
# the raw image IMG, for the journal scenario (the guest's /dev/vda).  The
# inode tables and the journal are written now, so the guest's ext4 has no
# lazy initialisation running beside the workload on the throttled disk.
set -eu
img=$1
command -v mkfs.ext4 >/dev/null 2>&1 || [ -x /sbin/mkfs.ext4 ] ||
	{ echo "mkdisk: mkfs.ext4 missing (apt-get install e2fsprogs)" >&2; exit 1; }
PATH=$PATH:/sbin:/usr/sbin
mkdir -p "$(dirname "$img")"
rm -f "$img.tmp"
truncate -s 64M "$img.tmp"
mkfs.ext4 -q -F -J size=4 -E lazy_itable_init=0,lazy_journal_init=0 -L lmjournal "$img.tmp"
mv "$img.tmp" "$img"
