#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 15, a fault case: malformed PDUs from the initiator side. An
# initiator of our own (build/tools/isert_bad_initiator, rdma_cm on rxe0, no
# open-iscsi) connects to the LIO target's iSER portal (ib_isert) once per
# case: before the login completes a short PDU, a data segment longer than
# what came, a SCSI Command instead of a Login (LIO's Login reject), an
# iSER Hello, AHS in a Login; in a discovery session of its own a SCSI
# Command (LIO's Reject and the close, as over TCP), an iSER Hello (dropped:
# SendTargets is answered after it), a Text declaring more than came, a
# reserved opcode, a SEND larger than the target's buffers. Each must be answered as
# LIO answers or end that connection; then open-iscsi logs in and writes
# and reads the disk as usual, the target comes down, no cm_id is left and
# every module unloads, with no kernel report.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"

tool=$RDMA_KMOD_TOOLS/isert_bad_initiator
[ -x "$tool" ] || die "no $tool (make tools)"
need_module ib_iser ib_isert
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
rxe_up || die "rxe0 up"
iscsi_target_up "$mine" || die "LIO target with iSER on rxe0"
ulp_ours ib_isert

timeout 600 "$tool" "$mine" 3260 >/tmp/bad.out 2>&1
rc=$?
cat /tmp/bad.out
for c in short login-dlength not-login login-hello login-ahs \
	ffp-scsi-in-discovery ffp-hello ffp-dlength ffp-reserved-opcode ffp-too-big; do
	grep -q "^case $c: PASS" /tmp/bad.out && ok "target: $c" || bad "target: $c"
done
expect_eq "isert_bad_initiator exit status" $rc 0

# the target goes on serving
iscsi_initiator_up || die "iscsid"
if iscsi_login "$mine"; then
	nvmeof_io "$ISCSI_DEV"
	expect_eq "first 32 MiB: initiator's read = target's file" \
		"$NVMEOF_SUM" "$(iscsi_target_sum)"
fi
iscsi_logout "$mine"
iscsi_initiator_down || bad "initiator teardown"
iscsi_target_down || bad "target teardown"
expect_eq "no cm_id left" "$(rdma res show cm_id 2>&1 | grep -c .)" 0
rdma link delete rxe0 || bad "link delete rxe0"
finish
