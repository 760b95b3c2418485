#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdma-kmod: second-lane
#
# Issue 15: SRP transport failures in one VM over rxe0, our ib_srp against
# LIO's srpt (selftests/srp.sh). 1) The target port disabled under direct
# reads: the rport blocks, fast_io_fail_tmo fails the I/O (state fail-fast),
# reconnects are refused; the port enabled again: the rport reconnects
# (running), the disk reads back what was written. 2) The target port torn
# down in configfs under direct reads (LIO's configuration gone): the I/O
# fails the same way; the port made again: the rport reconnects, the data
# is there. 3) rxe0 deleted under direct reads: the SCSI host and the rport
# are removed, the reader ends, nothing hangs. Modules unload after all.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"
. "$RDMA_KMOD_SRC/selftests/srp.sh"

need_module ib_srp ib_srpt
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')

# wait_state RPORT STATE SECONDS
wait_state() {
	for _ in $(seq $(($3 * 2))); do
		[ "$(cat /sys/class/srp_remote_ports/$1/state 2>/dev/null)" = "$2" ] && return 0
		sleep 0.5
	done
	return 1
}

# wait_gone PID SECONDS: the process PID has ended.
wait_gone() {
	for _ in $(seq $(($2 * 2))); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.5
	done
	return 1
}

login() {
	g=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)
	g=${g#0x}
	srp_add_target rxe0 "id_ext=$g,ioc_guid=$g,initiator_ext=0000000000000000,dest=$mine:$SRP_PORT,src=$mine"
}

rxe_up || die "rxe0 up"
srpt_target_up rxe0 "$(srp_init_id rxe0)" configfs || die "srpt target"
modprobe ib_srp || die "modprobe ib_srp"
ulp_ours ib_srp
login || die "login"
ok "logged in: $SRP_RPORT, $SRP_HOST, $SRP_DEV"
r=/sys/class/srp_remote_ports/$SRP_RPORT
echo 2 >$r/reconnect_delay && echo 4 >$r/fast_io_fail_tmo && echo 60 >$r/dev_loss_tmo ||
	bad "rport timeouts"
expect_eq "rport timeouts read back" "$(cat $r/reconnect_delay $r/fast_io_fail_tmo $r/dev_loss_tmo | tr '\n' ' ')" "2 4 60 "
echo 0 >$r/fast_io_fail_tmo 2>/dev/null; echo 4 >$r/fast_io_fail_tmo
/bin/echo 61 >$r/fast_io_fail_tmo 2>/tmp/srp.err &&
	bad "fast_io_fail_tmo >= dev_loss_tmo accepted" || ok "fast_io_fail_tmo >= dev_loss_tmo refused"
head -c 8388608 /dev/urandom >/tmp/srp.pat
dd if=/tmp/srp.pat of="$SRP_DEV" bs=1M oflag=direct 2>/dev/null || bad "8 MiB written"

echo "--- target port disabled under I/O"
dd if="$SRP_DEV" of=/dev/null bs=64k iflag=direct count=1000000 2>/tmp/dd.err &
dd_pid=$!
sleep 2
echo 0 >"$SRPT_TPG/enable"
wait_state $SRP_RPORT blocked 15 && ok "rport blocked" || bad "rport not blocked: $(cat $r/state)"
wait_state $SRP_RPORT fail-fast 20 && ok "rport fail-fast after fast_io_fail_tmo" ||
	bad "rport not fail-fast: $(cat $r/state)"
wait_gone $dd_pid 30 && ok "reader failed ($(tail -1 /tmp/dd.err))" ||
	{ bad "reader still running"; kill $dd_pid; }
[ "$(cat $r/failed_reconnects)" -gt 0 ] && ok "reconnects refused: $(cat $r/failed_reconnects)" ||
	bad "no failed reconnect"
echo 1 >"$SRPT_TPG/enable"
wait_state $SRP_RPORT running 30 && ok "rport running again after reconnect" ||
	bad "rport not running: $(cat $r/state)"
expect_eq "8 MiB read back after the reconnect" \
	"$(dd if="$SRP_DEV" bs=1M count=8 iflag=direct 2>/dev/null | md5sum)" "$(md5sum </tmp/srp.pat)"

echo "--- target port torn down under I/O (configfs), then made again"
dd if="$SRP_DEV" of=/dev/null bs=64k iflag=direct count=1000000 2>/tmp/dd.err &
dd_pid=$!
sleep 2
srpt_port_down && ok "target port removed from configfs under I/O" || bad "target port removal"
wait_state $SRP_RPORT fail-fast 30 && ok "rport fail-fast" || bad "rport not fail-fast: $(cat $r/state)"
wait_gone $dd_pid 30 && ok "reader failed ($(tail -1 /tmp/dd.err))" ||
	{ bad "reader still running"; kill $dd_pid; }
srpt_port_up "$(srp_init_id rxe0)" && ok "target port made again" || bad "target port made again"
wait_state $SRP_RPORT running 30 && ok "rport running again after reconnect" ||
	bad "rport not running: $(cat $r/state)"
expect_eq "8 MiB read back from the port made again" \
	"$(dd if="$SRP_DEV" bs=1M count=8 iflag=direct 2>/dev/null | md5sum)" "$(md5sum </tmp/srp.pat)"

echo "--- rxe0 deleted under I/O"
dd if="$SRP_DEV" of=/dev/null bs=64k iflag=direct count=1000000 2>/tmp/dd.err &
dd_pid=$!
sleep 2
timeout 120 rdma link delete rxe0 && ok "rxe0 deleted under a live target" || bad "rdma link delete rxe0"
[ -e /sys/class/scsi_host/$SRP_HOST ] && bad "$SRP_HOST left" || ok "$SRP_HOST removed"
[ -z "$(srp_rports)" ] && ok "no remote port left" || bad "remote ports left: $(srp_rports)"
[ -e /sys/class/infiniband_srp/srp-rxe0-1 ] && bad "srp-rxe0-1 left" || ok "srp-rxe0-1 removed"
wait_gone $dd_pid 30 && ok "reader ended" || { bad "reader still running"; kill $dd_pid; }
SRP_RPORT=""
modprobe -r ib_srp || bad "ib_srp unload"
srpt_target_down || bad "target teardown"
finish
