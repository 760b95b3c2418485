#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest side of `make bench` for NFS (issue 14): fio over NFSv4.2 in
# loopback on rxe0, through rpcrdma (`-o rdma,port=20049`) and then through
# TCP on the same addresses as the yardstick; nfsd exports a tmpfs
# (selftests/nfs.sh). Sequential write and read of 1 MiB blocks and random
# 4 KiB reads and writes, all direct I/O (no client page cache). One line
# per result, as perf.sh has them:
#   BENCH <test> <bytes> <MB/s> <mean completion latency, usec>
# (4 KiB IOPS = MB/s * 10^6 / 4096.)
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nfs.sh"
. "$RDMA_KMOD_SRC/selftests/bench/fio.sh"

ip=192.0.2.1 exp=/tmp/nfsexp m=/mnt/nfs
rxe_up || exit 1
modprobe rpcrdma || exit 1
nfs_server_up $exp $ip 400m > /dev/null || exit 1
mkdir -p $m

# nfs_fio NAME BYTES FIO-ARGS...: fio_bench (fio.sh), one job on the mount;
# --directory before --filename: fio places a file as it parses its name
nfs_fio() {
	nf_name=$1 nf_bs=$2
	shift 2
	fio_bench "$nf_name" "$nf_bs" --directory=$m --ioengine=psync "$@"
}

for proto in rdma tcp; do
	opts=vers=4.2,proto=$proto
	[ $proto = rdma ] && opts=$opts,port=20049
	timeout 120 mount -t nfs -o $opts $ip:/ $m || { echo "BENCH nfs_${proto}_mount - - -"; continue; }
	nfs_fio nfs_${proto}_seqwrite 1048576 --rw=write --size=128m --filename=seq
	nfs_fio nfs_${proto}_seqread 1048576 --rw=read --size=128m --filename=seq
	nfs_fio nfs_${proto}_randwrite 4096 --rw=randwrite --size=32m --filename=rand \
		--time_based --runtime=$BENCH_SECONDS
	nfs_fio nfs_${proto}_randread 4096 --rw=randread --size=32m --filename=rand \
		--time_based --runtime=$BENCH_SECONDS
	rm -f $m/seq $m/rand
	umount $m
done
nfs_server_down > /dev/null 2>&1
rdma link delete rxe0
