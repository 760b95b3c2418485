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
for t in ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_send_lat ib_write_lat ib_read_lat; do
	pair "$t" 120 $t $o -n 200 -- $t $o -n 200 127.0.0.1
	grep -E '^ +[0-9]' /tmp/pair.cli | tail -1
done
# The size sweeps check every size, not speed: a slow kernel (the debug one
# moves a tenth of the bytes) runs fewer iterations of each.
n=20
[ "${RDMA_KMOD_TIME_FACTOR:-1}" = 1 ] || n=8
pair "ib_write_bw -a" 300 ib_write_bw $o -a -n $n -- ib_write_bw $o -a -n $n 127.0.0.1
pair "ib_read_bw -a" 300 ib_read_bw $o -a -n $n -- ib_read_bw $o -a -n $n 127.0.0.1

rdma link delete rxe0 || bad "link delete"
finish
