# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Shared helpers of the SRP tests (initiator side here): a LIO target
# through srpt in raw configfs as ULP.md §10.4 does it (a file backstore on
# tmpfs, a target port in GID form, an ACL for the initiator's port ID), the
# rdma_cm listener on SRP_PORT, and ib_srp's add_target / delete.
# Sourced after lib.sh.

SRP_IMG=/tmp/srp-disk0.img
SRP_PORT=5555
SRP_CFS=/sys/kernel/config/target

# srp_gid_hex IBDEV: GID 0 of port 1 as 32 hex digits.
srp_gid_hex() {
	tr -d ':\n' </sys/class/infiniband/"$1"/ports/1/gids/0
}

# srp_init_id IBDEV [INITIATOR_EXT]: the initiator port ID ib_srp logs in
# with: initiator_ext (16 hex, 0 unless given), then GID 0's interface ID.
srp_init_id() {
	g=$(srp_gid_hex "$1")
	echo "${2:-0000000000000000}${g#????????????????}"
}

# srp_target_up IBDEV INIT_ID: LUN 0 = a 128 MiB file on tmpfs, through
# the srpt port named after IBDEV's GID 0, open to INIT_ID only.
srp_target_up() {
	modprobe target_core_mod && modprobe target_core_file && modprobe ib_srpt ||
		return 1
	truncate -s 128M $SRP_IMG || return 1
	mkdir -p $SRP_CFS/core/fileio_0/disk0 || return 1
	echo "fd_dev_name=$SRP_IMG,fd_dev_size=$((128 << 20))" \
		>$SRP_CFS/core/fileio_0/disk0/control || return 1
	echo 1 >$SRP_CFS/core/fileio_0/disk0/enable || return 1
	mkdir -p $SRP_CFS/srpt || return 1
	echo $SRP_PORT >$SRP_CFS/srpt/discovery_auth/rdma_cm_port || return 1
	SRP_TPORT=$SRP_CFS/srpt/0x$(srp_gid_hex "$1")
	SRP_TPG=$SRP_TPORT/tpgt_1
	SRP_ACL=$SRP_TPG/acls/0x$2
	mkdir "$SRP_TPORT" "$SRP_TPG" "$SRP_TPG/lun/lun_0" || return 1
	ln -s $SRP_CFS/core/fileio_0/disk0 "$SRP_TPG/lun/lun_0/disk0" || return 1
	mkdir "$SRP_ACL" "$SRP_ACL/lun_0" || return 1
	ln -s "$SRP_TPG/lun/lun_0" "$SRP_ACL/lun_0/lun_0" || return 1
	echo 1 >"$SRP_TPG/enable"
}

# srp_target_down: everything srp_target_up made, then the modules.
srp_target_down() {
	if [ -n "${SRP_TPG:-}" ] && [ -d "$SRP_TPG" ]; then
		echo 0 >"$SRP_TPG/enable"
		rm -f "$SRP_ACL/lun_0/lun_0"
		rmdir "$SRP_ACL/lun_0" "$SRP_ACL" 2>/dev/null
		rm -f "$SRP_TPG/lun/lun_0/disk0"
		rmdir "$SRP_TPG/lun/lun_0" "$SRP_TPG" "$SRP_TPORT"
	fi
	[ -d $SRP_CFS/srpt ] && echo 0 >$SRP_CFS/srpt/discovery_auth/rdma_cm_port
	rmdir $SRP_CFS/srpt 2>/dev/null
	rmdir $SRP_CFS/core/fileio_0/disk0 $SRP_CFS/core/fileio_0 2>/dev/null
	rm -f $SRP_IMG
	SRP_TPG=""
	modprobe -r ib_srpt target_core_file 2>/dev/null
	modprobe -r target_core_mod 2>/dev/null
	! lsmod | grep -q '^ib_srpt '
}

# srp_target_sum: md5 of the first 32 MiB of the backstore file.
srp_target_sum() {
	dd if=$SRP_IMG bs=1M count=32 2>/dev/null | md5sum | cut -d' ' -f1
}

# srp_rports: the srp_remote_ports entries, one a line.
srp_rports() {
	ls /sys/class/srp_remote_ports/ 2>/dev/null
}

# srp_login IBDEV OPTIONS: writes OPTIONS to IBDEV's add_target; sets
# SRP_HOST (hostN), SRP_RPORT and SRP_DEV (/dev/sdX of LUN 0).
srp_login() {
	# no udev in the VM: the disk driver comes by hand
	modprobe sd_mod || return 1
	before=$(srp_rports)
	echo "$2" >/sys/class/infiniband_srp/srp-"$1"-1/add_target || return 1
	SRP_RPORT=""
	for r in $(srp_rports); do
		echo "$before" | grep -qx "$r" || SRP_RPORT=$r
	done
	[ -n "$SRP_RPORT" ] || return 1
	n=${SRP_RPORT#port-}
	n=${n%%:*}
	SRP_HOST=host$n
	SRP_DEV=""
	for _ in $(seq 60); do
		b=$(ls /sys/class/scsi_host/$SRP_HOST/device/target$n:0:0/$n:0:0:0/block/ 2>/dev/null)
		[ -n "$b" ] && [ -b /dev/$b ] && { SRP_DEV=/dev/$b; return 0; }
		sleep 0.5
	done
	return 1
}

# srp_logout: deletes SRP_RPORT and waits until its SCSI host is gone.
srp_logout() {
	[ -n "${SRP_RPORT:-}" ] || return 0
	[ -e /sys/class/srp_remote_ports/$SRP_RPORT ] &&
		echo 1 >/sys/class/srp_remote_ports/$SRP_RPORT/delete
	for _ in $(seq 60); do
		[ -e /sys/class/scsi_host/$SRP_HOST ] || { SRP_RPORT=""; return 0; }
		sleep 0.5
	done
	return 1
}
