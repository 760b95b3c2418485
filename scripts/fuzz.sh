#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make fuzz: the long fuzz runs, our side on the debug kernel (KASAN, lockdep,
# kmemleak, UBSAN; the runner fails a test on any report or leak):
#   fuzz_sys          rdma_fuzz_sys, FUZZ_SYS_CALLS system calls (one VM)
#   twovm-fuzz-wire   rdma_fuzz_wire, FUZZ_WIRE_PACKETS packets from the peer VM
#                     (FUZZ_WIRE_IWARP_THREADS iWARP connections at a time, 4)
# Both tests end by checking that `rdma res` is back to zero; the runner then
# unloads every module. Output and the fuzzers' summary lines in build/fuzz/.
#
# The totals (a million each by default) take longer on the debug kernel
# than a working session lasts, so they run as chunks (FUZZ_CHUNK_CALLS,
# FUZZ_CHUNK_PACKETS), each a fresh VM boot with its own seed (the base
# seed, then the next ones). On the debug kernel a chunk that passed is
# recorded under the key make check-debug's records use (the tree and the
# debug kernel: scripts/debug-kernel/records.sh) in
# Documentation/debug-records/KEY/fuzz/{sys,wire}/SEED ("COUNT DATE",
# committed like check-debug's records); the next make fuzz
# at the same key adds chunks until the totals are reached, and its last
# lines sum up every chunk counted. The first failing chunk ends the run.
#
#   fuzz.sh [--kernel-flavour debug|stock] [--seed N] [--calls N] [--packets N]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
flavour=debug seed=${FUZZ_SEED:-$(( $(date +%s) % 100000 ))}
calls=${FUZZ_SYS_CALLS:-1000000} packets=${FUZZ_WIRE_PACKETS:-1000000}
chunk_calls=${FUZZ_CHUNK_CALLS:-250000} chunk_packets=${FUZZ_CHUNK_PACKETS:-200000}
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel-flavour) flavour=$2; shift ;;
	--seed) seed=$2; shift ;;
	--calls) calls=$2; shift ;;
	--packets) packets=$2; shift ;;
	*) echo "usage: $0 [--kernel-flavour debug|stock] [--seed N] [--calls N] [--packets N]" >&2
	   exit 2 ;;
	esac
	shift
done
for t in fuzz_sys twovm-fuzz-wire; do
	[ -f selftests/vm/$t.sh ] ||
		{ echo "make fuzz: selftests/vm/$t.sh is not in this tree yet (issue 13)" >&2; exit 2; }
done
out=build/fuzz
mkdir -p $out
if [ "$flavour" = debug ]; then
	scripts/debug-kernel/build.sh > $out/build.log 2>&1 &&
		scripts/debug-kernel/modules.sh >> $out/build.log 2>&1 &&
		make -s tools >> $out/build.log 2>&1
else
	make -s modules tools > $out/build.log 2>&1
fi || { tail -30 $out/build.log; echo "FAIL: build (log $out/build.log)"; exit 1; }

# Generous limits: a million calls take about an hour on the debug kernel.
run() { # NAME OUTPUT SEED RUN.SH-ARGS...
	local name=$1 res=$2 sd=$3 t0=$SECONDS
	shift 3
	scripts/vm/run.sh --kernel-flavour "$flavour" --test "$name" --env FUZZ_SEED="$sd" \
		--test-timeout 12000 --timeout 14000 "$@" > "$res" 2>&1
	local rc=$?
	# the summary lines are in the guests' output, kept in the run's log
	local log
	log=$(sed -n 's/^run.sh: .*, log \(.*\), status .*/\1/p' "$res")
	grep -h -E '^fuzz_(sys|wire):' "$res" ${log:+"$log"} | tail -1
	if [ $rc = 0 ]; then
		echo "PASS: $name ($((SECONDS - t0)) s, seed $sd)"
	else
		grep -E '^(peer: )?FAIL|^    ' "$res" | head -20
		echo "FAIL: $name ($((SECONDS - t0)) s, seed $sd; output $res)"
	fi
	return $rc
}

# Passed chunks: "COUNT DATE SUM" in $recs/KIND/SEED (SUM: records_test_sum
# of the kind's test; a chunk counts only for the test script it ran). On
# the stock kernel (or outside a git checkout) they are kept for this run
# only.
key=""
if [ "$flavour" = debug ]; then
	. scripts/debug-kernel/records.sh
	key=$(records_key)
fi
if [ -n "$key" ]; then
	recs=$rec_root/$key/fuzz where="key $key"
else
	recs=$(mktemp -d) where="this run only"
	trap 'rm -rf "$recs"' EXIT
fi

# kind_test KIND: the VM test that runs KIND's chunks
kind_test() { [ "$1" = sys ] && echo fuzz_sys || echo twovm-fuzz-wire; }
# kind_sum KIND: the sum of that test's script (no records: none needed)
kind_sum() { [ -z "$key" ] || records_test_sum "$(kind_test "$1")"; }
# done_count KIND: what the passed chunks of KIND counted with its test as
# it is
done_count() {
	cat "$recs/$1"/* 2>/dev/null |
		awk -v s="$(kind_sum "$1")" '$3 == s { n += $1 } END { print n + 0 }'
}
# next_seed KIND: the first seed from the base one that no passed chunk
# used (a failed chunk ends the run: its seed comes first next time)
next_seed() {
	local sd=$seed
	while [ -e "$recs/$1/$sd" ]; do sd=$((sd + 1)); done
	echo "$sd"
}
# chunk KIND TOTAL SIZE: one more chunk of KIND if its total is not
# reached; 0 when it ran and passed, 1 when it failed, 2 when none was due
chunk() {
	local kind=$1 total=$2 size=$3 have n sd
	have=$(done_count "$kind")
	[ "$have" -lt "$total" ] || return 2
	n=$((total - have))
	[ "$n" -le "$size" ] || n=$size
	sd=$(next_seed "$kind")
	echo "--- $kind: $have of $total done, a chunk of $n, seed $sd"
	if [ "$kind" = sys ]; then
		run fuzz_sys "$out/sys-$sd.txt" "$sd" --env FUZZ_SYS_CALLS="$n" || return 1
	else
		# The iWARP connections bound a run (one at a time, each
		# waits for the victim: 40 s against 22 s for the RoCE frames
		# of 20000 packets on the stock kernel): several at once.
		run twovm-fuzz-wire "$out/wire-$sd.txt" "$sd" --two-vm \
			--env FUZZ_WIRE_PACKETS="$n" \
			--env FUZZ_WIRE_IWARP_THREADS="${FUZZ_WIRE_IWARP_THREADS:-4}" || return 1
	fi
	mkdir -p "$recs/$kind"
	echo "$n $(date -u +%Y-%m-%dT%H:%MZ) $(kind_sum "$kind")" > "$recs/$kind/$sd"
}

# Alternate the two kinds, so that a run stopped early has moved both.
rc=0
while :; do
	chunk sys "$calls" "$chunk_calls"; a=$?
	[ $a = 1 ] && { rc=1; break; }
	chunk wire "$packets" "$chunk_packets"; b=$?
	[ $b = 1 ] && { rc=1; break; }
	[ $a = 2 ] && [ $b = 2 ] && break
done
for kind in sys wire; do
	# the seeds of the chunks that count
	s=$(kind_sum "$kind")
	seeds=$(for f in "$recs/$kind"/*; do
		[ -f "$f" ] && [ "$(awk '{ print $3 }' "$f")" = "$s" ] && basename "$f"
	done | sort -n | tr '\n' ' ')
	echo "fuzz total: $kind $(done_count $kind) in $(echo $seeds | wc -w) chunks," \
		"seeds ${seeds}($where; each passed: no report, no leak)"
done
[ $rc = 0 ] && echo "PASS: make fuzz" || echo "FAIL: make fuzz"
exit $rc
