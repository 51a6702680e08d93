#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The host side of the upgrade hunt: one workload metered on the kernel
# line users come from (6.1) and on the one they move to (6.12), a
# snapshot from each (lmguest=upgrade: scripts/guest/scenario.sh), and
# lockstat diff of the two.
#
#   upgrade.sh snap LOG SNAP
#	the snapshot guest log LOG carries (base64, between "LM-GUEST: file
#	upgrade.snap begin" and "... end"), written to SNAP
#   upgrade.sh show LOCKSTAT OLD.snap NEW.snap
#	make demo SCENARIO=upgrade: the diff of the rw_semaphores (the first
#	10 rows of each status), and what to look at
#   upgrade.sh check LOCKSTAT OLD.log NEW.log DIR TAP
#	make check: the snapshots of both boots' logs into DIR, their diff
#	(DIR/upgrade.diff), and the checks of what the diff must name, as
#	TAP in TAP
#
# The workload is lmscenario munmap: one thread maps 32 MiB, touches
# every page and unmaps it, while two others map a fresh MiB over their
# last one and touch it, in a loop.  On 6.1 every page fault takes
# mmap_lock for reading (and waits behind the munmap() and mmap() write
# holds); on 6.12 a fault takes its VMA's own lock (lock_vma_under_rcu)
# and mmap_lock only for a mapping's first fault.  munmap()'s downgraded
# read hold is taken in do_mas_align_munmap on 6.1 and in
# vms_complete_munmap_vmas on 6.12: a function renamed between the lines,
# which the diff must show as gone and new, not as one row.
#
# The guests boot with slab_nomerge, so that mmap_lock is named by its
# own cache on both lines (mm_struct+OFF; 6.12 merges that cache into
# kmalloc-2k otherwise).
set -u

die() { echo "upgrade: $*" >&2; exit 1; }

snap() {	# snap LOG SNAP
	[ -f "$1" ] || die "$1: no such log (did its boot run?)"
	sed -n '/^LM-GUEST: file upgrade.snap begin/,/^LM-GUEST: file upgrade.snap end/p' "$1" |
		sed '1d;$d' > "$2.b64"
	[ -s "$2.b64" ] || { rm -f "$2.b64"; die "$1 carries no snapshot (its boot failed?)"; }
	base64 -d "$2.b64" > "$2" 2>/dev/null || { rm -f "$2.b64" "$2"; die "$1: its snapshot is not valid base64"; }
	rm -f "$2.b64"
}

# The kernel release of guest log LOG ("LM-GUEST: start ... kernel=R").
release() {
	sed -n 's/^LM-GUEST: start .*kernel=\([^ ]*\).*/\1/p' "$1" | head -n 1
}

# The value KEY=... of the program's "LM-SCENARIO: munmap" line in LOG.
measured() {	# measured LOG KEY
	sed -n "s/^LM-SCENARIO: munmap .*$2=\([0-9,]*\).*/\1/p" "$1" | head -n 1
}

# The pages the workload of LOG faulted in: the mapper's rounds of MiB
# and each faulter's passes of one MiB, 256 pages a MiB.
pages() {
	r=$(measured "$1" rounds) m=$(measured "$1" mib) p=$(measured "$1" fault_passes)
	if [ -z "$r" ] || [ -z "$m" ] || [ -z "$p" ]; then
		echo 0
		return
	fi
	echo $(((r * m + ${p%,*} + ${p#*,}) * 256))
}

# The acquisitions (CSV column "acquired") of the site rows of TYPE whose
# lock name starts with LOCK+ and, unless FUNC is empty, whose site is in
# function FUNC (offsets and clone suffixes free), summed.
acquired() {	# acquired CSV TYPE LOCK FUNC
	awk -F, -v type="$2" -v lock="$3+" -v fn="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == "site" && $2 == type && index($3, lock) == 1 {
			f = $4; sub(/\+0x.*/, "", f); sub(/\..*/, "", f)
			if (fn == "" || f == fn)
				s += $(col["acquired"])
		}
		END { print s + 0 }' "$1"
}

# The diff's rows of TYPE whose lock is LOCK and site function FUNC:
# their statuses (matched, new, gone), one per line.
status() {	# status DIFFCSV TYPE LOCK FUNC
	awk -F, -v type="$2" -v lock="$3" -v fn="$4" '
		NR > 1 && $2 == type && $3 == lock && $4 == fn { print $1 }' "$1"
}

show() {	# show LOCKSTAT OLD NEW
	# the rw_semaphores (mmap_lock, the VMA locks), 10 rows of each status
	"$1" diff --type rwsem_read,rwsem_write --top 10 "$2" "$3"
	rc=$?
	echo
	cat <<'EOF' | fold -s -w 78
What to look at: the kernels in the heading, then mmap_lock (mm_struct, rw_semaphore reads): on 6.1 every page fault takes it (the fault path's rows, tens of thousands of acquisitions, and the waits behind munmap()'s and mmap()'s write holds), on 6.12 only a mapping's first fault does: its ACQ/s falls by 99% where a row matched, or its 6.1 rows are gone where the fault path's function differs. The per-VMA lock (vma_lock at lock_vma_under_rcu) is new on 6.12 and takes the faults over. munmap()'s downgraded read hold moved from do_mas_align_munmap (gone) to vms_complete_munmap_vmas (new): a function renamed between the lines is two rows, never one.
EOF
	return $rc
}

n=0 fails=0
ok() {		# ok STATUS NAME
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n upgrade: $2"
	else
		echo "not ok $n upgrade: $2"
		fails=$((fails + 1))
	fi
}
diag() { sed 's/^/# /'; }

check() {	# check LOCKSTAT OLD.log NEW.log DIR
	ls=$1 olog=$2 nlog=$3 dir=$4
	mkdir -p "$dir"
	echo "TAP version 13"
	echo "1..5"
	old=$dir/old.snap new=$dir/new.snap
	# (in a subshell: snap's die ends the subshell, not the checks)
	if ! (snap "$olog" "$old" && snap "$nlog" "$new") 2> "$dir/d"; then
		for t in "the diff" "mmap_lock" "the per-VMA lock" "munmap's hold" "wait"; do
			ok 1 "$t # $(cat "$dir/d")"
		done
		return 1
	fi
	orel=$(release "$olog") nrel=$(release "$nlog")
	"$ls" diff "$old" "$new" > "$dir/upgrade.diff" 2>&1
	drc=$?
	"$ls" diff --csv "$old" "$new" > "$dir/diff.csv" 2>> "$dir/upgrade.diff"
	"$ls" diff --json "$old" "$new" > "$dir/diff.json" 2>> "$dir/upgrade.diff"
	"$ls" report --csv "$old" > "$dir/old.csv" && "$ls" report --csv "$new" > "$dir/new.csv" ||
		echo "lockstat report failed" >> "$dir/upgrade.diff"
	# 1: the diff runs and names both kernels, as different kernels
	{
		echo "diff exit $drc; $orel against $nrel"
		grep -F "$orel" "$dir/upgrade.diff" | head -n 2
		grep -F "$nrel" "$dir/upgrade.diff" | head -n 2
		grep -c '"kernels": "differ"' "$dir/diff.json"
	} > "$dir/d" 2>&1
	[ $drc -eq 0 ] && [ -n "$orel" ] && [ -n "$nrel" ] && [ "$orel" != "$nrel" ] &&
		grep -qF "$orel" "$dir/upgrade.diff" && grep -qF "$nrel" "$dir/upgrade.diff" &&
		grep -q '"kernels": "differ"' "$dir/diff.json"
	ok $? "lockstat diff of the two lines' snapshots names both kernels ($orel, $nrel)"
	diag < "$dir/d"

	# 2: mmap_lock read by every fault on the old line, by few on the new
	op=$(pages "$olog") np=$(pages "$nlog")
	oa=$(acquired "$dir/old.csv" rwsem_read mm_struct "")
	na=$(acquired "$dir/new.csv" rwsem_read mm_struct "")
	echo "$orel: $oa mmap_lock reads for $op pages faulted; $nrel: $na for $np" > "$dir/d"
	[ "$op" -gt 0 ] && [ "$np" -gt 0 ] && [ "$oa" -ge "$op" ] && [ $((na * 10)) -lt "$np" ]
	ok $? "mmap_lock (mm_struct) read once per page fault on $orel, for fewer than a tenth of the faults on $nrel"
	diag < "$dir/d"

	# 3: the per-VMA lock, new on the new line, takes the faults
	ov=$(acquired "$dir/old.csv" rwsem_read vma_lock "")
	nv=$(acquired "$dir/new.csv" rwsem_read vma_lock lock_vma_under_rcu)
	st=$(status "$dir/diff.csv" rwsem_read vma_lock lock_vma_under_rcu | tr '\n' ' ')
	echo "vma_lock reads: $ov on $orel; $nv at lock_vma_under_rcu on $nrel, for $np pages; diff: ${st:-no row}" > "$dir/d"
	[ "$ov" -eq 0 ] && [ "$st" = "new " ] && [ $((nv * 10)) -ge $((np * 9)) ]
	ok $? "the per-VMA lock (vma_lock at lock_vma_under_rcu) new on $nrel, read for nine in ten faults or more"
	diag < "$dir/d"

	# 4: munmap's downgraded read hold: a renamed function, gone and new
	ob=$(measured "$olog" big_munmaps) nb=$(measured "$nlog" big_munmaps)
	om=$(acquired "$dir/old.csv" rwsem_read mm_struct do_mas_align_munmap)
	nm=$(acquired "$dir/new.csv" rwsem_read mm_struct vms_complete_munmap_vmas)
	so=$(status "$dir/diff.csv" rwsem_read mm_struct do_mas_align_munmap | tr '\n' ' ')
	sn=$(status "$dir/diff.csv" rwsem_read mm_struct vms_complete_munmap_vmas | tr '\n' ' ')
	echo "do_mas_align_munmap: $om read holds on $orel for ${ob:-?} munmap() calls, diff: ${so:-no row};" \
		"vms_complete_munmap_vmas: $nm on $nrel for ${nb:-?}, diff: ${sn:-no row}" > "$dir/d"
	[ -n "$ob" ] && [ -n "$nb" ] && [ "$ob" -gt 0 ] && [ "$om" -eq "$ob" ] && [ "$nm" -eq "$nb" ] &&
		[ "$so" = "gone " ] && [ "$sn" = "new " ]
	ok $? "munmap()'s downgraded hold of mmap_lock: gone at do_mas_align_munmap, new at vms_complete_munmap_vmas, one per munmap() on each"
	diag < "$dir/d"

	# 5: the faults' waits behind the write holds, on the old line only
	ow=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == "site" && $2 == "rwsem_read" && index($3, "mm_struct+") == 1 { s += $(col["spin"]) }
		END { print s + 0 }' "$dir/old.csv")
	nw=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == "site" && $2 == "rwsem_read" && index($3, "mm_struct+") == 1 { s += $(col["spin"]) }
		END { print s + 0 }' "$dir/new.csv")
	echo "mmap_lock reads that waited: $ow on $orel, $nw on $nrel" > "$dir/d"
	[ "$ow" -gt "$nw" ]
	ok $? "more page faults wait for mmap_lock on $orel than on $nrel"
	diag < "$dir/d"
	[ $fails -eq 0 ]
}

case ${1:-} in
snap) [ $# -eq 3 ] || die "usage: upgrade.sh snap LOG SNAP"; snap "$2" "$3" ;;
show) [ $# -eq 4 ] || die "usage: upgrade.sh show LOCKSTAT OLD.snap NEW.snap"; show "$2" "$3" "$4" ;;
check)
	[ $# -eq 6 ] || die "usage: upgrade.sh check LOCKSTAT OLD.log NEW.log DIR TAP"
	mkdir -p "$5" "$(dirname "$6")" || exit 1
	check "$2" "$3" "$4" "$5" > "$6.new"
	rc=$?
	mv "$6.new" "$6"
	cat "$6"
	exit $rc ;;
*) die "usage: upgrade.sh snap LOG SNAP | show LOCKSTAT OLD NEW | check LOCKSTAT OLD.log NEW.log DIR TAP" ;;
esac
