#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 15: iSCSI over RDMA between two VMs on rxe0, each VM once the LIO
# target (targetcli, iSER portal) and once the open-iscsi initiator over the
# "iser" iface (selftests/iscsi.sh): discovery, login, ext4 made, used and
# checked, fio --verify=crc32c, logout. The initiator sends the md5 of what
# it read to the target, which compares it with its backstore. Against the
# stock peer: our ib_iser with the stock kernel's LIO and ib_isert, and the
# stock ib_iser with our LIO target's ib_isert (each checked ours). Not over
# siw: see iser_loopback.sh.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"

state=ready
( need_module ib_iser ib_isert ) || state=blocked
wait_peer
peer_agree $state ib_iser/ib_isert
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')

rxe_up || die "rxe0 up"
iscsi_initiator_up || die "iscsid"
for trole in server client; do
	if [ "$RDMA_KMOD_ROLE" = $trole ]; then
		echo "--- target ($RDMA_KMOD_STACK)"
		t=fail
		iscsi_target_up "$mine" && t=ready
		[ $t = ready ] && ok "LIO target, iSER portal $mine:3260" || bad "LIO target"
		[ $t = ready ] && ulp_ours ib_isert
		peer_exchange $t >/dev/null
		sum=$(peer_exchange x)
		[ -n "$sum" ] && [ "$sum" != none ] &&
			expect_eq "first 32 MiB: peer initiator's read = this target's file" \
				"$sum" "$(iscsi_target_sum)"
		iscsi_target_down || bad "target teardown"
	else
		echo "--- initiator ($RDMA_KMOD_STACK)"
		t=$(peer_exchange x)
		NVMEOF_SUM=""
		if [ "$t" = ready ] && iscsi_login "$RDMA_KMOD_PEER_IP"; then
			ulp_ours ib_iser
			nvmeof_io "$ISCSI_DEV"
		else
			echo "note: no session with the peer's target"
		fi
		[ "$t" = ready ] && iscsi_logout "$RDMA_KMOD_PEER_IP"
		peer_exchange "${NVMEOF_SUM:-none}" >/dev/null
	fi
	peer_barrier
done
iscsi_initiator_down || bad "initiator teardown"
rdma link delete rxe0 || bad "link delete rxe0"
finish
