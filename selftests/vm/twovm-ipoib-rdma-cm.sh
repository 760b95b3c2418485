#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 16: rdma_cm over IPoIB addresses between two VMs on sib, swept by an
# unmodified OpenSM in the server VM (selftests/sib.sh; our ib_ipoib in
# datagram mode on both). What connects went through rdma_cm's InfiniBand
# side across the VMs: the peer's 20-byte hardware address by ARP, the
# route as a PathRecord from the SA in the server VM, ib_cm's REQ over the
# path's LIDs, the listener found through ib_ipoib's interface. rping -v -V
# with each VM as the server, and over IPv6; ucmatose -c 10; ib_send_bw -R,
# whose remote LID is the peer's (the path's); qperf -cm1 rc_bw. OpenSM
# killed: no route (ROUTE_ERROR at once, the SM's port refuses the SA
# class), the ports stay ACTIVE; restarted: LIDs kept and rping connects
# again through the new SA.
# Ours on both ends: the stock kernel has no sib.
# peer-stacks: ours
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/sib.sh"

# cm_step NAME SERVER-ROLE TIMEOUT PEER CMD...: step (lib.sh), the client
# given PEER (an IPoIB address) rather than the peer's eth0 address
cm_step() {
	cs_ip=$RDMA_KMOD_PEER_IP cs_name=$1 cs_role=$2 cs_limit=$3
	RDMA_KMOD_PEER_IP=$4
	shift 4
	step "$cs_name" "$cs_role" "$cs_limit" "$@"
	RDMA_KMOD_PEER_IP=$cs_ip
}

# serves ROLE: this VM is the server of a step whose server role is ROLE
serves() {
	[ "$RDMA_KMOD_ROLE" = "$1" ]
}

# rping_step NAME ROLE ADDR PEER-ADDR COUNT: rping -v -V, the VM of ROLE
# serving on its ADDR, the other connecting to its PEER-ADDR (the same
# address); the client checks every ping came back verified
rping_step() {
	if serves "$2"; then
		cm_step "$1" "$2" $((120 * tf)) "$4" rping -s -a "$3" -C "$5" -v -V
	else
		cm_step "$1" "$2" $((120 * tf)) "$4" rping -c -C "$5" -v -V -a
		grep -q "ping data: rdma-ping-$(($5 - 1))" /tmp/step.out &&
			ok "$1: $5 pings verified" || bad "$1: $(tail -3 /tmp/step.out)"
	fi
}

show_state() {
	ip neigh show dev $IF
	rdma resource show cm_id
	dmesg | grep -iE "ipoib|rdma_cm|ib0|sib" | tail -30
}

sib2_ipoib_up
PEER_LID=$(peer_exchange "$LID")
peer_barrier
ping -c 1 -W $((30 * tf)) $PEER4 > /tmp/ping.out 2>&1 || echo "warm-up: $(tail -2 /tmp/ping.out)"
ping -6 -c 1 -W $((30 * tf)) $PEER6 > /tmp/ping.out 2>&1 || echo "warm-up: $(tail -2 /tmp/ping.out)"
peer_barrier
ping -c 2 -W 10 $PEER4 > /tmp/ping.out 2>&1 && ok "IPoIB: $IF pings $PEER4" ||
	bad "IPoIB: no ping to $PEER4: $(tail -2 /tmp/ping.out)"
echo "module rdma_cm +p" > /sys/kernel/debug/dynamic_debug/control 2>/dev/null
peer_barrier

echo "--- rping -V"
for sr in server client; do
	rping_step "rping -V, the $sr VM serving" $sr $ME4 $PEER4 20
	peer_barrier
done
rping_step "rping -V over IPv6" server $ME6 $PEER6 5
peer_barrier
[ $fails = 0 ] || show_state

echo "--- ucmatose, perftest -R, qperf -cm1"
if serves server; then
	cm_step "ucmatose -c 10" server $((180 * tf)) $PEER4 ucmatose -c 10 -b $ME4
else
	cm_step "ucmatose -c 10" server $((180 * tf)) $PEER4 ucmatose -c 10 -s
fi
peer_barrier
cm_step "ib_send_bw -R" server $((180 * tf)) $PEER4 ib_send_bw -d sib0 -R -F -n 200
rl=$(sed -n 's/.*remote address: LID \(0x[0-9a-fA-F]*\).*/\1/p' /tmp/step.out | head -1)
[ -n "$rl" ] && [ $((rl)) = $((PEER_LID)) ] &&
	ok "ib_send_bw -R: the remote LID $rl is the peer's (the path's)" ||
	bad "ib_send_bw -R: remote LID '$rl', the peer has $PEER_LID"
peer_barrier
if serves server; then
	qperf > /tmp/qperf.srv 2>&1 &
	qp=$!
	wait_tcp_listen 19765 $((100 * tf)) || bad "no qperf server"
	peer_barrier
	peer_barrier
	kill $qp 2>/dev/null
	wait $qp 2>/dev/null
else
	peer_barrier
	# qperf may crash at its exit (libibverbs, on RoCE too): its report counts
	out=$(timeout $((120 * tf)) qperf -t 2 -cm1 $PEER4 rc_bw 2>&1)
	echo "$out" | grep -qE "bw *= *[0-9.]+ " && ok "qperf -cm1 rc_bw: $(echo "$out" |
		grep -E 'bw *=' | tr -s ' ')" || bad "qperf -cm1 rc_bw: $out"
	peer_barrier
fi
[ $fails = 0 ] || show_state

echo "--- OpenSM killed: no route; restarted: rdma_cm again"
osm2_stop
start=$(date +%s)
timeout $((60 * tf)) rping -c -a $PEER4 -C 1 -v > /tmp/rping.t 2>&1
rc=$? took=$(($(date +%s) - start))
[ $rc != 124 ] && grep -q ROUTE_ERROR /tmp/rping.t &&
	ok "no SA: ROUTE_ERROR after ${took}s" ||
	bad "rping with OpenSM gone: rc $rc: $(cat /tmp/rping.t)"
peer_barrier
osm2_restart
carrier_on $IF || bad "$IF: no carrier after the restart"
rping_step "rping -V through the restarted SA" client $ME4 $PEER4 10
[ $fails = 0 ] || show_state

sib2_down
finish
