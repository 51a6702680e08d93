#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# step.sh NAME COMMAND [ARG...]
#
# Run COMMAND as one step of make check and append a line to the steps
# file, $LM_STEPS (nothing when unset): NAME, start and end (seconds since
# the epoch) and the exit status, tab separated.  scripts/steps.sh turns
# the file into make check's closing table.  The exit status is COMMAND's.
set -u

name=$1
shift
start=$(date +%s)
"$@"
rc=$?
if [ -n "${LM_STEPS:-}" ]; then
	printf '%s\t%s\t%s\t%s\n' "$name" "$start" "$(date +%s)" "$rc" >> "$LM_STEPS"
fi
exit $rc
