#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the scale boot of "make check" (lmguest=scale): the
# distro-sized kernel on 8 vCPUs with lockmeter=on, under Debian's
# stress-ng (a dynamic binary: mkinitramfs.sh packs it with the libraries
# ldd lists).  Metering is switched on (a no-op after lockmeter=on) and
# reset, a mix of stressors that take many different kernel locks runs a
# FIXED AMOUNT OF WORK (--STRESSOR-ops N each; -t is only a safety net
# against a hang), then /proc/lockmeter is read once.  TAP results:
#
#   scale.metered               "on" and "reset" written to /proc/lockmeter
#                               before, and "state: on" in the read after
#   scale.stress_ng_ran         every stress-ng process exited 0 and
#                               reported the metrics of its run
#   scale.ops.NAME              stressor NAME reported bogo ops > 0 (one
#                               that could not start reports none)
#   scale.no_table_full         header table_full: 0 (no event found its
#                               CPU's table full)
#   scale.no_dropped            header dropped: 0
#   scale.no_evicted            header evicted: 0
#   scale.no_notask             header notask: 0 (every sleeping-lock
#                               acquisition found its task's records)
#   scale.no_stacks_full        header stacks_full: 0 (every new maximum
#                               above the chain floor kept its chain)
#   scale.overflow_under_1pct   the rows whose lock starts with
#                               "*overflow*" took under 1% of all the
#                               rows' acquisitions
#   scale.slab_named_rows       at least 10 rows have a lock named by its
#                               slab cache, "NAME+0xOFF" with NAME a cache
#                               of /proc/slabinfo (without one: NAME no
#                               symbol of /proc/kallsyms)
#
# and, for the record, the header of /proc/lockmeter (every "key: value"
# line before its first blank line), its 10 rows with the largest
# hold_max_ns and the longest-held row of 10 slab caches.  The columns
# are found by name in the "# type acquired ..." line, so a column added
# later does not shift them.  Kernel splats are
# the host's business (guest-verdict.py reads the console).
# shellcheck source=scripts/guest/lib.sh
. /lm/lib.sh

PROC=/proc/lockmeter
T=/tmp/scale
# The safety net, seconds: stress-ng stops a stressor still running then.
# The fixed amounts below take a few minutes under TCG; a stressor cut
# short says so ("# NAME: N of M bogo ops").
SAFETY=900

# The mix, one instance of each: "name ops [options]".  The amounts are
# set so that the stressors overlap for most of the run (on 2026-12-03,
# 8 vCPUs under single-threaded TCG on 2 busy host cores, 180 s in all:
# exec, futex, mmap and sock (TCP over loopback) 160-180 s, fork, clone
# and timer 95-135, the rest 10-70).
# io-uring is not in it: stress-ng 0.15.06's io-uring stressor fails its
# own IORING_OP_STATX request (error=2, ENOENT) after about 50 ops on 6.12
# (and on a 6.18 host), so it could only fail the run.  Run as root:
ROOT_MIX="fork 600
clone 300 --clone-max 64
pthread 600 --pthread-max 64
pipe 20000
futex 12000
mmap 24 --mmap-bytes 4M
dentry 80
rename 4000
flock 40000
sock 300 --sock-domain ipv4
sockpair 300
udp 8000 --udp-domain ipv4
sem-sysv 40000
msg 40000
shm-sysv 40
mq 8000
timer 4000
epoll 600
sigq 40000
inotify 20"
USER_MIX="exec 300 --exec-max 4"

rm -rf $T
mkdir -p $T/root $T/user
chmod 1777 $T/user

# mix_args MIX: the arguments of stress-ng for MIX, one a line.
mix_args() {
	echo "$1" | while read -r name ops opts; do
		[ -n "$name" ] || continue
		printf -- '--%s\n1\n--%s-ops\n%s\n' "$name" "$name" "$ops"
		for o in $opts; do
			echo "$o"
		done
	done
}

# stress DIR MIX [su USER]: run stress-ng on MIX with DIR as its
# temporary path (as USER with su), its output in DIR/out and its exit
# status in DIR/rc.  No argument has a space in it.
stress() {
	dir=$1
	args="--temp-path $dir --metrics-brief -t ${SAFETY}s $(mix_args "$2" | tr '\n' ' ')"
	shift 2
	if [ "${1:-}" = su ]; then
		su -s /bin/sh "$2" -c "cd $dir && exec stress-ng $args" > "$dir/out" 2>&1
	else
		# shellcheck disable=SC2086
		(cd "$dir" && exec stress-ng $args) > "$dir/out" 2>&1
	fi
	echo $? > "$dir/rc"
}

# What metering looks like before the workload touches it (lockmeter=on).
if [ -r $PROC ]; then
	lm_mark "boot-state $(sed -n 's/^state: //p' $PROC)" \
		"rows=$(sed -n 's/^rows: //p' $PROC)"
fi
# udp's loopback
ip link set lo up

n_stressors=$(printf '%s\n%s\n' "$ROOT_MIX" "$USER_MIX" | grep -c .)
lm_mark "scale begin"
echo "TAP version 13"
echo "1..$((n_stressors + 9))"
# the results: "ok N name" or "not ok N name", numbered in order
n=0
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
	fi
}

echo "# $(nproc) CPUs online, $n_stressors stressors, stress-ng $(stress-ng --version |
	sed 's/^stress-ng, version \([^ ]*\).*/\1/')"
ctl=0
echo on > $PROC || ctl=1
echo reset > $PROC || ctl=1
t0=$(cut -d' ' -f1 /proc/uptime)
stress $T/user "$USER_MIX" su nobody &
upid=$!
stress $T/root "$ROOT_MIX"
wait $upid
t1=$(cut -d' ' -f1 /proc/uptime)
cat $PROC > $T/lockmeter 2> $T/err || cp $T/err $T/lockmeter
echo "# stress-ng ran $(echo "$t0 $t1" | awk '{ printf "%.0f", $2 - $1 }')s (guest clock)"

# stress-ng's own word, as TAP diagnostics
sed 's/^/# /' $T/root/out $T/user/out

# metered: the workload ran between a reset and the read, metering on
[ $ctl = 0 ] || echo "# writing on and reset to $PROC failed"
state=$(sed -n '/^$/q; s/^state: //p' $T/lockmeter)
[ "$state" = on ] || echo "# state at the read: ${state:-missing}"
[ $ctl = 0 ] && [ "$state" = on ]
result $? "scale.metered"

# stress_ng_ran: both exited 0 and printed their metrics table
ran=0
for d in $T/root $T/user; do
	rc=$(cat "$d/rc")
	if [ "$rc" != 0 ]; then
		echo "# stress-ng in $d: exit status $rc"
		ran=1
	fi
	grep -q 'metrc: .* stressor .*bogo ops' "$d/out" || {
		echo "# stress-ng in $d: no metrics"
		ran=1
	}
done
result $ran "scale.stress_ng_ran"

# scale.ops.NAME: each stressor's bogo ops, from the metrics table (its
# rows end at "miscellaneous metrics")
for d in root user; do
	awk '/miscellaneous metrics/ { exit }
	     $2 == "metrc:" && $5 ~ /^[0-9]+$/ { print $4, $5 }' $T/$d/out
done > $T/ops
while read -r name ops _; do
	[ -n "$name" ] || continue
	got=$(awk -v s="$name" '$1 == s { print $2; exit }' $T/ops)
	if [ -z "$got" ]; then
		echo "# $name: no bogo ops reported (the stressor did not run)"
		result 1 "scale.ops.$name"
		continue
	fi
	[ "$got" -ge "$ops" ] ||
		echo "# $name: $got of $ops bogo ops (cut short: the ${SAFETY}s safety net or a failure)"
	[ "$got" -gt 0 ]
	result $? "scale.ops.$name"
done <<EOF
$ROOT_MIX
$USER_MIX
EOF

# The header, for the record, then the values the checks read.
echo "# /proc/lockmeter after the workload, header:"
sed -n '/^$/q; s/^/#   /p' $T/lockmeter
header() { sed -n "/^\$/q; s/^$1: //p" $T/lockmeter; }
for key in table_full dropped evicted notask stacks_full; do
	v=$(header $key)
	case $v in
	'' | *[!0-9]*)
		echo "# $key: missing from the header"
		bad=1 ;;
	*)
		echo "# $key: $v"
		bad=$((v != 0)) ;;
	esac
	result $bad "scale.no_$key"
done

# Rows: sum acquired over all and over the overflow rows; the rows by
# hold_max_ns, largest first, into $T/bymax.
awk -v bymax=$T/bymax '
	!body && /^$/ { body = 1; next }
	!body { next }
	/^# type / {
		for (i = 2; i <= NF; i++)
			col[$i] = i - 1
		next
	}
	/^#/ || !NF { next }
	{
		if (!("acquired" in col) || !("hold_max_ns" in col) || !("lock" in col)) {
			print "no column line naming acquired, hold_max_ns and lock"
			bad = 1
			exit
		}
		a = $col["acquired"]
		rows++
		all += a
		if (index($col["lock"], "*overflow*") == 1) {
			over += a
			orows++
		}
		print $col["hold_max_ns"], $0 | "sort -rn -k1,1 > " bymax
	}
	END {
		close("sort -rn -k1,1 > " bymax)
		if (bad)
			exit 1
		printf "%d rows, %d overflow rows, acquired %.0f, in overflow rows %.0f", \
			rows, orows, all, over
		if (all > 0)
			printf " (%.3f%%)", 100 * over / all
		printf "\n"
		exit (all > 0 && over * 100 < all) ? 0 : 1
	}' $T/lockmeter > $T/rows
ok=$?
sed 's/^/# /' $T/rows
result $ok "scale.overflow_under_1pct"

echo "# the 10 rows with the largest hold_max_ns, each after its hold_max_ns:"
sed -n 's/^# type /#   hold_max_ns type /p' $T/lockmeter | head -n 1
head -n 10 $T/bymax 2>/dev/null | sed 's/^/#   /'

# Rows whose lock is named by its slab cache: "NAME+0xOFF", NAME a cache
# (a symbol would be a static lock, "sym+0xOFF").
if [ -r /proc/slabinfo ]; then
	awk 'NR > 2 { print "cache", $1 }' /proc/slabinfo > $T/names
else
	awk '{ print "sym", $3 }' /proc/kallsyms > $T/names
fi
awk -v names=$T/names '
	BEGIN {
		while ((getline line < names) > 0) {
			split(line, f, " ")
			if (f[1] == "cache") {
				cache[f[2]] = 1
				caches = 1
			} else {
				sym[f[2]] = 1
			}
		}
	}
	!body && /^$/ { body = 1; next }
	!body { next }
	/^# type / {
		for (i = 2; i <= NF; i++)
			col[$i] = i - 1
		next
	}
	/^#/ || !NF || !("lock" in col) { next }
	{
		lock = $col["lock"]
		if (lock !~ /^[^][+*:]+\+0x[0-9a-f]+$/)
			next
		name = substr(lock, 1, index(lock, "+") - 1)
		if (caches ? !(name in cache) : (name in sym))
			next
		n++
		# the first row of each cache (rows come longest hold first)
		if (!(name in seen)) {
			seen[name] = 1
			if (++nc <= 10)
				print "#   " $0
		}
	}
	END {
		printf "# %d rows named by slab cache, %d caches (by %s)\n", n, nc,
			caches ? "/proc/slabinfo" : "no symbol in /proc/kallsyms"
		exit n >= 10 ? 0 : 1
	}' $T/lockmeter > $T/slab
ok=$?
echo "# the row with the longest hold of each of 10 slab caches:"
sed -n 's/^# type /#   type /p' $T/lockmeter | head -n 1
cat $T/slab
result $ok "scale.slab_named_rows"
lm_mark "scale end rc=0"
exit 0
