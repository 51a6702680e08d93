#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of "make check": run the kselftest collection "lockmeter", or
# only the tests named by lmtests=lockmeter:a,lockmeter:b on the command line.
# shellcheck source=scripts/guest/lib.sh
. /lm/lib.sh
cd /kselftest || exit 1
# What metering looks like before any test touches it (lockmeter=on).
if [ -r /proc/lockmeter ]; then
	lm_mark "boot-state $(sed -n 's/^state: //p' /proc/lockmeter)" \
		"rows=$(sed -n 's/^rows: //p' /proc/lockmeter)"
fi
set -- -c lockmeter
for arg in $(cat /proc/cmdline); do
	case $arg in
	lmtests=*)
		set --
		for t in $(echo "${arg#lmtests=}" | tr , ' '); do
			set -- "$@" -t "$t"
		done
		;;
	esac
done
lm_mark "kselftest begin"
./run_kselftest.sh "$@"
rc=$?
lm_mark "kselftest end rc=$rc"
exit $rc
