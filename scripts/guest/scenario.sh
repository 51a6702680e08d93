#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the scenarios: real kernel code in trouble, metered by
# "lockstat record" around /bin/lmscenario (scripts/scenarios/lmscenario.c).
#
#   lmguest=scenario lmscenario=NAME   make demo SCENARIO=NAME: the report
#       of one scenario, the evidence of its top rows, and what to look at
#   lmguest=scenarios                  make check: a test of each scenario,
#       TAP between "LM-GUEST: scenarios begin" and "... end"
#   lmguest=upgrade                    the upgrade hunt, on each kernel line
#       (make demo SCENARIO=upgrade, make check): the munmap workload
#       metered, its snapshot sent to the host, which diffs the two lines'
#       (scripts/scenarios/upgrade.sh)
#
# fifo     qmail's trigger FIFO: one-byte writes while a listener select()s;
#          key WAIT MAX of the mutexes: the pipe's mutex in fs/pipe.c
# munmap   a large mapping torn down while other threads fault; key HOLD
#          MAX of the rw_semaphores: mmap_lock on the munmap path
# journal  ext4 on a throttled virtio disk (/dev/vda, made on the host),
#          writers doing write+fsync while another process syncs; key
#          BLOCKED MAX of the sleeping locks: locks held across I/O waits
#
# A test checks the result, not the presence of output: the expected
# lock among the 5 rows with the largest key, at a site in the expected
# function (offsets free), acquisitions there that grow with the size of
# the workload, and the program's own measurement consistent with the
# report.  A scenario runs again (at most TRIES times) until its key
# shows what it must: the test does not depend on the machine's speed.
# shellcheck source=scripts/guest/lib.sh
. /lm/lib.sh
T=/tmp/scenario
MNT=/mnt/journal
TRIES=5
rm -rf $T
mkdir -p $T

# fifo: the pipe mutex's sites in fs/pipe.c
FIFO_SITES="fifo_open pipe_write pipe_read pipe_release"
# munmap: mmap_lock taken (and downgraded) on the munmap path (6.12's
# functions, then 6.1's)
MUNMAP_SITES="__vm_munmap vms_complete_munmap_vmas do_vmi_align_munmap do_mas_align_munmap
do_mas_munmap"
# journal: sleeping locks of the write, fsync and sync paths of ext4/jbd2
# (i_rwsem, i_data_sem, s_umount, s_sync_lock, jbd2's mutexes)
JOURNAL_SITES="ext4_buffered_write_iter ext4_map_blocks ext4_sync_file super_lock
__iterate_supers iterate_supers sync_inodes_sb sync_filesystem jbd2_log_do_checkpoint
__jbd2_log_wait_for_space jbd2_journal_commit_transaction ext4_writepages"

# The 5 site rows of TYPES (comma-separated) with the largest KEY (a CSV
# column), one per line: "VALUE TYPE FUNCTION LOCK".  An overflow row's
# FUNCTION is *overflow*: its site is that of its longest hold, its counts
# those of every key that found the key directory full.
top5() {	# top5 CSV TYPES KEY
	awk -F, -v types=",$2," -v key="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == "site" && index(types, "," $2 ",") {
			f = $4; sub(/\+0x.*/, "", f)
			if (index($3, "*overflow*") == 1) f = "*overflow*"
			print $(col[key]), $2, f, $3
		}' "$1" | sort -rn | head -n 5
}

# FIELD of the site rows of TYPES in function FUNC: summed (sum) or the
# largest (max).
field() {	# field CSV TYPES FUNC FIELD sum|max
	awk -F, -v types=",$2," -v fn="$3" -v key="$4" -v how="$5" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == "site" && index(types, "," $2 ",") {
			# an overflow row is named after its longest hold,
			# *overflow*(worst:LOCK), and has that hold'"'"'s site: it is
			# found by its lock, and is no row of that site
			ovf = index($3, "*overflow*") == 1
			if (fn == "*overflow*") {
				if (!ovf) next
			} else {
				f = $4; sub(/\+0x.*/, "", f)
				if (ovf || f != fn) next
			}
			v = $(col[key])
			if (how == "sum") s += v; else if (v > s) s = v
		}
		END { print s + 0 }' "$1"
}

# Is one of the top5 lines of FILE, with a value above 0, at a function
# of the list?  Prints the first such line.
hit() {		# hit TOP5FILE "FUNC..."
	# shellcheck disable=SC2086,SC2116
	awk -v fns=" $(echo $2) " '
		$1 > 0 && index(fns, " " $3 " ") { print; found = 1; exit }
		END { exit !found }' "$1"
}

# The value KEY=... of the program's "LM-SCENARIO: WHAT" line in FILE.
measured() {	# measured FILE WHAT KEY
	sed -n "s/^LM-SCENARIO: $2 .*$3=\([0-9]*\).*/\1/p" "$1" | head -n 1
}

# sites NAME: the functions where scenario NAME's culprit is taken
sites() {
	case $1 in
	fifo) echo "$FIFO_SITES" ;;
	munmap) echo "$MUNMAP_SITES" ;;
	journal) echo "$JOURNAL_SITES" ;;
	esac
}

# conf NAME: what scenario NAME meters (types), its key as a CSV column
# (key) and as lockstat's sort key (sort).
conf() {
	case $1 in
	fifo) types=mutex key=wait_max_ns sort=maxwait ;;
	munmap) types=rwsem_read,rwsem_write key=hold_max_ns sort=maxhold ;;
	journal) types=mutex,rwsem_read,rwsem_write key=blocked_max_ns sort=blocked ;;
	esac
}

cmd_fifo() { echo "lmscenario fifo $T/trigger $1"; }
cmd_munmap() { echo "lmscenario munmap 32 $1"; }
cmd_journal() { echo "lmscenario journal $MNT 3 $1 64"; }

prepare_journal() {
	[ -b /dev/vda ] || { echo "scenario: no /dev/vda: the journal scenario needs the disk" \
		"image make attaches (build/scenario-journal.img)"; return 1; }
	mkdir -p $MNT
	mount -t ext4 /dev/vda $MNT || { echo "scenario: mount /dev/vda failed"; return 1; }
}
finish_journal() {
	rm -f $MNT/writer*
	umount $MNT
}

# run NAME SIZE TAG [RECORD-OPTIONS...]: meter one run of the scenario:
# the table in $T/TAG.out (with the program's own lines), the snapshot in
# $T/TAG.snap, its CSV in $T/TAG.csv.
run() {
	name=$1 size=$2 tag=$3
	shift 3
	conf "$name"
	# shellcheck disable=SC2046
	lockstat record --type "$types" --sort "$sort" -o "$T/$tag.snap" "$@" -- \
		$(cmd_"$name" "$size") > "$T/$tag.out" 2>&1
	rc=$?
	lockstat report --csv "$T/$tag.snap" > "$T/$tag.csv" 2>> "$T/$tag.out" || rc=1
	# events that found the key directory full: their keys have no rows
	lockstat report --json "$T/$tag.snap" 2>/dev/null |
		sed -n 's/.*"table_full": \([0-9]*\).*/\1/p' > "$T/$tag.full"
	return $rc
}

# full TAG: the table_full count of run TAG (empty if unknown)
full() { cat "$T/$1.full" 2>/dev/null; }

# The size of the kernel's key directory (all CPUs), or of one CPU's
# table on a kernel without the directory ("per CPU N").
keys_line() {
	sed -n 's/^keys: //p; s/^slots_per_cpu: /per CPU /p' /proc/lockmeter | head -n 1
}

# counted NAME SMALL BIG CHECK...: run NAME at size SMALL ($T/NAME.small)
# until CHECK (a command) holds for it and the run of size BIG
# ($T/NAME.big, the drive's), at most TRIES times.  A full table can only
# lower a count at a site, never raise it: when either run lost events to
# one, both run again; when neither did, a failed CHECK fails.
counted() {
	name=$1 small=$2 big=$3
	shift 3
	i=0
	while [ $i -lt $TRIES ]; do
		i=$((i + 1))
		if [ $i -gt 1 ]; then
			run "$name" "$big" "$name.big" || continue
		fi
		run "$name" "$small" "$name.small" ||
			{ grep '^LM-SCENARIO:\|^lmscenario:' "$T/$name.small.out"; continue; }
		"$@" && return 0
		lost="$(full "$name.small") $(full "$name.big")"
		[ "$lost" = "0 0" ] && return 1
		echo "run $i: events lost to a full key directory (small, big runs): $lost" \
			"(keys: $(keys_line)): again"
	done
	return 1
}

# ---- make demo SCENARIO=NAME ----------------------------------------------

# look NAME: what to look at in scenario NAME's report
look() {
	case $1 in
	fifo) echo "the pipe's mutex (kmalloc-SIZE+0x0, the first field of its struct pipe_inode_info: rows at fifo_open, pipe_read, pipe_write, pipe_release in fs/pipe.c): its WAIT MAX and HOLD MAX against the slowest write() above; --stacks names who held it" ;;
	munmap) echo "mmap_lock (mm_struct+0xOFF rw_semaphore rows): munmap() takes it for writing (mmap_write_lock_killable, called from __vm_munmap) and downgrades it to a read hold at vms_complete_munmap_vmas while the pages are freed: the longest hold; the other threads' mmap() (vm_mmap_pgoff: each maps a fresh MiB over its last one) waits behind it, and their page faults, which need mmap_lock only for a mapping's first fault, fail the trylock at __vmf_anon_prepare and wait at lock_mm_and_find_vma; every other fault takes only its VMA's lock (lock_vma_under_rcu)" ;;
	journal) echo "sleeping locks held across I/O waits: BLOCKED MAX close to HOLD MAX, ONCPU small: the superblock's s_umount taken by sync() (super_lock) and its s_sync_lock (sync_inodes_sb), held while the throttled disk writes; the inode's i_rwsem (ext4_buffered_write_iter) and i_data_sem (ext4_map_blocks) held by the writers while they wait for the journal; --stacks names the holder, where it released the lock and, for a blocked holder, where it slept (e.g. jbd2_log_wait_commit under sync)" ;;
	esac
}

demo() {
	name=$1
	case $name in
	fifo) size=2000 ;;
	munmap) size=8 ;;
	journal) size=16 ;;
	*) echo "scenario: unknown scenario '$name'"; return 1 ;;
	esac
	if [ "$name" = journal ]; then
		prepare_journal || return 1
	fi
	lm_mark "report begin"
	echo "Scenario $name: $(cmd_"$name" $size)"
	# as the tests do: again (at most TRIES runs) until the key shows it
	conf "$name"
	try=0
	while [ $try -lt $TRIES ]; do
		try=$((try + 1))
		run "$name" "$size" demo --top 8
		rc=$?
		top5 $T/demo.csv "$types" "$key" > $T/demo.top5
		[ $rc -eq 0 ] && hit $T/demo.top5 "$(sites "$name")" > /dev/null && break
	done
	[ $try -gt 1 ] && echo "(run $try of at most $TRIES: the runs before did not show the culprit by $sort)"
	cat $T/demo.out
	echo
	echo "Who held and who waited longest, for the top 3 rows:"
	conf "$name"
	lockstat report --stacks --top 3 --type "$types" --sort "$sort" $T/demo.snap || rc=1
	echo
	echo "What to look at: $(look "$name")" | fold -s -w 78
	lm_mark "report end"
	[ "$name" = journal ] && finish_journal
	return "$rc"
}

# ---- the upgrade hunt: one kernel line's side ----------------------------

# The munmap workload, UPGRADE_ROUNDS rounds, metered on this kernel; its
# snapshot goes to the host base64-encoded between "LM-GUEST: file
# upgrade.snap begin" and "... end" (the test channel carries text only).
# On 6.1 every page fault takes mmap_lock for reading and waits behind
# munmap()'s and mmap()'s write holds; on 6.12 a fault takes its VMA's
# lock (lock_vma_under_rcu) and mmap_lock only for a mapping's first.  The
# host diffs the two lines' snapshots and checks what the diff names.
UPGRADE_ROUNDS=8
upgrade() {
	lm_mark "upgrade begin"
	echo "TAP version 13"
	echo "1..1"
	run munmap $UPGRADE_ROUNDS upgrade
	rc=$?
	grep '^LM-SCENARIO:\|^lmscenario:' $T/upgrade.out
	if [ $rc -ne 0 ] || [ ! -s $T/upgrade.snap ]; then
		tail -n 5 $T/upgrade.out | diag
		echo "not ok 1 upgrade: the munmap workload metered on $(uname -r)"
		lm_mark "upgrade end rc=1"
		return 1
	fi
	echo "ok 1 upgrade: the munmap workload metered on $(uname -r), its snapshot" \
		"($(wc -c < $T/upgrade.snap) bytes) sent to the host"
	lm_mark "upgrade end rc=0"
	lm_mark "file upgrade.snap begin"
	base64 $T/upgrade.snap
	lm_mark "file upgrade.snap end"
}

# ---- make check: the scenario tests ---------------------------------------

n=0 fails=0
ok() {	# ok NAME STATUS
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $n scenario $1"
	else
		echo "not ok $n scenario $1"
		fails=$((fails + 1))
	fi
}
diag() { sed 's/^/# /'; }

# drive NAME SIZE SITES: runs of SIZE until one that succeeded has a row
# at one of SITES among the top 5 by the scenario's key, above every row
# a full table may have left out (at most TRIES runs); the last run is
# $T/NAME.big.*.  Prints the row found.
drive() {
	name=$1 size=$2 sites=$3
	conf "$name"
	try=0
	while [ $try -lt $TRIES ]; do
		try=$((try + 1))
		if ! run "$name" "$size" "$name.big"; then
			echo "run $try failed:"
			tail -n 5 "$T/$name.big.out"
			continue
		fi
		top5 "$T/$name.big.csv" "$types" "$key" > "$T/$name.top5"
		hit "$T/$name.top5" "$sites" > "$T/$name.hit" || continue
		cat "$T/$name.hit"
		# Events that found the key directory full are in the *overflow* rows:
		# a missing row could rank above the one found only if their
		# key does.
		lost=$(full "$name.big")
		ovf=$(field "$T/$name.big.csv" "$types" "*overflow*" "$key" max)
		if [ "${lost:-1}" != 0 ] && [ "$ovf" -ge "$(cut -d' ' -f1 "$T/$name.hit")" ]; then
			echo "run $try: $lost events found the key directory full, and the *overflow* row's $key" \
				"($ovf) could hide a row above it"
			continue
		fi
		echo "after $try run(s); ${lost:-?} events found the key directory full (*overflow* $key $ovf)"
		return 0
	done
	echo "not after $try runs; the top 5 by $key:"
	cat "$T/$name.top5"
	return 1
}

# grows NAME SMALL BIG FUNC MIN_SMALL MIN_BIG: the acquisitions at FUNC in
# the runs of both sizes: at least MIN_* each, more in the big run.
grows() {
	conf "$1"
	a=$(field "$T/$1.small.csv" "$types" "$4" acquired sum)
	b=$(field "$T/$1.big.csv" "$types" "$4" acquired sum)
	echo "acquisitions at $4: $a for size $2, $b for size $3 (want >= $5, >= $6)"
	[ "$a" -ge "$5" ] && [ "$b" -ge "$6" ] && [ "$b" -gt "$a" ]
}

fifo_counts() {
	grows fifo "$1" "$2" fifo_open "$1" "$2" && grows fifo "$1" "$2" pipe_write "$1" "$2"
}

test_fifo() {
	small=2000 big=4000
	drive fifo $big "$FIFO_SITES" > $T/d 2>&1
	ok "fifo: a pipe mutex site (fs/pipe.c) among the top 5 mutexes by WAIT MAX" $?
	diag < $T/d
	counted fifo $small $big fifo_counts $small $big > $T/d 2>&1
	ok "fifo: acquisitions at fifo_open and pipe_write, at least one per write, grow with the writes" $?
	diag < $T/d
	slow=$(measured $T/fifo.big.out fifo slowest_write_ns)
	hmax=$(field $T/fifo.big.csv mutex pipe_write hold_max_ns max)
	wmax=$(field $T/fifo.big.csv mutex pipe_write wait_max_ns max)
	echo "slowest write() ${slow:-?} ns; at pipe_write: HOLD MAX $hmax ns, WAIT MAX $wmax ns" > $T/d
	[ -n "$slow" ] && [ "$hmax" -gt 0 ] && [ "$hmax" -le "$slow" ] && [ "$wmax" -le "$slow" ]
	ok "fifo: pipe_write's HOLD MAX and WAIT MAX within the slowest write() the program measured" $?
	diag < $T/d
}

# Every munmap() downgrades mmap_lock at vms_complete_munmap_vmas once,
# and the program's only munmap() calls are its big ones (the faulters
# map over their last MiB instead): the read holds there cover them in
# each run, and grow from the small run to the big one.
munmap_counts() {
	ms=$(measured $T/munmap.small.out munmap big_munmaps)
	mb=$(measured $T/munmap.big.out munmap big_munmaps)
	echo "big munmap() calls: ${ms:-?} of $1 rounds, ${mb:-?} of $2 rounds"
	[ -n "$ms" ] && [ -n "$mb" ] && [ "$ms" -eq "$1" ] && [ "$mb" -eq "$2" ] &&
		grows munmap "$1" "$2" vms_complete_munmap_vmas "$ms" "$mb"
}

test_munmap() {
	small=4 big=8
	drive munmap $big "$MUNMAP_SITES" > $T/d 2>&1
	ok "munmap: mmap_lock at the munmap path among the top 5 rw_semaphores by HOLD MAX" $?
	diag < $T/d
	counted munmap $small $big munmap_counts $small $big > $T/d 2>&1
	ok "munmap: read holds at vms_complete_munmap_vmas, one per big munmap(), grow from $small to $big rounds" $?
	diag < $T/d
	slow=$(measured $T/munmap.big.out munmap slowest_munmap_ns)
	hmax=0
	for f in $MUNMAP_SITES; do
		v=$(field $T/munmap.big.csv rwsem_read,rwsem_write "$f" hold_max_ns max)
		[ "$v" -gt "$hmax" ] && hmax=$v
	done
	echo "slowest munmap() ${slow:-?} ns; HOLD MAX on the munmap path $hmax ns" > $T/d
	[ -n "$slow" ] && [ "$hmax" -gt 0 ] && [ "$hmax" -le "$slow" ]
	ok "munmap: the munmap path's HOLD MAX within the slowest munmap() the program measured" $?
	diag < $T/d
}

test_journal() {
	small=8 big=16
	if ! prepare_journal > $T/d 2>&1; then
		for t in "blocked hold" "growth" "blocked share"; do
			ok "journal: $t # $(cat $T/d)" 1
		done
		return
	fi
	drive journal $big "$JOURNAL_SITES" > $T/d 2>&1
	ok "journal: a lock of the ext4/jbd2 write, fsync or sync path among the top 5 sleeping locks by BLOCKED MAX" $?
	diag < $T/d
	rm -f $MNT/writer*
	counted journal $small $big \
		grows journal $small $big ext4_buffered_write_iter $((3 * small)) $((3 * big)) > $T/d 2>&1
	ok "journal: i_rwsem acquisitions at ext4_buffered_write_iter, one per write(), grow with the writes" $?
	diag < $T/d
	# the row found: its hold was spent blocked, not on a CPU
	# shellcheck disable=SC2046
	set -- $(cat $T/journal.hit 2>/dev/null)
	blk=$(field $T/journal.big.csv "$2" "$3" blocked_total_ns sum)
	onc=$(field $T/journal.big.csv "$2" "$3" oncpu_total_ns sum)
	echo "$2 at $3: blocked $blk ns, on a CPU $onc ns in total" > $T/d
	[ -n "$3" ] && [ "$blk" -gt "$onc" ]
	ok "journal: that lock's hold dominated by blocked time" $?
	diag < $T/d
	finish_journal
}

checks() {
	lm_mark "scenarios begin"
	echo "TAP version 13"
	echo "1..9"
	test_fifo
	test_munmap
	test_journal
	lm_mark "scenarios end rc=$fails"
	[ $fails -eq 0 ]
}

if [ ! -e /proc/lockmeter ]; then
	echo "scenario: /proc/lockmeter missing: kernel without CONFIG_LOCKMETER"
	exit 1
fi
case $1 in
demo) demo "$2" ;;
check) checks ;;
upgrade) upgrade ;;
*) echo "usage: scenario.sh demo NAME | check | upgrade"; exit 2 ;;
esac
