#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of "make check": run the kselftest collection "lockmeter".
cd /kselftest || exit 1
echo "LM-GUEST: kselftest begin"
./run_kselftest.sh -c lockmeter
rc=$?
echo "LM-GUEST: kselftest end rc=$rc"
exit $rc
