#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 16: an unmodified OpenSM (Debian's 3.3.23, `opensm -g GUID` as seed
# 002 ch. 5 starts it) manages two sib ports cabled back to back (a veth
# pair): its sweep takes both ports to ACTIVE with LIDs (nothing else
# does), both name its port as their SM, `sminfo` says MASTER;
# the diagnostics of seed 002 ch. 7 read the fabric (ibstat, ibnetdiscover,
# smpquery by LID, saquery PathRecords through the SA, perfquery counters
# that move with traffic); RC pingpong over the LIDs it gave; killed, the
# ports stay ACTIVE and carry traffic; a restarted OpenSM is MASTER again.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/sib.sh"

need_sib
need_opensm

perf_field() { # DEV FIELD: a PortCounters field of DEV's port, via its own LID
	perfquery -C "$1" -P 1 | sed -n "s/^$2:\.*//p"
}

sib_pair_up ib_uverbs ib_umad

echo "--- OpenSM sweeps"
osm_up || bad "sib0, sib1 not ACTIVE with LIDs under OpenSM"
lid0=$(port_attr sib0 lid) lid1=$(port_attr sib1 lid)
[ "$lid0" != "$lid1" ] && ok "distinct LIDs: sib0 $lid0, sib1 $lid1" ||
	bad "LIDs: sib0 $lid0, sib1 $lid1"
expect_eq "sib1's SM LID is sib0's LID" "$(port_attr sib1 sm_lid)" "$lid0"
expect_eq "sib0's SM LID is its own" "$(port_attr sib0 sm_lid)" "$lid0"
ibstat sib1 | grep -q "State: Active" && ok "ibstat sib1: State: Active" ||
	bad "ibstat sib1: $(ibstat sib1 | grep State:)"
sm=$(sminfo -C sib1 -P 1 2>&1)
echo "$sm" | grep -q "SMINFO_MASTER" && echo "$sm" | grep -q "sm lid $((lid0)) " &&
	ok "sminfo from sib1: $sm" || bad "sminfo from sib1: $sm"

echo "--- diagnostics"
top=$(ibnetdiscover -C sib0 -P 1 2>&1)
for d in sib0 sib1; do
	g=$(guid_of $d)
	echo "$top" | grep -q "caguid=$(guid_re $d)$" && ok "ibnetdiscover lists $d ($g)" ||
		bad "ibnetdiscover does not list $d ($g)"
done
ni=$(smpquery -C sib0 -P 1 nodeinfo $((lid1)) 2>&1)
echo "$ni" | grep -q "^Guid:\.*$(guid_re sib1)$" &&
	ok "smpquery nodeinfo by LID $((lid1)): sib1's GUID" || bad "smpquery nodeinfo: $ni"
pr=$(saquery -C sib1 -P 1 -p 2>&1)
echo "$pr" | grep -q "dlid\.*$((lid0))$" && echo "$pr" | grep -q "slid\.*$((lid1))$" &&
	ok "saquery -p from sib1: a PathRecord $((lid1)) -> $((lid0))" || bad "saquery -p: $pr"
before=$(perf_field sib1 PortXmitData)

echo "--- traffic over the LIDs"
o0="-d sib0 -c" o1="-d sib1 -c"
# shellcheck disable=SC2086
pair "rc_pingpong over OpenSM's LIDs" $((60 * tf)) ibv_rc_pingpong $o0 -s 4096 -n 200 -- \
	ibv_rc_pingpong $o1 -s 4096 -n 200 127.0.0.1
after=$(perf_field sib1 PortXmitData)
[ "${after:-0}" -gt $((${before:-0} + 100 * 1024)) ] 2>/dev/null &&
	ok "perfquery sib1 PortXmitData $before -> $after" ||
	bad "perfquery sib1 PortXmitData $before -> $after"

echo "--- OpenSM killed, then restarted"
osm_stop
ports_stay_active sib0 sib1
# shellcheck disable=SC2086
pair "rc_pingpong without an SM" $((60 * tf)) ibv_rc_pingpong $o0 -n 50 -- \
	ibv_rc_pingpong $o1 -n 50 127.0.0.1
osm_start
ok_sm=0
for _ in $(seq $((60 * tf))); do
	sminfo -C sib1 -P 1 2>/dev/null | grep -q SMINFO_MASTER && { ok_sm=1; break; }
	sleep 1
done
[ $ok_sm = 1 ] && ok "a restarted OpenSM is MASTER" || bad "no MASTER after the restart"
expect_eq "sib1 keeps its LID" "$(port_attr sib1 lid)" "$lid1"
grep -E "ERR [0-9A-F]{4}" $osm/opensm.log | head -5

# The cable (both netdevs) deleted under OpenSM's open umad files and
# SMPs, SA and PMA queries and an RC flow in progress: both devices go
# once the verbs users are gone, without a splat.
echo "--- the cable deleted under OpenSM and traffic"
ibv_rc_pingpong -d sib0 -n 10000000 >/dev/null 2>&1 &
pp0=$!
sleep 1
ibv_rc_pingpong -d sib1 -n 10000000 127.0.0.1 >/dev/null 2>&1 &
pp1=$!
(
	while :; do
		timeout 5 perfquery -C sib1 -P 1
		timeout 5 saquery -C sib1 -P 1 -p
		timeout 5 smpquery -C sib1 -P 1 nodeinfo $((lid0))
	done
) >/dev/null 2>&1 &
load=$!
sleep 3
# the netdev is freed only once the devices are, which waits for the
# verbs users (rxe has no disassociate): delete it in the background
ip link del vethA &
del=$!
sleep 2
kill $load $pp0 $pp1 2>/dev/null
wait $load $pp0 $pp1 2>/dev/null
sibs_gone() { [ ! -e $ib/sib0 ] && [ ! -e $ib/sib1 ]; }
wait_until 30 sibs_gone && ok "sib0, sib1 gone with their cable" ||
	bad "sib0/sib1 still there after the cable went: $(ls $ib)"
gone() { ! kill -0 "$1" 2>/dev/null; }
wait_until 30 gone $del && ok "ip link del vethA returned" ||
	bad "ip link del vethA still waiting"
# OpenSM 3.3.23 whose port went away does not end on SIGTERM (its umad
# reads and writes fail with EIO): noted only; SIGKILL closes its files
kill "$osm_pid" 2>/dev/null
if ! wait_until 10 gone "$osm_pid"; then
	echo "note: OpenSM did not end on SIGTERM once its port went; killed"
	kill -9 "$osm_pid" 2>/dev/null
fi
osm_stop
finish
