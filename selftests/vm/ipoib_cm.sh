#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdma-kmod: second-lane
#
# IPoIB connected mode (RFC 4755) in our ib_ipoib, between two sib ports
# cabled back to back (veth pair of MTU 2200: a 2048-byte IB MTU, UD MTU
# 2044) and swept by an unmodified OpenSM; the interface on sib1 lives in a
# network namespace so that traffic crosses the veth as IB packets.
# Proves: both addresses advertise RC (flags byte 0x80); ibA switched by
# sysfs, ibB by netlink (`ip link set ... type ipoib mode connected`), both
# read back "connected" and MTU 65520; 60000-byte pings both ways (and
# 30000-byte IPv6 ones) go
# unfragmented (IP FragCreates unchanged, a handful of netdev packets) over
# RC QPs that `rdma resource show qp` lists on both ports; a neighbour
# flush takes the outbound link with it, the next ping makes a new one; a
# packet socket sees the sender's whole address (RC flag, QPN, GID);
# iperf3 and a
# 16 MiB TCP transfer compared by sha256 in connected mode; both ends
# switched to datagram and back during an iperf3 run; the MTU rules
# of each mode; ibA back to datagram clamps its MTU to 2044 and still
# talks with the connected ibB (large pings both ways); connected again;
# a peer whose address lacks the RC flag is served over UD, a packet too
# large for UD bringing the path MTU down by an emulated ICMP; a link
# the peer refuses is counted and does not hang; down and up, and an rtnl
# child made in connected mode;
# P_Key 0x8002 children (sysfs and rtnl) in connected mode, 60000-byte
# pings between them; then sib1 is deleted under the connected ibB and
# its child with their links up, and ib_ipoib is unloaded under the
# connected ibA and its child with their links up.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/sib.sh"

need_sib
need_opensm

frags() { # [NSEXEC]: IP fragments created so far
	${1:-} awk '/^Ip: [0-9]/ { print $NF }' /proc/net/snmp
}

rc_qps() { # LINK: RC QPs on it
	rdma resource show qp link "$1/1" 2>/dev/null | grep -c "type RC"
}

rc_list() { # LINK: the QPNs of its RC QPs, in one line
	rdma resource show qp link "$1/1" 2>/dev/null | awk '/type RC/ { print $4 }' |
		sort -n | tr '\n' ' '
}

tx_errors_above() { # N: more than N transmit errors on ifA
	[ "$(cat $net/$ifA/statistics/tx_errors)" -gt "$1" ]
}

# ping_big [NSEXEC] DEST SIZE COUNT: all answered
ping_big() {
	$1 busybox ping -c "$4" -s "$3" -W 10 "$2" > /tmp/ping_cm.out 2>&1 &&
		grep -q " $4 packets received" /tmp/ping_cm.out
}

show_state() {
	ip -s link show $ifA
	$inB ip -s link show $ifB
	rdma resource show qp
	dmesg | grep -iE "ipoib|ib[01]|sib" | tail -40
}

sib_ipoib_up 0x8002
for i in $ifA $ifB; do
	expect_eq "$i advertises RC (flags byte 0x80)" "$(cut -c1-2 $net/$i/address)" 80
done
expect_eq "$ifA mode by default" "$(cat $net/$ifA/mode)" datagram

ipoib_netns_up ipoibcmB 198.18.79 fd00:1c || die "no carrier"

echo "--- to connected mode"
echo connected > $net/$ifA/mode && ok "$ifA: sysfs mode connected" || bad "sysfs mode connected"
$inB ip link set $ifB type ipoib mode connected && ok "$ifB: netlink mode connected" ||
	bad "ip link set $ifB type ipoib mode connected"
expect_eq "$ifA mode" "$(cat $net/$ifA/mode)" connected
expect_eq "$ifB mode" "$($inB cat $net/$ifB/mode)" connected
$inB ip -d link show $ifB | grep -q "mode connected" && ok "ip -d link: $ifB mode connected" ||
	bad "ip -d link $ifB: $($inB ip -d link show $ifB)"
expect_eq "$ifA MTU" "$(cat $net/$ifA/mtu)" 65520
expect_eq "$ifB MTU" "$($inB cat $net/$ifB/mtu)" 65520
ip link set $ifA mtu 65521 2>/dev/null && bad "MTU 65521 taken" || ok "MTU 65521 refused"

echo "--- large pings over RC"
# the first packets wait for ARP, the PathRecord and the RC link
ping -c 2 -W 30 $B4 > /tmp/ping_cm.out 2>&1 || echo "warm-up: $(tail -2 /tmp/ping_cm.out)"
$inB busybox ping -c 2 -W 30 $A4 > /dev/null 2>&1
fA=$(frags) fB=$(frags "$inB") txA=$(cat $net/$ifA/statistics/tx_packets)
ping_big "" $B4 60000 5 && ok "ping -s 60000 $ifA -> $ifB: 5 answered" ||
	bad "ping -s 60000 $B4: $(tail -3 /tmp/ping_cm.out)"
ping_big "$inB" $A4 60000 5 && ok "ping -s 60000 $ifB -> $ifA: 5 answered" ||
	bad "ping -s 60000 $A4: $(tail -3 /tmp/ping_cm.out)"
expect_eq "IP fragments created on A" "$(frags)" "$fA"
expect_eq "IP fragments created on B" "$(frags "$inB")" "$fB"
txA2=$(cat $net/$ifA/statistics/tx_packets)
[ $((txA2 - txA)) -ge 10 ] && [ $((txA2 - txA)) -le 20 ] &&
	ok "$ifA sent $((txA2 - txA)) packets for 10 large ones" ||
	bad "$ifA sent $((txA2 - txA)) packets for 10 large ones"
f6=$(awk '/^Ip6FragCreates/ { print $2 }' /proc/net/snmp6)
busybox ping -6 -c 3 -s 30000 -W 10 $B6 > /tmp/ping_cm.out 2>&1 &&
	ok "ping -6 -s 30000 $ifA -> $ifB" || bad "ping -6 -s 30000: $(tail -3 /tmp/ping_cm.out)"
expect_eq "IPv6 fragments created on A" "$(awk '/^Ip6FragCreates/ { print $2 }' /proc/net/snmp6)" "$f6"
nA=$(rc_qps sib0) nB=$(rc_qps sib1)
[ "$nA" -ge 2 ] && [ "$nB" -ge 2 ] && ok "RC QPs: $nA on sib0, $nB on sib1" ||
	bad "RC QPs: $nA on sib0, $nB on sib1: $(rdma resource show qp)"

# The neighbour flushed: the outbound link to it goes, the next ping makes
# one. Watched by QPN: a count may see the old link's end and a new link
# (other traffic) as no change, and a dump racing a QP's end may be empty.
before=$(rc_list sib0) gone=""
ip neigh flush dev $ifA
for _ in $(seq $((20 * tf))); do
	now=$(rc_list sib0)
	if [ -n "$now" ]; then
		for q in $before; do
			case " $now " in *" $q "*) ;; *) gone=$q ;; esac
		done
	fi
	[ -n "$gone" ] && break
	sleep 0.5
done
[ -n "$gone" ] && ok "neighbour flushed: RC QP $gone on sib0 went ($before-> $now)" ||
	bad "neighbour flushed, RC QPs on sib0 still $now"
ping_big "" $B4 60000 2 && ok "ping -s 60000 after the neighbour flush" ||
	bad "ping -s 60000 after the neighbour flush: $(tail -3 /tmp/ping_cm.out)"
expect_eq "RC QPs on sib0 again" "$(rc_qps sib0)" "$nA"
# over RC, a packet socket sees the sender's whole address, RC flag too
rm -f /tmp/psock.ready /tmp/psock.stop
$inB python3 "$RDMA_KMOD_SRC/selftests/vm/ipoib_psock.py" $ifB $((60 * tf)) \
	/tmp/psock.ready /tmp/psock.stop > /tmp/psock_cm.out 2>&1 &
pp=$!
for _ in $(seq $((60 * tf))); do
	[ -e /tmp/psock.ready ] && break
	sleep 0.5
done
ping_big "" $B4 60000 2 || bad "ping -s 60000 for the packet socket"
touch /tmp/psock.stop
wait $pp
a=$(tr -d : < $net/$ifA/address)
# a 60000-byte IPv4 packet can only have come over RC
awk -v a=$a '$1 == 0 && $2 == "0800" && $4 > 60000 { print $3 }' /tmp/psock_cm.out |
	grep -q "^$a$" && ok "packet socket on $ifB: a 60000-byte ping's sender is $a" ||
	{ bad "packet socket on $ifB: no 60000-byte ping from $a"; cat /tmp/psock_cm.out; }
[ $fails = 0 ] || show_state

echo "--- bulk in connected mode"
iperf_to_ns "in connected mode"
bulk_to_ns "connected mode" 5301
[ $fails = 0 ] || show_state

echo "--- mode switches under load"
# links torn down with sends in flight, rebuilt; iperf3's verdict is not
# asserted (TCP meets MTUs changing under it), what follows is
$inB timeout $((60 * tf)) iperf3 -s -1 -B $B4 > /dev/null 2>&1 &
sp=$!
ns_listening 5201 || bad "no iperf3 server in $ns"
iperf3 -c $B4 -t 8 > /tmp/iperf_cm2.out 2>&1 &
cp=$!
sleep 3
echo datagram > $net/$ifA/mode || bad "datagram under load"
sleep 1
echo connected > $net/$ifA/mode || bad "connected under load"
$inB ip link set $ifB type ipoib mode datagram || bad "$ifB datagram under load"
sleep 1
$inB ip link set $ifB type ipoib mode connected || bad "$ifB connected under load"
wait $cp && echo "iperf3 across the switches: $(grep receiver /tmp/iperf_cm2.out | sed 's/  */ /g')" ||
	echo "iperf3 across the switches: $(tail -2 /tmp/iperf_cm2.out)"
wait $sp
expect_eq "$ifA MTU after the switches" "$(cat $net/$ifA/mtu)" 65520
expect_eq "$ifB MTU after the switches" "$($inB cat $net/$ifB/mtu)" 65520
ping_big "" $B4 60000 3 && ok "ping -s 60000 after switches under load" ||
	bad "ping -s 60000 after switches under load: $(tail -3 /tmp/ping_cm.out)"

echo "--- back to datagram on $ifA only"
echo datagram > $net/$ifA/mode && ok "$ifA: mode datagram" || bad "mode datagram refused"
expect_eq "$ifA mode" "$(cat $net/$ifA/mode)" datagram
expect_eq "$ifA MTU clamped" "$(cat $net/$ifA/mtu)" 2044
ip link set $ifA mtu 65520 2>/dev/null && bad "MTU 65520 taken in datagram mode" ||
	ok "MTU 65520 refused in datagram mode"
printf connected > $net/$ifA/mode 2>/dev/null && bad "'connected' without newline taken" ||
	ok "'connected' without newline refused"
fA=$(frags)
ping_big "" $B4 8000 3 && ok "datagram $ifA -> connected $ifB: ping -s 8000" ||
	bad "ping -s 8000 $B4 from datagram side: $(tail -3 /tmp/ping_cm.out)"
[ "$(frags)" -gt "$fA" ] && ok "$ifA fragments again ($fA -> $(frags))" ||
	bad "$ifA did not fragment: $fA -> $(frags)"
ping_big "$inB" $A4 30000 3 && ok "connected $ifB -> datagram $ifA: ping -s 30000" ||
	bad "ping -s 30000 $A4 from connected side: $(tail -3 /tmp/ping_cm.out)"
ping -c 3 -W 5 $B4 > /dev/null 2>&1 && ok "small ping datagram -> connected" ||
	bad "small ping from datagram side"

echo "--- connected again"
echo connected > $net/$ifA/mode && expect_eq "$ifA MTU" "$(cat $net/$ifA/mtu)" 65520
ping_big "" $B4 60000 3 && ok "ping -s 60000 after the switch back" ||
	bad "ping -s 60000 after the switch back: $(tail -3 /tmp/ping_cm.out)"
[ "$(rc_qps sib0)" -ge 2 ] && ok "RC QPs on sib0: $(rc_qps sib0)" || bad "no RC QPs on sib0"

echo "--- a peer without the RC flag: UD, path MTU emulated"
# ibB's address with the flags byte cleared, as a stock datagram-only peer
noRC=00$($inB cat $net/$ifB/address | cut -c3-)
ip neigh replace $B4 lladdr "$noRC" dev $ifA nud permanent || bad "static neighbour"
# the first one is dropped with an ICMP "fragmentation needed"
ping -c 4 -i 0.5 -s 8000 -W 5 $B4 > /tmp/ping_cm.out 2>&1
n=$(grep -o "[0-9]* packets received" /tmp/ping_cm.out | cut -d" " -f1)
[ "${n:-0}" -ge 2 ] && ok "ping -s 8000 to a non-RC peer: $n of 4 answered" ||
	bad "ping -s 8000 to a non-RC peer: $(tail -2 /tmp/ping_cm.out)"
r=$(ip route get $B4)
echo "$r" | grep -q "mtu 2044" && ok "path MTU to it: 2044" ||
	{ bad "ip route get $B4: $r"; grep Icmp: /proc/net/snmp; }
ip neigh del $B4 dev $ifA
ip route flush cache

echo "--- a refused link: counted, no hang"
# ibB's GID with a QPN nobody listens for: ib_cm answers the REQ with a REJ
qB=$($inB cut -c4-11 $net/$ifB/address | tr -d :)
bogus=$(printf "%06x" $((0x$qB + 0x100)) | sed 's/\(..\)\(..\)\(..\)/\1:\2:\3/')
ip neigh replace $B4 lladdr "80:$bogus:$($inB cut -c13- $net/$ifB/address)" dev $ifA nud permanent ||
	bad "static neighbour with QPN $bogus"
errA=$(cat $net/$ifA/statistics/tx_errors)
ping -c 2 -s 1000 -W 3 $B4 > /dev/null 2>&1 && bad "a ping to QPN $bogus answered" ||
	ok "ping to QPN $bogus unanswered"
wait_until 10 tx_errors_above "$errA" && ok "the REJ counted in tx_errors" ||
	bad "tx_errors $errA -> $(cat $net/$ifA/statistics/tx_errors)"
dmesg | grep -q "RC link to QPN 0x$(echo $bogus | tr -d : | sed 's/^0*//') refused" &&
	ok "dmesg: RC link to QPN $bogus refused" || bad "no 'refused' line for QPN $bogus"
ip neigh del $B4 dev $ifA
ping_big "" $B4 60000 2 && ok "ping -s 60000 over the real link again" ||
	bad "ping -s 60000 after the refused link: $(tail -3 /tmp/ping_cm.out)"

echo "--- down and up in connected mode; a connected rtnl child"
ip link set $ifA down && ip link set $ifA up && carrier_on "" $ifA || bad "$ifA down/up"
expect_eq "$ifA mode after down/up" "$(cat $net/$ifA/mode)" connected
ping_big "" $B4 60000 2 && ok "ping -s 60000 after down/up" ||
	bad "ping -s 60000 after down/up: $(tail -3 /tmp/ping_cm.out)"
ip link add link $ifA name cmX type ipoib mode connected && ok "ip link add ... mode connected" ||
	bad "ip link add ... type ipoib mode connected"
ip -d link show cmX | grep -q "mode connected" && expect_eq "cmX MTU" "$(cat $net/cmX/mtu)" 65520 ||
	bad "cmX: $(ip -d link show cmX)"
ip link del cmX
[ $fails = 0 ] || show_state

echo "--- P_Key 0x8002 children in connected mode"
C4A=198.18.80.1 C4B=198.18.80.2
echo 0x8002 > $net/$ifA/create_child || bad "create_child 0x8002"
cA=$ifA.8002
echo connected > $net/$cA/mode && expect_eq "$cA MTU" "$(cat $net/$cA/mtu)" 65520 ||
	bad "$cA: connected mode"
$inB ip link add link $ifB name cB type ipoib pkey 0x8002 mode connected ||
	bad "ip link add cB ... mode connected"
ip addr add $C4A/24 dev $cA && $inB ip addr add $C4B/24 dev cB || bad "child addresses"
ip link set $cA up && $inB ip link set cB up || bad "children up"
carrier_on "" $cA && carrier_on "$inB" cB && ok "children have carrier" || bad "children: no carrier"
ping -c 1 -W 30 $C4B > /dev/null 2>&1
ping_big "" $C4B 60000 3 && ok "ping -s 60000 over partition 0x8002" ||
	bad "ping -s 60000 $C4B: $(tail -3 /tmp/ping_cm.out)"
[ "$(rc_qps sib0)" -ge 4 ] && ok "RC QPs on sib0 with the children: $(rc_qps sib0)" ||
	bad "RC QPs on sib0: $(rdma resource show qp link sib0/1)"

echo "--- teardown with links up"
$inB ping -c 1 -s 20000 -W 10 $A4 > /dev/null 2>&1
timeout $((60 * tf)) rdma link delete sib1 && ok "sib1 deleted under connected $ifB" ||
	bad "rdma link delete sib1"
gone_with_sib1 $ifB cB
ping -c 1 -s 30000 -W 3 $B4 > /dev/null 2>&1 && bad "ping to a deleted port answered" ||
	ok "ping to the deleted port fails, no hang"
timeout $((60 * tf)) rmmod ib_ipoib && ok "ib_ipoib unloaded under connected $ifA" ||
	bad "rmmod ib_ipoib"
[ -d $net/$ifA ] || [ -d $net/$cA ] && bad "$ifA or $cA outlived ib_ipoib" || ok "$ifA and $cA gone"
[ "$(rc_qps sib0)" = 0 ] && ok "no RC QP left on sib0" || bad "RC QPs left: $(rdma resource show qp)"
osm_stop
sib_unpair sib0
finish
