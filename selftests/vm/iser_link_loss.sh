#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 15, a fault case: the RDMA device under a logged-in iSER session
# (target and initiator in this VM, on rxe0) is deleted while fio writes.
# The deletion must not wait on the session (our ib_iser hands the device
# back from the connection's teardown, which scsi_transport_iscsi starts
# itself), the session must go to recovery and fail the I/O once its
# replacement_timeout (10 s here) ran out, the logout and the target's
# teardown must work, and every module must unload, with no kernel report.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"

need_module ib_iser ib_isert
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
iscsi_initiator_up || die "iscsid"
rxe_up || die "rxe0 up"
iscsi_target_up "$mine" || die "LIO target with iSER on rxe0"
ISCSI_NODE_OPTS="node.session.timeo.replacement_timeout=10"
iscsi_login "$mine" || die "login"

fio --name=loss --filename="$ISCSI_DEV" --direct=1 --ioengine=libaio --iodepth=16 \
	--rw=randwrite --bs=16k --size=64M --time_based --runtime=600 \
	--output=/tmp/fio.out >/dev/null 2>&1 &
fpid=$!
sleep 3
kill -0 $fpid 2>/dev/null && ok "fio writing to $ISCSI_DEV" || bad "fio ended early"
t0=$(date +%s)
if timeout 60 rdma link delete rxe0; then
	ok "rdma link delete rxe0 under I/O returned in $(($(date +%s) - t0)) s"
else
	bad "rdma link delete rxe0 under I/O (hung or failed)"
fi
# recovery gives up after replacement_timeout: the I/O fails, fio ends
i=0
while kill -0 $fpid 2>/dev/null; do
	i=$((i + 1))
	[ $i -le 90 ] || break
	sleep 1
done
if kill -0 $fpid 2>/dev/null; then
	bad "fio still running 90 s after the device went"
	kill -9 $fpid
else
	wait $fpid
	rc=$?
	[ $rc != 0 ] && ok "fio failed (exit $rc) $(($(date +%s) - t0)) s after the device went" ||
		bad "fio succeeded without a device"
fi
grep -E 'err=|error' /tmp/fio.out | head -3
state=$(cat /sys/class/iscsi_session/session*/state 2>/dev/null | head -1)
echo "session state: $state"
iscsi_logout "$mine"
iscsi_target_down || bad "target teardown"
iscsi_initiator_down || bad "initiator teardown"
expect_eq "no cm_id left" "$(rdma res show cm_id 2>&1 | grep -c .)" 0
finish
