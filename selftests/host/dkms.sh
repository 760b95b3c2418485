#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# DKMS on the host against the Debian headers: dkms add/build/install -k
# KVER into private trees under build/ (the host's /lib/modules and
# /etc/modprobe.d are left alone: --no-depmod, an install tree of
# build/dkms/root/lib/modules), then a VM boots with exactly those installed
# modules and proves modprobe loads them and they work (rdma link add), and
# that the consumers the DKMS hooks rebuilt (scripts/compat/dkms-hook.sh)
# load from updates/ on our ib_core. dkms remove takes them all away again.
set -eu -o pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
KVER=${KVER:-$("$top/scripts/kver.sh")}
[ "${1:-}" = --kver ] && KVER=$2
ver=$(cat "$top/VERSION")
work=$top/build/dkms
root=$work/root
updates=$root/lib/modules/$KVER/updates
conf=$root/etc/modprobe.d/rdma-kmod.conf
fail() { echo "FAIL: $*"; exit 1; }
# RDMA_KMOD_VM_LOCK=FILE: the VM waits for flock FILE, the host part does not.
vm() { ${RDMA_KMOD_VM_LOCK:+flock "$RDMA_KMOD_VM_LOCK"} "$@"; }
rm -rf "$work"
mkdir -p "$work/dkms" "$work/src" "$root/lib/modules/$KVER"
# The source as /usr/src/rdma-kmod-VERSION would hold it (no build output).
"$top/scripts/dkms-source.sh" "$work/src/rdma-kmod-$ver"
[ -x "$work/src/rdma-kmod-$ver/scripts/compat/build.sh" ] || fail "no scripts/compat in the DKMS source"
opts=(--dkmstree "$work/dkms" --sourcetree "$work/src" --installtree "$root/lib/modules" --no-depmod)
dkms add "${opts[@]}" "rdma-kmod/$ver"
dkms build "${opts[@]}" "rdma-kmod/$ver" -k "$KVER"
dkms install "${opts[@]}" "rdma-kmod/$ver" -k "$KVER" --force | tee "$work/install.log"
dkms status "${opts[@]}"
mods=$(find "$root" -name '*.ko*' | sort)
echo "installed by dkms:"; echo "$mods"
for m in $(sed -n 's/^\([a-z_]*\)$/\1/p' "$top/scripts/modules.list"); do
	echo "$mods" | grep -q "/updates/dkms/$m.ko" || fail "dkms did not install $m into updates/"
done

# The consumers: every one the rebuild calls built is installed and not
# blocked, every other in-tree RDMA module is blocked with its reason.
status=$work/dkms/rdma-kmod/$ver/$KVER/$(uname -m)/compat/status.txt
[ -s "$status" ] || fail "the POST_BUILD hook left no $status"
built=$(awk -F'\t' '$2 == "built" { print $1 }' "$status")
echo "rebuilt:" $built
[ -n "$built" ] || fail "no consumer rebuilt (expected ib_srp, 9pnet_rdma)"
grep -q "consumers rebuilt on our core for $KVER.*: $(echo $built)\$" "$work/install.log" ||
	fail "dkms install did not report the rebuilt consumers"
grep -q "stay blocked" "$work/install.log" || fail "dkms install did not report the blocked ones"
for m in $built; do
	[ -f "$updates/rdma-kmod-compat/$m.ko" ] || fail "$m built but not installed"
	grep -q "^install $(echo $m | tr - _) " "$conf" && fail "$m rebuilt but blocked in $conf"
done
awk -F'\t' '$2 == "blocked" { print $1 }' "$status" | tr - _ | while read -r m; do
	line=$(grep "^install $m " "$conf") || { echo "FAIL: $m not blocked"; exit 1; }
	case "$line" in
	*"$m is not provided by rdma-kmod ("*) ;;
	*) echo "FAIL: $m blocked without its reason: $line"; exit 1 ;;
	esac
done

vm "$top/scripts/vm/run.sh" --kver "$KVER" --modules-dir "$updates" --cmd '
	set -e
	. $RDMA_KMOD_SRC/selftests/lib.sh
	for m in ib_core ib_uverbs rdma_rxe '"$(echo $built)"'; do modinfo -n $m; done
	modprobe rdma_rxe
	cmp $(modinfo -n ib_core) /mnt/out/modules/ib_core.ko
	rdma link add rxe0 type rxe netdev eth0
	rdma link show | grep -q "link rxe0/1 state ACTIVE"
	modprobe ib_uverbs
	ibv_devinfo -d rxe0 | grep -q "state:.*PORT_ACTIVE"
	rdma link delete rxe0
	# NFS over RDMA is ours (ulp/rpcrdma), not the in-tree one.
	modprobe rpcrdma
	cmp $(modinfo -n rpcrdma) /mnt/out/modules/rpcrdma.ko
	modprobe -r rpcrdma
	# A rebuilt consumer comes from updates/ and runs on our ib_core.
	for m in '"$(echo $built)"'; do
		modprobe $m
		file=$(modinfo -n $m)
		case $file in */updates/*) ;; *) echo "FAIL: $m resolves to $file"; exit 1 ;; esac
		cmp $file /mnt/out/modules/$m.ko
		is_build $m $file || { echo "FAIL: the loaded $m is not $file"; exit 1; }
		# On our ib_core itself or through another consumer (smc_diag: smc).
		modprobe --show-depends $m | grep -q "/updates/ib_core.ko" ||
			{ echo "FAIL: $m does not use our ib_core"; exit 1; }
		echo "ok: $m loaded from $file on our ib_core"
	done
	# Users first: the list has a module after those it links to.
	for m in $(echo '"$(echo $built)"' | tr " " "\n" | tac); do modprobe -r $m; done'

# dkms remove: ours, the rebuilt consumers and the block file go.
dkms remove "${opts[@]}" "rdma-kmod/$ver" --all
left=$(find "$root" -name '*.ko*')
[ -z "$left" ] || fail "left after dkms remove: $left"
[ ! -e "$conf" ] || fail "$conf left after dkms remove"
[ ! -e "$work/dkms/rdma-kmod" ] || fail "dkms tree left after dkms remove"
echo "dkms remove: modules, rebuilt consumers and block file gone"
