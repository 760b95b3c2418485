#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdma-kmod: second-lane
#
# Issue 15: SRP over rdma_cm in one VM, on rxe0 and then on siw0, as
# ULP.md §10.4 does it: a LIO target through srpt (raw configfs, a file
# backstore on tmpfs, a GID-form target port, an ACL for our initiator port
# ID, rdma_cm_port set) and our ib_srp logged in through add_target with
# dest=IP:PORT. The host's attributes read back, ext4 made, used and checked,
# fio --verify=crc32c, the bytes the initiator read equal to the target's
# file; a duplicate login refused (EEXIST), the IB/CM form refused on a
# non-IB port; the remote port deleted, target torn down, modules unloaded.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"
. "$RDMA_KMOD_SRC/selftests/srp.sh"

need_module ib_srp ib_srpt
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
for kind in ${SRP_DRIVERS:-rxe siw}; do
	dev=${kind}0
	echo "--- $kind"
	if [ $kind = rxe ]; then rxe_up || die "rxe0 up"; else siw_up || die "siw0 up"; fi
	iid=$(srp_init_id $dev)
	if ! srpt_target_up $dev "$iid" configfs; then
		bad "srpt target on $dev"
		srpt_target_down
		rdma link delete $dev
		continue
	fi
	ok "srpt target port $SRPT_WWN, ACL 0x$iid, rdma_cm_port $SRP_PORT"
	modprobe ib_srp || die "modprobe ib_srp"
	ulp_ours ib_srp
	[ -d /sys/class/infiniband_srp/srp-$dev-1 ] &&
		expect_eq "srp-$dev-1/ibdev" "$(cat /sys/class/infiniband_srp/srp-$dev-1/ibdev)" "$dev" ||
		bad "no /sys/class/infiniband_srp/srp-$dev-1"
	g=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)
	g=${g#0x}
	opts="id_ext=$g,ioc_guid=$g,initiator_ext=0000000000000000,dest=$mine:$SRP_PORT,src=$mine"
	if srp_add_target $dev "$opts"; then
		ok "logged in: $SRP_RPORT, $SRP_HOST, $SRP_DEV"
		h=/sys/class/scsi_host/$SRP_HOST
		expect_eq "id_ext" "$(cat $h/id_ext)" "0x$g"
		expect_eq "ioc_guid" "$(cat $h/ioc_guid)" "0x$g"
		expect_eq "local_ib_device" "$(cat $h/local_ib_device)" "$dev"
		expect_eq "port_id" "$(tr -d : </sys/class/srp_remote_ports/$SRP_RPORT/port_id)" "$g$g"
		cat $h/dgid >/dev/null 2>&1 && bad "dgid readable on an RDMA/CM login" ||
			ok "dgid: ENOENT on an RDMA/CM login"
		echo "req_lim $(cat $h/req_lim) ch_count $(cat $h/ch_count) sgid $(cat $h/sgid)"
		# coreutils' echo names the errno (dash's says "I/O error")
		/bin/echo "$opts" >/sys/class/infiniband_srp/srp-$dev-1/add_target 2>/tmp/srp.err &&
			bad "second login to the same target accepted" ||
			{ grep -q 'File exists' /tmp/srp.err && ok "second login: EEXIST" ||
				{ cat /tmp/srp.err; bad "second login's error"; }; }
		nvmeof_io "$SRP_DEV"
		expect_eq "first 32 MiB: initiator's read = target's file" \
			"$NVMEOF_SUM" "$(srp_target_sum)"
	else
		bad "login over $dev"
		dmesg | tail -20
	fi
	/bin/echo "id_ext=$g,ioc_guid=$g,dgid=fe800000000000000000000000000001,pkey=ffff,service_id=$g" \
		>/sys/class/infiniband_srp/srp-$dev-1/add_target 2>/tmp/srp.err &&
		bad "IB/CM login accepted on $dev" ||
		{ grep -q 'Operation not supported' /tmp/srp.err && ok "IB/CM form on $dev: EOPNOTSUPP" ||
			{ cat /tmp/srp.err; bad "IB/CM form's error"; }; }
	srp_logout || bad "remote port delete"
	[ -z "$(srp_rports)" ] && ok "no remote port left" || bad "remote ports left: $(srp_rports)"
	modprobe -r ib_srp || bad "ib_srp unload"
	srpt_target_down || bad "target teardown"
	rdma link delete $dev || bad "link delete $dev"
done
finish
