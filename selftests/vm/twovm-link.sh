#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Two-VM mode (run.sh --two-vm): both VMs bring up rxe0 on the shared
# Ethernet link (ours here, the peer's stack as chosen) and reach each other.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

modprobe rdma_rxe || die "modprobe rdma_rxe"
rdma link add rxe0 type rxe netdev eth0 || die "rdma link add rxe0"
rdma link show
wait_peer
ok "$RDMA_KMOD_ROLE on ${RDMA_KMOD_STACK} reaches $RDMA_KMOD_PEER_IP"
# Let the peer's last probe get its answer before we power off.
sleep 5
rdma link delete rxe0 || bad "rdma link delete rxe0"
finish
