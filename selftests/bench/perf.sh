#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest side of `make bench`: perftest (and qperf when rdma_cm exists) in
# loopback on rxe0. Prints one line per result:
#   BENCH <test> <bytes> <MB/s or -> <typical usec or ->
set -u
modprobe rdma_rxe && modprobe ib_uverbs && rdma link add rxe0 type rxe netdev eth0 || exit 1
sleep 1
. "$RDMA_KMOD_SRC/selftests/lib.sh"
g4=$(gid_index_of 0000:0000:0000:0000:0000:ffff:c000:0201) || exit 1
o="-d rxe0 -x $g4 -F"

# run_pt TEST SIZE ITERS: server in the background, client prints the table.
run_pt() {
	timeout 300 "$1" $o -s "$2" -n "$3" >/dev/null 2>&1 &
	sleep 1
	line=$(timeout 300 "$1" $o -s "$2" -n "$3" 127.0.0.1 2>/dev/null |
		grep -E "^ *$2 +[0-9]" | tail -1)
	wait
	# shellcheck disable=SC2086
	set -- "$1" "$2" $line
	case $1 in
	*_bw) echo "BENCH $1 $2 ${6:--} -" ;;
	*_lat) echo "BENCH $1 $2 - ${7:--}" ;;
	esac
}

for t in ib_send_bw ib_write_bw ib_read_bw; do run_pt $t 65536 1000; done
run_pt ib_atomic_bw 8 1000
for t in ib_send_lat ib_write_lat ib_read_lat; do run_pt $t 2 1000; done

if modprobe rdma_ucm 2>/dev/null; then
	qperf >/dev/null 2>&1 &
	sleep 1
	bw=$(timeout 60 qperf -t 5 -cm1 -m 65536 192.0.2.1 rc_bw 2>&1 |
		sed -n 's/.*bw *= *\([0-9.]*\) \([KMG]\)B\/sec.*/\1 \2/p')
	lat=$(timeout 60 qperf -t 5 -cm1 192.0.2.1 rc_lat 2>&1 |
		sed -n 's/.*latency *= *\([0-9.]*\) \([um]\)s.*/\1 \2/p')
	kill %1 2>/dev/null
	echo "$bw" | awk 'NF==2{v=$1; if($2=="K")v/=1000; if($2=="G")v*=1000; print "BENCH qperf_rc_bw 65536", v, "-"}'
	echo "$lat" | awk 'NF==2{v=$1; if($2=="m")v*=1000; print "BENCH qperf_rc_lat 1 -", v}'
fi
rdma link delete rxe0
