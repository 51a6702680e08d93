#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: the host tests of lockstat, as one TAP stream on stdout (and in
# $TAP_OUT when set).  No kernel needed: the C unit tests (tests/test_*),
# golden outputs of fixture snapshots (table, JSON, CSV, sort keys,
# filters), the historic layout, exit codes, and the /proc source driven
# through $LOCKSTAT_PROC.  Exits non-zero when any test fails.
#
# Environment: LOCKSTAT (the binary), TESTBIN (the unit test binaries),
# PYTHON, TAP_OUT; UPDATE=1 rewrites tests/golden/ from the current output
# (review the diff before committing it).
set -u

here=$(cd "$(dirname "$0")" && pwd)
fx=$here/fixtures
gold=$here/golden
LOCKSTAT=${LOCKSTAT:-$here/../lockstat}
TESTBIN=${TESTBIN:-$here}
PYTHON=${PYTHON:-python3}
TAP_OUT=${TAP_OUT:-}
case $LOCKSTAT in /*) ;; *) LOCKSTAT=$(pwd)/$LOCKSTAT ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lockstat-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
results=$tmp/results
: >"$results"
mkdir "$tmp/fxroot" && ln -s "$fx" "$tmp/fxroot/FIXTURES" || exit 1
export TZ=UTC LC_ALL=C
unset LOCKSTAT_PROC COLUMNS

pass() {
	echo "ok - $1" >>"$results"
}

# fail NAME [FILE]: a failed test, with FILE's first lines as diagnostics
fail() {
	echo "not ok - $1" >>"$results"
	if [ $# -gt 1 ] && [ -s "$2" ]; then
		head -n 20 "$2" | sed 's/^/# /' >>"$results"
	fi
}

# ok NAME COMMAND...: the command succeeds
ok() {
	name=$1
	shift
	if "$@" >"$tmp/ok.out" 2>&1; then pass "$name"; else fail "$name" "$tmp/ok.out"; fi
}

# rc NAME WANT ARGS...: lockstat ARGS exits with WANT
rc() {
	name=$1 want=$2
	shift 2
	"$LOCKSTAT" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
	got=$?
	if [ "$got" -eq "$want" ]; then
		pass "$name: exit $want"
	else
		echo "exit $got" >"$tmp/why"
		cat "$tmp/stderr" >>"$tmp/why"
		fail "$name: exit $want" "$tmp/why"
	fi
}

# golden NAME FILE ARGS...: lockstat ARGS prints tests/golden/FILE
golden() {
	name=$1 file=$2
	shift 2
	# The fixtures' directory is wherever the tree is, and a path's length
	# changes how a line is laid out: lockstat is given the fixtures as
	# FIXTURES/NAME, from a directory where FIXTURES links to them, so that
	# it lays out exactly what the golden files say.
	n=$#
	for a in "$@"; do
		case $a in "$fx"/*) a=FIXTURES/${a#"$fx"/} ;; esac
		set -- "$@" "$a"
	done
	shift "$n"
	(cd "$tmp/fxroot" && exec "$LOCKSTAT" "$@") >"$tmp/golden.raw" 2>"$tmp/stderr"
	got=$?
	sed "s|$fx/|FIXTURES/|g" "$tmp/golden.raw" >"$tmp/golden"
	[ "${UPDATE:-}" = 1 ] && [ $got -eq 0 ] && cp "$tmp/golden" "$gold/$file"
	if [ $got -ne 0 ]; then
		fail "golden: $name" "$tmp/stderr"
	elif diff -u "$gold/$file" "$tmp/golden" >"$tmp/diff" 2>&1; then
		pass "golden: $name"
	else
		fail "golden: $name" "$tmp/diff"
	fi
}

json_ok() {
	"$PYTHON" -m json.tool "$1" >/dev/null
}

# ---- unit tests in C ----
for t in test_model test_snapfile test_nl test_prom test_hist test_watch test_ctl; do
	# test_nl compares lockstat held's output with tests/golden/held.*
	GOLDEN_DIR=$gold "$TESTBIN/$t" >"$tmp/unit" 2>"$tmp/unit.err"
	got=$?
	grep -E '^(ok|not ok) - |^# ' "$tmp/unit" >>"$results"
	if [ $got -ne 0 ] && ! grep -q '^not ok' "$tmp/unit"; then
		fail "$t exited with $got" "$tmp/unit.err"
	fi
done

# ---- golden outputs ----
golden "table" demo.txt report "$fx/demo.snap"
golden "JSON" demo.json report --json "$fx/demo.snap"
golden "CSV" demo.csv report --csv "$fx/demo.snap"
golden "the 2003 rmap-test numbers" historic.txt report "$fx/historic.snap"
golden "a saved /proc/lockmeter" proc.txt report "$fx/proc.txt"
# proc.txt is a kernel of per-CPU tables; proc-keys.txt one of the key
# directory, full, with overflow rows named after their longest hold
golden "/proc/lockmeter of the key directory" proc-keys.txt report "$fx/proc-keys.txt"
golden "the key directory, --width 80" proc-keys-80.txt report --width 80 "$fx/proc-keys.txt"
grep -q "^Metered Time: .*, keys in use: 16384 / 16384 (100.0%)$" "$gold/proc-keys.txt" &&
	grep -q "^Metered Time: .*, keys in use: 291 / 4096 per CPU (7.1%)$" "$gold/proc.txt" &&
	pass "keys: in use of the directory, or per CPU on an older kernel" ||
	fail "keys: in use of the directory, or per CPU on an older kernel" "$gold/proc-keys.txt"
"$LOCKSTAT" report --width 80 "$fx/proc-keys.txt" >"$tmp/k80" 2>&1
awk 'length > 80 { bad = 1 } /  \*overflow\*/ { n++ } END { exit bad || n != 4 }' "$tmp/k80" &&
	[ "$(grep -c '  \*overflow\*(worst:' "$tmp/k80")" = 3 ] &&
	pass "keys: --width 80: the named overflow rows cut to the width, named first" ||
	fail "keys: --width 80: the named overflow rows cut to the width, named first" "$tmp/k80"
"$LOCKSTAT" report --csv "$fx/proc-keys.txt" >"$tmp/k.csv" 2>&1
grep -qx 'lock,spin,\*overflow\*(worst:percpu:runqueues+0x0),raw_spin_rq_lock_nested+0xd/0xf,40,.*' "$tmp/k.csv" &&
	grep -qx 'lock,spin,percpu:runqueues+0x0,,5710,.*' "$tmp/k.csv" &&
	grep -qx 'lock,rwsem_read,\*overflow\*,\*overflow\*,0,.*' "$tmp/k.csv" &&
	pass "keys: a named overflow row is a lock of its own, apart from the lock it names" ||
	fail "keys: a named overflow row is a lock of its own, apart from the lock it names" "$tmp/k.csv"
"$LOCKSTAT" export "$fx/proc-keys.txt" >"$tmp/k.prom" 2>&1
grep -qx 'lockmeter_keys_used 16384' "$tmp/k.prom" && grep -qx 'lockmeter_keys 16384' "$tmp/k.prom" &&
	grep -q '^# HELP lockmeter_keys ' "$tmp/k.prom" && grep -qx 'lockmeter_slots_used 16384' "$tmp/k.prom" &&
	grep -qx 'lockmeter_slots_per_cpu 16384' "$tmp/k.prom" &&
	grep -qx 'lockmeter_acquisitions_total{type="mutex",lock="\*overflow\*",site="\*overflow\*"} 12' "$tmp/k.prom" &&
	! grep -q 'worst:' "$tmp/k.prom" &&
	pass "export: the key directory's gauges, the older slot names, overflow series by type" ||
	fail "export: the key directory's gauges, the older slot names, overflow series by type" "$tmp/k.prom"
golden "a get snapshot, no losses" clean.txt report "$fx/clean.snap"
golden "no rows" norows.txt report "$fx/norows.snap"
golden "absurd values keep to their cells: 13G, 585y, 1.8T%" huge.txt report --percentiles "$fx/huge.snap"
"$LOCKSTAT" report "$fx/huge.snap" >"$tmp/huge.txt" 2>&1
ok "absurd values: every row's cells end where the header's do, NAME after two blanks" "$PYTHON" -c '
import sys
l = open(sys.argv[1]).read().splitlines()
h = [x for x in l if x.endswith("  NAME")][0]
at = h.index("  NAME")
rows = [x for x in l[l.index(h) + 2:] if x]
assert len(rows) == 5, rows
for r in rows:
    assert r[at:at + 2] == "  " and r[at + 2] != " " or r[at + 2:at + 4] == "  ", (at, r)
    end = h.index(" TOTAL ") + 6
    assert r[end - 10] == " " and r[end - 9:end].strip() and r[end] == " ", ("TOTAL column", r)
' "$tmp/huge.txt"
for key in name con totalhold meanwait blocked abort; do
	golden "--sort $key" "sort-$key.csv" report --csv --sort "$key" "$fx/demo.snap"
done
golden "--sort total -r" sort-total-r.csv report --csv --sort total -r "$fx/demo.snap"
# the table's (% CPU) in JSON and CSV, and in CSV what it and UTIL divide by
"$LOCKSTAT" report --json "$fx/demo.snap" >"$tmp/wc.json" 2>&1
"$LOCKSTAT" report --csv "$fx/demo.snap" >"$tmp/wc.csv" 2>&1
"$LOCKSTAT" report --width 0 "$fx/demo.snap" >"$tmp/wc.txt" 2>&1
ok "JSON and CSV: wait_cpu_pct, the table's (% CPU); CSV: metered_ns and cpus" "$PYTHON" -c '
import csv, json, re, sys
d = json.load(open(sys.argv[1]))
m, n = d["header"]["metered_ns"], d["header"]["cpus"]
rows = [s for sec in d["sections"] for l in sec["locks"] for s in [l] + l["sites"]]
rows += [sec["total"] for sec in d["sections"]]
for r in rows:
    assert abs(r["wait_cpu_pct"] - 100.0 * r["wait_total_ns"] / (m * n)) < 1e-3, r
c = list(csv.DictReader(open(sys.argv[2])))
assert len(c) == len(rows), (len(c), len(rows))
for r in c:
    assert int(r["metered_ns"]) == m and int(r["cpus"]) == n, r
    assert abs(float(r["wait_cpu_pct"]) - 100.0 * int(r["wait_total_ns"]) / (m * n)) < 1e-3, r
    assert abs(float(r["util_pct"]) - 100.0 * int(r["hold_total_ns"]) / m) < 1e-3, r
# the table shows the same: (0.02%) of the runqueues, in JSON 0.0781
t = open(sys.argv[3]).read()
rq = [l for l in t.splitlines() if l.endswith("  percpu:runqueues+0x0")][0]
cell = float(re.search(r"\)\( *([0-9.]+)%\)", rq).group(1))
j = [r for r in c if r["kind"] == "lock" and r["lock"] == "percpu:runqueues+0x0"][0]
assert abs(cell - float(j["wait_cpu_pct"])) < 0.006, (cell, j["wait_cpu_pct"])
' "$tmp/wc.json" "$tmp/wc.csv" "$tmp/wc.txt"
# top -b --json: an interval's minimum it cannot tell is null, never 0
"$LOCKSTAT" top -b --json --replay "$fx/top-1.snap" "$fx/top-2.snap" "$fx/top-3.snap" \
	>"$tmp/min.json" 2>&1
ok "top -b --json: hold_min_ns, wait_min_ns null where the interval cannot tell them" "$PYTHON" -c '
import json, sys
frames = [json.loads(l) for l in open(sys.argv[1])]
f1, f2 = frames[0], frames[1]
assert all(r["hold_min_ns"] is not None for r in f1["rows"]), f1["rows"]
by = {r["lock"]: r for r in f2["rows"]}
# lmt_static_lock: 1000 held in the interval, no hold shorter than before
s = by["lmt_static_lock[test_lockmeter]"]
assert s["acquired"] > 0 and s["hold_min_ns"] is None and s["wait_min_ns"] is None, s
# tasklist_lock is new in the interval: its minimum is the interval`s
assert by["tasklist_lock"]["hold_min_ns"] == 5000, by["tasklist_lock"]
for f in frames:
    for r in f["rows"]:
        assert not (r["acquired"] and r["hold_min_ns"] == 0), r
        assert not (r["spin"] and r["wait_min_ns"] == 0), r
' "$tmp/min.json"
golden "--sort maxwait --top 2" sort-maxwait-top2.txt report --sort maxwait --top 2 "$fx/demo.snap"
golden "--type mutex --type rwsem_write --min-con 5" filter-type-con.txt \
	report --type mutex --type rwsem_write --min-con 5 "$fx/demo.snap"
golden "--name test_lockmeter" filter-name.txt report --name test_lockmeter "$fx/demo.snap"
golden "--min-util 1 --csv" filter-util.csv report --min-util 1 --csv "$fx/demo.snap"
golden "--json --type read --top 1" filter-read.json report --json --type read --top 1 "$fx/demo.snap"
golden "export: Prometheus text" demo.prom export "$fx/demo.snap"
golden "export --max-series 4" export-top4.prom export --max-series 4 "$fx/demo.snap"

# ---- the thirteen lock types: a section, a --type name, a label each ----
# types.snap: gen_snapshot.py's rows of every type; proc-types.txt: a
# /proc/lockmeter of the four sleeping types that came next; proc-rt.txt:
# one of a PREEMPT_RT kernel, whose spinlock_t and rwlock_t sleep
all_types="spin read write mutex rwsem_read rwsem_write rt_mutex percpu_rwsem_read percpu_rwsem_write semaphore rt_spin rt_read rt_write"
new_types="rt_mutex percpu_rwsem_read percpu_rwsem_write semaphore"
rt_types="rt_spin rt_read rt_write"
"$PYTHON" "$here/gen_snapshot.py" --rows 40 --seed 29 | cmp -s - "$fx/types.snap" &&
	pass "types.snap is gen_snapshot.py --rows 40 --seed 29" ||
	fail "types.snap is gen_snapshot.py --rows 40 --seed 29"
golden "every type, a section each" types.txt report "$fx/types.snap"
golden "every type: CSV" types.csv report --csv "$fx/types.snap"
golden "a /proc/lockmeter of the four newer types" proc-types.txt report "$fx/proc-types.txt"
"$LOCKSTAT" report "$fx/types.snap" >"$tmp/types.txt" 2>&1
# a section's title: before HOLD, or on a line of its own when too long for that
titles() {
	awk '/^[A-Z][A-Z ]*[A-Z] +HOLD / { sub(/ +HOLD .*/, ""); print; next }
		/^[A-Z][A-Z ]*[A-Z]$/ { print }' "$1"
}
titles "$tmp/types.txt" >"$tmp/titles"
printf '%s\n' "SPINLOCKS" "RWLOCK READS" "RWLOCK WRITES" "MUTEXES" "RWSEM READS" "RWSEM WRITES" \
	"RT MUTEXES" "PERCPU RWSEM READS" "PERCPU RWSEM WRITES" "SEMAPHORES" "RT SPINLOCKS" \
	"RT RWLOCK READS" "RT RWLOCK WRITES" >"$tmp/titles.want"
ok "report: the thirteen section titles, in the order of the types" diff -u "$tmp/titles.want" "$tmp/titles"
sleeping_titles="RT MUTEXES|PERCPU RWSEM READS|PERCPU RWSEM WRITES|SEMAPHORES|RT SPINLOCKS|RT RWLOCK READS|RT RWLOCK WRITES"
[ "$(awk -v re="^($sleeping_titles)( +HOLD|\$)" '$0 ~ re { if ($0 !~ /HOLD/) getline
		if ($0 ~ /HOLD +WAIT +ONCPU +BLOCKED$/) n++ } END { print n + 0 }' "$tmp/types.txt")" -eq 7 ] &&
	[ "$(grep -A1 -x 'PERCPU RWSEM WRITES' "$tmp/types.txt" | sed -n 2p | cut -c1-23)" = "                  HOLD " ] &&
	pass "report: the seven newer are sleeping sections; a title too long for HOLD has its own line" ||
	fail "report: the seven newer are sleeping sections; a title too long for HOLD has its own line" "$tmp/types.txt"
for t in $new_types $rt_types; do
	"$LOCKSTAT" report --csv --type "$t" "$fx/types.snap" >"$tmp/t.csv" 2>&1
	"$LOCKSTAT" report --type "$t" "$fx/types.snap" >"$tmp/t.txt" 2>&1
	title=$(sed -n "$(($(echo $all_types | tr ' ' '\n' | grep -nx "$t" | cut -d: -f1)))p" "$tmp/titles.want")
	if awk -F, -v t="$t" 'NR > 1 { n++; if ($2 != t) bad = 1 } END { exit bad || n < 3 }' "$tmp/t.csv" &&
	   [ "$(titles "$tmp/t.txt")" = "$title" ]; then
		pass "--type $t: its rows only, in the section $title"
	else
		fail "--type $t: its rows only, in the section $title" "$tmp/t.txt"
	fi
done
"$LOCKSTAT" report --csv --type semaphore,rt_mutex "$fx/proc-types.txt" >"$tmp/t.csv" 2>&1
[ "$(cut -d, -f2 "$tmp/t.csv" | sed 1d | sort -u | tr '\n' ' ')" = "rt_mutex semaphore " ] &&
	grep -qx 'lock,semaphore,\[heap\],xfs_buf_lock+0x3c/0x120,64,60,4,0,1,640000,.*' "$tmp/t.csv" &&
	grep -qx 'total,rt_mutex,\*TOTAL\*,,120,100,20,5,2,3600000,1000,900000,2400000,2000,800000,600000,200000,3000000,850000,1,.*' \
		"$tmp/t.csv" &&
	pass "--type semaphore,rt_mutex of /proc text: the rows, every number, rejects and aborts" ||
	fail "--type semaphore,rt_mutex of /proc text: the rows, every number, rejects and aborts" "$tmp/t.csv"
want_err="lockstat: --type: 'bogus': the types are spin, read, write, mutex, rwsem_read, rwsem_write, rt_mutex, percpu_rwsem_read, percpu_rwsem_write, semaphore, rt_spin, rt_read, rt_write"
for cmd in report hist top; do
	case $cmd in
	report) rc "$cmd --type bogus" 2 report --type bogus "$fx/types.snap" ;;
	hist) rc "$cmd --type bogus" 2 hist --type bogus console_sem "$fx/types.snap" ;;
	top) rc "$cmd --type bogus" 2 top -b --type bogus --replay "$fx/types.snap" ;;
	esac
	grep -qxF "$want_err" "$tmp/stderr" && pass "$cmd --type bogus: the error lists all thirteen types" ||
		fail "$cmd --type bogus: the error lists all thirteen types" "$tmp/stderr"
done
rc "--type semaphore,,rt_mutex (an empty type)" 2 report --type semaphore,,rt_mutex "$fx/types.snap"
for cmd in report hist; do
	"$LOCKSTAT" $cmd -h >"$tmp/help" 2>&1
	sed -n '/--type TYPE/,/^  -/p' "$tmp/help" | sed '$d' >"$tmp/help.type"
	missing=""
	for t in $all_types; do
		grep -qw -- "$t" "$tmp/help.type" || missing="$missing $t"
	done
	[ -z "$missing" ] && [ "$(wc -l <"$tmp/help.type")" -eq 4 ] &&
	   awk 'length > 80 { bad = 1 } END { exit bad }' "$tmp/help.type" &&
		pass "$cmd -h: --type lists the thirteen types in 80 columns" ||
		{ echo "missing:$missing" >>"$tmp/help.type"; fail "$cmd -h: --type lists the thirteen types" "$tmp/help.type"; }
done
"$LOCKSTAT" report --json "$fx/types.snap" >"$tmp/types.json" 2>&1
ok "report --json: a section per type, its name and title" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = [(s["type"], s["title"]) for s in d["sections"]]
want = list(zip(sys.argv[2].split(), open(sys.argv[3]).read().splitlines()))
assert got == want, got
' "$tmp/types.json" "$all_types" "$tmp/titles.want"
# top: full names where they fit, the short ones where not
"$LOCKSTAT" top -b -n 1 --width 140 --sort type --replay "$fx/types.snap" >"$tmp/top140" 2>&1
"$LOCKSTAT" top -b -n 1 --width 80 --sort type --replay "$fx/types.snap" >"$tmp/top80" 2>&1
cut140() { grep -v '\*TOTAL\*' "$tmp/top140" | sed -n 's/.* - \([a-z_]*\) .*/\1/p' | uniq | tr '\n' ' '; }
[ "$(cut140)" = "spin read write mutex rwsem_read rwsem_write rt_mutex pcrw_r pcrw_w semaphore rt_spin rt_read rt_write " ] &&
	awk 'length > 140 { bad = 1 } END { exit bad }' "$tmp/top140" &&
	pass "top -b, 140 columns: TYPE in full, percpu_rwsem_* as pcrw_r, pcrw_w" ||
	fail "top -b, 140 columns: TYPE in full, percpu_rwsem_* as pcrw_r, pcrw_w" "$tmp/top140"
[ "$(awk '/ TYPE +NAME$/ { on = 1; next } on && NF && !/\*TOTAL\*/ { print $7 }' "$tmp/top80" | uniq | tr '\n' ' ')" = \
  "spin read write mutex rsem_r rsem_w rt_mtx pcrw_r pcrw_w sem rtspin rt_r rt_w " ] &&
	awk 'length > 80 { bad = 1 } END { exit bad }' "$tmp/top80" &&
	pass "top -b, 80 columns: TYPE in 6: rt_mtx, pcrw_r, pcrw_w, sem, rtspin, rt_r, rt_w" ||
	fail "top -b, 80 columns: TYPE in 6: rt_mtx, pcrw_r, pcrw_w, sem, rtspin, rt_r, rt_w" "$tmp/top80"
"$LOCKSTAT" top -b -n 1 --json --type percpu_rwsem_write --replay "$fx/types.snap" >"$tmp/top.json" 2>&1
ok "top -b --json --type percpu_rwsem_write: its rows, the full name" "$PYTHON" -c '
import json, sys
f = json.loads(open(sys.argv[1]).readline())
assert f["rows"] and {r["type"] for r in f["rows"]} == {"percpu_rwsem_write"}, f["rows"][:1]
' "$tmp/top.json"
# diff: matched by type too; the new rows of the newer types
"$LOCKSTAT" diff --csv "$fx/proc.txt" "$fx/proc-types.txt" >"$tmp/d.csv" 2>&1
for t in $new_types; do
	grep -q "^new,$t," "$tmp/d.csv" || echo "no new $t row" >>"$tmp/d.why"
done
grep -q '^new,percpu_rwsem_write,cgroup_threadgroup_rwsem,cgroup_attach_lock,' "$tmp/d.csv" &&
	grep -q '^new,percpu_rwsem_read,cgroup_threadgroup_rwsem,cgroup_threadgroup_change_begin,' "$tmp/d.csv" &&
	[ ! -s "$tmp/d.why" ] && pass "diff: the newer types' rows are new, a lock's two sides apart" ||
	fail "diff: the newer types' rows are new, a lock's two sides apart" "$tmp/d.csv"
sed 's/^\(semaphore \+400 \+380 \+20 \+7 \+3 \+8000000 \+800 \+\)2000000 /\120000000 /' \
	"$fx/proc-types.txt" >"$tmp/proc-types-b.txt"
rc "diff --fail-over 100: console_sem's longest hold ten times" 9 diff --fail-over 100 \
	"$fx/proc-types.txt" "$tmp/proc-types-b.txt"
grep -q 'semaphore console_sem console_lock' "$tmp/stdout" &&
	pass "diff: the semaphore's regression named with its type" ||
	fail "diff: the semaphore's regression named with its type" "$tmp/stdout"
# export: a label per type (export.sh checks every value)
"$LOCKSTAT" export "$fx/proc-types.txt" >"$tmp/t.prom" 2>&1
grep -qx 'lockmeter_acquisitions_total{type="rt_mutex",lock="lmt_rt_mutex\[test_lockmeter\]",site="lmt_rt_holder\[test_lockmeter\]"} 120' "$tmp/t.prom" &&
	grep -qx 'lockmeter_rejected_total{type="rt_mutex",lock="lmt_rt_mutex\[test_lockmeter\]",site="lmt_rt_holder\[test_lockmeter\]"} 5' "$tmp/t.prom" &&
	grep -qx 'lockmeter_aborted_total{type="semaphore",lock="console_sem",site="console_lock"} 3' "$tmp/t.prom" &&
	grep -qx 'lockmeter_hold_blocked_seconds_total{type="percpu_rwsem_write",lock="cgroup_threadgroup_rwsem",site="cgroup_attach_lock"} 0.0435' "$tmp/t.prom" &&
	grep -qx 'lockmeter_hold_oncpu_max_seconds{type="percpu_rwsem_read",lock="cgroup_threadgroup_rwsem",site="cgroup_threadgroup_change_begin"} 0.00004' "$tmp/t.prom" &&
	! grep -q 'lockmeter_aborted_total{type="spin"' "$tmp/t.prom" &&
	pass "export: the newer types' labels, and their sleeping-lock series" ||
	fail "export: the newer types' labels, and their sleeping-lock series" "$tmp/t.prom"
# PREEMPT_RT: spinlock_t and rwlock_t are sleeping locks of types of their
# own, apart from spin (raw_spinlock_t)
golden "a /proc/lockmeter of a PREEMPT_RT kernel" proc-rt.txt report "$fx/proc-rt.txt"
"$LOCKSTAT" report "$fx/proc-rt.txt" >"$tmp/rt.txt" 2>&1
sed -n 's/^\([A-Z][A-Z ]*[A-Z]\) *HOLD .*/\1/p' "$tmp/rt.txt" | tr '\n' ',' >"$tmp/rt.titles"
awk '/^RT SPINLOCKS / { on = 1 } on && /^_/ { exit } on' "$tmp/rt.txt" >"$tmp/rt.sec"
[ "$(cat "$tmp/rt.titles")" = "SPINLOCKS,RT SPINLOCKS,RT RWLOCK READS,RT RWLOCK WRITES," ] &&
	grep -qx 'RT SPINLOCKS  *HOLD  *WAIT  *ONCPU  *BLOCKED' "$tmp/rt.sec" &&
	grep -q ' RJECT  ABORT   MEAN(  MAX )   MEAN(  MAX )  NAME$' "$tmp/rt.sec" &&
	grep -Eq ' 806 94\.3%  5\.0% 0\.74%  +0  9\.0us\( 900us\)  3\.0us\( 1\.8ms\)  css_set_lock$' \
		"$tmp/rt.sec" &&
	grep -q '  \[heap\] d_alloc+0x4c (9 instances)$' "$tmp/rt.sec" &&
	! awk '/^SPINLOCKS / { on = 1 } on && /^_/ { exit } on' "$tmp/rt.txt" | grep -q css_set_lock &&
	pass "report: rt_spin rows in RT SPINLOCKS, a sleeping section, raw spinlocks apart" ||
	fail "report: rt_spin rows in RT SPINLOCKS, a sleeping section, raw spinlocks apart" "$tmp/rt.txt"
"$LOCKSTAT" report --type rt_spin "$fx/proc-rt.txt" >"$tmp/rt.txt" 2>&1
"$LOCKSTAT" report --csv --type rt_spin "$fx/proc-rt.txt" >"$tmp/rt.csv" 2>&1
[ "$(sed -n 's/^\([A-Z][A-Z ]*[A-Z]\) *HOLD .*/\1/p' "$tmp/rt.txt")" = "RT SPINLOCKS" ] &&
	[ "$(cut -d, -f2 "$tmp/rt.csv" | sed 1d | sort -u)" = rt_spin ] &&
	grep -qx 'site,rt_spin,css_set_lock,cgroup_post_fork+0x5c/0x2a0,800,760,40,6,0,9600000,300,2500000,4000000,2000,600000,7200000,900000,2400000,1800000,1,.*' \
		"$tmp/rt.csv" &&
	pass "--type rt_spin of /proc text: RT SPINLOCKS alone, every number" ||
	fail "--type rt_spin of /proc text: RT SPINLOCKS alone, every number" "$tmp/rt.csv"
"$LOCKSTAT" export "$fx/proc-rt.txt" >"$tmp/rt.prom" 2>&1
grep -qx 'lockmeter_hold_blocked_seconds_total{type="rt_spin",lock="css_set_lock",site="cgroup_post_fork"} 0.0024' "$tmp/rt.prom" &&
	grep -qx 'lockmeter_rejected_total{type="rt_write",lock="tasklist_lock",site="copy_process"} 2' "$tmp/rt.prom" &&
	grep -qx 'lockmeter_hold_oncpu_max_seconds{type="rt_read",lock="tasklist_lock",site="do_wait"} 0.0004' "$tmp/rt.prom" &&
	! grep -q 'lockmeter_aborted_total{type="spin"' "$tmp/rt.prom" &&
	pass "export: rt_spin, rt_read and rt_write labels, and their sleeping-lock series" ||
	fail "export: rt_spin, rt_read and rt_write labels, and their sleeping-lock series" "$tmp/rt.prom"

# ---- evidence: who held it, and where ----
golden "--stacks: the evidence under each site" stacks.txt report --stacks "$fx/stacks.snap"
golden "--stacks --name contend --type spin" stacks-contend.txt report --stacks --name contend \
	--type spin "$fx/stacks.snap"
golden "JSON with evidence" stacks.json report --json "$fx/stacks.snap"
golden "--folded: flame graph lines" stacks.folded report --folded "$fx/stacks.snap"
"$LOCKSTAT" report "$fx/stacks.snap" >"$tmp/plain.txt" 2>&1
"$LOCKSTAT" report --stacks "$fx/stacks.snap" |
	grep -v -e '^        worst ' -e '^          [^ ]' -e '^Evidence: ' >"$tmp/stacks.txt"
ok "--stacks: the table itself is unchanged, only evidence lines added" diff -u "$tmp/plain.txt" \
	"$tmp/stacks.txt"
grep -q "^WARNING: 1 call chain was not kept: a CPU's store of chains was full" \
	"$tmp/plain.txt" && pass "stacks_full: in the loss banner" ||
	fail "stacks_full: in the loss banner" "$tmp/plain.txt"
"$LOCKSTAT" report --json "$fx/stacks.snap" >"$tmp/ev.json" 2>&1
ok "JSON: evidence fields and values" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
sites = {s["site"]: s for sec in d["sections"] for l in sec["locks"] for s in l["sites"]}
h = sites["lmt_contend_thread+0x4e/0xa0[test_lockmeter]"]["hold_evidence"]
assert (h["pid"], h["comm"], h["context"], h["cpu"]) == (415, "lmt_contend/1", "task", 1), h
assert h["time"] == {"sec": 52, "nsec": 208113020}, h["time"]
assert h["frames"][0] == "lmt_contend_thread+0x4e/0xa0 [test_lockmeter]" and len(h["frames"]) == 4, h
assert h["addrs"] == ["0xffffffffc0a0114e", "0xffffffffc0a01230", "0xffffffff810d3e42",
                      "0xffffffff81002e31"], h["addrs"]
assert "owner_pid" not in h and "owner_comm" not in h, h
w = sites["pipe_write+0x5a/0x6b0"]["wait_evidence"]
assert (w["pid"], w["comm"], w["owner_pid"], w["owner_comm"]) == (1805, "cat", 1803, "sh"), w
assert "addrs" not in w, w
w = sites["run_timer_softirq+0x2e/0x70"]["wait_evidence"]
assert (w["comm"], w["context"], w["frames"]) == ("my prog\x01\xff", "hardirq", []), w
assert "wait_evidence" not in sites["lmt_hold_static+0x2a/0x60[test_lockmeter]"]
assert "hold_evidence" not in sites["pipe_read+0x41/0x4a0"]
assert d["header"]["captures"] == 57 and d["header"]["stacks_full"] == 1, d["header"]
' "$tmp/ev.json"
"$LOCKSTAT" report --folded "$fx/stacks.snap" >"$tmp/f.folded" 2>&1
ok "--folded: a line per site with a hold chain, weighted by its hold total" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
want = sorted(s["hold_total_ns"] for sec in d["sections"] for l in sec["locks"]
              for s in l["sites"] if s.get("hold_evidence", {}).get("frames"))
lines = open(sys.argv[2]).read().splitlines()
got = sorted(int(l.rsplit(" ", 1)[1]) for l in lines)
assert got == want, (got, want)
leaf = [l.rsplit(" ", 1)[0].split(";")[-1] for l in lines]
assert "lmt_hold_static [test_lockmeter]" in leaf and "pipe_write" in leaf, leaf
assert all(l.split(";")[1] in ("ret_from_fork_asm", "ret_from_fork", "default_idle",
                               "entry_SYSCALL_64_after_hwframe") for l in lines), lines
# the root frame is the lock, type and name, so two locks never share a box;
# a [heap] lock has no name: its site, as the table has it, is part of it
import re
def lock(l, s):
    if l["lock"] != "[heap]":
        return l["lock"]
    return "[heap] " + re.sub(r"/0x[0-9a-f]+", "", s["site"])
locks = {(sec["type"], lock(l, s)) for sec in d["sections"] for l in sec["locks"] for s in l["sites"]
         if s.get("hold_evidence", {}).get("frames")}
roots = {tuple(l.split(";")[0].split(" ", 1)) for l in lines}
assert roots == locks, (roots, locks)
' "$tmp/ev.json" "$tmp/f.folded"
# frames as a flame graph names them: offsets gone, module kept, separators and controls '?'
{
	printf 'lockstat snapshot version 2\ncpus: 1\nmetered_ns: 1000\nrows: 1\n\n'
	printf 'spin 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 l s+0x1/0x2\n'
	printf '> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=4\n'
	printf '> hold frame in;ner+0x1e/0x40 [m;od]\n> hold frame mid\\x01dle+0x2/0x10\n'
	printf '> hold frame 0xffffffffc0a01100\n> hold frame +0x5/0x9 odd\n'
} >"$tmp/fold.snap"
rc "--folded: odd frames" 0 report --folded "$tmp/fold.snap"
printf '%s\n' 'spin l;+0x5/0x9 odd;0xffffffffc0a01100;mid?dle;in?ner [m?od] 10' >"$tmp/fold.want"
ok "--folded: odd frames named as a flame graph wants them" diff -u "$tmp/fold.want" "$tmp/stdout"
# two [heap] mutexes, each with a chain: two roots, never one box
sed -e '/^mutex .* \[heap\] pipe_read+0x41/{
p
s/.*/> hold pid=9 comm=cat ctx=task cpu=0 time=51000000000 frames=2\
> hold frame pipe_read+0x1f0\/0x4a0\
> hold frame ksys_read+0x70\/0xf0/
}' "$fx/stacks.snap" >"$tmp/heap2.snap"
"$LOCKSTAT" report --folded "$tmp/heap2.snap" >"$tmp/heap2.folded" 2>&1
ok "--folded: each [heap] lock a root of its own, named by its site" sh -c "
	grep -q '^mutex \[heap\] pipe_write+0x5a;entry_SYSCALL_64_after_hwframe;.*;pipe_write 30211090\$' '$tmp/heap2.folded' &&
	grep -q '^mutex \[heap\] pipe_read+0x41;ksys_read;pipe_read 12110209\$' '$tmp/heap2.folded'"
# where a sleeping lock's holder blocked, under its worst hold
golden "--stacks: where the holder blocked" blocked.txt report --stacks "$fx/blocked.snap"
# at 80 columns the evidence's sentences wrap (indented past the chain),
# none is cut; the chains' frames are rows, cut as rows are
golden "--stacks --width 80: the sentences wrapped" blocked-80.txt report --stacks --width 80 \
	"$fx/blocked.snap"
for f in blocked stacks; do
	COLUMNS=80 "$LOCKSTAT" report --stacks "$fx/$f.snap" >"$tmp/s80" 2>&1
	"$LOCKSTAT" report --stacks --width 0 "$fx/$f.snap" >"$tmp/s0" 2>&1
	ok "--stacks at COLUMNS=80 ($f.snap): every word of every sentence, no line over 80" \
		"$PYTHON" -c '
import sys
narrow = open(sys.argv[1]).read().splitlines()
wide = open(sys.argv[2]).read().splitlines()
assert all(len(l) <= 80 for l in narrow), [l for l in narrow if len(l) > 80]
def sentences(lines, wrapped):
    out, i = [], 0
    while i < len(lines):
        l = lines[i]
        if l.startswith("        worst ") or l.startswith("          blocked "):
            words = l.split()
            ind = len(l) - len(l.lstrip())
            while wrapped and i + 1 < len(lines) and lines[i + 1].startswith(" " * (ind + 4)) \
                    and not lines[i + 1].startswith(" " * (ind + 5)):
                i += 1
                words += lines[i].split()
            out.append(" ".join(words))
        i += 1
    return out
w, n = sentences(wide, False), sentences(narrow, True)
assert w and w == n, (w, n)
' "$tmp/s80" "$tmp/s0"
done
golden "JSON with where the holder blocked" blocked.json report --json "$fx/blocked.snap"
"$LOCKSTAT" report "$fx/blocked.snap" >"$tmp/plain.txt" 2>&1
"$LOCKSTAT" report --stacks "$fx/blocked.snap" |
	grep -v -e '^        worst ' -e '^          [a-z]' -e '^            [a-z]' -e '^Evidence: ' >"$tmp/stacks.txt"
ok "--stacks with blocked evidence: the table itself is unchanged" diff -u "$tmp/plain.txt" \
	"$tmp/stacks.txt"
"$LOCKSTAT" report --stacks "$fx/blocked.snap" >"$tmp/blocked.txt" 2>&1
ok "--stacks: the blocked line names the first functions, its frames follow, under the hold" \
	"$PYTHON" -c '
import sys
l = open(sys.argv[1]).read().splitlines()
i = l.index("          blocked 49ms of it in schedule_timeout <- msleep <- lmt_mutex_sleep_inside"
            " <- lmt_mutex_sleeper <- ...")
assert l[i - 1] == "          ret_from_fork+0x31/0x50", l[i - 1]
assert l[i + 1:i + 7] == ["            schedule_timeout+0x9e/0x170", "            msleep+0x2d/0x50",
    "            lmt_mutex_sleep_inside+0x12/0x30 [test_lockmeter]",
    "            lmt_mutex_sleeper+0x40/0x70 [test_lockmeter]",
    "            lmt_sleep_thread+0x19/0x40 [test_lockmeter]", "            kthread+0xd2/0x100"], l[i:i + 7]
assert l[i + 7].startswith("        worst wait 50ms by lmt_waiter/421"), l[i + 7]
assert "          blocked 1.3ms of it; no call chain" in l
assert sum(1 for x in l if x.lstrip().startswith("blocked ")) == 2, "lmt_mutex_fast never blocked"
' "$tmp/blocked.txt"
"$LOCKSTAT" report --json "$fx/blocked.snap" >"$tmp/blocked.json" 2>&1
ok "JSON: blocked_ns, blocked_frames, blocked_addrs in the hold evidence only" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
sites = {s["site"]: s for sec in d["sections"] for l in sec["locks"] for s in l["sites"]}
h = sites["lmt_mutex_sleeper+0x23/0x70[test_lockmeter]"]["hold_evidence"]
assert h["blocked_ns"] == 49100441 and len(h["blocked_frames"]) == 6, h
assert h["blocked_frames"][:2] == ["schedule_timeout+0x9e/0x170", "msleep+0x2d/0x50"], h
assert h["blocked_addrs"][0] == "0xffffffff81b0c4ee" and len(h["blocked_addrs"]) == 6, h
assert h["addrs"][0] == "0xffffffffc0a01223" and len(h["frames"]) == 4, h
w = sites["lmt_mutex_sleeper+0x23/0x70[test_lockmeter]"]["wait_evidence"]
assert not any(k.startswith("blocked") for k in w), w
h = sites["lmt_rwsem_writer+0x31/0x80[test_lockmeter]"]["hold_evidence"]
assert h["blocked_ns"] == 1290000 and h["blocked_frames"] == [] and "blocked_addrs" not in h, h
assert "blocked_ns" not in sites["lmt_mutex_fast+0x11/0x30[test_lockmeter]"]["hold_evidence"]
' "$tmp/blocked.json"
"$LOCKSTAT" top -b --json --by-site --replay "$fx/blocked.snap" >"$tmp/top-blk.json" 2>&1
ok "top -b --json: the hold evidence carries where holders blocked" "$PYTHON" -c '
import json, sys
f = [json.loads(l) for l in open(sys.argv[1])]
ev = {r["site"]: r["hold_evidence"] for r in f[0]["rows"]}
h = ev["lmt_mutex_sleeper+0x23/0x70[test_lockmeter]"]
assert h["blocked_ns"] == 49100441 and h["blocked_frames"][2].startswith("lmt_mutex_sleep_inside+"), h
assert ev["lmt_rwsem_writer+0x31/0x80[test_lockmeter]"]["blocked_frames"] == []
assert "blocked_ns" not in ev["lmt_mutex_fast+0x11/0x30[test_lockmeter]"]
' "$tmp/top-blk.json"
rc "--folded with blocked evidence" 0 report --folded "$fx/blocked.snap"
printf '%s\n' 'mutex lmt_mutex[test_lockmeter];ret_from_fork;kthread;lmt_sleep_thread [test_lockmeter];lmt_mutex_sleeper [test_lockmeter] 151200330' \
	'rwsem_write lmt_rwsem[test_lockmeter];lmt_rwsem_writer [test_lockmeter] 2401000' \
	'mutex lmt_mutex[test_lockmeter];lmt_mutex_fast [test_lockmeter] 1010000' | sort >"$tmp/fold.want"
sort "$tmp/stdout" >"$tmp/fold.got"
ok "--folded: the hold chains only, where holders blocked left out" diff -u "$tmp/fold.want" \
	"$tmp/fold.got"
rc "--stacks --csv" 2 report --stacks --csv "$fx/stacks.snap"
grep -q "CSV has no evidence" "$tmp/stderr" && pass "--stacks --csv: says CSV has no evidence" ||
	fail "--stacks --csv: says CSV has no evidence" "$tmp/stderr"
rc "--folded --json" 2 report --folded --json "$fx/stacks.snap"
rc "--stacks --json" 0 report --stacks --json "$fx/stacks.snap"
rc "top --stacks" 2 top -b --stacks --replay "$fx/stacks.snap"
rc "top --folded" 2 top -b --folded --replay "$fx/stacks.snap"
"$LOCKSTAT" report --stacks "$fx/demo.snap" >"$tmp/old.txt" 2>&1
grep -q "^Evidence: none in this snapshot (its kernel reports no captures)" "$tmp/old.txt" && ! grep -q "worst hold" "$tmp/old.txt" &&
	pass "--stacks: a snapshot of a kernel without evidence says so" ||
	fail "--stacks: a snapshot of a kernel without evidence says so" "$tmp/old.txt"
"$LOCKSTAT" report --stacks "$fx/proc.txt" >"$tmp/proc-stacks.txt" 2>&1
grep -q "^Evidence: none: /proc/lockmeter has no holders or call chains" "$tmp/proc-stacks.txt" &&
	pass "--stacks: a saved /proc/lockmeter has no evidence, and says so" ||
	fail "--stacks: a saved /proc/lockmeter has no evidence, and says so" "$tmp/proc-stacks.txt"
# no chain to print: said on stderr, exit 10, so a flame graph pipeline fails here
rc "--folded of a snapshot without evidence" 10 report --folded "$fx/demo.snap"
[ ! -s "$tmp/stdout" ] && grep -q -- "--folded: no hold chain to print: evidence none in this snapshot" \
	"$tmp/stderr" && pass "--folded without evidence: no lines, says why" ||
	fail "--folded without evidence: no lines, says why" "$tmp/stderr"
rc "--folded of a saved /proc/lockmeter" 10 report --folded "$fx/proc.txt"
grep -q "evidence none: /proc/lockmeter has no holders" "$tmp/stderr" &&
	pass "--folded of /proc/lockmeter: says /proc has no chains" ||
	fail "--folded of /proc/lockmeter: says /proc has no chains" "$tmp/stderr"
rc "--folded, the filters keep no row with a chain" 10 report --folded --name no-such-lock "$fx/stacks.snap"
grep -q "no row that the filters keep has the chain of its worst hold" "$tmp/stderr" &&
	pass "--folded, filtered to nothing: says the filters kept no chain" ||
	fail "--folded, filtered to nothing: says the filters kept no chain" "$tmp/stderr"
rc "--folded of a snapshot without rows" 10 report --folded "$fx/norows.snap"

# a saved /proc/lockmeter into a lockstat snapshot
"$LOCKSTAT" report "$fx/proc.txt" >/dev/null 2>&1 && pass "report: a saved /proc/lockmeter reads" ||
	fail "report: a saved /proc/lockmeter reads"

# the lines of the 2003 lockmeter report (tests/fixtures/historic.expect), verbatim and in one block
"$LOCKSTAT" report "$fx/historic.snap" >"$tmp/hist" 2>&1
first=$(grep -n -x -F "$(head -n 1 "$fx/historic.expect")" "$tmp/hist" | head -n 1 | cut -d: -f1)
n=$(wc -l <"$fx/historic.expect")
if [ -n "$first" ] && sed -n "${first},$((first + n - 1))p" "$tmp/hist" | diff -u "$fx/historic.expect" - >"$tmp/diff"; then
	pass "layout: the historic lockmeter lines come out verbatim"
else
	fail "layout: the historic lockmeter lines come out verbatim" "$tmp/diff"
fi

# machine output is well formed
for args in "--json $fx/demo.snap" "--json $fx/historic.snap" "--json $fx/norows.snap" \
	    "--json --name nothing-matches $fx/demo.snap"; do
	# shellcheck disable=SC2086
	"$LOCKSTAT" report $args >"$tmp/j.json" 2>&1
	ok "JSON: python3 -m json.tool accepts report $(echo "$args" | sed "s|$fx/||")" json_ok "$tmp/j.json"
done
"$LOCKSTAT" report --csv "$fx/demo.snap" >"$tmp/c.csv"
"$LOCKSTAT" report --json "$fx/demo.snap" >"$tmp/dj.json" 2>&1
ok "JSON and CSV: hold_mean_ns, wait_mean_ns, util_pct, con_pct of every row, from its numbers" \
	"$PYTHON" -c '
import csv, json, sys
d = json.load(open(sys.argv[1]))
el = d["header"]["metered_ns"]
def want(r):
    tot = r["nowait"] + r["spin"] + r["reject"]
    return {"hold_mean_ns": r["hold_total_ns"] / r["acquired"] if r["acquired"] else 0,
            "wait_mean_ns": r["wait_total_ns"] / r["spin"] if r["spin"] else 0,
            "util_pct": 100.0 * r["hold_total_ns"] / el,
            "con_pct": 100.0 * (r["spin"] + r["reject"]) / tot if tot else 0}
n = 0
for s in d["sections"]:
    for r in [s["total"]] + s["locks"] + [x for l in s["locks"] for x in l["sites"]]:
        for k, v in want(r).items():
            assert abs(r[k] - v) <= 0.0005 + 1e-9 * v, (k, r[k], v)
        n += 1
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == n, (len(rows), n)
for r in rows:
    nums = {k: int(v) for k, v in r.items() if k not in ("kind", "type", "lock", "site") and
            not k.endswith(("_mean_ns", "_pct"))}
    for k, v in want(nums).items():
        assert abs(float(r[k]) - v) <= 0.0005 + 1e-9 * v, (k, r[k], v)
# one row by hand: runqueues, 7951 acquired, 68004225 ns held, 35 of 7951 waited
rq = [r for r in rows if r["kind"] == "lock" and r["lock"] == "percpu:runqueues+0x0"][0]
assert (rq["hold_mean_ns"], rq["wait_mean_ns"], rq["util_pct"], rq["con_pct"]) == \
    ("8552.915", "154662.514", "1.9622", "0.4402"), rq
' "$tmp/dj.json" "$tmp/c.csv"
ok "CSV: 27 fields on every line (16 numbers, the means, UTIL, CON, % CPU, metered_ns, cpus)" sh -c "awk -F, 'NF != 27 { bad = 1 } END { exit bad }' '$tmp/c.csv'"
ok "CSV: lock rows are the sums of their site rows" sh -c "awk -F, '
	\$1 == \"lock\" { if (key != \"\" && sum != want) bad = 1; key = \$2 \$3 \$4; want = \$5; sum = 0; next }
	\$1 == \"site\" { sum += \$5 }
	\$1 == \"total\" { if (key != \"\" && sum != want) bad = 1; key = \"\" }
	END { if (key != \"\" && sum != want) bad = 1; exit bad }' '$tmp/c.csv'"

# ---- snapshot files refused ----
rc "report: a missing file" 6 report "$tmp/does-not-exist.snap"
grep -q "does-not-exist.snap" "$tmp/stderr" && pass "report: the message names the missing file" ||
	fail "report: the message names the missing file" "$tmp/stderr"
rc "report: a directory" 6 report "$fx"
for f in bad-version bad-header bad-fields bad-number bad-type bad-type-number bad-impossible \
	 truncated-rows truncated-line truncated-header empty-file not-a-snapshot bad-evidence \
	 truncated-evidence bad-blocked truncated-blocked; do
	rc "report: $f.snap is corrupt" 7 report "$fx/$f.snap"
	if grep -Eq "^lockstat: .*/$f\.snap:[0-9]+: corrupt snapshot: " "$tmp/stderr" &&
	   [ ! -s "$tmp/stdout" ]; then
		pass "report: $f.snap: file and line named, nothing printed"
	else
		fail "report: $f.snap: file and line named, nothing printed" "$tmp/stderr"
	fi
done
"$LOCKSTAT" report "$fx/bad-type-number.snap" >/dev/null 2>"$tmp/stderr"
grep -q "bad-type-number.snap:26: corrupt snapshot: unknown lock type '14'$" "$tmp/stderr" &&
	pass "report: a type number past the thirteen known: says which, and where" ||
	fail "report: a type number past the thirteen known: says which, and where" "$tmp/stderr"
# a first line that is not the header: what was found instead
printf 'lockstat snapshot version 2\r\ncpus: 1\r\n' >"$tmp/crlf.snap"
printf '\357\273\277lockstat snapshot version 2\ncpus: 1\n' >"$tmp/bom.snap"
printf '\nlockstat snapshot version 2\ncpus: 1\n' >"$tmp/blank.snap"
for what in "crlf:it ends in CR: the file has CRLF (DOS) line endings" \
	    "bom:it begins with a byte order mark (EF BB BF)" "blank:it is empty: a blank line before the header"; do
	"$LOCKSTAT" report "$tmp/${what%%:*}.snap" >/dev/null 2>"$tmp/stderr"
	[ $? -eq 7 ] && grep -qF "${what%%:*}.snap:1: corrupt snapshot: not a lockstat snapshot: the first line is not 'lockstat snapshot version 2': ${what#*:}" \
		"$tmp/stderr" && pass "report: a ${what%%:*} first line: exit 7, says what was found" ||
		fail "report: a ${what%%:*} first line: exit 7, says what was found" "$tmp/stderr"
done
"$LOCKSTAT" report "$fx/not-a-snapshot.snap" >/dev/null 2>"$tmp/stderr"
grep -qF "the first line is not 'lockstat snapshot version 2' but '{\"format\": 1, \"header\": {}}'" "$tmp/stderr" &&
	pass "report: another first line is quoted" || fail "report: another first line is quoted" "$tmp/stderr"
printf 'lockstat snapshot version 1\ncpus: 2\n\000\001\002\n' >"$tmp/nul.snap"
rc "report: NUL bytes" 7 report "$tmp/nul.snap"
"$PYTHON" -c 'import random, sys; r = random.Random(7); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(4096)))' >"$tmp/random.snap"
rc "report: random bytes" 7 report "$tmp/random.snap"
rc "report: standard input" 0 report - <"$fx/demo.snap"
"$LOCKSTAT" report "$fx/demo.snap" >&- 2>"$tmp/stderr"
[ $? -eq 1 ] && grep -q "write error" "$tmp/stderr" && pass "report: a closed standard output is an error: exit 1" ||
	fail "report: a closed standard output is an error: exit 1" "$tmp/stderr"

# ---- top: batch mode over replayed snapshots ----
# top-1..3.snap: one kernel a second apart; top-4.snap: after a reset
replay="$fx/top-1.snap $fx/top-2.snap $fx/top-3.snap $fx/top-4.snap"
# shellcheck disable=SC2086
golden "top -b --replay: the frames as text" top-replay.txt top -b --replay $replay
# the total line of a frame: top-2.snap's interval, its four rows added up
# (2000 + 1000 + 1000 + 40 acquisitions a second; UTIL 20 + 0.5 + 0.4 + 0.08%)
"$LOCKSTAT" top -b --replay "$fx/top-1.snap" "$fx/top-2.snap" >"$tmp/tot.txt" 2>&1
ok "top -b: a total line per frame, the last of its table" sh -c "
	[ \$(grep -c ' all  *\*TOTAL\* of 4 rows\$' '$tmp/tot.txt') -eq 2 ] &&
	grep -q '^  4.0k  21.0% 10.1%   52us  400us  196us  600us  4.0% .* all  *\*TOTAL\* of 4 rows\$' '$tmp/tot.txt' &&
	[ \"\$(awk 'NF { last = \$0 } !NF && last { print last; last = \"\" }' '$tmp/tot.txt' | grep -c TOTAL)\" -eq 2 ]"
"$LOCKSTAT" top -b --json --top 1 --replay "$fx/top-1.snap" "$fx/top-2.snap" >"$tmp/tot1.json" 2>&1
"$LOCKSTAT" top -b --json --replay "$fx/top-1.snap" "$fx/top-2.snap" >"$tmp/tot.json" 2>&1
ok "top -b --json: \"total\" of the frame's rows, --top 1 its one row" "$PYTHON" -c '
import json, sys
one = [json.loads(l) for l in open(sys.argv[1])]
full = [json.loads(l) for l in open(sys.argv[2])]
for a, b in zip(one, full):
    assert len(a["rows"]) == 1 and a["total"]["rows"] == 1, a["total"]
    assert a["total"]["hold_total_ns"] == a["rows"][0]["hold_total_ns"], a["total"]
    t, rows = b["total"], b["rows"]
    assert t["rows"] == len(rows) == 4, t
    for k in ("acquired", "hold_total_ns", "wait_total_ns"):
        assert t[k] == sum(r[k] for r in rows), (k, t)
    assert t["hold_max_ns"] == max(r["hold_max_ns"] for r in rows), t
    assert abs(t["util_pct"] - sum(r["util_pct"] for r in rows)) < 1e-6, t
' "$tmp/tot1.json" "$tmp/tot.json"
# shellcheck disable=SC2086
golden "top -b --json --by-site --sort rate" top-site.json top -b --json --by-site --sort rate \
	--replay $replay

# ---- top --tree: each lock, its sites beneath it ----
# demo.snap's one frame: 22 locks, 10 of them one site ([heap], *overflow*)
golden "top -b --tree --sort maxhold" top-tree.txt top -b --tree --sort maxhold --replay "$fx/demo.snap"
# shellcheck disable=SC2086
golden "top -b --tree: the frames of the replay" top-tree-replay.txt top -b --tree --replay $replay
"$LOCKSTAT" top -b --json --tree --sort maxhold --replay "$fx/demo.snap" >"$tmp/tree.json" 2>&1
"$LOCKSTAT" top -b --json --by-site --sort maxhold --replay "$fx/demo.snap" >"$tmp/tree-site.json" 2>&1
"$LOCKSTAT" top -b --json --sort maxhold --replay "$fx/demo.snap" >"$tmp/tree-lock.json" 2>&1
ok "top -b --tree: a lock's line adds up its sites, counts and totals summed, maxima the longest" \
	"$PYTHON" -c '
import json, sys
tree, site, lock = (json.loads(open(f).readline()) for f in sys.argv[1:4])
assert tree["group"] == "tree", tree["group"]
sums = ("acquired", "nowait", "spin", "reject", "abort", "hold_total_ns", "wait_total_ns",
        "oncpu_total_ns", "blocked_total_ns")
maxima = ("hold_max_ns", "wait_max_ns", "oncpu_max_ns", "blocked_max_ns")
seen = []
for lk in tree["rows"]:
    sites = lk.get("sites")
    if sites is None:	# a lock that is one site: [heap], *overflow*
        seen.append((lk["type"], lk["lock"], lk["site"]))
        continue
    assert sites and "site" not in lk, lk
    for s in sites:
        assert (s["type"], s["lock"]) == (lk["type"], lk["lock"]), (lk["lock"], s["lock"])
        seen.append((s["type"], s["lock"], s["site"]))
    for k in sums:
        assert lk[k] == sum(s[k] for s in sites), (lk["lock"], k)
    for k in maxima:
        assert lk[k] == max(s[k] for s in sites), (lk["lock"], k)
assert sorted(seen) == sorted((r["type"], r["lock"], r["site"]) for r in site["rows"]), \
    "every (lock, site) once, under its lock"
st = [lk for lk in tree["rows"] if lk["lock"] == "lmt_static_lock[test_lockmeter]"]
assert len(st) == 1 and len(st[0]["sites"]) == 3 and st[0]["acquired"] == 750, st
assert st[0]["hold_max_ns"] == max(s["hold_max_ns"] for s in st[0]["sites"]) == 151877, st
# the lock lines are the rows of the list by lock, in its order
assert [(r["type"], r["lock"]) for r in tree["rows"]] == \
    [(r["type"], r["lock"]) for r in lock["rows"]], "the locks as the list by lock has them"
assert tree["total"]["rows"] == len(tree["rows"]) == 22, tree["total"]
for k in sums:
    assert tree["total"][k] == lock["total"][k] == sum(r[k] for r in site["rows"]), k
for k in maxima:
    assert tree["total"][k] == lock["total"][k] == max(r[k] for r in site["rows"]), k
' "$tmp/tree.json" "$tmp/tree-site.json" "$tmp/tree-lock.json"
ok "top -b --tree --sort maxhold: the locks by their longest hold, and the sites of each" \
	"$PYTHON" -c '
import json, sys
rows = json.loads(open(sys.argv[1]).readline())["rows"]
hold = [r["hold_max_ns"] for r in rows]
assert hold == sorted(hold, reverse=True), hold
for r in rows:
    sites = [s["hold_max_ns"] for s in r.get("sites", [])]
    assert sites == sorted(sites, reverse=True), (r["lock"], sites)
' "$tmp/tree.json"
"$LOCKSTAT" top -b --json --tree --sort rate -r --replay "$fx/demo.snap" >"$tmp/tree-r.json" 2>&1
ok "top -b --tree --sort rate -r: the quietest lock first, and the quietest site of each" \
	"$PYTHON" -c '
import json, sys
rows = json.loads(open(sys.argv[1]).readline())["rows"]
acq = [r["acquired"] for r in rows]
assert acq == sorted(acq) and acq[0] < acq[-1], acq
for r in rows:
    sites = [s["acquired"] for s in r.get("sites", [])]
    assert sites == sorted(sites), (r["lock"], sites)
' "$tmp/tree-r.json"
"$LOCKSTAT" top -b --tree --sort maxhold --replay "$fx/demo.snap" >"$tmp/tree.txt" 2>&1
grep -A3 ' spin  *- lmt_static_lock\[test_lockmeter\]$' "$tmp/tree.txt" | sed 's/^.* spin \{8\}//' >"$tmp/tree.st"
printf '%s\n' '- lmt_static_lock[test_lockmeter]' '  |- lmt_hold_static+0x2a[test_lockmeter]' \
	'  |- lmt_contend_thread+0x4e[test_lockmeter]' '  `- lmt_trylock+0x1b[test_lockmeter]' >"$tmp/tree.want"
diff -u "$tmp/tree.want" "$tmp/tree.st" >"$tmp/tree.diff" &&
	grep -q ' rwsem_write   \[heap\] do_truncate+0x6e$' "$tmp/tree.txt" &&
	grep -q ' all  *\*TOTAL\* of 22 locks$' "$tmp/tree.txt" &&
	pass "top -b --tree: a lock, its sites under it (|- and \`- the last), the total of its locks" ||
	fail "top -b --tree: a lock, its sites under it (|- and \`- the last), the total of its locks" \
		"$tmp/tree.diff"
"$LOCKSTAT" top -b --json --tree --top 2 --sort rate --replay "$fx/demo.snap" >"$tmp/tree2.json" 2>&1
ok "top -b --tree --top 2: two locks, two sites under each at most" "$PYTHON" -c '
import json, sys
f = json.loads(open(sys.argv[1]).readline())
assert len(f["rows"]) == 2 and f["total"]["rows"] == 2, f["total"]
assert all(len(r.get("sites", [])) <= 2 for r in f["rows"]), f["rows"]
assert any(len(r.get("sites", [])) == 2 for r in f["rows"]), "a lock of more sites, cut at 2"
' "$tmp/tree2.json"
COLUMNS=80 "$LOCKSTAT" top -b --tree --replay "$fx/demo.snap" >"$tmp/tree80.txt" 2>&1
awk 'length > 80 { bad = 1 } END { exit bad }' "$tmp/tree80.txt" &&
	grep -q '^  UTIL   CON  HMEAN   HMAX  WMEAN   WMAX TYPE   NAME$' "$tmp/tree80.txt" &&
	grep -q ' spin     |- lmt_contend_thread+0x4e\[te>$' "$tmp/tree80.txt" &&
	pass "top -b --tree, COLUMNS=80: the columns of 80, a site cut at the edge after its glyphs, marked" ||
	fail "top -b --tree, COLUMNS=80: the columns of 80, a site cut at the edge after its glyphs, marked" "$tmp/tree80.txt"
# the glyphs follow the locale, as htop's: line drawing in UTF-8, else ASCII
utf8=$(locale -a 2>/dev/null | grep -i -m 1 '^c\.utf-\?8$')
if [ -n "$utf8" ]; then
	LC_ALL=$utf8 COLUMNS=80 "$LOCKSTAT" top -b --tree --replay "$fx/demo.snap" >"$tmp/tree-u8.txt" 2>&1
	ok "top -b --tree, LC_ALL=$utf8: box-drawing glyphs, each line 80 characters at most" \
		"$PYTHON" -c '
import sys
text = open(sys.argv[1], encoding="utf-8").read()
lines = text.splitlines()
assert max(len(l) for l in lines) <= 80, max(lines, key=len)
assert "  \u251c\u2500 lmt_contend_thread+0x4e[te>\n" in text, "a tee, the line cut at 80"
assert "  \u2514\u2500 lmt_trylock+0x1b[test_lock>\n" in text, "a corner, the line cut at 80"
assert "|- " not in text and "`- " not in text, "no ASCII glyphs"
' "$tmp/tree-u8.txt"
else
	pass "top -b --tree in UTF-8 # SKIP no C.UTF-8 locale"
fi

# ---- at 80 columns: COLUMNS (stdout is no terminal here) or --width ----
# width80 NAME FILE: every line of FILE (what lockstat printed) at most 80 columns
width80() {
	awk 'length > 80 { print FILENAME ":" FNR ": " length " columns"; bad = 1 } END { exit bad }' "$2" \
		>"$tmp/w80" 2>&1 && pass "$1: every line <= 80 columns" || fail "$1: every line <= 80 columns" "$tmp/w80"
}
COLUMNS=80 golden "report, COLUMNS=80" report-80.txt report "$fx/demo.snap"
cp "$tmp/golden" "$tmp/r80"
width80 "report, COLUMNS=80" "$tmp/r80"
COLUMNS=80 golden "report --percentiles, COLUMNS=80" hist-pct-80.txt report --percentiles "$fx/hist.snap"
cp "$tmp/golden" "$tmp/p80"
width80 "report --percentiles, COLUMNS=80" "$tmp/p80"
COLUMNS=80 golden "diff, COLUMNS=80" diff-80.txt diff "$fx/diff-a.snap" "$fx/diff-b.snap"
cp "$tmp/golden" "$tmp/d80"
width80 "diff, COLUMNS=80" "$tmp/d80"
# shellcheck disable=SC2086
COLUMNS=80 golden "top -b, COLUMNS=80" top-replay-80.txt top -b --replay $replay
cp "$tmp/golden" "$tmp/t80"
width80 "top -b, COLUMNS=80" "$tmp/t80"
ok "report at 80: NAME has the rest of the line, 26 columns: names cut there with a >, shorter in full" sh -c "
	grep -q '^  2.0% 0.44%  8.6us( 1.2ms)  155us( 3.4ms)(0.08%)  percpu:runqueues+0x0\$' '$tmp/r80' &&
	grep -q '^  1.7% 78.0%  150us( 150us)  146us( 298us)(0.66%)    lmt_contend_thread+0x4e\[te>\$' \
		'$tmp/r80'"
ok "report at 80: the columns that stay are UTIL CON HOLD WAIT, the rest dropped" \
	grep -q '^  UTIL   CON   MEAN(  MAX )   MEAN(  MAX )(% CPU)  NAME$' "$tmp/r80"
ok "top -b at 80: %CPU and ACQ/s dropped, TYPE abbreviated, a name of 25 in full" sh -c "
	grep -q '^  UTIL   CON  HMEAN   HMAX  WMEAN   WMAX TYPE   NAME\$' '$tmp/t80' &&
	grep -q ' rsem_r \[heap\] lock_vma_under_rcu' '$tmp/t80' &&
	grep -q ' mutex  lmt_mutex\[test_lockmeter\]\$' '$tmp/t80'"
# --width N is COLUMNS=N; --width 0 is no limit, whatever COLUMNS says
for cmd in "report $fx/demo.snap" "diff $fx/diff-a.snap $fx/diff-b.snap" "top -b --replay $replay"; do
	# shellcheck disable=SC2086
	COLUMNS=80 "$LOCKSTAT" $cmd >"$tmp/a" 2>&1
	# shellcheck disable=SC2086
	"$LOCKSTAT" $cmd --width 80 >"$tmp/b" 2>&1
	# shellcheck disable=SC2086
	COLUMNS=80 "$LOCKSTAT" $cmd --width 0 >"$tmp/c" 2>&1
	# shellcheck disable=SC2086
	"$LOCKSTAT" $cmd >"$tmp/d" 2>&1
	ok "${cmd%% *} --width 80 is COLUMNS=80, --width 0 the full width" sh -c "
		diff -u '$tmp/a' '$tmp/b' && diff -u '$tmp/d' '$tmp/c' && ! cmp -s '$tmp/a' '$tmp/d'"
done
# demo.txt's longest line has 166 columns (its named overflow row)
COLUMNS=166 "$LOCKSTAT" report "$fx/demo.snap" >"$tmp/a" 2>&1
COLUMNS=165 "$LOCKSTAT" report "$fx/demo.snap" >"$tmp/b" 2>&1
ok "report, COLUMNS=166: the full table, as without; at 165 not" sh -c "
	diff -u '$gold/demo.txt' '$tmp/a' && ! cmp -s '$gold/demo.txt' '$tmp/b'"
for bad in x -1 10000 1e2; do
	"$LOCKSTAT" report --width "$bad" "$fx/demo.snap" >/dev/null 2>"$tmp/stderr"
	[ $? -eq 2 ] && grep -q "^lockstat: --width: '$bad' is not a number of columns" "$tmp/stderr" &&
		pass "report --width '$bad': exit 2, says why" || fail "report --width '$bad': exit 2, says why" "$tmp/stderr"
done
# shellcheck disable=SC2086
"$LOCKSTAT" top -b --json --by-site --replay $replay >"$tmp/top.json" 2>&1
ok "top --json: every line is a JSON object, one per file" "$PYTHON" -c '
import json, sys
frames = [json.loads(l) for l in open(sys.argv[1])]
assert [f["frame"] for f in frames] == [1, 2, 3, 4], frames
' "$tmp/top.json"
ok "top --json: the deltas of the interval" "$PYTHON" -c '
import json, sys
f = [json.loads(l) for l in open(sys.argv[1])]
def row(n, site):
    return [r for r in f[n]["rows"] if r["site"].startswith(site)][0]
assert f[0]["since_start"] and not f[1]["since_start"], "since_start"
assert f[1]["interval_ns"] == 1000000000 and f[1]["wall_s"] == 1.0, f[1]["interval_ns"]
r = row(1, "lmt_contend")
assert (r["acquired"], r["spin"], r["hold_total_ns"]) == (2000, 400, 200000000), r
assert r["rate"] == 2000 and r["util_pct"] == 20 and r["con_pct"] == 20, r
assert r["hold_max_new"] and r["hold_max_ns"] == 400000, r
r = row(2, "lmt_contend")
assert r["acquired"] == 100 and not r["hold_max_new"] and r["hold_max_ns"] == 400000, r
sites = [r["site"] for r in f[1]["rows"]]
assert not any(s.startswith("lmt_trylock") or s.startswith("lmt_mutex") for s in sites), sites
assert f[1]["losses_new"]["dropped"] == 3 and f[2]["losses_new"]["dropped"] == 0, "losses"
assert f[3]["since_start"] and f[3]["interval_ns"] == 500000000, "reset"
' "$tmp/top.json"
"$LOCKSTAT" report --json "$fx/top-2.snap" >"$tmp/r.json" 2>&1
ok "JSON: times are {sec, nsec} in report and in top" "$PYTHON" -c '
import json, sys
r = json.load(open(sys.argv[1]))
t = [json.loads(l) for l in open(sys.argv[2])]
assert r["header"]["end"] == {"sec": 1732968001, "nsec": 0}, r["header"]["end"]
assert t[1]["time"] == r["header"]["end"], t[1]["time"]
' "$tmp/r.json" "$tmp/top.json"
"$LOCKSTAT" top -b --json --by-site --replay "$fx/stacks.snap" "$fx/stacks-2.snap" >"$tmp/top-ev.json" 2>&1
ok "top --json: the evidence of a new maximum is the interval's, an old one marked so" "$PYTHON" -c '
import json, sys
f = [json.loads(l) for l in open(sys.argv[1])]
rows = {r["site"]: r for r in f[1]["rows"]}
assert sorted(rows) == ["lmt_contend_thread+0x4e/0xa0[test_lockmeter]", "pipe_write+0x5a/0x6b0"], rows
r = rows["lmt_contend_thread+0x4e/0xa0[test_lockmeter]"]
assert r["hold_max_new"] and r["hold_max_ns"] == 180000, r
assert (r["hold_evidence"]["pid"], r["hold_evidence"]["comm"]) == (416, "lmt_contend/2"), r
assert not r["wait_max_new"] and r["wait_evidence"]["pid"] == 414, r
r = rows["pipe_write+0x5a/0x6b0"]
assert r["acquired"] == 2 and not r["hold_max_new"] and r["hold_evidence"]["comm"] == "sh", r
' "$tmp/top-ev.json"
"$LOCKSTAT" top -b --by-site --replay "$fx/stacks.snap" "$fx/stacks-2.snap" >"$tmp/top-ev.txt" 2>&1
grep -Eq "180us .* lmt_contend/2 +spin +lmt_static_lock lmt_contend_thread" "$tmp/top-ev.txt" &&
	pass "top -b: HOLDER names who made the interval's longest hold" ||
	fail "top -b: HOLDER names who made the interval's longest hold" "$tmp/top-ev.txt"
# replay files out of order, or of another machine or kernel: warned, since start
"$LOCKSTAT" top -b --json --replay "$fx/top-4.snap" "$fx/stacks.snap" >"$tmp/ooo.json" 2>"$tmp/ooo.err"
ok "top --replay out of order: warned, the frame since start, no negative interval" "$PYTHON" -c '
import json, sys
f = [json.loads(l) for l in open(sys.argv[1])]
assert len(f) == 2 and f[1]["since_start"] and f[1]["wall_s"] == 0, f[1]
assert f[1]["interval_ns"] == f[1]["metered_ns"] == 2000000000, f[1]
err = open(sys.argv[2]).read()
assert "stacks.snap was taken before the file ahead of it (out of order): its frame is since start" in err, err
' "$tmp/ooo.json" "$tmp/ooo.err"
"$LOCKSTAT" top -b --replay "$fx/top-4.snap" "$fx/stacks.snap" >"$tmp/ooo.txt" 2>/dev/null
ok "top -b --replay out of order: no 'interval -' in the text" sh -c "
	! grep -q 'interval -' '$tmp/ooo.txt' && test \$(grep -c '^lockstat top - .*since start' '$tmp/ooo.txt') -eq 2"
sed 's/^node: lmguest$/node: otherhost/' "$fx/top-2.snap" >"$tmp/node.snap"
sed 's/^release: 6.12.117$/release: 6.12.118/' "$fx/top-2.snap" >"$tmp/kernel.snap"
for what in node:"another machine (node)" kernel:"another kernel (release or version)"; do
	"$LOCKSTAT" top -b --json --replay "$fx/top-1.snap" "$tmp/${what%%:*}.snap" >"$tmp/o.json" 2>"$tmp/o.err"
	grep -q "${what%%:*}.snap is from ${what#*:}: its frame is since start" "$tmp/o.err" &&
		[ "$(sed -n 2p "$tmp/o.json" | grep -c '"since_start": true')" -eq 1 ] &&
		pass "top --replay, a file from ${what#*:}: warned, since start" ||
		fail "top --replay, a file from ${what#*:}: warned, since start" "$tmp/o.err"
done
rc "top -b -n 2: two frames" 0 top -b -n 2 --json --replay $replay
[ "$(wc -l <"$tmp/stdout")" -eq 2 ] && pass "top -b -n 2: stops after two frames" ||
	fail "top -b -n 2: stops after two frames" "$tmp/stdout"
rc "top --type mutex --name lmt" 0 top -b --type mutex --name lmt --replay $replay
if grep -q "lmt_mutex" "$tmp/stdout" && ! grep -q "runqueues\|lmt_static" "$tmp/stdout" &&
   grep -q "(no rows match the filters)" "$tmp/stdout"; then
	pass "top: type and name filters, and an interval with nothing to show"
else
	fail "top: type and name filters, and an interval with nothing to show" "$tmp/stdout"
fi
rc "top: the same snapshot twice" 0 top -b --replay "$fx/demo.snap" "$fx/demo.snap"
grep -q "^(no lock activity: metering is off)$" "$tmp/stdout" &&
	pass "top: an empty interval says that metering is off" ||
	fail "top: an empty interval says that metering is off" "$tmp/stdout"
rc "top: -d 0" 2 top -b -d 0 --replay "$fx/top-1.snap"
rc "top: -d x" 2 top -b -d x --replay "$fx/top-1.snap"
rc "top: -n 0" 2 top -b -n 0 --replay "$fx/top-1.snap"
rc "top: --csv" 2 top -b --csv --replay "$fx/top-1.snap"
rc "top: --json without -b" 2 top --json --replay "$fx/top-1.snap"
rc "top: --replay without files" 2 top -b --replay
rc "top: --replay with --cpu" 2 top -b --cpu 0 --replay "$fx/top-1.snap"
rc "top: a file without --replay" 2 top -b "$fx/top-1.snap"
rc "top: a missing replay file" 6 top -b --replay "$fx/top-1.snap" "$tmp/nope.snap"
rc "top: a corrupt replay file" 7 top -b --replay "$fx/truncated-rows.snap"
rc "top: no terminal" 2 top --replay "$fx/top-1.snap" </dev/null
grep -q "terminal" "$tmp/stderr" && pass "top: no terminal: says to use -b" ||
	fail "top: no terminal: says to use -b" "$tmp/stderr"
# the screen, in tmux
LOCKSTAT="$LOCKSTAT" FIXTURES="$fx" sh "$here/top_screen.sh" >>"$results" 2>&1 ||
	fail "top_screen.sh exited with $?"
# a terminal that hangs up, signals from outside, in prompts and between frames
cp "$fx/proc.txt" "$tmp/hangup-proc.txt"
"$PYTHON" "$here/top_hangup.py" "$LOCKSTAT" "$fx" "$tmp/hangup-proc.txt" >>"$results" 2>"$tmp/hangup.err" ||
	fail "top_hangup.py exited with $?" "$tmp/hangup.err"

# ---- export with promtool, node_exporter and PCP ----
LOCKSTAT="$LOCKSTAT" FIXTURES="$fx" PYTHON="$PYTHON" sh "$here/export.sh" >>"$results" 2>&1 ||
	fail "export.sh exited with $?"

# ---- the command line ----
rc "no command" 2
rc "unknown command" 2 frobnicate
"$LOCKSTAT" reprot "$fx/demo.snap" >"$tmp/stdout" 2>"$tmp/stderr"
[ $? -eq 2 ] && grep -q "^lockstat: unknown command 'reprot'; did you mean 'report'?" "$tmp/stderr" &&
	[ "$(wc -l <"$tmp/stderr")" -le 3 ] && [ ! -s "$tmp/stdout" ] &&
	pass "an unknown command: did you mean, in a line or two, not the whole usage" ||
	fail "an unknown command: did you mean, in a line or two, not the whole usage" "$tmp/stderr"
"$LOCKSTAT" help tpo >/dev/null 2>"$tmp/stderr"
[ $? -eq 2 ] && grep -q "did you mean 'top'?" "$tmp/stderr" && pass "help of an unknown command: did you mean" ||
	fail "help of an unknown command: did you mean" "$tmp/stderr"
# an option where the command goes, and typos: never a command that
# changes the kernel's state suggested (-x was "did you mean 'on'?")
for bad in -x of rest recrod relase releas; do
	"$LOCKSTAT" $bad >"$tmp/stdout" 2>"$tmp/stderr"
	[ $? -eq 2 ] && ! grep -Eq "'(on|off|reset|record|release)'" "$tmp/stderr" &&
		pass "lockstat $bad: no suggestion of on, off, reset, record or release" ||
		fail "lockstat $bad: no suggestion of on, off, reset, record or release" "$tmp/stderr"
done
"$LOCKSTAT" -x 2>"$tmp/stderr"
ok "lockstat -x: an unknown option, said as one" grep -q "^lockstat: unknown option '-x'" "$tmp/stderr"
"$LOCKSTAT" prnt 2>"$tmp/stderr"
ok "lockstat prnt: what only reads is still suggested" grep -q "did you mean 'print'?" "$tmp/stderr"
# the quick start of -h and of the manual: the same commands, and those that
# read files run as they are written (the fixtures for the files)
"$LOCKSTAT" -h >"$tmp/usage" 2>&1
ok "lockstat -h: 'lockstat help COMMAND' and a quick start" sh -c "
	grep -q 'lockstat help COMMAND' '$tmp/usage' && grep -q '^quick start' '$tmp/usage'"
sed -n 's/^  [a-z ]*  *\(lockstat .*\)/\1/p' "$tmp/usage" | sed -n '/^lockstat record -o/,$p' >"$tmp/qs"
sed -n '/^\.SH QUICK START/,/^\.PP/s/^\.B \(lockstat .*\)/\1/p' "$here/../lockstat.8" |
	sed 's/\\//g' >"$tmp/qs.man"
ok "quick start: five commands, the same in -h and the manual" sh -c "
	[ \$(wc -l <'$tmp/qs') -eq 5 ] && diff -u '$tmp/qs' '$tmp/qs.man'"
while read -r line; do
	case $line in *report*|*diff*) ;; *) continue ;; esac
	set -- $(echo "$line" | sed -e "s|run.snap|$fx/stacks.snap|" -e "s|before.snap|$fx/diff-a.snap|" \
		-e "s|after.snap|$fx/diff-b.snap|" -e 's/^lockstat //')
	"$LOCKSTAT" "$@" >"$tmp/qs.out" 2>&1
	[ $? -eq 0 ] && [ -s "$tmp/qs.out" ] && pass "quick start runs: $line" ||
		fail "quick start runs: $line" "$tmp/qs.out"
done <"$tmp/qs"
rc "lockstat -h" 0 -h
rc "lockstat --help" 0 --help
rc "lockstat help" 0 help
rc "lockstat -V" 0 -V
for cmd in on off reset release status print record get report top export held hist; do
	rc "$cmd: unknown option" 2 "$cmd" --bogus
	rc "$cmd -h" 0 "$cmd" -h
	grep -q "^usage: lockstat $cmd" "$tmp/stdout" && pass "$cmd -h: usage on stdout" ||
		fail "$cmd -h: usage on stdout" "$tmp/stdout"
done
rc "help print" 0 help print
rc "report: no FILE" 2 report
rc "report: two FILEs" 2 report "$fx/demo.snap" "$fx/demo.snap"
rc "get: no -o" 2 get
rc "record: no CMD" 2 record
rc "record: no CMD after --" 2 record --
rc "record --hist: an empty SITE" 2 record --hist lmt_hist_lock@ -- true
rc "record --hist --json" 2 record --hist lmt_hist_lock --json -- true
rc "record --hist twice" 2 record --hist a --hist b -- true
rc "record --hist without NAME" 2 record --hist
rc "on: an argument" 2 on now
rc "release: an argument" 2 release now
rc "release --source sysfs" 2 release --source sysfs
rc "release --cpu 0: not its option" 2 release --cpu 0
"$LOCKSTAT" -h >"$tmp/usage" 2>&1
"$LOCKSTAT" release -h >"$tmp/h.release" 2>&1
ok "release in lockstat -h, and in its own -h: only while off, the numbers go" sh -c "
	grep -q '^  release  *free the memory metering took (while off; the numbers go)' '$tmp/usage' &&
	grep -q '^usage: lockstat release \[--source SRC\]' '$tmp/h.release' &&
	grep -q '^  release  free the memory metering took: rows, per-CPU state, key' '$tmp/h.release' &&
	grep -q 'only while off' '$tmp/h.release'"
rc "--sort: unknown key" 2 report --sort bogus "$fx/demo.snap"
rc "--type: unknown type" 2 report --type spinlock "$fx/demo.snap"
rc "--top 0" 2 report --top 0 "$fx/demo.snap"
rc "--top x" 2 report --top x "$fx/demo.snap"
rc "--min-con 200" 2 report --min-con 200 "$fx/demo.snap"
rc "--min-util x" 2 report --min-util x "$fx/demo.snap"
rc "--json --csv" 2 report --json --csv "$fx/demo.snap"
rc "--min-con 0x10 (hex is no percentage)" 2 report --min-con 0x10 "$fx/demo.snap"
rc "--min-con 1e1" 2 report --min-con 1e1 "$fx/demo.snap"
rc "--min-con 5%" 0 report --min-con 5% "$fx/demo.snap"
rc "--type spin,,mutex (an empty type)" 2 report --type spin,,mutex "$fx/demo.snap"
rc "--type spin," 2 report --type spin, "$fx/demo.snap"
rc "--min-util abc" 2 report --min-util abc "$fx/demo.snap"
grep -q -- "--min-util: 'abc' is not a percentage" "$tmp/stderr" &&
	pass "--min-util abc: the message names the option" ||
	fail "--min-util abc: the message names the option" "$tmp/stderr"
rc "--sort bogus lists the keys" 2 report --sort bogus "$fx/demo.snap"
grep '^  [a-z]' "$tmp/stderr" | awk '{ print $1 }' | sort | uniq -d >"$tmp/dups"
[ ! -s "$tmp/dups" ] &&
	grep -q '^  maxwait .*; also acq_max (klockstat), wait_max (perf lock)$' "$tmp/stderr" &&
	pass "--sort bogus: each key named once, with its perf lock and klockstat aliases" ||
	fail "--sort bogus: each key named once, with its perf lock and klockstat aliases" "$tmp/stderr"
# each alias against its target, in an order other than the default one
# (maxhold), so that an alias mapped to the default would fail
"$LOCKSTAT" report --csv "$fx/demo.snap" >"$tmp/default" 2>&1
for pair in wait_max:maxwait avg_wait:meanwait wait_total:waitcpu acquired:rate hold_total:totalhold \
	wait_min:minwait acq_max:maxwait hld_total:totalhold; do
	"$LOCKSTAT" report --csv --sort "${pair%%:*}" "$fx/demo.snap" >"$tmp/a" 2>&1
	"$LOCKSTAT" report --csv --sort "${pair#*:}" "$fx/demo.snap" >"$tmp/b" 2>&1
	ok "--sort ${pair%%:*} is --sort ${pair#*:}" sh -c "diff -u '$tmp/b' '$tmp/a' &&
		! cmp -s '$tmp/a' '$tmp/default'"
done
# maxhold is the default order
"$LOCKSTAT" report --csv --sort hld_max -r "$fx/demo.snap" >"$tmp/a" 2>&1
"$LOCKSTAT" report --csv --sort maxhold -r "$fx/demo.snap" >"$tmp/b" 2>&1
ok "--sort hld_max -r is --sort maxhold -r" sh -c "diff -u '$tmp/b' '$tmp/a' &&
	! cmp -s '$tmp/a' '$tmp/default'"
"$LOCKSTAT" report --csv --sort wait_min "$fx/demo.snap" >"$tmp/a" 2>&1
ok "--sort wait_min: locks by WAIT MIN (wait_min_ns), largest first" sh -c "awk -F, '
	NR == 1 { if (\$14 != \"wait_min_ns\") bad = 1 }
	\$1 == \"total\" { last = -1 }
	\$1 == \"lock\" { if (last >= 0 && \$14 > last) bad = 1; last = \$14; locks++ }
	END { exit bad || locks < 6 }' '$tmp/a'"
# perf lock's -k/--key and -E/--entries
"$LOCKSTAT" report --csv --sort avg_wait "$fx/demo.snap" >"$tmp/b" 2>&1
for opt in "-k avg_wait" "--key avg_wait" "--key=meanwait" "-kavg_wait"; do
	"$LOCKSTAT" report --csv $opt "$fx/demo.snap" >"$tmp/a" 2>&1
	ok "report $opt is --sort avg_wait" diff -u "$tmp/b" "$tmp/a"
done
"$LOCKSTAT" report --csv --top 1 "$fx/demo.snap" >"$tmp/b" 2>&1
for opt in "-E 1" "--entries 1" "-E1"; do
	"$LOCKSTAT" report --csv $opt "$fx/demo.snap" >"$tmp/a" 2>&1
	ok "report $opt is --top 1" diff -u "$tmp/b" "$tmp/a"
done
"$LOCKSTAT" report --csv -E 1 "$fx/demo.snap" >"$tmp/a" 2>&1
ok "report -E 1: one lock and one site per section" sh -c "awk -F, '
	\$1 == \"total\" { sec++ } \$1 != \"kind\" { n[\$1 \$2]++ }
	END { for (k in n) if (n[k] != 1) bad = 1; exit bad || sec < 6 }' '$tmp/a'"
"$LOCKSTAT" top -b -n 1 -E 1 --replay "$fx"/top-[1-4].snap >"$tmp/a" 2>&1
"$LOCKSTAT" top -b -n 1 --top 1 --replay "$fx"/top-[1-4].snap >"$tmp/b" 2>&1
ok "top -b -E 1 is top -b --top 1" diff -u "$tmp/b" "$tmp/a"
"$LOCKSTAT" top -b -n 1 -k con --json --replay "$fx"/top-[1-4].snap >"$tmp/a" 2>&1
ok "top -b -k con: sorted by con" grep -q '"sort": { "key": "con"' "$tmp/a"
for args in "-E 0|-E/--entries: '0' is not a positive number" \
	"-k bogus|-k/--key: unknown key 'bogus'" "-k|option '-k' needs an argument" \
	"-E|option '-E' needs an argument"; do
	"$LOCKSTAT" report "$fx/demo.snap" ${args%%|*} >/dev/null 2>"$tmp/stderr"
	[ $? -eq 2 ] && grep -q "^lockstat: .*${args#*|}" "$tmp/stderr" &&
		pass "report ${args%%|*}: exit 2, says why" || fail "report ${args%%|*}: exit 2, says why" "$tmp/stderr"
done
# klockstat's -c: the rows whose call site contains a string; a lock sums those only
# (tasklist_lock's writes: copy_process, exit_notify, release_task)
"$LOCKSTAT" report --csv -c exit_ "$fx/demo.snap" >"$tmp/c1.csv" 2>&1
"$LOCKSTAT" report --csv "$fx/demo.snap" >"$tmp/c0.csv" 2>&1
ok "report -c exit_: the sites with exit_ only, a lock the sum of its matching sites" "$PYTHON" -c '
import csv, sys
got = list(csv.DictReader(open(sys.argv[1])))
every = list(csv.DictReader(open(sys.argv[2])))
sites = [r for r in got if r["kind"] == "site"]
assert sites and all("exit_" in r["site"] for r in sites), sites
want = sorted((r["type"], r["lock"], r["site"]) for r in every if r["kind"] == "site" and "exit_" in r["site"])
assert sorted((r["type"], r["lock"], r["site"]) for r in sites) == want, want
lock = [r for r in got if r["kind"] == "lock" and r["type"] == "write" and r["lock"] == "tasklist_lock"]
exit_notify = [r for r in sites if r["type"] == "write" and r["lock"] == "tasklist_lock"]
assert len(lock) == 1 and len(exit_notify) == 1 and lock[0]["acquired"] == exit_notify[0]["acquired"], lock
' "$tmp/c1.csv" "$tmp/c0.csv"
"$LOCKSTAT" report --csv --caller exit_ "$fx/demo.snap" >"$tmp/c2.csv" 2>&1
"$LOCKSTAT" report --csv -i -c EXIT_ "$fx/demo.snap" >"$tmp/c3.csv" 2>&1
ok "report --caller is -c, and -i makes it any case" sh -c "
	cmp -s '$tmp/c1.csv' '$tmp/c2.csv' && cmp -s '$tmp/c1.csv' '$tmp/c3.csv'"
"$LOCKSTAT" report --csv -c pipe_ --name lookup "$fx/demo.snap" >"$tmp/c4.csv" 2>&1
ok "report -c and --name: both must match, none here" sh -c "! grep -q '^site,' '$tmp/c4.csv'"
rc "report -c ''" 2 report -c '' "$fx/demo.snap"
"$LOCKSTAT" top -b -n 2 -c lmt_ --by-site --replay "$fx"/top-[1-4].snap >"$tmp/c5" 2>&1
ok "top -b -c lmt_: the sites in lmt_ only" sh -c "
	awk '/ NAME\$/ { on = 1; next } !NF { on = 0 } on && !/\\*TOTAL\\*/ { n++; if (\$NF !~ /lmt_/) bad = 1 }
	END { exit bad || !n }' '$tmp/c5'"
# -n: klockstat's number of locks, top(1)'s number of frames; lockstat keeps top's
rc "report -n 3: no such option" 2 report -n 3 "$fx/demo.snap"
ok "report -n: says klockstat's -n is --top here" grep -q "klockstat's -n N is --top N here" "$tmp/stderr"
rc "top -b -n 1: still the number of frames" 0 top -b -n 1 --replay "$fx"/top-[1-4].snap
"$LOCKSTAT" report --csv --sort contended "$fx/demo.snap" >"$tmp/c.csv" 2>&1
ok "--sort contended: locks by spin + reject, most first" sh -c "awk -F, '
	\$1 == \"total\" { sec = \$2; last = -1 }
	\$1 == \"lock\" { n = \$7 + \$8; if (last >= 0 && n > last) bad = 1; last = n; locks++ }
	END { exit bad || !locks }' '$tmp/c.csv'"
"$LOCKSTAT" --help >/dev/full 2>"$tmp/stderr"
[ $? -eq 1 ] && grep -q "write error" "$tmp/stderr" && pass "--help to a full disk: exit 1, says so" ||
	fail "--help to a full disk: exit 1, says so" "$tmp/stderr"
"$LOCKSTAT" report -h >/dev/full 2>/dev/null
[ $? -eq 1 ] && pass "report -h to a full disk: exit 1" || fail "report -h to a full disk: exit 1"
# the cause of a write error, whichever view wrote: ENOSPC, not EIO
# (demo.snap: more than a buffer of table, so that the last flush has nothing left)
for args in "report --width 0" "report --width 80" "report --json" "top -b --replay"; do
	"$LOCKSTAT" $args "$fx/demo.snap" >/dev/full 2>"$tmp/stderr"
	[ $? -eq 1 ] && grep -q "write error on standard output: No space left on device$" "$tmp/stderr" &&
		pass "$args to a full disk: says no space, exit 1" ||
		fail "$args to a full disk: says no space, exit 1" "$tmp/stderr"
done
# a snapshot an editor saved with empty lines at the end reads; one
# among the rows is refused with its line; a compressed one is said to be
sed -n p "$fx/demo.snap" >"$tmp/blank.snap" && printf '\n\n' >>"$tmp/blank.snap"
"$LOCKSTAT" report --csv "$tmp/blank.snap" >"$tmp/blank.csv" 2>"$tmp/stderr"
"$LOCKSTAT" report --csv "$fx/demo.snap" >"$tmp/demo.csv" 2>&1
[ $? -eq 0 ] && cmp -s "$tmp/blank.csv" "$tmp/demo.csv" && pass "a snapshot with empty lines at its end reads" ||
	fail "a snapshot with empty lines at its end reads" "$tmp/stderr"
sed '40{p;s/.*//;}' "$fx/demo.snap" >"$tmp/blank.snap"
rc "an empty line among the rows" 7 report "$tmp/blank.snap"
ok "an empty line among the rows: its line named" grep -q "blank.snap:41: corrupt snapshot: an empty line among the rows" \
	"$tmp/stderr"
if command -v gzip >/dev/null; then
	gzip -c "$fx/demo.snap" >"$tmp/demo.snap.gz"
	rc "a gzipped snapshot" 7 report "$tmp/demo.snap.gz"
	ok "a gzipped snapshot: said to be compressed, and how to read it" grep -q \
		"demo.snap.gz:1: corrupt snapshot: compressed (gzip), not a text file: 'zcat FILE | lockstat report -' reads it" \
		"$tmp/stderr"
	gzip -dc "$tmp/demo.snap.gz" | "$LOCKSTAT" report --csv - >"$tmp/gz.csv" 2>&1
	ok "a gzipped snapshot: zcat FILE | lockstat report - reads it" cmp "$tmp/gz.csv" "$tmp/demo.csv"
fi
printf '\050\265\057\375rest\n' >"$tmp/z.snap"
"$LOCKSTAT" report "$tmp/z.snap" 2>"$tmp/stderr"
ok "a zstd snapshot: said to be compressed" grep -q "compressed (zstd)" "$tmp/stderr"
# building outside the tree: make names UAPI_DIR when linux/lockmeter.h is not found
if [ ! -e /usr/include/linux/lockmeter.h ] && command -v make >/dev/null; then
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$here/.." O="$tmp/ob" \
		UAPI_DIR="$tmp/no-uapi" >"$tmp/mk.out" 2>&1
	mk=$?
	[ $mk -ne 0 ] && grep -q "no-uapi/linux/lockmeter.h not found: outside the lockmeter tree, set UAPI_DIR" \
		"$tmp/mk.out" && [ ! -e "$tmp/ob/lockstat" ] &&
		pass "make without linux/lockmeter.h: says to set UAPI_DIR, builds nothing" ||
		fail "make without linux/lockmeter.h: says to set UAPI_DIR, builds nothing" "$tmp/mk.out"
fi
# every section's column titles over their columns, however long its title
for w in 0 100; do
	"$LOCKSTAT" report --width $w "$fx/proc-types.txt" >"$tmp/titles" 2>&1
	ok "report --width $w: HOLD and WAIT at the same column in every section" "$PYTHON" -c '
import sys
l = open(sys.argv[1]).read().splitlines()
heads = [x for x in l if " HOLD " in x and "WAIT" in x]
assert len(heads) == 5, heads
cols = {(x.index("HOLD"), x.index("WAIT")) for x in heads}
assert len(cols) == 1, heads
' "$tmp/titles"
done
# hist: the bars, and the percentiles, within the width
for w in 60 80; do
	COLUMNS=$w "$LOCKSTAT" hist lmt_hist_lock "$fx/hist.snap" >"$tmp/hw" 2>&1
	ok "hist at COLUMNS=$w: no line longer, the bars still there" sh -c "
		awk 'length > $w { bad = 1 } END { exit bad }' '$tmp/hw' && grep -q '##########\$' '$tmp/hw'"
done
# top -b: the header broken between its fields, no value cut
"$LOCKSTAT" top -b -n 2 --width 80 --replay "$fx/top-1.snap" "$fx/top-2.snap" >"$tmp/t80" 2>&1
"$LOCKSTAT" top -b -n 2 --width 0 --replay "$fx/top-1.snap" "$fx/top-2.snap" >"$tmp/t0" 2>&1
ok "top -b --width 80: the header within 80 columns, every field whole" "$PYTHON" -c '
import sys
def heads(p, join):
    out, l = [], open(p).read().splitlines()
    for i, x in enumerate(l):
        if x.startswith("lockstat top - "):
            while join and i + 1 < len(l) and l[i + 1].startswith("  ") and l[i + 1][2] != " ":
                i += 1
                x += "  " + l[i][2:]
            out.append(x)
    return out
narrow, wide = heads(sys.argv[1], True), heads(sys.argv[2], False)
assert len(wide) == 2 and narrow == wide, (narrow, wide)
assert all(len(x) <= 80 for x in open(sys.argv[1]).read().splitlines()), "a line over 80"
' "$tmp/t80" "$tmp/t0"
rc "--sort needs an argument" 2 report "$fx/demo.snap" --sort
# held: --over is a duration, nothing else is taken (checked before any kernel is asked)
for bad in x 5x -1 1.2.3 10m 1e3 "" 99999999999s; do
	rc "held --over '$bad'" 2 held --over "$bad"
	grep -q "^lockstat: held: --over: '$bad' is not a duration" "$tmp/stderr" &&
		pass "held --over '$bad': the message names the option" ||
		fail "held --over '$bad': the message names the option" "$tmp/stderr"
done
ok "held --json: the golden JSON is valid JSON" json_ok "$gold/held.json"
rc "held --over without a value" 2 held --over
rc "held: an operand" 2 held 500ms
rc "held --json=yes" 2 held --json=yes
rc "held: a view option it does not take" 2 held --stacks
rc "held: --source (netlink only)" 2 held --source=proc
rc "--source: unknown" 2 print --source=sysfs
rc "--cpu with --source=proc" 2 print --source=proc --cpu 1
rc "--cpu x" 2 print --cpu x

# ---- watch: bad options set nothing (they are refused before any request) ----
for args in "--over 0" "--over 999" "--over 1001s" "--over 5xs" "--wait-over ms" \
	"--type foo" "--type spin,mutex" "--count 0" "--count x" "--over" "--bogus" "extra"; do
	# shellcheck disable=SC2086
	rc "watch $args" 2 watch $args
done
grep -q "^usage: lockstat watch " "$tmp/stderr" && pass "watch: a usage error shows the synopsis" ||
	fail "watch: a usage error shows the synopsis" "$tmp/stderr"
rc "watch -h" 0 watch -h
grep -q "^  --wait-over DUR " "$tmp/stdout" && grep -q "^                     spin read write" "$tmp/stdout" &&
	pass "watch -h: the options and the type names" || fail "watch -h: the options and the type names" "$tmp/stdout"

# ---- the alert counters of a /proc header (lockstat watch's kernel) ----
sed '2a\
alerts: 12\
alerts_sent: 9\
alerts_dropped: 3\
watch_hold_ns: spin=5000000 mutex=50000000\
watch_wait_ns: -' "$fx/proc-keys.txt" >"$tmp/proc-alerts.txt"
"$LOCKSTAT" export "$tmp/proc-alerts.txt" >"$tmp/alerts.prom" 2>&1
grep -qx 'lockmeter_alerts_raised_total 12' "$tmp/alerts.prom" &&
	grep -qx 'lockmeter_alerts_sent_total 9' "$tmp/alerts.prom" &&
	grep -qx 'lockmeter_alerts_dropped_total 3' "$tmp/alerts.prom" &&
	grep -qx '# TYPE lockmeter_alerts_dropped_total counter' "$tmp/alerts.prom" &&
	! grep -q 'lockmeter_alerts_total' "$tmp/alerts.prom" &&
	pass "export: the header's alert counters; no per-row alert series without a count" ||
	fail "export: the header's alert counters; no per-row alert series without a count" "$tmp/alerts.prom"
LOCKSTAT_PROC="$tmp/proc-alerts.txt" "$LOCKSTAT" status --source=proc >"$tmp/alerts.status" 2>&1
grep -qx 'alerts: 12 over a threshold, 9 sent, 3 dropped' "$tmp/alerts.status" &&
	pass "status: the alert counters from /proc" || fail "status: the alert counters from /proc" "$tmp/alerts.status"

# ---- a kernel without lockmeter (this host, normally) ----
if [ -e /proc/lockmeter ] || "$LOCKSTAT" status --source=netlink >/dev/null 2>&1; then
	echo "ok - kernel without lockmeter # SKIP this kernel has lockmeter" >>"$results"
else
	rc "print, no lockmeter" 4 print
	grep -q "no lockmeter" "$tmp/stderr" && pass "print, no lockmeter: says so" ||
		fail "print, no lockmeter: says so" "$tmp/stderr"
	rc "status, no lockmeter" 4 status
	rc "on, no lockmeter" 4 on
	rc "release, no lockmeter" 4 release
	rc "release --source=netlink, no family" 5 release --source=netlink
	rc "release --source=proc, no /proc/lockmeter" 4 release --source=proc
	rc "get, no lockmeter" 4 get -o "$tmp/never.snap"
	rc "record, no lockmeter" 4 record -- true
	rc "print --source=proc, no /proc/lockmeter" 4 print --source=proc
	rc "print --source=netlink, no family" 5 print --source=netlink
	rc "record --source=netlink, no family" 5 record --source=netlink -- true
	for over in 0 500ms 1.5s 10us 250ns; do
		rc "held --over $over, no lockmeter" 4 held --over "$over"
	done
	grep -q "^lockstat: held: this kernel has no lockmeter (CONFIG_LOCKMETER)" "$tmp/stderr" &&
		pass "held, no lockmeter: says so" || fail "held, no lockmeter: says so" "$tmp/stderr"
	rc "watch --over 5ms, no lockmeter" 4 watch --over 5ms
	grep -q "^lockstat: watch: this kernel has no lockmeter (CONFIG_LOCKMETER)" "$tmp/stderr" &&
		pass "watch, no lockmeter: says so" || fail "watch, no lockmeter: says so" "$tmp/stderr"
	LOCKSTAT_PROC="$fx/proc.txt" rc "watch: /proc/lockmeter only" 5 watch --over 5ms
	grep -q "alerts are sent to the netlink family only" "$tmp/stderr" && [ ! -s "$tmp/stdout" ] &&
		pass "watch: /proc/lockmeter only: says why" ||
		fail "watch: /proc/lockmeter only: says why" "$tmp/stderr"
	LOCKSTAT_PROC="$fx/proc.txt" rc "held: /proc/lockmeter only" 5 held --json
	grep -q "held locks are known to the netlink family only" "$tmp/stderr" && [ ! -s "$tmp/stdout" ] &&
		pass "held: /proc/lockmeter only: no fallback, says why" ||
		fail "held: /proc/lockmeter only: no fallback, says why" "$tmp/stderr"

	# ---- the /proc source, on a fixture ----
	export LOCKSTAT_PROC="$fx/proc.txt"
	rc "print --stacks from /proc" 0 print --stacks
	grep -q "^Evidence: none: /proc/lockmeter has no holders" "$tmp/stdout" &&
		pass "print --stacks from /proc: says /proc has no evidence" ||
		fail "print --stacks from /proc: says /proc has no evidence" "$tmp/stdout"
	rc "print from /proc (the fallback)" 0 print
	grep -q "metering on, from proc" "$tmp/stdout" && grep -q "percpu:runqueues+0x0" "$tmp/stdout" &&
		pass "print from /proc: the rows" || fail "print from /proc: the rows" "$tmp/stdout"
	"$LOCKSTAT" report "$fx/proc.txt" | grep -v "^System: " >"$tmp/a"
	"$LOCKSTAT" print --source=proc | grep -v "^System: " >"$tmp/b"
	ok "print --source=proc is report of the same file" diff -u "$tmp/a" "$tmp/b"
	rc "print --cpu needs netlink" 5 print --cpu 0
	rc "print --percentiles from /proc" 0 print --percentiles
	grep -q "^Percentiles: none: no histograms in this snapshot" "$tmp/stdout" &&
		pass "print --percentiles from /proc: says there are no histograms" ||
		fail "print --percentiles from /proc: says there are no histograms" "$tmp/stdout"
	rc "hist from /proc: no histogram" 1 hist percpu:runqueues
	grep -q "^no histogram: this kernel or snapshot has none" "$tmp/stdout" &&
		pass "hist from /proc: says no histogram, no numbers" ||
		fail "hist from /proc: says no histogram, no numbers" "$tmp/stdout"
	rc "top -b from /proc" 0 top -b -n 2 -d 0.05 --json
	ok "top -b from /proc: since start, then an interval with nothing new" "$PYTHON" -c '
import json, sys
f = [json.loads(l) for l in open(sys.argv[1])]
assert len(f) == 2 and f[0]["since_start"] and f[0]["rows"] and f[0]["source"] == "proc", f[0]
assert not f[1]["since_start"] and f[1]["rows"] == [], f[1]
' "$tmp/stdout"
	rc "top -b --cpu needs netlink" 5 top -b -n 1 --cpu 0
	rc "status from /proc" 0 status
	grep -q "^lockmeter: on (from proc)" "$tmp/stdout" && grep -q "^unmatched: 8" "$tmp/stdout" &&
		pass "status from /proc: state and counters" || fail "status from /proc: state and counters" "$tmp/stdout"
	rc "status --json from /proc" 0 status --json
	ok "status --json: python3 -m json.tool accepts it" json_ok "$tmp/stdout"
	rc "get -o from /proc" 0 get -o "$tmp/got.snap"
	head -n 1 "$tmp/got.snap" | grep -qx "lockstat snapshot version 2" &&
		grep -q "^command: get$" "$tmp/got.snap" && grep -q "^start: [0-9]*\.[0-9]\{9\}$" "$tmp/got.snap" &&
		grep -q "^system: " "$tmp/got.snap" && pass "get: a snapshot with its header" ||
		fail "get: a snapshot with its header" "$tmp/got.snap"
	"$LOCKSTAT" report --csv "$fx/proc.txt" >"$tmp/a"
	"$LOCKSTAT" report --csv "$tmp/got.snap" >"$tmp/b"
	ok "get, then report: the same rows" diff -u "$tmp/a" "$tmp/b"
	rc "get -o into a missing directory" 1 get -o "$tmp/no/such/dir.snap"
	ls "$tmp" | grep -q '\.tmp\.' && fail "get: no temporary file left behind" ||
		pass "get: no temporary file left behind"
	# the newer types from /proc, and into a snapshot and back
	LOCKSTAT_PROC="$fx/proc-types.txt" rc "print --source=proc: the newer types" 0 print --source=proc
	"$LOCKSTAT" report "$fx/proc-types.txt" | grep -v "^System: " >"$tmp/a"
	grep -v "^System: " "$tmp/stdout" >"$tmp/b"
	ok "print --source=proc of the newer types is report of the same file" diff -u "$tmp/a" "$tmp/b"
	grep -q "^RT MUTEXES " "$tmp/b" && grep -q "^SEMAPHORES " "$tmp/b" &&
		pass "print --source=proc: the newer types' sections" ||
		fail "print --source=proc: the newer types' sections" "$tmp/b"
	# get -o of /proc file $1, then report: the rows of types $3, by name
	get_roundtrip() {
		LOCKSTAT_PROC="$fx/$1" rc "get -o of $2" 0 get --source=proc -o "$tmp/got.snap"
		"$LOCKSTAT" report --csv "$fx/$1" >"$tmp/a"
		"$LOCKSTAT" report --csv "$tmp/got.snap" >"$tmp/b" 2>&1
		for t in $3; do
			grep -q "^$t " "$tmp/got.snap" || echo "no $t row saved" >>"$tmp/b"
		done
		ok "get -o, then report: $2's rows, by name" diff -u "$tmp/a" "$tmp/b"
	}
	get_roundtrip proc-types.txt "the newer types" "$new_types"
	get_roundtrip proc-rt.txt "a PREEMPT_RT kernel's types" "$rt_types"
	# the evidence keys of the /proc header: stacks_full a loss, captures a count
	sed 's/^evicted: 0$/evicted: 0\nstacks_full: 2\ncaptures: 40/' "$fx/proc.txt" >"$tmp/proc-ev.txt"
	LOCKSTAT_PROC="$tmp/proc-ev.txt" rc "print with stacks_full from /proc" 0 print
	grep -q "^WARNING: 2 call chains were not kept" "$tmp/stdout" &&
		pass "print: stacks_full from the /proc header in the banner" ||
		fail "print: stacks_full from the /proc header in the banner" "$tmp/stdout"
	LOCKSTAT_PROC="$tmp/proc-ev.txt" rc "status with captures from /proc" 0 status
	grep -q "^evidence: 40 captures" "$tmp/stdout" && grep -q "^stacks_full: 2$" "$tmp/stdout" &&
		pass "status: captures and stacks_full from the /proc header" ||
		fail "status: captures and stacks_full from the /proc header" "$tmp/stdout"
	# the memory line: an older kernel's figures, then a newer one's with
	# mem_cpus, mem_rows and mem_cap, then after a release (none allocated)
	LOCKSTAT_PROC="$fx/proc-keys.txt" rc "status: memory of an older kernel" 0 status
	grep -qx 'memory: 256 KiB per CPU + 1024 KiB key directory, 2048 KiB allocated' "$tmp/stdout" &&
		pass "status: an older kernel's memory line, as it was" ||
		fail "status: an older kernel's memory line, as it was" "$tmp/stdout"
	sed 's/^mem_keys: 1048576$/mem_keys: 1048576\nmem_cpus: 4\nmem_rows: 524288\nmem_cap: 419430400/' \
		"$fx/proc-keys.txt" >"$tmp/proc-mem.txt"
	LOCKSTAT_PROC="$tmp/proc-mem.txt" rc "status: memory with cpus, rows and cap" 0 status
	grep -qx 'memory: 256 KiB per CPU on 4 CPUs + 1024 KiB key directory, rows 512 KiB, 2048 KiB allocated of at most 409600 KiB' \
		"$tmp/stdout" && pass "status: the memory line with mem_cpus, mem_rows, mem_cap" ||
		fail "status: the memory line with mem_cpus, mem_rows, mem_cap" "$tmp/stdout"
	LOCKSTAT_PROC="$tmp/proc-mem.txt" rc "status --json: memory with cpus, rows and cap" 0 status --json
	ok "status --json: mem_cpus, mem_rows, mem_cap" "$PYTHON" -c '
import json, sys
h = json.load(open(sys.argv[1]))
assert (h["mem_cpus"], h["mem_rows"], h["mem_cap"]) == (4, 524288, 419430400), h
' "$tmp/stdout"
	sed -e 's/^mem_tables: .*/mem_tables: 0/' -e 's/^mem_cpus: .*/mem_cpus: 0/' -e 's/^mem_rows: .*/mem_rows: 0/' \
		-e 's/^state: on$/state: off/' -e 's/^metered_ns: .*/metered_ns: 0/' -e 's/^rows: .*/rows: 0/' \
		-e 's/^keys_used: .*/keys_used: 0/' -e '/^$/q' "$tmp/proc-mem.txt" >"$tmp/proc-released.txt"
	LOCKSTAT_PROC="$tmp/proc-released.txt" rc "status: after a release" 0 status
	grep -qx 'memory: 256 KiB per CPU + 1024 KiB key directory, 0 KiB allocated of at most 409600 KiB (none before the first on, or after a release)' \
		"$tmp/stdout" && pass "status: after a release, none allocated" ||
		fail "status: after a release, none allocated" "$tmp/stdout"
	# the kernel's newer loss counters reach the banner
	sed 's/^evicted: 0$/evicted: 0\nirqctx: 3\ntruncated: 2/' "$fx/proc.txt" >"$tmp/proc-loss.txt"
	LOCKSTAT_PROC="$tmp/proc-loss.txt" rc "print with irqctx and truncated" 0 print
	grep -q "^note: 3 sleeping-lock operations were in interrupt context" "$tmp/stdout" &&
		grep -q "^WARNING: 2 rows were left out of this snapshot" "$tmp/stdout" &&
		pass "print: irqctx and truncated in the banner" ||
		fail "print: irqctx and truncated in the banner" "$tmp/stdout"

	# what -o names is replaced only when it is a regular file
	out=$tmp/out
	mkdir "$out"
	rc "get -o a new file" 0 get -o "$out/new.snap"
	[ "$(stat -c %a "$out/new.snap")" = 600 ] && pass "get: a new snapshot is mode 0600" ||
		fail "get: a new snapshot is mode 0600" "$tmp/stderr"
	echo old >"$out/old.snap"
	chmod 0640 "$out/old.snap"
	[ "$(id -u)" -eq 0 ] && chown 65534:65534 "$out/old.snap"
	stat -c '%a %u %g' "$out/old.snap" >"$tmp/before"
	rc "get -o an existing file" 0 get -o "$out/old.snap"
	stat -c '%a %u %g' "$out/old.snap" >"$tmp/after"
	head -n 1 "$out/old.snap" | grep -qx "lockstat snapshot version 2" &&
		diff "$tmp/before" "$tmp/after" >"$tmp/diff" && pass "get: an existing file keeps its mode and owner" ||
		fail "get: an existing file keeps its mode and owner" "$tmp/diff"
	echo target >"$out/target"
	ln -s target "$out/link"
	rc "get -o a symbolic link: refused" 1 get -o "$out/link"
	[ -L "$out/link" ] && [ "$(cat "$out/target")" = target ] && grep -q "symbolic link" "$tmp/stderr" &&
		pass "get: a symbolic link and its target are left alone" ||
		fail "get: a symbolic link and its target are left alone" "$tmp/stderr"
	rc "get -o a directory: refused" 1 get -o "$out"
	mkfifo "$out/fifo"
	timeout 20 cat "$out/fifo" >"$tmp/fifo.out" &
	reader=$!
	rc "get -o a FIFO" 0 get -o "$out/fifo"
	wait $reader
	[ -p "$out/fifo" ] && head -n 1 "$tmp/fifo.out" | grep -qx "lockstat snapshot version 2" &&
		pass "get: a FIFO stays a FIFO, its reader gets the snapshot" ||
		fail "get: a FIFO stays a FIFO, its reader gets the snapshot" "$tmp/fifo.out"
	if mknod "$out/null" c 1 3 2>/dev/null && mknod "$out/blk" b 7 0 2>/dev/null; then
		rc "get -o a character device" 0 get -o "$out/null"
		[ -c "$out/null" ] && pass "get: a character device stays a device" ||
			fail "get: a character device stays a device"
		rc "get -o a block device: refused" 1 get -o "$out/blk"
		[ -b "$out/blk" ] && pass "get: a block device is left alone" ||
			fail "get: a block device is left alone"
	else
		echo "ok - get -o a device node # SKIP mknod not permitted" >>"$results"
	fi
	ls "$out" | grep -q '\.tmp\.' && fail "get: no temporary file left in the target's directory" ||
		pass "get: no temporary file left in the target's directory"

	# control words go to procfs only: a stand-in file is refused, left as it was
	cp "$fx/proc.txt" "$tmp/ctl"
	export LOCKSTAT_PROC="$tmp/ctl"
	for word in on off reset release; do
		rc "$word to a file that is not in /proc: refused" 1 $word
		cmp -s "$fx/proc.txt" "$tmp/ctl" && grep -q "not a file of /proc: '$word' is written to /proc/lockmeter only" \
			"$tmp/stderr" && pass "$word to a regular file: said why, the file unchanged" ||
			fail "$word to a regular file: said why, the file unchanged" "$tmp/stderr"
	done
	rc "reset --source=proc to a regular file: refused" 1 reset --source=proc
	rc "release --source=proc to a regular file: refused" 1 release --source=proc
	rm -f "$tmp/ran"
	"$LOCKSTAT" record -- sh -c "touch '$tmp/ran'; exit 3" >/dev/null 2>"$tmp/stderr"
	[ $? -eq 1 ] && [ ! -e "$tmp/ran" ] && cmp -s "$fx/proc.txt" "$tmp/ctl" &&
		pass "record to a regular file: exit 1 before CMD runs, the file unchanged" ||
		fail "record to a regular file: exit 1 before CMD runs, the file unchanged" "$tmp/stderr"
	mkfifo "$tmp/ctl.fifo"
	LOCKSTAT_PROC="$tmp/ctl.fifo" timeout 10 "$LOCKSTAT" on 2>"$tmp/stderr"
	[ $? -eq 1 ] && pass "on to a FIFO without a reader: refused (exit 1), not waited for" ||
		fail "on to a FIFO without a reader: refused (exit 1), not waited for" "$tmp/stderr"
	# a live sample that fails ends top -b with its error, not as a replay's end
	printf 'lockmeter version 1\nstate: on\n' >"$tmp/short.txt"
	LOCKSTAT_PROC="$tmp/short.txt" rc "top -b, a /proc text that does not parse" 1 top -b -n 1 --source proc
	# record -o: a file that cannot be written is refused before CMD runs
	rm -f "$tmp/ran"
	rc "record -o into a missing directory" 1 record -o "$tmp/no/such/dir.snap" -- touch "$tmp/ran"
	[ ! -e "$tmp/ran" ] && grep -q "no/such/dir.snap" "$tmp/stderr" &&
		pass "record -o into a missing directory: said so, CMD not run" ||
		fail "record -o into a missing directory: said so, CMD not run" "$tmp/stderr"
	rc "record -o ''" 2 record -o '' -- touch "$tmp/ran"
	[ ! -e "$tmp/ran" ] && pass "record -o '': refused, CMD not run" ||
		fail "record -o '': refused, CMD not run" "$tmp/stderr"
	rc "record -o a symbolic link" 1 record -o "$out/link" -- touch "$tmp/ran"
	[ ! -e "$tmp/ran" ] && [ -L "$out/link" ] &&
		pass "record -o a symbolic link: refused, CMD not run" ||
		fail "record -o a symbolic link: refused, CMD not run" "$tmp/stderr"
	ls "$tmp/no" "$out" 2>/dev/null | grep -q '\.tmp\.' && fail "record: no temporary file left behind" ||
		pass "record: no temporary file left behind"
	# permission: a root-only file, read and written by someone else
	chmod 0600 "$tmp/ctl"
	cp "$fx/proc.txt" "$tmp/proc.txt"
	chmod 0600 "$tmp/proc.txt"
	if [ "$(id -u)" -ne 0 ]; then
		chmod 0400 "$tmp/ctl"
		rc "on without permission" 3 on
		rc "release without permission" 3 release
		chmod 0000 "$tmp/proc.txt"
		LOCKSTAT_PROC="$tmp/proc.txt" rc "print without permission" 3 print
	elif command -v setpriv >/dev/null && chmod 0755 "$tmp" &&
	     setpriv --reuid=65534 --regid=65534 --clear-groups "$LOCKSTAT" -V >/dev/null 2>&1; then
		nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
		# shellcheck disable=SC2086
		$nobody "$LOCKSTAT" on >/dev/null 2>"$tmp/stderr"
		[ $? -eq 3 ] && pass "on as nobody: exit 3" || fail "on as nobody: exit 3" "$tmp/stderr"
		# shellcheck disable=SC2086
		$nobody "$LOCKSTAT" release >/dev/null 2>"$tmp/stderr"
		[ $? -eq 3 ] && grep -q "needs root (CAP_SYS_ADMIN)" "$tmp/stderr" &&
			pass "release as nobody: exit 3, needs root" ||
			fail "release as nobody: exit 3, needs root" "$tmp/stderr"
		# shellcheck disable=SC2086
		LOCKSTAT_PROC="$tmp/proc.txt" $nobody "$LOCKSTAT" print >/dev/null 2>"$tmp/stderr"
		[ $? -eq 3 ] && grep -q "needs root" "$tmp/stderr" && pass "print as nobody: exit 3, needs root" ||
			fail "print as nobody: exit 3, needs root" "$tmp/stderr"
	else
		echo "ok - permission denied # SKIP root without setpriv" >>"$results"
	fi
	unset LOCKSTAT_PROC
fi

# ---- diff: kernel A against kernel B ----
# diff-a.snap and diff-b.snap: one workload on two builds.  Offsets differ
# (rtnl_lock+0x15 vs +0x19, init_task+0x668 vs +0x6a8); rtnl_mutex
# regresses (hold max 88us -> 880us), init_task a little (+6.7%), runqueues
# and pipe_write improve; B has two pipe_write sites (merged), a new
# tasklist_lock read site; A's tasklist_lock write site is gone.  A meters
# 2 s on 2 CPUs, B 0.5 s on 4.
da=$fx/diff-a.snap db=$fx/diff-b.snap
golden "diff: the table" diff.txt diff "$da" "$db"
golden "diff --json" diff.json diff --json "$da" "$db"
golden "diff --csv" diff.csv diff --csv "$da" "$db"
golden "diff --exact --csv" diff-exact.csv diff --exact --csv "$da" "$db"
# the overflow row of a type, named after a different longest hold on each side
ovf_row() {	# ovf_row SNAP OUT NAME SITE
	n=$(sed -n 's/^rows: //p' "$1")
	sed "s/^rows: .*/rows: $((n + 1))/" "$1" >"$2"
	echo "spin 12 10 2 0 0 19230 402 6602 3010 1004 2006 0 0 0 0 1 $3 $4" >>"$2"
}
ovf_row "$da" "$tmp/ovf-a.snap" '*overflow*(worst:jiffies_lock)' 'tick_do_update_jiffies64+0x4a/0x110'
ovf_row "$db" "$tmp/ovf-b.snap" '*overflow*(worst:[heap])' 'd_alloc+0x4c/0x1f0'
for x in "" --exact; do
	"$LOCKSTAT" diff --json $x "$tmp/ovf-a.snap" "$tmp/ovf-b.snap" >"$tmp/ovf.json" 2>&1
	ok "diff $x: the overflow rows of a type match, whatever names them" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
o = [(r["status"], r["lock"], r["site"]) for r in d["rows"] if r["lock"].startswith("*overflow*")]
assert o == [("matched", "*overflow*", "*overflow*")], o
' "$tmp/ovf.json"
done
"$LOCKSTAT" diff --json "$da" "$db" >"$tmp/d.json" 2>&1
ok "diff --json: valid JSON" json_ok "$tmp/d.json"
ok "diff --json: matched by function, merged, normalised by metered time" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = {(r["type"], r["lock"], r["site"]): r for r in d["rows"]}
st = [(r["status"], r["type"], r["lock"], r["site"]) for r in d["rows"]]
assert d["match"] == "function"
assert [s[0] for s in st] == ["matched"] * 5 + ["new", "gone"], st
assert st[0][1:] == ("mutex", "rtnl_mutex", "rtnl_lock"), st[0]
assert st[5][1:] == ("read", "tasklist_lock", "do_wait"), st[5]
assert st[6][1:] == ("write", "tasklist_lock", "copy_process"), st[6]
r = rows[("mutex", "rtnl_mutex", "rtnl_lock")]
# 400 acquisitions in 2 s and in 0.5 s of metered time
assert r["a"]["acq_per_s"] == 200.0 and r["b"]["acq_per_s"] == 800.0, r
assert r["change_pct"]["acq_per_s"] == 300.0
assert r["a"]["hold_max_ns"] == 88000 and r["b"]["hold_max_ns"] == 880000
assert r["regress_pct"] == 900.0 and r["change_pct"]["hold_mean_ns"] == 400.0
# UTIL: 40 ms of holds in 0.5 s
assert r["b"]["util_pct"] == 8.0 and r["change_pct"]["util_pct"] == 1900.0
assert r["a"]["con_pct"] == 1.0 and r["b"]["con_pct"] == 2.5
# two pipe_write sites of B merged: 3000 acquisitions, 12 ms of holds
p = rows[("mutex", "[heap]", "pipe_write")]
assert p["b"]["acquired"] == 3000 and p["b"]["hold_total_ns"] == 12000000, p["b"]
assert p["b"]["acq_per_s"] == 6000.0 and p["b"]["hold_mean_ns"] == 4000.0
assert p["b"]["hold_max_ns"] == 1000000 and p["regress_pct"] < 0
i = rows[("spin", "init_task", "copy_process")]
assert i["regress_pct"] == 6.667 and i["change_pct"]["con_pct"] is None, i
n = rows[("read", "tasklist_lock", "do_wait")]
assert n["a"] is None and n["change_pct"] is None and n["regress_pct"] is None
g = rows[("write", "tasklist_lock", "copy_process")]
assert g["b"] is None and g["a"]["acq_per_s"] == 110.5
' "$tmp/d.json"
"$LOCKSTAT" diff --exact --csv "$da" "$db" >"$tmp/dx.csv" 2>&1
ok "diff --exact: the shifted rows are new and gone, the unshifted one matched" sh -c "
	test \$(grep -c '^new,' '$tmp/dx.csv') = 6 && test \$(grep -c '^gone,' '$tmp/dx.csv') = 5 &&
	grep -q '^matched,rwsem_read,\[heap\],lookup_slow+0x2a/0x50,' '$tmp/dx.csv' &&
	test \$(grep -c '^matched,' '$tmp/dx.csv') = 1"
rc "diff without --fail-over" 0 diff "$da" "$db"
rc "diff --fail-over 5: rtnl_mutex and init_task over" 9 diff --fail-over 5 "$da" "$db"
rc "diff --fail-over 1000: none over" 0 diff --fail-over 1000 "$da" "$db"
rc "diff --fail-over 7: only rtnl_mutex (+900%) over" 9 diff --fail-over 7 --min-hold 1us \
	"$da" "$db"
rc "diff --fail-over 5 --min-hold 1ms: all under the floor" 0 diff --fail-over 5 \
	--min-hold 1ms "$da" "$db"
rc "diff --fail-over 500 --min-hold 880us: the floor is inclusive" 9 diff --fail-over 500 \
	--min-hold 880us "$da" "$db"
rc "diff --fail-over 500 --min-hold 881us" 0 diff --fail-over 500 --min-hold 881us "$da" "$db"
rc "diff --fail-over 10 --exact: no match, no regression" 0 diff --fail-over 10 --exact \
	"$da" "$db"
"$LOCKSTAT" diff --fail-over 5 "$da" "$db" >"$tmp/gate.out" 2>"$tmp/gate.err"
ok "diff --fail-over: the regressed rows marked, the count on stderr" sh -c "
	test \$(grep -c '^ *+[0-9.]*%! A ' '$tmp/gate.out') = 2 &&
	grep -q 'diff: 2 matched rows regressed by more than 5% (--fail-over)' '$tmp/gate.err'"
# a regression has its own status, 9; an error is never 9
"$LOCKSTAT" diff --fail-over 5000 "$da" "$db" >/dev/full 2>"$tmp/stderr"
[ $? -eq 1 ] && [ "$(grep -c 'write error' "$tmp/stderr")" -eq 1 ] &&
	pass "diff --fail-over, no regression, to a full disk: exit 1, the write error said once" ||
	fail "diff --fail-over, no regression, to a full disk: exit 1, the write error said once" "$tmp/stderr"
"$LOCKSTAT" diff --fail-over 5 "$da" "$db" >/dev/full 2>"$tmp/stderr"
[ $? -eq 1 ] && [ "$(grep -c 'write error' "$tmp/stderr")" -eq 1 ] &&
	pass "diff --fail-over, a regression, to a full disk: exit 1 (broken), not 9; said once" ||
	fail "diff --fail-over, a regression, to a full disk: exit 1 (broken), not 9; said once" "$tmp/stderr"
"$LOCKSTAT" report "$fx/demo.snap" >/dev/full 2>"$tmp/stderr"
[ "$(grep -c 'write error' "$tmp/stderr")" -eq 1 ] && pass "report to a full disk: the write error said once" ||
	fail "report to a full disk: the write error said once" "$tmp/stderr"
rc "diff --fail-over 5 --fail-over-wait 1000: 9 for the holds" 9 diff --fail-over 5 --fail-over-wait 1000 \
	"$da" "$db"
# waits: rtnl_mutex's wait max went 10us -> 40us (+300%), its mean +100%
rc "diff --fail-over-wait 100: rtnl_mutex's wait max over" 9 diff --fail-over-wait 100 "$da" "$db"
ok "diff --fail-over-wait: the count on stderr" grep -q \
	'diff: 1 matched row waited more than 100% longer (--fail-over-wait)' "$tmp/stderr"
rc "diff --fail-over-wait 300: +300% is not over 300%" 0 diff --fail-over-wait 300 "$da" "$db"
rc "diff --fail-over-wait 299 --min-wait 40us: the floor is inclusive" 9 diff --fail-over-wait 299 \
	--min-wait 40us "$da" "$db"
rc "diff --fail-over-wait 299 --min-wait 41us" 0 diff --fail-over-wait 299 --min-wait 41us "$da" "$db"
rc "diff --fail-over-wait 1000 --fail-over 1000: nothing over" 0 diff --fail-over-wait 1000 \
	--fail-over 1000 "$da" "$db"
"$LOCKSTAT" diff --min-wait 1us "$da" "$db" >/dev/null 2>"$tmp/stderr"
[ $? -eq 2 ] && grep -q -- "--min-wait is the floor of --fail-over-wait, which is missing" "$tmp/stderr" &&
	pass "diff --min-wait without --fail-over-wait: exit 2, says so" ||
	fail "diff --min-wait without --fail-over-wait: exit 2, says so" "$tmp/stderr"
"$LOCKSTAT" diff --fail-over-wait x "$da" "$db" >/dev/null 2>"$tmp/stderr"
[ $? -eq 2 ] && grep -q "diff: --fail-over-wait: 'x' is not a percentage" "$tmp/stderr" &&
	pass "diff --fail-over-wait x: exit 2, the message names the option" ||
	fail "diff --fail-over-wait x: exit 2, the message names the option" "$tmp/stderr"
# new rows: B's tasklist_lock read site at do_wait, hold max 38212 ns
rc "diff --fail-on-new: a new row" 9 diff --fail-on-new "$da" "$db"
ok "diff --fail-on-new: the count on stderr" grep -q 'diff: 1 new row (--fail-on-new)' "$tmp/stderr"
rc "diff --fail-on-new --min-hold 38212ns: the floor is inclusive" 9 diff --fail-on-new \
	--min-hold 38212ns "$da" "$db"
rc "diff --fail-on-new --min-hold 39us: under the floor" 0 diff --fail-on-new --min-hold 39us "$da" "$db"
rc "diff --fail-on-new --exact: shifted offsets are new rows too" 9 diff --fail-on-new --exact "$da" "$db"
"$LOCKSTAT" diff --fail-on-new "$da" "$db" >"$tmp/new.txt" 2>/dev/null
ok "diff --fail-on-new: the new row marked, the gate in the legend" sh -c "
	grep -q '^    new! B ' '$tmp/new.txt' &&
	grep -q '^!: new (--fail-on-new) with a hold max of at least 0ns' '$tmp/new.txt'"
"$LOCKSTAT" diff --json --fail-on-new --fail-over-wait 100 "$da" "$db" >"$tmp/new.json" 2>/dev/null
ok "diff --json: over is true for a new row and a wait past the gate" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
over = sorted((r["status"], r["lock"]) for r in d["rows"] if r["over"])
assert over == [("matched", "rtnl_mutex"), ("new", "tasklist_lock")], over
' "$tmp/new.json"
rc "diff: one file" 2 diff "$da"
rc "diff: three files" 2 diff "$da" "$db" "$db"
rc "diff: unknown option" 2 diff --bogus "$da" "$db"
rc "diff --fail-over x" 2 diff --fail-over x "$da" "$db"
rc "diff --fail-over -5" 2 diff --fail-over -5 "$da" "$db"
rc "diff --min-hold 10m" 2 diff --fail-over 5 --min-hold 10m "$da" "$db"
rc "diff --min-hold without --fail-over" 2 diff --min-hold 10us "$da" "$db"
rc "diff --min-hold 0 without --fail-over" 2 diff --min-hold 0 "$da" "$db"
rc "diff --json --csv" 2 diff --json --csv "$da" "$db"
rc "diff: a missing B" 6 diff "$da" "$tmp/no-such.snap"
rc "diff: a corrupt A" 7 diff "$fx/bad-fields.snap" "$db"
ok "diff: the corrupt file named with its line" grep -q 'bad-fields.snap:27: corrupt snapshot' \
	"$tmp/stderr"
rc "diff -h" 0 diff -h

# ---- diff --type and --top ----
# --type: the rows of its types only, left out of both sides before the
# match: the counts, the table, JSON, CSV and the gates are of those.
# diff-a/diff-b: spin runqueues (-25%) and init_task (+6.7%), mutex
# rtnl_mutex (+900%) and pipe_write, rwsem_read lookup_slow; new read
# tasklist_lock, gone write tasklist_lock.
golden "diff --type mutex,read,write --top 1" diff-type-top.txt diff --type mutex,read,write \
	--top 1 "$da" "$db"
# the types of a diff table's rows (their A and B lines), sorted, once each
dtypes() {
	sed -n 's/^.\{8\} [AB] .*  \([a-z_]*\) [^ ]* [^ ]*$/\1/p' "$1" | sort -u | tr '\n' ' '
}
"$LOCKSTAT" diff --width 0 "$da" "$db" >"$tmp/dt-all.txt" 2>&1
"$LOCKSTAT" diff --width 0 --type spin "$da" "$db" >"$tmp/dt.txt" 2>&1
ok "diff --type spin: its two matched rows only, and the counts of those" sh -c "
	test '$(dtypes "$tmp/dt-all.txt")' = 'mutex read rwsem_read spin write ' &&
	test '$(dtypes "$tmp/dt.txt")' = 'spin ' &&
	test \$(grep -c '^.\{8\} A .*  spin ' '$tmp/dt.txt') = 2 &&
	grep -qx 'Matched by function (offsets, .isra.0 ignored): 2 matched, 0 new, 0 gone' '$tmp/dt.txt' &&
	grep -qx 'Only the types (--type): spin' '$tmp/dt.txt' && ! grep -q '^Showing' '$tmp/dt.txt'"
"$LOCKSTAT" diff --json "$da" "$db" >"$tmp/dt-all.json" 2>&1
"$LOCKSTAT" diff --json --type read,mutex "$da" "$db" >"$tmp/dt.json" 2>&1
ok "diff --json --type read,mutex: the rows of those types, in the same order, and the types" \
	"$PYTHON" -c '
import json, sys
a, t = (json.load(open(f)) for f in sys.argv[1:3])
assert "types" not in a and "top" not in a and "counts" not in a, a.keys()
assert t["types"] == ["read", "mutex"], t["types"]
assert "top" not in t and "counts" not in t, t.keys()
want = [r for r in a["rows"] if r["type"] in ("read", "mutex")]
assert len(want) == 3 and t["rows"] == want, [(r["type"], r["lock"]) for r in t["rows"]]
' "$tmp/dt-all.json" "$tmp/dt.json"
"$LOCKSTAT" diff --csv "$da" "$db" >"$tmp/dt-all.csv" 2>&1
"$LOCKSTAT" diff --csv --type write --type rwsem_read "$da" "$db" >"$tmp/dt.csv" 2>&1
awk -F, 'NR == 1 || $2 == "write" || $2 == "rwsem_read"' "$tmp/dt-all.csv" >"$tmp/dt-want.csv"
ok "diff --csv --type write --type rwsem_read: the header and those rows only" sh -c "
	test \$(wc -l <'$tmp/dt.csv') = 3 && diff -u '$tmp/dt-want.csv' '$tmp/dt.csv'"
"$LOCKSTAT" diff --json -Y read -Y mutex "$da" "$db" >"$tmp/dt-y.json" 2>&1
"$LOCKSTAT" diff --json --type-filter mutex,read "$da" "$db" >"$tmp/dt-tf.json" 2>&1
ok "diff -Y, --type-filter: --type as perf lock names it" sh -c "
	diff -u '$tmp/dt.json' '$tmp/dt-y.json' && diff -u '$tmp/dt.json' '$tmp/dt-tf.json'"
"$LOCKSTAT" diff --type rt_mutex "$da" "$db" >"$tmp/dt-none.txt" 2>&1
ok "diff --type rt_mutex, a type neither has: no rows of those types, exit 0" sh -c "
	grep -q ': 0 matched, 0 new, 0 gone\$' '$tmp/dt-none.txt' &&
	grep -qx 'No rows of those types in either snapshot.' '$tmp/dt-none.txt'"
# the gates judge the rows of --type only (without it: exit 9 for each)
rc "diff --type rwsem_read,read,write --fail-over 5: the regressed mutex and spin left out" 0 \
	diff --type rwsem_read,read,write --fail-over 5 "$da" "$db"
rc "diff --type spin --fail-over 5: init_task's +6.7% kept" 9 diff --type spin --fail-over 5 "$da" "$db"
ok "diff --type spin --fail-over 5: the count on stderr is of spin's rows" grep -qx \
	'lockstat: diff: 1 matched row regressed by more than 5% (--fail-over)' "$tmp/stderr"
rc "diff --type spin --fail-over-wait 100: rtnl_mutex's wait left out" 0 diff --type spin \
	--fail-over-wait 100 "$da" "$db"
rc "diff --type mutex --fail-over-wait 100: rtnl_mutex's wait kept" 9 diff --type mutex \
	--fail-over-wait 100 "$da" "$db"
rc "diff --type spin,mutex --fail-on-new: the new read row left out" 0 diff --type spin,mutex \
	--fail-on-new "$da" "$db"
rc "diff -Y read --fail-on-new: the new read row kept" 9 diff -Y read --fail-on-new "$da" "$db"
# --top N: the first N of each status in the output, the counts and the
# gates of every row.  Two more new rows in B (jiffies_lock longest, 50us;
# cgroup_mutex shortest) and two more gone in A (kmap_lock longest, 100us;
# the rwsem_write shortest): 5 matched, 3 new, 3 gone.
add_rows() {	# add_rows SNAP OUT ROW...: SNAP with the rows added
	src=$1 out=$2
	shift 2
	n=$(sed -n 's/^rows: //p' "$src")
	sed "s/^rows: .*/rows: $((n + $#))/" "$src" >"$out"
	printf '%s\n' "$@" >>"$out"
}
add_rows "$da" "$tmp/top-a.snap" \
	'spin 20 20 0 0 0 200000 1000 100000 0 0 0 0 0 0 0 1 kmap_lock kmap_high+0x20/0x100' \
	'rwsem_write 5 5 0 0 0 10000 1000 3000 0 0 0 10000 3000 0 0 1 [heap] unlink_anon_vmas+0x30/0x200'
add_rows "$db" "$tmp/top-b.snap" \
	'spin 100 100 0 0 0 100000 500 50000 0 0 0 0 0 0 0 1 jiffies_lock tick_do_update_jiffies64+0x4a/0x110' \
	'mutex 50 50 0 0 0 50000 500 2000 0 0 0 50000 2000 0 0 1 cgroup_mutex cgroup_kn_lock_live+0x10/0x80'
ta=$tmp/top-a.snap tb=$tmp/top-b.snap
"$LOCKSTAT" diff --json "$ta" "$tb" >"$tmp/top-all.json" 2>&1
"$LOCKSTAT" diff --json --top 2 "$ta" "$tb" >"$tmp/top2.json" 2>&1
"$LOCKSTAT" diff --json --top 100 "$ta" "$tb" >"$tmp/top100.json" 2>&1
ok "diff --json --top 2: the first 2 matched, new and gone, in order; the counts of all" "$PYTHON" -c '
import json, sys
a, t, big = (json.load(open(f)) for f in sys.argv[1:4])
st = [r["status"] for r in a["rows"]]
assert st == ["matched"] * 5 + ["new"] * 3 + ["gone"] * 3, st
want = [r for s in ("matched", "new", "gone") for r in [r for r in a["rows"] if r["status"] == s][:2]]
assert t["rows"] == want, [(r["status"], r["lock"]) for r in t["rows"]]
assert [r["lock"] for r in t["rows"][2:]] == ["jiffies_lock", "tasklist_lock", "kmap_lock",
	"tasklist_lock"], t["rows"][2:]
assert t["top"] == 2 and t["counts"] == {"matched": 5, "new": 3, "gone": 3}, t["counts"]
assert big["rows"] == a["rows"] and big["counts"] == {"matched": 5, "new": 3, "gone": 3}
' "$tmp/top-all.json" "$tmp/top2.json" "$tmp/top100.json"
"$LOCKSTAT" diff --width 0 "$ta" "$tb" >"$tmp/top-all.txt" 2>&1
"$LOCKSTAT" diff --width 0 --top 2 "$ta" "$tb" >"$tmp/top2.txt" 2>&1
# a table's rows, a line each: REGRESS (or new, gone), type, lock, site
trows() {
	sed -n 's/^ *\([^ ][^ ]*\)[ !] [AB] .*  \([a-z_]*\) \([^ ]*\) \([^ ]*\)$/\1 \2 \3 \4/p' "$1"
}
trows "$tmp/top-all.txt" | awk '{ s = $1 == "new" || $1 == "gone" ? $1 : "matched" } ++n[s] <= 2' \
	>"$tmp/top2.want"
trows "$tmp/top2.txt" >"$tmp/top2.got"
ok "diff --top 2: the table's first 2 of each, the counts of all, and says so" sh -c "
	test \$(wc -l <'$tmp/top2.got') = 6 && diff -u '$tmp/top2.want' '$tmp/top2.got' &&
	grep -qx 'Matched by function (offsets, .isra.0 ignored): 5 matched, 3 new, 3 gone' '$tmp/top2.txt' &&
	grep -qx 'Showing the first 2 of each (--top): 2 of 5 matched, 2 of 3 new, 2 of 3 gone' '$tmp/top2.txt' &&
	! grep -q '^Showing' '$tmp/top-all.txt'"
"$LOCKSTAT" diff --csv "$ta" "$tb" >"$tmp/top-all.csv" 2>&1
"$LOCKSTAT" diff --csv --top 1 "$ta" "$tb" >"$tmp/top1.csv" 2>&1
awk -F, 'NR == 1 || ++n[$1] <= 1' "$tmp/top-all.csv" >"$tmp/top1-want.csv"
ok "diff --csv --top 1: the header, then the first matched, new and gone row" sh -c "
	test \$(wc -l <'$tmp/top1.csv') = 4 && diff -u '$tmp/top1-want.csv' '$tmp/top1.csv'"
"$LOCKSTAT" diff --json --type spin,read --top 1 "$ta" "$tb" >"$tmp/top-t.json" 2>&1
ok "diff --type spin,read --top 1: the first of each of those types, their counts" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = [(r["status"], r["type"], r["lock"]) for r in d["rows"]]
assert got == [("matched", "spin", "init_task"), ("new", "spin", "jiffies_lock"),
	("gone", "spin", "kmap_lock")], got
assert d["counts"] == {"matched": 2, "new": 2, "gone": 1}, d["counts"]
' "$tmp/top-t.json"
# a gate past a row --top leaves out: runqueues' wait max 6us -> 60us
# (+500%), its row 4th of the matched; rtnl_mutex's, the first, +300%
sed 's/^\(spin \+500 \+495 \+5 \+0 \+0 \+750000 \+400 \+10000 \+\)20000 \+1000 \+6000 /\1100000 1000 60000 /' \
	"$db" >"$tmp/top-w.snap"
"$LOCKSTAT" diff --width 0 --fail-over-wait 400 "$da" "$tmp/top-w.snap" >"$tmp/topw-all.txt" 2>&1
trows "$tmp/topw-all.txt" | sed -n 4p >"$tmp/topw-4th"
ok "diff --fail-over-wait 400: runqueues, the 4th matched row, the only one over" sh -c "
	test \$(grep -c '^.\{7\}! A ' '$tmp/topw-all.txt') = 1 &&
	grep -qx -- '-25% spin percpu:runqueues raw_spin_rq_lock_nested' '$tmp/topw-4th' &&
	grep -q '^   -25%! A .*  spin percpu:runqueues ' '$tmp/topw-all.txt'"
rc "diff --fail-over-wait 400 --top 1: the row over not shown, still exit 9" 9 diff --top 1 \
	--fail-over-wait 400 "$da" "$tmp/top-w.snap"
ok "diff --top 1, a gate past a row not shown: the legend says so, stderr counts it" sh -c "
	! grep -q 'runqueues' '$tmp/stdout' && ! grep -q '^.\{7\}! ' '$tmp/stdout' &&
	grep -qx '!: 1 more row past a gate, not shown (--top 1)' '$tmp/stdout' &&
	grep -qx 'lockstat: diff: 1 matched row waited more than 400% longer (--fail-over-wait)' '$tmp/stderr'"
rc "diff --json --fail-over-wait 400 --top 1: exit 9 too" 9 diff --json --top 1 \
	--fail-over-wait 400 "$da" "$tmp/top-w.snap"
rc "diff --csv --fail-over-wait 400 --top 2: exit 9 too" 9 diff --csv --top 2 \
	--fail-over-wait 400 "$da" "$tmp/top-w.snap"
rc "diff --fail-over-wait 400 --top 1 of the fixtures: nothing over" 0 diff --top 1 \
	--fail-over-wait 400 "$da" "$db"
rc "diff --type mutex --fail-over-wait 400 --top 1: runqueues left out by --type" 0 diff \
	--type mutex --top 1 --fail-over-wait 400 "$da" "$tmp/top-w.snap"
# bad values: exit 2, the message, nothing on stdout
for v in 0 -1 x 1.5 +1 " 1" "" 18446744073709551616; do
	"$LOCKSTAT" diff --top "$v" "$da" "$db" >"$tmp/stdout" 2>"$tmp/stderr"
	[ $? -eq 2 ] && [ ! -s "$tmp/stdout" ] &&
		grep -qxF "lockstat: diff: --top: '$v' is not a positive number (of rows of each status)" \
			"$tmp/stderr" &&
		pass "diff --top '$v': exit 2, says so, nothing on stdout" ||
		fail "diff --top '$v': exit 2, says so, nothing on stdout" "$tmp/stderr"
done
rc "diff --top with no N" 2 diff "$da" "$db" --top
diff_type_err=$(echo "$want_err" | sed 's/^lockstat: --type: /lockstat: diff: --type: /')
for v in "--type bogus" "-Y bogus" "--type-filter bogus" "--type spin --type bogus"; do
	# shellcheck disable=SC2086
	"$LOCKSTAT" diff $v "$da" "$db" >"$tmp/stdout" 2>"$tmp/stderr"
	[ $? -eq 2 ] && [ ! -s "$tmp/stdout" ] && grep -qxF "$diff_type_err" "$tmp/stderr" &&
		pass "diff $v: exit 2, the thirteen types listed, nothing on stdout" ||
		fail "diff $v: exit 2, the thirteen types listed, nothing on stdout" "$tmp/stderr"
done
for v in "spin,,mutex" "spin," "" "Spin"; do
	rc "diff --type '$v'" 2 diff --type "$v" "$da" "$db"
done
rc "diff -Y with no TYPE" 2 diff "$da" "$db" -Y
"$LOCKSTAT" diff -h >"$tmp/h.diff" 2>&1
sed -n '/^  --type TYPE/,/^  -Y/p' "$tmp/h.diff" >"$tmp/h.dtype"
missing=""
for t in $all_types; do
	grep -qw -- "$t" "$tmp/h.dtype" || missing="$missing $t"
done
[ -z "$missing" ] && grep -q '^  --top N ' "$tmp/h.diff" &&
	grep -q '^  -Y, --type-filter TYPE ' "$tmp/h.diff" &&
	awk 'length > 80 { bad = 1 } END { exit bad }' "$tmp/h.diff" &&
	pass "diff -h: --top, --type with the thirteen types, -Y; in 80 columns" ||
	{ echo "missing:$missing" >>"$tmp/h.dtype"; fail "diff -h: --top, --type with the thirteen types, -Y" "$tmp/h.dtype"; }

# ---- diff across kernel lines: 6.1 before, 6.12 after ----
# diff-a-6.1.snap is derived from diff-a.snap: its release, uname -v and
# kernel made 6.1.192, and lookup_slow's site named as a clone,
# lookup_slow.isra.0; nothing else changed.  B is diff-b.snap (6.12.120).
d61=$fx/diff-a-6.1.snap
golden "diff across kernel lines: each side's kernel, a clone is its function" \
	diff-kernels.txt diff "$d61" "$db"
"$LOCKSTAT" diff --json "$d61" "$db" >"$tmp/dk.json" 2>&1
"$LOCKSTAT" diff --csv "$d61" "$db" >"$tmp/dk.csv" 2>&1
"$LOCKSTAT" diff --json "$fx/hist.snap" "$fx/hist-2.snap" >"$tmp/dk-same.json" 2>&1
ok "diff --json, --csv across kernel lines: each side's kernel, and that they differ" "$PYTHON" -c '
import csv, json, sys
d = json.load(open(sys.argv[1]))
assert d["kernels"] == "differ" and d["a"]["kernel"] == "6.1.192", d["kernels"]
assert d["b"]["kernel"] == "6.12.120"
rows = list(csv.DictReader(open(sys.argv[2])))
assert {(r["a_kernel"], r["b_kernel"]) for r in rows} == {("6.1.192", "6.12.120")}, rows[0]
assert [r["status"] for r in rows if r["site"] == "lookup_slow"] == ["matched"], rows
s = json.load(open(sys.argv[3]))
assert s["kernels"] == "same" and s["a"]["kernel"] == s["b"]["kernel"] == "6.12.117"
' "$tmp/dk.json" "$tmp/dk.csv" "$tmp/dk-same.json"
# What is the same function, each case derived from the two files above by
# renaming one name on each side (WHAT: lookup_slow's site, or the lock of
# init_task's spin row at copy_process) and read back as the statuses of
# that row: a compiler's suffix (a clone, a cold part, a static's number)
# is the same name (a static's number only across builds: in one, lock.2
# and lock.5 are two statics), another name or module is not, and a name that is only
# an address (hidden, raw, a per-CPU offset) matches nothing across kernels,
# but in one snapshot against itself, and as it is under --exact.
dk_status() {	# dk_status WHAT CSV: the statuses of that row, sorted
	case $1 in
	site) awk -F, '$2 == "rwsem_read" { print $1 }' "$2" ;;
	lock) awk -F, '$2 == "spin" && $4 == "copy_process" { print $1 }' "$2" ;;
	esac | sort | tr '\n' ' '
}
: >"$tmp/dk.why"
while read -r want what a b; do
	case $what in
	site) oa='lookup_slow\.isra\.0+0x2a/0x50' ob='lookup_slow+0x2a/0x50' ;;
	lock) oa='init_task+0x668' ob='init_task+0x6a8' ;;
	esac
	sed "s# $oa\( \|$\)# $a\1#" "$d61" >"$tmp/dk-a.snap"
	sed "s# $ob\( \|$\)# $b\1#" "$db" >"$tmp/dk-b.snap"
	case $want in
	exact:*) "$LOCKSTAT" diff --exact --csv "$tmp/dk-a.snap" "$tmp/dk-b.snap" ;;
	self:*) "$LOCKSTAT" diff --csv "$tmp/dk-a.snap" "$tmp/dk-a.snap" ;;
	build:*)	# B from the same build as A: A's file with B's name
		sed "s# $oa\( \|$\)# $b\1#" "$d61" >"$tmp/dk-b1.snap"
		"$LOCKSTAT" diff --csv "$tmp/dk-a.snap" "$tmp/dk-b1.snap" ;;
	*) "$LOCKSTAT" diff --csv "$tmp/dk-a.snap" "$tmp/dk-b.snap" ;;
	esac >"$tmp/dk-case.csv" 2>&1
	got=$(dk_status "$what" "$tmp/dk-case.csv")
	case ${want#*:} in
	matched) [ "$got" = "matched " ] ;;
	apart) [ "$got" = "gone new " ] ;;
	esac || echo "$what $a / $b: want ${want#*:}, got '$got'" >>"$tmp/dk.why"
done <<'CASES'
matched site lookup_slow.isra.0+0x2a/0x50 lookup_slow+0x2a/0x50
matched site lookup_slow.constprop.0+0x2a/0x50 lookup_slow.constprop.3+0x31/0x58
matched site lookup_slow.part.0.cold+0x9/0x1c lookup_slow+0x2a/0x50
matched site lookup_slow.constprop.0.isra.0+0x2a/0x50 lookup_slow.isra.0+0x2a/0x50
matched site lookup_slow.isra.0+0x2a/0x50[ext4] lookup_slow+0x2a/0x50[ext4]
matched lock lock.2+0x0 lock.5+0x0
apart site __lookup_slow+0x2a/0x50 lookup_slow+0x2a/0x50
apart site lookup_slow.isra.0+0x2a/0x50[ext4] lookup_slow+0x2a/0x50[xfs]
apart site lookup_slow.v2+0x2a/0x50 lookup_slow+0x2a/0x50
apart site lookup_slow+0x2a/0x50 lookup_slow.isra.0+0x2a/0x50[ext4]
apart site 0000000000000000 0000000000000000
apart site ffffffffc0a1b2c3 ffffffffc0a1b2c3
apart lock percpu:0x2f4c0 percpu:0x2f4c0
apart lock 0000000000000000 0000000000000000
self:matched site 0000000000000000 0000000000000000
self:matched lock percpu:0x2f4c0 percpu:0x2f4c0
exact:matched site ffffffffc0a1b2c3 ffffffffc0a1b2c3
build:matched site lookup_slow.isra.0+0x2a/0x50 lookup_slow+0x2a/0x50
build:apart lock lock.2+0x0 lock.5+0x0
exact:apart site lookup_slow.isra.0+0x2a/0x50 lookup_slow+0x2a/0x50
CASES
[ ! -s "$tmp/dk.why" ] &&
	pass "diff across kernels: a compiler's suffix is the function, another name is not, an address nothing" ||
	fail "diff across kernels: a compiler's suffix is the function, another name is not, an address nothing" \
		"$tmp/dk.why"
# one release, two builds (diff-a.snap with its uname -v changed and a
# site hidden on both sides): said so, and the address matches nothing
sed 's| lookup_slow+0x2a/0x50$| 0000000000000000|' "$da" >"$tmp/db-a.snap"
sed 's/^uname_version: #1 /uname_version: #2 /' "$tmp/db-a.snap" >"$tmp/db-b.snap"
"$LOCKSTAT" diff --width 0 "$tmp/db-a.snap" "$tmp/db-b.snap" >"$tmp/db.txt" 2>&1
"$LOCKSTAT" diff --width 0 "$tmp/db-a.snap" "$tmp/db-a.snap" >"$tmp/db-same.txt" 2>&1
ok "diff: one release, two builds: said so, an address apart; one build: no word, matched" sh -c "
	grep -qx 'Builds differ: both 6.12.117, uname -v not the same' '$tmp/db.txt' &&
	grep -q '^    new  B .* \[heap\] 0000000000000000\$' '$tmp/db.txt' &&
	grep -q '^   gone  A .* \[heap\] 0000000000000000\$' '$tmp/db.txt' &&
	! grep -q 'differ' '$tmp/db-same.txt' &&
	grep -q '^Matched by function (.*): 6 matched, 0 new, 0 gone\$' '$tmp/db-same.txt'"

# ---- histograms and percentiles ----
# hist.snap: a TSC kernel's 28 bounds (not round: 0 85 170 341 ...), the
# test module's 1000 short holds and one of 20 ms in lmt_hist_hold, a
# second site, a lock whose holds are all in the open last bucket, a row
# without histograms; hist-2.snap: 10 s later, 100 holds more in
# [43690, 87381) ns.  The percentiles are checked against hand-worked
# values in test_hist.c; here the views that carry them.
hs=$fx/hist.snap hs2=$fx/hist-2.snap
golden "report --percentiles" hist-pct.txt report --percentiles "$hs"
golden "report --json with histograms" hist.json report --json "$hs"
golden "report --csv with percentiles" hist.csv report --csv --sort p99hold "$hs"
golden "hist: a lock, its sites summed" hist-lock.txt hist lmt_hist_lock "$hs"
COLUMNS=60 golden "hist NAME@SITE, COLUMNS=60" hist-site.txt hist lmt_hist_lock@lmt_hist_hold "$hs"
golden "diff of two snapshots with histograms" hist-diff.txt diff "$hs" "$hs2"
# diff and p99: lmt_hist_hold's 100 holds more move its p99 by +92% and
# its max and mean by 0 and +4.2%; big_lock's p99 is ">=5.7s" on both sides
rc "diff --fail-over 50: a p99 of +92% is a regression" 9 diff --fail-over 50 "$hs" "$hs2"
rc "diff --fail-over 100: +92% is not over 100" 0 diff --fail-over 100 "$hs" "$hs2"
rc "diff --fail-over 50 --min-hold 84us: B's p99 83us under the floor" 0 diff --fail-over 50 \
	--min-hold 84us "$hs" "$hs2"
# A's big_lock in the bucket below the open one: its p99 an estimate
awk '/^spin .* big_lock /{ sub(/13000000000 6000000000 7000000000/, "9000000000 4000000000 5000000000")
	print; getline; sub(/ 0 2$/, " 2 0") } { print }' "$hs" >"$tmp/hs-big.snap"
"$LOCKSTAT" diff --width 0 "$hs" "$hs2" >"$tmp/hd.txt" 2>&1
"$LOCKSTAT" diff --width 0 "$tmp/hs-big.snap" "$hs2" >"$tmp/hd-ge.txt" 2>&1
"$LOCKSTAT" diff --width 0 "$hs2" "$tmp/hs-big.snap" >"$tmp/hd-le.txt" 2>&1
"$LOCKSTAT" diff --json "$hs" "$hs2" >"$tmp/hd.json" 2>&1
"$LOCKSTAT" diff --json "$hs2" "$tmp/hs-big.snap" >"$tmp/hd-le.json" 2>&1
"$LOCKSTAT" diff --csv "$tmp/hs-big.snap" "$hs2" >"$tmp/hd-ge.csv" 2>&1
# the "%" line of big_lock: after UTIL, CON, MEAN and MAX, the hold p99
p99chg() {
	grep -A2 '^ .* A .*big_lock' "$1" | awk '$1 == "%" { print $6 }'
}
ok "diff: lmt_hist_hold's REGRESS is its p99's +92%" grep -q '^   +92%  A .*lmt_hist_hold' "$tmp/hd.txt"
ok "diff: two >=5.7s p99s change by ?, not 0%" test "$(p99chg "$tmp/hd.txt")" = "?"
ok "diff: to a >= p99 the change is >=" test "$(p99chg "$tmp/hd-ge.txt")" = ">=+15%"
ok "diff: from a >= p99 the change is <=, and so is REGRESS" sh -c "
	test \"\$(grep -A2 '^ .* A .*big_lock' '$tmp/hd-le.txt' | awk '\$1 == \"%\" { print \$6 }')\" = '<=-13%' &&
	grep -q '^ <=-13%  A .*big_lock' '$tmp/hd-le.txt'"
ok "diff --json: null between two bounds, a bound's change marked, the regression too" "$PYTHON" -c '
import json, sys
def big(f):
    return [r for r in json.load(open(f))["rows"] if r["lock"] == "big_lock"][0]
r = big(sys.argv[1])
assert r["change_pct"]["hold_p99_ns"] is None and "hold_p99_ns_bound" not in r["change_pct"], r
assert "regress_bound" not in r and r["regress_pct"] == 0, r
r = big(sys.argv[2])
assert r["change_pct"]["hold_p99_ns_bound"] == "le" and r["change_pct"]["hold_p99_ns"] < 0, r
assert r["regress_bound"] == "le" and r["regress_pct"] == r["change_pct"]["hold_p99_ns"], r
' "$tmp/hd.json" "$tmp/hd-le.json"
ok "diff --csv: the bounds in columns of their own, ge, le or empty" "$PYTHON" -c '
import csv, sys
rows = {r["lock"] + " " + r["site"]: r for r in csv.DictReader(open(sys.argv[1]))}
r = rows["big_lock big_hold"]
assert r["change_hold_p99_ns_bound"] == "ge" and float(r["change_hold_p99_ns"]) > 14, r
assert r["regress_bound"] == "" and r["change_wait_p99_ns_bound"] == "", r
' "$tmp/hd-ge.csv"
# CSV: the numeric columns hold numbers only; ">=" is a 0/1 column of its own
"$LOCKSTAT" report --csv "$hs" >"$tmp/h.csv" 2>&1
ok "report --csv: no '>=' in any cell, the p* columns numbers or empty" "$PYTHON" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    for k, v in r.items():
        assert ">=" not in v, (k, v)
        if k.endswith(("_ns", "_pct")):
            assert v == "" or float(v) >= 0, (k, v)
' "$tmp/h.csv"
ok "report --csv: hold_p*_ge 1 where the table says >=, 0 for an estimate, empty for none" "$PYTHON" -c '
import csv, sys
rows = {(r["kind"], r["type"], r["lock"], r["site"]): r for r in csv.DictReader(open(sys.argv[1]))}
big = rows[("lock", "spin", "big_lock", "")]
for p in ("p50", "p90", "p99", "p999"):
    assert big["hold_%s_ge" % p] == "1" and big["hold_%s_ns" % p] == "5726623061", big
    assert big["wait_%s_ge" % p] == "" and big["wait_%s_ns" % p] == "", big
tot = rows[("total", "spin", "*TOTAL*", "")]
assert [tot["hold_%s_ge" % p] for p in ("p50", "p90", "p99", "p999")] == ["0", "0", "0", "1"], tot
assert tot["hold_p99_ns"] == "43301" and tot["hold_p999_ns"] == "5726623061", tot
' "$tmp/h.csv"
# diff --json: a p99 that is only the open last bucket's lower bound says so
"$LOCKSTAT" diff --json "$hs" "$hs2" >"$tmp/hd.json" 2>&1
ok "diff --json: hold_p99_ge true where the table shows >=, absent elsewhere" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
seen = 0
for r in d["rows"]:
    for side in ("a", "b"):
        s = r[side]
        if s is None:
            continue
        want = r["lock"] == "big_lock"
        assert s.get("hold_p99_ge", False) is want, (r["lock"], side, s)
        assert "wait_p99_ge" not in s, (r["lock"], side, s)
        if want:
            assert s["hold_p99_ns"] == 5726623061, s
            seen += 1
assert seen == 2, seen
' "$tmp/hd.json"
"$LOCKSTAT" diff --csv "$hs" "$hs2" >"$tmp/hd.csv" 2>&1
ok "diff --csv: a_hold_p99_ge, b_hold_p99_ge 1 for big_lock only, no '>='" "$PYTHON" -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    assert not any(">=" in v for v in r.values()), r
    want = "1" if r["lock"] == "big_lock" else ("" if r["a_hold_p99_ns"] == "" else "0")
    assert r["a_hold_p99_ge"] == want and r["b_hold_p99_ge"] == want, r
' "$tmp/hd.csv"
"$LOCKSTAT" report --json "$hs" >"$tmp/h.json" 2>&1
ok "report --json with histograms: valid JSON" json_ok "$tmp/h.json"
ok "report --json: bounds, percentiles, counts as worked out by hand" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
b = d["header"]["hist_bounds_ns"]
assert len(b) == 28 and b[:4] == [0, 85, 170, 341] and b[27] == 5726623061, b
spin = [s for s in d["sections"] if s["type"] == "spin"][0]
lk = [l for l in spin["locks"] if l["lock"] == "lmt_hist_lock[test_lockmeter]"][0]
site = [x for x in lk["sites"] if x["site"].startswith("lmt_hist_hold")][0]
# 1001 holds: 600 in [10922, 21845), 400 in [21845, 43690), 1 in [11184810, 22369621)
assert sum(site["hold_hist"]) == site["acquired"] == 1001
assert site["hold_p50_ns"] == 20034 and site["hold_p90_ns"] == 38278, site
assert site["hold_p99_ns"] == 43198 and site["hold_p999_ns"] == 43690, site
assert "wait_p50_ns" not in site and sum(site["wait_hist"]) == 0
assert sum(lk["hold_hist"]) == lk["acquired"] == 1011 and lk["wait_hist"][3] == 2
big = [l for l in spin["locks"] if l["lock"] == "big_lock"][0]
assert big["hold_p50_ns"] == 5726623061 and big["hold_p50_ge"] is True, big
assert "hold_p999_ge" not in site
rd = [s for s in d["sections"] if s["type"] == "read"][0]["locks"][0]
assert "hold_hist" not in rd and "hold_p50_ns" not in rd
' "$tmp/h.json"
"$LOCKSTAT" report --json "$fx/demo.snap" >"$tmp/demo-h.json" 2>&1
ok "report --json without histograms: no histogram fields" sh -c "
	! grep -q 'hist\\|_p50_' '$tmp/demo-h.json'"
"$LOCKSTAT" report --percentiles "$fx/demo.snap" >"$tmp/demo-h.txt" 2>&1
ok "report --percentiles without histograms: says so, the cells are -" sh -c "
	grep -q '^Percentiles: none: no histograms in this snapshot' '$tmp/demo-h.txt' &&
	grep -q '      -       -       -       -  \\*TOTAL\\*$' '$tmp/demo-h.txt'"
"$LOCKSTAT" report --csv "$fx/demo.snap" >"$tmp/demo-h.csv" 2>&1
ok "report --csv without histograms: no percentile columns" sh -c "
	! grep -q '_p50_ns' '$tmp/demo-h.csv'"
"$LOCKSTAT" report --csv --sort p99hold "$hs" >"$tmp/p99.csv" 2>&1
ok "--sort p99hold: the open last bucket first, then sites by p99" sh -c "
	sed -n 3,4p '$tmp/p99.csv' | grep -c big_lock | grep -qx 2 &&
	grep '^site,spin,lmt_hist_lock' '$tmp/p99.csv' | head -n 1 | grep -q lmt_hist_hold"
"$LOCKSTAT" report --csv --sort p99hold -r "$hs" >"$tmp/p99r.csv" 2>&1
ok "--sort p99hold -r: big_lock last of the spin locks" sh -c "
	grep '^lock,spin,' '$tmp/p99r.csv' | tail -n 1 | grep -q big_lock"
for key in p50hold p90hold p99hold p999hold p50wait p90wait p99wait p999wait; do
	rc "--sort $key" 0 report --sort "$key" --percentiles "$hs"
done
rc "--percentiles --json" 0 report --percentiles --json "$hs"
# the column a report sorts by is always shown: its own before NAME where
# no other column has it, at any width; in every section's column line
golden "--sort p99hold without --percentiles: an HP99 column" sort-p99hold.txt \
	report --width 200 --sort p99hold "$hs"
for pair in p99hold:HP99 holder:HOLDER rate:ACQ/s contended:CONTND minwait:WMIN \
	totalhold:HTOTAL p99wait:WP99; do
	for w in 0 200 80; do
		"$LOCKSTAT" report --width $w --sort "${pair%%:*}" "$fx/stacks.snap" >"$tmp/sc" 2>&1
		ok "report --sort ${pair%%:*} --width $w: every column line has ${pair#*:}" \
			awk -v h=" ${pair#*:}  NAME" '/  NAME$/ { n++; if (index($0, h)) k++ }
				END { exit !(n > 0 && n == k) }' "$tmp/sc"
	done
done
"$LOCKSTAT" report --width 60 --sort meanwait "$fx/stacks.snap" >"$tmp/sc" 2>&1
ok "report --sort meanwait --width 60: WAIT MEAN(MAX)(% CPU) kept, no column of its own" \
	awk '/  NAME$/ { n++; if (/ MEAN\(  MAX \)\(% CPU\)  NAME$/) k++ }
		END { exit !(n > 0 && n == k) }' "$tmp/sc"
"$LOCKSTAT" report --width 80 --percentiles "$hs" >"$tmp/pct80" 2>&1
"$LOCKSTAT" report --width 0 --percentiles "$hs" >"$tmp/pct0" 2>&1
ok "report --percentiles at 80 columns: the columns that do not fit are named" sh -c "
	grep -q '^Not shown at this width: HP50, HP90, HP99, HP99.9, WP50, WP90, WP99, WP99.9; 80\$' '$tmp/pct80' &&
	! grep -q '^Not shown' '$tmp/pct0'"
"$LOCKSTAT" top -b --json --by-site --sort p99hold --replay "$hs" "$hs2" >"$tmp/top-h.json" 2>&1
ok "top: the interval's p99 from the histograms' difference, sorted by it" "$PYTHON" -c '
import json, sys
last = [json.loads(l) for l in open(sys.argv[1])][-1]
r = last["rows"]
assert len(r) == 1 and r[0]["site"].startswith("lmt_hist_hold"), r
# 100 holds in [43690, 87381): 43690 + 0.99 * 43691
assert r[0]["hold_p99_ns"] == 86944 and r[0]["hold_hist"][10] == 100, r[0]
assert last["sort"]["key"] == "p99hold"
' "$tmp/top-h.json"
"$LOCKSTAT" top -b --by-site --sort p99hold --replay "$hs" "$hs2" >"$tmp/top-h.txt" 2>&1
ok "top -b: an HP99 column" grep -q '^ *ACQ/s .* %CPU    HP99 HOLDER' "$tmp/top-h.txt"
rc "top --percentiles" 2 top -b --percentiles --replay "$hs"
# what top -h lists, top takes
"$LOCKSTAT" top -h >"$tmp/top-h.txt"
: >"$tmp/refused"
for opt in --csv --folded --stacks --percentiles --json --reverse; do
	grep -q -- "^  *$opt " "$tmp/top-h.txt" || grep -q -- "^  *-., $opt " "$tmp/top-h.txt" || continue
	"$LOCKSTAT" top -b $opt --replay "$hs" >/dev/null 2>>"$tmp/refused" || echo "$opt refused" >>"$tmp/refused"
done
[ ! -s "$tmp/refused" ] && pass "top -h: every view flag it lists, top takes" ||
	fail "top -h: every view flag it lists, top takes" "$tmp/refused"
ok "top -h: no --csv, --folded, --stacks or --percentiles" sh -c "
	! grep -Eq -- '^ +--(csv|folded|stacks|percentiles) ' '$tmp/top-h.txt'"
rc "hist: no NAME" 2 hist
rc "hist: NAME, FILE and one more" 2 hist lmt_hist_lock "$hs" "$hs"
rc "hist: an empty SITE" 2 hist lmt_hist_lock@ "$hs"
rc "hist: an empty NAME" 2 hist @lmt_hist_hold "$hs"
rc "hist: --source with a FILE" 2 hist --source=proc lmt_hist_lock "$hs"
rc "hist: --type bogus" 2 hist --type bogus lmt_hist_lock "$hs"
rc "hist: unknown option" 2 hist --bogus lmt_hist_lock "$hs"
rc "hist -h" 0 hist -h
rc "hist: no such lock" 8 hist no_such_lock "$hs"
ok "hist: no such lock: said so, with the file" grep -q "no lock 'no_such_lock' in .*hist.snap" \
	"$tmp/stderr"
rc "hist: no such site" 8 hist lmt_hist_lock@no_such_func "$hs"
rc "hist: the lock, but not of --type read" 8 hist --type read lmt_hist_lock "$hs"
rc "hist: a lock without histograms" 1 hist tasklist_lock "$hs"
ok "hist: without histograms: no histogram, no numbers" sh -c "
	grep -q '^no histogram: its rows came without histograms' '$tmp/stdout' &&
	! grep -q '%' '$tmp/stdout'"
rc "hist: a snapshot without any" 1 hist rtnl_mutex "$fx/demo.snap"
ok "hist: a snapshot without any says there are none" grep -q \
	'^no histogram: this kernel or snapshot has none' "$tmp/stdout"
rc "hist: the full site name, offsets differ" 0 hist 'rtnl_mutex@rtnl_lock+0x99/0x100' "$hs"
rc "hist: the module named" 0 hist 'lmt_hist_lock[test_lockmeter]@lmt_hist_hold[test_lockmeter]' "$hs"
rc "hist: another module named" 8 hist 'lmt_hist_lock[other]' "$hs"
"$LOCKSTAT" hist lmt_hist_lock "$hs" >"$tmp/hl.txt" 2>&1
ok "hist: exactly 1011 holds counted, the 20 ms one in [11184810, 22369621)" sh -c "
	awk '/^HOLD:/ { h = 1; next } /^WAIT:/ { h = 0 } h && \$1 ~ /^[0-9]+\$/ { n += \$5 }
	     END { exit n != 1011 }' '$tmp/hl.txt' &&
	grep -Eq '^ +11184810 +22369621 .* +1 +0\\.10% +100%  #\$' '$tmp/hl.txt'"
ok "hist: bars at most 80 columns wide without a terminal" sh -c "
	awk 'length(\$0) > 80 { exit 1 }' '$tmp/hl.txt'"
COLUMNS=120 "$LOCKSTAT" hist lmt_hist_lock "$hs" >"$tmp/hw.txt" 2>&1
ok "hist: COLUMNS=120: the largest bar fills the width" sh -c "
	grep -q '#\$' '$tmp/hw.txt' && awk '/#\$/ && length(\$0) == 120 { f = 1 } END { exit !f }' '$tmp/hw.txt'"
rc "bad-hist-sum.snap refused" 7 report "$fx/bad-hist-sum.snap"
ok "bad-hist-sum.snap: named with its line and why" grep -q \
	'bad-hist-sum.snap:26: corrupt snapshot: the hold histogram does not sum to acquired' \
	"$tmp/stderr"
rc "bad-hist-count.snap refused" 7 report "$fx/bad-hist-count.snap"
ok "bad-hist-count.snap: named with its line and why" grep -q \
	'bad-hist-count.snap:27: corrupt snapshot: wait histogram: 27 counts for the 28 buckets of hist_bounds' \
	"$tmp/stderr"
rc "bad-hist-bounds.snap refused" 7 hist lmt_hist_lock "$fx/bad-hist-bounds.snap"
ok "bad-hist-bounds.snap: named with its line and why" grep -q \
	"bad-hist-bounds.snap:22: corrupt snapshot: header key 'hist_bounds': histogram bounds are not strictly increasing" \
	"$tmp/stderr"

# ---- what perf, klockstat and htop users reach for (issue 42) ----
# durations: a bare number is refused everywhere (0 alone excepted); top's -d is seconds, or has its unit
for args in "held --over 5" "watch --over 5" "diff --fail-over 10 --min-hold 5"; do
	set -- $args
	"$LOCKSTAT" "$@" "$fx/diff-a.snap" "$fx/diff-b.snap" >"$tmp/stdout" 2>"$tmp/stderr"
	[ $? -eq 2 ] && grep -q "'5' is not a duration.*a number and its unit" "$tmp/stderr" &&
		pass "$args: a bare number is refused, the unit asked for" ||
		fail "$args: a bare number is refused, the unit asked for" "$tmp/stderr"
done
rc "diff --min-hold 0: 0 needs no unit" 0 diff --fail-over 10 --min-hold 0 "$fx/diff-a.snap" "$fx/diff-a.snap"
"$LOCKSTAT" top -b -n 2 -d 500ms --json --replay "$fx/top-1.snap" "$fx/top-2.snap" >"$tmp/d.json" 2>&1
ok "top -d 500ms: an interval with its unit" grep -q '"frame": 2' "$tmp/d.json"
rc "top -d 10ms: under 0.05 s, refused" 2 top -b -d 10ms --replay "$fx/top-1.snap"
# hist: a file where NAME goes is said, not taken to the kernel; --width; --json
rc "hist FILE without NAME" 2 hist "$fx/hist.snap"
ok "hist FILE without NAME: NAME comes first" grep -q "hist: '.*hist.snap' is a file, and NAME comes first" "$tmp/stderr"
"$LOCKSTAT" hist --width 60 lmt_hist_lock "$fx/hist.snap" >"$tmp/hw60" 2>&1
ok "hist --width 60: within 60 columns" awk 'length > 60 { bad = 1 } END { exit bad || NR < 10 }' "$tmp/hw60"
# under 60 the titles wrap too: every line within the width, nothing lost
for w in 50 40; do
	"$LOCKSTAT" hist --width $w lmt_hist_lock "$fx/hist.snap" >"$tmp/hw$w" 2>&1
	ok "hist --width $w: every line within $w columns, the titles wrapped" sh -c "
		awk 'length > $w { bad = 1 } END { exit bad || NR < 10 }' '$tmp/hw$w' &&
		tr '\\n' ' ' <'$tmp/hw$w' | tr -s ' ' | grep -q 'lmt_hist_lock\[test_lockmeter\] (spin): 2 sites summed 28 buckets, lower bounds in ns as the kernel reports them HOLD:'"
done
"$LOCKSTAT" hist --json lmt_hist_lock "$fx/hist.snap" >"$tmp/h.json" 2>&1
"$LOCKSTAT" report --json --name lmt_hist_lock "$fx/hist.snap" >"$tmp/hr.json" 2>&1
ok "hist --json: the bounds, and the lock's counts and percentiles as report --json has them" "$PYTHON" -c '
import json, sys
h = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
lk = [l for s in r["sections"] for l in s["locks"] if l["lock"] == "lmt_hist_lock[test_lockmeter]"][0]
assert h["lock"] == "lmt_hist_lock" and len(h["hist_bounds_ns"]) == 28, h.keys()
t = h["types"][0]
assert t["type"] == "spin" and t["sites"] == 2, t
for k in ("acquired", "hold_total_ns", "hold_hist", "wait_hist", "hold_p99_ns", "wait_p50_ns"):
    assert t[k] == lk[k], (k, t[k], lk[k])
' "$tmp/h.json" "$tmp/hr.json"
# the columns a reader needs at 120: a sleeping section keeps BLOCKED, drops NOWAIT (100 - CON)
"$LOCKSTAT" report --width 120 "$fx/blocked.snap" >"$tmp/b120" 2>&1
ok "report at 120 columns: MUTEXES keep BLOCKED, NOWAIT drops first" sh -c "
	grep -A1 '^MUTEXES' '$tmp/b120' | grep -q 'BLOCKED' && ! grep -q 'NOWAIT' '$tmp/b120'"
# a name cut at the edge says so: a '>' in the last column; a name that fits has none
ok "report at 120 columns: the module site cut with a '>', a name that fits in full" sh -c "
	awk 'length > 120 { exit 1 }' '$tmp/b120' &&
	grep -q '    lmt_mutex_sleeper+0x23\[test_lockmet>\$' '$tmp/b120' &&
	grep -q '    lmt_mutex_fast+0x11\[test_lockmeter\]\$' '$tmp/b120'"
# perf lock's and klockstat's options and keys
"$LOCKSTAT" report --csv --name test_lockmeter --type mutex "$fx/demo.snap" >"$tmp/a" 2>&1
"$LOCKSTAT" report --csv -L test_lockmeter -Y mutex "$fx/demo.snap" >"$tmp/b" 2>&1
ok "-L and -Y (perf lock) are --name and --type" sh -c "diff -u '$tmp/a' '$tmp/b' && [ \$(wc -l <'$tmp/a') -gt 1 ]"
"$LOCKSTAT" report --csv --lock-filter test_lockmeter --type-filter mutex "$fx/demo.snap" >"$tmp/b" 2>&1
ok "--lock-filter and --type-filter are --name and --type" diff -u "$tmp/a" "$tmp/b"
"$LOCKSTAT" report --csv --sort maxwait "$fx/demo.snap" >"$tmp/a" 2>&1
"$LOCKSTAT" report --csv -S maxwait "$fx/demo.snap" >"$tmp/b" 2>&1
ok "-S (klockstat) is --sort" diff -u "$tmp/a" "$tmp/b"
for pair in acq_total:waitcpu acq_count:rate hld_count:rate; do
	"$LOCKSTAT" report --csv --sort "${pair%%:*}" "$fx/demo.snap" >"$tmp/a" 2>&1
	"$LOCKSTAT" report --csv --sort "${pair#*:}" "$fx/demo.snap" >"$tmp/b" 2>&1
	ok "klockstat's ${pair%%:*} is ${pair#*:}" sh -c "[ -s '$tmp/a' ] && diff -u '$tmp/b' '$tmp/a'"
done
"$LOCKSTAT" report --csv --name TEST_LOCKMETER "$fx/demo.snap" >"$tmp/a" 2>&1
"$LOCKSTAT" report --csv -i --name TEST_LOCKMETER "$fx/demo.snap" >"$tmp/b" 2>&1
"$LOCKSTAT" report --csv --name test_lockmeter "$fx/demo.snap" >"$tmp/c" 2>&1
ok "-i: --name in any case" sh -c "[ \$(wc -l <'$tmp/a') -eq 1 ] && diff -u '$tmp/c' '$tmp/b'"
# --pid, --comm: rows whose worst holder or waiter is the task
"$LOCKSTAT" report --json --comm lmt_sleeper "$fx/blocked.snap" >"$tmp/p.json" 2>&1
"$LOCKSTAT" report --json --pid 421 "$fx/blocked.snap" >"$tmp/q.json" 2>&1
ok "--comm, --pid: the sites whose worst holder or waiter is that task" "$PYTHON" -c '
import json, sys
def sites(p):
    d = json.load(open(p))
    return [(l["lock"], s["site"]) for sec in d["sections"] for l in sec["locks"] for s in l["sites"]]
def tasks(p):
    d = json.load(open(p))
    return [{s.get(k, {}).get("comm") for k in ("hold_evidence", "wait_evidence")} |
            {s.get(k, {}).get("pid") for k in ("hold_evidence", "wait_evidence")}
            for sec in d["sections"] for l in sec["locks"] for s in l["sites"]]
a, b = sites(sys.argv[1]), sites(sys.argv[2])
assert a and all("lmt_sleeper" in t for t in tasks(sys.argv[1])), a
assert b and all(421 in t for t in tasks(sys.argv[2])), b
assert ("lmt_mutex[test_lockmeter]", "lmt_mutex_sleeper+0x23/0x70[test_lockmeter]") in b, b
' "$tmp/p.json" "$tmp/q.json"
rc "--pid x" 2 report --pid x "$fx/demo.snap"
# perf lock's -p PID and -t TID: --pid (the evidence's pid is a thread id)
for o in -p -t; do
	"$LOCKSTAT" report --json $o 421 "$fx/blocked.snap" >"$tmp/pt.json" 2>&1
	ok "$o 421 (perf lock) is --pid 421" diff -u "$tmp/q.json" "$tmp/pt.json"
	"$LOCKSTAT" top -b -n 1 --pid 421 --replay "$fx/blocked.snap" >"$tmp/a" 2>&1
	"$LOCKSTAT" top -b -n 1 $o 421 --replay "$fx/blocked.snap" >"$tmp/b" 2>&1
	ok "top $o 421 is top --pid 421" sh -c "grep -q lmt_mutex '$tmp/a' && diff -u '$tmp/a' '$tmp/b'"
	rc "$o x" 2 report $o x "$fx/demo.snap"
	ok "$o x: says it is not a pid" grep -q "^lockstat: $o: 'x' is not a pid" "$tmp/stderr"
done
"$LOCKSTAT" report -h >"$tmp/h.pt" 2>&1
ok "report -h: -p and -t are --pid, -p the main thread only" sh -c "
	grep -q '^  -p PID, -t TID    --pid (perf lock.s names)' '$tmp/h.pt' &&
	grep -q 'thread id, so -p keeps a process.s main thread only' '$tmp/h.pt'"
rc "--comm of 64 bytes" 2 report --comm "$(printf '%064d' 0)" "$fx/demo.snap"

# ---- the manual page, as man renders it ----
man8=$here/../lockstat.8
# what -h and the manual say is what the tool does
for cmd in report top; do
	"$LOCKSTAT" $cmd -h >"$tmp/h.$cmd" 2>&1
	want=$(sed -n 's/^  --sort KEY .*(default \([a-z0-9]*\)[),].*/\1/p' "$tmp/h.$cmd")
	if [ $cmd = top ]; then
		"$LOCKSTAT" top -b -n 1 --json --replay "$fx/top-1.snap" >"$tmp/h.json" 2>&1
	else
		"$LOCKSTAT" report --json "$fx/top-1.snap" >"$tmp/h.json" 2>&1
	fi
	ok "$cmd -h: the default sort it names ($want) is the one it uses" \
		grep -q "\"sort\": { \"key\": \"$want\"" "$tmp/h.json"
done
ok "top -h: --top and --json as top has them (rows of a frame, with -b; no sections)" sh -c "
	grep -q '^  --top N  *with -b: the first N rows of each frame' '$tmp/h.top' &&
	grep -q '^  --json  *with -b: ' '$tmp/h.top' && ! grep -q 'section' '$tmp/h.top'"
"$LOCKSTAT" diff -h >"$tmp/h.diff" 2>&1
ok "diff -h: exit 9 is a gate's regression, and never an error's" sh -c "
	grep -q '^exit status of diff: 0 no gate failed, 9 a gate found a regression' '$tmp/h.diff' &&
	! grep -q ': never 9\$' '$tmp/h.diff'"
"$LOCKSTAT" report --csv "$fx/hist.snap" >"$tmp/man.csv" 2>&1
sed -n '/^\.SH JSON AND CSV/,/^\.SH /p' "$man8" >"$tmp/man.jc"
ok "lockstat.8: JSON AND CSV names every CSV column (the p* ranges by their ends)" "$PYTHON" -c '
import re, sys
cols = open(sys.argv[1]).readline().strip().split(",")
man = open(sys.argv[2]).read()
ends = {"hold_p50_ns", "wait_p999_ns", "hold_p50_ge", "wait_p999_ge"}
want = [c for c in cols if not re.search(r"_p[0-9]+_", c) or c in ends]
missing = [c for c in want if not re.search(r"\b%s\b" % c, man)]
assert not missing, missing
assert "CSV keeps the 16 fields" not in man
' "$tmp/man.csv" "$tmp/man.jc"
"$LOCKSTAT" export "$fx/hist.snap" >"$tmp/man.prom" 2>&1
sed -n '/^\.SH PROMETHEUS AND PCP/,/^\.SS /p' "$man8" | tr '\n' ' ' >"$tmp/man.prom.txt"
ok "lockstat.8: histograms not exported, though the kernel has buckets (hist.snap has 28)" sh -c "
	! grep -q '_bucket' '$tmp/man.prom' && grep -q 'are not exported yet' '$tmp/man.prom.txt' &&
	! grep -q 'kernel has no buckets' '$tmp/man.prom.txt'"
# the lines the manual shows above a diff of two kernels are the tool's
sed -n '/^Kernels differ: A 6\.1\.192, B 6\.12\.118$/{n;p;}' "$man8" >"$tmp/man-kd"
ok "lockstat.8: the lines of a diff across kernels, as diff prints them" sh -c "
	[ -s '$tmp/man-kd' ] && grep -qxF -f '$tmp/man-kd' '$gold/diff-kernels.txt' &&
	grep -qx 'Kernels differ: A 6.1.192, B 6.12.120' '$gold/diff-kernels.txt'"
if LC_ALL=C grep -q '[[:cntrl:]]' "$man8"; then
	fail "lockstat.8: no control characters in the source"
else
	pass "lockstat.8: no control characters in the source"
fi
if command -v groff >/dev/null; then
	groff -man -Tutf8 -P-cbou "$man8" 2>"$tmp/groff.err" >"$tmp/man.txt"
	if grep -q '^ *top \[OPTIONS\]' "$tmp/man.txt" && grep -q -- '--delay SECS$' "$tmp/man.txt" &&
	   grep -q -- '--iterations N$' "$tmp/man.txt" && [ ! -s "$tmp/groff.err" ]; then
		pass "lockstat.8: top's synopsis and options render"
	else
		fail "lockstat.8: top's synopsis and options render" "$tmp/groff.err"
	fi
	if grep -Eq '^ *lockstat +diff +\[--json\|--csv\] +\[--exact\] +\[--fail-over +PCT' "$tmp/man.txt" &&
	   grep -q '^DIFF$' "$tmp/man.txt" &&
	   grep -q 'lockstat diff --fail-over 50 --min-hold 10us base.snap new.snap' "$tmp/man.txt"; then
		pass "lockstat.8: diff's synopsis, section and CI example render"
	else
		fail "lockstat.8: diff's synopsis, section and CI example render" "$tmp/groff.err"
	fi
	if grep -q '^ *lockstat held \[--over DURATION\] \[--json\]$' "$tmp/man.txt" &&
	   grep -q '^HELD$' "$tmp/man.txt" && grep -q -- '^ *--over DURATION$' "$tmp/man.txt" &&
	   grep -q 'blocked 49ms of it in schedule_timeout <- msleep' "$tmp/man.txt" &&
	   grep -Eq '^ *Enter +open +or +close +the +detail +pane' "$tmp/man.txt"; then
		pass "lockstat.8: held's synopsis, section and option, the blocked line, top's Enter render"
	else
		fail "lockstat.8: held's synopsis, section and option, the blocked line, top's Enter render" \
			"$tmp/groff.err"
	fi
	if grep -q '^ *lockstat hist \[--type TYPE\] \[SOURCE-OPTIONS\] NAME\[@SITE\] \[FILE\]$' "$tmp/man.txt" &&
	   grep -q '^HIST$' "$tmp/man.txt" && grep -q '^PERCENTILES AND HISTOGRAMS$' "$tmp/man.txt" &&
	   grep -q -- '^ *--percentiles$' "$tmp/man.txt" &&
	   grep -q '^ *p50hold, p90hold, p99hold, p999hold$' "$tmp/man.txt"; then
		pass "lockstat.8: hist's synopsis and section, percentiles, --percentiles, the p keys render"
	else
		fail "lockstat.8: hist's synopsis and section, percentiles, --percentiles, the p keys render" \
			"$tmp/groff.err"
	fi
	if grep -q '^ *lockstat on | off | reset | release \[--source SRC\]$' "$tmp/man.txt" &&
	   grep -q '^ *release$' "$tmp/man.txt" && grep -q '^ *mem_cpus, mem_rows, mem_cap$' "$tmp/man.txt"; then
		pass "lockstat.8: release in the synopsis and commands, the memory keys render"
	else
		fail "lockstat.8: release in the synopsis and commands, the memory keys render" \
			"$tmp/groff.err"
	fi
	if grep -E -B1 '^ *Gate +a +CI +job' "$tmp/man.txt" | head -n 1 | grep -q '^ *$'; then
		pass "lockstat.8: 'Gate a CI job' is a paragraph of its own, after the promtool example"
	else
		fail "lockstat.8: 'Gate a CI job' is a paragraph of its own, after the promtool example" \
			"$tmp/man.txt"
	fi
	if awk '/^EXIT STATUS/ { f = 1 } f && /^ *9 +diff: a gate found a regression/ { ok = 1 }
		END { exit !ok }' "$tmp/man.txt" &&
	   grep -q -- '^ *--fail-over-wait PCT$' "$tmp/man.txt" && grep -q -- '^ *--fail-on-new$' "$tmp/man.txt"; then
		pass "lockstat.8: exit status 9 and the gates of diff render"
	else
		fail "lockstat.8: exit status 9 and the gates of diff render" "$tmp/groff.err"
	fi
else
	echo "ok - lockstat.8 renders # SKIP no groff" >>"$results"
fi

# ---- TAP ----
. "$here/tap.sh"
tap_summary "$results" "$TAP_OUT"
