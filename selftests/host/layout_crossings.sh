#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The layout crossings (layout_crossings.c) are identical with the stock
# 6.1 headers and with ours: the probe is compiled to assembly once against
# each, and every offset or size it emits must match. A field our headers
# lack fails the build of our side; a differing value fails by name.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
KVER=${KVER:-$("$top/scripts/kver.sh")}
kdir=$("$top/scripts/kver.sh" --kdir "$KVER")
[ -d "$kdir" ] || { echo "FAIL: no kernel headers at $kdir"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

probe() { # SIDE [NOSTDINC_FLAGS]: prints "name value" lines
	local side=$1 inc=${2:-}
	mkdir -p "$work/$side"
	cp "$top/selftests/host/layout_crossings.c" "$work/$side/"
	echo 'obj-m := layout_crossings.o' > "$work/$side/Kbuild"
	if ! make -s -C "$kdir" M="$work/$side" NOSTDINC_FLAGS="$inc" \
		layout_crossings.s > "$work/$side.log" 2>&1; then
		echo "FAIL: the probe does not compile against the $side headers:" >&2
		grep -m10 'error' "$work/$side.log" >&2
		return 1
	fi
	sed -n 's/^.*->\([A-Za-z0-9_]*\) \$\{0,1\}\([0-9-]*\) .*$/\1 \2/p' \
		"$work/$side/layout_crossings.s" | sort
}

probe stock > "$work/stock.txt" || exit 1
probe ours "-I$top/include -I$top/include/uapi" > "$work/ours.txt" || exit 1
n=$(wc -l < "$work/stock.txt")
[ "$n" -gt 20 ] || { echo "FAIL: only $n values from the stock probe"; exit 1; }

bad=0
while read -r name want; do
	got=$(awk -v n="$name" '$1 == n { print $2 }' "$work/ours.txt")
	if [ -z "$got" ]; then
		echo "FAIL: $name: missing from our probe"
		bad=$((bad + 1))
	elif [ "$got" != "$want" ]; then
		echo "FAIL: $name: $got with our headers, $want with the stock ones"
		bad=$((bad + 1))
	fi
done < "$work/stock.txt"
if [ $bad != 0 ]; then
	echo "$bad of $n crossing values differ"
	exit 1
fi
echo "PASS: $n crossing values equal the stock layout"
