#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# export.sh: lockstat export with the real engines, on loopback only and
# bounded in time.  promtool accepts the output; the numbers are those of
# the fixture snapshot, checked by an independent reading of the file;
# prometheus-node-exporter serves them from its textfile collector on
# 127.0.0.1 and a free port; pmcd with pmdaopenmetrics reads them back as
# openmetrics.lockmeter.*; --interval rewrites the file, sleeps between
# writes and exits 0 on SIGTERM and SIGINT; bad input changes nothing.
# Prints "ok - " / "not ok - " lines for run.sh; a skip line for an
# engine that is not installed (scripts/deps.sh installs them all).
#
# Environment: LOCKSTAT (the binary), FIXTURES (tests/fixtures), PYTHON.
set -u

LOCKSTAT=${LOCKSTAT:?}
FIXTURES=${FIXTURES:?}
PYTHON=${PYTHON:-python3}
snap=$FIXTURES/demo.snap
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lockstat-export.XXXXXX") || exit 1
pids=""
cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	for p in $pids; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

pass() {
	echo "ok - export: $1"
}

# fail NAME [FILE]: with FILE's first lines as diagnostics
fail() {
	echo "not ok - export: $1"
	if [ $# -gt 1 ] && [ -s "$2" ]; then
		head -n 20 "$2" | sed 's/^/# /'
	fi
}

skip() {
	echo "ok - export: $1 # SKIP $2"
}

# check NAME COMMAND...: the command succeeds; its output is the diagnostics
check() {
	name=$1
	shift
	if "$@" >"$tmp/check.out" 2>&1; then pass "$name"; else fail "$name" "$tmp/check.out"; fi
}

# rc NAME WANT ARGS...: lockstat export ARGS exits with WANT
rc() {
	name=$1 want=$2
	shift 2
	"$LOCKSTAT" export "$@" >"$tmp/stdout" 2>"$tmp/stderr"
	got=$?
	if [ "$got" -eq "$want" ]; then
		pass "$name: exit $want"
	else
		echo "exit $got" | cat - "$tmp/stderr" >"$tmp/why"
		fail "$name: exit $want" "$tmp/why"
	fi
}

# a TCP port nothing listens on now, on 127.0.0.1
free_port() {
	"$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The expected series of a snapshot, read from the file here, not by
# lockstat: rows by (type, lock, function), merged, times in seconds; an
# overflow row by its type.
cat >"$tmp/expect.py" <<'EOF'
import re, sys

FIELDS = ("acquired nowait spin reject abort hold_total_ns hold_min_ns hold_max_ns "
          "wait_total_ns wait_min_ns wait_max_ns oncpu_total_ns oncpu_max_ns "
          "blocked_total_ns blocked_max_ns instances").split()
TYPES = ("spin", "read", "write", "mutex", "rwsem_read", "rwsem_write", "rt_mutex",
         "percpu_rwsem_read", "percpu_rwsem_write", "semaphore", "rt_spin", "rt_read",
         "rt_write")
SLEEPING = set(TYPES[3:])
SITE = re.compile(r"^(.+)\+0x[0-9a-f]+(?:/0x[0-9a-f]+)?(\[[^\]]*\])?$")

def rows(path):
    """(type, lock, function) -> the row's numbers, merged"""
    out, body = {}, False
    for line in open(path):
        line = line.rstrip("\n")
        if not body:
            body = line == ""
            continue
        if line.startswith("#"):
            continue
        f = line.split()
        m = SITE.match(f[-1])
        key = (f[0], f[-2], m.group(1) + (m.group(2) or "") if m else f[-1])
        if f[-2].startswith("*overflow*"):
            # named after its longest hold: one series per type all the same
            key = (f[0], "*overflow*", "*overflow*")
        v = dict(zip(FIELDS, map(int, f[1:17])))
        old = out.get(key)
        if old:
            for k in v:
                old[k] = max(old[k], v[k]) if k.endswith("max_ns") or k == "instances" else \
                    min(old[k], v[k]) if k.endswith("min_ns") else old[k] + v[k]
        else:
            out[key] = v
    return out

def series(v, sleeping):
    """metric name -> value, as the export has them"""
    s = {
        "lockmeter_acquisitions_total": v["acquired"],
        "lockmeter_contended_total": v["spin"] + v["reject"],
        "lockmeter_rejected_total": v["reject"],
        "lockmeter_hold_seconds_total": v["hold_total_ns"] / 1e9,
        "lockmeter_wait_seconds_total": v["wait_total_ns"] / 1e9,
        "lockmeter_hold_max_seconds": v["hold_max_ns"] / 1e9,
        "lockmeter_wait_max_seconds": v["wait_max_ns"] / 1e9,
    }
    if sleeping:
        s.update({
            "lockmeter_aborted_total": v["abort"],
            "lockmeter_hold_oncpu_seconds_total": v["oncpu_total_ns"] / 1e9,
            "lockmeter_hold_blocked_seconds_total": v["blocked_total_ns"] / 1e9,
            "lockmeter_hold_oncpu_max_seconds": v["oncpu_max_ns"] / 1e9,
            "lockmeter_hold_blocked_max_seconds": v["blocked_max_ns"] / 1e9,
        })
    return s

def expected(path):
    """(metric, type, lock, site) -> value"""
    out = {}
    for (t, lock, site), v in rows(path).items():
        for name, val in series(v, t in SLEEPING).items():
            out[(name, t, lock, site)] = val
    return out

SAMPLE = re.compile(r'^(lockmeter_[a-z_]+)\{(.*)\} (\S+)$')
LABEL = re.compile(r'([a-z]+)="((?:[^"\\]|\\.)*)",?')

def scraped(path):
    """(metric, type, lock, site) -> value, of the per-row series of a scrape"""
    out = {}
    for line in open(path):
        m = SAMPLE.match(line.rstrip("\n"))
        if not m:
            continue
        labels = dict(LABEL.findall(m.group(2)))
        if "site" not in labels:
            continue
        key = (m.group(1), labels["type"], labels["lock"], labels["site"])
        if key in out:
            sys.exit("duplicate series %s" % (key,))
        out[key] = float(m.group(3))
    return out

def same(snap, scrape, least=200):
    """the per-row series of @scrape are exactly those of @snap: returned"""
    want, got = expected(snap), scraped(scrape)
    assert set(want) == set(got), sorted(set(want) ^ set(got))[:5]
    bad = [(k, want[k], got[k]) for k in want if float(want[k]) != got[k]]
    assert not bad, bad[:5]
    assert len(got) > least, len(got)
    return got
EOF

# ---- promtool ----
"$LOCKSTAT" export "$snap" >"$tmp/demo.prom" 2>"$tmp/stderr" || fail "export of demo.snap" "$tmp/stderr"
if command -v promtool >/dev/null 2>&1; then
	for args in "$snap" "--exact-sites $snap" "--max-series 3 $snap" "--max-series 0 $snap" \
		    "$FIXTURES/historic.snap" "$FIXTURES/norows.snap" "$FIXTURES/proc.txt" \
		    "$FIXTURES/types.snap" "--max-series 10 $FIXTURES/types.snap" \
		    "$FIXTURES/proc-types.txt" "$FIXTURES/proc-rt.txt"; do
		# shellcheck disable=SC2086
		"$LOCKSTAT" export $args >"$tmp/p.prom" 2>&1
		# promtool prints lint problems and exits non-zero on any
		check "promtool check metrics accepts export $(echo "$args" | sed "s|$FIXTURES/||")" \
			sh -c "promtool check metrics <'$tmp/p.prom'"
	done
else
	skip "promtool check metrics" "promtool is not installed (Debian: prometheus)"
fi

# ---- the numbers, against an independent reading of the snapshot ----
check "every series has the fixture's value, nothing more" "$PYTHON" -c '
import sys
sys.path.insert(0, sys.argv[1])
from expect import same
same(sys.argv[2], sys.argv[3])
' "$tmp" "$snap" "$tmp/demo.prom"
# every type's series, the sleeping ones that came later and PREEMPT_RT's too
"$LOCKSTAT" export "$FIXTURES/types.snap" >"$tmp/types.prom" 2>&1
"$LOCKSTAT" export "$FIXTURES/proc-types.txt" >"$tmp/proc-types.prom" 2>&1
"$LOCKSTAT" export "$FIXTURES/proc-rt.txt" >"$tmp/proc-rt.prom" 2>&1
check "types.snap, proc-types.txt, proc-rt.txt: every series of the thirteen types, its label and value" "$PYTHON" -c '
import sys
sys.path.insert(0, sys.argv[1])
from expect import TYPES, SLEEPING, same
got = same(sys.argv[2], sys.argv[3])
assert {k[1] for k in got} == set(TYPES), sorted({k[1] for k in got})
for t in TYPES:
    aborted = {k for k in got if k[0] == "lockmeter_aborted_total" and k[1] == t}
    assert bool(aborted) == (t in SLEEPING), t
got = same(sys.argv[4], sys.argv[5], 40)
assert {k[1] for k in got} == {"spin", "rt_mutex", "percpu_rwsem_read", "percpu_rwsem_write",
                               "semaphore"}, got
got = same(sys.argv[6], sys.argv[7], 40)
assert {k[1] for k in got} == {"spin", "rt_spin", "rt_read", "rt_write"}, got
for t in ("rt_spin", "rt_read", "rt_write"):
    assert ("lockmeter_hold_blocked_seconds_total", t) in {k[:2] for k in got}, t
' "$tmp" "$FIXTURES/types.snap" "$tmp/types.prom" "$FIXTURES/proc-types.txt" "$tmp/proc-types.prom" \
	"$FIXTURES/proc-rt.txt" "$tmp/proc-rt.prom"
"$LOCKSTAT" export --max-series 5 "$snap" >"$tmp/top5.prom" 2>&1
check "--max-series 5: the five with the most hold time, the rest in other per type" "$PYTHON" -c '
import sys
sys.path.insert(0, sys.argv[1])
from expect import rows, scraped
full, got = rows(sys.argv[2]), scraped(sys.argv[3])
hold = lambda k: full[k]["hold_total_ns"]
top = sorted(full, key=lambda k: (-hold(k), k))[:5]
kept = {(t, l, s) for (m, t, l, s) in got if l != "other"}
assert kept == set(top), (kept, top)
for t in {k[0] for k in full}:
    rest = [k for k in full if k[0] == t and k not in top]
    n = got.get(("lockmeter_acquisitions_total", t, "other", "other"))
    if not rest:
        assert n is None, t
        continue
    assert n == sum(full[k]["acquired"] for k in rest), (t, n)
    h = got[("lockmeter_hold_max_seconds", t, "other", "other")]
    assert h == max(full[k]["hold_max_ns"] for k in rest) / 1e9, (t, h)
' "$tmp" "$snap" "$tmp/top5.prom"
grep -qx 'lockmeter_export_other_rows 25' "$tmp/top5.prom" &&
	grep -qx 'lockmeter_losses_total{kind="table_full"} 12' "$tmp/top5.prom" &&
	grep -qx 'lockmeter_metered_seconds_total 3.465697692' "$tmp/top5.prom" &&
	grep -qx 'lockmeter_metering 0' "$tmp/top5.prom" &&
	pass "the header's series: roll-up count, losses, metered time, state" ||
	fail "the header's series: roll-up count, losses, metered time, state" "$tmp/top5.prom"

# ---- node_exporter's textfile collector ----
tf=$tmp/textfile
mkdir "$tf"
ne=$(command -v prometheus-node-exporter || command -v node_exporter)
if [ -z "$ne" ]; then
	skip "node_exporter serves the textfile" "prometheus-node-exporter is not installed"
elif ! "$LOCKSTAT" export --textfile-dir "$tf" "$snap" 2>"$tmp/stderr"; then
	fail "export --textfile-dir" "$tmp/stderr"
else
	port=$(free_port)
	"$ne" --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$tf" --web.listen-address="127.0.0.1:$port" \
		>"$tmp/ne.log" 2>&1 &
	ne_pid=$!
	pids="$pids $ne_pid"
	i=0
	while [ $i -lt 100 ] && ! curl -sf -m 2 "http://127.0.0.1:$port/metrics" >"$tmp/metrics" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ ! -s "$tmp/metrics" ]; then
		fail "node_exporter on 127.0.0.1:$port answers within 10 s" "$tmp/ne.log"
	else
		pass "node_exporter on 127.0.0.1:$port answers"
		grep -qx 'node_textfile_scrape_error 0' "$tmp/metrics" &&
			pass "node_exporter reads lockmeter.prom without error" ||
			fail "node_exporter reads lockmeter.prom without error" "$tmp/ne.log"
		check "/metrics has every lockmeter series of the fixture, exact values" "$PYTHON" -c '
import sys
sys.path.insert(0, sys.argv[1])
from expect import same
got = same(sys.argv[2], sys.argv[3])
# the lines the fixture has, as typed: 200 holds, 29101662 ns
k = ("lockmeter_acquisitions_total", "spin", "lmt_static_lock[test_lockmeter]",
     "lmt_hold_static[test_lockmeter]")
assert got[k] == 200, got[k]
k = ("lockmeter_hold_seconds_total",) + k[1:]
assert got[k] == 0.029101662, got[k]
' "$tmp" "$snap" "$tmp/metrics"
		grep -q '^lockmeter_losses_total{kind="dropped"} 3$' "$tmp/metrics" &&
			grep -q '^lockmeter_cpus 2$' "$tmp/metrics" &&
			pass "/metrics has the header's series" ||
			fail "/metrics has the header's series" "$tmp/metrics"
		grep 'lmt_static_lock' "$tmp/metrics" | grep 'lmt_hold_static' | sed 's/^/# /'
	fi
	kill "$ne_pid" 2>/dev/null
	wait "$ne_pid" 2>/dev/null
fi

# ---- PCP: pmcd and pmdaopenmetrics read the same file ----
pmcd=/usr/lib/pcp/bin/pmcd
om=/var/lib/pcp/pmdas/openmetrics/pmdaopenmetrics.python
# the PMDA needs the Python that has Debian's python3-pcp (not a pyenv one)
pcp_py=""
for py in /usr/bin/python3 "$PYTHON"; do
	if "$py" -c 'import requests; from pcp import pmda' 2>/dev/null; then
		pcp_py=$py
		break
	fi
done
if [ ! -x "$pmcd" ] || [ ! -r "$om" ] || ! command -v pminfo >/dev/null 2>&1; then
	skip "pmcd + pmdaopenmetrics" "pcp is not installed"
elif [ -z "$pcp_py" ]; then
	skip "pmcd + pmdaopenmetrics" "python3-requests or python3-pcp is not installed"
else
	pcp=$tmp/pcp
	mkdir -p "$pcp/config.d" "$pcp/run" "$pcp/log"
	# the recipe of lockstat(8): a .url file naming the textfile
	echo "file://$tf/lockmeter.prom" >"$pcp/config.d/lockmeter.url"
	# and a second source: the four sleeping types that came last
	mkdir "$tmp/tf-types"
	"$LOCKSTAT" export --textfile-dir "$tmp/tf-types" "$FIXTURES/proc-types.txt" 2>"$tmp/stderr" ||
		fail "export --textfile-dir of proc-types.txt" "$tmp/stderr"
	echo "file://$tmp/tf-types/lockmeter.prom" >"$pcp/config.d/lmtypes.url"
	cat >"$pcp/pmcd.conf" <<EOF
openmetrics	144	pipe	binary notready	$pcp_py $om -c $pcp/config.d -l $pcp/log/openmetrics.log
[access]
allow "local:*" : all;
EOF
	printf 'root {\n\topenmetrics\t144:*:*\n}\n' >"$pcp/root"
	port=$(free_port)
	# -q 30 -t 30: a python PMDA at nice 19 beside a kernel build took over
	# pmcd's 3 s to start (pmcd then dropped it and knew no metric); 30 s
	# of asking for it
	PCP_RUN_DIR=$pcp/run PCP_LOG_DIR=$pcp/log "$pmcd" -f -A -q 30 -t 30 -c "$pcp/pmcd.conf" \
		-n "$pcp/root" -i 127.0.0.1 -p "$port" -s "$pcp/run/pmcd.socket" -l "$pcp/log/pmcd.log" \
		-x "$pcp/log/pmcd.err" >"$pcp/log/out" 2>&1 &
	pmcd_pid=$!
	pids="$pids $pmcd_pid"
	m=openmetrics.lockmeter.lockmeter_acquisitions_total
	i=0
	while [ $i -lt 300 ] && ! pminfo -h "127.0.0.1:$port" -f "$m" >"$tmp/pminfo" 2>&1; do
		sleep 0.1
		i=$((i + 1))
	done
	pminfo -h "127.0.0.1:$port" -f openmetrics.lockmeter.lockmeter_hold_seconds_total \
		>>"$tmp/pminfo" 2>&1
	if grep -q '"[0-9]* lock:lmt_static_lock\[test_lockmeter\] site:lmt_hold_static\[test_lockmeter\] type:spin"\] value 200$' \
	   "$tmp/pminfo"; then
		pass "pminfo -h 127.0.0.1:$port: $m of the fixture's lock is 200"
	else
		cat "$pcp/log/pmcd.log" "$pcp/log/openmetrics.log" >>"$tmp/pminfo" 2>/dev/null
		fail "pminfo -h 127.0.0.1:$port: $m of the fixture's lock is 200" "$tmp/pminfo"
	fi
	check "pminfo: the hold time in seconds, as in the fixture" "$PYTHON" -c '
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"hold_seconds_total\n(?:.*\n)*?.*site:lmt_hold_static\[test_lockmeter\] type:spin\"\] value (\S+)", text)
assert m and float(m.group(1)) == 0.029101662, m and m.group(1)
' "$tmp/pminfo"
	pminfo -h "127.0.0.1:$port" -f openmetrics.lmtypes.lockmeter_acquisitions_total \
		openmetrics.lmtypes.lockmeter_aborted_total >"$tmp/pminfo.types" 2>&1
	check "pminfo: the newer types' instances, named by their type label" "$PYTHON" -c '
import re, sys
text = open(sys.argv[1]).read()
def value(metric, lock, site, t):
    m = re.search(r"%s\n(?:.*\n)*?.*\"\d+ lock:%s site:%s type:%s\"\] value (\S+)" %
                  (metric, re.escape(lock), re.escape(site), t), text)
    return m and float(m.group(1))
acq = "lockmeter_acquisitions_total"
assert value(acq, "lmt_rt_mutex[test_lockmeter]", "lmt_rt_holder[test_lockmeter]", "rt_mutex") == 120
assert value(acq, "cgroup_threadgroup_rwsem", "cgroup_threadgroup_change_begin",
             "percpu_rwsem_read") == 5000
assert value(acq, "cgroup_threadgroup_rwsem", "cgroup_attach_lock", "percpu_rwsem_write") == 3
assert value("lockmeter_aborted_total", "console_sem", "console_lock", "semaphore") == 3
' "$tmp/pminfo.types"
	kill "$pmcd_pid" 2>/dev/null
	wait "$pmcd_pid" 2>/dev/null
fi

# ---- --interval: a live source (a stand-in /proc/lockmeter), SIGTERM, SIGINT ----
# Each wait for the file is bounded at 30 s, not a measure of speed: the
# exporter may get little CPU while a build shares the machine.
live=$tmp/proc.txt
cp "$FIXTURES/proc.txt" "$live"
iv=$tmp/interval
mkdir "$iv"
# seconds, or with a unit as top -d has it
for sig in TERM INT; do
	ivl=0.2
	[ "$sig" = INT ] && ivl=200ms
	rm -f "$iv/lockmeter.prom"
	LOCKSTAT_PROC=$live "$LOCKSTAT" export --source=proc --interval $ivl --textfile-dir "$iv" \
		2>"$tmp/iv.err" &
	lpid=$!
	pids="$pids $lpid"
	i=0
	while [ $i -lt 300 ] && [ ! -s "$iv/lockmeter.prom" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	ino=$(stat -c %i "$iv/lockmeter.prom" 2>/dev/null)
	if [ "$sig" = INT ]; then
		[ -n "$ino" ] && pass "--interval 200ms: a unit, as top -d takes: the file written" ||
			fail "--interval 200ms: a unit, as top -d takes: the file written" "$tmp/iv.err"
	fi
	if [ "$sig" = TERM ]; then
		# a new number in the source reaches the file at a later tick
		sed 's/^metered_ns: .*/metered_ns: 123456789012/' "$FIXTURES/proc.txt" >"$live.new"
		mv "$live.new" "$live"
		i=0
		while [ $i -lt 300 ] && ! grep -qx 'lockmeter_metered_seconds_total 123.456789012' \
		      "$iv/lockmeter.prom"; do
			sleep 0.1
			i=$((i + 1))
		done
		[ -n "$ino" ] && grep -qx 'lockmeter_metered_seconds_total 123.456789012' "$iv/lockmeter.prom" &&
			[ "$(stat -c %i "$iv/lockmeter.prom")" != "$ino" ] &&
			pass "--interval 0.2: the file is replaced with the new numbers" ||
			fail "--interval 0.2: the file is replaced with the new numbers" "$tmp/iv.err"
		t0=$(awk '{ print $14 + $15 }' "/proc/$lpid/stat" 2>/dev/null)
		sleep 2
		t1=$(awk '{ print $14 + $15 }' "/proc/$lpid/stat" 2>/dev/null)
		[ -n "$t0" ] && [ -n "$t1" ] && [ $((t1 - t0)) -lt 20 ] &&
			pass "--interval: $((t1 - t0)) ticks of CPU in 2 s (no busy loop)" ||
			fail "--interval: ${t1:-?} - ${t0:-?} ticks of CPU in 2 s (no busy loop)"
	fi
	kill -"$sig" "$lpid"
	i=0
	while [ $i -lt 50 ] && kill -0 "$lpid" 2>/dev/null && [ -d "/proc/$lpid" ] &&
	      [ "$(awk '{ print $3 }' "/proc/$lpid/stat" 2>/dev/null)" != Z ]; do
		sleep 0.1
		i=$((i + 1))
	done
	wait "$lpid"
	got=$?
	pids=$(echo "$pids" | sed "s/ $lpid//")
	[ $got -eq 0 ] && [ ! -s "$tmp/iv.err" ] && ! ls -a "$iv" | grep -q '\.tmp\.' &&
		pass "--interval: SIG$sig ends it within 5 s: exit 0, no temporary file" ||
		{ echo "exit $got" >>"$tmp/iv.err"; fail "--interval: SIG$sig ends it: exit 0" "$tmp/iv.err"; }
done

# ---- bad input: a clear error, the exit code, nothing changed ----
bad=$tmp/bad
mkdir "$bad"
rc "--format json" 2 --format json --textfile-dir "$bad" "$snap"
grep -q "unknown --format 'json'" "$tmp/stderr" && pass "--format json: says so" ||
	fail "--format json: says so" "$tmp/stderr"
for v in 0 -1 x 1e3 inf .5 0.05 86401 '' 50ms 2m 1.5.0 15S; do
	rc "--interval '$v'" 2 --interval "$v" --textfile-dir "$bad"
done
rc "--max-series x" 2 --max-series x "$snap"
rc "--max-series -1" 2 --max-series -1 "$snap"
rc "--textfile-dir ''" 2 --textfile-dir '' "$snap"
rc "--interval with a FILE" 2 --interval 1 "$snap"
rc "--source with a FILE" 2 --source proc "$snap"
rc "two FILEs" 2 "$snap" "$snap"
[ -z "$(ls -A "$bad")" ] && pass "usage errors write nothing" || fail "usage errors write nothing"
rc "--textfile-dir missing" 1 --textfile-dir "$tmp/no/such" "$snap"
grep -q "no/such" "$tmp/stderr" && pass "--textfile-dir missing: names it" ||
	fail "--textfile-dir missing: names it" "$tmp/stderr"
rc "--textfile-dir a file" 1 --textfile-dir "$snap" "$snap"
echo keep >"$bad/target"
ln -s target "$bad/lockmeter.prom"
rc "lockmeter.prom a symbolic link" 1 --textfile-dir "$bad" "$snap"
[ -L "$bad/lockmeter.prom" ] && [ "$(cat "$bad/target")" = keep ] && grep -q "symbolic link" "$tmp/stderr" &&
	pass "a symbolic link and its target are left alone" ||
	fail "a symbolic link and its target are left alone" "$tmp/stderr"
rm "$bad/lockmeter.prom"
mkdir "$bad/lockmeter.prom"
rc "lockmeter.prom a directory" 1 --textfile-dir "$bad" "$snap"
rmdir "$bad/lockmeter.prom"
rc "a corrupt snapshot" 7 --textfile-dir "$bad" "$FIXTURES/truncated-rows.snap"
[ ! -e "$bad/lockmeter.prom" ] && pass "a corrupt snapshot writes nothing" ||
	fail "a corrupt snapshot writes nothing"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	ro=$tmp/ro
	mkdir "$ro"
	chmod 0755 "$ro" "$tmp"
	# the tree may sit below a directory only root can enter (a mktemp -d
	# clone): the other user runs copies of the binary and the snapshot
	cp "$LOCKSTAT" "$tmp/lockstat-copy" && cp "$snap" "$tmp/ro.snap" &&
		chmod 0755 "$tmp/lockstat-copy" && chmod 0644 "$tmp/ro.snap"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/lockstat-copy" export \
		--textfile-dir "$ro" "$tmp/ro.snap" >/dev/null 2>"$tmp/stderr"
	got=$?
	[ $got -eq 3 ] && [ -z "$(ls -A "$ro")" ] && grep -q "Permission denied" "$tmp/stderr" &&
		pass "an unwritable directory: exit 3, nothing written" ||
		{ echo "exit $got" >>"$tmp/stderr"; fail "an unwritable directory: exit 3" "$tmp/stderr"; }
else
	skip "an unwritable directory" "needs root and setpriv to test as another user"
fi
"$LOCKSTAT" export "$snap" >/dev/full 2>"$tmp/stderr"
[ $? -eq 1 ] && grep -q "write error" "$tmp/stderr" && pass "export to a full disk: exit 1" ||
	fail "export to a full disk: exit 1" "$tmp/stderr"
