#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Documentation/consumers.md's table and the README's summary of it agree
# with what decides them: our Kbuild, scripts/compat/consumers.txt and a
# rebuild of the consumers (make compat; reused while nothing changed).
#
# The README names the Debian kernel the table was made on. Debian bumps
# its ABI number (6.1.0-56 -> 6.1.0-57) with point releases, and CI installs
# whatever is current, so a difference in that number alone is a stale
# version in the text, not a disagreement: it passes with a note.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
KVER=${KVER:-$("$top/scripts/kver.sh")}
[ "${1:-}" = --kver ] && KVER=$2
make -C "$top" -s KVER="$KVER" modules
bash "$top/scripts/compat/build.sh" --kver "$KVER"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if "$top/scripts/compat/table.sh" --kver "$KVER" --check > "$out"; then
	echo "the consumers table agrees with the build"
	exit 0
fi
# The changed lines of the diff, with every Debian 6.1 kernel name made one.
changed() { # SIGN
	grep -E "^[$1][^-+]" "$out" | cut -c2- |
		sed -E 's/6\.1\.0-[0-9]+-amd64/6.1.0-N-amd64/g'
}
removed=$(changed -) added=$(changed +)
if [ -n "$removed" ] && [ "$removed" = "$added" ]; then
	echo "the consumers table agrees with the build; the README names another" \
		"Debian ABI number than $KVER (scripts/compat/table.sh --write updates it)"
	exit 0
fi
cat "$out"
exit 1
