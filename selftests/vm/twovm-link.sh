#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Two-VM mode (run.sh --two-vm): both VMs bring up rxe0 on the shared
# Ethernet link (ours here, the peer's stack as chosen) and reach each other.
set -u
modprobe rdma_rxe || exit 1
rdma link add rxe0 type rxe netdev eth0 || exit 1
rdma link show
i=0
until busybox ping -c 1 -W 1 "$RDMA_KMOD_PEER_IP" > /dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 60 ] || { echo "FAIL: peer $RDMA_KMOD_PEER_IP unreachable"; exit 1; }
done
echo "ok: $RDMA_KMOD_ROLE on ${RDMA_KMOD_STACK} reaches $RDMA_KMOD_PEER_IP"
# Let the peer's last probe get its answer before we power off.
sleep 5
rdma link delete rxe0
