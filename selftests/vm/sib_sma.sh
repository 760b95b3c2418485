#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The SMA and PMA of sib (its process_mad), before QP0 can carry SMPs to
# them: selftests/kmod/rdma_mad_inject.ko hands MADs straight to
# process_mad, sib_sma.py builds them and checks the answers. On sib0 and
# sib1 over a veth pair: NodeInfo field by field, NodeDescription (and a
# sysfs node_desc write), PortInfo Get; LID and SM LID by PortInfo Set,
# read back by Get and sysfs; INIT -> ACTIVE refused (0x001C), INIT ->
# ARMED -> ACTIVE by Sets alone, a Down Set retraining to INIT, ibstat;
# P_KeyTable Set read back by Get and sysfs pkeys/N; GUIDInfo, SLtoVL,
# VLArb; unknown attributes (0x000C), bad modifiers (0x001C), what goes
# back to the core (responses, traps, other classes), TrapRepress;
# SMInfo with and without issmN held; M_Key with protect bits 1, 2, 3
# (a wrong key gets no answer and counts, the right one works,
# IB_MAD_IGNORE_MKEY, the lease running out); ClientReregister, GidPrefix
# (gids/0 follows). Then the PMA: ClassPortInfo, PortCounters moving with
# an ibv_rc_pingpong between the LIDs the SMA set, PortCountersExtended,
# a Set clearing the selected counters. Last the cable pulled and put back:
# DOWN, then INIT only, LinkDowned counted. The port events all this
# raised, as ibv_asyncwatch sees them; 3000 random MADs.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/sib.sh"

need_sib
ko=$RDMA_KMOD_SRC/selftests/kmod/rdma_mad_inject.ko
[ -f "$ko" ] || die "no $ko (make modules)"

py=$RDMA_KMOD_SRC/selftests/vm/sib_sma.py

sib_pair_up ib_uverbs ib_umad
insmod "$ko" || die "insmod rdma_mad_inject"

# the events the Sets raise, as a verbs consumer sees them
stdbuf -oL ibv_asyncwatch -d sib0 > /tmp/sib0.events 2>&1 &
w0=$!
stdbuf -oL ibv_asyncwatch -d sib1 > /tmp/sib1.events 2>&1 &
w1=$!
wait_for /tmp/sib0.events "async event FD" 50 &&
	wait_for /tmp/sib1.events "async event FD" 50 || bad "ibv_asyncwatch"

python3 "$py" sma || bad "sib_sma.py sma ($? failures)"

read -r st <$ib/sib1/ports/1/state
[ "$st" = "4: ACTIVE" ] || die "sib1 not ACTIVE after the SMA's Sets"
python3 "$py" pma-before || bad "sib_sma.py pma-before ($? failures)"
n=200 size=4096
pair "rc_pingpong between the LIDs the SMA set" 90 \
	ibv_rc_pingpong -d sib0 -c -s $size -n $n -- \
	ibv_rc_pingpong -d sib1 -c -s $size -n $n 127.0.0.1
python3 "$py" pma-after $n $size || bad "sib_sma.py pma-after ($? failures)"

# the cable: its loss brings DOWN (LID kept, LinkDowned counted), its
# return INIT only: ARMED and ACTIVE come from the SM again
ip link set vethA down
wait_for $ib/sib0/ports/1/state "1: DOWN" 30 || bad "sib0 DOWN without cable"
expect_file "sib1 without carrier: Polling" $ib/sib1/ports/1/phys_state "2: Polling"
python3 "$py" cable 1 3 1 || bad "sib_sma.py cable down ($? failures)"
ip link set vethA up
wait_for $ib/sib0/ports/1/state "2: INIT" 30 || bad "sib0 INIT with cable"
wait_for $ib/sib1/ports/1/state "2: INIT" 30 || bad "sib1 INIT with cable"
python3 "$py" cable 2 5 1 || bad "sib_sma.py cable up ($? failures)"

kill $w0 $w1
wait $w0 $w1 2>/dev/null
# sib0: LIDs, PortState, P_KeyTable; sib1: the same but P_Keys, then
# ClientReregister, GidPrefix and the cable
for e in LID_CHANGE SM_CHANGE PORT_ACTIVE PKEY_CHANGE; do
	grep -q "IBV_EVENT_$e (.*), port 1" /tmp/sib0.events &&
		ok "sib0 event $e" || bad "sib0: no event $e"
done
for e in LID_CHANGE SM_CHANGE PORT_ACTIVE CLIENT_REREGISTER GID_CHANGE \
	 PORT_ERR; do
	grep -q "IBV_EVENT_$e (.*), port 1" /tmp/sib1.events &&
		ok "sib1 event $e" || bad "sib1: no event $e"
done
grep -q PKEY_CHANGE /tmp/sib1.events && bad "sib1: a P_Key change event"
cat /tmp/sib1.events

# garbage last (it may leave sib1 with any SMA state)
python3 "$py" fuzz sib1 3000 || bad "sib_sma.py fuzz ($? failures)"

rmmod rdma_mad_inject || bad "rmmod rdma_mad_inject"
sib_unpair sib0 sib1
modprobe -r ib_umad || bad "modprobe -r ib_umad"
rmmod rdma_rxe && ok "rdma_rxe unloaded" || bad "rmmod rdma_rxe"
finish
