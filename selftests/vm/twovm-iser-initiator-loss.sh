#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 15, a fault case: an iSER initiator killed while the target keeps
# serving another. Our LIO target with ib_isert (vm1, targetcli) exports one
# LUN to two initiators with names of their own: the peer's open-iscsi over
# the link and vm1's own (our ib_iser) over rxe0 in loopback, each writing
# and verifying its own 32 MiB of the disk with fio. Under that I/O the
# peer's iscsid is killed (kill -9) and its rxe0 deleted: vm1's fio must go
# on and verify every block, LIO must drop the lost initiator's session,
# and afterwards the target and every module must go, with no kernel report
# on either side.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"

lost_iqn=iqn.2026-11.org.rdma-kmod:initiator-lost
state=ready
( need_module ib_iser ) || state=blocked
[ "$RDMA_KMOD_ROLE" = client ] && { ( need_module ib_isert ) || state=blocked; }
wait_peer
peer_agree $state ib_iser/ib_isert
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
rxe_up || die "rxe0 up"

# The lost initiator's I/O fails soon once its session cannot recover.
ISCSI_NODE_OPTS="node.session.timeo.replacement_timeout=10"

if [ "$RDMA_KMOD_ROLE" = client ]; then
	echo "--- target and a local initiator ($RDMA_KMOD_STACK)"
	iscsi_initiator_up || die "iscsid"
	t=fail
	if iscsi_target_up "$mine"; then
		echo "/iscsi/$ISCSI_IQN/tpg1/acls create $lost_iqn" | targetcli >/tmp/tcli.out 2>&1
		[ -d "$ISCSI_TPG/acls/$lost_iqn/lun_0" ] && t=ready ||
			{ cat /tmp/tcli.out; bad "ACL $lost_iqn"; }
	fi
	[ $t = ready ] && ok "LIO target with ACLs for both initiators" && ulp_ours ib_isert
	peer_exchange $t >/dev/null
	go=$(peer_exchange x)
	local=none
	if [ $t = ready ] && iscsi_login "$mine"; then
		local=$ISCSI_DEV
		ulp_ours ib_iser
	fi
	info=$ISCSI_TPG/acls/$lost_iqn/info
	if [ "$go" = running ] && [ "$local" != none ]; then
		grep -q 'LIO Session ID' "$info" && ok "the peer's session is up" ||
			{ cat "$info"; bad "no session of the peer"; }
		fio_verify_bg local "$local" 64M 25
		sleep 5
		peer_exchange kill >/dev/null
		gone=""
		for _ in $(seq 90); do
			grep -q 'No active iSCSI Session' "$info" && { gone=1; break; }
			sleep 1
		done
		[ -n "$gone" ] && ok "LIO dropped the lost initiator's session" ||
			{ cat "$info"; bad "the lost initiator's session is still there"; }
		peer_exchange dropped >/dev/null
		wait $FIO
		expect_eq "local fio (verified) while the other initiator was lost" $? 0
		grep -E "err=|verify" /tmp/fio-local.out | head -3
		dd if="$local" of=/dev/null bs=1M count=8 iflag=direct 2>/dev/null &&
			ok "local disk still readable" || bad "local disk not readable"
	else
		bad "no I/O to lose an initiator under (peer $go, local disk $local)"
		peer_exchange kill >/dev/null
		peer_exchange none >/dev/null
	fi
	peer_barrier
	[ "$local" = none ] || iscsi_logout "$mine"
	iscsi_initiator_down || bad "initiator teardown"
	iscsi_target_down || bad "target teardown"
	expect_eq "no cm_id left" "$(rdma res show cm_id 2>&1 | grep -c .)" 0
	rdma link delete rxe0 || bad "link delete rxe0"
else
	echo "--- the initiator that is killed ($RDMA_KMOD_STACK)"
	ISCSI_INIT_IQN=$lost_iqn
	iscsi_initiator_up || die "iscsid"
	t=$(peer_exchange x)
	if [ "$t" = ready ] && iscsi_login "$RDMA_KMOD_PEER_IP"; then
		echo 10 >/sys/block/${ISCSI_DEV#/dev/}/device/timeout
		fio_verify_bg lost "$ISCSI_DEV" 0 40
		peer_exchange running >/dev/null
		peer_exchange x >/dev/null
		pkill -9 -x iscsid
		timeout 60 rdma link delete rxe0
		expect_eq "rdma link delete rxe0 under I/O, iscsid killed" $? 0
		wait $FIO
		rc=$?
		[ $rc = 124 ] && bad "fio hung after its initiator was killed" ||
			ok "fio ended (exit $rc) after its initiator was killed"
		# The kernel keeps the failed session; a new iscsid cannot log
		# it out while the target is unreachable (it tries to reopen it,
		# the stock stack alike), so the link comes back (after the
		# target dropped the session), the new iscsid logs the session
		# in again, and it is logged out.
		peer_exchange x >/dev/null
		rxe_up || bad "rxe0 up again"
		iscsid || bad "iscsid restarted"
		st=""
		for _ in $(seq 60); do
			st=$(cat /sys/class/iscsi_session/session*/state 2>/dev/null)
			[ "$st" = LOGGED_IN ] && break
			sleep 1
		done
		expect_eq "the session back with a new iscsid and the link" "$st" LOGGED_IN
		iscsi_logout "$RDMA_KMOD_PEER_IP"
		iscsiadm -m node -T $ISCSI_IQN -p "$RDMA_KMOD_PEER_IP":3260 -o delete >/dev/null 2>&1
	else
		peer_exchange none >/dev/null
		peer_exchange x >/dev/null
		peer_exchange x >/dev/null
		bad "no disk from the peer's target"
	fi
	peer_barrier
	iscsi_initiator_down
	rdma link delete rxe0
fi
finish
