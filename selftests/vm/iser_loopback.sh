#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 15: iSCSI over RDMA in one VM, on rxe0 and then on siw0, as ULP.md
# §10.3 does it: a LIO target (targetcli, a file backstore on tmpfs, the
# portal's iSER child enabled: ib_isert) and open-iscsi's initiator over the
# "iser" iface (ib_iser): discovery, login, ext4 made, used and checked, fio
# --verify=crc32c, the bytes the initiator read equal to the target's file,
# logout, target torn down, modules unloaded.
#
# Not over siw: LIO makes a portal's iSER listener a child of its TCP one on
# the same address and port, and a soft-iWARP listener is a socket of the
# host's TCP stack, so it cannot bind there (isert: rdma_listen() -98, the
# same with upstream siw; iWARP hardware has a TCP stack of its own). The
# siw pass checks that targetcli refuses, as a user sees it, and that the
# initiator's connect to a port without a listener fails cleanly.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"

need_module ib_iser ib_isert
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
iscsi_initiator_up || die "iscsid"
for kind in ${ISER_DRIVERS:-rxe siw}; do
	echo "--- $kind"
	if [ $kind = rxe ]; then rxe_up || die "rxe0 up"; else siw_up || die "siw0 up"; fi
	if [ $kind = siw ]; then
		if iscsi_target_up "$mine" >/tmp/tgt.out 2>&1; then
			bad "iSER portal on siw0 beside LIO's TCP listener"
		else
			grep -q 'Cannot change iser' /tmp/tgt.out &&
				ok "siw0: targetcli cannot enable iSER on $mine:3260 (TCP port taken)" ||
				{ cat /tmp/tgt.out; bad "siw0: targetcli's refusal"; }
		fi
		iscsiadm -m discovery -t st -p "$mine":3261 -I iser >/tmp/iscsi.disc 2>&1 &&
			bad "discovery over iSER where nothing listens" ||
			ok "discovery over iSER on siw0 where nothing listens fails ($(tail -1 /tmp/iscsi.disc))"
	elif iscsi_target_up "$mine"; then
		ok "LIO target $ISCSI_IQN, portal $mine:3260 with iSER on ${kind}0"
		ulp_ours ib_isert
		if iscsi_login "$mine"; then
			ulp_ours ib_iser
			nvmeof_io "$ISCSI_DEV"
			expect_eq "first 32 MiB: initiator's read = target's file" \
				"$NVMEOF_SUM" "$(iscsi_target_sum)"
		fi
		iscsi_logout "$mine"
	else
		bad "LIO target with iSER on ${kind}0"
	fi
	iscsi_target_down || bad "target teardown"
	rdma link delete ${kind}0 || bad "link delete ${kind}0"
done
iscsi_initiator_down || bad "initiator teardown"
finish
