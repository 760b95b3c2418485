#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 15, a fault case with recovery: our initiator's RDMA device goes
# away under I/O and comes back. The peer (stock) serves a LIO target with
# an iSER portal on its rxe0; this VM logs in with ib_iser and fio writes
# with crc32c verification while rxe0 here is deleted and, 3 s later, added
# again. The deletion must not wait on the session, the session must
# recover once the device is back (iscsid binds a new endpoint to the same
# iSCSI connection) within its replacement_timeout (60 s), and fio must end
# with every block verified; then logout, teardown, unload.
# peer-stacks: stock
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"

state=ready
( need_module ib_iser ib_isert ) || state=blocked
wait_peer
peer_agree $state ib_iser/ib_isert
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
rxe_up || die "rxe0 up"

if [ "$RDMA_KMOD_ROLE" = server ]; then
	t=fail
	iscsi_target_up "$mine" && t=ready
	[ $t = ready ] && ok "LIO target, iSER portal $mine:3260" || bad "LIO target"
	peer_exchange $t >/dev/null
	peer_barrier	# the initiator is done
	iscsi_target_down || bad "target teardown"
	rdma link delete rxe0 || bad "link delete rxe0"
	finish
	exit
fi

iscsi_initiator_up || die "iscsid"
t=$(peer_exchange x)
ISCSI_NODE_OPTS="node.session.timeo.replacement_timeout=60"
if [ "$t" = ready ] && iscsi_login "$RDMA_KMOD_PEER_IP"; then
	fio --name=flap --filename="$ISCSI_DEV" --direct=1 --ioengine=libaio --iodepth=16 \
		--rw=randwrite --bs=16k --size=32M --verify=crc32c --verify_fatal=1 \
		--output=/tmp/fio.out >/dev/null 2>&1 &
	fpid=$!
	sleep 3
	kill -0 $fpid 2>/dev/null && ok "fio writing to $ISCSI_DEV" || bad "fio ended early"
	t0=$(date +%s)
	timeout 60 rdma link delete rxe0 &&
		ok "rxe0 deleted under I/O in $(($(date +%s) - t0)) s" || bad "rdma link delete rxe0"
	sleep 3
	rdma link add rxe0 type rxe netdev eth0 && ok "rxe0 back" || bad "rdma link add rxe0"
	t0=$(date +%s)
	st=""
	for _ in $(seq 90); do
		st=$(cat /sys/class/iscsi_session/session*/state 2>/dev/null | head -1)
		[ "$st" = LOGGED_IN ] && break
		sleep 1
	done
	expect_eq "session state after the device came back" "$st" LOGGED_IN
	echo "recovered in about $(($(date +%s) - t0)) s"
	if wait_gone $fpid 300; then
		wait $fpid && grep -q 'err= 0' /tmp/fio.out &&
			ok "fio randwrite 32 MiB across the flap, every block verified" ||
			{ bad "fio across the flap"; tail -20 /tmp/fio.out; }
	else
		bad "fio still running 300 s later"
		kill -9 $fpid
	fi
	iscsi_logout "$RDMA_KMOD_PEER_IP"
else
	bad "no session with the peer's target"
fi
peer_barrier
iscsi_initiator_down || bad "initiator teardown"
rdma link delete rxe0 || bad "link delete rxe0"
expect_eq "no cm_id left" "$(rdma res show cm_id 2>&1 | grep -c .)" 0
finish
