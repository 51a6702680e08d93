#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make soak" (lmguest=soak lmsoak=MINUTES): the lockdep
# kernel on 4 vCPUs, for MINUTES, with all of this at once:
#
#   stress     Debian's stress-ng, a mix of STRESSORS (as root, at nice
#              10) and exec (as nobody), for the whole soak (-t)
#   modholds   rounds of the test module's holds and contention (every
#              lock type it has, threads on several CPUs, the re-entry
#              probe), each round's acquisitions counted in its rows
#              exactly
#   ctl        off, on and reset of /proc/lockmeter; of every three times,
#              once "keys N" (the key directory resized, while off) and
#              once "release" (all of metering's memory given back)
#   record     lockstat record of a small workload
#   top        lockstat top -b, three frames a run
#   watch      lockstat watch with hold and wait thresholds, restarted
#              every WATCH_SECS
#   held       lockstat held --over 0 --json
#   modload    test_lockmeter.ko unloaded and loaded again
#   hotplug    CPUs 1.. off line and on line again, one at a time
#
# ctl, record, modload and modholds change what the others count on
# (metering on, the rows since a reset, the module present), so each
# takes one lock (lock(), taken in turn) for its step; the rest run
# freely beside them.  Before each reset (ctl, record) the header of
# /proc/lockmeter is read: its loss counters are summed over the
# periods, and each nonzero one must have its reason in that period
# (period()).  A loop that has not finished a step for STALL seconds is
# named, with what is held then; it fails if it is still in that step
# STOP_WAIT seconds after the soak ends (a hang), not before: a starved
# host slows every loop, and a step may take that long without hanging.
# Each loop's longest time without a step is in the summary.  Then,
# quiescent: the alerts all sent or counted as dropped,
# one round of the module's holds after a reset counted exactly, its
# rows named after it is unloaded, and none of them after a reset.
#
# TAP between "LM-GUEST: soak begin" and "soak end" (guest-verdict.py),
# and "# summary: " lines for make soak's closing note.  Kernel splats
# are the host's business too (the console log); the ones dmesg still
# holds at the end fail soak.dmesg_clean here as well.
# shellcheck source=scripts/guest/lib.sh
. /lm/lib.sh

PROC=/proc/lockmeter
MOD=test_lockmeter
MODPROC=/proc/$MOD
MODKO=/lib/modules/$(uname -r)/kernel/lib/$MOD.ko
T=/tmp/soak
MINUTES=30
# a loop with no step finished for this long is named (seconds)
STALL=300
# after the soak, each loop must end within this (seconds)
STOP_WAIT=300
WATCH_SECS=30
# the key directory's sizes, in turn (the default is 16384)
KEYS="8192 32768 16384"
SPLAT='WARNING:|BUG:|Oops|Call Trace:|Kernel panic|kernel BUG at|detected stall|circular locking|inconsistent lock state|possible recursive locking|suspicious RCU usage|lock held when returning|DEBUG_LOCKS_WARN_ON|turning off the locking correctness validator|blocked for more than'

# The mix: "name options", one instance each, all for the whole soak.
# The guest kernel is tinyconfig and more: no INET, SysV IPC, POSIX
# message queues, inotify, eventfd, timerfd, AIO or namespaces, so
# sockets are AF_UNIX (stress-ng 0.15's sock stressor fails there:
# EPROTONOSUPPORT) and those stressors are not in it.  Sizes are
# small: an OOM kill prints a stack trace, which fails the soak.
STRESSORS="fork --fork-max 8
vfork --vfork-max 8
pthread --pthread-max 16
pipe
switch
futex
sem
mmap --mmap-bytes 1M
mremap --mremap-bytes 4M
vm --vm-bytes 16M
dentry --dentries 256
rename
dir --dir-dirs 256
link
flock
lockf
sockpair
chmod
epoll --epoll-domain unix
poll
timer --timer-freq 1000
sigq
kill
zombie --zombie-max 64
tee
hdd --hdd-bytes 8M"
USER_STRESSORS="exec --exec-max 4"

for arg in $(cat /proc/cmdline); do
	case $arg in
	lmsoak=*) MINUTES=${arg#lmsoak=} ;;
	esac
done
case $MINUTES in
'' | *[!0-9]* | 0) echo "soak: lmsoak=$MINUTES: minutes wanted, 1 or more"; exit 1 ;;
esac

uptime_s() { cut -d. -f1 /proc/uptime; }
stopping() { [ -e $T/stop ]; }
# num FILE: the number in FILE, 0 if none.  A number is replaced by
# a rename (put()), so that the monitor never reads a file half written.
num() {
	v=$(cat "$1" 2>/dev/null)
	echo "${v:-0}"
}
put() { echo "$2" > "$1.new" && mv "$1.new" "$1"; }
# bump FILE: the number in FILE, one more
bump() { put "$1" $(($(num "$1") + 1)); }
# add FILE N: the number in FILE, N more
add() { put "$1" $(($(num "$1") + $2)); }

# fail LOOP TEXT: a failed step of LOOP, the first 5 messages kept
fail() {
	bump $T/fail.$1
	[ "$(num $T/fail.$1)" -le 5 ] && echo "$2" >> $T/msg.$1
}
# step LOOP: a step of LOOP done (the stall watch reads it), and the
# longest time between two of its steps so far
step() {
	bump $T/it.$1
	now_s=$(uptime_s)
	gap=$((now_s - $(num $T/beat.$1)))
	[ $gap -le "$(num $T/gap.$1)" ] || put $T/gap.$1 $gap
	put $T/beat.$1 "$now_s"
}

# lock LOOP: the lock of the loops that change metering's state or the
# module, taken in turn: a ticket ($T/next, drawn under the mkdir of
# $T/tmutex), served in order ($T/serving), so that no loop waits behind
# others that keep winning a race for it (a starved host made the mkdir
# lock of 2026-12-07 leave ctl without it for 8 minutes).  A loop waiting
# for it says so ($T/want.LOOP): modholds, whose rounds are long, lets the
# others go first (modholds_loop()), and the stall watch does not call a
# loop that waits its turn hung while the lock changes hands.
lock() {
	touch $T/want.$1
	until mkdir $T/tmutex 2>/dev/null; do
		sleep 0.05
	done
	ticket=$(num $T/next)
	put $T/next $((ticket + 1))
	rmdir $T/tmutex
	until [ "$(num $T/serving)" = "$ticket" ]; do
		sleep 0.1
	done
	rm -f $T/want.$1
}
# only the holder writes $T/serving; $T/handoff is when it last did
unlock() {
	put $T/handoff "$(uptime_s)"
	bump $T/serving
}
# wanted: another loop waits for the lock
wanted() {
	for f in $T/want.*; do
		[ -e "$f" ] && return 0
	done
	return 1
}

# snap FILE: /proc/lockmeter into FILE; fails if the read did
snap() { cat $PROC > "$1" 2> "$1.err" && grep -q '^state: ' "$1"; }
# hv FILE KEY: a header value of a snapshot
hv() { sed -n "/^\$/q; s/^$2: //p" "$1"; }
# rows FILE TYPE LOCK COLUMN: COLUMN (by its name in the "# type" line)
# summed over the rows of the module's LOCK as TYPE, at every site, those
# of earlier loads of the module included (their names are kept)
rows() {
	awk -v t="$2" -v l="$3[$MOD]" -v c="$4" '
		!body && /^$/ { body = 1; next }
		!body { next }
		/^# type / { for (i = 2; i <= NF; i++) col[$i] = i - 1; next }
		$1 == t && $(NF - 1) == l { n += $col[c] }
		END { print n + 0 }' "$1"
}

# ---- the losses, read before each reset ----

# period FILE WHY: the snapshot FILE ends a period (read just before a
# reset or a resize): add its loss counters to $T/loss, and note in
# $T/unexplained each nonzero one without its reason.  Under the lock.
#   unmatched     every period begins with on or a reset: releases of
#                 locks taken before it
#   irqctx        sleeping-lock operations in interrupts, never metered
#   truncated     keys claimed while the report was copied
#   table_full    only with the key directory full (keys_used = keys)
#   stacks_full   only when a CPU may hold 512 chains of current maxima
#                 (two per key, hold and wait: keys_used >= 256)
#   recursion     at most the re-entry probe's acquisitions in the period
#                 ($T/inner, which modholds adds to)
#   alerts_dropped  not sent (no listener, a full queue, the rate
#                 limit, the machinery's own), and alerts >= sent +
#                 dropped at every read
#   dropped, evicted, notask, hist_lost: no reason in this soak
period() {
	f=$1 why=$2
	bump $T/periods
	for k in dropped unmatched recursion table_full evicted irqctx truncated notask \
		 stacks_full hist_lost alerts alerts_sent alerts_dropped alerts_self; do
		v=$(hv "$f" $k)
		case $v in
		'' | *[!0-9]*)
			echo "$why: $k missing from the header" >> $T/unexplained
			continue ;;
		esac
		add $T/loss.$k "$v"
		eval "p_$k=$v"
	done
	used=$(hv "$f" keys_used)
	keys=$(hv "$f" keys)
	inner=$(num $T/inner)
	# shellcheck disable=SC2154 # set by the eval above
	{
		[ "${p_table_full:-0}" -eq 0 ] || [ "$used" = "$keys" ] ||
			echo "$why: table_full $p_table_full with $used of $keys keys used"
		[ "${p_stacks_full:-0}" -eq 0 ] || [ "${used:-0}" -ge 256 ] ||
			echo "$why: stacks_full $p_stacks_full with $used keys used"
		[ "${p_recursion:-0}" -le "$inner" ] ||
			echo "$why: recursion $p_recursion, the probe took its lock $inner times"
		for k in dropped evicted notask hist_lost; do
			eval "v=\${p_$k:-0}"
			[ "$v" -eq 0 ] || echo "$why: $k $v"
		done
		if [ -n "${p_alerts:-}" ] && [ -n "${p_alerts_sent:-}" ] &&
		   [ -n "${p_alerts_dropped:-}" ] &&
		   [ "$p_alerts" -lt $((p_alerts_sent + p_alerts_dropped)) ]; then
			echo "$why: alerts $p_alerts < sent $p_alerts_sent + dropped $p_alerts_dropped"
		fi
		[ "${p_alerts_self:-0}" -le "${p_alerts_dropped:-0}" ] ||
			echo "$why: alerts_self $p_alerts_self > alerts_dropped $p_alerts_dropped"
	} >> $T/unexplained
	unset p_dropped p_unmatched p_recursion p_table_full p_evicted p_irqctx p_truncated \
	      p_notask p_stacks_full p_hist_lost p_alerts p_alerts_sent p_alerts_dropped \
	      p_alerts_self
}

# reset_period WHY: read the header into the period's sums, then reset;
# under the lock
reset_period() {
	if snap $T/period.snap; then
		period $T/period.snap "$1"
	else
		fail "$1" "read before reset: $(cat $T/period.snap.err)"
	fi
	echo 0 > $T/inner
}

# ---- the module's holds: known acquisitions, counted exactly ----

# "command|type|lock|column|count": what one command adds to the rows of
# the module's lock, every site together.  Threads are on several CPUs
# (contend: thread i on the i-th online CPU); readers R needs R online.
MODCMDS="hold 40 100|spin|lmt_static_lock|acquired|40
hold_irqsave 20 50|spin|lmt_irq_lock|acquired|20
hold_bh 20 50|spin|lmt_bh_lock|acquired|20
contend 4 25 20|spin|lmt_contended_lock|acquired|100
trylock 30|spin|lmt_try_lock|reject|30
trylock 30|spin|lmt_try_lock|acquired|1
readers 2 25 20|read|lmt_rwlock|acquired|50
writer 20 20|write|lmt_rwlock|acquired|20
mutex_contend 3 15 50|mutex|lmt_contended_mutex|acquired|45
rwsem_readers 2 15 20|rwsem_read|lmt_rwsem|acquired|30
rwsem_writer 10 20|rwsem_write|lmt_rwsem|acquired|10
rtmutex_contend 2 15 20|rt_mutex|lmt_rtmutex|acquired|30
sem_contend 2 15 20|semaphore|lmt_sem|acquired|30
pcpu_read 15 20|percpu_rwsem_read|lmt_pcpu_rwsem|acquired|15
pcpu_write 2 20|percpu_rwsem_write|lmt_pcpu_rwsem|acquired|2"
# The re-entry probe (lmt_reenter_inner, taken on every ipi_send_cpu):
# its row and the recursion counted add up to its count exactly.  Its
# holds of 25 ms cross watch's threshold: their alerts raise irq_work
# from inside the charge, where the probe is turned away.
REENTER="reenter 5 25000"
# the acquisitions and rejects a round drives
DRIVEN=$(echo "$MODCMDS" | awk -F'|' '{ n += $5 } END { print n }')

# sums FILE: for each line of MODCMDS, its column summed over the rows
# of its lock as its type in snapshot FILE (rows() for all at once)
sums() {
	echo "$MODCMDS" | awk -v mod="[$MOD]" '
		NR == FNR {
			split($0, s, "|")
			n++
			t[n] = s[2]
			l[n] = s[3] mod
			c[n] = s[4]
			next
		}
		!body && /^$/ { body = 1; next }
		!body { next }
		/^# type / { for (i = 2; i <= NF; i++) col[$i] = i - 1; next }
		{
			for (i = 1; i <= n; i++)
				if ($1 == t[i] && $(NF - 1) == l[i])
					v[i] += $col[c[i]]
		}
		END { for (i = 1; i <= n; i++) print v[i] + 0 }' - "$1"
}

# mod_round TAG: one round of MODCMDS and REENTER against the rows,
# the counts before it taken from $T/TAG.before (none: 0); metering on
# and the module loaded throughout (the caller holds the lock).  Each
# mismatch is a failure of modholds; the round's text in $T/TAG.out.
mod_round() {
	tag=$1
	: > $T/$tag.out
	before=$T/$tag.before
	[ -s "$before" ] || before=/dev/null
	sums "$before" > $T/$tag.b
	# a command listed twice (for two columns) runs once
	ran=
	while IFS='|' read -r cmd _; do
		case $ran in
		*"|$cmd|"*) continue ;;
		esac
		ran="$ran|$cmd|"
		echo "$cmd" > $MODPROC 2> $T/$tag.err ||
			echo "cmd '$cmd': $(cat $T/$tag.err)" >> $T/$tag.out
	done <<EOF
$MODCMDS
EOF
	inner=-
	if echo "$REENTER" > $MODPROC 2> $T/$tag.err; then
		inner=$(sed -n 's/^inner: //p' $MODPROC)
		case $inner in
		'' | *[!0-9]*)
			echo "cmd '$REENTER': no inner count in its result" >> $T/$tag.out
			inner=- ;;
		*)	add $T/inner "$inner" ;;
		esac
	elif ! grep -qi 'not supported' $T/$tag.err; then
		echo "cmd '$REENTER': $(cat $T/$tag.err)" >> $T/$tag.out
	fi
	if ! snap $T/$tag.after; then
		echo "read after the round: $(cat $T/$tag.after.err)" >> $T/$tag.out
		return
	fi
	sums $T/$tag.after > $T/$tag.a
	echo "$MODCMDS" | awk -v bf=$T/$tag.b -v af=$T/$tag.a '{
		split($0, s, "|")
		getline b < bf
		getline a < af
		if (a - b != s[5])
			print s[2] " " s[3] " " s[4] ": " a - b ", " s[5] " driven"
	}' >> $T/$tag.out
	add $T/driven $DRIVEN
	if [ "$inner" != - ]; then
		a=$(rows $T/$tag.after spin lmt_reenter_inner acquired)
		b=$(rows "$before" spin lmt_reenter_inner acquired)
		r0=$(hv "$before" recursion)
		rec=$(($(hv $T/$tag.after recursion) - ${r0:-0}))
		[ $((a - b + rec)) -eq "$inner" ] ||
			echo "reenter: $((a - b)) metered + $rec recursion, the probe took it $inner times" \
				>> $T/$tag.out
		add $T/reenter.inner "$inner"
		add $T/reenter.rec "$rec"
	fi
}

modholds_loop() {
	while ! stopping; do
		# the others first, for a minute at most
		w=0
		while wanted && [ $w -lt 600 ]; do
			sleep 0.1
			w=$((w + 1))
		done
		lock modholds
		t0=$(uptime_s)
		r=0
		if [ ! -e $MODPROC ]; then
			fail modholds "the module was not loaded at a round"
			r=1
		elif ! echo on > $PROC 2> $T/mh.err; then
			fail modholds "on: $(cat $T/mh.err)"
			r=1
		elif ! snap $T/mh.before; then
			fail modholds "read before a round: $(cat $T/mh.before.err)"
			r=1
		fi
		if [ $r = 0 ]; then
			mod_round mh
			if [ -s $T/mh.out ]; then
				bump $T/rounds.bad
				while read -r line; do
					fail modholds "round $(($(num $T/it.modholds) + 1)): $line"
				done < $T/mh.out
			fi
		fi
		unlock
		t1=$(($(uptime_s) - t0))
		[ $t1 -le "$(num $T/round.max)" ] || put $T/round.max $t1
		step modholds
		sleep 5
	done
}

# ---- the control of metering ----

ctl_loop() {
	i=0
	set -- $KEYS
	while ! stopping; do
		lock ctl
		reset_period ctl
		echo off > $PROC 2> $T/ctl.err || fail ctl "off: $(cat $T/ctl.err)"
		sleep 1
		if [ $((i % 3)) = 0 ]; then
			k=$1
			shift
			set -- "$@" "$k"
			if echo "keys $k" > $PROC 2> $T/ctl.err; then
				bump $T/resizes
			else
				fail ctl "keys $k: $(cat $T/ctl.err)"
			fi
			echo on > $PROC 2> $T/ctl.err || fail ctl "on: $(cat $T/ctl.err)"
			# a resize empties the rows: the read is short
			if snap $T/ctl.snap; then
				[ "$(hv $T/ctl.snap keys)" = "$k" ] ||
					fail ctl "keys $k: the header says $(hv $T/ctl.snap keys)"
			else
				fail ctl "read after keys $k: $(cat $T/ctl.snap.err)"
			fi
		elif [ $((i % 3)) = 1 ]; then
			# everything given back, while the others read, hotplug and load
			if echo release > $PROC 2> $T/ctl.err; then
				bump $T/releases
			else
				fail ctl "release: $(cat $T/ctl.err)"
			fi
			echo on > $PROC 2> $T/ctl.err || fail ctl "on: $(cat $T/ctl.err)"
		else
			echo on > $PROC 2> $T/ctl.err || fail ctl "on: $(cat $T/ctl.err)"
			echo reset > $PROC 2> $T/ctl.err || fail ctl "reset: $(cat $T/ctl.err)"
		fi
		unlock
		i=$((i + 1))
		step ctl
		sleep 3
	done
}

record_loop() {
	while ! stopping; do
		lock record
		reset_period record
		# reset, on, the workload, off: metering stays off until the
		# next on (ctl, modholds)
		if lockstat record --top 5 -- sh -c \
			"ls -lR /proc/sys > /dev/null 2>&1; i=0
			 while [ \$i -lt 40 ]; do echo \$i > $T/rec.f; cat $T/rec.f > /dev/null
			 i=\$((i + 1)); done" > $T/record.out 2>&1; then
			grep -q 'TOTAL' $T/record.out ||
				fail record "no *TOTAL* in its table: $(head -n 3 $T/record.out)"
		else
			fail record "exit $?: $(tail -n 3 $T/record.out)"
		fi
		unlock
		step record
		sleep 10
	done
}

# ---- the readers ----

top_loop() {
	while ! stopping; do
		if lockstat top -b -d 1 -n 3 --top 10 > $T/top.out 2>&1; then
			[ -s $T/top.out ] || fail top "no frames"
		else
			fail top "exit $?: $(tail -n 3 $T/top.out)"
		fi
		step top
	done
}

held_loop() {
	while ! stopping; do
		if lockstat held --over 0 --json > $T/held.out 2>&1; then
			grep -q '{' $T/held.out || fail held "no JSON: $(head -n 3 $T/held.out)"
		else
			fail held "exit $?: $(tail -n 3 $T/held.out)"
		fi
		step held
		sleep 2
	done
}

watch_loop() {
	while ! stopping; do
		lockstat watch --over 20ms --wait-over 20ms --json > $T/watch.out \
			2> $T/watch.err &
		wp=$!
		s=0
		while [ $s -lt $WATCH_SECS ] && ! stopping && kill -0 $wp 2>/dev/null; do
			sleep 1
			s=$((s + 1))
		done
		kill -INT $wp 2>/dev/null
		wait $wp
		rc=$?
		[ $rc = 0 ] || fail watch "exit $rc: $(tail -n 3 $T/watch.err)"
		grep -q '^lockstat watch: [0-9]* alerts, [0-9]* dropped' $T/watch.err ||
			fail watch "no summary: $(tail -n 3 $T/watch.err)"
		add $T/watch.alerts "$(grep -c '"kind"' $T/watch.out)"
		step watch
	done
}

# ---- the module and the CPUs ----

modload_loop() {
	while ! stopping; do
		lock modload
		if rmmod $MOD 2> $T/ml.err; then
			bump $T/unloads
			# the rows of its locks and sites keep their names
			if snap $T/ml.snap; then
				! grep -q '\[unloaded module\]' $T/ml.snap ||
					fail modload "rows named [unloaded module]: $(grep -m 2 -F '[unloaded module]' $T/ml.snap)"
			else
				fail modload "read after rmmod: $(cat $T/ml.snap.err)"
			fi
		else
			fail modload "rmmod: $(cat $T/ml.err)"
		fi
		insmod $MODKO 2> $T/ml.err || fail modload "insmod: $(cat $T/ml.err)"
		[ -e $MODPROC ] || fail modload "no $MODPROC after insmod"
		unlock
		step modload
		sleep 15
	done
}

hotplug_loop() {
	while ! stopping; do
		for c in /sys/devices/system/cpu/cpu[1-9]*; do
			stopping && break
			[ -w $c/online ] || continue
			echo 0 2> $T/hp.err > $c/online || fail hotplug "${c##*/} off: $(cat $T/hp.err)"
			sleep 2
			echo 1 2> $T/hp.err > $c/online || fail hotplug "${c##*/} on: $(cat $T/hp.err)"
			bump $T/plugs
			sleep 2
		done
		step hotplug
	done
}

# ---- stress-ng ----

# mix_args MIX: its stress-ng arguments, one a line
mix_args() {
	echo "$1" | while read -r name opts; do
		[ -n "$name" ] || continue
		printf -- '--%s\n1\n' "$name"
		for o in $opts; do
			echo "$o"
		done
	done
}

# stress DIR SECS MIX [su USER]: stress-ng at nice 10 on MIX for SECS,
# DIR its temporary path, its output in DIR/out, its status in DIR/rc.
# busybox has renice, not nice: the shell that execs stress-ng renices
# itself first.
stress() {
	dir=$1
	args="--temp-path $dir --metrics-brief -t ${2}s $(mix_args "$3" | tr '\n' ' ')"
	run="renice -n 10 -p \$\$ > /dev/null && cd $dir && exec stress-ng $args"
	shift 3
	if [ "${1:-}" = su ]; then
		su -s /bin/sh "$2" -c "$run" > "$dir/out" 2>&1
	else
		sh -c "$run" > "$dir/out" 2>&1
	fi
	echo $? > "$dir/rc"
}

# ---- the soak ----

LOOPS="modholds ctl record top watch held modload hotplug"

rm -rf $T
mkdir -p $T/stress/root $T/stress/user
chmod 1777 $T/stress/user
# the metering lockmeter=on began at boot
if [ -r $PROC ]; then
	lm_mark "boot-state $(sed -n 's/^state: //p' $PROC)" \
		"rows=$(sed -n 's/^rows: //p' $PROC)"
fi
lm_mark "soak begin"
echo "TAP version 13"
secs=$((MINUTES * 60))
ncpu=$(grep -c ^processor /proc/cpuinfo)
echo "# $MINUTES minutes, $ncpu CPUs, stress-ng $(stress-ng --version 2>/dev/null |
	sed 's/^stress-ng, version \([^ ]*\).*/\1/'), $(printf '%s\n%s\n' "$STRESSORS" \
	"$USER_STRESSORS" | grep -c .) stressors"

# 0: all there is to start with is there
no_start=0
[ -e $PROC ] || { echo "# no $PROC: a kernel without lockmeter"; no_start=1; }
insmod $MODKO 2> $T/err || { echo "# insmod $MODKO: $(cat $T/err)"; no_start=1; }
[ -e $MODPROC ] || no_start=1
command -v stress-ng > /dev/null || { echo "# no stress-ng in the initramfs"; no_start=1; }
echo 0 > $T/inner
dmesg -c > $T/dmesg.boot

start=$(uptime_s)
end=$((start + secs))
put $T/handoff $start
if [ $no_start = 0 ]; then
	stress $T/stress/user $secs "$USER_STRESSORS" su nobody &
	upid=$!
	stress $T/stress/root $secs "$STRESSORS" &
	spid=$!
	# stress-ng counts the CPUs as it starts: no hotplug until both have
	# started their stressors (one that started while CPU 3 was off line
	# died of SIGSEGV as it dispatched, when CPU 3 came back)
	w=0
	until [ "$(grep -l 'dispatching hogs' $T/stress/root/out $T/stress/user/out 2>/dev/null |
		   wc -l)" = 2 ] || [ $w -ge 120 ]; do
		sleep 0.5
		w=$((w + 1))
	done
	for l in $LOOPS; do
		uptime_s > $T/beat.$l
		${l}_loop &
		echo $! > $T/pid.$l
	done
else
	end=$start
fi

# The soak: every minute a line of progress; a loop with no step for
# STALL seconds is named once for that wait, with what is held right now.
next=$((start + 60))
while [ "$(uptime_s)" -lt $end ]; do
	sleep 5
	now=$(uptime_s)
	for l in $LOOPS; do
		beat=$(num $T/beat.$l)
		# named already for this wait
		[ "$(num $T/stalled.$l)" = "$beat" ] && continue
		# waiting its turn for the lock while the lock changes hands
		[ -e $T/want.$l ] && [ $((now - $(num $T/handoff))) -lt $STALL ] && continue
		if [ $((now - beat)) -ge $STALL ]; then
			put $T/stalled.$l "$beat"
			bump $T/stalls.$l
			echo "# $l: no step for ${STALL}s at $((now - start))s" \
				"(a hang if it does not stop at the end); held now:"
			lockstat held --over 1s 2>&1 | head -n 40 | sed 's/^/#   /'
		fi
	done
	if [ "$now" -ge $next ]; then
		line=
		for l in $LOOPS; do
			line="$line $l=$(num $T/it.$l)"
		done
		echo "# $((now - start))s:$line"
		next=$((next + 60))
	fi
done

# Stop: every loop ends its step, stress-ng its run, within STOP_WAIT.
touch $T/stop
t_stop=$(uptime_s)
for l in $LOOPS; do
	[ -e $T/pid.$l ] || continue
	p=$(cat $T/pid.$l)
	while kill -0 "$p" 2>/dev/null && [ $(($(uptime_s) - t_stop)) -lt $STOP_WAIT ]; do
		sleep 1
	done
	if kill -0 "$p" 2>/dev/null; then
		fail $l "still in a step ${STOP_WAIT}s after the soak ended: a hang"
		echo "# $l did not stop; held now:"
		lockstat held --over 1s 2>&1 | head -n 40 | sed 's/^/#   /'
		kill -9 "$p" 2>/dev/null
	fi
done
for p in ${spid:-} ${upid:-}; do
	while kill -0 "$p" 2>/dev/null && [ $(($(uptime_s) - t_stop)) -lt $STOP_WAIT ]; do
		sleep 1
	done
	kill -0 "$p" 2>/dev/null && {
		echo "# stress-ng still running ${STOP_WAIT}s after the soak ended: killed"
		kill -9 "$p"
	}
done
wait
for c in /sys/devices/system/cpu/cpu[1-9]*; do
	[ -w $c/online ] && [ "$(cat $c/online)" = 0 ] && echo 1 > $c/online
done
# a loop killed with its ticket leaves the lock to nobody
put $T/serving "$(num $T/next)"
echo "# the soak ran $(($(uptime_s) - start))s, stopped in $(($(uptime_s) - t_stop))s"

# ---- quiescent: the checks at the end ----

# the last period; watch has ended, so no threshold is left set
if snap $T/final.snap; then
	period $T/final.snap final
else
	echo "final: read: $(cat $T/final.snap.err)" >> $T/unexplained
fi
echo "# the last period's header:"
sed -n '/^$/q; s/^/#   /p' $T/final.snap

# alerts: sent + dropped = alerts once the queues are empty
alert_counts() {
	sed -n -e 's/^alerts: //p' -e 's/^alerts_sent: //p' -e 's/^alerts_dropped: //p' $PROC |
		tr '\n' ' '
}
# alerts of a known cause in the count: the module's spinlock held 10 x
# 10 ms, with watch listening for holds over 5 ms
echo on > $PROC
[ -e $MODPROC ] || insmod $MODKO
lockstat watch --over 5ms --json > $T/fw.out 2> $T/fw.err &
fw=$!
tries=50
while grep -q '^watch_hold_ns: -' $PROC && [ $tries -gt 0 ]; do
	sleep 0.2
	tries=$((tries - 1))
done
echo 'hold 10 10000' > $MODPROC
sleep 2
kill -INT $fw
wait $fw
drained=1
tries=150
while [ $tries -gt 0 ]; do
	# shellcheck disable=SC2046 # three numbers
	set -- $(alert_counts)
	if [ $# = 3 ] && [ "$1" -ge 10 ] && [ "$1" -eq $(($2 + $3)) ]; then
		drained=0
		break
	fi
	tries=$((tries - 1))
	sleep 0.2
done
alerts_final="$*"

# one round after a reset: the rows hold exactly what it drove
r=0
echo on > $PROC && echo reset > $PROC || r=1
[ -e $MODPROC ] || insmod $MODKO || r=1
echo 0 > $T/inner
rm -f $T/fin.before
if [ $r = 0 ]; then
	mod_round fin
	[ -s $T/fin.out ] && r=1
else
	echo "on, reset or the module's load failed" > $T/fin.out
fi
exact_final=$r
cp $T/fin.after $T/fin.loaded 2>/dev/null

# unloaded: its rows stay, named as before, with the same counts
r=0
rmmod $MOD 2> $T/err || { echo "rmmod: $(cat $T/err)" > $T/unload.out; r=1; }
if [ $r = 0 ] && snap $T/unload.snap; then
	echo "$MODCMDS" | while IFS='|' read -r cmd type lk colname _; do
		a=$(rows $T/fin.loaded "$type" "$lk" "$colname")
		b=$(rows $T/unload.snap "$type" "$lk" "$colname")
		[ "$a" = "$b" ] && [ "$b" -gt 0 ] ||
			echo "$type $lk $colname: $a loaded, $b unloaded"
	done > $T/unload.out
	grep -F '[unloaded module]' $T/unload.snap | head -n 3 >> $T/unload.out
	[ -s $T/unload.out ] && r=1
else
	r=1
fi
unload_named=$r

# reset: no row of a freed key (the module's locks, sites, caches)
r=0
echo reset > $PROC && sleep 2 && snap $T/freed.snap || r=1
awk '!body && /^$/ { body = 1; next } body && !/^#/ && NF' $T/freed.snap |
	grep -e "\[$MOD\]" -e '\[unloaded module\]' -e 'lmtest_' > $T/freed.out
[ -s $T/freed.out ] && r=1
no_freed=$r
echo off > $PROC

dmesg > $T/dmesg.end
cat $T/dmesg.boot $T/dmesg.end | grep -E "$SPLAT" > $T/splat
ok_dmesg=0
[ -s $T/splat ] && ok_dmesg=1

# ---- results ----

n_stress=$(printf '%s\n%s\n' "$STRESSORS" "$USER_STRESSORS" | grep -c .)
n_loops=$(echo $LOOPS | wc -w)
echo "1..$((n_stress + n_loops + 8))"
n=0
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
	fi
}

ran=0
for d in root user; do
	rc=$(cat $T/stress/$d/rc 2>/dev/null)
	[ "$rc" = 0 ] || { echo "# stress-ng ($d): exit status ${rc:-none}"; ran=1; }
	grep -q 'metrc: .* stressor .*bogo ops' $T/stress/$d/out 2>/dev/null || {
		echo "# stress-ng ($d): no metrics"
		ran=1
	}
	[ $ran = 0 ] || { grep -iE 'fail|error|skipp|not implemented|abort' $T/stress/$d/out ||
		head -n 5 $T/stress/$d/out; } | head -n 10 | sed 's/^/# /'
done
result $ran "soak.stress_ng_ran"
for d in root user; do
	awk '/miscellaneous metrics/ { exit }
	     $2 == "metrc:" && $5 ~ /^[0-9]+$/ { print $4, $5 }' $T/stress/$d/out 2>/dev/null
done > $T/ops
while read -r name _; do
	[ -n "$name" ] || continue
	got=$(awk -v s="$name" '$1 == s { print $2; exit }' $T/ops)
	[ -n "$got" ] || echo "# $name: no bogo ops reported (the stressor did not run)"
	[ "${got:-0}" -gt 0 ]
	result $? "soak.ops.$name"
done <<EOF
$STRESSORS
$USER_STRESSORS
EOF

# the loops: steps done (ctl: a resize too), no failed step, no hang
for l in $LOOPS; do
	it=$(num $T/it.$l)
	bad=0
	[ "$it" -ge 1 ] || { echo "# $l: no step finished"; bad=1; }
	if [ $l = ctl ] && [ "$(num $T/resizes)" -lt 1 ]; then
		echo "# ctl: no resize of the key directory"
		bad=1
	fi
	if [ $l = ctl ] && [ "$(num $T/releases)" -lt 1 ]; then
		echo "# ctl: no release"
		bad=1
	fi
	if [ -e $T/fail.$l ]; then
		echo "# $l: $(num $T/fail.$l) failed steps of $it; the first:"
		sed 's/^/#   /' $T/msg.$l
		bad=1
	fi
	result $bad "soak.loop.$l"
done

echo "# losses summed over $(num $T/periods) periods:" \
	"$(for k in dropped unmatched recursion table_full evicted irqctx truncated notask \
		stacks_full hist_lost alerts_dropped; do printf '%s=%s ' $k "$(num $T/loss.$k)"; done)"
bad=0
if [ -s $T/unexplained ]; then
	echo "# unexplained:"
	head -n 20 $T/unexplained | sed 's/^/#   /'
	bad=1
fi
result $bad "soak.losses_explained"

echo "# alerts, sent, dropped once quiescent (10 holds over the threshold at least):" \
	"$alerts_final; watch: $(tail -n 1 $T/fw.err)"
grep -q 'alerts.*<' $T/unexplained 2>/dev/null && drained=1
result $drained "soak.alerts_sent_plus_dropped"

[ $exact_final = 0 ] || sed 's/^/# final round: /' $T/fin.out
result $exact_final "soak.module_rows_exact"
[ $unload_named = 0 ] || sed 's/^/# unloaded: /' $T/unload.out
result $unload_named "soak.unloaded_rows_named"
[ $no_freed = 0 ] || head -n 5 $T/freed.out | sed 's/^/# after reset: /'
result $no_freed "soak.no_row_of_a_freed_key"
[ $ok_dmesg = 0 ] || head -n 10 $T/splat | sed 's/^/# dmesg: /'
result $ok_dmesg "soak.dmesg_clean"
result $no_start "soak.started"

# The closing note's figures (make soak prints them).
echo "# summary: $MINUTES min, $ncpu CPUs, ran $(($(uptime_s) - start))s"
echo "# summary: steps: $(for l in $LOOPS; do printf '%s=%s ' $l "$(num $T/it.$l)"; done)"
echo "# summary: longest without a step, s: $(for l in $LOOPS; do
	printf '%s=%s ' $l "$(num $T/gap.$l)"; done)(waits of ${STALL}s or more named:" \
	"$(for l in $LOOPS; do printf '%s=%s ' $l "$(num $T/stalls.$l)"; done | sed 's/ $//'))"
echo "# summary: module rounds $(num $T/it.modholds) ($(num $T/rounds.bad) inexact," \
	"the longest $(num $T/round.max)s)," \
	"acquisitions driven $(num $T/driven), re-entry probe $(num $T/reenter.inner)" \
	"($(num $T/reenter.rec) recursion); key resizes $(num $T/resizes);" \
	"unloads $(num $T/unloads); CPU off/on $(num $T/plugs); alerts seen by watch" \
	"$(num $T/watch.alerts)"
echo "# summary: losses over $(num $T/periods) periods:" \
	"$(for k in dropped unmatched recursion table_full evicted irqctx truncated notask \
		stacks_full hist_lost alerts alerts_sent alerts_dropped alerts_self; do
		printf '%s=%s ' $k "$(num $T/loss.$k)"; done)"
echo "# summary: stressor bogo ops: $(tr '\n' ' ' < $T/ops | sed 's/ \([0-9]*\) /=\1 /g')"
lm_mark "soak end rc=0"
exit 0
