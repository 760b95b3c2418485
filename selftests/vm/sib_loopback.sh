#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# sib, the software InfiniBand HCA on the Soft-RoCE engine, in one VM: sib0
# and sib1 on the two ends of a veth pair (the cable): INIT without an SM,
# then ACTIVE with the LIDs an unmodified OpenSM gives them. Checks what
# the tools show (rdma link, ibv_devinfo, ibstat, sysfs), then
# LID-addressed traffic between them with the unmodified rxe provider:
# the RC, UC and UD pingpongs checking their data (also with a GRH), perftest
# write/read/send bandwidth without rdma_cm; every packet crossed the veth
# as an IB packet (the receive drop counters stay at zero: VCRC, ICRC,
# DLID, P_Key all good); RC and UD to a LID of its own (loopback); a P_Key
# not in the table is dropped and counted (PortInfo P_KeyViolations). Then
# the links deleted, and again with a link and the netdev deleted under
# running QPs; the module unloads.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/sib.sh"

need_sib
need_opensm

load_modules ib_uverbs ib_umad
sib_cable || die "veth pair"
rdma link add sib0 type sib netdev vethA || die "rdma link add sib0 type sib"
expect_file "no SM: the port stops at INIT" $ib/sib0/ports/1/state "2: INIT"
rdma link delete sib0 || bad "link delete before ACTIVE"
rdma link add sibx type rxe netdev vethA || bad "rxe on vethA"
if rdma link add sib0 type sib netdev vethA 2>/dev/null; then
	bad "a sib device beside rxe on vethA"
	rdma link delete sib0
else
	ok "one device per netdev: sib beside rxe refused"
fi
rdma link delete sibx || bad "rdma link delete sibx"
sib_links || die "rdma link add sib0, sib1"
osm_up || die "sib0, sib1 not ACTIVE under OpenSM"
# OpenSM's port (sib0) is the SM of both
lid0=$(($(port_attr sib0 lid))) lid1=$(($(port_attr sib1 lid)))
[ $lid0 != $lid1 ] && ok "distinct LIDs $lid0, $lid1" || bad "LIDs $lid0, $lid1"

out=$(rdma link show)
echo "$out"
case "$out" in
*"link sib0/1 subnet_prefix fe80:0000:0000:0000 lid $lid0 sm_lid $lid0 lmc 0 state ACTIVE physical_state LINK_UP netdev vethA"*) ok "rdma link show sib0" ;;
*) bad "rdma link show sib0" ;;
esac
case "$out" in
*"link sib1/1 subnet_prefix fe80:0000:0000:0000 lid $lid1 sm_lid $lid0 lmc 0 state ACTIVE physical_state LINK_UP netdev vethB"*) ok "rdma link show sib1" ;;
*) bad "rdma link show sib1" ;;
esac

ibv_devinfo -d sib0 > /tmp/sib.devinfo 2>&1 || bad "ibv_devinfo -d sib0"
cat /tmp/sib.devinfo
for want in "transport:.*InfiniBand (0)" "state:.*PORT_ACTIVE (4)" \
	    "active_mtu:.*2048 (4)" "port_lid:.*[^0-9]$lid0$" "sm_lid:.*[^0-9]$lid0$" \
	    "link_layer:.*InfiniBand"; do
	grep -q "$want" /tmp/sib.devinfo && ok "ibv_devinfo: $want" ||
		bad "ibv_devinfo: no $want"
done

ibstat sib0 > /tmp/sib.ibstat 2>&1 || bad "ibstat sib0"
cat /tmp/sib.ibstat
for want in "^CA 'sib0'" "State: Active" "Physical state: LinkUp" \
	    "Base lid: $lid0$" "SM lid: $lid0$" "Link layer: InfiniBand"; do
	grep -q "$want" /tmp/sib.ibstat && ok "ibstat: $want" ||
		bad "ibstat: no $want"
done

# GUIDs: EUI-64 of the netdev MAC; GID 0 = fe80::/64 + port GUID
read -r mac </sys/class/net/vethA/address
IFS=: read -r m0 m1 m2 m3 m4 m5 <<EOF
$mac
EOF
guid=$(printf '%02x%s:%sff:fe%s:%s%s' $((0x$m0 ^ 2)) $m1 $m2 $m3 $m4 $m5)
expect_file "node GUID from vethA's MAC" $ib/sib0/node_guid "$guid"
expect_file "GID 0 = fe80::/64 + port GUID" $ib/sib0/ports/1/gids/0 "fe80:0000:0000:0000:$guid"
expect_file "sysfs link_layer" $ib/sib0/ports/1/link_layer "InfiniBand"
expect_file "node type" $ib/sib0/node_type "1: CA"
expect_file "P_Key index 0" $ib/sib0/ports/1/pkeys/0 "0xffff"
expect_file "sib1 LID in sysfs" $ib/sib1/ports/1/lid "$(printf 0x%x $lid1)"

o0="-d sib0 -c" o1="-d sib1 -c"
for s in 1 4096 65536; do
	pair "rc_pingpong LID-routed -s $s" 90 ibv_rc_pingpong $o0 -s $s -n 100 -- \
		ibv_rc_pingpong $o1 -s $s -n 100 127.0.0.1
done
pair "rc_pingpong -m 2048" 60 ibv_rc_pingpong $o0 -m 2048 -s 10000 -n 50 -- \
	ibv_rc_pingpong $o1 -m 2048 -s 10000 -n 50 127.0.0.1
pair "uc_pingpong LID-routed" 60 ibv_uc_pingpong $o0 -n 100 -- \
	ibv_uc_pingpong $o1 -n 100 127.0.0.1
for s in 64 2048; do
	pair "ud_pingpong LID-routed -s $s" 60 ibv_ud_pingpong $o0 -s $s -n 100 -- \
		ibv_ud_pingpong $o1 -s $s -n 100 127.0.0.1
done
# with a GRH (GID index 0, fe80::/64 + port GUID): LNH 3 packets
pair "rc_pingpong with GRH (-g 0)" 60 ibv_rc_pingpong $o0 -g 0 -s 5000 -n 50 -- \
	ibv_rc_pingpong $o1 -g 0 -s 5000 -n 50 127.0.0.1
pair "ud_pingpong with GRH (-g 0)" 60 ibv_ud_pingpong $o0 -g 0 -n 50 -- \
	ibv_ud_pingpong $o1 -g 0 -n 50 127.0.0.1
# a destination LID of our own never leaves the host (looped back)
pair "rc_pingpong sib0 to its own LID" 60 ibv_rc_pingpong $o0 -s 5000 -n 50 -- \
	ibv_rc_pingpong $o0 -s 5000 -n 50 127.0.0.1
pair "ud_pingpong sib0 to its own LID" 60 ibv_ud_pingpong $o0 -n 50 -- \
	ibv_ud_pingpong $o0 -n 50 127.0.0.1
for t in ib_write_bw ib_read_bw ib_send_bw; do
	pair "$t LID-routed" 120 $t -d sib0 -F -n 200 -- \
		$t -d sib1 -F -n 200 127.0.0.1
	grep -E '^ +[0-9]' /tmp/pair.cli | tail -1
done

# every frame was a good IB packet: nothing dropped on the way in
for d in sib0 sib1; do
	bads=""
	while read -r why n; do
		[ "$n" = 0 ] || bads="$bads $why=$n"
	done <$ib/$d/rx_drops
	expect_eq "$d: no receive drops" "$bads" ""
	read -r r <$ib/$d/ports/1/hw_counters/rcvd_pkts
	[ "$r" -gt 1000 ] && ok "$d: $r packets received" ||
		bad "$d: only $r packets received"
done

# P_Key: a QP on the empty table entry 1 sends P_Key 0, which no port
# accepts: the receiver drops and counts it (P_KeyViolations). perftest's
# retry count 7 means for ever on rxe (as stock): the client is stopped.
v0=$(pkey_viol sib0)
timeout 30 ib_send_bw -d sib0 -n 5 > /tmp/sib.pk.srv 2>&1 &
pk=$!
wait_tcp_listen 18515 || bad "ib_send_bw server"
if timeout 10 ib_send_bw -d sib1 --pkey_index=1 -n 5 127.0.0.1 > /tmp/sib.pk.cli 2>&1; then
	bad "sends with P_Key 0 got through"
	cat /tmp/sib.pk.cli
else
	ok "sends with P_Key 0 not delivered"
fi
kill $pk 2>/dev/null
wait $pk 2>/dev/null
v1=$(pkey_viol sib0)
[ "${v1:-0}" -gt "${v0:-0}" ] && ok "P_Key violations counted ($v0 -> $v1)" ||
	bad "P_Key violations not counted ($v0 -> $v1)"

osm_stop
rdma link delete sib0 || bad "rdma link delete sib0"
rdma link delete sib1 || bad "rdma link delete sib1"
[ -e $ib/sib0 ] || [ -e $ib/sib1 ] && bad "sib devices left after delete"

# sib0 deleted and the cable cut (both netdevs deleted) under running
# QPs. Both wait for the processes' verbs files (DEVICE_FATAL: the rxe
# provider cannot disassociate), which the kill closes. OpenSM brings the
# new ports up and goes: they stay ACTIVE without it (sib_opensm).
sib_links || die "sib0, sib1 again"
osm_up || die "sib0, sib1 not ACTIVE again"
osm_stop
ibv_rc_pingpong -d sib0 -n 1000000 > /tmp/sib.srv 2>&1 &
srv=$!
wait_tcp_listen 18515 || bad "pingpong server"
ibv_rc_pingpong -d sib1 -n 1000000 127.0.0.1 > /tmp/sib.cli 2>&1 &
cli=$!
sleep 3
rdma link delete sib0 &
ldel=$!
ip link del vethA &
ndel=$!
sleep 2
kill $srv $cli 2>/dev/null
wait $srv $cli 2>/dev/null
wait $ldel
wait $ndel || bad "ip link del vethA"
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ -e $ib/sib0 ] || [ -e $ib/sib1 ] || break
	sleep 1
done
[ -e $ib/sib0 ] || [ -e $ib/sib1 ] && bad "sib devices left after the netdev went" ||
	ok "netdev deleted under running QPs: both devices gone"

rmmod rdma_rxe && ok "rdma_rxe unloaded" || bad "rmmod rdma_rxe"
finish
