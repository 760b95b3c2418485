#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 3 acceptance: perftest bandwidth and latency tests and qperf in
# loopback on rxe0 complete (perftest checks its own data where it can).
# Numbers are printed, never asserted: that is `make bench`'s job. qperf is
# verbs_qperf.sh.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

rxe_up || { bad "rxe0 up"; finish; exit; }
sleep 1
g4=$(gid_index_of 0000:0000:0000:0000:0000:ffff:c000:0201)

o="-d rxe0 -x $g4 -F"
# A slow kernel (the debug one moves a thirtieth of the bytes: 0.7 MB/s
# against 20) runs fewer iterations, and in place of the -a sweeps (2 B to
# 8 MiB, hours there) the sizes whose paths differ: one byte, one packet
# and a bit, many packets unaligned, a large MR.
n=200 sweep="-a -n 5"
slow_kernel && n=50 sweep=""
for t in ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_send_lat ib_write_lat ib_read_lat; do
	pair "$t" 120 $t $o -n $n -- $t $o -n $n 127.0.0.1
	grep -E '^ +[0-9]' /tmp/pair.cli | tail -1
done
for t in ib_write_bw ib_read_bw; do
	if [ -n "$sweep" ]; then
		pair "$t -a" 300 $t $o $sweep -- $t $o $sweep 127.0.0.1
		continue
	fi
	for sz in 1 1025 65539 1048576; do
		pair "$t -s $sz" 120 $t $o -s $sz -n 5 -- $t $o -s $sz -n 5 127.0.0.1
	done
done

rdma link delete rxe0 || bad "link delete"
finish
