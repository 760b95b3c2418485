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

ip=192.0.2.1 exp=/tmp/nfsexp m=/mnt/nfs
rxe_up || exit 1
modprobe rpcrdma || exit 1
nfs_server_up $exp $ip 400m > /dev/null || exit 1
mkdir -p $m

# fio_bench NAME BYTES FIO-ARGS...: one job on the mount, its BENCH line
fio_bench() {
	fb_name=$1 fb_bs=$2
	shift 2
	timeout 300 fio --name=bench --directory=$m --ioengine=psync --direct=1 \
		--bs="$fb_bs" --output-format=json --output=/tmp/fio.json "$@" > /dev/null 2>&1
	python3 - "$fb_name" "$fb_bs" <<'PY'
import json, sys
name, bs = sys.argv[1], sys.argv[2]
try:
    job = json.load(open("/tmp/fio.json"))["jobs"][0]
except (OSError, ValueError, KeyError, IndexError):
    print("BENCH %s %s - -" % (name, bs))
    sys.exit(0)
side = job["write"] if job["write"]["io_bytes"] else job["read"]
mbs = side["bw_bytes"] / 1e6
lat = side["clat_ns"]["mean"] / 1000.0
print("BENCH %s %s %.1f %.1f" % (name, bs, mbs, lat))
PY
}

for proto in rdma tcp; do
	opts=vers=4.2,proto=$proto
	[ $proto = rdma ] && opts=$opts,port=20049
	timeout 120 mount -t nfs -o $opts $ip:/ $m || { echo "BENCH nfs_${proto}_mount - - -"; continue; }
	fio_bench nfs_${proto}_seqwrite 1048576 --rw=write --size=128m --filename=seq
	fio_bench nfs_${proto}_seqread 1048576 --rw=read --size=128m --filename=seq
	fio_bench nfs_${proto}_randwrite 4096 --rw=randwrite --size=32m --filename=rand \
		--time_based --runtime=15
	fio_bench nfs_${proto}_randread 4096 --rw=randread --size=32m --filename=rand \
		--time_based --runtime=15
	rm -f $m/seq $m/rand
	umount $m
done
nfs_server_down > /dev/null 2>&1
rdma link delete rxe0
