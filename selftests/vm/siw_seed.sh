#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Seed 002 §3.2 "Configuring Soft-iWARP", literally, on the guest's eth0:
# rdma link show, modprobe siw, rdma link add siw0 type siw netdev eth0,
# then the verification steps (rdma link show, ibv_devices, ibv_devinfo
# siw0), and ibv_devinfo -v siw0 against the text recorded on the reference
# (stock kernel with upstream siw, scripts/peer/upstream-siw.sh):
#   scripts/vm/run.sh --stack stock --cmd '... ibv_devinfo -v -d siw0'
# Nothing is masked: the GUIDs follow from the VM's fixed MAC, the device
# counter (vendor_part_id) restarts with a fresh module load.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

# Node GUID = modified EUI-64 of eth0's MAC.
IFS=: read -r m1 m2 m3 m4 m5 m6 </sys/class/net/eth0/address
b1=$(printf %02x $((0x$m1 ^ 2)))
guid=$b1$m2${m3}fffe$m4$m5$m6           # ibv_devices: 505400fffe123451
vguid=$b1$m2:${m3}ff:fe$m4:$m5$m6       # ibv_devinfo: 5054:00ff:fe12:3451

echo "# 2. rdma link show (before)"
modprobe -r siw 2>/dev/null
out=$(rdma link show 2>&1)
expect_eq "no RDMA link before the procedure" "$out" ""

echo "# 3. modprobe siw"
modprobe siw || die "modprobe siw"
modprobe ib_uverbs || die "modprobe ib_uverbs"

echo "# 4. rdma link add siw0 type siw netdev eth0"
out=$(rdma link add siw0 type siw netdev eth0 2>&1)
expect_eq "rdma link add exit status" "$?" "0"
[ -z "$out" ] || echo "  output: $out"
[ -e /sys/class/infiniband/siw0 ] || die "no siw0"

echo "# verification 1. rdma link show"
out=$(rdma link show 2>&1)
# iproute2 6.1 ends the line with a space (stock output, byte for byte).
expect_eq "rdma link show" "$out" "link siw0/1 state ACTIVE physical_state LINK_UP netdev eth0 "

echo "# verification 2. ibv_devices"
out=$(ibv_devices 2>&1)
want=$(printf '%s\n' \
	"    device          	   node GUID" \
	"    ------          	----------------" \
	"    siw0            	$guid")
expect_eq "ibv_devices" "$out" "$want"

echo "# verification 3. ibv_devinfo siw0"
out=$(ibv_devinfo siw0 2>&1)
want=$(printf '%s\n' \
	"hca_id:	siw0" \
	"	transport:			iWARP (1)" \
	"	fw_ver:				0.0.0" \
	"	node_guid:			$vguid" \
	"	sys_image_guid:			$vguid" \
	"	vendor_id:			0x626d74" \
	"	vendor_part_id:			1" \
	"	hw_ver:				0x0" \
	"	phys_port_cnt:			1" \
	"		port:	1" \
	"			state:			PORT_ACTIVE (4)" \
	"			max_mtu:		1024 (3)" \
	"			active_mtu:		1024 (3)" \
	"			sm_lid:			0" \
	"			port_lid:		0" \
	"			port_lmc:		0x00" \
	"			link_layer:		Ethernet" \
	"")
expect_eq "ibv_devinfo siw0 (the seed's fields)" "$out" "$want"

echo "# ibv_devinfo -v siw0"
want=$(expected "$RDMA_KMOD_SRC/selftests/vm/expected/siw0-devinfo-v.txt")
out=$(ibv_devinfo -v -d siw0 2>&1)
expect_eq "ibv_devinfo -v -d siw0 equals the reference" "$out" "$want"

# rdma dev shows an RNIC; ibstat lists only CAs (node types 1-3).
out=$(rdma dev show siw0 2>&1)
case $out in
*"siw0: node_type rnic "*) ok "rdma dev show: node_type rnic" ;;
*) bad "rdma dev show siw0"; echo "$out" ;;
esac
expect_eq "ibstat -l leaves out the RNIC" "$(ibstat -l 2>&1)" ""

echo "# rdma link delete siw0"
out=$(rdma link delete siw0 2>&1)
expect_eq "rdma link delete exit status" "$?" "0"
expect_eq "rdma link show after delete" "$(rdma link show 2>&1)" ""
finish
