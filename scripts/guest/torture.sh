#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the locktorture boot of "make check" (lmguest=torture, on
# the lockdep kernel).  For each lock type lockmeter meters, locktorture.ko
# hammers one lock of that type while metering is on, a loop beside it
# switches metering off, resets, switches it on, reads /proc/lockmeter and
# asks for netlink status and a stats dump (lockstat), and CPU 1 goes off
# and on line.  Then the module is removed.  One TAP line per type:
#
#   ok: "End of test: SUCCESS" for that type, writers (and readers) made
#   progress, every control write, read, dump and hotplug step succeeded,
#   at least MIN_FLIPS flip cycles and MIN_PLUGS hotplug cycles happened,
#   /proc/lockmeter showed rows of the lockmeter types the torture lock
#   is (e.g. read and write for rw_lock) taken at sites in locktorture,
#   and the kernel printed no splat while the type ran.
#
# Each type runs until it has all of that and at least MIN_SECS, and at
# most MAX_SECS: pass or fail does not depend on the speed of the host.
# The lockmeter loss counters are summed over the flip cycles (read just
# before each reset) and reported per type.  After the types, check.sh
# runs the kselftests named by lmtests= (the fuzzer).
#
# lmtorture=spin_lock,mutex_lock on the command line runs only those.
# shellcheck source=scripts/guest/lib.sh
. /lm/lib.sh

TYPES="spin_lock spin_lock_irq raw_spin_lock raw_spin_lock_irq rw_lock rw_lock_irq
mutex_lock rwsem_lock ww_mutex_lock rtmutex_lock percpu_rwsem_lock"
MIN_SECS=12
MAX_SECS=90
MIN_FLIPS=10
MIN_PLUGS=2
PARAMS="nwriters_stress=2 nreaders_stress=2 stat_interval=3 onoff_interval=0
shuffle_interval=3 verbose=0"
PROC=/proc/lockmeter
CPU1=/sys/devices/system/cpu/cpu1/online
MODDIR=/lib/modules/$(uname -r)/kernel
# What a kernel splat starts with (guest-verdict.py has the full list).
SPLAT='WARNING:|BUG:|Oops|Call Trace:|Kernel panic|kernel BUG at|detected stall|circular locking|inconsistent lock state|possible recursive locking|suspicious RCU usage|lock held when returning|DEBUG_LOCKS_WARN_ON|turning off the locking correctness validator'

for arg in $(cat /proc/cmdline); do
	case $arg in
	lmtorture=*) TYPES=$(echo "${arg#lmtorture=}" | tr , ' ') ;;
	esac
done

T=/tmp/torture
rm -rf $T
mkdir -p $T

uptime_s() { cut -d. -f1 /proc/uptime; }

# Increment the number in file $1.
bump() { echo $(($(cat "$1" 2>/dev/null || echo 0) + 1)) > "$1"; }

# fail FILE WHAT: count one failed step, keep the first few messages.
fail() {
	bump "$1.n"
	[ "$(cat "$1.n")" -le 3 ] && echo "$2" >> "$1.msg"
}

# Flip loop: until $T/stop exists.  Each cycle reads the report, adds its
# loss counters to $T/loss, asks netlink for status and a stats dump,
# then off, reset, on.
flip_loop() {
	i=0
	while [ ! -e $T/stop ]; do
		if cat $PROC > $T/report 2> $T/err && grep -q '^state: ' $T/report; then
			awk -v f=$T/loss '
				BEGIN {
					while ((getline l < f) > 0) { split(l, a, "="); s[a[1]] = a[2] }
					close(f)
				}
				/^$/ { exit }
				/^(dropped|unmatched|recursion|table_full|evicted): / {
					k = substr($1, 1, length($1) - 1); s[k] += $2 }
				END { for (k in s) print k "=" s[k] > f }' $T/report
			# which lockmeter types of rows came from locktorture's sites
			awk '$NF ~ /\[locktorture\]$/ { print $1 }' $T/report | sort -u > $T/types
			sort -u $T/types $T/seen -o $T/seen
		else
			fail $T/flip "cat $PROC: $(cat $T/err)"
		fi
		lockstat status > /dev/null 2> $T/err || fail $T/flip "lockstat status: $(cat $T/err)"
		lockstat print > /dev/null 2> $T/err || fail $T/flip "lockstat print: $(cat $T/err)"
		for w in off reset on; do
			echo $w 2> $T/err > $PROC || fail $T/flip "echo $w > $PROC: $(cat $T/err)"
		done
		i=$((i + 1))
		echo $i > $T/flips
		sleep 0.1
	done
}

# Hotplug loop: CPU 1 off line and on line again, until $T/stop exists.
plug_loop() {
	i=0
	while [ ! -e $T/stop ]; do
		echo 0 2> $T/perr > $CPU1 || fail $T/plug "cpu1 offline: $(cat $T/perr)"
		sleep 0.5
		echo 1 2> $T/perr > $CPU1 || fail $T/plug "cpu1 online: $(cat $T/perr)"
		i=$((i + 1))
		echo $i > $T/plugs
		sleep 0.5
	done
}

# On PREEMPT_RT spinlock_t and rwlock_t are rtmutexes, with types of their own.
case $(uname -v) in
*PREEMPT_RT*) RT=1 ;;
*) RT= ;;
esac

# The lockmeter row types a locktorture type must produce.
want_rows() {
	case $1 in
	raw_spin_lock*) echo spin ;;
	spin_lock*) if [ -n "$RT" ]; then echo rt_spin; else echo spin; fi ;;
	rw_lock*) if [ -n "$RT" ]; then echo rt_read rt_write; else echo read write; fi ;;
	mutex_lock|ww_mutex_lock) echo mutex ;;
	rwsem_lock) echo rwsem_read rwsem_write ;;
	rtmutex_lock) echo rt_mutex ;;
	percpu_rwsem_lock) echo percpu_rwsem_read percpu_rwsem_write ;;
	esac
}

# The row types of want_rows $1 not seen yet.
rows_missing() {
	for k in $(want_rows "$1"); do
		grep -qx "$k" $T/seen || printf '%s ' "$k"
	done
}

# Total of the last "Writes:" or "Reads :" stats line in file $2.
stat_total() {
	grep "$1:  Total: " "$2" | tail -n 1 | sed 's/.*Total: \([0-9]*\).*/\1/'
}

# The state lockmeter=on left, before anything touches it (check.sh,
# which prints it too, comes last here).
if [ -r $PROC ]; then
	lm_mark "boot-state $(sed -n 's/^state: //p' $PROC)" \
		"rows=$(sed -n 's/^rows: //p' $PROC)"
fi
lm_mark "torture begin"
echo "TAP version 13"
n=0 fails=0
set -- $TYPES
echo "1..$#"

if ! [ -e $PROC ] || ! [ -f $MODDIR/kernel/locking/locktorture.ko ]; then
	for t in $TYPES; do
		n=$((n + 1))
		echo "not ok $n locktorture: $t # no $PROC or no locktorture.ko in $MODDIR"
	done
	lm_mark "torture end rc=1"
	exit 1
fi
# torture.ko, the module locktorture needs; absent when built in
[ -f $MODDIR/kernel/torture.ko ] && insmod $MODDIR/kernel/torture.ko
[ -e $CPU1 ] || echo "# $CPU1 missing: no CPU hotplug"

for t in $TYPES; do
	n=$((n + 1))
	rm -f $T/stop $T/flips $T/plugs $T/loss $T/flip.* $T/plug.* $T/why
	: > $T/seen
	dmesg -c > /dev/null
	# no rows of the type before: they would count as seen
	echo reset > $PROC && echo on > $PROC || echo "reset, on: failed" >> $T/why
	start=$(uptime_s)
	# shellcheck disable=SC2086
	if ! insmod $MODDIR/kernel/locking/locktorture.ko torture_type=$t $PARAMS 2> $T/err; then
		echo "not ok $n locktorture: $t # insmod: $(cat $T/err)"
		fails=$((fails + 1))
		continue
	fi
	flip_loop &
	flip_pid=$!
	plug_loop &
	plug_pid=$!

	# Run until everything wanted has happened, within MAX_SECS.
	while :; do
		sleep 1
		el=$(($(uptime_s) - start))
		flips=$(cat $T/flips 2>/dev/null || echo 0)
		plugs=$(cat $T/plugs 2>/dev/null || echo 0)
		dmesg > $T/dmesg.now
		w=$(stat_total Writes $T/dmesg.now)
		missing=$(rows_missing $t)
		if [ $el -ge $MIN_SECS ] && [ $flips -ge $MIN_FLIPS ] &&
		   [ $plugs -ge $MIN_PLUGS ] && [ "${w:-0}" -gt 0 ] && [ -z "$missing" ]; then
			break
		fi
		if [ $el -ge $MAX_SECS ]; then
			echo "stopped at the bound, ${el}s: $flips flip cycles (want $MIN_FLIPS)," \
				"$plugs hotplug cycles (want $MIN_PLUGS), writes ${w:-none}" >> $T/why
			break
		fi
	done
	touch $T/stop
	wait $flip_pid $plug_pid
	echo 1 > $CPU1 2>/dev/null
	el=$(($(uptime_s) - start))
	rmmod locktorture 2> $T/err || echo "rmmod: $(cat $T/err)" >> $T/why
	echo off > $PROC
	dmesg -c > $T/dmesg.$t

	w=$(stat_total Writes $T/dmesg.$t)
	r=$(stat_total "Reads " $T/dmesg.$t)
	grep -q "${t}-torture:--- End of test: SUCCESS" $T/dmesg.$t ||
		echo "no '${t}-torture:--- End of test: SUCCESS': $(grep -o 'End of test: [A-Z_]*' $T/dmesg.$t)" >> $T/why
	[ "${w:-0}" -gt 0 ] || echo "no writer progress (Writes Total: ${w:-none})" >> $T/why
	missing=$(rows_missing $t)
	[ -z "$missing" ] ||
		echo "$PROC never showed a row of type ${missing% } taken in locktorture" >> $T/why
	case $t in
	rw_lock*|rwsem_lock)
		[ "${r:-0}" -gt 0 ] || echo "no reader progress (Reads Total: ${r:-none})" >> $T/why ;;
	esac
	[ -e $T/flip.n ] && echo "$(cat $T/flip.n) failed flip steps: $(cat $T/flip.msg)" >> $T/why
	[ -e $T/plug.n ] && echo "$(cat $T/plug.n) failed hotplug steps: $(cat $T/plug.msg)" >> $T/why
	if grep -Eq "$SPLAT" $T/dmesg.$t; then
		echo "kernel splat: $(grep -Em 1 "$SPLAT" $T/dmesg.$t)" >> $T/why
	fi

	loss=$(tr '\n' ' ' < $T/loss 2>/dev/null)
	echo "# $t: ${el}s, $(cat $T/flips 2>/dev/null || echo 0) flip cycles," \
		"$(cat $T/plugs 2>/dev/null || echo 0) hotplug cycles, writes ${w:-none}," \
		"reads ${r:--}"
	echo "# $t: lockmeter losses summed over the cycles: ${loss:-none read}"
	echo "# $t: row types with a locktorture site: $(tr '\n' ' ' < $T/seen)"
	grep -E 'Writes:|Reads :|End of test' $T/dmesg.$t | sed 's/^/# /'
	if [ -s $T/why ]; then
		sed 's/^/# /' $T/why
		grep -Eq "$SPLAT" $T/dmesg.$t &&
			grep -EA 12 "$SPLAT" $T/dmesg.$t | head -n 40 | sed 's/^/#   /'
		echo "not ok $n locktorture: $t"
		fails=$((fails + 1))
	else
		echo "ok $n locktorture: $t"
	fi
done
lm_mark "torture end rc=$fails"

/lm/check.sh
rc=$?
[ $fails -eq 0 ] && exit $rc
exit 1
