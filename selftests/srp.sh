# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# SRP over RDMA/CM for the VM selftests, both ends (sourced after lib.sh,
# nvmeof.sh and iscsi.sh, not run): the LIO target through ib_srpt (targetcli
# or raw configfs, a file backstore on tmpfs, a target port in GID form, an
# ACL for the initiator's port ID, discovery_auth/rdma_cm_port) and ib_srp's
# add_target in its RDMA/CM form. ../shared/reference/ULP.md §5, §6 and
# §10.4 have the facts these steps rely on.

SRP_PORT=5555
SRP_IMG=/tmp/srp-disk0.img
SRPT_CFS=/sys/kernel/config/target/srpt

# srp_gid_hex DEV: GID[0] of DEV's port 1 as 32 hex digits.
srp_gid_hex() {
	read -r _g </sys/class/infiniband/$1/ports/1/gids/0 || return 1
	echo "$_g" | tr -d :
}

# srp_init_id IBDEV [INITIATOR_EXT]: the initiator port ID ib_srp logs in
# with: initiator_ext (16 hex, 0 unless given), then GID 0's interface ID.
srp_init_id() {
	g=$(srp_gid_hex "$1")
	echo "${2:-0000000000000000}${g#????????????????}"
}

# srpt_target_up DEV INITIATOR-ID [configfs]: LUN 0 (a 128 MiB file on
# tmpfs) behind the target port named by DEV's GID[0] (GID form), open to
# the initiator port ID INITIATOR-ID (32 hex digits) only, RDMA/CM logins
# on port SRP_PORT. targetcli unless "configfs" is given. Sets SRPT_WWN
# (the configfs name) and SRPT_TPG.
srpt_target_up() {
	_dev=$1 _iid=$2 _how=${3:-targetcli}
	SRPT_HOW=$_how
	_hex=$(srp_gid_hex "$_dev") || return 1
	SRPT_WWN=0x$_hex
	truncate -s 128M $SRP_IMG || return 1
	modprobe ib_srpt || return 1
	if [ "$_how" = targetcli ]; then
		iscsi_bus_up || return 1
		printf '%s\n' "set global auto_save_on_exit=false" \
			"/backstores/fileio create disk0 $SRP_IMG" \
			"/srpt create ib.$_hex" \
			"/srpt/ib.$_hex/luns create /backstores/fileio/disk0" \
			"/srpt/ib.$_hex/acls create ib.$_iid" |
			targetcli >/tmp/tcli.out 2>&1
		SRPT_TPG=$(echo $SRPT_CFS/$SRPT_WWN/tpgt_*)
	else
		modprobe target_core_file || return 1
		_b=/sys/kernel/config/target/core/fileio_0/disk0
		mkdir -p $_b || return 1
		echo "fd_dev_name=$SRP_IMG,fd_dev_size=$((128 << 20))" >$_b/control || return 1
		echo 1 >$_b/enable || return 1
		srpt_port_up "$_iid" || return 1
	fi
	echo $SRP_PORT >$SRPT_CFS/discovery_auth/rdma_cm_port || return 1
	if [ -d "$SRPT_TPG/lun/lun_0" ] && [ -d "$SRPT_TPG/acls/0x$_iid" ] &&
	   [ "$(cat $SRPT_TPG/enable)" = 1 ] &&
	   [ "$(cat $SRPT_CFS/discovery_auth/rdma_cm_port)" = $SRP_PORT ]; then
		return 0
	fi
	echo "target as made:"
	cat /tmp/tcli.out 2>/dev/null
	find $SRPT_CFS -maxdepth 4 | head -40
	return 1
}

# srpt_port_up INITIATOR-ID: in configfs, the target port SRPT_WWN with its
# portal group (SRPT_TPG), LUN 0 on the backstore disk0 and an ACL for
# INITIATOR-ID, enabled.
srpt_port_up() {
	_b=/sys/kernel/config/target/core/fileio_0/disk0
	mkdir -p $SRPT_CFS/$SRPT_WWN/tpg1/lun/lun_0 || return 1
	SRPT_TPG=$SRPT_CFS/$SRPT_WWN/tpg1
	ln -s $_b $SRPT_TPG/lun/lun_0/disk0 || return 1
	mkdir -p $SRPT_TPG/acls/0x$1/lun_0 || return 1
	ln -s $SRPT_TPG/lun/lun_0 $SRPT_TPG/acls/0x$1/lun_0/lun0 || return 1
	echo 1 >$SRPT_TPG/enable
}

# srpt_port_down: the target port removed from configfs (disabled, LUN and
# ACL links, directories); the backstore and the listener stay.
srpt_port_down() {
	[ -n "${SRPT_TPG:-}" ] && [ -d "$SRPT_TPG" ] || return 0
	echo 0 >$SRPT_TPG/enable
	for l in $SRPT_TPG/acls/*/lun_* $SRPT_TPG/lun/lun_*; do
		[ -d "$l" ] || continue
		for f in "$l"/*; do [ -L "$f" ] && rm "$f"; done
		rmdir "$l"
	done
	for a in $SRPT_TPG/acls/*; do [ -d "$a" ] && rmdir "$a"; done
	rmdir $SRPT_TPG && rmdir $SRPT_CFS/$SRPT_WWN ||
		{ echo "target port not removed"; return 1; }
}

# srpt_target_down: the target port removed, the listener stopped, then
# LIO's modules and ib_srpt unloaded.
srpt_target_down() {
	srpt_port_down || return 1
	SRPT_TPG=""
	[ -d $SRPT_CFS ] && echo 0 >$SRPT_CFS/discovery_auth/rdma_cm_port
	# the backstore: targetcli's, or ours by hand
	if [ "${SRPT_HOW:-}" = targetcli ]; then
		targetcli clearconfig confirm=True >/tmp/tcli.out 2>&1 ||
			{ echo "targetcli clearconfig:"; cat /tmp/tcli.out; }
		[ -z "${ISCSI_BUS_PID:-}" ] || kill "$ISCSI_BUS_PID"
		ISCSI_BUS_PID=""
	fi
	SRPT_HOW=""
	_b=/sys/kernel/config/target/core/fileio_0
	[ -d $_b/disk0 ] && rmdir $_b/disk0
	[ -d $_b ] && rmdir $_b
	[ -d $SRPT_CFS ] && rmdir $SRPT_CFS
	# targetcli loads every fabric; its configfs directory holds it
	[ -d /sys/kernel/config/target/iscsi ] && rmdir /sys/kernel/config/target/iscsi
	rm -f $SRP_IMG
	for m in ib_srpt iscsi_target_mod target_core_file target_core_iblock target_core_pscsi \
		target_core_user target_core_mod; do
		[ -d /sys/module/$m ] || continue
		modprobe -r $m || { lsmod | grep -E 'target|srpt'; return 1; }
	done
}

# srp_target_sum: md5 of the first 32 MiB of the backstore file.
srp_target_sum() {
	dd if=$SRP_IMG bs=1M count=32 2>/dev/null | md5sum | cut -d' ' -f1
}

# srp_rports: the srp_remote_ports entries, one a line.
srp_rports() {
	ls /sys/class/srp_remote_ports/ 2>/dev/null
}

# srp_add_target IBDEV OPTIONS: writes OPTIONS to IBDEV's add_target; sets
# SRP_HOST (hostN), SRP_RPORT and SRP_DEV (/dev/sdX of LUN 0).
srp_add_target() {
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
	for _ in $(seq 120); do
		b=$(ls /sys/class/scsi_host/$SRP_HOST/device/target$n:0:0/$n:0:0:0/block/ 2>/dev/null)
		[ -n "$b" ] && [ -b /dev/$b ] && { SRP_DEV=/dev/$b; return 0; }
		sleep 0.5
	done
	return 1
}

# srp_login DEV SRC DEST GUID [ib_srp parameters]: ib_srp logs in to DEST
# (IP) on SRP_PORT through DEV, the target's service GUID being GUID
# (0x + 16 hex); sets SRP_DEV to the LUN's /dev/sdX.
srp_login() {
	_dev=$1 _src=$2 _dst=$3 _g=${4#0x}
	shift 4
	[ -d /sys/module/ib_srp ] || modprobe ib_srp "$@" || { bad "modprobe ib_srp"; return 1; }
	_at=/sys/class/infiniband_srp/srp-$_dev-1/add_target
	for _ in $(seq 20); do [ -e $_at ] && break; sleep 0.5; done
	if ! srp_add_target "$_dev" \
		"id_ext=$_g,ioc_guid=$_g,initiator_ext=0000000000000000,src=$_src,dest=$_dst:$SRP_PORT" \
		2>/tmp/srp.err; then
		bad "ib_srp add_target dest=$_dst:$SRP_PORT over $_dev: $(cat /tmp/srp.err)"
		ls -l /sys/class/srp_remote_ports/
		dmesg | tail -20
		return 1
	fi
	ok "ib_srp logged in to $_dst:$SRP_PORT over $_dev: LUN 0 is $SRP_DEV ($(cat /sys/block/${SRP_DEV#/dev/}/device/vendor))"
	expect_eq "$SRP_HOST id_ext" "$(cat /sys/class/scsi_host/$SRP_HOST/id_ext)" "0x$_g"
}

# Two-VM steps (run by both sides in turn, two peer_exchanges each).
# srpt_serve_peer: the target side: LIO on rxe0 open to the peer's
# initiator port ID, then the state and service GUID sent to it; sets T
# (ready or fail), SRPT_GUID and SRPT_PEER_ID (the peer's port ID).
srpt_serve_peer() {
	SRPT_PEER_ID=$(peer_exchange x)
	T=fail
	srpt_target_up rxe0 "$SRPT_PEER_ID" configfs && T=ready
	[ $T = ready ] && ok "LIO target $SRPT_WWN, ACL 0x$SRPT_PEER_ID" || bad "LIO target"
	[ $T = ready ] && ulp_ours ib_srpt
	SRPT_GUID=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid 2>/dev/null)
	peer_exchange "$T,$SRPT_GUID" >/dev/null
}

# srp_login_peer SRC [ib_srp parameters]: the initiator side: our port ID
# sent, the target's state and GUID taken, and srp_login to the peer.
srp_login_peer() {
	_src=$1
	shift
	_hex=$(srp_gid_hex rxe0)
	peer_exchange 0000000000000000${_hex#????????????????} >/dev/null
	_t=$(peer_exchange x)
	[ "${_t%%,*}" = ready ] &&
		srp_login rxe0 "$_src" "$RDMA_KMOD_PEER_IP" "${_t#*,}" "$@"
}

# srp_fail_fast: errors reach the I/O of SRP_DEV soon once the target is
# gone (fast_io_fail_tmo 5 s, the SCSI command timeout 10 s), not a hang.
srp_fail_fast() {
	for _f in /sys/class/srp_remote_ports/port-*/fast_io_fail_tmo; do
		echo 5 >"$_f"
	done
	echo 10 >/sys/block/${SRP_DEV#/dev/}/device/timeout
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

# srp_logout_all: every SRP remote port deleted, its disk gone, ib_srp
# unloaded.
srp_logout_all() {
	for p in /sys/class/srp_remote_ports/port-*; do
		[ -e "$p/delete" ] && echo 1 >"$p/delete"
	done
	for _ in $(seq 30); do
		[ -z "$(srp_rports)" ] && break
		sleep 1
	done
	expect_eq "no SRP remote port left" "$(ls /sys/class/srp_remote_ports/ 2>/dev/null)" ""
	modprobe -r ib_srp || bad "ib_srp unload"
	modprobe -r scsi_transport_srp 2>/dev/null
}
