#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 15, a fault case: malformed SRP information units from the
# initiator side. An initiator of our own (build/tools/srp_bad_initiator,
# rdma_cm on rxe0, no ib_srp) logs in to our ib_srpt (LIO, configfs) with
# an IT IU length too large and with another target port ID (each rejected
# with its SRP_LOGIN_REJ reason), then on one channel sends an 8-byte IU,
# an SRP_CMD cut short, an unknown opcode, an additional CDB past the IU,
# a descriptor table longer than the IU and its count, a 2 GiB data length
# (SCSI BUSY for each command, as the stock target answers, nothing for
# what it drops), an unsupported task management function and a LUN
# RESET, and a valid INQUIRY that must succeed; the credits returned must
# equal the IUs sent. Then ib_srp logs in and uses the disk as usual, the
# portal group is disabled under the login (its channels logged out),
# enabled again with use_srq 1: ib_srp reconnects and I/O goes through the
# shared receive queue; the target comes down, no cm_id is left, every
# module unloads, no splat.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"
. "$RDMA_KMOD_SRC/selftests/srp.sh"

tool=$RDMA_KMOD_TOOLS/srp_bad_initiator
[ -x "$tool" ] || die "no $tool (make tools)"
need_module ib_srp ib_srpt
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
rxe_up || die "rxe0 up"
hex=$(srp_gid_hex rxe0)
iid=0000000000000000${hex#????????????????}
srpt_target_up rxe0 "$iid" configfs || die "LIO target on rxe0"
ulp_ours ib_srpt
guid=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)

timeout 300 "$tool" "$mine" $SRP_PORT "$guid" "$iid" >/tmp/bad.out 2>&1
rc=$?
cat /tmp/bad.out
for c in login-iu-too-long login-wrong-target login short-iu short-cmd \
	unknown-opcode add-cdb-past-iu desc-table-too-long huge-data-length \
	tmf-unsupported tmf-lun-reset inquiry credits; do
	grep -q "^case $c: PASS" /tmp/bad.out && ok "target: $c" || bad "target: $c"
done
expect_eq "srp_bad_initiator exit status" $rc 0

# the target goes on serving
if srp_login rxe0 "$mine" "$mine" "$guid"; then
	nvmeof_io "$SRP_DEV"
	expect_eq "first 32 MiB: initiator's read = target's file" \
		"$NVMEOF_SUM" "$(srp_target_sum)"
	# enable 0 under a live login: the target logs the channels out
	n0=$(dmesg | grep -c "ib_srpt: .* logged out of")
	echo 0 >$SRPT_TPG/enable || bad "enable 0"
	n1=$(dmesg | grep -c "ib_srpt: .* logged out of")
	[ $((n1 - n0)) -ge 1 ] && ok "enable 0: $((n1 - n0)) channel(s) logged out" ||
		bad "enable 0 left the channels"
	expect_eq "enable reads back" "$(cat $SRPT_TPG/enable)" 0
	# again with the shared receive queue: ib_srp logs in by itself
	echo 1 >$SRPT_TPG/attrib/use_srq && echo 1 >$SRPT_TPG/enable ||
		bad "use_srq 1, enable 1"
	st=""
	for _ in $(seq 60); do
		for f in /sys/class/srp_remote_ports/port-*/state; do
			read -r st <"$f"
		done
		[ "$st" = running ] && break
		sleep 1
	done
	expect_eq "ib_srp reconnected to the SRQ channels" "$st" running
	dmesg | grep -q "ib_srpt: rxe0: shared receive queue of" &&
		ok "SRQ made ($(dmesg | grep -o 'shared receive queue of [0-9]*' | tail -1))" ||
		bad "no SRQ"
	head -c 4194304 /dev/urandom >/tmp/srq.pat
	if dd if=/tmp/srq.pat of="$SRP_DEV" bs=1M seek=64 oflag=direct 2>/dev/null &&
	   dd if="$SRP_DEV" of=/tmp/srq.back bs=1M skip=64 count=4 iflag=direct 2>/dev/null &&
	   cmp -s /tmp/srq.pat /tmp/srq.back &&
	   dd if=$SRP_IMG bs=1M skip=64 count=4 2>/dev/null | cmp -s /tmp/srq.pat -; then
		ok "4 MiB written and read back over the SRQ channels, = the backstore"
	else
		bad "I/O over the SRQ channels"
	fi
fi
srp_logout_all
srpt_target_down || bad "target teardown"
expect_eq "no cm_id left" "$(rdma res show cm_id 2>&1 | grep -c .)" 0
rdma link delete rxe0 || bad "link delete rxe0"
finish
