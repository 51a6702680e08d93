#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of "make check": run the kselftest collection "lockmeter".
cd /kselftest || exit 1
# What metering looks like before any test touches it (lockmeter=on).
if [ -r /proc/lockmeter ]; then
	echo "LM-GUEST: boot-state $(sed -n 's/^state: //p' /proc/lockmeter)" \
		"rows=$(sed -n 's/^rows: //p' /proc/lockmeter)"
fi
echo "LM-GUEST: kselftest begin"
./run_kselftest.sh -c lockmeter
rc=$?
echo "LM-GUEST: kselftest end rc=$rc"
exit $rc
