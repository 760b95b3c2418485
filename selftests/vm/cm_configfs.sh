#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Seed 002 §2.2 on our stack: configfs rdma_cm/<dev>/ports/N/
# {default_roce_mode,default_roce_tos} (ABI.md §7). mkdir for an existing
# device, the defaults, the accepted strings, EINVAL for anything else,
# ENODEV for an unknown device, rdma_cm pinned while a directory exists,
# the files of a removed device failing (ENODEV) until the device is back,
# rmdir. The same script passes on the stock stack, where rxe is RoCE v2
# only and "IB/RoCE v1" is refused; ours accepts it where the port has
# RoCE v1 GIDs.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

cfg=/sys/kernel/config/rdma_cm
# Only the configfs directory may pin rdma_cm here (no rdma_ucm from an
# earlier test).
modprobe -r rdma_ucm 2>/dev/null
modprobe rdma_cm || die "modprobe rdma_cm"
rxe_up || die "rxe0 up"
[ -d $cfg ] || die "$cfg missing (configfs mounted? rdma_cm loaded?)"

mkdir $cfg/rxe0/ && ok "mkdir rdma_cm/rxe0" || die "mkdir rdma_cm/rxe0"
p=$cfg/rxe0/ports/1
set -- $cfg/rxe0/ports/*
expect_eq "ports/" "$*" "$cfg/rxe0/ports/1"
read -r mode <$p/default_roce_mode
expect_eq "default_roce_mode" "$mode" "RoCE v2"
read -r tos <$p/default_roce_tos
expect_eq "default_roce_tos" "$tos" "0"

# "IB/RoCE v1" is accepted only if the port has RoCE v1 GIDs.
v1=0
for f in /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/*; do
	read -r t <"$f" 2>/dev/null || continue
	[ "$t" = "IB/RoCE v1" ] && v1=1 && break
done
if echo "IB/RoCE v1" >$p/default_roce_mode 2>/dev/null; then r=ok; else r=refused; fi
read -r mode <$p/default_roce_mode
if [ $v1 = 1 ]; then
	expect_eq "IB/RoCE v1 on a v1+v2 port" "$r $mode" "ok IB/RoCE v1"
else
	expect_eq "IB/RoCE v1 on a v2-only port" "$r $mode" "refused RoCE v2"
fi
printf 'RoCE v2' >$p/default_roce_mode && read -r mode <$p/default_roce_mode
expect_eq "RoCE v2 without newline" "$mode" "RoCE v2"
for s in "bogus" "roce v2" "RoCE v2 " "IB/RoCE v1x" ""; do
	if printf '%s\n' "$s" >$p/default_roce_mode 2>/dev/null; then
		bad "'$s' accepted"
	else
		ok "'$s' refused"
	fi
done
read -r mode <$p/default_roce_mode
expect_eq "mode unchanged by refused writes" "$mode" "RoCE v2"

for v in "32 32" "0x40 64" "010 8" "255 255" "0 0"; do
	set -- $v
	echo "$1" >$p/default_roce_tos && read -r tos <$p/default_roce_tos
	expect_eq "default_roce_tos $1" "$tos" "$2"
done
for v in 256 -1 abc; do
	echo "$v" >$p/default_roce_tos 2>/dev/null && bad "tos '$v' accepted" ||
		ok "tos '$v' refused"
done

if mkdir $cfg/nosuch0 2>/tmp/mkdir.err; then
	bad "mkdir of an unknown device"
	rmdir $cfg/nosuch0
else
	grep -q "No such device" /tmp/mkdir.err && ok "unknown device: ENODEV" ||
		bad "unknown device: $(cat /tmp/mkdir.err)"
fi
rmmod rdma_cm 2>/dev/null && bad "rdma_cm unloaded under a configfs directory" ||
	ok "rdma_cm pinned by its configfs directory"

# The device goes: its files answer ENODEV (the directory an admin made
# stays until rmdir, as upstream); a device of that name comes back with
# its own defaults.
echo 32 >$p/default_roce_tos
rdma link delete rxe0 || bad "link delete"
if cat $p/default_roce_mode >/dev/null 2>/tmp/cat.err; then
	bad "default_roce_mode readable without a device"
else
	grep -q "No such device" /tmp/cat.err && ok "removed device: ENODEV" ||
		bad "removed device: $(cat /tmp/cat.err)"
fi
rdma link add rxe0 type rxe netdev eth0 || bad "link re-add"
read -r tos <$p/default_roce_tos
expect_eq "re-added device has its own defaults" "$tos" "0"

rmdir $cfg/rxe0 && ok "rmdir" || bad "rmdir"
[ -e $cfg/rxe0 ] && bad "rxe0 still there after rmdir"
mkdir $cfg/rxe0 && rmdir $cfg/rxe0 && ok "mkdir/rmdir again" || bad "mkdir/rmdir again"
rdma link delete rxe0 || bad "link delete"
modprobe -r rdma_cm && ok "rdma_cm unloads" || bad "rdma_cm unload"
finish
