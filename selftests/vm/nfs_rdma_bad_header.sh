#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 14: malformed RPC-over-RDMA headers at nfsd's RDMA listener, over
# rxe0 then siw0. A client of our own (tools/bin/rpcrdma_bad_header.cpp, a
# raw rdma_cm connection, no kernel client) sends well-formed calls (inline,
# in a position-zero Read chunk, with a Reply chunk), then bad versions, bad
# procedures, a short header, cut and oversized chunk lists, and chunks
# longer than the memory behind them: each gets the stock server's answer
# (RDMA_ERROR, dropped, or the connection closed), the server still answers
# a NULL call after each, nothing outside the registered bytes is written,
# and svc_rdma's receive counter counts every message. Then a real mount
# still works and rpcrdma unloads. Runs on the stock stack too
# (run.sh --stack stock), which is where the expected answers come from.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nfs.sh"

tf=${RDMA_KMOD_TIME_FACTOR:-1}
exp=/tmp/nfsexp m=/mnt/nfs ip=192.0.2.1
tool=$RDMA_KMOD_TOOLS/rpcrdma_bad_header

modprobe rpcrdma || die "modprobe rpcrdma"
need_module rpcrdma
echo "rpcrdma: $(modinfo -n rpcrdma)"
mkdir -p $m
for dev in rxe0 siw0; do
	nfs_dev_up $dev || { bad "$dev up"; continue; }
	if ! nfs_server_up $exp $ip 16m; then
		bad "nfsd with an rdma listener on $dev"
		nfs_server_down
		rdma link delete $dev
		continue
	fi
	echo 0 > /proc/sys/sunrpc/svc_rdma/rdma_stat_recv
	timeout $((120 * tf)) $tool --wait $((5 * tf)) $ip 20049 > /tmp/bad.out 2>&1
	rc=$?
	sed "s/^\(ok:   \|FAIL: \)/\1$dev: /" /tmp/bad.out
	[ $rc = 0 ] && ok "$dev: every case as the stock server answers it" ||
		bad "$dev: rpcrdma_bad_header exit $rc"
	sent=$(sed -n 's/^messages sent: //p' /tmp/bad.out)
	recv=$(cat /proc/sys/sunrpc/svc_rdma/rdma_stat_recv)
	[ -n "$sent" ] && [ "$recv" -ge "$sent" ] &&
		ok "$dev: rdma_stat_recv $recv for $sent messages sent" ||
		bad "$dev: rdma_stat_recv $recv for ${sent:-?} messages sent"
	# the server still serves a kernel client
	if timeout $((120 * tf)) mount -o rdma,port=20049,vers=3,nolock $ip:$exp $m; then
		echo "after the bad headers on $dev" > $m/f
		umount $m && mount -o rdma,port=20049,vers=3,nolock $ip:$exp $m &&
			expect_eq "$dev: a mount after them writes and reads back" \
				"$(cat $m/f)" "after the bad headers on $dev"
		timeout $((60 * tf)) umount $m || bad "$dev: umount"
	else
		bad "$dev: mount after the bad headers"
	fi
	nfs_server_down
	rdma link delete $dev || bad "rdma link delete $dev"
done
nfs_unload
finish
