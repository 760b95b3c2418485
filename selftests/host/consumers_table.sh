#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Documentation/consumers.md's table and the README's summary of it agree
# with what decides them: our Kbuild, scripts/compat/consumers.txt and a
# rebuild of the consumers (make compat; reused while nothing changed).
# (A README naming another Debian ABI number passes with a note: table.sh.)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
KVER=${KVER:-$("$top/scripts/kver.sh")}
[ "${1:-}" = --kver ] && KVER=$2
make -C "$top" -s KVER="$KVER" modules
bash "$top/scripts/compat/build.sh" --kver "$KVER"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if "$top/scripts/compat/table.sh" --kver "$KVER" --check > "$out"; then
	cat "$out"
	echo "the consumers table agrees with the build"
	exit 0
fi
cat "$out"
exit 1
