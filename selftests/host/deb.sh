#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The Debian package as a user gets it, and with it the DKMS path (its
# postinst runs dkms add/build/install, whose hooks rebuild the consumers):
# make deb, then `apt install
# ./rdma-kmod-dkms_*.deb` and later `apt remove rdma-kmod-dkms` in writable
# copies of this machine's root (overlays over /, each in a mount namespace
# of its own: the host's root is left alone). DKMS builds at the host's speed
# there; a VM then boots with both roots (deb/guest.sh) and proves modprobe
# and rdma-core's boot-time lists load our modules and the rebuilt consumers
# from the installed root, and the stock ones from the removed one.
set -eu -o pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
KVER=${KVER:-$("$top/scripts/kver.sh")}
[ "${1:-}" = --kver ] && KVER=$2
ver=$(cat "$top/VERSION")
work=$top/build/deb-test
# /lib/modules as the overlays' upper layers hold it (merged /usr: usr/lib).
mods=$(readlink -f /lib/modules)
fail() { echo "FAIL: $*"; exit 1; }
# RDMA_KMOD_VM_LOCK=FILE: the VM waits for flock FILE, the host part does not.
vm() { ${RDMA_KMOD_VM_LOCK:+flock "$RDMA_KMOD_VM_LOCK"} "$@"; }

# step NAME: where the time goes, in the log
step() { echo "=== $* [$SECONDS s]"; }
deb=$("$top/scripts/deb/build.sh")
echo "package: $deb [$SECONDS s]"
rm -rf "$work"
mkdir -p "$work"

# in_root COMMAND UPPER...: COMMAND chrooted in overlays stacked on /, one
# per UPPER (the same directory always stacks on the same ones), the last
# one taking the changes. Each runs in a mount namespace of its own.
in_root() {
	unshare -m --propagation private sh -eu -c '
		cmd=$1; shift; root=/
		for up in "$@"; do
			mkdir -p "$up" "$up.work" "$up.mnt"
			mount -t overlay overlay -o "lowerdir=$root,upperdir=$up,workdir=$up.work,redirect_dir=off,index=off,metacopy=off" "$up.mnt"
			root=$up.mnt
		done
		mount --rbind /dev "$root/dev"
		mount -t proc proc "$root/proc"
		mount -t sysfs sysfs "$root/sys"
		exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 \
			${RDMA_KMOD_COMPAT_CACHE:+RDMA_KMOD_COMPAT_CACHE="$RDMA_KMOD_COMPAT_CACHE"} \
			sh -eu -c "$cmd"' \
		in_root "$@"
}

step "apt install $deb"
in_root "
	apt install -y $deb
	dpkg-query -W -f='\${Status}\n' rdma-kmod-dkms | grep -qx 'install ok installed'
	dkms status rdma-kmod" "$work/inst" 2>&1 | tee "$work/install.log"
[ -x "$work/inst/usr/src/rdma-kmod-$ver/scripts/compat/build.sh" ] ||
	fail "no /usr/src/rdma-kmod-$ver/scripts/compat"
grep -q "^rdma-kmod/$ver, $KVER, [^:]*: installed\$" "$work/install.log" ||
	fail "dkms status is not installed (or not what was built)"
grep -q "consumers rebuilt on our core for $KVER" "$work/install.log" ||
	fail "the install did not report the rebuilt consumers"
grep -q "stay blocked" "$work/install.log" || fail "the install did not report the blocked ones"
for m in $(sed -n 's/^\([a-z_]*\)$/\1/p' "$top/scripts/modules.list"); do
	[ -f "$work/inst$mods/$KVER/updates/dkms/$m.ko" ] || fail "DKMS did not install $m"
done
rebuilt=$(cd "$work/inst$mods/$KVER/updates/rdma-kmod-compat" && ls -- *.ko) ||
	fail "no rebuilt consumer installed"
conf=$work/inst/etc/modprobe.d/rdma-kmod.conf
[ -s "$conf" ] || fail "no block file"
echo "rebuilt and installed:" $rebuilt
# What the DKMS POST_BUILD hook decided (scripts/compat/dkms-hook.sh): every
# consumer it built is installed and not blocked, every other in-tree RDMA
# module is blocked with its reason.
status=$work/inst/var/lib/dkms/rdma-kmod/$ver/$KVER/$(uname -m)/compat/status.txt
[ -s "$status" ] || fail "the POST_BUILD hook left no $status"
built=$(awk -F'\t' '$2 == "built" { print $1 }' "$status")
[ "$(printf '%s\n' $built | sort | xargs)" = "$(printf '%s\n' $rebuilt | sed 's/\.ko$//' | sort | xargs)" ] ||
	fail "built ($(echo $built)) is not what was installed ($(echo $rebuilt))"
# (apt's output ends its lines with CR)
grep -q "consumers rebuilt on our core for $KVER.*: $(echo $built)"$'\r'"\?\$" "$work/install.log" ||
	fail "the install did not report the rebuilt consumers as built"
for m in $built; do
	grep -q "^install $(echo $m | tr - _) " "$conf" && fail "$m rebuilt but blocked"
done
for m in $(awk -F'\t' '$2 == "blocked" { print $1 }' "$status" | tr - _); do
	line=$(grep "^install $m " "$conf") || fail "$m not blocked"
	case "$line" in
	*"$m is not provided by rdma-kmod ("*) ;;
	*) fail "$m blocked without its reason: $line" ;;
	esac
done

step "apt remove rdma-kmod-dkms"
in_root "
	apt remove -y rdma-kmod-dkms
	bad() { echo \"FAIL: \$*\"; exit 1; }
	dpkg-query -W -f='\${Status}\n' rdma-kmod-dkms 2>/dev/null | grep -q 'ok installed' &&
		bad 'still installed'
	test -e /etc/modprobe.d/rdma-kmod.conf && bad 'block file left'
	test -e /usr/src/rdma-kmod-$ver && bad 'source left'
	ls /lib/modules/*/updates/dkms/ib_core.ko* /lib/modules/*/updates/rdma-kmod-compat 2>/dev/null &&
		bad 'modules left'
	dkms status rdma-kmod | grep . && bad 'still in DKMS'
	echo 'removed: no module, block file, source or DKMS entry left'" "$work/inst" "$work/rem" 2>&1 |
	tee "$work/remove.log"

step "VM: modprobe in both roots"
vm "$top/scripts/vm/run.sh" --kver "$KVER" --modules-dir "$work/inst$mods/$KVER/updates" \
	--test "$top/selftests/host/deb/guest.sh" --verbose
step "done"
