#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 15, a fault case: malformed PDUs from the target side. A target of
# our own (build/tools/iser_bad_target, rdma_cm on rxe0, no LIO) answers the
# Login request of each connection open-iscsi makes over the "iser" iface
# with a different bad PDU: shorter than the headers, a data segment longer
# than what came, an iSER Hello, a SEND_WITH_INV of an rkey the initiator
# never gave, a SEND larger than its buffers, an unknown ITT. ib_iser must
# fail each connection (the tool sees it close) and give everything back:
# no cm_id left, modules unloaded, no kernel report.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"

tool=$RDMA_KMOD_TOOLS/iser_bad_target
[ -x "$tool" ] || die "no $tool (make tools)"
need_module ib_iser
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
rxe_up || die "rxe0 up"
iscsi_initiator_up || die "iscsid"
"$tool" "$mine" 3260 >/tmp/bad.out 2>&1 &
tpid=$!
wait_for /tmp/bad.out LISTENING 50 || die "iser_bad_target did not listen"

# each discovery makes one or more connections; each gets the next case
for _ in $(seq 12); do
	grep -q -e 'all cases done' -e 'no connection' /tmp/bad.out && break
	timeout 120 iscsiadm -m discovery -t st -p "$mine":3260 -I iser \
		>/tmp/disc.out 2>&1 && bad "discovery against a bad target succeeded"
done
cat /tmp/bad.out
for c in short dlength hello bogus-invalidate too-big bad-itt; do
	grep -q " $c: closed" /tmp/bad.out && ok "initiator closed the connection: $c" ||
		bad "no close after case $c"
done
wait $tpid || bad "iser_bad_target exit status"
expect_eq "no cm_id left" "$(rdma res show cm_id 2>&1 | grep -c .)" 0
expect_eq "no RC QP left" "$(rdma res show qp 2>&1 | grep rxe0 | grep -c "type RC")" 0
iscsi_initiator_down || bad "initiator teardown"
rdma link delete rxe0 || bad "link delete rxe0"
finish
