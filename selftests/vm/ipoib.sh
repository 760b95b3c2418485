#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# IPoIB (our ib_ipoib, datagram mode) between two sib ports cabled back to
# back (a veth pair of MTU 2200: a 2048-byte IB MTU) and swept by an
# unmodified OpenSM, in one VM. ib_ipoib puts an interface on each port
# (type 32, 20-byte address = QPN + port GID, broadcast address of the
# default partition); the one on sib1 moves into a network namespace, so
# that IP traffic between them cannot take a shortcut: it crosses the
# veth as IB packets. Both get carrier once their broadcast group join
# through OpenSM's SA succeeded (MTU 2044). Then ping both ways with the
# packet counters checked, ARP entries holding the peer's 20-byte address,
# IPv6 (neighbour discovery over the solicited-node groups), iperf3 and a
# 16 MiB transfer compared by checksum; the sysfs files; P_Key children
# through create_child and `ip link add ... type ipoib`, one of them in a
# partition OpenSM serves (ping over it). The link header that packet
# sockets and tcpdump see (the sender's address); hand-made bad datagrams
# from the wire (ipoib_inject.py), dropped and counted; the module
# parameters of the stock ib_ipoib. Then sib1 is deleted under its live
# interface (in the namespace) with traffic both ways, ib_ipoib is
# unloaded under the other and two children, and sib0 goes.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/sib.sh"

need_sib
need_opensm

perf_rcv() { # DEV: PortRcvPkts of its port, through its PMA
	perfquery -C "$1" -P 1 | sed -n "s/^PortRcvPkts:\.*//p"
}

stat_of() { # [NSEXEC] IF COUNTER
	$1 cat $net/$2/statistics/$3
}

# what went wrong, when something did
show_state() {
	ip -s link show $ifA
	$inB ip -s link show $ifB
	ip neigh show dev $ifA
	rdma statistic show link sib0/1
	rdma statistic show link sib1/1
	dmesg | grep -iE "ipoib|ib[01]|sib" | tail -40
}

sib_ipoib_up 0x8002
for i in $ifA $ifB; do
	d=$(ip -d link show $i)
	echo "$d" | grep -q "link/infiniband" && echo "$d" | grep -q "ipoib pkey 0xffff mode datagram" &&
		ok "$i: link/infiniband, ipoib pkey 0xffff mode datagram" || bad "ip -d link show $i: $d"
done
expect_eq "$ifA address length" "$(cat $net/$ifA/addr_len)" 20
expect_eq "$ifA broadcast address" "$(cat $net/$ifA/broadcast)" \
	"00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff"
qpn=$(cut -c1-11 $net/$ifA/address)
[ "$qpn" != 00:00:00:00 ] && ok "$ifA address carries QPN $qpn" || bad "$ifA QPN $qpn"

ipoib_netns_up ipoibB 198.18.77 fd00:1b
expect_eq "$ifA MTU from the broadcast group" "$(cat $net/$ifA/mtu)" 2044
expect_eq "$ifB MTU" "$($inB cat $net/$ifB/mtu)" 2044

echo "--- IPv4"
# the first packets wait for ARP and two PathRecord queries
ping -c 1 -W 30 $B4 > /tmp/ping.out 2>&1 || echo "warm-up: $(tail -2 /tmp/ping.out)"
txA=$(stat_of "" $ifA tx_packets) rxA=$(stat_of "" $ifA rx_packets) rxV=$(perf_rcv sib1)
ping -c 5 -i 0.3 -W 5 $B4 > /tmp/ping.out 2>&1 &&
	ok "ping $ifA -> $ifB: $(grep -o '[0-9]* packets received' /tmp/ping.out)" ||
	bad "ping $B4: $(tail -3 /tmp/ping.out)"
$inB busybox ping -c 5 -i 0.3 -W 5 $A4 > /tmp/ping.out 2>&1 &&
	ok "ping $ifB -> $ifA: $(grep -o '[0-9]* packets received' /tmp/ping.out)" ||
	bad "ping $A4: $(tail -3 /tmp/ping.out)"
txA2=$(stat_of "" $ifA tx_packets) rxA2=$(stat_of "" $ifA rx_packets)
[ $((txA2 - txA)) -ge 10 ] && [ $((rxA2 - rxA)) -ge 10 ] &&
	ok "$ifA counted tx $((txA2 - txA)), rx $((rxA2 - rxA)) packets" ||
	bad "$ifA counters: tx $txA -> $txA2, rx $rxA -> $rxA2"
rxV2=$(perf_rcv sib1)
[ $((rxV2 - rxV)) -ge 10 ] 2>/dev/null && ok "sib1's PortRcvPkts $rxV -> $rxV2 (IB packets)" ||
	bad "sib1's PortRcvPkts $rxV -> $rxV2"
addrB=$($inB cat $net/$ifB/address) addrA=$(cat $net/$ifA/address)
n=$(ip neigh show $B4 dev $ifA)
echo "$n" | grep -q "lladdr $addrB " && ok "ARP on $ifA: $B4 is $addrB" || bad "ARP on $ifA: $n"
n=$($inB ip neigh show $A4 dev $ifB)
echo "$n" | grep -q "lladdr $addrA " && ok "ARP on $ifB: $A4 is $addrA" || bad "ARP on $ifB: $n"
[ $fails = 0 ] || show_state

echo "--- link header: packet sockets, tcpdump"
# A packet socket on $ifB sees each packet's sender in sll_addr: $ifA's
# QPN and (from the GRH of its broadcast ARP) GID; its own address on what
# it sends. The flags byte does not travel over UD.
rm -f /tmp/psock.ready /tmp/psock.stop
$inB python3 "$RDMA_KMOD_SRC/selftests/vm/ipoib_psock.py" $ifB $((60 * tf)) \
	/tmp/psock.ready /tmp/psock.stop > /tmp/psock.out 2>&1 &
pp=$!
$inB timeout $((30 * tf)) tcpdump -i $ifB -e -n -c 6 > /tmp/tcpdump.out 2>&1 &
tp=$!
for _ in $(seq $((60 * tf))); do
	[ -e /tmp/psock.ready ] && grep -q "listening on" /tmp/tcpdump.out && break
	sleep 0.5
done
ip neigh flush dev $ifA
ping -c 3 -i 0.5 -W 5 $B4 > /dev/null 2>&1 || bad "ping $B4 after a neighbour flush"
sleep 1
touch /tmp/psock.stop
wait $pp
a=$(echo "$addrA" | tr -d :) b=$(echo "$addrB" | tr -d :)
grep -q "^1 0806 00${a#??} " /tmp/psock.out &&
	ok "packet socket on $ifB: the broadcast ARP's sender is 00${a#??}" ||
	bad "packet socket on $ifB: no broadcast ARP from 00${a#??}"
qa=$(echo $a | cut -c3-8)
grep -q "^0 0800 00$qa" /tmp/psock.out &&
	ok "packet socket on $ifB: unicast IPv4 from QPN $qa" ||
	bad "packet socket on $ifB: no unicast IPv4 from QPN $qa"
grep -q "^4 [0-9a-f]* $b " /tmp/psock.out &&
	ok "packet socket on $ifB: what it sends is from $b" ||
	bad "packet socket on $ifB: nothing outgoing from $b"
[ $fails = 0 ] || cat /tmp/psock.out
wait $tp
echo "tcpdump -e on $ifB:"; cat /tmp/tcpdump.out
grep -q "ICMP echo request" /tmp/tcpdump.out && ok "tcpdump on $ifB decodes IPoIB packets" ||
	bad "tcpdump -i $ifB -e shows no ICMP echo request"

echo "--- bad datagrams from the wire"
read -r macA < /sys/class/net/vethA/address
qpnA=0x$(cut -c4-11 $net/$ifA/address | tr -d :)
python3 "$RDMA_KMOD_SRC/selftests/vm/ipoib_inject.py" vethB "$macA" \
	"$(port_attr sib0 lid)" "$(port_attr sib1 lid)" $qpnA 0x0b1b $ifA $A4 ||
	bad "ipoib_inject.py ($? failures)"

echo "--- module parameters (those of the stock ib_ipoib)"
for p in max_nonsrq_conn_qp=128 mcast_debug_level=0 send_queue_size=128 \
	recv_queue_size=256 debug_level=0; do
	expect_eq "parameter ${p%=*}" "$(cat /sys/module/ib_ipoib/parameters/${p%=*} 2>&1)" ${p#*=}
done

echo "--- IPv6"
ping -6 -c 3 -i 0.3 -W 5 $B6 > /tmp/ping.out 2>&1 &&
	ok "ping -6 $ifA -> $ifB: $(grep -o '[0-9]* packets received' /tmp/ping.out)" ||
	bad "ping -6 $B6: $(tail -3 /tmp/ping.out)"
$inB busybox ping -6 -c 3 -i 0.3 -W 5 $A6 > /tmp/ping.out 2>&1 &&
	ok "ping -6 $ifB -> $ifA" || bad "ping -6 $A6: $(tail -3 /tmp/ping.out)"
n=$(ip -6 neigh show $B6 dev $ifA)
echo "$n" | grep -q "lladdr $addrB " && ok "ND on $ifA: $B6 is $addrB" || bad "ND on $ifA: $n"

echo "--- bulk"
iperf_to_ns "over IPoIB"
bulk_to_ns "TCP/IPoIB" 5300

[ $fails = 0 ] || show_state
echo "--- sysfs"
expect_eq "$ifA mode" "$(cat $net/$ifA/mode)" datagram
expect_eq "$ifA pkey" "$(cat $net/$ifA/pkey)" 0xffff
expect_eq "$ifA umcast" "$(cat $net/$ifA/umcast)" 0
echo datagram > $net/$ifA/mode && ok "mode: datagram accepted" || bad "mode: datagram refused"
printf connected > $net/$ifA/mode 2>/dev/null && bad "mode: 'connected' without newline taken" ||
	ok "mode: 'connected' without newline refused"
echo 1 > $net/$ifA/umcast && expect_eq "umcast set" "$(cat $net/$ifA/umcast)" 1
echo 0 > $net/$ifA/umcast

echo "--- P_Key children"
C4A=198.18.78.1 C4B=198.18.78.2
echo 0x8002 > $net/$ifA/create_child || bad "create_child 0x8002"
cA=$ifA.8002
[ -d $net/$cA ] && ok "create_child made $cA" || bad "no $cA: $(ls $net)"
expect_eq "$cA pkey" "$(cat $net/$cA/pkey 2>/dev/null)" 0x8002
expect_eq "$cA parent" "$(cat $net/$cA/parent 2>/dev/null)" $ifA
echo 0x8002 > $net/$ifA/create_child 2>/dev/null && bad "a second 0x8002 child made" ||
	ok "a second create_child 0x8002 refused"
echo 0 > $net/$ifA/create_child 2>/dev/null && bad "create_child 0 taken" ||
	ok "create_child 0 refused"
$inB ip link add link $ifB name cB type ipoib pkey 0x8002 || bad "ip link add type ipoib pkey 0x8002"
d=$($inB ip -d link show cB)
echo "$d" | grep -q "ipoib pkey 0x8002 mode datagram" && ok "rtnl child cB: pkey 0x8002" ||
	bad "ip -d link show cB: $d"
ip link add link $ifA name cX type ipoib pkey 0x8003 || bad "ip link add pkey 0x8003"
# rtnl children have the sysfs files of create_child's, as upstream's do
expect_eq "cX pkey" "$(cat $net/cX/pkey 2>/dev/null)" 0x8003
expect_eq "cX parent" "$(cat $net/cX/parent 2>/dev/null)" $ifA
expect_eq "cX mode" "$(cat $net/cX/mode 2>/dev/null)" datagram
ip addr add $C4A/24 dev $cA && $inB ip addr add $C4B/24 dev cB || bad "child addresses"
ip link set $cA up && $inB ip link set cB up && ip link set cX up || bad "children up"
carrier_on "" $cA && ok "$cA carrier on (partition 0x8002 group joined)" || bad "$cA: no carrier"
carrier_on "$inB" cB && ok "cB carrier on" || bad "cB: no carrier"
ping -c 3 -i 0.3 -W 5 $C4B > /tmp/ping.out 2>&1 && ok "ping over partition 0x8002" ||
	bad "ping $C4B: $(tail -3 /tmp/ping.out)"
sleep 2
expect_eq "cX (P_Key 0x8003 not in the port's table) without carrier" "$(cat $net/cX/carrier)" 0
dmesg | grep -q "cX: P_Key 0x8003 is not found" && ok "cX: P_Key 0x8003 is not found" ||
	bad "no 'P_Key 0x8003 is not found' for cX"
ip link del cX || bad "ip link del cX"
ip link del $ifA 2>/dev/null
[ -d $net/$ifA ] && ok "the parent $ifA cannot be deleted" || bad "$ifA deleted"
echo 0x8002 > $net/$ifA/delete_child || bad "delete_child 0x8002"
[ -d $net/$cA ] && bad "$cA still there" || ok "delete_child removed $cA"

echo "--- teardown"
# sib1 goes under its live interface (and child), in the namespace, with
# datagrams flowing both ways.
blast='
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.time() + float(sys.argv[2])
while time.time() < end:
    try:
        s.sendto(bytes(1000), (sys.argv[1], 9))
    except OSError:
        time.sleep(0.01)
'
python3 -c "$blast" $B4 $((15 * tf)) &
b1=$!
$inB python3 -c "$blast" $A4 $((15 * tf)) &
b2=$!
sleep 3
timeout $((60 * tf)) rdma link delete sib1 && ok "sib1 deleted under traffic" ||
	bad "rdma link delete sib1"
wait $b1 $b2
gone_with_sib1 $ifB cB
# children of both kinds, up, go with the module
echo 0x8002 > $net/$ifA/create_child && ip link add link $ifA name cY type ipoib pkey 0x8002 &&
	ip link set $cA up && ip link set cY up || bad "children for the unload"
timeout $((60 * tf)) rmmod ib_ipoib && ok "ib_ipoib unloaded under a live $ifA, $cA and cY" ||
	bad "rmmod ib_ipoib"
[ -d $net/$ifA ] || [ -d $net/$cA ] || [ -d $net/cY ] && bad "an interface outlived ib_ipoib" ||
	ok "$ifA, $cA, cY gone"
osm_end
sib_unpair sib0
finish
