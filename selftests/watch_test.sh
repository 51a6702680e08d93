#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Alerts, told the moment they happen: the thresholds of /proc/lockmeter
# (bad ones refused, nothing changed), and lockstat watch against the test
# module's known holds.  With --over 5ms, the module's spinlock held 10 ms
# three times and its mutex 50 ms once give exactly those four alerts, in
# order, with lock, site, comm, chain and (the mutex) where it blocked;
# with --over 100ms, none but the holds the module itself measured over
# 100 ms; a mutex held 3 s with the threshold at 1 s gives one "held"
# alert naming holder and waiter while it is held; a flood of 100,000
# holds over the threshold ends with each alerted, sent or counted as
# dropped; an unprivileged subscriber is refused; a metered lock taken by a
# probe on the ipi_send_cpu tracepoint, which an alert's irq_work fires
# from inside lockmeter's charge, is turned away there and counted as
# recursion, and metered everywhere else; the alert machinery's own locks
# alert nobody; with a threshold left set and nobody listening, the sender
# stops.
#
# Under single-threaded TCG any lock may look held for ~100 ms while its
# vCPU waits for its turn, so other locks' alerts come too: the checks
# count the module's locks only.  Nothing waits on the machine's speed:
# every wait polls for what it needs, with a bound.  Prints KTAP; exits 4
# (skip) without lockstat, lockmeter or the test module.
MOD=test_lockmeter
MODPROC=/proc/$MOD
PROC=/proc/lockmeter
T=$(mktemp -d /tmp/watch_test.XXXXXX) || exit 1
wpid=
cleanup() {
	[ -n "$wpid" ] && kill -INT "$wpid" 2>/dev/null && wait "$wpid"
	echo 'watch off' > $PROC 2>/dev/null
	echo off > $PROC 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# ok, diag, SPIN (the module's spinlock_t's row type)
# shellcheck source=selftests/lockmeter_lib.sh
. "$(dirname "$0")/lockmeter_lib.sh"
hdr() { sed -n "s/^$1: //p" $PROC; }	# hdr KEY: a header value
modval() { sed -n "s/^$2: //p" "$1"; }	# modval FILE KEY: a module result

# poll TRIES CMD...: run CMD each 0.2 s until it succeeds, TRIES times at most
poll() {
	tries=$1
	shift
	while [ "$tries" -gt 0 ]; do
		"$@" && return 0
		tries=$((tries - 1))
		sleep 0.2
	done
	return 1
}

# watch_start FILE ARGS...: lockstat watch ARGS --json > FILE, in the
# background, until the thresholds it sets are in the header
watch_start() {
	out=$1
	shift
	lockstat watch "$@" --json > "$out" 2> "$out.err" &
	wpid=$!
	poll 100 sh -c "! grep -q '^watch_hold_ns: -' $PROC || ! grep -q '^watch_wait_ns: -' $PROC"
}

# watch_stop: SIGINT to watch; its exit status
watch_stop() {
	kill -INT "$wpid"
	wait "$wpid"
	rc=$?
	wpid=
	return $rc
}

# mine FILE: the alerts of the module's locks, one per line
mine() { grep -F "[$MOD]\", \"site\"" "$1"; }
# tested FILE: the hold alerts of the locks under test, its spinlock and
# its mutex (not lmt_mutex, which serialises the module's commands)
tested() {
	grep '"kind": "hold"' "$1" |
		grep -e "\"lock\": \"lmt_static_lock\[$MOD\]\"" -e "\"lock\": \"lmt_sleep_mutex\[$MOD\]\""
}

# alert_counts: the header's alerts, alerts_sent and alerts_dropped, on
# one line, from one read: three reads would count alerts raised between
drained_seen=
alert_counts() {
	sed -n -e 's/^alerts: //p' -e 's/^alerts_sent: //p' -e 's/^alerts_dropped: //p' $PROC |
		tr '\n' ' '
}
# drained: every alert raised is sent or counted as dropped.  Read at any
# moment, alerts = sent + dropped + those still queued (lockmeter_watch.c):
# equal once the queues are empty, and never fewer alerts than that
drained() {
	drained_seen=$(alert_counts)
	# shellcheck disable=SC2086 # three numbers
	set -- $drained_seen
	[ $# -eq 3 ] || return 1
	if [ "$1" -lt $(($2 + $3)) ]; then
		echo "sent + dropped > alerts: $drained_seen" | diag
		return 2
	fi
	[ "$1" -eq $(($2 + $3)) ]
}
# poll_drained TRIES: drained, polled; an alert counted twice stops it
poll_drained() {
	tries=$1
	while [ "$tries" -gt 0 ]; do
		drained
		case $? in
		0) return 0 ;;
		2) return 1 ;;
		esac
		tries=$((tries - 1))
		sleep 0.2
	done
	return 1
}

echo "TAP version 13"
command -v lockstat >/dev/null || { echo "1..0 # SKIP lockstat not installed"; exit $KSFT_SKIP; }
[ -e $PROC ] || { echo "1..0 # SKIP kernel without lockmeter"; exit $KSFT_SKIP; }
grep -q '^alerts: ' $PROC || { echo "1..0 # SKIP kernel without alerts"; exit $KSFT_SKIP; }
if [ ! -e $MODPROC ]; then
	insmod "/lib/modules/$(uname -r)/kernel/lib/$MOD.ko" 2>/dev/null
	[ -e $MODPROC ] || { echo "1..0 # SKIP $MOD.ko not loadable"; exit $KSFT_SKIP; }
fi
echo "1..25"
read -r comm < /proc/$$/comm

# 1: bad thresholds are refused and change nothing
echo 'watch off' > $PROC
r=0
for bad in 'watch hold 5' 'watch hold 1001s' 'watch hold spin 5xs' 'watch hold nosuch 5ms' \
	   'watch hold' 'watch hold spin 5ms 1' 'watch grab 5ms' 'watch hold -5ms' \
	   'watch hold 99999999999999999999s'; do
	if echo "$bad" > $PROC 2>/dev/null; then
		echo "accepted: $bad" | diag
		r=1
	fi
done
[ "$(hdr watch_hold_ns)" = - ] && [ "$(hdr watch_wait_ns)" = - ] || r=1
ok "proc: malformed and out-of-range thresholds refused, none set" $r

# 2: set per type and for all, shown in the header, cleared by "watch off"
echo 'watch hold mutex 2s' > $PROC && echo 'watch wait 250us' > $PROC &&
	[ "$(hdr watch_hold_ns)" = "mutex=2000000000" ] &&
	hdr watch_wait_ns | grep -q "^spin=250000 .*mutex=250000 .*semaphore=250000"
r=$?
echo 'watch off' > $PROC
[ "$(hdr watch_hold_ns)" = - ] && [ "$(hdr watch_wait_ns)" = - ] || r=1
[ $r -ne 0 ] && sed -n '/^watch/p;/^alerts/p' $PROC | diag
ok "proc: thresholds set per type and for all, shown, cleared" $r

# 3: an unprivileged user may not subscribe
echo 'watch hold 1s' > $PROC
su -s /bin/sh nobody -c 'lockstat watch --count 1' > "$T/nobody" 2>&1
rc=$?
echo 'watch off' > $PROC
[ $rc -eq 3 ] && grep -q CAP_NET_ADMIN "$T/nobody"
r=$?
[ $r -ne 0 ] && { echo "exit $rc"; cat "$T/nobody"; } | diag
ok "unprivileged watch: refused, exit 3" $r

# 4-12: --over 5ms: the module's four long holds, in order
lockstat reset > /dev/null && lockstat on > /dev/null
watch_start "$T/w5" --over 5ms
r=$?
ok "watch --over 5ms: the threshold is set" $r
echo 'hold 3 10000' > $MODPROC && cp $MODPROC "$T/hold.res" &&
	echo 'mutex_sleep 1 50' > $MODPROC && cp $MODPROC "$T/sleep.res"
ok "the module held its spinlock 3 x 10 ms and its mutex 50 ms" $?
four() { [ "$(tested "$T/w5" | wc -l)" -ge 4 ]; }
poll 100 four
watch_stop
rc=$?
tested "$T/w5" > "$T/w5.mine"
ok "watch: exit 0 on SIGINT" $rc
grep -q "^lockstat watch: [0-9]* alerts, [0-9]* dropped" "$T/w5.err"
r=$?
[ $r -ne 0 ] && diag < "$T/w5.err"
ok "watch: the summary of alerts and drops on stderr" $r
awk -v mod="$MOD" -v spin="$SPIN" '
	{ n++ }
	n <= 3 && !(index($0, "\"kind\": \"hold\", \"type\": \"" spin "\"") &&
		    index($0, "\"lock\": \"lmt_static_lock[" mod "]\", \"site\": \"lmt_hold+")) { bad = 1 }
	n == 4 && !(index($0, "\"kind\": \"hold\", \"type\": \"mutex\"") &&
		    index($0, "\"lock\": \"lmt_sleep_mutex[" mod "]\", \"site\": \"lmt_mutex_sleep+")) { bad = 1 }
	END { exit bad || n != 4 }' "$T/w5.mine"
r=$?
[ $r -ne 0 ] && { cat "$T/w5.mine"; mine "$T/w5"; cat "$T/w5.err"; } | diag
ok "watch: exactly 3 spin holds at lmt_hold then the mutex's at lmt_mutex_sleep" $r
! grep -v "\"comm\": \"$comm\"" "$T/w5.mine" | grep -q .
r=$?
[ $r -ne 0 ] && diag < "$T/w5.mine"
ok "watch: the holder is this shell ($comm)" $r
head -n 3 "$T/w5.mine" | grep -c '"stack": \[[^]]*"lmt_hold+' | grep -qx 3 &&
	sed -n 4p "$T/w5.mine" | grep -q '"stack": \[[^]]*"lmt_mutex_sleep+'
r=$?
[ $r -ne 0 ] && diag < "$T/w5.mine"
ok "watch: the chains where the locks were released" $r
# the holds as the module measured them, each over the threshold's 5 ms
sed -n 4p "$T/w5.mine" | grep -q '"blocked_ns": [1-9][0-9]*, "blocked_stack": \[[^]]*"lmt_mutex_sleep_inside+'
r=$?
[ $r -ne 0 ] && sed -n 4p "$T/w5.mine" | diag
ok "watch: the mutex holder blocked, in lmt_mutex_sleep_inside" $r
poll 50 sh -c "grep -q '^watch_hold_ns: -' $PROC"
ok "watch: the thresholds it set are cleared when it exits" $?

# 13-14: --over 100ms: none of the module's holds but those it measured longer
watch_start "$T/w100" --over 100ms
echo 'hold 3 10000' > $MODPROC && cp $MODPROC "$T/hold.res" &&
	echo 'mutex_sleep 1 50' > $MODPROC && cp $MODPROC "$T/sleep.res"
r=$?
# every alert of those holds has been sent by the time the queues are empty
poll_drained 100
watch_stop
r=$(( r | $? ))
ok "watch --over 100ms: the workload ran, watch exit 0" $r
want=0
[ "$(modval "$T/hold.res" hold_max_ns)" -gt 100000000 ] && want=x
[ "$(modval "$T/sleep.res" sleep_max_ns)" -gt 100000000 ] && want=x
got=$(tested "$T/w100" | wc -l)
[ "$want" = x ] || [ "$got" -eq 0 ]
r=$?
[ $r -ne 0 ] && { echo "got $got"; tested "$T/w100"; } | diag
[ "$want" = x ] && echo "# the module measured a hold over 100 ms (a vCPU's turn): not counted"
ok "watch --over 100ms: no alert of the module's 10 ms and 50 ms holds" $r

# 15-18: still held: lmt/holder holds lmt_held_mutex 3 s, lmt/waiter waits
watch_start "$T/wh" --over 1s --type mutex
if echo 'mutex_hold_bg 3000 1' > $MODPROC; then r=0; else r=1; fi
hpid=$(modval $MODPROC pid)
held() { grep -q '"kind": "held", "type": "mutex", "class": "static", "lock": "lmt_held_mutex' "$T/wh"; }
poll 100 held
r=$(( r | $? ))
echo bg_join > $MODPROC
released() { grep -q '"kind": "hold", "type": "mutex", "class": "static", "lock": "lmt_held_mutex' "$T/wh"; }
poll 100 released
watch_stop
grep '"lmt_held_mutex' "$T/wh" > "$T/wh.mine"
ok "watch --over 1s: a held alert for lmt_held_mutex, then its hold" $r
h=$(grep '"kind": "held"' "$T/wh.mine")
echo "$h" | grep -q "\"pid\": $hpid, \"comm\": \"lmt/holder\"" &&
	echo "$h" | grep -q '"waiters": \[[^]]*"comm": "lmt/waiter"'
r=$?
[ $r -ne 0 ] && { echo "holder $hpid"; cat "$T/wh.mine"; } | diag
ok "held: names the holder lmt/holder and the waiter lmt/waiter" $r
# between the threshold and the whole hold, as its release alerted it
# (msleep() sleeps 3 s at least, and the sender may come late)
ns=$(echo "$h" | sed -n 's/.*"kind": "held".* "ns": \([0-9]*\),.*/\1/p' | head -1)
hold=$(grep '"kind": "hold"' "$T/wh.mine" | sed -n 's/.* "ns": \([0-9]*\),.*/\1/p' | head -1)
[ -n "$ns" ] && [ -n "$hold" ] && [ "$ns" -gt 1000000000 ] && [ "$ns" -lt "$hold" ] &&
	grep -q '"stack": \[[^]]*"lmt_held_holder+' "$T/wh.mine"
r=$?
[ $r -ne 0 ] && { echo "held for $ns ns of $hold"; cat "$T/wh.mine"; } | diag
ok "held: sent over 1 s into the hold and before its end, with the holder's chain" $r
[ "$(grep -c '"kind": "held"' "$T/wh.mine")" -eq 1 ]
r=$?
[ $r -ne 0 ] && diag < "$T/wh.mine"
ok "held: once for the hold" $r

# 19-21: a flood: 100,000 holds over the threshold
lockstat reset > /dev/null
watch_start "$T/wf" --over 1us --type $SPIN
if echo 'hold 100000 5' > $MODPROC; then r=0; else r=1; fi
ok "flood: 100,000 holds of 5 us with the threshold at 1 us, no stall" $r
# the module's row: sent to watch, or dropped by its CPU, each (its hold
# alerts: on PREEMPT_RT a spinlock_t is a sleeping lock, and those still
# held over the threshold when the sender looks are "held" alerts too)
series() {	# series METRIC: the value of the module's lock at lmt_hold
	lockstat export 2>/dev/null | awk -v m="$1" -v l="lmt_static_lock" '
		index($0, m "{") == 1 && index($0, "lock=\"" l) &&
		index($0, "site=\"lmt_hold[") { print $NF; exit }'
}
flood_done() {
	sent=$(tested "$T/wf" | grep -c "lmt_static_lock\\[$MOD\\]\", \"site\": \"lmt_hold+")
	lost=$(series lockmeter_alerts_lost_total)
	[ -n "$lost" ] && [ $((sent + lost)) -ge 100000 ]
}
poll 300 flood_done
r=$?
alerts=$(series lockmeter_alerts_total)
watch_stop
[ $r -eq 0 ] && [ "$alerts" = 100000 ] && [ $((sent + lost)) -eq 100000 ]
r=$?
echo "# the row: $alerts alerts, $sent sent, $lost dropped"
[ $r -ne 0 ] && { sed -n '/^alerts/p' $PROC; mine "$T/wf" | tail -2; tail -2 "$T/wf"
	cat "$T/wf.err"; lockstat export 2>&1 | grep -e lmt_static_lock -e '^#.*alerts' | head; } | diag
ok "flood: the row's 100,000 alerts = sent + dropped" $r
poll_drained 100
r=$?
[ $r -ne 0 ] && { echo "alerts, sent, dropped: $drained_seen"; sed -n '/^watch/p' $PROC; } | diag
ok "flood: every alert sent or counted as dropped, once watch is gone" $r
# 22: the alert machinery's own locks (the sender's task, the kick) raise
# no alert that is sent: they are dropped, and counted as alerts_self.
# Its raw spinlocks (the runqueue's, the timer base's, the pool's) held
# over 1 us under the flood alert for sure; on PREEMPT_RT, where the
# threshold is of spinlock_t alone, it may happen that none does.
self=$(hdr alerts_self)
# (a timer interrupt that broke into the sender alerts as any other)
mach() { grep -e '"context": "task".*"lm_watch_fn+' -e '"lm_alert_kick+' "$T/wf"; }
! mach > /dev/null
r=$?
min=1
[ "$SPIN" = spin ] || min=0
[ -n "$self" ] && [ "$self" -ge $min ] || r=1
echo "# alerts the machinery raised itself: ${self:-no alerts_self}"
[ $r -ne 0 ] && mach | head -3 | diag
ok "flood: the sender's and the kick's own alerts dropped and counted, none sent" $r

# A probe on a tracepoint, or an event enabled, flips a static key: not in
# the boot under QEMU's multi-threaded TCG (lockmeter=pinned), where text
# patched at run time ends in "Oops: int3".
pinned=0
grep -qw 'lockmeter=pinned' /proc/cmdline && pinned=1
skip() {	# skip COUNT REASON: COUNT results skipped
	i=0
	while [ $i -lt "$1" ]; do
		n=$((n + 1))
		echo "ok $n # SKIP $2"
		i=$((i + 1))
	done
}

# 23-24: re-entry.  A probe on ipi_send_cpu takes lmt_reenter_inner, as a
# BPF program could; an alert's irq_work fires it from inside lockmeter's
# charge of the hold, where the lock operation is turned away and counted
# as recursion; everywhere else it is metered.  So its acquisitions are
# the row's plus the recursion counted, exactly.  An alert raises the
# irq_work only if its CPU's queue was empty and the second's budget not
# spent, which other locks' alerts can prevent for a whole round: rounds
# of 20 holds until the probe ran inside a charge, 10 rounds at most.
# Without the tracepoint (6.1) the module refuses the command: skipped.
if [ $pinned = 0 ]; then
	lockstat reset > /dev/null && lockstat on > /dev/null
	watch_start "$T/wr" --over 1ms --type spin
	r=0
	rounds=0
	inner=0
	rec=0
	while [ $r -eq 0 ] && [ "${rec:-0}" -lt 1 ] && [ $rounds -lt 10 ]; do
		rounds=$((rounds + 1))
		if echo 'reenter 20 2000' > $MODPROC 2> "$T/reenter.err"; then
			cp $MODPROC "$T/reenter.res"
			n=$(modval "$T/reenter.res" inner)
			[ -n "$n" ] && inner=$((inner + n)) || r=1
		else
			r=1
		fi
		rec=$(hdr recursion)
	done
	watch_stop
	r=$(( r | $? ))
fi
if [ $pinned = 1 ]; then
	skip 2 "lockmeter=pinned: no probe may be registered"
elif grep -qi 'not supported' "$T/reenter.err"; then
	skip 2 "the test module has no probe on ipi_send_cpu (no such tracepoint)"
else
	ok "reenter: rounds of 20 holds of 2 ms, a metered lock taken on ipi_send_cpu" $r
	acq=$(grep " lmt_reenter_inner\[$MOD\] " $PROC | awk '{ n += $2 } END { print n + 0 }')
	[ $r -eq 0 ] && [ -n "$rec" ] && [ "$rec" -ge 1 ] && [ $((acq + rec)) -eq "$inner" ]
	r=$?
	echo "# $rounds rounds; the probe took the lock $inner times: $acq metered, recursion ${rec:-missing}"
	[ $r -ne 0 ] && { sed -n '/^dropped/,/^irqctx/p' $PROC; grep lmt_reenter $PROC; } | diag
	ok "reenter: turned away inside the charge and counted as recursion, metered elsewhere" $r
fi

# 25: lockstat watch killed with SIGKILL leaves its threshold set; with
# nobody listening the sender stops (it ran every half threshold, 0.5 s
# here, scanning every thread for held locks): no run of lm_watch_fn in
# 3 s, by the workqueue_execute_start trace event
TR=/sys/kernel/tracing
EV=$TR/events/workqueue/workqueue_execute_start
[ -e $EV/enable ] || mount -t tracefs nodev $TR 2>/dev/null
case $(uname -r) in
6.1.*) nobind=1 ;;
*) nobind=0 ;;
esac
if [ $pinned = 1 ]; then
	skip 1 "lockmeter=pinned: no event may be enabled"
elif [ $nobind = 1 ]; then
	skip 1 "6.1 has no bind callback: the sender looks for a listener once a second"
elif [ -e $EV/enable ]; then
	lockstat on > /dev/null
	lockstat watch --over 1s --type mutex --json > "$T/wk" 2>&1 &
	kpid=$!
	poll 100 sh -c "! grep -q '^watch_hold_ns: -' $PROC"
	kill -KILL $kpid
	wait $kpid 2>/dev/null
	# the sender's next run finds nobody listening
	sleep 1
	echo > $TR/trace
	echo 1 > $EV/enable
	sleep 3
	echo 0 > $EV/enable
	runs=$(grep -c 'function lm_watch_fn' $TR/trace)
	left=$(hdr watch_hold_ns)
	echo > $TR/trace
	echo 'watch off' > $PROC
	echo "# threshold left: $left; the sender ran $runs times in 3 s"
	[ "$left" != - ] && [ "$runs" -eq 0 ]
	ok "nobody listening, a threshold left set: the sender stopped" $?
else
	skip 1 "no workqueue trace events"
fi

echo 'off' > $PROC
[ $fails -eq 0 ]
