#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 16: InfiniBand between two VMs. Each VM makes a sib device on eth0
# (MTU 2200: the link carries an IB MTU of 2048) and an unmodified OpenSM
# runs in one of them (role server) as seed 002 ch. 5 starts it: both ports
# come ACTIVE with distinct LIDs and that VM's LID as their SM LID, sminfo
# answers MASTER on both sides, ibnetdiscover lists both CAs from either,
# and an RC pingpong runs between the VMs over the LIDs OpenSM gave.
# Ours against ours only (make check's third two-VM pass): the stock kernel
# has no sib.
# peer-stacks: ours
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/sib.sh"

p=$ib/sib0/ports/1

sib2_up
lid=$LID
[ "$lid" != 0x0 ] && ok "LID $lid" || bad "no LID"
# both sides agree on who the SM is and that their LIDs differ
other=$(peer_exchange "$lid $(cat $p/sm_lid)")
expect_eq "SM LID the same on both sides" "${other#* }" "$(cat $p/sm_lid)"
[ "${other% *}" != "$lid" ] && ok "LIDs differ (peer ${other% *})" || bad "same LID as the peer: $lid"
is_sm && expect_eq "the SM's own LID is the SM LID" "$(cat $p/sm_lid)" "$lid"
sm=$(sminfo -C sib0 -P 1 2>&1)
echo "$sm" | grep -q SMINFO_MASTER && ok "sminfo: $sm" || bad "sminfo: $sm"
n=$(ibnetdiscover -C sib0 -P 1 2>/dev/null | grep -c '^Ca')
expect_eq "ibnetdiscover: CAs" "$n" 2
peer_exchange probed >/dev/null

step "rc_pingpong between the VMs over LIDs" server $((60 * tf)) \
	ibv_rc_pingpong -d sib0 -c -s 4096 -n 200

sib2_down
finish
