#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 12, item 4: NVMe over Fabrics in one VM, on rxe0 and then on siw0:
# an nvmet target (nvmet-rdma, port 4420 on this VM's address, a loop
# device as namespace) and the nvme-rdma host against it: nvme discover
# and connect -t rdma, ext4 made, used and checked, fio --verify=crc32c,
# the bytes the host read equal to the target's, nvme disconnect, target
# torn down, modules unloaded. On our stack nvme-rdma and nvmet-rdma are
# the ones scripts/compat/build.sh rebuilt on our core.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"

need_module nvme-rdma nvmet-rdma
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
for kind in rxe siw; do
	echo "--- $kind"
	if [ $kind = rxe ]; then rxe_up || die "rxe0 up"; else siw_up || die "siw0 up"; fi
	NVMEOF_UPSTREAM_SIW=0
	[ $kind = siw ] && [ "$RDMA_KMOD_STACK" = stock ] && NVMEOF_UPSTREAM_SIW=1
	if nvmeof_target_up "$mine"; then
		ok "nvmet port 1: rdma $mine:4420 on ${kind}0"
		nvmeof_host "$mine"
		expect_eq "first 32 MiB: host's read = target's device" \
			"$NVMEOF_SUM" "$(nvmeof_target_sum)"
	else
		bad "nvmet target on ${kind}0"
	fi
	nvmeof_target_down || bad "target teardown"
	rdma link delete ${kind}0 || bad "link delete ${kind}0"
done
finish
