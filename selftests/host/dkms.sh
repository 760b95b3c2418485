#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# DKMS on the host against the Debian headers: dkms add/build/install -k
# KVER into private trees under build/ (the host's /lib/modules is left
# alone), then a VM boots with exactly those installed modules and proves
# modprobe loads them and they work (rdma link add).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
KVER=${KVER:-$("$top/scripts/kver.sh")}
[ "${1:-}" = --kver ] && KVER=$2
ver=$(cat "$top/VERSION")
work=$top/build/dkms
rm -rf "$work"
mkdir -p "$work/dkms" "$work/src" "$work/install/$KVER"
# The source as /usr/src/rdma-kmod-VERSION would hold it (no build output).
mkdir -p "$work/src/rdma-kmod-$ver"
(cd "$top" && tar --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' --exclude='*.mod*' \
	-cf - Kbuild Makefile dkms.conf VERSION drivers include scripts) |
	tar -xf - -C "$work/src/rdma-kmod-$ver"
opts=(--dkmstree "$work/dkms" --sourcetree "$work/src" --installtree "$work/install")
dkms add "${opts[@]}" "rdma-kmod/$ver"
dkms build "${opts[@]}" "rdma-kmod/$ver" -k "$KVER"
dkms install "${opts[@]}" "rdma-kmod/$ver" -k "$KVER" --force
dkms status "${opts[@]}"
mods=$(find "$work/install" -name '*.ko*' | sort)
echo "installed by dkms:"; echo "$mods"
for m in ib_core ib_uverbs ib_cm iw_cm rdma_cm rdma_ucm rdma_rxe; do
	echo "$mods" | grep -q "/updates/.*$m.ko" || { echo "FAIL: dkms did not install $m into updates/"; exit 1; }
done
moddir=$(dirname "$(echo "$mods" | head -n 1)")
"$top/scripts/vm/run.sh" --kver "$KVER" --modules-dir "$moddir" --cmd '
	set -e
	for m in ib_core ib_uverbs rdma_rxe; do modinfo -n $m; done
	modprobe rdma_rxe
	cmp $(modinfo -n ib_core) /mnt/out/modules/ib_core.ko
	rdma link add rxe0 type rxe netdev eth0
	rdma link show | grep -q "link rxe0/1 state ACTIVE"
	modprobe ib_uverbs
	ibv_devinfo -d rxe0 | grep -q "state:.*PORT_ACTIVE"
	rdma link delete rxe0'
