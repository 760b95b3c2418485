#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdma-kmod: second-lane
#
# Issue 15: ib_srp's module parameters and its memory registration modes in
# one VM over rxe0, against LIO's srpt (selftests/srp.sh). The parameters
# of 6.1 read back with their defaults and formats, clamped at load
# (cmd_sg_entries=300 -> 255, indirect_sg_entries raised to it), the
# timeout triple checked together on write, srp-<dev>-<port> renamed with
# its device; then the data path without
# fast registration (never_register=1: the global rkey, direct and indirect
# descriptors) on one channel with queue_size=16, and with register_always=0
# (one S/G entry through the global rkey, more through FRWR), each time
# ext4 + fio verification and the bytes compared with the backstore.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nvmeof.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"
. "$RDMA_KMOD_SRC/selftests/srp.sh"

need_module ib_srp ib_srpt
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
p=/sys/module/ib_srp/parameters

rxe_up || die "rxe0 up"
modprobe ib_srp || die "modprobe ib_srp"
ulp_ours ib_srp
got=""
for n in cmd_sg_entries indirect_sg_entries allow_ext_sg topspin_workarounds register_always \
	never_register reconnect_delay fast_io_fail_tmo dev_loss_tmo use_imm_data max_imm_data \
	ch_count srp_sg_tablesize; do
	got="$got $n=$(cat $p/$n)"
done
expect_eq "defaults" "$got" " cmd_sg_entries=12 indirect_sg_entries=12 allow_ext_sg=N topspin_workarounds=1 register_always=Y never_register=N reconnect_delay=10 fast_io_fail_tmo=15 dev_loss_tmo=600 use_imm_data=Y max_imm_data=8192 ch_count=0 srp_sg_tablesize=0"
expect_eq "permissions" "$(stat -c '%n %a' $p/cmd_sg_entries $p/reconnect_delay $p/use_imm_data | sed 's|.*/||' | tr '\n' ' ')" \
	"cmd_sg_entries 444 reconnect_delay 644 use_imm_data 644 "
echo off >$p/fast_io_fail_tmo && expect_eq "fast_io_fail_tmo off" "$(cat $p/fast_io_fail_tmo)" off ||
	bad "fast_io_fail_tmo off refused"
/bin/echo 700 >$p/dev_loss_tmo 2>/dev/null && bad "dev_loss_tmo 700 with fast_io_fail_tmo off accepted" ||
	ok "dev_loss_tmo 700 with fast_io_fail_tmo off refused"
echo 15 >$p/fast_io_fail_tmo
/bin/echo 0 >$p/reconnect_delay 2>/dev/null && bad "reconnect_delay 0 accepted" || ok "reconnect_delay 0 refused"
expect_eq "reconnect_delay unchanged" "$(cat $p/reconnect_delay)" 10
if rdma dev set rxe0 name rxe9; then
	[ -d /sys/class/infiniband_srp/srp-rxe9-1 ] &&
		expect_eq "renamed: srp-rxe9-1/ibdev" "$(cat /sys/class/infiniband_srp/srp-rxe9-1/ibdev)" rxe9 ||
		bad "no srp-rxe9-1 after the rename"
	rdma dev set rxe9 name rxe0 || bad "rename back"
else
	bad "rdma dev set rxe0 name rxe9"
fi
modprobe -r ib_srp || bad "ib_srp unload"
modprobe ib_srp cmd_sg_entries=300 indirect_sg_entries=100 || die "modprobe ib_srp cmd_sg_entries=300"
expect_eq "cmd_sg_entries clamped" "$(cat $p/cmd_sg_entries) $(cat $p/indirect_sg_entries)" "255 255"
modprobe -r ib_srp || bad "ib_srp unload"

srpt_target_up rxe0 "$(srp_init_id rxe0)" configfs || die "srpt target"
g=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)
g=${g#0x}
for mode in "never_register=1" "register_always=0"; do
	echo "--- ib_srp $mode"
	modprobe ib_srp $mode || { bad "modprobe ib_srp $mode"; continue; }
	if srp_add_target rxe0 "id_ext=$g,ioc_guid=$g,dest=$mine:$SRP_PORT,ch_count=1,queue_size=16,max_cmd_per_lun=8"; then
		h=/sys/class/scsi_host/$SRP_HOST
		expect_eq "ch_count, can_queue, cmd_per_lun" \
			"$(cat $h/ch_count $h/can_queue $h/cmd_per_lun | tr '\n' ' ')" "1 16 8 "
		nvmeof_io "$SRP_DEV"
		expect_eq "first 32 MiB: initiator's read = target's file" \
			"$NVMEOF_SUM" "$(srp_target_sum)"
	else
		bad "login with $mode"
		dmesg | tail -10
	fi
	srp_logout || bad "remote port delete"
	modprobe -r ib_srp || bad "ib_srp unload"
done
srpt_target_down || bad "target teardown"
rdma link delete rxe0 || bad "link delete rxe0"
finish
