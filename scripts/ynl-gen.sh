#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ynl-gen.sh [--check] KSRC
#
# Generate the netlink files of Documentation/netlink/specs/lockmeter.yaml
# with KSRC's tools/net/ynl/ynl-gen-c.py, KSRC being a Linux 6.12 tree
# (build/linux-6.12 after "make tree"):
#   include/uapi/linux/lockmeter.h      the UAPI header
#   kernel/locking/lockmeter_nl_gen.h   handler prototypes, ops table
#   kernel/locking/lockmeter_nl_gen.c   policies and split ops
# The generator runs inside KSRC: it reads the schemas in
# KSRC/Documentation/netlink/ and names the spec relative to the tree's
# top, so the spec is copied there first (prepare-tree.sh puts it there
# too).  Needs python3 with yaml and jsonschema (Debian: python3-yaml,
# python3-jsonschema); the spec is validated against the schema.
#
# The generated files are committed: building and testing do not run this.
# With --check, nothing is written; exit 1 if a committed file differs.
set -eu

check=
[ "${1:-}" = --check ] && { check=1; shift; }
top=$(cd "$(dirname "$0")/.." && pwd)
ksrc=$(cd "${1:?usage: ynl-gen.sh [--check] KSRC}" && pwd)
spec=Documentation/netlink/specs/lockmeter.yaml
gen=$ksrc/tools/net/ynl/ynl-gen-c.py

die() { echo "ynl-gen: $*" >&2; exit 1; }

[ -f "$gen" ] || die "$gen missing: KSRC must be a Linux 6.12 tree"
python3 -c 'import yaml, jsonschema' 2>/dev/null ||
	die "python3 needs yaml and jsonschema (apt-get install python3-yaml python3-jsonschema)"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cmp -s "$top/$spec" "$ksrc/$spec" || cp "$top/$spec" "$ksrc/$spec"

rc=0
# mode, --header or --source, the file it makes
while read -r mode kind file; do
	name=$(basename "$file")
	(cd "$ksrc" && python3 "$gen" --mode "$mode" "$kind" --spec "$spec" \
		-o "$out/$name") || die "ynl-gen-c.py failed for $file"
	if cmp -s "$out/$name" "$top/$file"; then
		[ -n "$check" ] && echo "  SAME    $file"
	elif [ -n "$check" ]; then
		echo "  DIFFERS $file"
		diff -u "$top/$file" "$out/$name" || true
		rc=1
	else
		echo "  GEN     $file"
		cp "$out/$name" "$top/$file"
	fi
done <<EOF
uapi --header include/uapi/linux/lockmeter.h
kernel --header kernel/locking/lockmeter_nl_gen.h
kernel --source kernel/locking/lockmeter_nl_gen.c
EOF
exit $rc
