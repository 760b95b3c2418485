#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Two-VM connection-management interop (issue 4): this VM (ours) and the
# peer (stock by default) run the same librdmacm steps in lockstep, each
# side once as server and once as client: rping (payload verified),
# ucmatose -c 10, ib_send_bw -R. Both ends must exit 0.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

modprobe rdma_rxe && modprobe ib_uverbs && modprobe rdma_ucm || die "modules"
rdma link add rxe0 type rxe netdev eth0 || die "rxe0"
gi=$(ipv4_gid_index) || die "no IPv4 GID"
wait_peer

for srole in server client; do
	if [ "$RDMA_KMOD_ROLE" = "$srole" ]; then me=server; else me=client; fi
	if [ $me = server ]; then
		mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
		step "rping" $srole 60 rping -s -a "$mine" -C 20 -v
		step "ucmatose -c 10" $srole 90 ucmatose -c 10 -b "$mine"
	else
		step "rping" $srole 60 rping -c -C 20 -v -a
		step "ucmatose -c 10" $srole 90 ucmatose -c 10 -s
	fi
	step "ib_send_bw -R" $srole 120 ib_send_bw -d rxe0 -R -n 200
done
sleep 2
rdma link delete rxe0 || bad "link delete"
finish
