#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 12, item 4: 9P over RDMA on rxe0. No Debian 12 package has a 9P
# server with an RDMA transport (diod 1.0.24 is built without it: no rdma
# in its --help, no libibverbs/librdmacm linked; nfs-ganesha's 9P/RDMA
# needs libmooshika, which Debian lacks), so build/tools/p9_rdma_server, a
# minimal read-only 9P2000.L server of ours, plays the server.
# 1. Without a server: mount -t 9p -o trans=rdma resolves address and
#    route, makes CQ, PD and QP on rxe0, is refused, and must fail with the
#    stock kernel's ENOTCONN, leaving no QP behind.
# 2. Against p9_rdma_server: mount, ls, stat, the file's 300000 bytes
#    compared, umount; the server must see the client disconnect.
# Then 9pnet_rdma unloads. On our stack it is the one
# scripts/compat/build.sh rebuilt.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

need_module 9pnet_rdma
rxe_up || die "rxe0 up"
modprobe 9pnet_rdma || die "modprobe 9pnet_rdma"
grep -q '^9pnet_rdma ' /proc/modules && ok "9pnet_rdma loaded" || bad "9pnet_rdma not loaded"
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
opts=trans=rdma,port=5640,version=9p2000.L
mkdir -p /tmp/p9
out=$(timeout 60 mount -t 9p -o $opts "$mine" /tmp/p9 2>&1)
echo "mount without a server: $out"
case "$out" in
*"Transport endpoint is not connected"*) ok "mount -t 9p -o trans=rdma without a server: ENOTCONN" ;;
*) bad "mount -t 9p -o trans=rdma: want ENOTCONN (the stock result)" ;;
esac
mountpoint -q /tmp/p9 && { bad "mounted"; umount /tmp/p9; }
n=$(rdma resource show qp link rxe0 | grep -vc 'type GSI')
expect_eq "QPs left on rxe0 besides GSI" "$n" 0

srv=$RDMA_KMOD_TOOLS/p9_rdma_server
$srv --file >/tmp/p9.want
timeout 120 $srv "$mine" 5640 >/tmp/p9.srv 2>&1 &
spid=$!
wait_for /tmp/p9.srv listening || bad "p9_rdma_server did not start"
if timeout 60 mount -t 9p -o $opts "$mine" /tmp/p9; then
	ok "mount -t 9p -o $opts $mine"
	expect_eq "ls" "$(ls /tmp/p9)" hello
	expect_eq "stat size" "$(stat -c %s /tmp/p9/hello)" 300000
	cmp /tmp/p9/hello /tmp/p9.want && ok "300000 bytes read as served" || bad "file content"
	grep ' /tmp/p9 9p ' /proc/mounts | grep -q 'trans=rdma' && ok "/proc/mounts: trans=rdma" ||
		bad "/proc/mounts: $(grep ' /tmp/p9 ' /proc/mounts)"
	umount /tmp/p9 || bad "umount"
else
	bad "mount against p9_rdma_server"
fi
wait $spid && ok "server: client disconnected, no protocol error" || bad "p9_rdma_server"
cat /tmp/p9.srv
modprobe -r 9pnet_rdma || bad "modprobe -r 9pnet_rdma"
rdma link delete rxe0 || bad "link delete"
finish
