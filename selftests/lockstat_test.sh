#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lockstat, the reader, against the live kernel: the data source, record
# around a workload of the test module, get then report, the /proc
# fallback, exit codes.  Prints KTAP; exits 4 (skip) without lockstat,
# lockmeter or the test module.
KSFT_SKIP=4
MOD=test_lockmeter
MODPROC=/proc/$MOD
T=$(mktemp -d /tmp/lockstat_test.XXXXXX) || exit 1
trap 'rm -rf "$T"; echo off > /proc/lockmeter 2>/dev/null' EXIT

n=0 fails=0
ok() {	# ok NAME COND-EXIT-STATUS
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		fails=$((fails + 1))
	fi
}
diag() { sed 's/^/# /'; }

echo "TAP version 13"
command -v lockstat >/dev/null || { echo "1..0 # SKIP lockstat not installed"; exit $KSFT_SKIP; }
[ -e /proc/lockmeter ] || { echo "1..0 # SKIP kernel without lockmeter"; exit $KSFT_SKIP; }
if [ ! -e $MODPROC ]; then
	insmod /lib/modules/$(uname -r)/kernel/lib/$MOD.ko 2>/dev/null
	[ -e $MODPROC ] || { echo "1..0 # SKIP $MOD.ko not loadable"; exit $KSFT_SKIP; }
fi
echo "1..8"

# 1: the default source is netlink, and it says so
lockstat status > "$T/status" 2>&1
rc=$?
grep -q "from netlink" "$T/status"
ok "status: exit 0, from netlink" $(( rc | $? ))

# 2: record puts the module's long hold first.  Under single-threaded TCG
# any lock may be held ~100 ms while its vCPU waits for its turn, so the
# hold is 300 ms.
lockstat record --type spin --csv -- \
	sh -c "echo 'hold 2 300000' > $MODPROC" > "$T/rec.csv" 2>"$T/rec.err"
rc=$?
first_lock=$(awk -F, '$1 == "lock" { print $3; exit }' "$T/rec.csv")
first_site=$(awk -F, '$1 == "site" { print $4; exit }' "$T/rec.csv")
[ "$rc" -eq 0 ] && [ "$first_lock" = "lmt_static_lock[$MOD]" ] &&
	case $first_site in lmt_hold+*"[$MOD]") true ;; *) false ;; esac
r=$?
[ $r -ne 0 ] && { echo "rc=$rc lock=$first_lock site=$first_site"; head -5 "$T/rec.csv"; cat "$T/rec.err"; } | diag
ok "record: the 300 ms hold is the first spin lock, at lmt_hold" $r

# 3: the table form has it first too, in the SPINLOCKS section
lockstat record --type spin -- sh -c "echo 'hold 1 300000' > $MODPROC" > "$T/rec.txt" 2>&1
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

# 6: the /proc fallback shows the same rows
lockstat print --source=proc --csv > "$T/proc.csv" 2>&1 &&
	lockstat print --source=netlink --csv > "$T/nl.csv" 2>&1
rc=$?
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

[ $fails -eq 0 ]
