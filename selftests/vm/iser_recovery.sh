#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 15, a fault case with recovery: while fio writes with crc32c
# verification, the LIO target (in this VM, on rxe0) drops the iSER session
# (its TPG disabled for 3 s, which closes the connection and refuses logins,
# then enabled again). Our initiator must fail the connection, and iscsid
# reconnect (a new endpoint bound to the same iSCSI connection) well within
# the replacement_timeout (60 s here); the SCSI layer retries what failed
# meanwhile, so fio ends with every block verified; logout, teardown and
# unload work, with no kernel report. Then the target's configuration is
# torn down under I/O: the initiator's I/O fails, nothing hangs. (Deleting
# rxe0 instead takes the target's listener with it for good, with the stock
# stack too: see iser_link_loss.)
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"

need_module ib_iser ib_isert
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
iscsi_initiator_up || die "iscsid"
rxe_up || die "rxe0 up"
iscsi_target_up "$mine" || die "LIO target with iSER on rxe0"
ISCSI_NODE_OPTS="node.session.timeo.replacement_timeout=60"
iscsi_login "$mine" || die "login"

fio --name=recovery --filename="$ISCSI_DEV" --direct=1 --ioengine=libaio --iodepth=16 \
	--rw=randwrite --bs=16k --size=48M --verify=crc32c --verify_fatal=1 \
	--output=/tmp/fio.out >/dev/null 2>&1 &
fpid=$!
sleep 3
kill -0 $fpid 2>/dev/null && ok "fio writing to $ISCSI_DEV" || bad "fio ended early"
tpg=/iscsi/$ISCSI_IQN/tpg1
mark=$(dmesg | wc -l)
targetcli $tpg disable >/tmp/tcli.out 2>&1 && ok "target TPG disabled under I/O" ||
	{ cat /tmp/tcli.out; bad "targetcli $tpg disable"; }
sleep 3
targetcli $tpg enable >/tmp/tcli.out 2>&1 && ok "target TPG enabled again" ||
	{ cat /tmp/tcli.out; bad "targetcli $tpg enable"; }
t0=$(date +%s)
state=""
for _ in $(seq 90); do
	state=$(cat /sys/class/iscsi_session/session*/state 2>/dev/null | head -1)
	[ "$state" = LOGGED_IN ] && break
	sleep 1
done
expect_eq "session state after the target came back" "$state" LOGGED_IN
echo "recovered in about $(($(date +%s) - t0)) s"
n=$(dmesg | tail -n +$((mark + 1)) | grep -c 'detected conn error')
[ "$n" -ge 1 ] && ok "the connection failed and was made again ($n conn errors)" ||
	bad "no connection error: nothing was recovered"
if wait_gone $fpid 300; then
	wait $fpid && grep -q 'err= 0' /tmp/fio.out &&
		ok "fio randwrite 48 MiB across the recovery, every block verified" ||
		{ bad "fio across the recovery"; tail -20 /tmp/fio.out; }
else
	bad "fio still running 300 s later"
	kill -9 $fpid
fi

# Then the target's whole configuration torn down under I/O (targetcli
# clearconfig: TPG, LUN, ACL, portal and backstore removed while commands
# are in flight): LIO ends the session, our initiator's I/O fails once the
# session's recovery timeout (10 s) ran out, fio ends, nothing hangs.
for f in /sys/class/iscsi_session/session*/recovery_tmo; do echo 10 >"$f"; done
fio --name=teardown --filename="$ISCSI_DEV" --direct=1 --ioengine=libaio --iodepth=16 \
	--rw=randwrite --bs=16k --size=48M --time_based --runtime=120 \
	--output=/tmp/fio2.out >/dev/null 2>&1 &
fpid=$!
sleep 3
targetcli clearconfig confirm=True >/tmp/tcli.out 2>&1 &&
	ok "target configuration torn down under I/O" ||
	{ cat /tmp/tcli.out; bad "targetcli clearconfig under I/O"; }
[ -d "$ISCSI_TPG" ] && bad "the target's TPG is still in configfs"
if wait_gone $fpid 120; then
	wait $fpid
	rc=$?
	[ $rc != 0 ] && ok "fio ended with I/O errors (exit $rc) once the target was gone" ||
		bad "fio wrote to a target that was torn down"
else
	bad "fio still running 120 s after the target was torn down"
	kill -9 $fpid
fi
iscsi_logout "$mine"
iscsi_target_down || bad "target teardown"
iscsi_initiator_down || bad "initiator teardown"
rdma link delete rxe0 || bad "link delete rxe0"
expect_eq "no cm_id left" "$(rdma res show cm_id 2>&1 | grep -c .)" 0
finish
