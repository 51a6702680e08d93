#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# top_screen.sh: lockstat top on a real terminal.  A private tmux server
# runs 'lockstat top --replay' over the fixture series top-1..4.snap in a
# 120x30 pane; the test sends keys, captures the pane as text and checks
# sorting, filtering, grouping, the help screen, resizing, quitting, and
# that an idle top sleeps.  Prints "ok - " / "not ok - " lines for run.sh;
# a skip line when tmux is missing.
#
# Environment: LOCKSTAT (the binary), FIXTURES (tests/fixtures).
set -u

LOCKSTAT=${LOCKSTAT:?}
FIXTURES=${FIXTURES:?}
if ! command -v tmux >/dev/null 2>&1; then
	echo "ok - top on a terminal # SKIP tmux is not installed"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lockstat-screen.XXXXXX") || exit 1
sock=$tmp/tmux.sock
tm() {
	tmux -S "$sock" -f /dev/null "$@"
}
trap 'tm kill-server 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

pass() {
	echo "ok - top screen: $1"
}

# fail NAME: with the last capture as diagnostics
fail() {
	echo "not ok - top screen: $1"
	grep -v '^ *$' "$tmp/pane" 2>/dev/null | sed 's/^/# /' | head -n 30
}

capture() {
	tm capture-pane -p -t lt >"$tmp/pane" 2>/dev/null
}

# until PATTERN: capture until a line matches the extended regex (5 s)
until_seen() {
	i=0
	while [ $i -lt 50 ]; do
		capture
		grep -Eq -- "$1" "$tmp/pane" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# check NAME PATTERN: the pane shows PATTERN (waiting for it)
check() {
	if until_seen "$2"; then pass "$1"; else fail "$1"; fi
}

# row N: the Nth table row (after the column line, the total line not one) of the last capture
row() {
	awk -v n="$1" 'f && !/\*TOTAL\*/ && ++i == n { print; exit } /ACQ\/s .*NAME/ { f = 1 }' "$tmp/pane"
}

# first_row NAME PATTERN: the first table row matches PATTERN (waiting for it)
first_row() {
	i=0
	while [ $i -lt 50 ]; do
		capture
		row 1 | grep -Eq -- "$2" && { pass "$1"; return; }
		sleep 0.1
		i=$((i + 1))
	done
	fail "$1"
}

rows() {
	awk 'f && NF && !/\*TOTAL\*/ { n++ } /ACQ\/s .*NAME/ { f = 1 } END { print n + 0 }' "$tmp/pane"
}

keys() {
	tm send-keys -t lt "$@"
}

# start ENV ARGS [LINES]: 'lockstat top ARGS' with ENV set, in a new pane of
# 120 columns and LINES (30) lines
start() {
	tm kill-session -t lt 2>/dev/null
	tm new-session -d -s lt -x 120 -y "${3:-30}" \
		"TZ=UTC TERM=screen $1 '$LOCKSTAT' top $2; echo top-exited-\$?; sleep 30"
}

# idle NAME PATTERN: the lockstat process matching PATTERN uses under 5%
# of a CPU for 2 s (a busy loop takes most of it, whatever the machine)
idle() {
	pid=$(pgrep -f "$2" | head -n 1)
	if [ -z "$pid" ] || [ ! -r "/proc/$pid/stat" ]; then
		fail "$1: the process is there"
		return
	fi
	t0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	sleep 2
	t1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	if [ $((t1 - t0)) -le $(($(getconf CLK_TCK) / 10)) ]; then
		pass "$1: $((t1 - t0)) ticks of CPU in 2 s"
	else
		fail "$1: $((t1 - t0)) ticks of CPU in 2 s"
	fi
}

# The fixtures by a path of their own length wherever the tree is: the
# status line names a replay file, and a long path would be cut there.
cd "$FIXTURES" || exit 1
fx=.
# a session that outlives the others: killing the last one would make the
# server exit while the next test's new-session connects to it
tm new-session -d -s keep "sleep 3600"
# -d 3600: the frames move on space only
tm new-session -d -s lt -x 120 -y 30 \
	"TZ=UTC TERM=screen '$LOCKSTAT' top -d 3600 --sort maxhold --replay '$fx/top-1.snap' \
	'$fx/top-2.snap' '$fx/top-3.snap' '$fx/top-4.snap'; echo top-exited-\$?; sleep 30"
check "the first frame is since start" "^lockstat top - 12:00:00 .*since start.*top-1\\.snap"
check "the column line marks the sort column" "^ *ACQ/s +UTIL +CON +HMEAN +\\*HMAX +WMEAN +WMAX +%CPU +TYPE +NAME"
first_row "sorted by the longest hold: the 11 ms mutex first" "11ms .*mutex +lmt_mutex\\[test_lockmeter\\]"
check "the loss counters, with their increase" "^LOST: unmatched 4 \\(\\+4\\)"

keys Space
check "space: the next file, an interval" "^lockstat top - 12:00:01 .*interval 1\\.00s.*top-2\\.snap"
first_row "the interval's rates: 2000 acquisitions a second" "^ +2\\.0k +20\\.0% +20\\.0% .*lmt_static_lock"
capture
[ "$(rows)" -eq 4 ] && pass "a lock idle in the interval is not shown" || fail "a lock idle in the interval is not shown"
check "a total line after the rows: the interval's four added up" \
	"^ +4\\.0k +21\\.0% +10\\.1% +52us +400us +196us +600us +4\\.0% +all +\\*TOTAL\\* of 4 rows *$"
awk '/ACQ\/s .*NAME/ { f = 1; next } f && NF { last = $0 } END { print last }' "$tmp/pane" |
	grep -q 'TOTAL' && pass "the total line is the table's last" || fail "the total line is the table's last"

keys '>'
check "> sorts by the next column" "\\*WMEAN"
first_row "by mean wait: the 200 us waits first" "200us .*lmt_static_lock"
keys R
check "R reverses the sort" "WMEAN asc"
first_row "reversed: no waits first, read before rwsem_read" "0us +0us +0% +read +tasklist_lock"
keys '<' '<' '<' '<' '<'
check "< five times: sorted by ACQ/s" "^ *\\*ACQ/s"
first_row "by rate: the busiest first" "^ +2\\.0k .*lmt_static_lock"

keys / r u n q Enter
first_row "/ filters by name" "percpu:runqueues"
capture
[ "$(rows)" -eq 1 ] && pass "the filter leaves one lock" || fail "the filter leaves one lock"
check "the total line adds up what the filter leaves" "spin +\\*TOTAL\\* of 1 row *$|all +\\*TOTAL\\* of 1 row *$"
check "the filter is shown" "filter: \"runq\""
keys / C-u Enter
check "an empty filter shows all again" "filter: none"

keys t
check "t: spin locks only" "type: spin"
capture
[ "$(rows)" -eq 2 ] && ! grep -q "rwsem_read\|tasklist" "$tmp/pane" && pass "t: only the two spin locks" ||
	fail "t: only the two spin locks"
keys t
check "t again: rwlock reads" "type: read"
# the interval has spin, read and rwsem_read rows: t skips the other types
keys t
check "t again: rwsem_read, the types without rows skipped" "type: rwsem_read"
capture
[ "$(rows)" -eq 1 ] && pass "t: the one rwsem_read row" || fail "t: the one rwsem_read row"
keys t
check "t after the last type with rows: all types again" "type: all"

keys g
check "g: a row per (lock, site), the module named once" "lmt_static_lock lmt_contend\\+0x40\\[test_lockmeter\\]$"
keys g
check "g again: a row per lock" "group: lock"

keys r
check "r in a replay says there is no kernel" "no kernel"
keys c
check "c in a replay says why not" "netlink"

keys F1
check "F1, as in htop: the help screen" "lockstat top: keys"
keys x
first_row "F1: any key leaves the help screen" "lmt_static_lock"
keys F6
check "F6, as in htop: the sort prompt" "^sort key: *$"
keys Escape
keys h
check "h: the help screen" "lockstat top: keys"
keys x
first_row "any key leaves the help screen" "lmt_static_lock"

tm resize-window -t lt -x 50 -y 6 2>/dev/null || tm resize-pane -t lt -x 50 -y 6
check "a screen too small says so" "too small"
tm resize-window -t lt -x 120 -y 30 2>/dev/null || tm resize-pane -t lt -x 120 -y 30
first_row "growing again redraws the table" "lmt_static_lock"

keys Space
check "space: the third file" "12:00:02 .*top-3\\.snap"
first_row "the third interval's busiest: the runqueues at 3000 a second" "^ +3\\.0k .*percpu:runqueues"
check "the mutex is back: its 25 ms hold is new" "25ms .*mutex +lmt_mutex"
keys Space
check "the fourth file: after a reset, since start again" "12:00:03 \\[end\\] .*since start.*top-4\\.snap"
keys Space
check "space at the end says so" "end of the replay"
keys p
check "p pauses, and the summary says so first" "^lockstat top - 12:00:03 PAUSED "
keys p
check "p again goes on" "^lockstat top - 12:00:03 \\[end\\]"
keys d C-u 0 . 0 1 Enter
check "d: a bad interval is refused" "interval '0.01': 0.05 to 86400 seconds"
keys d C-u 2 5 Enter
check "d: a new interval" "^interval: 25s"
# the line starts empty, as in top(1): 5 is 5 s, not 255
keys d
check "d: the prompt names the interval now, the line is empty" "interval in seconds \\(now 25\\): *$"
keys 5 Enter
check "d: what is typed is the interval, not appended to the old one" "^interval: 5s$"
keys d Enter
check "d: Enter alone keeps the interval" "^interval: 5s, unchanged"

# idle: the replay is over; in 2 s top may wake 4 times a second
idle "idle" "lockstat top -d 3600 --sort maxhold --replay $fx/top-1.snap"

keys F10
check "F10, as in htop: quits with exit 0" "^top-exited-0"
tm kill-session -t lt 2>/dev/null

# without --sort, the rows sort by UTIL of the interval
start "" "-d 3600 --replay '$fx/top-1.snap'"
check "the default sort is UTIL" "^ *ACQ/s +\\*UTIL +CON"
tm kill-session -t lt 2>/dev/null

# the LOST banner is red, unless NO_COLOR is set (escapes captured with -e)
for nc in "" 1; do
	start "TERM=screen-256color NO_COLOR=$nc" "-d 3600 --replay '$fx/top-1.snap'"
	until_seen "^LOST" >/dev/null
	tm capture-pane -e -p -t lt >"$tmp/pane.e"
	grep '^.*LOST' "$tmp/pane.e" | grep -q "$(printf '\033')\\[[0-9;]*31[;m]" && red=1 || red=0
	tm kill-session -t lt 2>/dev/null
	if [ -z "$nc" ]; then
		[ $red -eq 1 ] && pass "colors: the LOST banner is red" || fail "colors: the LOST banner is red"
	else
		[ $red -eq 0 ] && pass "NO_COLOR: no colors" || fail "NO_COLOR: no colors"
	fi
done

# a bad replay file is named on the status line and skipped
bad="'$fx/top-1.snap' '$fx/bad-number.snap' '$fx/top-2.snap'"
start "" "-d 3600 --replay $bad"
until_seen "top-1\\.snap" >/dev/null
keys Space
check "a bad replay file: named, and skipped" "^file skipped: .*bad-number\\.snap:[0-9]+: corrupt snapshot"
keys Space
check "after a bad replay file, the next one" "^lockstat top - .*top-2\\.snap"
tm kill-session -t lt 2>/dev/null

# ... at the interval, not in a busy loop
start "" "-d 0.2 --replay $bad"
check "a bad replay file at -d 0.2: top goes on to the end" "^lockstat top - .*\\[end\\].*top-2\\.snap"
idle "after a bad replay file" "lockstat top -d 0.2 --replay $fx/top-1.snap"
tm kill-session -t lt 2>/dev/null

# a live source that fails: said so, tried again an interval later, not at once
cp "$fx/proc.txt" "$tmp/proc.txt"
start "LOCKSTAT_PROC='$tmp/proc.txt'" "-d 0.2 --source proc"
until_seen "since start" >/dev/null
rm "$tmp/proc.txt"
check "a failed sample: on the status line, with the next try" \
	"^sampling failed, next try in 0\\.2s: .*proc\\.txt: cannot open"
idle "after a failed sample" "lockstat top -d 0.2 --source proc"
cp "$fx/proc.txt" "$tmp/proc.txt"
check "the source is back: an interval frame" "^lockstat top - .*interval"
keys q
check "q after failed samples: exit 0" "^top-exited-0"
tm kill-session -t lt 2>/dev/null

# r and o ask first; only y does it.  A live source, a stand-in for /proc:
# a yes reaches the control write, which refuses a file outside procfs
cp "$fx/proc.txt" "$tmp/ctl.txt"
start "LOCKSTAT_PROC='$tmp/ctl.txt'" "-d 3600 --source proc"
until_seen "since start" >/dev/null
keys r
check "r: asks before a reset" "reset all statistics\\? \\(y/N\\)"
keys n
check "r, then n: no reset" "^reset: not done"
keys o
check "o with metering on: asks before switching it off" "switch metering off\\? \\(y/N\\)"
keys Escape
check "o, then Esc: metering stays on" "^metering off: not done"
keys r y
check "r, then y: the reset is tried (and refused: not procfs)" "^.*ctl\\.txt: not a file of /proc: 'reset'"
cmp -s "$fx/proc.txt" "$tmp/ctl.txt" && pass "r, o: the stand-in file is unchanged" ||
	fail "r, o: the stand-in file is unchanged"
keys h
check "help: r asks first" "reset all statistics \\(root; asks first"
until_seen "HOLDER \\(148 columns and wider\\)" >/dev/null && help148=1 || help148=0
keys x q
check "after the questions, q: exit 0" "^top-exited-0"
tm kill-session -t lt 2>/dev/null

# the help's HOLDER width is the code's: none at 147 columns, from 148 on
cols=
for w in 147 148; do
	tm new-session -d -s lt -x $w -y 30 \
		"TZ=UTC TERM=screen '$LOCKSTAT' top --by-site --replay '$fx/stacks.snap'; echo top-exited-\$?; sleep 30"
	until_seen "lmt_static_lock" >/dev/null
	grep -Eq "%CPU +HP99 +HOLDER +TYPE +NAME" "$tmp/pane" && cols="$cols $w"
	tm kill-session -t lt 2>/dev/null
done
[ "$help148" -eq 1 ] && [ "$cols" = " 148" ] &&
	pass "help: HOLDER from 148 columns, as the screen has it (HOLDER at:$cols)" ||
	fail "help: HOLDER from 148 columns, as the screen has it (HOLDER at:$cols)"

# SIGTERM restores the terminal and exits 0
tm new-session -d -s lt -x 100 -y 30 \
	"TERM=screen '$LOCKSTAT' top --replay '$fx/top-1.snap'; echo top-exited-\$?; sleep 30"
until_seen "lmt_static_lock" >/dev/null
check "100 columns: no HP99, no HOLDER, NAME keeps the room" "^ *ACQ/s .* %CPU +TYPE +NAME"
pkill -TERM -f "lockstat top --replay $fx/top-1.snap"
check "SIGTERM quits with exit 0" "^top-exited-0"
tm kill-session -t lt 2>/dev/null

# 80 columns: NAME has the rest of the line, columns drop by priority, TYPE narrows
tm kill-session -t lt 2>/dev/null
tm new-session -d -s lt -x 80 -y 30 \
	"TZ=UTC TERM=screen '$LOCKSTAT' top --replay '$fx/top-1.snap'; echo top-exited-\$?; sleep 30"
narrow=0
until_seen "^ +\\*UTIL +CON +HMEAN +HMAX +WMEAN +WMAX +TYPE +NAME *$" >/dev/null && narrow=1
[ $narrow -eq 1 ] && pass "80 columns: %CPU and ACQ/s dropped, the rest kept" ||
	fail "80 columns: %CPU and ACQ/s dropped, the rest kept"
check "80 columns: a name of 25 characters in full" "mutex +lmt_mutex\\[test_lockmeter\\] *$"
check "80 columns: TYPE abbreviated, rwsem_read as rsem_r" " rsem_r +\\[heap\\] lock_vma_under_rcu"
# [ and ]: NAME scrolls sideways, 8 columns a step, the rest of the row stays
check "80 columns: a long name cut at the edge" "spin +lmt_static_lock\\[test_lockmeter$"
keys ']'
check "]: the header says from which column NAME is shown" "WMAX TYPE +NAME from 9 \\(\\[ back\\) *$"
check "]: the end of the long name on the screen, the columns before it kept" \
	"^ +5\\.0% +11\\.2% +48us +200us +100us +300us spin +ic_lock\\[test_lockmeter\\] *$"
keys '['
check "[: NAME from its start again" "^NAME from its start$"
check "[: the header as it was" "WMAX TYPE +NAME *$"
tm resize-window -t lt -x 120 -y 30 2>/dev/null || tm resize-pane -t lt -x 120 -y 30
# the same screen, wide again: what dropped at 80 comes back
until_seen "^ *ACQ/s +\\*UTIL +CON +HMEAN +HMAX +WMEAN +WMAX +%CPU +TYPE +NAME" >/dev/null &&
	grep -q " rwsem_read  *\\[heap\\] lock_vma_under_rcu" "$tmp/pane" && [ $narrow -eq 1 ] &&
	pass "80 columns, then 120: every column back, TYPE in full" ||
	fail "80 columns, then 120: every column back, TYPE in full"
keys q
until_seen "^top-exited-" >/dev/null
tm kill-session -t lt 2>/dev/null

# the worst holder's comm, from the evidence of each site, on a wide screen
tm kill-session -t lt 2>/dev/null
tm new-session -d -s lt -x 160 -y 30 \
	"TZ=UTC TERM=screen '$LOCKSTAT' top --by-site --replay '$fx/stacks.snap'; echo top-exited-\$?; sleep 30"
check "160 columns: an HP99 and a HOLDER column" "^ *ACQ/s .* %CPU +HP99 +HOLDER +TYPE +NAME"
check "HOLDER: the worst holder of each site" "% +- +lmt_contend/1 +spin +lmt_static_lock lmt_contend_thread"
check "HOLDER: a site without evidence has none" "% +- +- +mutex +\\[heap\\] pipe_read"
keys q
check "q: exit 0" "^top-exited-0"
tm kill-session -t lt 2>/dev/null

# the detail pane: Enter opens it on the selected row (j, k, up, down
# move the selection), with the evidence as --stacks prints it
start "" "--by-site --sort maxhold --replay '$fx/blocked.snap'"
first_row "detail: sorted, the sleeper's 50 ms hold first" "50ms .*lmt_mutex_sleeper"
keys Enter
check "detail: Enter opens the pane of the first row" \
	"^ mutex lmt_mutex lmt_mutex_sleeper\\+0x23\\[test_lockmeter\\]  \\(Enter: close\\)"
check "detail: the worst holder, its CPU, the release" \
	"^worst hold 50ms by lmt_sleeper/420 on CPU 0, released at 52\\.301445s in:$"
check "detail: the holder's chain" "^  lmt_sleep_thread\\+0x19/0x40 \\[test_lockmeter\\]$"
check "detail: where it blocked, and that chain" \
	"^  blocked 49ms of it in schedule_timeout <- msleep <- lmt_mutex_sleep_inside <- lmt_mutex_sleeper <- \\.\\.\\.$"
check "detail: the blocked chain beneath" "^    lmt_mutex_sleep_inside\\+0x12/0x30 \\[test_lockmeter\\]$"
check "detail: the worst waiter and the owner it waited for" \
	"^worst wait 50ms by lmt_waiter/421 on CPU 1, owner lmt_sleeper/420 at its start"
tm capture-pane -e -p -t lt >"$tmp/pane.e"
grep "lmt_mutex_sleeper+0x23\\[" "$tmp/pane.e" | head -n 1 | grep -q "$(printf '\033')\\[[0-9;]*7[;m]" &&
	pass "detail: the selected row is in reverse" || fail "detail: the selected row is in reverse"
keys j
check "detail: j selects the next row, the pane follows" "^ rwsem_write lmt_rwsem lmt_rwsem_writer\\+0x31"
check "detail: a blocked time without a chain" "^  blocked 1\\.3ms of it; no call chain$"
check "detail: a row that never waited" "^no waits$"
keys Down Down Down
check "detail: down past the last row stays on it" "^ mutex lmt_mutex lmt_mutex_fast\\+0x11"
check "detail: the last row's holder" "^worst hold 12us by lmt_fast/423 on CPU 0"
keys k
check "detail: k goes back up" "^ rwsem_write lmt_rwsem"
tm resize-window -t lt -x 70 -y 9 2>/dev/null || tm resize-pane -t lt -x 70 -y 9
check "detail: a short terminal shows what fits, and says how much does not" \
	"^-- [0-9]+ more lines \\(a taller terminal shows them\\) --$"
tm resize-window -t lt -x 50 -y 6 2>/dev/null || tm resize-pane -t lt -x 50 -y 6
check "detail: a screen too small says so, pane or not" "too small"
tm resize-window -t lt -x 120 -y 30 2>/dev/null || tm resize-pane -t lt -x 120 -y 30
check "detail: growing again shows the pane" "^ rwsem_write lmt_rwsem"
keys Enter
until_seen "lmt_mutex_fast" >/dev/null
! grep -q "(Enter: close)" "$tmp/pane" && [ "$(rows)" -eq 3 ] && pass "detail: Enter again closes it" ||
	fail "detail: Enter again closes it"
keys q
check "detail: q: exit 0" "^top-exited-0"
tm kill-session -t lt 2>/dev/null

# the selection follows the lock, not its place in the table: across a
# new interval, a re-sort, a filter and its clearing, and g
start "" "-d 3600 --replay '$fx/top-1.snap' '$fx/top-2.snap' '$fx/top-3.snap' '$fx/top-4.snap'"
first_row "follow: by UTIL, the mutex first" "mutex +lmt_mutex"
keys j Enter
pane_spin="^ spin lmt_static_lock\\[test_lockmeter\\]  \\(Enter: close\\)"
check "follow: j, Enter: the second row's pane, lmt_static_lock" "$pane_spin"
keys Space
until_seen "^lockstat top - 12:00:01" >/dev/null
first_row "follow: the next interval, lmt_static_lock first" "spin +lmt_static_lock"
check "follow: the next interval: the pane stays on lmt_static_lock" "$pane_spin"
keys R
until_seen "UTIL asc" >/dev/null
check "follow: reversed, lmt_static_lock last: the pane stays on it" "$pane_spin"
keys / r u n q Enter
until_seen "filter: \"runq\"" >/dev/null
check "follow: a filter without it: the pane on the row shown" "^ spin percpu:runqueues\\+0x0  \\(Enter"
keys / C-u Enter
until_seen "filter: none" >/dev/null
check "follow: the filter cleared: back on lmt_static_lock" "$pane_spin"
keys g
until_seen "group: site" >/dev/null
check "follow: g: a site of the same lock" "^ spin lmt_static_lock lmt_contend\\+0x40\\[test_lockmeter\\]  \\(Enter"
keys q
tm kill-session -t lt 2>/dev/null

# the selection scrolls the table: on 12 lines 5 rows show (and the total
# line), the 11th row selected is the last of them, in reverse; Home goes
# back to the first
start "" "--by-site --sort name --replay '$fx/demo.snap'" 12
first_row "select: the first row by name" "spin +\\*overflow\\*\\(worst:lmt_many\\+0x1a0\\[test_lockmeter\\]\\) lmt"
keys Down Down Down Down Down Down Down Down Down Down
first_row "select: 10 rows down, the table scrolled 6" "\\[heap\\] lookup_slow\\+0x2a$"
check "select: the rows below counted" "^-- 19 more rows \\(Down/PgDn\\) --$"
check "select: the total line under them, of all 30 rows" "all +\\*TOTAL\\* of 30 rows *$"
tm capture-pane -e -p -t lt >"$tmp/pane.e"
grep "$(printf '\033')\\[[0-9;]*7m" "$tmp/pane.e" | grep -v "ACQ/s" | grep -c "jiffies_lock tick_do_update_jiffies64" |
	grep -qx 1 && pass "select: the selected row, the last shown, in reverse" ||
	fail "select: the selected row, the last shown, in reverse"
keys End
check "select: End: the last row, uts_sem, scrolled to" "rwsem_read +uts_sem __do_sys_newuname\\+0x2e"
tm capture-pane -e -p -t lt >"$tmp/pane.e"
grep "$(printf '\033')\\[[0-9;]*7m" "$tmp/pane.e" | grep -q "uts_sem" && ! grep -q "more rows (Down" "$tmp/pane.e" &&
	pass "select: End: the last row selected, nothing below" ||
	fail "select: End: the last row selected, nothing below"
keys Home
first_row "select: Home, back to the first row" "spin +\\*overflow\\*\\(worst:lmt_many\\+0x1a0\\[test_lockmeter\\]\\) lmt"
keys q
tm kill-session -t lt 2>/dev/null

# a row without evidence says so in the pane
start "" "--by-site --sort name --replay '$fx/stacks.snap'"
first_row "detail: sorted by name" "\\[heap\\] pipe_read"
keys Enter
check "detail: no evidence, said so" "^worst hold: no evidence$"
keys q
tm kill-session -t lt 2>/dev/null

# the tree, F5 or T as in htop: each lock, its sites beneath it; - folds
# the lock of the selected row, + opens it, * opens all or folds all
so=$(printf '\016') si=$(printf '\017')
start "" "-d 3600 --replay '$fx/top-1.snap' '$fx/top-2.snap'"
first_row "tree: by UTIL, the mutex first" "mutex +lmt_mutex\\[test_lockmeter\\] *$"
keys F5
check "tree: F5, as in htop: the status line says so, and its keys" \
	"^tree: each lock, its sites beneath; - folds a lock, \\+ opens it, \\* all$"
check "tree: the second line says so, and its keys" "group: tree  \\(- fold, \\+ open, \\* all\\)$"
capture
[ "$(rows)" -eq 8 ] && row 1 | grep -Eq " mutex +- lmt_mutex\\[test_lockmeter\\] *$" &&
	row 3 | grep -Eq " spin +- lmt_static_lock\\[test_lockmeter\\] *$" &&
	row 4 | grep -Eq "^ +1\\.0k +5\\.0% +10\\.0% .* spin +.. lmt_contend\\+0x40\\[test_lockmeter\\] *$" &&
	row 5 | grep -Eq "^ +50 +0\\.01% +28\\.6% .* spin +.. lmt_trylock\\+0x22\\[test_lockmeter\\] *$" &&
	row 8 | grep -Eq " rwsem_read +\\[heap\\] lock_vma_under_rcu\\+0x6b *$" &&
	pass "tree: four locks, each with its sites beneath, a [heap] lock alone" ||
	fail "tree: four locks, each with its sites beneath, a [heap] lock alone"
check "tree: lmt_static_lock's line adds up its two sites" \
	"^ +1\\.1k +5\\.0% +11\\.2% +48us +200us +100us +300us +0\\.50% +spin +- lmt_static_lock"
tm capture-pane -e -p -t lt >"$tmp/pane.e"
grep -q "spin  *${so}tq${si} lmt_contend+0x40\\[" "$tmp/pane.e" &&
	grep -q "spin  *${so}mq${si} lmt_trylock+0x22\\[" "$tmp/pane.e" &&
	pass "tree: the sites' glyphs in the terminal's line characters (a tee, a corner)" ||
	fail "tree: the sites' glyphs in the terminal's line characters (a tee, a corner)"
check "tree: the total line adds up the locks, as the list's does" \
	"^ +6\\.9k +17\\.4% +1\\.9% +25us +11ms +94us +300us +0\\.52% +all +\\*TOTAL\\* of 4 locks *$"
keys j j -
check "tree: - folds the selected lock, and says which" "^folded: lmt_static_lock\\[test_lockmeter\\]$"
capture
[ "$(rows)" -eq 6 ] && row 3 | grep -Eq " spin +\\+ lmt_static_lock\\[test_lockmeter\\] *$" &&
	! grep -q "lmt_contend\\|lmt_trylock" "$tmp/pane" &&
	grep -Eq "all +\\*TOTAL\\* of 4 locks *$" "$tmp/pane" &&
	pass "tree: folded, the lock's line marked +, its sites gone, the total the same" ||
	fail "tree: folded, the lock's line marked +, its sites gone, the total the same"
keys +
check "tree: + opens it again" "^open: lmt_static_lock\\[test_lockmeter\\]$"
first_row "tree: the first row stays" "mutex +- lmt_mutex"
capture
[ "$(rows)" -eq 8 ] && row 4 | grep -q "lmt_contend+0x40" && pass "tree: opened, its sites are back" ||
	fail "tree: opened, its sites are back"
keys j -
check "tree: - on a site folds its lock" "^folded: lmt_static_lock\\[test_lockmeter\\]$"
tm capture-pane -e -p -t lt >"$tmp/pane.e"
grep "$(printf '\033')\\[[0-9;]*7m" "$tmp/pane.e" | grep -q "+ lmt_static_lock" &&
	pass "tree: - on a site selects its lock, folded" || fail "tree: - on a site selects its lock, folded"
keys Space
check "tree: the next frame" "^lockstat top - 12:00:01 .*top-2\\.snap"
first_row "tree: a folded lock stays folded in the next frame" " spin +\\+ lmt_static_lock\\[test_lockmeter\\] *$"
keys '*'
check "tree: * with a lock folded opens all" "^all locks open$"
capture
[ "$(rows)" -eq 7 ] && row 2 | grep -q "lmt_contend+0x40" && pass "tree: all open, every site shown" ||
	fail "tree: all open, every site shown"
keys '*'
check "tree: * again folds all" "^all locks folded: \\+ opens one, \\* all$"
capture
[ "$(rows)" -eq 4 ] && row 1 | grep -Eq " spin +\\+ lmt_static_lock" &&
	row 2 | grep -Eq " rwsem_read +\\[heap\\] lock_vma_under_rcu" &&
	row 3 | grep -Eq " spin +\\+ percpu:runqueues\\+0x0 *$" && row 4 | grep -Eq " read +\\+ tasklist_lock *$" &&
	pass "tree: all folded, a line per lock, in the order of UTIL" ||
	fail "tree: all folded, a line per lock, in the order of UTIL"
keys '*' R
check "tree: R reverses the sort" "UTIL asc"
capture
row 1 | grep -Eq " read +- tasklist_lock *$" && row 2 | grep -Eq " read +.. do_wait\\+0x5e *$" &&
	row 7 | grep -Eq " spin +.. lmt_contend\\+0x40" &&
	pass "tree: reversed, the quietest lock first, its site beneath" ||
	fail "tree: reversed, the quietest lock first, its site beneath"
keys ']'
check "tree: ] scrolls NAME, glyphs and all" "^ +2\\.0k +20\\.0% .* spin +atic_lock\\[test_lockmeter\\] *$"
check "tree: ] a site 8 columns on: its glyphs and 3 of its name gone" " spin +_contend\\+0x40\\[test_lockmeter\\] *$"
keys '['
check "tree: [ back" " spin +- lmt_static_lock\\[test_lockmeter\\] *$"
keys h
check "help: T and F5, the tree, its keys" "^  T F5 +tree: each lock, its sites beneath; - fold, \\+ open, \\* all"
keys x T
check "tree: T leaves it" "^tree off: a row per lock$"
capture
[ "$(rows)" -eq 4 ] && ! grep -q "lmt_contend" "$tmp/pane" && pass "tree off: a row per lock again" ||
	fail "tree off: a row per lock again"
keys -
check "tree off: - says it folds in the tree" "^fold: in the tree \\(T or F5\\)$"
keys T g
check "tree: g goes back to the list it came from" "^a row per lock$"
check "tree: g, the second line: group lock" "group: lock$"
keys q
tm kill-session -t lt 2>/dev/null

# --tree, in a UTF-8 locale: curses draws the glyphs in UTF-8
utf8=$(locale -a 2>/dev/null | grep -i -m 1 '^c\.utf-\?8$')
if [ -n "$utf8" ]; then
	start "LC_ALL=$utf8" "--tree -d 3600 --replay '$fx/top-1.snap'"
	check "tree, LC_ALL=$utf8: a tee in UTF-8" \
		"$(printf ' spin +\342\224\234\342\224\200 lmt_contend[+]0x40')"
	check "tree, LC_ALL=$utf8: a corner in UTF-8" "$(printf ' spin +\342\224\224\342\224\200 lmt_trylock[+]0x22')"
	tm kill-session -t lt 2>/dev/null
else
	pass "tree in UTF-8 # SKIP no C.UTF-8 locale"
fi

# a terminal without line characters (no acsc): the glyphs in ASCII, as htop's
if command -v tic >/dev/null 2>&1 && command -v infocmp >/dev/null 2>&1 &&
	infocmp -x screen 2>/dev/null | sed 's/^screen|/screen-noacs|/; s/acsc=\([^,\\]\|\\.\)*, *//;
		s/ G0,//; s/\(smacs\|rmacs\|enacs\)=[^,]*, *//' | tic -x -o "$tmp/terminfo" - 2>/dev/null; then
	start "TERMINFO='$tmp/terminfo' TERM=screen-noacs" "--tree -d 3600 --replay '$fx/top-1.snap'"
	check "tree, a terminal without line characters: |- for a site" " spin +\\|- lmt_contend\\+0x40"
	check "tree, a terminal without line characters: \`- for the last" " spin +\`- lmt_trylock\\+0x22"
	tm kill-session -t lt 2>/dev/null
else
	pass "tree without line characters # SKIP no tic or infocmp"
fi

# a terminal type curses does not know is an error, not a crash
tm new-session -d -s lt -x 100 -y 30 \
	"TERM=no-such-terminal '$LOCKSTAT' top --replay '$fx/top-1.snap'; echo top-exited-\$?; sleep 30"
check "an unknown TERM: an error, exit 1" "^top-exited-1"
check "an unknown TERM: the message names it" "no-such-terminal"
exit 0
