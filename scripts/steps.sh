#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# steps.sh table STEPS
#	The steps of one make check (STEPS, as scripts/step.sh writes it):
#	each step's start, counted from the first, and its wall time, in the
#	order they started, then the whole run (the line "all of make
#	check", which make check adds, or from the first start to the last
#	end).  The kernel builds run one
#	after the other in one lane, the host tests and the boots in the
#	other, so two steps overlap in time.
# steps.sh readme COLD WARM README
#	Rewrite the table of README between the lines "<!-- steps: begin -->"
#	and "<!-- steps: end -->" from two such files: a cold run (empty
#	ccache) and a warm one.
set -eu

table() {
	sort -t '	' -k2,2n -k1,1 "$1" | awk -F '\t' '
		NR == 1 { t0 = $2 }
		{
			if ($3 > end) end = $3
			if ($1 == "all of make check") next
			st = $2 - t0; w = $3 - $2
			printf "  %-46s %3d:%02d  %4dm%02ds%s\n", $1, st / 60, st % 60,
			       w / 60, w % 60, ($4 == 0 ? "" : "  (exit " $4 ")")
		}
		END {
			if (NR) {
				w = end - t0
				printf "  %-46s %6s  %4dm%02ds\n", "all of make check", "",
				       w / 60, w % 60
			}
		}'
}

readme() {
	cold=$1 warm=$2 readme=$3
	new=$(mktemp)
	trap 'rm -f "$new"' EXIT
	{
		echo '| step of `make check` | cold: starts at | cold: wall | warm: starts at | warm: wall |'
		echo '|---|---|---|---|---|'
		for f in "$cold" "$warm"; do
			sort -t '	' -k2,2n "$f" | awk -F '\t' -v tag="$f" '
				NR == 1 { t0 = $2 }
				{ if ($3 > end) end = $3
				  if ($1 != "all of make check")
					printf "%s\t%d\t%d\n", $1, $2 - t0, $3 - $2 }
				END { printf "**all of make check**\t0\t%d\n", end - t0 }'
			echo '--'
		done | awk -F '\t' '
			function mmss(s) { return sprintf("%d:%02d", s / 60, s % 60) }
			BEGIN { run = 0 }
			$0 == "--" { run++; next }
			{
				if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
				st[run, $1] = mmss($2); w[run, $1] = mmss($3)
			}
			END {
				# the total last, after steps only one run has
				tot = "**all of make check**"
				for (i = 1; i <= n + 1; i++) {
					k = i <= n ? order[i] : tot
					if ((i <= n) == (k == tot))
						continue
					printf "| %s | %s | %s | %s | %s |\n", k,
					       ((0, k) in st) ? st[0, k] : "", ((0, k) in w) ? w[0, k] : "",
					       ((1, k) in st) ? st[1, k] : "", ((1, k) in w) ? w[1, k] : ""
				}
			}'
	} > "$new"
	awk -v table="$new" '
		/^<!-- steps: begin -->$/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
		/^<!-- steps: end -->$/ { skip = 0 }
		!skip' "$readme" > "$readme.new"
	grep -q '^<!-- steps: begin -->$' "$readme.new" ||
		{ rm -f "$readme.new"; echo "steps.sh: no steps block in $readme" >&2; exit 1; }
	mv "$readme.new" "$readme"
}

case ${1:-} in
table) [ $# -eq 2 ] && table "$2" ;;
readme) [ $# -eq 4 ] && readme "$2" "$3" "$4" ;;
*) echo "usage: steps.sh table STEPS | readme COLD WARM README" >&2; exit 2 ;;
esac
