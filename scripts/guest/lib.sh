# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Sourced by /init and the guest scripts (/lm/lib.sh in the guest).

# lm_mark TEXT: the marker line "LM-GUEST: TEXT" on stdout, the test
# channel the host judges, and a copy in the kernel log first, so the
# console shows, timestamped, where each phase began (the host's verdict
# reads only stdout's).
lm_mark() {
	echo "<5>LM-GUEST: $*" > /dev/kmsg 2>/dev/null
	echo "LM-GUEST: $*"
}
