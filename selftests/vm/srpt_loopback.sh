#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 15: SRP over RDMA/CM in one VM, on rxe0 and then on siw0, as
# ULP.md §10.4 does it: a LIO target exported through our ib_srpt (a file
# backstore on tmpfs; targetcli on rxe0, configfs by hand on siw0; the
# target port in GID form, an ACL for the initiator's port ID,
# discovery_auth/rdma_cm_port 5555) and the in-tree ib_srp rebuilt on our
# core logging in with add_target's RDMA/CM form (dest=IP:5555). The disk
# gets ext4, fsck, fio --verify=crc32c (direct, iodepth 16), and the bytes
# read equal the backstore's; then the initiator logs out, the target
# port is removed and every module unloads.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"
. "$RDMA_KMOD_SRC/selftests/srp.sh"

need_module ib_srp ib_srpt
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
for kind in ${SRP_DRIVERS:-rxe siw}; do
	echo "--- $kind"
	if [ $kind = rxe ]; then rxe_up || die "rxe0 up"; how=targetcli
	else siw_up || die "siw0 up"; how=configfs; fi
	dev=${kind}0
	hex=$(srp_gid_hex $dev)
	# initiator_ext 0, then GID[0]'s interface ID (ib_srp's RDMA/CM login)
	iid=0000000000000000${hex#????????????????}
	if srpt_target_up $dev "$iid" $how; then
		ok "LIO target $SRPT_WWN on $dev ($how), ACL 0x$iid"
		ulp_ours ib_srpt
		guid=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)
		if srp_login $dev "$mine" "$mine" "$guid"; then
			dmesg | grep -q "ib_srpt Received SRP_LOGIN_REQ with i_port_id .* it_iu_len 8260" &&
				ok "target logged the login" || bad "no SRP_LOGIN_REQ line"
			nvmeof_io "$SRP_DEV"
			expect_eq "first 32 MiB: initiator's read = target's file" \
				"$NVMEOF_SUM" "$(srp_target_sum)"
		fi
		srp_logout_all
	else
		bad "LIO target on $dev"
	fi
	srpt_target_down || bad "target teardown"
	rdma link delete $dev || bad "link delete $dev"
	expect_eq "no cm_id left" "$(rdma res show cm_id 2>&1 | grep -c .)" 0
done
finish
