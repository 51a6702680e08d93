#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh LOCKSTAT SNAPSHOT: generate a 100,000-row snapshot (once) and
# time 'lockstat report' of it, table, JSON and CSV.  Fails when the table
# takes 0.5 s or more.
set -eu
lockstat=$1
snap=$2
here=$(cd "$(dirname "$0")" && pwd)
rows=100000
limit_ms=500

if [ ! -s "$snap" ] || ! head -n 30 "$snap" | grep -qx "rows: $rows"; then
	"${PYTHON:-python3}" "$here/gen_snapshot.py" --rows $rows --seed 1 -o "$snap"
fi

now_ns() { date +%s%N; }

# best of three runs, each figure printed
bench() {
	best=
	for run in 1 2 3; do
		t0=$(now_ns)
		"$lockstat" report "$@" "$snap" >/dev/null
		t1=$(now_ns)
		ms=$(( (t1 - t0) / 1000000 ))
		printf '  run %d: %d ms\n' $run $ms >&2
		if [ -z "$best" ] || [ $ms -lt $best ]; then best=$ms; fi
	done
	echo $best
}

echo "bench: lockstat report of $rows rows ($(wc -c <"$snap") bytes), best of 3"
echo " table:" >&2
table=$(bench)
echo " --json:" >&2
json=$(bench --json)
echo " --csv:" >&2
csv=$(bench --csv)
printf 'bench: table %d.%03d s, --json %d.%03d s, --csv %d.%03d s (limit %d.%03d s for the table)\n' \
	$((table / 1000)) $((table % 1000)) $((json / 1000)) $((json % 1000)) \
	$((csv / 1000)) $((csv % 1000)) $((limit_ms / 1000)) $((limit_ms % 1000))
if [ "$table" -ge $limit_ms ]; then
	echo "bench: FAIL: the table took ${table} ms, over ${limit_ms} ms"
	exit 1
fi
echo "bench: ok"
