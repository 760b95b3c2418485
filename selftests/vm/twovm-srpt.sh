#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 15: SRP over RDMA/CM between two VMs on rxe0: our ib_srpt (LIO,
# configfs, the target port in GID form, an ACL for the peer's initiator
# port ID) in vm1, the stock kernel's ib_srp in the peer logging in with
# add_target's RDMA/CM form (never_register=1: the stock rxe sometimes
# fails a fast registration, testing.md). The initiator makes ext4 on the
# disk, checks it, runs fio --verify=crc32c, and sends the md5 of what it
# read to the target, which compares it with its backstore; then it logs
# out and the target comes down. (The reverse, our ib_srp against the
# stock ib_srpt, belongs to the initiator's tests.)
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"
. "$RDMA_KMOD_SRC/selftests/srp.sh"

state=ready
if [ "$RDMA_KMOD_ROLE" = client ]; then
	( need_module ib_srpt ) || state=blocked
fi
wait_peer
peer_agree $state ib_srpt
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
rxe_up || die "rxe0 up"

if [ "$RDMA_KMOD_ROLE" = client ]; then
	echo "--- target ($RDMA_KMOD_STACK)"
	srpt_serve_peer
	sum=$(peer_exchange x)
	[ -n "$sum" ] && [ "$sum" != none ] &&
		expect_eq "first 32 MiB: peer initiator's read = this target's file" \
			"$sum" "$(srp_target_sum)"
	[ "$sum" = none ] && bad "the peer's initiator did not get the disk"
	peer_barrier
	srpt_target_down || bad "target teardown"
else
	echo "--- initiator ($RDMA_KMOD_STACK)"
	NVMEOF_SUM=""
	if srp_login_peer "$mine" never_register=1; then
		nvmeof_io "$SRP_DEV"
	else
		echo "note: no disk from the peer's target"
	fi
	peer_exchange "${NVMEOF_SUM:-none}" >/dev/null
	srp_logout_all
	peer_barrier
fi
rdma link delete rxe0 || bad "link delete rxe0"
finish
