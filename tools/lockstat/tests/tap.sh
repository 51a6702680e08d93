# SPDX-License-Identifier: GPL-2.0
#
# tap.sh: sourced by the test runners.  tap_summary RESULTS TAP_OUT: the
# "ok - " / "not ok - " lines of RESULTS numbered, as TAP on stdout and
# in TAP_OUT when it is not empty; false when any failed.
tap_summary() {
	total=$(grep -cE '^(ok|not ok) ' "$1")
	failed=$(grep -c '^not ok ' "$1")
	{
		echo "TAP version 13"
		echo "1..$total"
		awk '/^ok / { sub(/^ok/, "ok " ++n) } /^not ok / { sub(/^not ok/, "not ok " ++n) } { print }' "$1"
		echo "# $((total - failed)) passed, $failed failed"
	} >"$1.tap"
	cat "$1.tap"
	[ -n "$2" ] && cp "$1.tap" "$2"
	[ "$failed" -eq 0 ]
}
