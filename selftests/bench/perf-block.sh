#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest side of `make bench` for block storage (issue 15): fio on the disk
# a LIO target exports (selftests/iscsi.sh: a 128 MiB file on tmpfs as LUN
# 0) in loopback on rxe0, reached through
#   iser       iSCSI over RDMA: ib_isert and ib_iser (ours or stock),
#   iscsi_tcp  iSCSI over TCP to the same address and port, the portal's
#              iSER child switched off: the yardstick,
#   srp        SRP over rdma_cm: ib_srpt and ib_srp (ours or stock).
# Each: 1 MiB sequential write and read at queue depth 8, 4 KiB random
# read at queue depth 32 (libaio, direct I/O on /dev/sdX, BENCH_SECONDS
# each). One line per result (fio.sh):
#   BENCH <test> <bytes> <MB/s> <mean completion latency, usec>
# (4 KiB IOPS = MB/s * 10^6 / 4096.) Output other than BENCH lines is the
# libraries' progress, for the log.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/iscsi.sh"
. "$RDMA_KMOD_SRC/selftests/bench/fio.sh"

ip=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
cfs=/sys/kernel/config/target
srp_port=5555

# block_rows NAME DEV: the three fio runs on DEV, the whole disk each.
block_rows() {
	fio_bench "$1_seqwrite" 1048576 --filename="$2" --ioengine=libaio \
		--iodepth=8 --rw=write --size=128m --time_based --runtime="$BENCH_SECONDS"
	fio_bench "$1_seqread" 1048576 --filename="$2" --ioengine=libaio \
		--iodepth=8 --rw=read --size=128m --time_based --runtime="$BENCH_SECONDS"
	fio_bench "$1_randread" 4096 --filename="$2" --ioengine=libaio \
		--iodepth=32 --rw=randread --size=128m --time_based --runtime="$BENCH_SECONDS"
}

# wait_disk GLOB: DISK set to the /dev node of the block device whose sysfs
# path matches GLOB (no udev in the VM: the kernel's devtmpfs node).
wait_disk() {
	DISK=""
	for _ in $(seq 30); do
		# GLOB unquoted on purpose: its expansion is the search
		for b in $1; do
			[ -e "$b" ] && DISK=/dev/${b##*/}
		done
		[ -n "$DISK" ] && [ -b "$DISK" ] && return 0
		sleep 1
	done
	return 1
}

# tcp_login ADDR: discovery and login through open-iscsi's default (TCP)
# iface; iscsi_login does the same through "iser" only.
tcp_login() {
	if ! iscsiadm -m discovery -t st -p "$1":3260 >/tmp/iscsi.disc 2>&1 ||
	   ! iscsiadm -m node -T $ISCSI_IQN -p "$1":3260 -I default --login \
		>/tmp/iscsi.login 2>&1; then
		cat /tmp/iscsi.disc /tmp/iscsi.login
		return 1
	fi
	wait_disk "/sys/class/iscsi_session/session*/device/target*/*:*:*:*/block/sd*"
}

# srp_up ADDR: the target's backstore exported again by ib_srpt (LIO's srpt
# fabric, listening on rdma_cm port $srp_port) and ib_srp logged in to it.
# Made in configfs directly: one targetcli start is seconds under TCG, and
# rtslib names srpt ports by GID, where an rdma_cm login is looked up by
# the initiator's IP address only on a port named by GUID.
srp_up() {
	modprobe ib_srpt && modprobe ib_srp || return 1
	read -r gid0 </sys/class/infiniband/rxe0/ports/1/gids/0 || return 1
	# the port's GUID: GID 0's interface id, as ib_srpt prints it
	srp_wwn=$cfs/srpt/${gid0#*:*:*:*:}
	t=$srp_wwn/tpgt_1
	for so in $cfs/core/fileio_*/disk0; do :; done
	[ -d "$so" ] || return 1
	mkdir -p $cfs/srpt && mkdir $srp_wwn $t $t/lun/lun_0 || return 1
	ln -s "$so" $t/lun/lun_0/disk0 || return 1
	# rdma_cm logins are named by the initiator's address
	mkdir -p "$t/acls/$1/lun_0" && ln -s $t/lun/lun_0 "$t/acls/$1/lun_0/lun_0" || return 1
	echo 1 >$t/enable && echo $srp_port >$cfs/srpt/discovery_auth/rdma_cm_port || return 1
	# ib_srpt accepts only its service GUID as the target port's two halves
	read -r sg </sys/module/ib_srpt/parameters/srpt_service_guid || return 1
	echo "id_ext=$sg,ioc_guid=$sg,dest=$1:$srp_port" \
		>/sys/class/infiniband_srp/srp-rxe0-1/add_target || return 1
	pn=""
	for h in /sys/class/scsi_host/host*; do
		read -r pn <"$h/proc_name" 2>/dev/null && [ "$pn" = ib_srp ] && break
	done
	[ "$pn" = ib_srp ] && wait_disk "$h/device/target*/*:*:*:*/block/sd*"
}

# srp_down: ib_srp's targets removed with it, then what srp_up made in
# configfs, innermost first, and ib_srpt (it holds target_core_mod).
srp_down() {
	modprobe -r ib_srp
	t=$srp_wwn/tpgt_1
	[ -d $cfs/srpt ] || { modprobe -r ib_srpt; return; }
	echo 0 >$cfs/srpt/discovery_auth/rdma_cm_port
	if [ -d $t ]; then
		echo 0 >$t/enable
		for a in "$t"/acls/*/lun_0; do
			[ -d "$a" ] || continue
			rm -f "$a/lun_0"
			rmdir "$a" "${a%/lun_0}"
		done
		rm -f $t/lun/lun_0/disk0
		rmdir $t/lun/lun_0 $t
	fi
	[ -d "$srp_wwn" ] && rmdir "$srp_wwn"
	rmdir $cfs/srpt
	modprobe -r ib_srpt
}

rxe_up || exit 1
iscsi_initiator_up || exit 1
if iscsi_target_up "$ip"; then
	# iSER: the portal as iscsi.sh made it
	ulp_ours ib_isert
	if iscsi_login "$ip"; then
		ulp_ours ib_iser
		block_rows iser "$ISCSI_DEV"
	else
		echo "BENCH iser_login - - -"
	fi
	iscsi_logout "$ip"

	# TCP: the same target, its portal without the iSER listener
	echo 0 >"$ISCSI_TPG/np/$ip:3260/iser"
	modprobe iscsi_tcp
	if tcp_login "$ip"; then
		block_rows iscsi_tcp "$DISK"
	else
		echo "BENCH iscsi_tcp_login - - -"
	fi
	iscsi_logout "$ip"
	# before ib_iser goes (iscsi.sh): libiscsi goes with the last of them
	modprobe -r iscsi_tcp

	# SRP: ib_srpt and ib_srp of the stack under test
	srp_wwn=""
	if srp_up "$ip"; then
		block_rows srp "$DISK"
	else
		echo "BENCH srp_login - - -"
		dmesg | grep -i srp | tail -20
	fi
	srp_down
else
	echo "BENCH block_target - - -"
fi
iscsi_target_down || bad "target teardown"
iscsi_initiator_down || bad "initiator teardown"
rdma link delete rxe0
finish
