#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 12, item 4: NVMe over Fabrics between two VMs on rxe0 (on siw0,
# upstream siw on a stock peer: twovm-nvmeof-siw runs this with "siw"; one
# test for both outlasted the debug kernel's 30 min), each VM once the nvmet target and
# once the nvme-rdma host: discover, connect -t rdma, ext4 made, used and
# checked, fio --verify=crc32c, disconnect (selftests/nvmeof.sh). The host
# sends the md5 of what it read to the target, which compares it with its
# own device. Against upstream siw a host retries discover/connect once if
# the admin queue's first command timed out (nvmeof_try). On our stack nvme-rdma and nvmet-rdma are the ones
# scripts/compat/build.sh rebuilt on our core.
# Ours against ours adds nothing nvmeof_loopback does not show (our host
# and our target in one VM) and would cost make check minutes: stock peer only.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"

# Both VMs learn first whether the other can run it at all, so neither
# waits for a peer that already gave up.
state=ready
( need_module nvme-rdma nvmet-rdma ) || state=blocked
wait_peer
peer_agree $state nvme-rdma/nvmet-rdma
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')

kind=${1:-rxe}
echo "--- $kind"
if [ $kind = rxe ]; then rxe_up || die "rxe0 up"; else siw_up || die "siw0 up"; fi
for trole in server client; do
	if [ "$RDMA_KMOD_ROLE" = $trole ]; then
		echo "--- target on ${kind}0 ($RDMA_KMOD_STACK)"
		t=fail
		nvmeof_target_up "$mine" && t=ready
		[ $t = ready ] && ok "nvmet port 1: rdma $mine:4420" || bad "nvmet target"
		peer_exchange $t >/dev/null
		sum=$(peer_exchange x)
		[ -n "$sum" ] && [ "$sum" != none ] &&
			expect_eq "first 32 MiB: peer host's read = this target's device" \
				"$sum" "$(nvmeof_target_sum)"
		nvmeof_target_down || bad "target teardown"
	else
		echo "--- host on ${kind}0 ($RDMA_KMOD_STACK)"
		t=$(peer_exchange x)
		NVMEOF_SUM=""
		NVMEOF_UPSTREAM_SIW=0
		[ $kind = siw ] && [ "$RDMA_KMOD_PEER_STACK" = stock ] && NVMEOF_UPSTREAM_SIW=1
		if [ "$t" = ready ]; then
			nvmeof_host "$RDMA_KMOD_PEER_IP"
		else
			echo "note: the peer's target is not up"
		fi
		peer_exchange "${NVMEOF_SUM:-none}" >/dev/null
	fi
	peer_barrier
done
rdma link delete ${kind}0 || bad "link delete ${kind}0"
finish
