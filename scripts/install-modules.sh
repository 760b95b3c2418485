#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make install / make uninstall: our modules into /lib/modules/KVER/updates/
# (ranked above kernel/ by depmod), the distribution's other RDMA consumers
# rebuilt on them (scripts/compat/build.sh, from linux-source-6.1) beside
# them, the modprobe.d file that refuses the in-tree RDMA modules that are
# neither, then depmod.
#   install-modules.sh --kver KVER --src DIR [--root DIR]
#   install-modules.sh --kver KVER --uninstall [--root DIR]
set -eu
KVER="" src="" root="" uninstall=0
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) KVER=$2; shift ;;
	--src) src=$2; shift ;;
	--root) root=$2; shift ;;
	--uninstall) uninstall=1 ;;
	*) echo "usage: $0 --kver KVER (--src DIR | --uninstall) [--root DIR]" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$KVER" ] || { echo "install-modules: --kver missing" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
updates=$root/lib/modules/$KVER/updates
dest=$updates/rdma-kmod
compat=$updates/rdma-kmod-compat
conf=$root/etc/modprobe.d/rdma-kmod.conf

if [ $uninstall = 1 ]; then
	rm -rf "$dest" "$conf"
	sh "$here/compat/install.sh" --dest "$compat" --uninstall
else
	mkdir -p "$dest"
	for d in "$src/drivers" "$src/ulp"; do
		[ -d "$d" ] && find "$d" -name '*.ko' -exec install -m 0644 {} "$dest/" \;
	done
	[ -n "$(ls "$dest")" ] || { echo "install-modules: nothing built in $src" >&2; exit 1; }
	echo "install-modules: $(ls "$dest" | tr '\n' ' ')-> $dest"
	# A consumer that does not build stays blocked; it never fails the install.
	out=$src/build/compat/$KVER
	bash "$here/compat/build.sh" --kver "$KVER" --top "$src" --out "$out" ||
		echo "install-modules: the consumers could not be rebuilt (see above)"
	sh "$here/compat/install.sh" --kver "$KVER" --out "$out" --dest "$compat" \
		--provided "$updates" --conf "$conf"
fi
if [ -n "$root" ]; then
	depmod -b "$root" "$KVER"
else
	depmod "$KVER"
fi
