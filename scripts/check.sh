#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make check: host-side tests (selftests/host/*.sh), then the VM selftests
# (selftests/vm/*.sh in one VM on our modules). Last line: "N passed, M failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
KVER=$(scripts/kver.sh) host=1 vm=1 only=""
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) KVER=$2; shift ;;
	--host-only) vm=0 ;;
	--vm-only) host=0 ;;
	--test) only="$only --test $2"; shift ;;
	*) echo "usage: $0 [--kver KVER] [--host-only|--vm-only] [--test NAME]" >&2; exit 2 ;;
	esac
	shift
done
mkdir -p build
passed=0 failed=0 pending=0
count() { # reads PASS:/FAIL:/XFAIL: lines
	while IFS= read -r line; do
		echo "$line"
		case "$line" in
		PASS:*) passed=$((passed + 1)) ;;
		FAIL:*|peer:\ FAIL:*) failed=$((failed + 1)) ;;
		XFAIL:*) pending=$((pending + 1)) ;;
		esac
	done
}

if [ $host = 1 ]; then
	for t in selftests/host/*.sh; do
		[ -e "$t" ] || continue
		name=$(basename "$t" .sh)
		if KVER=$KVER bash "$t" > "build/host-$name.log" 2>&1; then
			count <<< "PASS: host/$name"
		else
			tail -20 "build/host-$name.log"
			count <<< "FAIL: host/$name (log build/host-$name.log)"
		fi
	done
fi

if [ $vm = 1 ]; then
	mkdir -p build
	if ! make -s KVER="$KVER" modules tools > build/build.log 2>&1; then
		tail -40 build/build.log
		count <<< "FAIL: build (log build/build.log)"
	else
		count <<< "PASS: build (modules W=1 -Werror, tools)"
		# The distribution's consumers rebuilt on our core go into the
		# VMs beside our modules (cached: skipped when nothing changed).
		if scripts/compat/build.sh --kver "$KVER" > build/compat.log 2>&1; then
			st=build/compat/$KVER/status.txt
			awk -F'\t' '{ r = $3; if (length(r) > 110) r = substr(r, 1, 110) "...";
				print "compat: " $1 " " $2 (r != "" ? ": " r : "") }' "$st"
			count <<< "PASS: compat rebuild ($(grep -c '	built' "$st") built, $(grep -c '	blocked' "$st") blocked; $st)"
		else
			tail -5 build/compat.log
			count <<< "FAIL: compat rebuild (log build/compat.log)"
		fi
		if [ -n "$only" ]; then
			scripts/vm/run.sh --kver "$KVER" $only > build/vm-run.txt 2>&1
		else
			scripts/vm/run.sh --kver "$KVER" --all > build/vm-run.txt 2>&1
		fi
		rc=$?
		count < <(grep -E '^(PASS|FAIL|XFAIL|peer: FAIL):' build/vm-run.txt)
		grep -v -E '^(PASS|FAIL|XFAIL):' build/vm-run.txt | tail -30
		if [ $rc != 0 ] && ! grep -q -E '^(peer: )?FAIL' build/vm-run.txt; then
			count <<< "FAIL: vm run (exit $rc)"
		fi
		if ls selftests/vm/twovm-*.sh > /dev/null 2>&1 && [ -z "$only" ]; then
			scripts/vm/run.sh --kver "$KVER" --all --two-vm > build/vm-run2.txt 2>&1
			rc=$?
			count < <(grep -E '^(PASS|FAIL|peer: FAIL):' build/vm-run2.txt)
			[ $rc = 0 ] || grep -q -E '^(peer: )?FAIL' build/vm-run2.txt ||
				count <<< "FAIL: two-vm run (exit $rc)"
		fi
		# Ours against ours: the twovm tests whose "# peer-stacks:" line
		# names ours (RoCE v1 needs our stack on both ends).
		if grep -qs '^# peer-stacks:.*ours' selftests/vm/twovm-*.sh && [ -z "$only" ]; then
			scripts/vm/run.sh --kver "$KVER" --all --two-vm --peer-stack ours \
				> build/vm-run3.txt 2>&1
			rc=$?
			count < <(grep -E '^(PASS|FAIL|peer: FAIL):' build/vm-run3.txt |
				sed 's/^\(PASS\|FAIL\|peer: FAIL\): /&(peer ours) /')
			[ $rc = 0 ] || grep -q -E '^(peer: )?FAIL' build/vm-run3.txt ||
				count <<< "FAIL: two-vm run, peer ours (exit $rc)"
		fi
	fi
fi
# The failed tests' own FAIL lines (guest.sh puts them in the results,
# indented) come last, next to the summary: CI shows only the end.
if [ $failed != 0 ] && ls build/vm-run*.txt >/dev/null 2>&1; then
	echo "--- why (details in build/vm-run*.txt and the logs they name):"
	grep -h -E '^(peer: )?FAIL:|^(peer: )?    |^run.sh:' build/vm-run*.txt | grep -v '^run.sh:.*status 0' | tail -60
fi
[ $pending = 0 ] || echo "$pending pending (XFAIL: listed in selftests/vm/PENDING, not counted)"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
