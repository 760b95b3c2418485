#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make install / make uninstall: our modules into /lib/modules/KVER/updates/
# (ranked above kernel/ by depmod), the modprobe.d file that refuses the
# in-tree RDMA modules we do not provide, then depmod.
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
dest=$root/lib/modules/$KVER/updates/rdma-kmod
conf=$root/etc/modprobe.d/rdma-kmod.conf

if [ $uninstall = 1 ]; then
	rm -rf "$dest" "$conf"
else
	mkdir -p "$dest" "$(dirname "$conf")"
	find "$src/drivers" "$src/ulp" -name '*.ko' -exec install -m 0644 {} "$dest/" \; 2>/dev/null
	[ -n "$(ls "$dest")" ] || { echo "install-modules: nothing built in $src" >&2; exit 1; }
	sh "$here/blocklist.sh" "$KVER" "$dest" > "$conf"
	echo "install-modules: $(ls "$dest" | tr '\n' ' ')-> $dest"
fi
if [ -n "$root" ]; then
	depmod -b "$root" "$KVER"
else
	depmod "$KVER"
fi
