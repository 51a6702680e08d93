#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh FUZZER...: each libFuzzer harness of $FUZZ_BIN for $FUZZ_TIME
# seconds from its seeds (tests/fuzz/corpus/NAME, and the fixtures for the
# text parsers), then over the inputs that once failed
# (tests/fuzz/regress/NAME, if any).  TAP on stdout and in $TAP_OUT; a
# crash, a leak or a sanitizer report is a failed test, its input and
# the report's first lines in the diagnostics.  New inputs go to a
# temporary directory: the seeds in the tree are not changed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
FUZZ_BIN=${FUZZ_BIN:?}
FUZZ_TIME=${FUZZ_TIME:-8}
TAP_OUT=${TAP_OUT:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lockstat-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
results=$tmp/results
: >"$results"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# seeds NAME: the seed directories of a harness
seeds() {
	echo "$here/corpus/$1"
	case $1 in
	snap | proc) echo "$here/../fixtures" ;;
	esac
}

# fail NAME LOG: a failed test, with the report's lines as diagnostics
fail() {
	echo "not ok - $1" >>"$results"
	grep -E 'ERROR|SUMMARY|runtime error|Test unit written|^#[0-9]+ +in |^    #[0-9]' "$2" |
		head -n 25 | sed 's/^/# /' >>"$results"
}

for name in "$@"; do
	bin=$FUZZ_BIN/$name
	short=${name#fuzz_}
	mkdir -p "$tmp/$short"
	# shellcheck disable=SC2046
	"$bin" -max_total_time="$FUZZ_TIME" -seed=1 -timeout=10 -rss_limit_mb=1024 \
		-max_len=16384 -print_final_stats=1 -artifact_prefix="$tmp/$short-" \
		"$tmp/$short" $(seeds "$short") >"$tmp/$short.log" 2>&1
	got=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$short.log" | tail -n 1)
	what="fuzz $short: ${runs:-?} executions in ${FUZZ_TIME} s"
	if [ $got -eq 0 ] && [ -n "$runs" ]; then
		echo "ok - $what, no crash, leak or sanitizer report" >>"$results"
	else
		fail "$what: exit $got" "$tmp/$short.log"
		for a in "$tmp/$short-"*; do
			[ -e "$a" ] && od -A d -c "$a" | head -n 8 | sed 's/^/# input: /' >>"$results"
		done
	fi
	if [ -d "$here/regress/$short" ]; then
		if "$bin" -runs=1 "$here/regress/$short"/* >"$tmp/$short.regress" 2>&1; then
			echo "ok - fuzz $short: the inputs that once failed pass" >>"$results"
		else
			fail "fuzz $short: the inputs that once failed pass" "$tmp/$short.regress"
		fi
	fi
done

. "$here/../tap.sh"
tap_summary "$results" "$TAP_OUT"
