#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 14: NFS over RDMA in one VM, client and server on the same stack,
# over rxe0 and then over siw0 (the only RDMA device each time, so that
# rdma_cm picks it for our own address). The server as seed 002 §4.4 has
# it: nfsd with an RDMA listener on port 20049 (over rxe0 from nfs.conf's
# [nfsd] rdma=y, rdma-port=20049 through nfs-server.service's ExecStart,
# over siw0 written into its portlist), a tmpfs exported; the client
# mounts with `mount -o rdma,port=20049,vers=V` (over rxe0, NFSv4.2 with
# the seed's `mount -o rdma` alone) and `mount | grep` shows vers=V,
# proto=rdma, port=20049. Per NFS version (3, 4.2): a real file tree (the headers of
# /usr/include/linux/netfilter, ~90 files in two levels) copied in, fio
# --verify=crc32c (NFSv3: direct I/O and 50 small files; NFSv4.2: buffered
# I/O), and under NFSv4.2 a large file (256 MiB over rxe0; 32 MiB over
# siw0 and on a slow kernel);
# after a remount (nothing cached) the tree is compared byte for byte and
# the large file by its md5. Under NFSv4.2 the backchannel both ways
# (selftests/nfs.sh): nfsd's callback path UP, a read delegation recalled
# by a local write and returned, no BIND_CONN_TO_SESSION. The server's
# svc_rdma counters must have moved. Then nfsd stops and rpcrdma unloads.
# Each round prints its time.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nfs.sh"

tf=${RDMA_KMOD_TIME_FACTOR:-1}
exp=/tmp/nfsexp m=/mnt/nfs tree=/usr/include/linux/netfilter ip=192.0.2.1

modprobe rpcrdma || die "modprobe rpcrdma"
need_module rpcrdma
echo "rpcrdma: $(modinfo -n rpcrdma)"

# fio_check NAME ARGS...: one fio job that writes, then verifies what it
# reads back (crc32c in each block); fails on any error or mismatch.
fio_check() {
	fc_name=$1
	shift
	if timeout $((300 * tf)) fio --name="$fc_name" --directory="$m" --ioengine=psync \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 \
		--output=/tmp/fio.out "$@"; then
		ok "fio $fc_name: written and verified"
	else
		bad "fio $fc_name"
		tail -15 /tmp/fio.out
	fi
}

# nfs_round DEV VERS: one mount of NFS version VERS over DEV
nfs_round() {
	dev=$1 v=$2 t0=$(date +%s)
	bigsz=33554432
	[ "$dev" = rxe0 ] && ! slow_kernel && bigsz=268435456
	src=$(nfs_src $ip $exp "$v")
	opts=rdma,port=20049,vers=$v
	[ "$v" = 3 ] && opts=$opts,nolock
	# seed 002 section 4.4's mount word for word: port 20049 and the
	# newest version are the defaults
	[ "$dev$v" = rxe04.2 ] && opts=rdma
	echo "--- NFSv$v over $dev"
	if ! timeout $((120 * tf)) mount -o "$opts" "$src" $m; then
		bad "$dev NFSv$v: mount -o $opts $src"
		dmesg | tail -5
		return
	fi
	mount | grep -q " on $m type nfs.*vers=$v,.*proto=rdma,port=20049," &&
		ok "$dev NFSv$v: mount shows vers=$v, proto=rdma, port=20049" ||
		bad "$dev NFSv$v: mount shows $(mount | grep " on $m ")"
	d=$m/v$v
	mkdir -p $d/tree
	cp -r $tree/. $d/tree/ || bad "$dev NFSv$v: copy the tree"
	if [ "$v" = 3 ]; then
		fio_check "v$v-direct" --filename_format="v$v/\$jobname" --rw=write --bs=64k \
			--size=16m --direct=1
		fio_check "v$v-small" --filename_format="v$v/\$jobname.\$filenum" --rw=write \
			--bs=1k --nrfiles=50 --filesize=1k-32k --direct=0
	else
		fio_check "v$v-buffered" --filename_format="v$v/\$jobname" --rw=randwrite \
			--bs=4k --size=4m --direct=0
	fi
	bigsum=""
	[ "$v" = 4.2 ] && bigsum=$(head -c $bigsz /dev/urandom | tee $d/big | md5sum)
	timeout $((60 * tf)) umount $m || { bad "$dev NFSv$v: umount after writing"; return; }
	# read back from the server, not from this page cache
	if ! timeout $((120 * tf)) mount -o "$opts" "$src" $m; then
		bad "$dev NFSv$v: remount"
		return
	fi
	diff -r $tree $d/tree >/tmp/diff.out 2>&1 &&
		ok "$dev NFSv$v: the tree read back equals $tree" ||
		{ bad "$dev NFSv$v: the tree differs"; head -5 /tmp/diff.out; }
	[ -z "$bigsum" ] || expect_eq "$dev NFSv$v: $bigsz bytes read back (md5)" \
		"$(md5sum < $d/big)" "$bigsum"
	timeout $((60 * tf)) umount $m && ok "$dev NFSv$v: umount" || bad "$dev NFSv$v: umount"
	[ "$v" = 4.2 ] && nfs_callbacks_mount $m "$opts" "$src" v4.2/deleg
	echo "round time: $dev NFSv$v $(($(date +%s) - t0)) s"
}

mkdir -p $m
for dev in rxe0 siw0; do
	nfs_dev_up $dev || { bad "$dev up"; continue; }
	# a write resets a counter: these count this device's round only
	for c in recv read write; do echo 0 > /proc/sys/sunrpc/svc_rdma/rdma_stat_$c; done
	# rxe0's nfsd as the seed has it (nfs.conf), siw0's by its portlist
	via_conf=0
	[ $dev = rxe0 ] && via_conf=1
	if NFS_VIA_CONF=$via_conf nfs_server_up $exp $ip 400m; then
		ok "nfsd on $dev: rdma 20049 in portlist (from nfs.conf: $via_conf)"
		for v in 3 4.2; do
			nfs_round $dev $v
			mountpoint -q $m && umount -l $m
		done
		for c in recv read write; do
			n=$(cat /proc/sys/sunrpc/svc_rdma/rdma_stat_$c)
			[ "${n:-0}" -gt 0 ] && ok "$dev: rdma_stat_$c $n" || bad "$dev: rdma_stat_$c did not move"
		done
	else
		bad "nfsd with an rdma listener on $dev"
	fi
	nfs_server_down
	rdma link delete $dev || bad "rdma link delete $dev"
done
nfs_unload
finish
