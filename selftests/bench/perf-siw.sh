#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest side of `make bench` for Soft-iWARP: perftest over rdma_cm (-R) in
# loopback on siw0 (ours, or upstream siw on the stock stack), and raw TCP
# (iperf3) over the same path for scale. One line per result:
#   BENCH <test> <bytes> <MB/s or -> <typical usec or ->
# On ours the bandwidth tests run first with zero-copy transmit switched off
# (debugfs), as <test>_copy, then as shipped (zero copy on).
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
siw_up || exit 1
sleep 1
a=192.0.2.1

# run_pt TEST SIZE ITERS [SUFFIX]: server in the background, client prints
# the table; the result line is named TEST plus SUFFIX.
run_pt() {
	sfx=${4:-}
	timeout 300 "$1" -d siw0 -R -s "$2" -n "$3" >/dev/null 2>&1 &
	sleep 2
	line=$(timeout 300 "$1" -d siw0 -R -s "$2" -n "$3" $a 2>/dev/null |
		grep -E "^ *$2 +[0-9]" | tail -1)
	wait
	# shellcheck disable=SC2086
	set -- "$1" "$2" $line
	case $1 in
	*_bw) echo "BENCH $1$sfx $2 ${6:--} -" ;;
	*_lat) echo "BENCH $1$sfx $2 - ${7:--}" ;;
	esac
}

zc=/sys/kernel/debug/siw/zcopy
if [ "$RDMA_KMOD_STACK" = ours ]; then
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	echo N >$zc
	for t in ib_send_bw ib_write_bw ib_read_bw; do run_pt $t 65536 1000 _copy; done
	echo Y >$zc
fi
for t in ib_send_bw ib_write_bw ib_read_bw; do run_pt $t 65536 1000; done
for t in ib_send_lat ib_write_lat ib_read_lat; do run_pt $t 2 1000; done

# The TCP stack siw runs on, same addresses, no RDMA.
iperf3 -s -1 >/dev/null 2>&1 &
sleep 1
bw=$(timeout 60 iperf3 -c $a -t 5 -f M 2>/dev/null |
	awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) == "MBytes/sec") print $i }')
wait
echo "BENCH iperf3_tcp 131072 ${bw:--} -"
rdma link delete siw0
