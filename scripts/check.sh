#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make check: host-side tests (selftests/host/*.sh), then the VM selftests
# (selftests/vm/*.sh in one VM on our modules). Last line: "N passed, M failed".
# make check-debug (--kernel-flavour debug): the VM selftests only, our side
# on the debug kernel (scripts/debug-kernel/), results in build/debug/;
# a test passed there at the same tree is not run again (--fresh: all are;
# scripts/debug-kernel/records.sh says why).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
KVER=$(scripts/kver.sh) host=1 vm=1 only="" flavour=stock fresh=0
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) KVER=$2; shift ;;
	--host-only) vm=0 ;;
	--vm-only) host=0 ;;
	--test) only="$only --test $2"; shift ;;
	--kernel-flavour) flavour=$2; shift ;;
	--fresh) fresh=1 ;;
	*) echo "usage: $0 [--kver KVER] [--host-only|--vm-only] [--test NAME] [--kernel-flavour stock|debug [--fresh]]" >&2
	   exit 2 ;;
	esac
	shift
done
mkdir -p build
res=build
# One rebuild of the consumers serves the host tests' trees and ours
# (scripts/compat/build.sh).
export RDMA_KMOD_COMPAT_CACHE=${RDMA_KMOD_COMPAT_CACHE-$top/build/compat-cache}
run_vm() { scripts/vm/run.sh --kver "$KVER" "$@"; }
if [ "$flavour" = debug ]; then
	host=0 res=build/debug
	mkdir -p $res
	run_vm() { scripts/vm/run.sh --kver "$KVER" --kernel-flavour debug "$@"; }
fi
# The debug suite's records (scripts/debug-kernel/records.sh): their key
# (empty: none kept), and the journals of runs killed with their caller.
key=""
if [ "$flavour" = debug ]; then
	. scripts/debug-kernel/records.sh
	key=$(records_key)
	if [ -n "$key" ]; then
		[ $fresh = 0 ] || rm -rf "${rec_root:?}/$key/"{one,stock,ours}
		records_harvest_left "$key"
	fi
fi
passed=0 failed=0 pending=0
# Where make check's time goes (it should stay well under 45 min): each
# phase's seconds, and the suites' slowest tests from run.sh's log.
phase() {
	echo "time: $1 $((SECONDS - $2)) s"
	[ -z "${3:-}" ] || grep -h 'slowest: ' "$3" | sed 's/^/time: /'
}
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
		t0=$SECONDS
		if KVER=$KVER bash "$t" > "build/host-$name.log" 2>&1; then
			count <<< "PASS: host/$name ($((SECONDS - t0)) s)"
		else
			tail -20 "build/host-$name.log"
			count <<< "FAIL: host/$name (log build/host-$name.log)"
		fi
	done
fi

# The modules (and tools) the VMs run: for the stock kernel the tree's own
# build; for the debug kernel the kernel itself (built once, cached), then
# our modules and the consumers for it (scripts/debug-kernel/modules.sh).
build_vm() {
	if [ "$flavour" = debug ]; then
		scripts/debug-kernel/build.sh > /dev/null &&
			dbuild=$(scripts/debug-kernel/modules.sh) &&
			make -s tools
	else
		make -s KVER="$KVER" modules tools
	fi
}

# The distribution's consumers rebuilt on our core go into the VMs beside our
# modules (cached: skipped when nothing changed; modules.sh does it for the
# debug kernel).
build_compat() {
	[ "$flavour" = debug ] && return 0
	scripts/compat/build.sh --kver "$KVER" > build/compat.log 2>&1 || {
		tail -5 build/compat.log
		return 1
	}
}

if [ $vm = 1 ]; then
	[ "$flavour" = stock ] || scripts/debug-kernel/build.sh --print-dir > /dev/null 2>&1 ||
		echo "building the debug kernel first (an hour or more; log in its cache directory, see $res/build.log)"
	t0=$SECONDS
	if ! build_vm > $res/build.log 2>&1; then
		tail -40 $res/build.log
		count <<< "FAIL: build (log $res/build.log)"
	else
		if [ "$flavour" = debug ]; then
			count <<< "PASS: build (debug kernel, our modules and the consumers for it, tools)"
			st=$dbuild/compat/status.txt
		else
			count <<< "PASS: build (modules W=1 -Werror, tools)"
			st=build/compat/$KVER/status.txt
		fi
		phase build $t0
		t0=$SECONDS
		if build_compat && [ -s "$st" ]; then
			awk -F'\t' '{ r = $3; if (length(r) > 110) r = substr(r, 1, 110) "...";
				print "compat: " $1 " " $2 (r != "" ? ": " r : "") }' "$st"
			count <<< "PASS: compat rebuild ($(grep -c '	built' "$st") built, $(grep -c '	blocked' "$st") blocked; $st)"
		else
			count <<< "FAIL: compat rebuild (log build/compat.log)"
		fi
		phase "compat rebuild" $t0
		# run_suite SUITE FILE [ARG...]: a suite's run (run.sh's output
		# in FILE, "STATUS SECONDS" in FILE's .end): --test's tests, or
		# all of it; on the debug kernel at a known tree only the tests
		# not recorded yet, the others' records added to FILE.
		run_suite() {
			local suite=$1 file=$2 t=$SECONDS j="" rc=0 n sel=(--all) recorded=()
			shift 2
			if [ -n "$only" ]; then
				read -r -a sel <<< "$only"
			elif [ -n "${lane[$suite]:-}" ]; then
				sel=()
				for n in ${lane[$suite]}; do
					sel+=(--test "$n")
				done
			elif [ -n "$key" ]; then
				sel=()
				for n in $(records_tests "$suite"); do
					if records_has "$key" "$suite" "$n"; then
						recorded+=("$n")
					else
						sel+=(--test "$n")
					fi
				done
			fi
			: > "$file"
			if [ ${#sel[@]} != 0 ]; then
				[ -z "$key" ] || { j=$(records_journal "$key" "$suite") && sel+=(--journal "$j"); }
				run_vm "${sel[@]}" "$@" > "$file" 2>&1
				rc=$?
				[ -z "$j" ] || records_harvest "$key" "$suite" "$j"
			fi
			[ ${#recorded[@]} = 0 ] || records_show "$key" "$suite" "${recorded[@]}" >> "$file"
			echo "$rc $((SECONDS - t))" > "${file%.txt}.end"
		}
		# The two-VM suites: the stock peer, then ours as the peer (the
		# twovm tests whose "# peer-stacks:" line names ours; RoCE v1
		# needs our stack on both ends).
		two_vm_suites() {
			run_suite stock $res/vm-run2.txt --two-vm
			if grep -qs '^# peer-stacks:.*ours' selftests/vm/twovm-*.sh; then
				run_suite ours $res/vm-run3.txt --two-vm --peer-stack ours
			fi
			[ -z "${lane[one2]:-}" ] || run_suite one2 $res/vm-run4.txt
		}
		# On the stock kernel the one-VM tests marked "# rdma-kmod:
		# second-lane" run in a VM of their own after the two-VM suites,
		# so that both lanes end at about the same time.
		declare -A lane=()
		if [ "$flavour" = stock ] && [ -z "$only" ]; then
			for f in selftests/vm/*.sh; do
				n=$(basename "$f" .sh)
				case $n in twovm-*) continue ;; esac
				if grep -q '^# rdma-kmod: second-lane' "$f"; then
					lane[one2]="${lane[one2]:-} $n"
				else
					lane[one]="${lane[one]:-} $n"
				fi
			done
			[ -n "${lane[one2]:-}" ] || lane=()
		fi
		# On the stock kernel they run beside the one-VM suite: one VM
		# keeps about one of two cores busy (its tests wait on peers,
		# timers and sleeps), so side by side they take less time than
		# in turn. Not on the debug kernel: its VMs, short of CPU, slowed
		# down by tens of times (guest lock holders preempted). There
		# they run first: fewer of their tests have passed there, and a
		# failure found early costs less of a suite that outlasts a
		# session.
		pid2="" ran2=0
		rm -f $res/vm-run2.end $res/vm-run3.end $res/vm-run4.end $res/vm-run4.txt
		if ls selftests/vm/twovm-*.sh > /dev/null 2>&1 && [ -z "$only" ]; then
			ran2=1
			if [ "$flavour" = stock ]; then
				two_vm_suites &
				pid2=$!
			else
				two_vm_suites
			fi
		fi
		t0=$SECONDS
		run_suite one $res/vm-run.txt
		read -r rc _ < $res/vm-run.end
		phase "one-VM suite" $t0 $res/vm-run.txt
		count < <(grep -E '^(PASS|FAIL|XFAIL|peer: FAIL):' $res/vm-run.txt)
		grep -v -E '^(PASS|FAIL|XFAIL):|slowest: ' $res/vm-run.txt | tail -30
		if [ $rc != 0 ] && ! grep -q -E '^(peer: )?FAIL' $res/vm-run.txt; then
			count <<< "FAIL: vm run (exit $rc)"
		fi
		[ -z "$pid2" ] || wait $pid2
		# suite_result FILE NAME [PREFIX]: counts a suite the job above ran
		suite_result() {
			local rc=1 t=0
			read -r rc t < "${1%.txt}.end" 2>/dev/null
			echo "time: $2 $t s"
			grep -h 'slowest: ' "$1" | sed 's/^/time: /'
			count < <(grep -E '^(PASS|FAIL|peer: FAIL):' "$1" |
				sed "s/^\(PASS\|FAIL\|peer: FAIL\): /&${3:-}/")
			[ "$rc" = 0 ] || grep -q -E '^(peer: )?FAIL' "$1" ||
				count <<< "FAIL: $2 (exit $rc)"
		}
		if [ $ran2 = 1 ]; then
			suite_result $res/vm-run2.txt "two-VM suite, stock peer"
			[ -e $res/vm-run3.end ] &&
				suite_result $res/vm-run3.txt "two-VM suite, peer ours" "(peer ours) "
			[ -e $res/vm-run4.end ] &&
				suite_result $res/vm-run4.txt "one-VM suite, second lane"
		fi
	fi
fi
# The failed tests' own FAIL lines (guest.sh puts them in the results,
# indented) come last, next to the summary: CI shows only the end.
if [ $failed != 0 ] && ls $res/vm-run*.txt >/dev/null 2>&1; then
	echo "--- why (details in $res/vm-run*.txt and the logs they name):"
	grep -h -E '^(peer: )?FAIL:|^(peer: )?    |^run.sh:' $res/vm-run*.txt | grep -v '^run.sh:.*status 0' | tail -60
fi
[ $pending = 0 ] || echo "$pending pending (XFAIL: listed in selftests/vm/PENDING, not counted)"
echo "time: make check $SECONDS s"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
