#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 12, item 4: 9P over RDMA. No Debian 12 package has a 9P server with
# an RDMA transport: diod 1.0.24 is built without it (no rdma in its
# --help, no libibverbs/librdmacm linked), nfs-ganesha's 9P/RDMA needs
# libmooshika, which Debian lacks. So 9pnet_rdma loads, and a mount with
# trans=rdma on rxe0 goes as far as it can without a server: address and
# route resolved, CQ, PD and QP made on rxe0, the connect refused (no
# listener on port 5640). The mount must fail with the stock kernel's
# errno and leave nothing behind: 9pnet_rdma unloads.
# On our stack 9pnet_rdma is the one scripts/compat/build.sh rebuilt.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

need_module 9pnet_rdma
rxe_up || die "rxe0 up"
modprobe 9pnet_rdma || die "modprobe 9pnet_rdma"
grep -q '^9pnet_rdma ' /proc/modules && ok "9pnet_rdma loaded" || bad "9pnet_rdma not loaded"
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
mkdir -p /tmp/p9
out=$(timeout 60 mount -t 9p -o trans=rdma,port=5640,version=9p2000.L "$mine" /tmp/p9 2>&1)
rc=$?
echo "mount: rc $rc: $out"
case "$out" in
*"Transport endpoint is not connected"*) ok "mount -t 9p -o trans=rdma without a server: ENOTCONN" ;;
*) bad "mount -t 9p -o trans=rdma: want ENOTCONN (the stock result)" ;;
esac
mountpoint -q /tmp/p9 && { bad "mounted"; umount /tmp/p9; }
# Nothing of the attempt stays on rxe0.
n=$(rdma resource show qp link rxe0 | grep -vc 'type GSI')
expect_eq "QPs left on rxe0 besides GSI" "$n" 0
modprobe -r 9pnet_rdma || bad "modprobe -r 9pnet_rdma"
rdma link delete rxe0 || bad "link delete"
finish
