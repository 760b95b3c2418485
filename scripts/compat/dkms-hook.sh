#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# DKMS hooks (dkms.conf POST_BUILD, POST_INSTALL, POST_REMOVE): every DKMS
# build of our modules for a kernel rebuilds the distribution's other RDMA
# consumers on them, every install puts those that built beside ours and
# writes the block file, every remove takes them away again. A consumer that
# fails never fails DKMS: each step ends with status 0.
#   dkms-hook.sh build KVER KDIR OUT       cwd: the DKMS build directory,
#                                          our modules just built in it
#   dkms-hook.sh install KVER OUT INSTALL_TREE
#   dkms-hook.sh remove KVER INSTALL_TREE
# OUT lies in DKMS's per-kernel tree, which dkms remove deletes. The block
# file goes to ROOT/etc/modprobe.d/rdma-kmod.conf for an INSTALL_TREE of
# ROOT/lib/modules (/lib/modules: the system's).
set -u
here=$(cd "$(dirname "$0")" && pwd)
step=${1:-}
KVER=${2:-}
[ -n "$KVER" ] || { echo "usage: $0 build|install|remove KVER ..." >&2; exit 0; }

# DKMS strips and signs the modules it builds (dkms.conf STRIP, its MOK
# key); the consumers get the same treatment when our ib_core got it.
sign_like_ours() { # KDIR DIR
	tail -c 28 drivers/core/ib_core.ko 2>/dev/null | grep -q 'Module signature appended' ||
		return 0
	# shellcheck disable=SC2034 # framework.conf paths may use $kernelver
	kernelver=$KVER
	mok_signing_key=/var/lib/dkms/mok.key mok_certificate=/var/lib/dkms/mok.pub sign_file=""
	for f in /etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf; do
		[ -r "$f" ] && . "$f"
	done
	[ -n "$sign_file" ] || sign_file=/usr/lib/linux-kbuild-${KVER%.*}/scripts/sign-file
	[ -x "$sign_file" ] || sign_file=$1/scripts/sign-file
	hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"/\1/p' "$1/.config" 2>/dev/null)
	for ko in "$2"/*.ko; do
		[ -f "$ko" ] || continue
		"$sign_file" "${hash:-sha512}" "$mok_signing_key" "$mok_certificate" "$ko" ||
			echo "rdma-kmod: could not sign $ko"
	done
}

conf_of() { # INSTALL_TREE
	case "$1" in
	*/lib/modules) echo "${1%/lib/modules}/etc/modprobe.d/rdma-kmod.conf" ;;
	esac
}

case "$step" in
build)
	kdir=$3 out=$4
	bash "$here/build.sh" --kver "$KVER" --kdir "$kdir" --top . --out "$out" ||
		echo "rdma-kmod: the consumers could not be rebuilt for $KVER"
	# The extracted source is only needed while building.
	rm -rf "$out/src" "$out/symvers"
	for ko in "$out"/modules/*.ko; do
		[ -f "$ko" ] && strip -g "$ko"
	done
	sign_like_ours "$kdir" "$out/modules"
	;;
install)
	out=$3 tree=$4
	conf=$(conf_of "$tree")
	[ -n "$conf" ] || { echo "rdma-kmod: install tree $tree is no .../lib/modules: no block file"; conf=/dev/null; }
	sh "$here/install.sh" --kver "$KVER" --out "$out" --dest "$tree/$KVER/updates/rdma-kmod-compat" \
		--provided "$tree/$KVER/updates" --conf "$conf" ||
		echo "rdma-kmod: the rebuilt consumers could not be installed for $KVER"
	;;
remove)
	tree=$3
	sh "$here/install.sh" --dest "$tree/$KVER/updates/rdma-kmod-compat" --uninstall
	echo "rdma-kmod: rebuilt consumers removed from $tree/$KVER/updates/rdma-kmod-compat"
	# The block file goes with the last kernel that has our ib_core.
	conf=$(conf_of "$tree")
	if [ -n "$conf" ] && ! ls "$tree"/*/updates/dkms/ib_core.ko* >/dev/null 2>&1; then
		rm -f "$conf"
		echo "rdma-kmod: $conf removed"
	fi
	;;
*)
	echo "usage: $0 build|install|remove KVER ..." >&2
	;;
esac
exit 0
