#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Installs everything the build, the demo and the tests need, on Debian 12.
# Idempotent and non-interactive: it only calls apt-get when something is missing.
set -eu

[ "$(id -u)" = 0 ] || SUDO=sudo
SUDO=${SUDO:-}
export DEBIAN_FRONTEND=noninteractive

# linux-source-6.1: the consumers rebuilt on our core (scripts/compat/) and
# the test-only upstream siw peer
# (scripts/peer/upstream-siw.sh); iperf3: raw TCP next to siw in make bench;
# nvme-cli, fio: the NVMe over Fabrics selftests.
# make deb and its test need only dpkg-deb, apt and unshare (always there).
# strace and python3-pyverbs: the uverbs ioctl tests (verbs_ioctl, verbs_pyverbs).
# nfs-kernel-server (with nfs-common): NFS over RDMA (ulp/rpcrdma, issue 14).
# open-iscsi, targetcli-fb: iSCSI over RDMA, initiator and LIO target (issue 15);
# dbus-daemon: targetcli needs a system bus (the VM starts a private one).
# opensm: the subnet manager of the InfiniBand tests (issue 16; unused on the
# host, whose own opensm service finds no InfiniBand port and stops).
# network-manager (nmcli, the IPoIB test of seed 002 ch. 6) is installed
# apart, below: it must never start on the machine it is installed on.
PKGS="build-essential kmod bc linux-headers-amd64 qemu-system-x86 busybox-static
 libnl-3-dev libnl-route-3-dev libibverbs-dev librdmacm-dev googletest libgtest-dev cmake pkg-config dkms
 rdma-core ibverbs-utils ibverbs-providers rdmacm-utils infiniband-diags perftest qperf
 gnuplot-nox iproute2 dwarves cpio xz-utils llvm python3 systemd git tcpdump
 iperf3 linux-source-6.1 nvme-cli fio strace python3-pyverbs nfs-kernel-server
 open-iscsi targetcli-fb dbus-daemon opensm"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done

updated=0
apt_update() {
	[ $updated = 1 ] && return 0
	$SUDO apt-get update -qq
	updated=1
}

if [ -n "$missing" ]; then
	echo "setup: installing$missing"
	apt_update
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# NetworkManager, only for the VM test ipoib_nmcli (which starts its own
# instance by hand). Started on this machine it could take over its
# interfaces (a DHCP profile on every unconfigured NIC), so it never runs
# here: while apt installs it, a policy-rc.d (the hook invoke-rc.d and
# deb-systemd-invoke obey) refuses every service start, and under systemd
# its units are masked first, which also stops D-Bus activation and its
# start at boot (the package enables it). An existing policy-rc.d is put
# back afterwards.
PRC=/usr/sbin/policy-rc.d
nm_units="NetworkManager.service NetworkManager-wait-online.service NetworkManager-dispatcher.service"
prc_restore() {
	if [ -e $PRC.rdma-kmod ]; then
		$SUDO mv -f $PRC.rdma-kmod $PRC
	else
		$SUDO rm -f $PRC
	fi
}
if ! dpkg-query -W -f='${Status}\n' network-manager 2>/dev/null | grep -q "install ok installed"; then
	echo "setup: installing network-manager (its service kept stopped and disabled)"
	apt_update
	[ ! -e $PRC ] || $SUDO cp -p $PRC $PRC.rdma-kmod
	trap prc_restore EXIT
	printf '#!/bin/sh\n# rdma-kmod scripts/setup.sh: no service starts\nexit 101\n' |
		$SUDO tee $PRC >/dev/null
	$SUDO chmod 755 $PRC
	# shellcheck disable=SC2086
	[ ! -d /run/systemd/system ] || $SUDO systemctl mask $nm_units
	$SUDO apt-get install -y -qq --no-install-recommends network-manager >/dev/null
	prc_restore
	trap - EXIT
fi

# The VM boots the stock kernel matching the installed headers.
KVER=$(ls -d /usr/src/linux-headers-*-amd64 | sed 's,.*/linux-headers-,,' | sort -V | tail -n 1)
if [ ! -e "/boot/vmlinuz-$KVER" ] || [ ! -d "/lib/modules/$KVER/kernel" ]; then
	echo "setup: installing linux-image-$KVER"
	apt_update
	# INITRD=No: the VM brings its own initramfs; skip minutes of update-initramfs.
	$SUDO env INITRD=No apt-get install -y -qq --no-install-recommends \
		"linux-image-$KVER" >/dev/null
fi
echo "setup: ok (KVER=$KVER)"
