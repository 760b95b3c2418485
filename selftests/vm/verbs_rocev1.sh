#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# RoCE v1 in loopback on rxe0 (ours only: the stock rxe is RoCE v2 only).
# The libibverbs pingpongs with -g and perftest with -x on the RoCE v1 GIDs
# (IPv4-mapped, and the link-local one), each end checking its data; the
# kernel verbs test module on the RoCE v1 GID; then the packet counters:
# every packet of those runs was RoCE v1 (sent_pkts_roce_v1 and
# rcvd_pkts_roce_v1 moved exactly as sent_pkts and rcvd_pkts). UD multicast
# over RoCE v1 is VerbsMcast.RoceV1Group (verbs_bad_input); the wire is
# twovm-rocev1.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

if [ "$RDMA_KMOD_STACK" = stock ]; then
	ok "stock rxe: RoCE v2 only, nothing to test"
	finish
	exit
fi
rxe_up || die "rxe0 up"
g1=$(ipv4_gid_index "IB/RoCE v1") || die "no IPv4 RoCE v1 GID"
ll=$(gid_index_of fe80:0000:0000:0000:5054:00ff:fe12:3451 "IB/RoCE v1") ||
	die "no link-local RoCE v1 GID"
g2=$(ipv4_gid_index) || die "no IPv4 RoCE v2 GID"
expect_eq "v1 entry right before the v2 entry of the address" "$((g1 + 1))" "$g2"
echo "RoCE v1 GID index IPv4 $g1, link-local $ll"

hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
read -r s0 <$hw/sent_pkts
read -r r0 <$hw/rcvd_pkts
read -r s1_0 <$hw/sent_pkts_roce_v1
read -r r1_0 <$hw/rcvd_pkts_roce_v1

o="-d rxe0 -g $g1"
# 64 KiB messages: 200 of them, 40 on a slow kernel (the debug one ran out
# of time on 200 under load)
nbig=200
slow_kernel && nbig=40
pair "rc_pingpong RoCE v1" 60 ibv_rc_pingpong $o -n 100 -- ibv_rc_pingpong $o -n 100 127.0.0.1
pair "rc_pingpong -s 65536 RoCE v1" 120 ibv_rc_pingpong $o -s 65536 -n $nbig -- \
	ibv_rc_pingpong $o -s 65536 -n $nbig 127.0.0.1
pair "uc_pingpong RoCE v1" 60 ibv_uc_pingpong $o -- ibv_uc_pingpong $o 127.0.0.1
pair "ud_pingpong RoCE v1" 60 ibv_ud_pingpong $o -- ibv_ud_pingpong $o 127.0.0.1
pair "srq_pingpong RoCE v1" 60 ibv_srq_pingpong $o -- ibv_srq_pingpong $o 127.0.0.1
o="-d rxe0 -g $ll"
pair "rc_pingpong RoCE v1 link-local" 60 ibv_rc_pingpong $o -- ibv_rc_pingpong $o 127.0.0.1
pair "ud_pingpong RoCE v1 link-local" 60 ibv_ud_pingpong $o -- ibv_ud_pingpong $o 127.0.0.1

o="-d rxe0 -x $g1 -F"
for t in ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw; do
	pair "$t RoCE v1" 120 $t $o -n 200 -- $t $o -n 200 127.0.0.1
	grep -E '^ +[0-9]' /tmp/pair.cli | tail -1
done
pair "ib_send_bw -c UD RoCE v1" 120 ib_send_bw $o -c UD -n 200 -- \
	ib_send_bw $o -c UD -n 200 127.0.0.1

ko=selftests/kmod/rdma_verbs_test.ko
if [ -f $ko ] && insmod $ko dev=rxe0 roce_v1=1; then
	ok "kernel verbs (rdma_verbs_test roce_v1=1): all checks passed"
	rmmod rdma_verbs_test || bad "rmmod rdma_verbs_test"
else
	bad "kernel verbs over RoCE v1"
	dmesg | grep 'rdma_verbs_test:' | tail -20
fi

read -r s <$hw/sent_pkts
read -r r <$hw/rcvd_pkts
read -r s1 <$hw/sent_pkts_roce_v1
read -r r1 <$hw/rcvd_pkts_roce_v1
echo "sent $((s - s0)) (RoCE v1 $((s1 - s1_0))), received $((r - r0)) (RoCE v1 $((r1 - r1_0)))"
expect_eq "every packet sent was RoCE v1" "$((s1 - s1_0))" "$((s - s0))"
expect_eq "every packet received was RoCE v1" "$((r1 - r1_0))" "$((r - r0))"
[ $((s1 - s1_0)) -ge 1000 ] && ok "RoCE v1 packets counted" || bad "few RoCE v1 packets"

rdma link delete rxe0 || bad "link delete"
finish
