#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Installs the consumers scripts/compat/build.sh rebuilt (OUT/modules, those
# status.txt calls built) into DEST beside our modules, writes the modprobe.d
# file that blocks the in-tree RDMA modules neither we nor the rebuild
# provide (each with its reason), and says which were rebuilt and which stay
# blocked. Shared by make install and the DKMS hook; the caller runs depmod.
#   install.sh --kver KVER --out OUT --dest DEST --provided DIR --conf FILE
#   install.sh --dest DEST --uninstall
# DIR is the directory below which every module that modprobe should find
# for us lies (updates/ of the kernel), DEST one of its subdirectories.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
KVER="" out="" dest="" provided="" conf="" uninstall=0
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) KVER=$2; shift ;;
	--out) out=$2; shift ;;
	--dest) dest=$2; shift ;;
	--provided) provided=$2; shift ;;
	--conf) conf=$2; shift ;;
	--uninstall) uninstall=1 ;;
	*) echo "usage: $0 --kver KVER --out OUT --dest DEST --provided DIR --conf FILE | --dest DEST --uninstall" >&2
	   exit 2 ;;
	esac
	shift
done
[ -n "$dest" ] || { echo "compat/install: --dest missing" >&2; exit 2; }
rm -rf "$dest"
[ $uninstall = 1 ] && exit 0
[ -n "$KVER" ] && [ -n "$out" ] && [ -n "$provided" ] && [ -n "$conf" ] ||
	{ echo "compat/install: --kver, --out, --provided and --conf are needed" >&2; exit 2; }

status=$out/status.txt
mkdir -p "$dest" "$(dirname "$conf")"
rebuilt=""
if [ -r "$status" ]; then
	for m in $(awk -F'\t' '$2 == "built" { print $1 }' "$status"); do
		[ -f "$out/modules/$m.ko" ] || continue
		install -m 0644 "$out/modules/$m.ko" "$dest/"
		rebuilt="$rebuilt $m"
	done
else
	echo "rdma-kmod: no $status: no consumer was rebuilt"
fi
sh "$here/../blocklist.sh" --status "$status" "$KVER" "$provided" > "$conf"

echo "rdma-kmod: consumers rebuilt on our core for $KVER, in $dest:${rebuilt:- none}"
blocked=$(sed -n 's/^install \([^ ]*\) .*/\1/p' "$conf")
echo "rdma-kmod: in-tree RDMA modules that stay blocked ($(echo $blocked | wc -w), $conf):"
for m in $blocked; do
	# The reason as the block message gives it.
	sed -n "s/^install $m .*is not provided by rdma-kmod (\(.*\)); the in-tree one.*/  $m: \1/p" "$conf"
done
