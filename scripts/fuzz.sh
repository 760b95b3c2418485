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
#   fuzz.sh [--kernel-flavour debug|stock] [--seed N] [--calls N] [--packets N]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
flavour=debug seed=${FUZZ_SEED:-$(( $(date +%s) % 100000 ))}
calls=${FUZZ_SYS_CALLS:-1000000} packets=${FUZZ_WIRE_PACKETS:-1000000}
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
run() { # NAME OUTPUT RUN.SH-ARGS...
	local name=$1 res=$2 t0=$SECONDS
	shift 2
	scripts/vm/run.sh --kernel-flavour "$flavour" --test "$name" --env FUZZ_SEED="$seed" \
		--test-timeout 12000 --timeout 14000 "$@" > "$res" 2>&1
	local rc=$?
	# the summary lines are in the guests' output, kept in the run's log
	local log
	log=$(sed -n 's/^run.sh: .*, log \(.*\), status .*/\1/p' "$res")
	grep -h -E '^fuzz_(sys|wire):' "$res" ${log:+"$log"} | tail -1
	if [ $rc = 0 ]; then
		echo "PASS: $name ($((SECONDS - t0)) s, seed $seed)"
	else
		grep -E '^(peer: )?FAIL|^    ' "$res" | head -20
		echo "FAIL: $name ($((SECONDS - t0)) s, seed $seed; output $res)"
	fi
	return $rc
}
rc=0
run fuzz_sys $out/sys.txt --env FUZZ_SYS_CALLS="$calls" || rc=1
# The iWARP connections bound a run (one at a time, each waits for the
# victim: 40 s against 22 s for the RoCE frames of 20000 packets on the
# stock kernel): several at once.
run twovm-fuzz-wire $out/wire.txt --two-vm --env FUZZ_WIRE_PACKETS="$packets" \
	--env FUZZ_WIRE_IWARP_THREADS="${FUZZ_WIRE_IWARP_THREADS:-4}" || rc=1
exit $rc
