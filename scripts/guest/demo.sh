#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of "make demo": meter a short workload and print the result.
echo "LM-GUEST: demo begin"
if [ ! -e /proc/lockmeter ]; then
	echo "demo: /proc/lockmeter missing: kernel without CONFIG_LOCKMETER"
	exit 1
fi
echo reset > /proc/lockmeter 2>/dev/null
echo on > /proc/lockmeter 2>/dev/null
# A little of everything: fork/exec, pipes, tmpfs files, directory walks.
i=0
while [ $i -lt 200 ]; do
	echo "line $i" | cat > /tmp/f.$i
	i=$((i + 1))
done
find / -xdev > /dev/null 2>&1
dd if=/dev/zero of=/tmp/big bs=64k count=64 2>/dev/null
cat /tmp/f.* | wc -l > /dev/null
rm -f /tmp/f.* /tmp/big
echo off > /proc/lockmeter 2>/dev/null
echo "LM-GUEST: report begin"
cat /proc/lockmeter
echo "LM-GUEST: report end"
echo "LM-GUEST: demo end"
