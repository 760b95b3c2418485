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

tf=${RDMA_KMOD_TIME_FACTOR:-1}
p=/sys/class/infiniband/sib0/ports/1
osm=/tmp/osm

wait_peer
state=ready
modprobe rdma_rxe && modprobe ib_umad && modprobe ib_uverbs || state=no-modules
[ $state = ready ] && { ip link set eth0 mtu 2200 || state=no-mtu; }
[ $state = ready ] && { rdma link add sib0 type sib netdev eth0 || state=no-sib0; }
peer_agree $state "sib0 on eth0"

osm_pid=""
if [ "$RDMA_KMOD_ROLE" = server ]; then
	command -v opensm >/dev/null || die "opensm not installed (scripts/setup.sh installs it)"
	mkdir -p $osm
	# the VM's root file system is read-only: cache and log in /tmp
	OSM_CACHE_DIR=$osm OSM_TMP_DIR=$osm opensm -g "0x$(tr -d : < /sys/class/infiniband/sib0/node_guid)" \
		-f $osm/opensm.log > $osm/out 2>&1 &
	osm_pid=$!
fi
for _ in $(seq $((60 * tf))); do
	grep -q ACTIVE $p/state && break
	sleep 1
done
grep -q ACTIVE $p/state && ok "sib0 ACTIVE" || bad "sib0: $(cat $p/state)"
lid=$(cat $p/lid)
[ "$lid" != 0x0 ] && ok "LID $lid" || bad "no LID"
# both sides agree on who the SM is and that their LIDs differ
other=$(peer_exchange "$lid $(cat $p/sm_lid)")
expect_eq "SM LID the same on both sides" "${other#* }" "$(cat $p/sm_lid)"
[ "${other% *}" != "$lid" ] && ok "LIDs differ (peer ${other% *})" || bad "same LID as the peer: $lid"
[ "$RDMA_KMOD_ROLE" = server ] && expect_eq "the SM's own LID is the SM LID" "$(cat $p/sm_lid)" "$lid"
sm=$(sminfo -C sib0 -P 1 2>&1)
echo "$sm" | grep -q SMINFO_MASTER && ok "sminfo: $sm" || bad "sminfo: $sm"
n=$(ibnetdiscover -C sib0 -P 1 2>/dev/null | grep -c '^Ca')
expect_eq "ibnetdiscover: CAs" "$n" 2
peer_exchange probed >/dev/null

step "rc_pingpong between the VMs over LIDs" server $((60 * tf)) \
	ibv_rc_pingpong -d sib0 -c -s 4096 -n 200
peer_barrier

if [ -n "$osm_pid" ]; then
	kill "$osm_pid" 2>/dev/null
	wait "$osm_pid" 2>/dev/null
fi
rdma link delete sib0 || bad "link delete sib0"
ip link set eth0 mtu 1500
finish
