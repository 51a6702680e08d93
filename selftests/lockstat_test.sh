#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lockstat, the reader, against the live kernel: the data source, record
# around a workload of the test module, get then report, the /proc
# fallback, top in batch mode during a workload, exit codes, export
# (Prometheus text) of the module's known holds, the evidence of the worst
# hold (--stacks, --folded, kept by get), the locks held right now (held:
# holder, stack, waiters), where a mutex's holder blocked (--stacks of a
# get snapshot), the hold histogram of the module's known holds (hist,
# print --percentiles --json, hist of a get snapshot), a diff of two records
# of known holds and its exit status.  Prints KTAP; exits 4
# (skip) without lockstat, lockmeter or the test module.
MOD=test_lockmeter
MODPROC=/proc/$MOD
T=$(mktemp -d /tmp/lockstat_test.XXXXXX) || exit 1
trap 'rm -rf "$T"; echo off > /proc/lockmeter 2>/dev/null' EXIT

# ok, diag, SPIN and SPINLOCKS (the module's spinlock_t: its row type and
# table section)
# shellcheck source=selftests/lockmeter_lib.sh
. "$(dirname "$0")/lockmeter_lib.sh"

echo "TAP version 13"
command -v lockstat >/dev/null || { echo "1..0 # SKIP lockstat not installed"; exit $KSFT_SKIP; }
[ -e /proc/lockmeter ] || { echo "1..0 # SKIP kernel without lockmeter"; exit $KSFT_SKIP; }
if [ ! -e $MODPROC ]; then
	insmod "/lib/modules/$(uname -r)/kernel/lib/$MOD.ko" 2>/dev/null
	[ -e $MODPROC ] || { echo "1..0 # SKIP $MOD.ko not loadable"; exit $KSFT_SKIP; }
fi
echo "1..34"

# 1: the default source is netlink, and it says so
lockstat status > "$T/status" 2>&1
rc=$?
grep -q "from netlink" "$T/status"
ok "status: exit 0, from netlink" $(( rc | $? ))

# 2: record puts the module's long hold first.  Under single-threaded TCG
# any lock may be held ~100 ms while its vCPU waits for its turn, so the
# hold is 300 ms.
lockstat record --type $SPIN --csv -- \
	sh -c "echo 'hold 2 300000' > $MODPROC" > "$T/rec.csv" 2>"$T/rec.err"
rc=$?
first_lock=$(awk -F, '$1 == "lock" { print $3; exit }' "$T/rec.csv")
first_site=$(awk -F, '$1 == "site" { print $4; exit }' "$T/rec.csv")
[ "$rc" -eq 0 ] && [ "$first_lock" = "lmt_static_lock[$MOD]" ] &&
	case $first_site in lmt_hold+*"[$MOD]") true ;; *) false ;; esac
r=$?
[ $r -ne 0 ] && { echo "rc=$rc lock=$first_lock site=$first_site"; head -5 "$T/rec.csv"; cat "$T/rec.err"
	sed -n '1,/^$/p' /proc/lockmeter; grep -F "[$MOD]" /proc/lockmeter | head -5; } | diag
ok "record: the 300 ms hold is the first spin lock, at lmt_hold" $r

# 3: the table form has it first too, in the SPINLOCKS section
lockstat record --type $SPIN -- sh -c "echo 'hold 1 300000' > $MODPROC" > "$T/rec.txt" 2>&1
awk '/\*TOTAL\*/ { getline; print; exit }' "$T/rec.txt" | grep -q "lmt_static_lock\[$MOD\]"
r=$?
[ $r -ne 0 ] && head -20 "$T/rec.txt" | diag
ok "record: table, the module lock right under *TOTAL*" $r

# 4: record passes the command's exit status on
lockstat record -- sh -c 'exit 7' > /dev/null 2>&1
ok "record: exit status of the command" $(( $? != 7 ))

# 5: get then report reproduces print (metering off: nothing moves)
echo off > /proc/lockmeter
lockstat print > "$T/print" 2>&1 && lockstat get -o "$T/snap" && lockstat report "$T/snap" > "$T/report" 2>&1
rc=$?
grep -v '^Snapshot:' "$T/report" > "$T/report.cmp"
diff "$T/print" "$T/report.cmp" > "$T/diff"
r=$(( rc | $? ))
[ $r -ne 0 ] && diag < "$T/diff"
ok "get + report reproduces print" $r

# 6: the /proc fallback shows the same rows (netlink's CSV adds the
# percentile columns of the histograms /proc does not carry: compared
# without them)
lockstat print --source=proc --csv > "$T/proc.csv" 2>&1 &&
	lockstat print --source=netlink --csv > "$T/nl.full.csv" 2>&1
rc=$?
nf=$(head -n 1 "$T/proc.csv" | awk -F, '{ print NF }')
cut -d, -f1-"${nf:-1}" "$T/nl.full.csv" > "$T/nl.csv"
cmp -s "$T/proc.csv" "$T/nl.csv"
r=$(( rc | $? ))
[ $r -ne 0 ] && diff "$T/nl.csv" "$T/proc.csv" | head | diag
ok "source=proc and source=netlink agree" $r

# 7: an unprivileged user is refused with the permission exit code
su -s /bin/sh nobody -c 'lockstat on' > "$T/nobody" 2>&1
rc=$?
[ $rc -ne 3 ] && { echo "exit $rc"; cat "$T/nobody"; } | diag
ok "unprivileged on: exit 3" $(( rc != 3 ))

# 8: a corrupt snapshot file is refused with its exit code
head -c 200 "$T/snap" > "$T/cut"
lockstat report "$T/cut" > /dev/null 2>&1
rc=$?
ok "report of a truncated snapshot: exit 7" $(( rc != 7 ))

# 9: top -b while the module's threads contend: an interval frame (not
# the first, which is since start) has the contended lock at lmt_contend
# with a positive rate and waiters
lockstat on
(echo 'contend 2 3000 100' > $MODPROC) &
wl=$!
lockstat top -b -n 4 -d 0.5 --json --by-site > "$T/top.json" 2> "$T/top.err"
rc=$?
wait $wl
# per frame after the first: the lock's row, then its rate and spin count
awk -v lock="lmt_contended_lock[$MOD]" '
	!/"since_start": false/ { next }
	{
		n = split($0, rows, "}, [{]")
		for (i = 1; i <= n; i++) {
			if (index(rows[i], "\"lock\": \"" lock "\"") == 0 ||
			    rows[i] !~ /"site": "lmt_contend\+/)
				continue
			r = rows[i]; sub(/.*"rate": /, "", r); sub(/,.*/, "", r)
			sp = rows[i]; sub(/.*"spin": /, "", sp); sub(/,.*/, "", sp)
			if (r + 0 > 0 && sp + 0 > 0) found = 1
			print "rate " r " spin " sp
		}
	}
	END { exit !found }' "$T/top.json" > "$T/top.found"
r=$(( rc | $? ))
[ $r -ne 0 ] && { echo "exit $rc"; cat "$T/top.err" "$T/top.found"; cut -c1-300 "$T/top.json"; } | diag
[ $r -eq 0 ] && diag < "$T/top.found"
ok "top -b: the contended lock in an interval, with a rate and waiters" $r

# 10: the text frames: a header per frame, the column line, the lock
lockstat top -b -n 2 -d 0.2 --type $SPIN > "$T/top.txt" 2>&1
rc=$?
[ "$(grep -c '^lockstat top - ' "$T/top.txt")" -eq 2 ] &&
	grep -q '^ ACQ/s   UTIL' "$T/top.txt" && grep -q "since start" "$T/top.txt"
r=$(( rc | $? ))
[ $r -ne 0 ] && head -20 "$T/top.txt" | diag
ok "top -b: two text frames, since start first" $r

# 11: one CPU's table
lockstat top -b -n 1 --cpu 0 --json > "$T/top0.json" 2>&1
rc=$?
grep -q '"cpu": 0,' "$T/top0.json"
r=$(( rc | $? ))
[ $r -ne 0 ] && cut -c1-300 "$T/top0.json" | diag
ok "top -b --cpu 0: that CPU's table" $r
echo off > /proc/lockmeter

# 12: the statistics are root's: an unprivileged top is refused
su -s /bin/sh nobody -c 'lockstat top -b -n 1' > "$T/nobody" 2>&1
rc=$?
[ $rc -ne 3 ] && { echo "exit $rc"; cat "$T/nobody"; } | diag
ok "unprivileged top: exit 3" $(( rc != 3 ))

# 13: record -o: a save that fails after CMD ran still prints the table
# (CMD removes the directory lockstat checked and saves into)
mkdir "$T/gone"
lockstat record --type $SPIN -o "$T/gone/rec.snap" -- rm -rf "$T/gone" > "$T/rec13.txt" 2> "$T/rec13.err"
rc=$?
[ $rc -eq 1 ] && grep -q "^$SPINLOCKS" "$T/rec13.txt" && grep -q 'gone/rec.snap' "$T/rec13.err"
r=$?
[ $r -ne 0 ] && { echo "exit $rc"; head -5 "$T/rec13.txt"; cat "$T/rec13.err"; } | diag
ok "record -o: the save failed after CMD, the table is printed, exit 1" $r

# 14-18: export from the live kernel while the module makes known holds.
# The value of a series of $T/tf/lockmeter.prom, times as integer ns
# (exact: no floating point).
series() {	# series METRIC TYPE LOCK SITE
	grep -F "$1{type=\"$2\",lock=\"$3\",site=\"$4\"} " "$T/tf/lockmeter.prom" |
		awk '{ print $2; exit }'
}
ns() {		# ns SECONDS: "0.052110221" -> 52110221
	echo "$1" | awk -F. '{ f = substr($2 "000000000", 1, 9); printf "%d%s\n", $1, f }' |
		sed 's/^0*\([0-9]\)/\1/'
}
modval() {	# modval FILE KEY: from the module's results
	sed -n "s/^$2: //p" "$1"
}
lockstat reset && lockstat on
echo 'hold 25 2000' > $MODPROC && cat $MODPROC > "$T/mod.hold"
echo 'trylock 7' > $MODPROC
echo 'mutex_sleep 3 20' > $MODPROC
lockstat off
mkdir "$T/tf"
lockstat export --max-series 1000000 --textfile-dir "$T/tf" 2> "$T/exp.err"
rc=$?
site="lmt_hold[$MOD]" lock="lmt_static_lock[$MOD]"
acq=$(series lockmeter_acquisitions_total $SPIN "$lock" "$site")
hold=$(ns "$(series lockmeter_hold_seconds_total $SPIN "$lock" "$site")")
hmax=$(ns "$(series lockmeter_hold_max_seconds $SPIN "$lock" "$site")")
mtotal=$(modval "$T/mod.hold" hold_total_ns) mmax=$(modval "$T/mod.hold" hold_max_ns)
# (the module's own clock reads are inside the hold: lockmeter's can only
# be longer; udelay() itself may be a little short of 2 ms)
[ "$rc" -eq 0 ] && [ "$acq" = 25 ] && [ -n "$mtotal" ] && [ "$mmax" -gt 0 ] &&
	[ "$hold" -ge "$mtotal" ] && [ "$hmax" -ge "$mmax" ]
r=$?
echo "acquisitions $acq, hold ${hold}ns (module ${mtotal}ns), max ${hmax}ns (module ${mmax}ns)" | diag
[ $r -ne 0 ] && { echo "exit $rc"; cat "$T/exp.err"; grep -F "[$MOD]" "$T/tf/lockmeter.prom" | head; } | diag
ok "export: 25 holds of lmt_static_lock at lmt_hold, hold times at least the module's" $r

# 15: trylocks: one acquisition, 7 rejects, at their own sites
lock="lmt_try_lock[$MOD]"
got1=$(series lockmeter_acquisitions_total $SPIN "$lock" "lmt_trylock_hold[$MOD]")
rej=$(series lockmeter_rejected_total $SPIN "$lock" "lmt_trylock_fail[$MOD]")
con=$(series lockmeter_contended_total $SPIN "$lock" "lmt_trylock_fail[$MOD]")
[ "$got1" = 1 ] && [ "$rej" = 7 ] && [ "$con" = 7 ]
r=$?
[ $r -ne 0 ] && { echo "acquired $got1 rejected $rej contended $con"; grep -F "$lock" "$T/tf/lockmeter.prom"; } | diag
ok "export: lmt_try_lock acquired once, 7 trylocks rejected" $r

# 16: a sleeping lock: 3 holds, hold = on-CPU + blocked, blocked >= 90% of 3 x 20 ms
lock="lmt_sleep_mutex[$MOD]" site="lmt_mutex_sleep[$MOD]"
acq=$(series lockmeter_acquisitions_total mutex "$lock" "$site")
hold=$(ns "$(series lockmeter_hold_seconds_total mutex "$lock" "$site")")
oncpu=$(ns "$(series lockmeter_hold_oncpu_seconds_total mutex "$lock" "$site")")
blocked=$(ns "$(series lockmeter_hold_blocked_seconds_total mutex "$lock" "$site")")
[ "$acq" = 3 ] && [ -n "$hold" ] && [ "$hold" -eq $((oncpu + blocked)) ] && [ "$blocked" -ge 54000000 ]
r=$?
echo "mutex: $acq holds, hold ${hold}ns = oncpu ${oncpu}ns + blocked ${blocked}ns" | diag
ok "export: lmt_sleep_mutex 3 holds, on-CPU + blocked = hold, blocked the sleeps" $r

# 17: every series is the table's (metering is off: nothing moves), the
# sites cut to their functions and merged as export does
lockstat print --csv > "$T/now.csv" 2>&1
awk -F, -v out="$T/tf/lockmeter.prom" '
	$1 != "site" { next }
	{
		site = $4
		if (match(site, /\+0x[0-9a-f]+(\/0x[0-9a-f]+)?(\[[^]]*\])?$/)) {
			mod = substr(site, RSTART)
			sub(/^[^[]*/, "", mod)
			site = substr(site, 1, RSTART - 1) mod
		}
		want["lockmeter_acquisitions_total{type=\"" $2 "\",lock=\"" $3 "\",site=\"" site "\"}"] += $5
	}
	END {
		while ((getline line < out) > 0) {
			if (line !~ /^lockmeter_acquisitions_total\{/)
				continue
			split(line, f, "} ")
			k = f[1] "}"
			if (!(k in want) || want[k] != f[2]) { print "export: " line; bad = 1 }
			seen[k] = 1
			n++
		}
		for (k in want)
			if (!(k in seen)) { print "missing: " k; bad = 1 }
		print n " series"
		exit bad || n < 10
	}' "$T/now.csv" > "$T/cmp17"
r=$?
[ $r -ne 0 ] && head -20 "$T/cmp17" | diag
[ $r -eq 0 ] && diag < "$T/cmp17"
ok "export: every acquisitions series equals print --csv, summed per function" $r

# 18: --interval to standard output, then SIGTERM: exit 0
lockstat export --interval 0.2 > "$T/iv.out" 2> "$T/iv.err" &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
rc=$?
frames=$(grep -c '^# TYPE lockmeter_rows gauge' "$T/iv.out")
[ $rc -eq 0 ] && [ "$frames" -ge 2 ] && [ ! -s "$T/iv.err" ]
r=$?
[ $r -ne 0 ] && { echo "exit $rc, $frames exports"; cat "$T/iv.err"; } | diag
ok "export --interval 0.2: $frames exports in 1 s, SIGTERM: exit 0" $r

# 19: print --stacks names the kthread behind the worst hold of a lock
# taken through three known functions, innermost first
echo reset > /proc/lockmeter && echo on > /proc/lockmeter &&
	echo "chain 9 4000" > $MODPROC && echo off > /proc/lockmeter
pid=$(modval $MODPROC pid)
lockstat print --stacks > "$T/stacks.txt" 2>&1
rc=$?
awk -v pid="$pid" '
	/lmt_chain_inner\+/ && !row { row = 1 }
	row && /worst hold / { hold = ($0 ~ ("by lmt/chain/" pid " ")); next }
	hold && /^ *lmt_chain_inner\+/ && !i { i = NR }
	hold && /^ *lmt_chain_middle\+/ && i && !m { m = NR }
	hold && /^ *lmt_chain_outer\+/ && m && !o { o = NR }
	END { exit !(i && m == i + 1 && o == m + 1) }' "$T/stacks.txt"
r=$(( rc | $? ))
[ $r -ne 0 ] && { echo "pid $pid"; grep -A8 "lmt_chain" "$T/stacks.txt" | head -30; } | diag
ok "print --stacks: worst hold by lmt/chain/$pid, chain inner, middle, outer" $r

# 20: the evidence survives get and report
lockstat get -o "$T/ev.snap" 2>"$T/get.err" &&
	lockstat report --stacks "$T/ev.snap" > "$T/stacks2.txt" 2>&1
rc=$?
grep -A4 "worst hold .*by lmt/chain/$pid " "$T/stacks.txt" > "$T/ev1"
grep -A4 "worst hold .*by lmt/chain/$pid " "$T/stacks2.txt" > "$T/ev2"
[ $rc -eq 0 ] && [ -s "$T/ev1" ] && cmp -s "$T/ev1" "$T/ev2"
r=$?
[ $r -ne 0 ] && { cat "$T/get.err"; diff "$T/ev1" "$T/ev2"; } | diag
ok "get -o then report --stacks: the same evidence" $r

# 21: --folded: the chain outermost first, weighted by the row's hold time
lockstat report --folded "$T/ev.snap" > "$T/folded" 2>&1
rc=$?
grep -q "lmt_chain_outer\[$MOD\];lmt_chain_middle\[$MOD\];lmt_chain_inner\[$MOD\] [0-9][0-9]*\$" "$T/folded"
r=$(( rc | $? ))
[ $r -ne 0 ] && grep lmt_chain "$T/folded" | head -3 | diag
ok "report --folded: ...;lmt_chain_outer;lmt_chain_middle;lmt_chain_inner WEIGHT" $r

# 22-27: lockstat held while the module's kthread "lmt/holder" holds
# lmt_held_mutex for 4 s in lmt_held_holder() and one "lmt/waiter" blocks
# on it in lmt_held_waiter(); from a second into the hold, held --over
# 500ms lists it (polled each second, 3 times at most, until the waiter is
# there too): TYPE HELD PID COMM CPU LOCK SITE, the stack and waiters under it
lockstat reset && lockstat on
# (the write's status: the module refuses a command it does not know)
if echo 'mutex_hold_bg 4000 1' > $MODPROC 2> "$T/bg.err"; then bg=0; else bg=1; fi
hpid=$(modval $MODPROC pid)
for try in 1 2 3; do
	sleep 1
	lockstat held --over 500ms > "$T/held.txt" 2> "$T/held.err"
	rc=$?
	lockstat held --over 500ms --json > "$T/held.json" 2> "$T/held-json.err"
	jrc=$?
	# the held lock's line and the indented lines under it
	awk -v pid="$hpid" -v lock="lmt_held_mutex[$MOD]" '
		/^[^ ]/ { mine = ($1 == "mutex" && $3 == pid && $4 == "lmt/holder" && $5 == "-" &&
				  $6 == lock && index($7, "lmt_held_holder+") == 1) }
		mine { print; found = 1 }
		END { exit !found }' "$T/held.txt" > "$T/held.mine"
	found=$?
	[ $found -eq 0 ] && grep -q '^  waiter ' "$T/held.mine" && break
done
r=$(( bg | rc | found ))
[ $r -ne 0 ] && { echo "write $bg, held exit $rc, holder pid '$hpid', $try tries"
	cat "$T/bg.err" "$T/held.err"; head -20 "$T/held.txt"; } | diag
[ $r -eq 0 ] && diag < "$T/held.mine"
ok "held --over 500ms: lmt_held_mutex held by lmt/holder/$hpid at lmt_held_holder" $r

# 23: the holder's chain now names the function that holds it
grep -q "^    lmt_held_holder+0x[0-9a-f]" "$T/held.mine"
r=$?
[ $r -ne 0 ] && diag < "$T/held.mine"
ok "held: the holder's stack has lmt_held_holder" $r

# 24: the waiter, blocked in lmt_held_waiter, for a mutex
grep -Eq "^  waiter [0-9]+ lmt/waiter waited [0-9.]+(ns|us|ms|s) at lmt_held_waiter\+0x[0-9a-f]+.* \(mutex\)\$" \
	"$T/held.mine"
r=$?
[ $r -ne 0 ] && diag < "$T/held.mine"
ok "held: a waiter lmt/waiter at lmt_held_waiter, for the mutex" $r

# 25: the same in JSON, one held lock per line
grep -F "\"lock\": \"lmt_held_mutex[$MOD]\"" "$T/held.json" > "$T/held.jmine"
grep -q "\"pid\": $hpid, \"comm\": \"lmt/holder\"" "$T/held.jmine" &&
	grep -q '"waiters": \[ { "pid": [0-9]*, "comm": "lmt/waiter"' "$T/held.jmine" &&
	grep -q '^{ "over_ns": 500000000, "metering": "on"' "$T/held.json"
r=$(( jrc | $? ))
[ $r -ne 0 ] && { echo "exit $jrc"; cat "$T/held-json.err"; cut -c1-400 "$T/held.json"; } | diag
ok "held --json: the holder and its waiter" $r

# 26: once the module's threads are done, the mutex is not held any more
echo bg_join > $MODPROC
lockstat held --over 0 > "$T/held0.txt" 2>&1
rc=$?
! grep -q "lmt_held_mutex" "$T/held0.txt"
r=$(( rc | $? ))
[ $r -ne 0 ] && { echo "exit $rc"; head -20 "$T/held0.txt"; } | diag
ok "held --over 0 after bg_join: lmt_held_mutex is not listed" $r
lockstat off

# 27: held is root's: the holders' chains are other tasks'
su -s /bin/sh nobody -c 'lockstat held' > "$T/nobody" 2>&1
rc=$?
[ $rc -eq 3 ] && grep -q "CAP_SYS_ADMIN" "$T/nobody"
r=$?
[ $r -ne 0 ] && { echo "exit $rc"; cat "$T/nobody"; } | diag
ok "unprivileged held: exit 3, needs CAP_SYS_ADMIN" $r

# 28: where the mutex's holder blocked: mutex_sleep's msleep() is called
# from lmt_mutex_sleep_inside(); report --stacks of a get snapshot prints,
# under the worst hold at lmt_mutex_sleep, "blocked DUR of it in
# schedule_timeout <- msleep <- lmt_mutex_sleep_inside <- ...", DUR at
# least half the shortest sleep the module measured (one stretch of one
# sleep, as netlink_test checks it)
lockstat reset && lockstat on && echo 'mutex_sleep 3 20' > $MODPROC && lockstat off &&
	lockstat get -o "$T/blk.snap" && lockstat report --stacks "$T/blk.snap" > "$T/blk.txt" 2>&1
rc=$?
smin=$(modval $MODPROC sleep_min_ns)
awk '
	/^ *[0-9]/ { row = ($NF ~ /^lmt_mutex_sleep(_inside)?\+/); next }
	row && /^          blocked / { print; exit }' "$T/blk.txt" > "$T/blk.line"
awk -v smin="${smin:-0}" '{
	if (!match($2, /^[0-9.]+/)) exit 1
	v = substr($2, 1, RLENGTH) + 0; u = substr($2, RLENGTH + 1)
	ns = v * (u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1)
	exit !($0 ~ /of it in .*msleep/ && $0 ~ /lmt_mutex_sleep_inside/ && smin > 0 && ns >= smin / 2)
}' "$T/blk.line"
r=$(( rc | $? ))
[ -s "$T/blk.line" ] || r=1
{ echo "module: shortest sleep ${smin}ns"; cat "$T/blk.line"; } | diag
[ $r -ne 0 ] && grep -A14 "lmt_mutex_sleep+" "$T/blk.txt" | head -30 | diag
ok "report --stacks: lmt_mutex_sleep's holder blocked in msleep <- lmt_mutex_sleep_inside" $r

# 29-32: histograms.  hist_holds 1000 20 20: 1000 holds of lmt_hist_lock
# of about 20 us and one of about 20 ms, all in lmt_hist_hold(); the
# module reports count, hold_min_ns and hold_max_ns as it measured them
# (inside the hold: lockmeter's own measure is a little longer, so a hold
# may land one bucket up).  The bucket bounds are the kernel's, read from
# report --json (hist_bounds_ns), never assumed.
bucket() {	# bucket NS: the index of the bucket holding NS in $T/bounds
	awk -v ns="$1" '$1 <= ns { k = NR - 1 } END { print k + 0 }' "$T/bounds"
}
bound() {	# bound I: the lower bound of bucket I, or "-" past the last
	awk -v i="$1" 'NR - 1 == i { print; f = 1 } END { if (!f) print "-" }' "$T/bounds"
}
hist_tests() {
lockstat reset && lockstat on && echo 'hist_holds 1000 20 20' > $MODPROC &&
	cat $MODPROC > "$T/mod.hist" && lockstat off
rc=$?
hcount=$(modval "$T/mod.hist" count) hmin=$(modval "$T/mod.hist" hold_min_ns)
hmax=$(modval "$T/mod.hist" hold_max_ns)
lockstat print --percentiles --json > "$T/pct.json" 2> "$T/pct.err"
rc=$(( rc | $? ))
sed -n 's/.*"hist_bounds_ns": \[ \(.*\) \].*/\1/p' "$T/pct.json" | tr -d ' ' | tr , '\n' > "$T/bounds"
echo "module: $hcount holds, min ${hmin}ns, max ${hmax}ns; $(wc -l < "$T/bounds") buckets" | diag
# (--type: on PREEMPT_RT the wait_lock of the lock's rtmutex, a raw
# spinlock at the same address, has rows of type spin under its name)
lockstat hist --type $SPIN lmt_hist_lock > "$T/hist.txt" 2> "$T/hist.err"
rc=$(( rc | $? ))
# the HOLD section's bucket lines: FROM_NS TO_NS FROM TO COUNT SHARE CUM [BAR]
awk '/^HOLD:/ { h = 1; next } /^WAIT:/ { h = 0 } h && $1 ~ /^[0-9]+$/' "$T/hist.txt" > "$T/hold.lines"
total=$(awk '{ n += $5 } END { print n + 0 }' "$T/hold.lines")
[ "$rc" -eq 0 ] && [ "$hcount" = 1001 ] && [ "$total" = 1001 ] &&
	grep -q '^HOLD: 1001 holds' "$T/hist.txt" && [ -s "$T/bounds" ]
r=$?
[ $r -ne 0 ] && { echo "exit $rc, $total holds in the buckets"; cat "$T/hist.err" "$T/pct.err"
	head -20 "$T/hist.txt"; } | diag
ok "hist lmt_hist_lock: exactly 1001 holds in the buckets" $r

# 30: the big hold is in the highest non-empty bucket, the one that holds
# the module's hold_max_ns or the next one up
k=$(bucket "${hmax:-0}")
top_from=$(awk '$5 > 0 { f = $1 } END { print f }' "$T/hold.lines")
top_count=$(awk '$5 > 0 { c = $5 } END { print c }' "$T/hold.lines")
[ -n "$hmax" ] && [ -n "$top_from" ] &&
	{ [ "$top_from" = "$(bound "$k")" ] || [ "$top_from" = "$(bound $((k + 1)))" ]; }
r=$?
echo "highest bucket from ${top_from}ns holds $top_count; the module's max is in bucket $k from $(bound "$k")ns" | diag
[ $r -ne 0 ] && cat "$T/hold.lines" | diag
ok "hist: the 20 ms hold in the bucket of the module's hold_max_ns (or one up)" $r

# 31: print --percentiles --json: p50 within the buckets of the module's
# typical (shortest) hold or one up, p99.9 no more than its longest
site_line=$(grep '"site": "lmt_hist_hold+' "$T/pct.json" | head -n 1)
p50=$(echo "$site_line" | sed -n 's/.*"hold_p50_ns": \([0-9]*\).*/\1/p')
p999=$(echo "$site_line" | sed -n 's/.*"hold_p999_ns": \([0-9]*\).*/\1/p')
kmin=$(bucket "${hmin:-0}")
lo=$(bound "$kmin") hi=$(bound $((kmin + 2)))
[ -n "$p50" ] && [ -n "$p999" ] && [ -n "$hmax" ] && [ "$p50" -ge "$lo" ] &&
	{ [ "$hi" = "-" ] || [ "$p50" -lt "$hi" ]; } && [ "$p999" -le "$hmax" ] &&
	! echo "$site_line" | grep -q '"hold_p999_ge"'
r=$?
echo "p50 ${p50}ns (buckets from ${lo}ns to ${hi}ns), p99.9 ${p999}ns (module max ${hmax}ns)" | diag
[ $r -ne 0 ] && echo "$site_line" | cut -c1-600 | diag
ok "print --percentiles --json: hold p50 in the typical hold's buckets, p99.9 <= max" $r

# 32: hist of a get snapshot is hist of the kernel (metering off), and no
# such lock is exit 8
lockstat get -o "$T/hist.snap" && lockstat hist --type $SPIN lmt_hist_lock "$T/hist.snap" > "$T/hist2.txt" 2>&1
rc=$?
cmp -s "$T/hist.txt" "$T/hist2.txt"
r=$(( rc | $? ))
lockstat hist no_such_lock_lmt > /dev/null 2>&1
r=$(( r | ($? != 8) ))
[ $r -ne 0 ] && diff "$T/hist.txt" "$T/hist2.txt" | head | diag
ok "hist of a get snapshot is hist of the kernel; no such lock: exit 8" $r

# 33: record --hist: the table, then the histograms of the recorded run
lockstat record --hist lmt_hist_lock -- sh -c "echo 'hist_holds 100 20 2' > $MODPROC" \
	> "$T/rec-hist.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "^$SPINLOCKS" "$T/rec-hist.txt" &&
	grep -q "^lmt_hist_lock\[$MOD\] ($SPIN): 1 site$" "$T/rec-hist.txt" &&
	grep -q '^HOLD: 101 holds' "$T/rec-hist.txt"
r=$?
[ $r -ne 0 ] && { echo "exit $rc"; grep -A8 '^lmt_hist_lock' "$T/rec-hist.txt"; tail -5 "$T/rec-hist.txt"; } | diag
ok "record --hist lmt_hist_lock: the table, then 101 holds in the histogram" $r
}

# 29-33 without CONFIG_LOCKMETER_HIST (hist_buckets: 0): hist of a lock
# with rows says the kernel has none and exits 1; the rest is skipped.
no_hist_tests() {
	lockstat reset && lockstat on && echo 'hist_holds 10 20 1' > $MODPROC && lockstat off
	rc=$?
	lockstat hist lmt_hist_lock > "$T/hist.txt" 2>&1
	hrc=$?
	[ "$rc" -eq 0 ] && [ "$hrc" -eq 1 ] && grep -q '^no histogram: this kernel' "$T/hist.txt"
	r=$?
	[ $r -ne 0 ] && { echo "exit $hrc"; cat "$T/hist.txt"; } | diag
	ok "hist on a kernel without histograms: says so, exit 1" $r
	for t in "hist: the 20 ms hold in its bucket" "print --percentiles --json" \
		 "hist of a get snapshot" "record --hist"; do
		n=$((n + 1))
		echo "ok $n $t # SKIP kernel without CONFIG_LOCKMETER_HIST"
	done
}

if [ "$(sed -n 's/^hist_buckets: //p' /proc/lockmeter)" = 0 ]; then
	no_hist_tests
else
	hist_tests
fi

# 34: diff of two records, the module holding lmt_static_lock 100 us and
# then 3 ms: the row regressed as the module measured its own holds (hold
# mean B/A within a factor of 2 of the module's, which TCG's turns stretch
# by up to a few hundred us a hold), over the 50% gate: exit 9, the status
# of a regression (never an error's)
lockstat record -o "$T/a.snap" -- sh -c "echo 'hold 20 100' > $MODPROC" > /dev/null 2>&1 &&
	cat $MODPROC > "$T/mod.a" &&
	lockstat record -o "$T/b.snap" -- sh -c "echo 'hold 20 3000' > $MODPROC" > /dev/null 2>&1 &&
	cat $MODPROC > "$T/mod.b"
rc=$?
lockstat diff --fail-over 50 --csv "$T/a.snap" "$T/b.snap" > "$T/diff.csv" 2> "$T/diff.err"
drc=$?
lockstat diff "$T/a.snap" "$T/b.snap" > "$T/diff.txt" 2>&1
ma=$(modval "$T/mod.a" hold_total_ns) mb=$(modval "$T/mod.b" hold_total_ns)
awk -F, -v ma="${ma:-0}" -v mb="${mb:-0}" -v spin="$SPIN" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$1 == "matched" && $2 == spin && $3 ~ /^lmt_static_lock/ && $4 ~ /^lmt_hold(\+|\[|$)/ {
		a = $col["a_hold_mean_ns"]; b = $col["b_hold_mean_ns"]; over = $col["over"]; found = 1 }
	END {
		printf "hold mean %s -> %s ns (module %s -> %s ns), over %s\n", a, b, ma / 20, mb / 20, over
		m = ma > 0 ? mb / ma : 0
		exit !(found && a > 0 && m >= 2 && b / a >= m / 2 && b / a <= m * 2 &&
		       over == 1 && b >= mb / 20 && a >= ma / 20)
	}' "$T/diff.csv" > "$T/diff.line"
r=$(( rc | $? | (drc != 9) ))
{ echo "diff exit $drc"; cat "$T/diff.line"; } | diag
[ $r -ne 0 ] && { cat "$T/diff.err"; head -20 "$T/diff.txt"; } | diag
ok "diff of 100 us and 3 ms records: lmt_static_lock at lmt_hold regressed as the module measured, --fail-over 50 exits 9" $r

[ $fails -eq 0 ]
