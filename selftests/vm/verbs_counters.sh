#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Issue 3: `rdma statistic show link rxe0/1` lists the stock rxe counters in
# the stock order, all zero on a new device; the same values are in sysfs
# ports/1/hw_counters/; traffic moves them (packets, sends, receives).
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

rxe_up || die "rxe0 up"
gi=$(ipv4_gid_index) || die "no IPv4 GID"
names="sent_pkts rcvd_pkts duplicate_request out_of_seq_request rcvd_rnr_err send_rnr_err rcvd_seq_err ack_deferred retry_exceeded_err retry_rnr_exceeded_err completer_retry_err send_err link_downed rdma_sends rdma_recvs"
want="link rxe0/1"
for n in $names; do want="$want $n 0"; done
got=$(rdma statistic show link rxe0/1)
expect_eq "new device: all counters zero, stock names and order" "$(echo $got)" "$want"

pair "rc_pingpong -n 20" 60 ibv_rc_pingpong -d rxe0 -g "$gi" -n 20 -- \
	ibv_rc_pingpong -d rxe0 -g "$gi" -n 20 127.0.0.1
set -- $(rdma statistic show link rxe0/1)
shift 2
sent=0 rcvd=0 sends=0 recvs=0 fs_sent=x
while [ $# -ge 2 ]; do
	case "$1" in
	sent_pkts) sent=$2 ;;
	rcvd_pkts) rcvd=$2 ;;
	rdma_sends) sends=$2 ;;
	rdma_recvs) recvs=$2 ;;
	esac
	shift 2
done
read -r fs_sent < /sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts
echo "after: sent_pkts $sent rcvd_pkts $rcvd rdma_sends $sends rdma_recvs $recvs (sysfs sent_pkts $fs_sent)"
[ "$sent" -ge 40 ] && ok "sent_pkts counts packets" || bad "sent_pkts $sent < 40"
[ "$rcvd" -ge 40 ] && ok "rcvd_pkts counts packets" || bad "rcvd_pkts $rcvd < 40"
[ "$sends" -ge 40 ] && ok "rdma_sends counts sends" || bad "rdma_sends $sends < 40"
[ "$recvs" -ge 40 ] && ok "rdma_recvs counts receives" || bad "rdma_recvs $recvs < 40"
[ "$fs_sent" -ge "$sent" ] && ok "sysfs hw_counters agrees" || bad "sysfs sent_pkts $fs_sent"
rdma link delete rxe0 || bad "link delete"
finish
