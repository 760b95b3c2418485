#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 16: IPoIB (our ib_ipoib) between two VMs on sib, swept by an
# unmodified OpenSM in the server VM (selftests/sib.sh). Datagram mode:
# carrier once the broadcast group is joined, MTU 2044, IPv4 and IPv6
# pings both ways, the neighbour entries holding the peer's 20-byte
# address, 4 MiB over TCP compared by sha256. OpenSM killed: the ports stay
# ACTIVE and carry IPoIB; restarted under a running ping: LIDs kept, the
# groups joined again after its client reregistration, the ping goes on, a
# flushed neighbour is found again (ARP over the broadcast group, a
# PathRecord from the new SA). Connected mode (sysfs on one side, netlink on
# the other): MTU 65520, 60000-byte pings both ways with no IP fragment made
# or reassembled, RC QPs in `rdma resource`, iperf3 and the TCP transfer
# again. A P_Key 0x8002 child (`ip link add ... type ipoib pkey 0x8002`)
# in the partition OpenSM's partitions.conf gives both ports: its
# broadcast group, a ping over it, its own neighbour entry.
# Ours on both ends: the stock kernel has no sib.
# peer-stacks: ours
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/sib.sh"

# ipstat FIELD: the Ip: counter FIELD of /proc/net/snmp
ipstat() {
	awk -v f="$1" '/^Ip: [A-Z]/ { for (i = 2; i <= NF; i++) if ($i == f) c = i }
		/^Ip: [0-9]/ { print $c }' /proc/net/snmp
}

# tcp_bulk WHAT PORT MIB: MIB MiB of random bytes from the client VM to the
# server VM's IPoIB address; each side reports the sha256 of what it sent
# or received, both compare.
tcp_bulk() {
	if is_sm; then
		tcp_recv "timeout $((120 * tf))" $ME4 $2 /tmp/bulk.out &
		bp=$!
		wait_tcp_listen $2 $((100 * tf)) || bad "$1: no receiver listening"
		peer_exchange listening >/dev/null
		wait $bp || bad "$1: receiver"
		sum=$(sha256sum < /tmp/bulk.out)
	else
		head -c $(($3 << 20)) /dev/urandom > /tmp/bulk.in
		peer_exchange ready >/dev/null
		tcp_send $PEER4 $2 /tmp/bulk.in || bad "$1: sender"
		sum=$(sha256sum < /tmp/bulk.in)
	fi
	sum=${sum%% *}
	other=$(peer_exchange "$sum")
	[ "$other" = "$sum" ] && ok "$1: $3 MiB over TCP, sha256 equal on both sides" ||
		bad "$1: sha256 $sum here, $other on the peer"
	rm -f /tmp/bulk.in /tmp/bulk.out
}

# xmit_pkts: PortXmitPkts of sib0's port, through its PMA
xmit_pkts() {
	perfquery -C sib0 -P 1 | sed -n "s/^PortXmitPkts:\.*//p"
}

# ping_ok WHAT ARGS...: every ping of busybox ping ARGS answered
ping_ok() {
	pw=$1
	shift
	if ping "$@" > /tmp/ping.out 2>&1 && grep -q " 0% packet loss" /tmp/ping.out; then
		ok "$pw: $(grep -o '[0-9]* packets received' /tmp/ping.out)"
	else
		bad "$pw: $(tail -3 /tmp/ping.out)"
	fi
}

show_state() {
	ip -s -d link show $IF
	ip neigh show dev $IF
	rdma statistic show link sib0/1
	rdma resource show qp
	dmesg | grep -iE "ipoib|ib0|sib" | tail -40
}

sib2_ipoib_up

echo "--- datagram mode"
d=$(ip -d link show $IF)
echo "$d" | grep -q "link/infiniband" && echo "$d" | grep -q "ipoib pkey 0xffff mode datagram" &&
	ok "$IF: link/infiniband, pkey 0xffff, mode datagram" || bad "ip -d link show $IF: $d"
expect_eq "$IF MTU from the broadcast group" "$(cat $net/$IF/mtu)" 2044
expect_eq "$IF address length" "$(cat $net/$IF/addr_len)" 20
expect_eq "the peer's address: 20 bytes" "$(echo "$PEER_HW" | tr ':' '\n' | grep -c .)" 20
peer_barrier
# the first packet waits for ARP and the PathRecord queries at the peer's SA
ping -c 1 -W $((30 * tf)) $PEER4 > /tmp/ping.out 2>&1 || echo "warm-up: $(tail -2 /tmp/ping.out)"
peer_barrier
tx=$(cat $net/$IF/statistics/tx_packets) pkts=$(xmit_pkts)
ping_ok "ping $PEER4" -c 5 -i 0.3 -W 5 $PEER4
tx2=$(cat $net/$IF/statistics/tx_packets) pkts2=$(xmit_pkts)
[ $((tx2 - tx)) -ge 5 ] && [ $((pkts2 - pkts)) -ge 5 ] 2>/dev/null &&
	ok "$IF sent $((tx2 - tx)) packets, sib0 $((pkts2 - pkts)) IB packets" ||
	bad "counters: $IF tx $tx -> $tx2, sib0 PortXmitPkts $pkts -> $pkts2"
neigh_is $PEER4 $IF "$PEER_HW" && ok "ARP: $PEER4 is $PEER_HW" ||
	bad "ARP: $(ip neigh show $PEER4 dev $IF)"
ping_ok "ping -6 $PEER6" -6 -c 3 -i 0.3 -W 5 $PEER6
neigh_is $PEER6 $IF "$PEER_HW" && ok "ND: $PEER6 is $PEER_HW" ||
	bad "ND: $(ip -6 neigh show $PEER6 dev $IF)"
peer_barrier
tcp_bulk "datagram mode" 5300 4
[ $fails = 0 ] || show_state

echo "--- OpenSM killed, then restarted under a ping"
osm2_stop
ping_ok "ping $PEER4 without an SM" -c 3 -i 0.3 -W 5 $PEER4
peer_barrier
# not the function: SIGINT must reach busybox, which prints its summary
busybox ping -i 0.5 -W 2 $PEER4 > /tmp/ping.sm 2>&1 &
pp=$!
sleep 2
osm2_restart
carrier_on $IF && ok "$IF carrier on after the restart" || bad "$IF: no carrier after the restart"
# the ping's last few answered: traffic went on
sleep 3
kill -INT $pp
wait $pp
sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' /tmp/ping.sm)
got=$(grep -c "bytes from" /tmp/ping.sm)
# the last one sent may have met the SIGINT before its answer
last=$((${sent:-0} - 2))
grep -q "seq=$last " /tmp/ping.sm && grep -q "seq=$((last - 1)) " /tmp/ping.sm &&
	ok "ping across the restart: $got of $sent answered, the last ones too" ||
	bad "ping across the restart: $(tail -4 /tmp/ping.sm)"
peer_barrier
ip neigh flush dev $IF
# Both sides flush and ping at once, seconds after the SM's restart: a
# packet met by a PathRecord query the restarting SA did not answer is
# dropped (counted in tx_dropped, the path retried a second later), as an
# IP network may; the later ones must all be answered.
txd0=$(cat /sys/class/net/$IF/statistics/tx_dropped)
ping -c 6 -i 0.3 -W $((10 * tf)) $PEER4 > /tmp/ping.out 2>&1
if grep -q "seq=3 " /tmp/ping.out && grep -q "seq=4 " /tmp/ping.out &&
	grep -q "seq=5 " /tmp/ping.out; then
	txd=$(($(cat /sys/class/net/$IF/statistics/tx_dropped) - txd0))
	ok "ping $PEER4 after a neighbour flush (ARP, a PathRecord from the new SA): $(grep -o '[0-9]* packets received' /tmp/ping.out) of 6, the last 3 answered; tx_dropped +$txd"
else
	bad "ping $PEER4 after a neighbour flush: $(tail -4 /tmp/ping.out)"
fi
neigh_is $PEER4 $IF "$PEER_HW" && ok "ARP again: $PEER4 is $PEER_HW" ||
	bad "ARP again: $(ip neigh show $PEER4 dev $IF)"
[ $fails = 0 ] || show_state

echo "--- connected mode"
peer_barrier
if is_sm; then
	ip link set $IF type ipoib mode connected && ok "$IF: netlink mode connected" ||
		bad "ip link set $IF type ipoib mode connected"
else
	echo connected > $net/$IF/mode && ok "$IF: sysfs mode connected" ||
		bad "sysfs mode connected"
fi
expect_eq "$IF mode" "$(cat $net/$IF/mode)" connected
ip -d link show $IF | grep -q "mode connected" && ok "ip -d link: mode connected" ||
	bad "ip -d link: $(ip -d link show $IF)"
expect_eq "$IF MTU" "$(cat $net/$IF/mtu)" 65520
peer_barrier
# the first packets wait for the RC link (ib_cm's REQ over the path's LIDs)
ping -c 2 -W $((30 * tf)) $PEER4 > /tmp/ping.out 2>&1 || echo "warm-up: $(tail -2 /tmp/ping.out)"
# counted before the barrier: the peer's first ping may come before a
# slow read here, its answer would go uncounted
fc=$(ipstat FragCreates) rr=$(ipstat ReasmReqds) tx=$(cat $net/$IF/statistics/tx_packets)
peer_barrier
ping_ok "ping -s 60000 $PEER4" -c 5 -s 60000 -W 10 $PEER4
peer_barrier
expect_eq "IP fragments made here" "$(ipstat FragCreates)" "$fc"
expect_eq "IP fragments reassembled here" "$(ipstat ReasmReqds)" "$rr"
tx2=$(cat $net/$IF/statistics/tx_packets)
[ $((tx2 - tx)) -ge 10 ] && [ $((tx2 - tx)) -le 20 ] &&
	ok "$IF sent $((tx2 - tx)) packets for 5 large pings and 5 large answers" ||
	bad "$IF sent $((tx2 - tx)) packets for 5 large pings and 5 large answers"
nrc=$(rdma resource show qp link sib0/1 2>/dev/null | grep -c "type RC")
[ "$nrc" -ge 2 ] && ok "RC QPs on sib0: $nrc" || bad "RC QPs on sib0: $(rdma resource show qp)"
if command -v iperf3 >/dev/null; then
	if is_sm; then
		timeout $((60 * tf)) iperf3 -s -1 -B $ME4 > /tmp/iperf.out 2>&1 &
		sp=$!
		wait_tcp_listen 5201 $((100 * tf)) || bad "no iperf3 server"
		peer_barrier
		wait $sp || bad "iperf3 server: $(tail -3 /tmp/iperf.out)"
	else
		peer_barrier
		iperf3 -c $PEER4 -t 3 > /tmp/iperf.out 2>&1 &&
			ok "iperf3, connected: $(grep receiver /tmp/iperf.out | sed 's/  */ /g')" ||
			bad "iperf3: $(tail -3 /tmp/iperf.out)"
	fi
	peer_barrier
fi
tcp_bulk "connected mode" 5301 4
[ $fails = 0 ] || show_state

echo "--- P_Key 0x8002 child"
C=$IF.8002 C4=198.18.78.$ME_N PC4=198.18.78.$PEER_N
ip link add link $IF name $C type ipoib pkey 0x8002 || bad "ip link add $C type ipoib pkey 0x8002"
# an rtnl child has no sysfs pkey (as upstream's): netlink says it
ip -d link show $C | grep -q "ipoib pkey 0x8002 mode datagram" && ok "$C: pkey 0x8002, datagram" ||
	bad "ip -d link show $C: $(ip -d link show $C)"
expect_eq "$C broadcast address: P_Key 0x8002's group" "$(cut -c13-29 $net/$C/broadcast)" \
	"ff:12:40:1b:80:02"
ip addr add $C4/24 dev $C && ip link set $C up || bad "$C address, up"
echo 10 > /proc/sys/net/ipv4/neigh/$C/mcast_solicit
carrier_on $C && ok "$C carrier on (partition 0x8002's group joined)" || bad "$C: no carrier"
chw=$(peer_exchange "$(cat $net/$C/address)")
ping -c 1 -W $((30 * tf)) $PC4 > /tmp/ping.out 2>&1 || echo "warm-up: $(tail -2 /tmp/ping.out)"
peer_barrier
ping_ok "ping $PC4 over partition 0x8002" -c 3 -i 0.3 -W 5 $PC4
neigh_is $PC4 $C "$chw" && ok "ARP on $C: $PC4 is $chw" || bad "ARP on $C: $(ip neigh show dev $C)"
[ "$chw" != "$PEER_HW" ] && ok "the child has an address of its own" || bad "child address $chw"
[ $fails = 0 ] || show_state
peer_barrier
ip link del $C || bad "ip link del $C"

sib2_down
finish
