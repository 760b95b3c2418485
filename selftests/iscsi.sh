# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# iSCSI over RDMA (iSER) for the VM selftests (sourced after lib.sh and
# nvmeof.sh, not run): a LIO target made with targetcli, with its portal's
# iSER child enabled, and open-iscsi's initiator logging in through the
# built-in "iser" iface. ../shared/reference/ULP.md §3, §4 and §10.3 have
# the facts these steps rely on.

ISCSI_IQN=iqn.2026-11.org.rdma-kmod:target1
ISCSI_INIT_IQN=iqn.2026-11.org.rdma-kmod:initiator1
ISCSI_IMG=/tmp/iscsi-disk0.img
ISCSI_TPG=/sys/kernel/config/target/iscsi/$ISCSI_IQN/tpgt_1

# iscsi_target_up ADDR: a 128 MiB file on tmpfs as LUN 0 of the target,
# open to our initiator's name only, the portal ADDR:3260 (TCP) with its
# iSER child portal enabled. targetcli keeps its preferences in $HOME (a
# tmpfs in the VM) and saves nothing: /etc/target is read-only there.
# One targetcli session takes all the commands on its standard input, as
# an admin types them: each start of targetcli is seconds of Python under
# TCG. Such a session goes on past a failed command, so what it made is
# read back from configfs; its output is in /tmp/tcli.out.
iscsi_target_up() {
	t=/iscsi/$ISCSI_IQN/tpg1
	truncate -s 128M $ISCSI_IMG || return 1
	iscsi_bus_up || return 1
	printf '%s\n' "set global auto_save_on_exit=false" \
		"set global auto_add_default_portal=false" \
		"/backstores/fileio create disk0 $ISCSI_IMG" \
		"/iscsi create $ISCSI_IQN" \
		"$t/luns create /backstores/fileio/disk0" \
		"$t/acls create $ISCSI_INIT_IQN" \
		"$t/portals create $1 3260" \
		"$t/portals/$1:3260 enable_iser true" |
		targetcli >/tmp/tcli.out 2>&1
	if [ -d "$ISCSI_TPG/lun/lun_0" ] && [ -d "$ISCSI_TPG/acls/$ISCSI_INIT_IQN" ] &&
	   grep -q 'iSER enable now: True' /tmp/tcli.out &&
	   [ "$(cat "$ISCSI_TPG/np/$1:3260/iser" 2>/dev/null)" = 1 ]; then
		return 0
	fi
	echo "targetcli:"
	cat /tmp/tcli.out
	return 1
}

# iscsi_bus_up: targetcli asks the system D-Bus for tcmu-runner's
# backstores and fails without one: the VM (no systemd) gets a private bus
# daemon that it finds through DBUS_SYSTEM_BUS_ADDRESS.
iscsi_bus_up() {
	[ -S /run/dbus/system_bus_socket ] && return 0
	[ -n "${ISCSI_BUS_PID:-}" ] && return 0
	ISCSI_BUS_PID=$(dbus-daemon --session --fork --nopidfile --print-pid \
		--address=unix:path=/run/iscsi-dbus.sock) || return 1
	export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/iscsi-dbus.sock
}

# iscsi_target_down: everything targetcli made, then LIO's modules.
iscsi_target_down() {
	targetcli clearconfig confirm=True >/tmp/tcli.out 2>&1 ||
		{ echo "targetcli clearconfig:"; cat /tmp/tcli.out; }
	rm -f $ISCSI_IMG
	[ -z "${ISCSI_BUS_PID:-}" ] || kill "$ISCSI_BUS_PID"
	ISCSI_BUS_PID=""
	# the fabric's configfs directory holds iscsi_target_mod
	[ -d /sys/kernel/config/target/iscsi ] && rmdir /sys/kernel/config/target/iscsi
	for m in ib_isert iscsi_target_mod target_core_file target_core_iblock \
		target_core_pscsi target_core_user target_core_mod; do
		[ -d /sys/module/$m ] || continue
		modprobe -r $m || { lsmod | grep -E 'target|isert|iscsi'; return 1; }
	done
}

# iscsi_initiator_up: open-iscsi's writable state on tmpfs (the VM's /etc is
# the host's, read-only), our initiator name, iscsid started by hand (no
# systemd in the VM).
iscsi_initiator_up() {
	mkdir -p /run/iscsi-etc /run/lock/iscsi
	cp /etc/iscsi/iscsid.conf /run/iscsi-etc/ || return 1
	echo "InitiatorName=$ISCSI_INIT_IQN" >/run/iscsi-etc/initiatorname.iscsi
	mountpoint -q /etc/iscsi || mount --bind /run/iscsi-etc /etc/iscsi || return 1
	# no udev in the VM: the disk driver comes by hand
	modprobe sd_mod || return 1
	iscsid || return 1
	# iscsid answers on its abstract socket once it is up
	for _ in $(seq 20); do
		iscsiadm -m session >/dev/null 2>&1
		[ $? != 20 ] && return 0	# 20: ISCSI_ERR_ISCSID_NOTCONN
		sleep 0.5
	done
	return 1
}

# iscsi_initiator_down: iscsid stopped, its state dropped, ib_iser unloaded.
iscsi_initiator_down() {
	iscsiadm -k 0 >/dev/null 2>&1
	for _ in $(seq 20); do
		pidof iscsid >/dev/null || break
		sleep 0.5
	done
	mountpoint -q /etc/iscsi && umount /etc/iscsi
	rm -rf /run/iscsi-etc
	modprobe -r ib_iser
}

# iscsi_login ADDR: SendTargets discovery and login over iSER; sets
# ISCSI_DEV to the LUN's /dev/sdX ("" if none showed up).
# ISCSI_NODE_OPTS: node settings (NAME=VALUE ...) made before the login.
iscsi_login() {
	ISCSI_DEV=""
	if iscsiadm -m discovery -t st -p "$1":3260 -I iser >/tmp/iscsi.disc 2>&1 &&
	   grep -q "^$1:3260,1 $ISCSI_IQN\$" /tmp/iscsi.disc; then
		ok "discovery over iSER: $ISCSI_IQN at $1:3260"
	else
		bad "iscsiadm -m discovery -t st -p $1:3260 -I iser"
		cat /tmp/iscsi.disc
		return 1
	fi
	# node settings, NAME=VALUE each (ISCSI_NODE_OPTS), before the login
	for o in ${ISCSI_NODE_OPTS:-}; do
		iscsiadm -m node -T $ISCSI_IQN -p "$1":3260 -I iser -o update \
			-n "${o%%=*}" -v "${o#*=}" || { bad "iscsiadm -o update $o"; return 1; }
	done
	if iscsiadm -m node -T $ISCSI_IQN -p "$1":3260 -I iser --login >/tmp/iscsi.login 2>&1 &&
	   grep -q "^Login to \[iface: iser, target: $ISCSI_IQN, portal: $1,3260\] successful" \
		/tmp/iscsi.login; then
		ok "login over iSER"
	else
		bad "iscsiadm --login -I iser"
		cat /tmp/iscsi.login
		return 1
	fi
	expect_eq "iscsiadm -m session" "$(iscsiadm -m session 2>&1 | sed 's/^iser: \[[0-9]*\]/iser: [N]/')" \
		"iser: [N] $1:3260,1 $ISCSI_IQN (non-flash)"
	expect_eq "iser transport caps" "$(cat /sys/class/iscsi_transport/iser/caps)" 0x89
	for _ in $(seq 30); do
		for b in /sys/class/iscsi_session/session*/device/target*/*:*:*:*/block/sd*; do
			[ -e "$b" ] && ISCSI_DEV=/dev/${b##*/}
		done
		[ -n "$ISCSI_DEV" ] && [ -b "$ISCSI_DEV" ] && break
		sleep 1
	done
	[ -b "$ISCSI_DEV" ] || { bad "no disk for the session"; return 1; }
	ok "LUN 0 is $ISCSI_DEV ($(cat /sys/block/${ISCSI_DEV#/dev/}/device/vendor))"
}

# iscsi_logout ADDR: the session logged out, its disk gone.
iscsi_logout() {
	if iscsiadm -m node -T $ISCSI_IQN -p "$1":3260 --logout >/tmp/iscsi.logout 2>&1; then
		ok "logout"
	else
		bad "iscsiadm --logout"
		cat /tmp/iscsi.logout
	fi
	iscsiadm -m node -T $ISCSI_IQN -p "$1":3260 -o delete >/dev/null 2>&1
	n=0
	for sess in /sys/class/iscsi_session/session*; do
		[ -e "$sess" ] && n=$((n + 1))
	done
	expect_eq "no session left" "$n" 0
}

# iscsi_target_sum: md5 of the first 32 MiB of the backstore file.
iscsi_target_sum() {
	dd if=$ISCSI_IMG bs=1M count=32 2>/dev/null | md5sum | cut -d' ' -f1
}
