#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# QP0 and the SMI (issue 16): sib0 and sib1 on the ends of a veth pair, no
# SM (ports in INIT, LID 0: SMPs still go). Through umad (smi.py): a QP0
# agent; class 0x81 on QP1 refused; a DR Get(NodeInfo) with HopCount 1
# crossing the cable and answered by sib1 (0x000C with the D bit from the
# core without an SMA, or sib1's NodeInfo), back with HopPointer 0 and
# ReturnPath[1] = 1; HopCount 0 and LID-routed to our own LID (given by
# ibportstate's PortInfo Set) answered locally; InitialPath[1] not ours:
# EINVAL; a bad HopPointer and HopCount 64 dropped (the sends time out,
# ib_mad/smi_drops counts them); sib1's SMA answering unknown attributes,
# methods, class versions, modifiers and invalid PortInfo Sets with an
# error status (nothing applied), and a DR path through sib1 (a CA does
# not forward) dropped there; frames written on the cable to sib0 (taken
# to ACTIVE by ibportstate's Sets) (sib_inject.py): QP0 packets not
# 256-byte MADs on VL15, VL15 or permissive LIDs to QP1, bad DR SMPs, each
# counted; QP0 refused on a RoCE port; smpquery ends; the sib devices
# deleted under a registered QP0 agent.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/sib.sh"

need_sib

dbg=/sys/kernel/debug
py=$RDMA_KMOD_SRC/selftests/vm/smi.py

# umad_of IBDEV: the umadN of its port 1
umad_of() {
	for d in /sys/class/infiniband_mad/umad*; do
		read -r n <"$d/ibdev" && [ "$n" = "$1" ] && echo "${d##*/}" &&
			return 0
	done
	return 1
}

# smi_drops IBDEV: what the SMI of its port 1 discarded
smi_drops() {
	while read -r d p n; do
		[ "$d" = "$1" ] && [ "$p" = 1 ] && echo "$n" && return 0
	done <$dbg/ib_mad/smi_drops
	echo none
}

# guid IBDEV: its node GUID as 16 hex digits
guid() {
	read -r g <"$ib/$1/node_guid"
	echo "$g" | tr -d :
}

sib_pair_up ib_umad rdma_rxe
u0=$(umad_of sib0) || die "umad device of sib0"
expect_file "no SM: sib0 in INIT" $ib/sib0/ports/1/state "2: INIT"
[ -r $dbg/ib_mad/smi_drops ] && ok "ib_mad/smi_drops in debugfs" ||
	bad "no ib_mad/smi_drops"

d0=$(smi_drops sib0) p0=$(smi_drops sib1)
python3 "$py" dr /dev/infiniband/$u0 "$(guid sib0)" "$(guid sib1)" 0 sma ||
	bad "smi.py dr on sib0 ($? failures)"
d1=$(smi_drops sib0)
[ "$d0" != none ] && [ "$d1" != none ] && [ "$d1" -ge $((d0 + 2)) ] &&
	ok "SMI discards counted ($d0 -> $d1)" ||
	bad "SMI discards not counted ($d0 -> $d1)"
p1=$(smi_drops sib1)
[ "$p0" != none ] && [ "$p1" != none ] && [ "$p1" -gt "$p0" ] &&
	ok "sib1's SMI dropped the path through it ($p0 -> $p1)" ||
	bad "sib1's SMI drops $p0 -> $p1"

# A LID for sib0, set as an SM sets it (no SM runs: the DR SMP tests
# above want the ports quiet): PortInfo Sets from ibportstate through
# umad, DR path 0 (sib0's own SMA). Then LID-routed to itself.
set_port() { # OP [VALUE]: on sib0's port
	ibportstate -C sib0 -P 1 -D 0 1 "$@" >/tmp/smi.ps 2>&1 && return 0
	cat /tmp/smi.ps
	return 1
}
set_port lid 1 || bad "ibportstate: sib0 LID 1"
expect_file "sib0 LID by a PortInfo Set" $ib/sib0/ports/1/lid "0x1"
python3 "$py" dr /dev/infiniband/$u0 "$(guid sib0)" "$(guid sib1)" 1 ||
	bad "smi.py dr on sib0 with LID 1 ($? failures)"

# hand-made packets from the other end of the cable: each bad one dropped
# and counted by its reason (rx_drops vl15/dlid) or by the SMI
# (sib0 ACTIVE: an INIT port would drop non-VL15 packets for their state)
set_port smlid 1 && set_port arm && set_port active || bad "ibportstate: sib0 ACTIVE"
expect_file "sib0 ACTIVE by PortInfo Sets" $ib/sib0/ports/1/state "4: ACTIVE"
read -r mac </sys/class/net/vethA/address
python3 "$RDMA_KMOD_SRC/selftests/vm/sib_inject.py" vethB "$mac" sib0 1 ||
	bad "sib_inject.py ($? failures)"

# the infiniband-diags tool ends (an error or the answer) in time
timeout 30 smpquery -D -C sib0 -P 1 nodeinfo 0 >/tmp/smi.q 2>&1
rc=$?
cat /tmp/smi.q
[ $rc != 124 ] && ok "smpquery -D nodeinfo 0 ended (exit $rc)" ||
	bad "smpquery -D nodeinfo 0 hung"

# RoCE: no SMI
rdma link add rxe0 type rxe netdev eth0 || bad "rdma link add rxe0"
ur=$(umad_of rxe0) && python3 "$py" refused /dev/infiniband/$ur ||
	bad "QP0 on rxe0 ($?)"
rdma link delete rxe0 || bad "rdma link delete rxe0"

# the devices deleted under a registered QP0 agent with an SMP waiting
rm -f /tmp/smi.flag
python3 "$py" hold /dev/infiniband/$u0 /tmp/smi.flag >/tmp/smi.hold 2>&1 &
h=$!
i=0
until [ -e /tmp/smi.flag ] || [ $i -ge 50 ]; do i=$((i + 1)); sleep 0.3; done
[ -e /tmp/smi.flag ] || bad "QP0 agent for the removal"
rdma link delete sib0 || bad "rdma link delete sib0 under a QP0 agent"
rdma link delete sib1 || bad "rdma link delete sib1"
rm -f /tmp/smi.flag
wait $h || bad "smi.py hold ($? failures)"
cat /tmp/smi.hold
[ -e $ib/sib0 ] || [ -e $ib/sib1 ] && bad "sib devices left after delete" ||
	ok "sib devices deleted under a QP0 agent"

sib_unpair
rmmod ib_umad && ok "ib_umad unloaded" || bad "rmmod ib_umad"
rmmod rdma_rxe && ok "rdma_rxe unloaded" || bad "rmmod rdma_rxe"
finish
