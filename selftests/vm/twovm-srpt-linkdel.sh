#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 15, a fault case: the target's RDMA device deleted under I/O. Our
# ib_srpt (vm1, LIO, configfs) serves the stock kernel's ib_srp in the peer
# over rxe0; while the peer's fio writes and verifies, vm1 deletes rxe0:
# the delete must return soon (ib_srpt's ib_client remove tears its
# channels down and does not wait for the initiator), the initiator sees
# errors (or recovers), nothing hangs, the target port and every module
# can be removed after, and no kernel report appears on either side.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"
. "$RDMA_KMOD_SRC/selftests/srp.sh"

state=ready
if [ "$RDMA_KMOD_ROLE" = client ]; then
	( need_module ib_srpt ) || state=blocked
fi
wait_peer
peer_agree $state ib_srpt
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
rxe_up || die "rxe0 up"

if [ "$RDMA_KMOD_ROLE" = client ]; then
	echo "--- target ($RDMA_KMOD_STACK)"
	srpt_serve_peer
	go=$(peer_exchange x)
	if [ "$go" = running ]; then
		sleep 5
		read -r t0 _ </proc/uptime
		timeout 60 rdma link delete rxe0
		rc=$?
		read -r t1 _ </proc/uptime
		expect_eq "rdma link delete rxe0 under I/O" $rc 0
		echo "note: the delete took $(echo "$t1 - $t0" | bc) s"
		[ -e /sys/class/infiniband/rxe0 ] && bad "rxe0 still there"
		ok "rxe0 gone under the initiator's I/O"
	else
		bad "the peer's I/O did not start ($go)"
		rdma link delete rxe0
	fi
	peer_exchange deleted >/dev/null
	peer_barrier
	srpt_target_down || bad "target teardown after the device left"
	expect_eq "no cm_id left" "$(rdma res show cm_id 2>&1 | grep -c .)" 0
else
	echo "--- initiator ($RDMA_KMOD_STACK)"
	if srp_login_peer "$mine" never_register=1; then
		srp_fail_fast
		timeout 240 fio --name=linkdel --filename="$SRP_DEV" --direct=1 \
			--ioengine=libaio --iodepth=16 --rw=randwrite --bs=4k \
			--size=32M --time_based --runtime=60 --verify=crc32c \
			--output=/tmp/fio.out >/dev/null 2>&1 &
		fio=$!
		peer_exchange running >/dev/null
		peer_exchange x >/dev/null
		wait $fio
		rc=$?
		[ $rc = 124 ] && bad "fio hung after the target's device left" ||
			ok "fio ended (exit $rc) after the target's device left"
		grep -E "err=|error" /tmp/fio.out | head -3
	else
		peer_exchange none >/dev/null
		peer_exchange x >/dev/null
		bad "no disk from the peer's target"
	fi
	srp_logout_all
	peer_barrier
	rdma link delete rxe0 || bad "link delete rxe0"
fi
finish
