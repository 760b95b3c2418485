#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 16: seed 002 ch. 5's several SMs on one fabric, unmodified OpenSM
# 3.3.23 on two sib ports cabled back to back (a veth pair): a master on
# sib0 (priority 10) and a second SM on sib1 (priority 5) that goes STANDBY.
# sminfo names both; the standby's Trap to the master is answered by a
# TrapRepress that reaches it (no IB_TIMEOUT, no ERR 3113 in its log, as
# there were while the SMA swallowed represses); ibv_devinfo -v reports the
# SubnetTimeout the SM set, as smpquery reads it; the master killed -9: the
# standby takes over within its polling time, both ports name it, stay
# ACTIVE and keep their LIDs, and an RC pingpong runs over those LIDs.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/sib.sh"

need_sib
need_opensm

# two OpenSMs: caches and logs in two directories of /tmp
osm0=$osm osm1=/tmp/osm2
pid0="" pid1=""

sm_start() { # DIR DEV PRIORITY: its pid in osm_pid
	mkdir -p "$1"
	# the waits below must see this OpenSM's lines, not an earlier one's
	rm -f "$1/opensm.log"
	OSM_CACHE_DIR=$1 OSM_TMP_DIR=$1 opensm --guid "$(guid_of "$2")" -p "$3" \
		--log_file "$1/opensm.log" > "$1/out" 2>&1 &
	osm_pid=$!
}

# sm_is DEV LID STATE SECONDS: sminfo from DEV names the SM at LID in
# STATE within SECONDS (LID empty: the SM DEV's port knows)
sm_is() {
	for _ in $(seq "$4"); do
		# shellcheck disable=SC2086
		sm=$(sminfo -C "$1" -P 1 $2 2>&1)
		echo "$sm" | grep -q "$3" && return 0
		sleep 1
	done
	return 1
}

sib_pair_up ib_uverbs ib_umad

echo "--- the master on sib0"
sm_start $osm0 sib0 10
pid0=$osm_pid
wait_for $osm0/opensm.log "Entering MASTER state" $((200 * tf)) ||
	die "no MASTER: $(tail -5 $osm0/opensm.log)"
for d in sib0 sib1; do
	wait_until 60 is_active $d && ok "$d ACTIVE" ||
		bad "$d not ACTIVE: $(port_attr $d state)"
done
lid0=$(($(port_attr sib0 lid))) lid1=$(($(port_attr sib1 lid)))

echo "--- the standby on sib1"
sm_start $osm1 sib1 5
pid1=$osm_pid
wait_for $osm1/opensm.log "Entering STANDBY state" $((200 * tf)) &&
	ok "the second OpenSM is STANDBY" ||
	bad "no STANDBY: $(grep -E 'Entering|ERR' $osm1/opensm.log | tail -5)"
sm_is sib0 "" "sm lid $lid0 .*SMINFO_MASTER" $((10 * tf)) &&
	ok "sminfo: $sm" || bad "sminfo from sib0: $sm"
sm_is sib0 $lid1 "sm lid $lid1 .*SMINFO_STANDBY" $((10 * tf)) &&
	ok "sminfo $lid1: $sm" || bad "sminfo $lid1 from sib0: $sm"
# OpenSM's Trap goes out once it is STANDBY; its send times out after
# 3 tries of transaction_timeout (200 ms): a few seconds tell
sleep $((5 * tf))
errs=$(grep -E "IB_TIMEOUT|ERR 3113|ERR 5410" $osm1/opensm.log)
[ -z "$errs" ] && ok "the standby's trap repressed: no IB_TIMEOUT in its log" ||
	bad "the standby's log: $errs"

echo "--- SubnetTimeout as the SM set it"
for d in sib0 sib1; do
	lid=$(($(port_attr $d lid)))
	st=$(smpquery -C sib0 -P 1 portinfo $lid | sed -n 's/^SubnetTimeout:\.*//p')
	dv=$(ibv_devinfo -v -d $d | awk '/subnet_timeout:/ { print $2 }')
	[ -n "$st" ] && [ "$st" = "$dv" ] &&
		ok "$d: ibv_devinfo subnet_timeout $dv = smpquery SubnetTimeout" ||
		bad "$d: ibv_devinfo subnet_timeout '$dv', smpquery SubnetTimeout '$st'"
done

echo "--- the master killed -9"
kill -9 "$pid0"
wait "$pid0" 2>/dev/null
pid0=""
# sminfo_polling_timeout 10 s x polling_retry_number 4, then a sweep
if sm_is sib1 "" "sm lid $lid1 .*SMINFO_MASTER" $((120 * tf)); then
	ok "the standby took over: $sm"
else
	bad "no takeover: $sm; $(grep -E 'Entering|ERR' $osm1/opensm.log | tail -5)"
fi
for _ in $(seq $((30 * tf))); do
	[ "$(($(port_attr sib0 sm_lid)))" = $lid1 ] && break
	sleep 1
done
sm_is sib0 "" "sm lid $lid1 .*SMINFO_MASTER" $((10 * tf)) &&
	ok "sminfo from sib0 names the new master" || bad "sminfo from sib0: $sm"
for d in sib0 sib1; do
	expect_eq "$d's SM LID" "$(($(port_attr $d sm_lid)))" $lid1
	is_active $d && ok "$d still ACTIVE" ||
		bad "$d: $(port_attr $d state)"
done
expect_eq "sib0 keeps its LID" "$(($(port_attr sib0 lid)))" $lid0
expect_eq "sib1 keeps its LID" "$(($(port_attr sib1 lid)))" $lid1

echo "--- traffic after the failover"
pair "rc_pingpong over the LIDs" $((60 * tf)) ibv_rc_pingpong -d sib0 -s 4096 -n 200 -- \
	ibv_rc_pingpong -d sib1 -s 4096 -n 200 127.0.0.1
kill "$pid1"
wait "$pid1" 2>/dev/null
grep -E "ERR [0-9A-F]{4}" $osm1/opensm.log | head -5

sib_unpair sib0 sib1
finish
