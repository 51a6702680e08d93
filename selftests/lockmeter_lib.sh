# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the shell selftests: KTAP results and the row type of the
# module's spinlock_t (on PREEMPT_RT an rtmutex, the sleeping type
# rt_spin, in the RT SPINLOCKS section).
KSFT_SKIP=4

case $(uname -v) in
*PREEMPT_RT*) SPIN=rt_spin SPINLOCKS='RT SPINLOCKS' ;;
*) SPIN=spin SPINLOCKS=SPINLOCKS ;;
esac

n=0 fails=0
ok() {	# ok NAME COND-EXIT-STATUS: one result, numbered
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		fails=$((fails + 1))
	fi
}
diag() { sed 's/^/# /'; }
