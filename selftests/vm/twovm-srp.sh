#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 15: SRP over rdma_cm between two VMs on rxe0: our ib_srp initiator
# against the peer's LIO target through its srpt (selftests/srp.sh: a file
# backstore on tmpfs, a GID-form target port, an ACL for our initiator port
# ID, rdma_cm_port set). The initiator sends its port ID, the target its
# srpt_service_guid; login through add_target with dest=PEER:PORT, ext4
# made, used and checked, fio --verify=crc32c, the md5 of what the initiator
# read compared by the target with its backstore; the remote port deleted,
# both sides torn down. The VM on our stack is the initiator (with two VMs
# on one stack, the client).
# peer-stacks: stock
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"
. "$RDMA_KMOD_SRC/selftests/srp.sh"

state=ready
( need_module ib_srp ib_srpt ) || state=blocked
wait_peer
other=$(peer_exchange "$state:$RDMA_KMOD_STACK")
[ $state = ready ] || die "ib_srp/ib_srpt not usable here"
case "$other" in ready:*) ;; *) echo "note: the peer cannot run it ($other)"; finish; exit ;; esac
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
role=target
if [ "$RDMA_KMOD_STACK" != "${other#ready:}" ]; then
	[ "$RDMA_KMOD_STACK" = ours ] && role=initiator
elif [ "$RDMA_KMOD_ROLE" = client ]; then
	role=initiator
fi

rxe_up || die "rxe0 up"
if [ $role = target ]; then
	echo "--- target ($RDMA_KMOD_STACK)"
	modprobe ib_srpt || die "modprobe ib_srpt"
	g=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)
	iid=$(peer_exchange "${g#0x}")
	t=fail
	srpt_target_up rxe0 "$iid" configfs && t=ready
	[ $t = ready ] && ok "srpt target port $SRPT_WWN, ACL 0x$iid" ||
		bad "srpt target"
	peer_exchange $t >/dev/null
	sum=$(peer_exchange x)
	[ -n "$sum" ] && [ "$sum" != none ] &&
		expect_eq "first 32 MiB: peer initiator's read = this target's file" \
			"$sum" "$(srp_target_sum)"
	peer_barrier
	srpt_target_down || bad "target teardown"
else
	echo "--- initiator ($RDMA_KMOD_STACK)"
	g=$(peer_exchange "$(srp_init_id rxe0)")
	t=$(peer_exchange x)
	NVMEOF_SUM=""
	modprobe ib_srp || die "modprobe ib_srp"
	ulp_ours ib_srp
	opts="id_ext=$g,ioc_guid=$g,initiator_ext=0000000000000000,dest=$RDMA_KMOD_PEER_IP:$SRP_PORT,src=$mine"
	if [ "$t" = ready ] && srp_add_target rxe0 "$opts"; then
		ok "logged in to the peer: $SRP_RPORT, $SRP_HOST, $SRP_DEV"
		expect_eq "id_ext" "$(cat /sys/class/scsi_host/$SRP_HOST/id_ext)" "0x$g"
		nvmeof_io "$SRP_DEV"
	else
		bad "login to the peer's target"
		dmesg | tail -20
	fi
	srp_logout || bad "remote port delete"
	peer_exchange "${NVMEOF_SUM:-none}" >/dev/null
	peer_barrier
	modprobe -r ib_srp || bad "ib_srp unload"
fi
rdma link delete rxe0 || bad "link delete rxe0"
finish
