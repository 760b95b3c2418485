#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 15, a fault case: an initiator lost while the target keeps serving
# another. Our ib_srpt (vm1, LIO, configfs) exports one LUN to two SRP
# initiators: the peer's ib_srp over the link and vm1's own ib_srp over
# rxe0 in loopback, each writing and verifying its own 32 MiB of the disk
# with fio. Under that I/O the peer deletes its rxe0 (the initiator's link
# removed): vm1's fio must go on and verify every block, the target must
# log the lost initiator's channel out, and afterwards the target port and
# every module must go, with no kernel report on either side.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"
. "$RDMA_KMOD_SRC/selftests/srp.sh"

state=ready
if [ "$RDMA_KMOD_ROLE" = client ]; then
	( need_module ib_srpt ib_srp ) || state=blocked
fi
wait_peer
peer_agree $state ib_srpt/ib_srp
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
rxe_up || die "rxe0 up"

if [ "$RDMA_KMOD_ROLE" = client ]; then
	echo "--- target and a local initiator ($RDMA_KMOD_STACK)"
	srpt_serve_peer
	# a second ACL: this VM's own initiator port ID
	lid=$(srp_init_id rxe0)
	a=$SRPT_TPG/acls/0x$lid
	mkdir -p "$a/lun_0" && ln -s "$SRPT_TPG/lun/lun_0" "$a/lun_0/lun0" ||
		bad "ACL 0x$lid"
	go=$(peer_exchange x)
	local=none
	if [ $T = ready ] && srp_login rxe0 "$mine" "$mine" "$SRPT_GUID"; then
		local=$SRP_DEV
		ulp_ours ib_srp
	fi
	if [ "$go" = running ] && [ "$local" != none ]; then
		fio_verify_bg local "$local" 64M 25
		sleep 5
		peer_exchange delete >/dev/null
		# the peer's link is gone: its channel is logged out (a DREQ,
		# or the CM's timeout) while this VM's own one keeps working
		gone=""
		for _ in $(seq 90); do
			dmesg | grep -q "ib_srpt: 0x$SRPT_PEER_ID logged out\|ib_srpt: $SRPT_PEER_ID logged out" &&
				{ gone=1; break; }
			sleep 1
		done
		[ -n "$gone" ] && ok "the lost initiator's channel logged out" ||
			bad "the lost initiator's channel is still there"
		wait $FIO
		expect_eq "local fio (verified) while the other initiator was lost" $? 0
		grep -E "err=|verify" /tmp/fio-local.out | head -3
		dd if="$local" of=/dev/null bs=1M count=8 iflag=direct 2>/dev/null &&
			ok "local disk still readable" || bad "local disk not readable"
	else
		bad "no I/O to lose an initiator under (peer $go, local disk $local)"
		peer_exchange delete >/dev/null
	fi
	peer_barrier
	srp_logout_all
	srpt_target_down || bad "target teardown"
	expect_eq "no cm_id left" "$(rdma res show cm_id 2>&1 | grep -c .)" 0
	rdma link delete rxe0 || bad "link delete rxe0"
else
	echo "--- the initiator that is lost ($RDMA_KMOD_STACK)"
	if srp_login_peer "$mine" never_register=1; then
		srp_fail_fast
		fio_verify_bg lost "$SRP_DEV" 0 40
		peer_exchange running >/dev/null
		peer_exchange x >/dev/null
		timeout 60 rdma link delete rxe0
		expect_eq "rdma link delete rxe0 under I/O" $? 0
		wait $FIO
		rc=$?
		[ $rc = 124 ] && bad "fio hung after its link was removed" ||
			ok "fio ended (exit $rc) after its link was removed"
	else
		peer_exchange none >/dev/null
		peer_exchange x >/dev/null
		bad "no disk from the peer's target"
	fi
	peer_barrier
	srp_logout_all
fi
finish
