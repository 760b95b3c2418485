#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Partitions as seed 002 ch. 5 sets them up, on two sib ports cabled back
# to back (a veth pair) and an unmodified OpenSM started with a partitions
# file (-P). The default partition takes both ports as full members;
# 0x8002 only sib0 (the SM's port); 0x8003 sib0 as a full and sib1 as a
# limited member. Checked: the P_KeyTables OpenSM programs (sysfs pkeys/*
# and `smpquery pkeys` over the fabric); traffic in the default partition
# and in 0x8003 (full to limited) passes; traffic of 0x8002 to the
# non-member and of the default partition to a QP of 0x8003 does not, and
# is counted by the receiver (PortInfo P_KeyViolations, PortCounters
# PortRcvConstraintErrors). Then the port events (ibv_asyncwatch) and what
# user space reads back when OpenSM changes things: a partitions file that
# makes sib1 a member of 0x8002 (SIGHUP: PKEY_CHANGE, the new table); a
# killed OpenSM leaves the ports ACTIVE, a restarted one sets
# ClientReregister (CLIENT_REREGISTER); one with another subnet prefix
# changes GID 0 (GID_CHANGE, the GID cache behind ibv_query_gid).
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/sib.sh"

need_sib
need_opensm

# pkeys DEV: its P_Key table, the non-empty entries, one line
pkeys() {
	for f in $ib/$1/ports/1/pkeys/*; do
		read -r k <"$f"
		case $k in 0x0000|0x8000) ;; *) printf '%s ' "$k" ;; esac
	done
}

# pkey_index DEV KEY: the index of KEY (as sysfs prints it) in DEV's table
pkey_index() {
	for f in $ib/$1/ports/1/pkeys/*; do
		read -r k <"$f"
		[ "$k" = "$2" ] && echo "${f##*/}" && return 0
	done
	return 1
}

has_pkey() { pkey_index "$1" "$2" >/dev/null; }

rcv_constraint() { # DEV: PortCounters PortRcvConstraintErrors
	perfquery -C "$1" -P 1 | sed -n 's/^PortRcvConstraintErrors:\.*//p'
}

# send_bw NAME SERVER_DEV SERVER_INDEX CLIENT_DEV CLIENT_INDEX: RC sends
# with the QPs on those P_Key indexes; true when they got through. A
# packet the receiver drops is never acknowledged and the RC retries last
# for ever on rxe: the client is stopped after a while.
send_bw() {
	timeout $((40 * tf)) ib_send_bw -d "$2" --pkey_index="$3" -n 5 \
		> /tmp/part.srv 2>&1 &
	s=$!
	wait_tcp_listen 18515 || { kill $s; wait $s; return 1; }
	timeout $((15 * tf)) ib_send_bw -d "$4" --pkey_index="$5" -n 5 \
		127.0.0.1 > /tmp/part.cli 2>&1
	r=$?
	kill $s 2>/dev/null
	wait $s 2>/dev/null
	return $r
}

sib_pair_up ib_uverbs ib_umad
mkdir -p $osm
g0=$(guid_of sib0) g1=$(guid_of sib1)

# the port events of sib1 as user space gets them
aw_start sib1
# listening before OpenSM sweeps (a slow VM starts it late)
for _ in $(seq $((20 * tf))); do
	grep -q "async event FD" /tmp/aw.out && break
	sleep 0.5
done

cat > $osm/partitions.conf <<EOF
# seed 002 ch. 5: the default partition, every port a full member
Default=0x7fff, ipoib, defmember=full : ALL, SELF=full ;
# only the SM's port
only0=0x8002 : $g0=full ;
# sib0 full, sib1 limited
mixed=0x8003 : $g0=full, $g1=limited ;
EOF

echo "--- OpenSM sweeps with $osm/partitions.conf"
osm_up -P $osm/partitions.conf || bad "sib0, sib1 not ACTIVE with LIDs under OpenSM"
lid0=$(($(port_attr sib0 lid))) lid1=$(($(port_attr sib1 lid)))

echo "--- P_KeyTables"
echo "sib0: $(pkeys sib0)"
echo "sib1: $(pkeys sib1)"
expect_eq "sib0 index 0: the default partition, full" "$(port_attr sib0 pkeys/0)" 0xffff
expect_eq "sib1 index 0: the default partition, full" "$(port_attr sib1 pkeys/0)" 0xffff
has_pkey sib0 0x8002 && ok "sib0 a full member of 0x8002" || bad "sib0: no 0x8002"
has_pkey sib0 0x8003 && ok "sib0 a full member of 0x8003" || bad "sib0: no 0x8003"
has_pkey sib1 0x0003 && ok "sib1 a limited member of 0x8003 (0x0003)" ||
	bad "sib1: no 0x0003"
if has_pkey sib1 0x8002 || has_pkey sib1 0x0002; then
	bad "sib1 in 0x8002"
else
	ok "sib1 not in 0x8002"
fi
sq=$(smpquery -C sib0 -P 1 pkeys $lid1 2>&1)
echo "$sq"
echo "$sq" | grep -q "0xffff" && echo "$sq" | grep -q "0x0003" &&
	! echo "$sq" | grep -q "0x8002" &&
	ok "smpquery pkeys $lid1 (sib1) over the fabric: 0xffff, 0x0003, no 0x8002" ||
	bad "smpquery pkeys $lid1: $sq"
sq=$(smpquery -C sib1 -P 1 pkeys $lid0 2>&1)
echo "$sq" | grep -q "0x8002" && echo "$sq" | grep -q "0x8003" &&
	ok "smpquery pkeys $lid0 (sib0) from sib1: 0x8002, 0x8003" ||
	bad "smpquery pkeys $lid0: $sq"

echo "--- traffic by partition"
o0="-d sib0 -c" o1="-d sib1 -c"
# shellcheck disable=SC2086
pair "default partition: rc_pingpong" $((60 * tf)) ibv_rc_pingpong $o0 -n 100 -- \
	ibv_rc_pingpong $o1 -n 100 127.0.0.1
i0_2=$(pkey_index sib0 0x8002) i0_3=$(pkey_index sib0 0x8003)
i1_3=$(pkey_index sib1 0x0003)
if [ -n "$i0_3" ] && [ -n "$i1_3" ] && send_bw x sib0 "$i0_3" sib1 "$i1_3"; then
	ok "0x8003: limited sib1 to full sib0 passes"
else
	bad "0x8003 limited to full: $(tail -3 /tmp/part.cli)"
fi
v0=$(pkey_viol sib1) c0=$(rcv_constraint sib1)
if [ -n "$i0_2" ] && ! send_bw x sib1 0 sib0 "$i0_2"; then
	ok "0x8002 from member sib0 to non-member sib1: not delivered"
else
	bad "0x8002 traffic reached the non-member"
fi
v1=$(pkey_viol sib1) c1=$(rcv_constraint sib1)
[ "${v1:-0}" -gt "${v0:-0}" ] && ok "sib1 P_KeyViolations $v0 -> $v1" ||
	bad "sib1 P_KeyViolations $v0 -> $v1"
[ "${c1:-0}" -gt "${c0:-0}" ] && ok "sib1 PortRcvConstraintErrors $c0 -> $c1" ||
	bad "sib1 PortRcvConstraintErrors $c0 -> $c1"
# 0xffff is in sib1's table, but not its QP's partition
if [ -n "$i1_3" ] && ! send_bw x sib1 "$i1_3" sib0 0; then
	ok "default partition to a QP of 0x8003: not delivered"
else
	bad "a 0x8003 QP took default-partition packets"
fi
v2=$(pkey_viol sib1)
# a slow VM's send may have run P_KeyViolations (16 bits) to its maximum
if [ "${v1:-0}" = 65535 ]; then
	ok "counted too: P_KeyViolations already saturated at 65535"
else
	[ "${v2:-0}" -gt "${v1:-0}" ] && ok "counted too: P_KeyViolations $v1 -> $v2" ||
		bad "P_KeyViolations $v1 -> $v2"
fi

echo "--- port events and what user space reads back"
for e in PORT_ACTIVE LID_CHANGE SM_CHANGE PKEY_CHANGE CLIENT_REREGISTER; do
	aw_seen "$e" && ok "sib1 event $e while OpenSM brought it up" ||
		bad "no $e event on sib1"
done
aw_set_mark
# sib1 joins 0x8002: OpenSM re-reads the file at the sweep SIGHUP forces
sed -i "s/^only0=0x8002 : .*/only0=0x8002 : $g0=full, $g1=full ;/" $osm/partitions.conf
kill -HUP "$osm_pid"
wait_until 30 has_pkey sib1 0x8002 && ok "sib1 now a member of 0x8002: $(pkeys sib1)" ||
	bad "sib1 not in 0x8002 after SIGHUP: $(pkeys sib1)"
wait_until 10 aw_seen PKEY_CHANGE && ok "sib1 event PKEY_CHANGE" || bad "no PKEY_CHANGE"
i1_2=$(pkey_index sib1 0x8002)
if [ -n "$i1_2" ] && send_bw x sib1 "$i1_2" sib0 "$i0_2"; then
	ok "0x8002 traffic to sib1 passes now"
else
	bad "0x8002 to the new member: $(tail -3 /tmp/part.cli)"
fi

aw_set_mark
osm_stop
ports_stay_active sib0 sib1
osm_start -P $osm/partitions.conf
reregistered sib1 $lid1

aw_set_mark
osm_stop
echo "subnet_prefix 0xfe80000000000abc" > $osm/opensm.conf
osm_start -P $osm/partitions.conf -F $osm/opensm.conf
gid_moved() { port_attr sib1 gids/0 | grep -q '^fe80:0000:0000:0abc:'; }
wait_until 60 gid_moved && ok "sib1 GID 0 under the new prefix: $(port_attr sib1 gids/0)" ||
	bad "sib1 GID 0: $(port_attr sib1 gids/0)"
wait_until 10 aw_seen GID_CHANGE && ok "sib1 event GID_CHANGE" || bad "no GID_CHANGE"
ibv_devinfo -v -d sib1 | grep -q "GID\[ *0\]:.*fe80:0000:0000:0abc:" &&
	ok "ibv_query_gid (the GID cache) has the new prefix" ||
	bad "ibv_devinfo: $(ibv_devinfo -v -d sib1 | grep 'GID\[')"
osm_end
aw_stop
echo "--- ibv_asyncwatch sib1"
cat /tmp/aw.out

sib_unpair sib0 sib1
finish
