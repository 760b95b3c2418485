#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Issue 3: `rdma statistic show link rxe0/1` lists the stock rxe counters in
# the stock order, all zero on a new device; the same values are in sysfs
# ports/1/hw_counters/; traffic moves them (packets, sends, receives).
# Ours adds two counters after the stock ones: sent_pkts_roce_v1 and
# rcvd_pkts_roce_v1, the RoCE v1 share of sent_pkts and rcvd_pkts.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

rxe_up || die "rxe0 up"
gi=$(ipv4_gid_index) || die "no IPv4 GID"
names="sent_pkts rcvd_pkts duplicate_request out_of_seq_request rcvd_rnr_err send_rnr_err rcvd_seq_err ack_deferred retry_exceeded_err retry_rnr_exceeded_err completer_retry_err send_err link_downed rdma_sends rdma_recvs"
[ "$RDMA_KMOD_STACK" = stock ] || names="$names sent_pkts_roce_v1 rcvd_pkts_roce_v1"
want="link rxe0/1"
for n in $names; do want="$want $n 0"; done
got=$(rdma statistic show link rxe0/1)
expect_eq "new device: all counters zero, stock names and order (then ours)" \
	"$(echo $got)" "$want"

pair "rc_pingpong -n 20" 60 ibv_rc_pingpong -d rxe0 -g "$gi" -n 20 -- \
	ibv_rc_pingpong -d rxe0 -g "$gi" -n 20 127.0.0.1
set -- $(rdma statistic show link rxe0/1)
shift 2
sent=0 rcvd=0 sends=0 recvs=0 fs_sent=x v1=0
while [ $# -ge 2 ]; do
	case "$1" in
	sent_pkts) sent=$2 ;;
	rcvd_pkts) rcvd=$2 ;;
	rdma_sends) sends=$2 ;;
	rdma_recvs) recvs=$2 ;;
	sent_pkts_roce_v1) v1=$2 ;;
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
expect_eq "RoCE v2 traffic: no RoCE v1 packets" "$v1" 0
rdma link delete rxe0 || bad "link delete"
finish
