#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Seed 002 §2.3 "Configuring Soft-RoCE", literally, on the guest's eth0:
# rdma link add / show, rdma dev show, ibstat, ibstat -l, rdma link delete.
# Expected values (Rate, Capability mask, System image GUID) are the stock
# kernel's answers (scripts/vm/run.sh --stack stock --test soft_roce_seed).
# Few execs on purpose: each costs 0.1-0.5 s under TCG.
set -u

fails=0
ok() { echo "ok:   $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
# expect_eq DESCRIPTION GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		bad "$1"
		printf '  --- got:\n%s\n  --- want:\n%s\n' "$2" "$3"
	fi
}
# expect_match DESCRIPTION GOT SHELL-PATTERN
expect_match() {
	# shellcheck disable=SC2254
	case $2 in
	$3) ok "$1" ;;
	*) bad "$1"; printf '  --- got:\n%s\n  --- want pattern: %s\n' "$2" "$3" ;;
	esac
}

# Node/port GUID = modified EUI-64 of eth0's MAC.
IFS=: read -r m1 m2 m3 m4 m5 m6 </sys/class/net/eth0/address
b1=$(printf %02x $((0x$m1 ^ 2)))
guid=$b1$m2${m3}fffe$m4$m5$m6           # ibstat: 0x505400fffe123456
nl_guid=$b1$m2:${m3}ff:fe$m4:$m5$m6     # iproute2: 5054:00ff:fe12:3456
echo "eth0 MAC $m1:$m2:$m3:$m4:$m5:$m6 -> GUID 0x$guid (stack ${RDMA_KMOD_STACK:-unknown})"

# Stock 6.1 rxe values, see the header. Rate: virtio-net reports no speed,
# so ib_get_eth_speed falls back to 1X SDR = 2.5 Gb/s (the seed's "100" was
# a 100 GbE NIC). sys_image_guid = node GUID for rxe.
RATE=2.5
CAPMASK=0x00010000
SYSGUID=$guid

# Stock numbers devices from 0 after ib_core is loaded: only checkable when
# this script is what loads it.
fresh_core=1
[ -d /sys/module/ib_core ] && fresh_core=0

echo "# 2. rdma link show (before)"
out=$(rdma link show 2>&1)
expect_eq "no RDMA link before the procedure" "$out" ""

echo "# 3. rdma link add rxe0 type rxe netdev eth0"
out=$(rdma link add rxe0 type rxe netdev eth0 2>&1)
rc=$?
expect_eq "rdma link add exit status" "$rc" "0"
[ -z "$out" ] || echo "  output: $out"
if [ "$rc" != 0 ]; then
	echo "soft_roce_seed: cannot continue without rxe0"
	exit 1
fi

echo "# verification 1. rdma link show"
out=$(rdma link show 2>&1)
# iproute2 6.1 ends the line with a space (stock output, byte for byte).
expect_eq "rdma link show" "$out" "link rxe0/1 state ACTIVE physical_state LINK_UP netdev eth0 "

echo "# rdma dev show"
out=$(rdma dev show 2>&1)
echo "$out"
expect_match "rdma dev show lists rxe0 as a CA" "$out" "*: rxe0: node_type ca *"
if [ $fresh_core = 1 ]; then
	expect_match "first device of a fresh ib_core has index 0" "$out" "0: rxe0: *"
fi
expect_match "rdma dev show node_guid" "$out" "* node_guid $nl_guid *"

echo "# verification 3. ibstat rxe0"
out=$(ibstat rxe0 2>&1)
want=$(printf '%s\n' \
	"CA 'rxe0'" \
	"	CA type: " \
	"	Number of ports: 1" \
	"	Firmware version: " \
	"	Hardware version: " \
	"	Node GUID: 0x$guid" \
	"	System image GUID: 0x$SYSGUID" \
	"	Port 1:" \
	"		State: Active" \
	"		Physical state: LinkUp" \
	"		Rate: $RATE" \
	"		Base lid: 0" \
	"		LMC: 0" \
	"		SM lid: 0" \
	"		Capability mask: $CAPMASK" \
	"		Port GUID: 0x$guid" \
	"		Link layer: Ethernet")
expect_eq "ibstat rxe0" "$out" "$want"

out=$(ibstat -l 2>&1)
expect_eq "ibstat -l" "$out" "rxe0"

echo "# verification 2. ibv_devices"
out=$(ibv_devices 2>&1)
echo "$out"
if [ -e /sys/class/infiniband_verbs ]; then
	expect_match "ibv_devices lists rxe0 with its GUID" "$out" "*rxe0*$guid*"
else
	echo "note: no ib_uverbs on this stack: ibv_devices cannot list rxe0 yet"
fi

echo "# rdma link delete rxe0"
out=$(rdma link delete rxe0 2>&1)
expect_eq "rdma link delete exit status" "$?" "0"
[ -z "$out" ] || echo "  output: $out"
out=$(rdma link show 2>&1)
expect_eq "rdma link show after delete" "$out" ""
out=$(ibstat -l 2>&1)
expect_eq "ibstat -l after delete" "$out" ""
if [ -e /sys/class/infiniband/rxe0 ]; then
	bad "/sys/class/infiniband/rxe0 still exists"
else
	ok "/sys/class/infiniband/rxe0 gone"
fi

echo "soft_roce_seed: $fails failure(s)"
[ "$fails" = 0 ]
