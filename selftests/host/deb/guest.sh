#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# In the VM of selftests/host/deb.sh: the system as `apt install
# ./rdma-kmod-dkms_*.deb` left it, then as `apt remove` left it. The
# changes of each (build/deb-test/inst, then rem on top of it) are overlaid
# on the host's /lib/modules/KVER and /etc/modprobe.d, where modprobe looks.
# (A whole root cannot be overlaid: a layer inside the 9p root that is the
# lowest layer makes overlayfs refuse the mount.)
# Installed: modprobe and rdma-core's boot-time module lists
# (/etc/rdma/modules/*.conf through rdma-load-modules@.service's ExecStart)
# load our modules and the rebuilt consumers from updates/ and refuse the
# blocked ones with their reason. Removed: everything comes from kernel/
# again and nothing is refused.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
work=$RDMA_KMOD_SRC/build/deb-test
mods=$(readlink -f /lib/modules)
host=/srv	# the host's root as 9p shows it (scripts/vm/guest.sh)

# use_state LAYERS: the system with the upper layers LAYERS (colon list,
# newest first) of the host test.
mounted=""
use_state() {
	drop_state
	for dir in $mods/$KVER /etc/modprobe.d; do
		lower=""
		for l in $(echo $1 | tr : ' '); do
			[ -d $l$dir ] && lower="$lower$l$dir:"
		done
		mount -t overlay overlay -o lowerdir=$lower$host$dir $dir || return 1
		mounted="$dir $mounted"
	done
	# Room for one more boot list.
	mkdir -p /run/deb/rdma.u /run/deb/rdma.w
	mount -t overlay overlay -o lowerdir=$host/etc/rdma/modules,upperdir=/run/deb/rdma.u,workdir=/run/deb/rdma.w \
		/etc/rdma/modules || return 1
	mounted="/etc/rdma/modules $mounted"
}
drop_state() {
	for dir in $mounted; do umount $dir; done
	mounted=""
	rm -rf /run/deb
}
trap drop_state EXIT

ours=$(sed -n 's/^\([a-z_]*\)$/\1/p' $RDMA_KMOD_SRC/scripts/modules.list)
rebuilt=$(cd $work/inst$mods/$KVER/updates/rdma-kmod-compat && ls *.ko | sed 's/\.ko$//')
intree=$(sh $RDMA_KMOD_SRC/scripts/blocklist.sh --names $KVER)

# loaded_from MODULE DIR: MODULE is loaded and is the file modprobe
# resolves it to, below DIR.
loaded_from() {
	file=$(modinfo -n $1)
	case "$file" in
	*/$2/*) ;;
	*) bad "$1 resolves to $file, not $2/"; return ;;
	esac
	if [ ! -d /sys/module/$(echo $1 | tr - _) ]; then
		bad "$1 not loaded"
	elif ! is_build $1 $file; then
		bad "the loaded $1 is not $file"
	else
		ok "$1 loaded from $file"
	fi
}

unload_all() {
	for _ in 1 2 3 4 5 6; do
		left=""
		for m in $rebuilt $intree $ours; do
			m=$(echo $m | tr - _)
			[ -d /sys/module/$m ] || continue
			rmmod $m 2>/dev/null || left="$left $m"
		done
		[ -z "$left" ] && return 0
	done
	bad "could not unload:$left"
}

# The boot path: rdma-load-modules@NAME.service for every list in
# /etc/rdma/modules, by its ExecStart (no systemd in this VM).
boot_lists() {
	unit=/lib/systemd/system/rdma-load-modules@.service
	for conf in /etc/rdma/modules/*.conf; do
		name=$(basename $conf .conf)
		cmd=$(sed -n 's/^ExecStart=//p' $unit | sed "s/%I/$name/g")
		echo "# rdma-load-modules@$name: $cmd"
		$cmd 2>&1
	done
}

# rdma link add works and the ib_core under it is DIR's.
rxe_on() { # DIR
	modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0 || bad "rdma link add"
	rdma link show | grep -q "link rxe0/1 state ACTIVE" || bad "rxe0 not ACTIVE"
	rdma link delete rxe0 2>/dev/null
	loaded_from ib_core $1
	loaded_from rdma_rxe $1
}

echo "=== installed"
use_state $work/inst || die "cannot mount the installed state (run selftests/host/deb.sh)"
[ -n "$rebuilt" ] || bad "no rebuilt consumer installed"
for m in $ours $rebuilt; do
	case "$(modinfo -n $m)" in
	*/updates/*) ;;
	*) bad "$m does not resolve to updates/" ;;
	esac
done
rxe_on updates/dkms
# NFS over RDMA is ours (ulp/rpcrdma), not the in-tree one.
modprobe rpcrdma || bad "modprobe rpcrdma"
loaded_from rpcrdma updates/dkms
for m in $rebuilt; do
	modprobe $m || bad "modprobe $m"
	loaded_from $m updates/rdma-kmod-compat
	# On our ib_core itself or through another consumer (smc_diag: smc).
	modprobe --show-depends $m | grep -q "/updates/dkms/ib_core.ko" || bad "$m is not on our ib_core"
done
# DKMS signed ours with its key: the consumers are signed alike.
signer=$(modinfo -F signer ib_core)
for m in $rebuilt; do
	[ "$(modinfo -F signer $m)" = "$signer" ] || bad "$m not signed as ib_core ($signer)"
done
unload_all
# A blocked one says why (a ULP rather than a hardware driver, if any).
blocked=$(sed -n 's/^install \([^ ]*\) .*/\1/p' /etc/modprobe.d/rdma-kmod.conf)
for m in ib_srpt ib_isert ib_iser rpcrdma ib_umad $blocked; do
	case " $(echo $blocked) " in *" $m "*) blocked=$m; break ;; esac
done
if [ -z "$blocked" ]; then
	echo "nothing blocked: every in-tree RDMA module is ours or rebuilt"
else
	out=$(modprobe $blocked 2>&1) && bad "modprobe $blocked succeeded"
	echo "$out" | grep -q "rdma-kmod: $blocked is not provided by rdma-kmod (.\+)" ||
		bad "no reason for $blocked: $out"
	[ -d /sys/module/$blocked ] && bad "blocked $blocked loaded"
	ok "$blocked refused: $out"
fi
unload_all

# rdma-core's lists plus one naming the rebuilt consumers.
printf '%s\n' $rebuilt > /etc/rdma/modules/rdma-kmod-test.conf
out=$(boot_lists)
echo "$out"
for m in $(sed -e 's/#.*//' /etc/rdma/modules/*.conf); do
	real=$(modprobe -R $m 2>/dev/null | head -n 1)
	[ -n "$real" ] || { echo "skip: $m is no module of $KVER"; continue; }
	case "$(modinfo -n $real)" in
	*/updates/*) loaded_from $real updates ;;
	*)
		if [ -d /sys/module/$real ]; then
			bad "in-tree $real loaded by the boot lists"
		elif echo "$out" | grep -q "rdma-kmod: $real is not provided by rdma-kmod ("; then
			ok "$m ($real) refused with its reason"
		else
			bad "$m ($real) neither loaded nor refused with a reason"
		fi ;;
	esac
done
unload_all

echo "=== removed"
use_state $work/rem:$work/inst || die "cannot mount the removed state"
[ -e /etc/modprobe.d/rdma-kmod.conf ] && bad "block file left"
for m in $ours $rebuilt; do
	[ $m = siw ] && continue	# Debian's kernel has none
	case "$(modinfo -n $m)" in
	*/kernel/*) ;;
	*) bad "$m does not resolve to kernel/ after apt remove" ;;
	esac
done
rxe_on kernel
for m in $rebuilt $blocked; do
	modprobe $m || bad "modprobe $m (stock)"
	loaded_from $m kernel
done
unload_all
out=$(boot_lists)
echo "$out"
echo "$out" | grep -q "rdma-kmod:" && bad "a refusal after apt remove"
for m in $(sed -e 's/#.*//' /etc/rdma/modules/rdma.conf); do
	real=$(modprobe -R $m 2>/dev/null | head -n 1)
	[ -n "$real" ] && loaded_from $real kernel
done
unload_all
finish
