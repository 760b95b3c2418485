#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# peer-stacks: stock
#
# Issue 14: NFS over RDMA with our rpcrdma as the SERVER transport. The VM
# of role client runs our stack here (--peer-stack stock), so it is the
# NFS server: svc_rdma sysctls checked (defaults, ranges), nfsd started on
# a tmpfs export with `echo rdma 20049 > /proc/fs/nfsd/portlist`. The stock
# peer mounts it with -o proto=rdma,port=20049 over rxe0, NFSv3 and then
# NFSv4.2: writes files, remounts, reads them back and compares; reads a
# file the server wrote; sends the md5 of everything it read, which the
# server compares with its own files. Files from 1 byte (inline calls and
# replies) to 1 MiB (the client's WRITE data in Read chunks, pulled with
# RDMA Read; READ data in Write chunks, RDMA Write); 70001 bytes has XDR
# padding. NFSv4.2 also needs the server's backchannel (RFC 8167,
# ulp/rpcrdma/svc_backchannel.c): nfsd's callback path to the peer must be
# UP, and a read delegation the peer holds on a file written here is
# recalled by a local write (CB_RECALL over our connection) and returned
# (DELEGRETURN), the peer never rebinding its connection for a callback
# path down (selftests/nfs.sh). Then nfsd stops, the server's recv, read
# and write counters must have moved and rpcrdma must unload.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nfs.sh"

tf=${RDMA_KMOD_TIME_FACTOR:-1}
exp=/tmp/nfsexp
sizes="1 1000 2900 70001 1048576"
versions="3 4.2"
nfs_server_role=client

# sysctl_checks: /proc/sys/sunrpc/svc_rdma as 6.1 has it (ULP.md 7.3).
sysctl_checks() {
	d=/proc/sys/sunrpc/svc_rdma
	expect_eq "svc_rdma defaults" \
		"$(cat $d/max_requests $d/max_req_size $d/max_outbound_read_requests)" \
		"$(printf '64\n4096\n16')"
	for kv in max_requests:3 max_requests:16385 max_req_size:4095 \
		  max_req_size:65537 max_outbound_read_requests:0 \
		  max_outbound_read_requests:256 rdma_stat_rq_poll:1; do
		if (echo "${kv#*:}" > "$d/${kv%%:*}") 2>/dev/null; then
			bad "${kv%%:*} took ${kv#*:}"
		else
			ok "${kv%%:*} refuses ${kv#*:}"
		fi
	done
	expect_eq "obsolete counter takes 0" \
		"$( (echo 0 > $d/rdma_stat_rq_poll) 2>&1; cat $d/rdma_stat_rq_poll)" 0
	echo 5 > $d/rdma_stat_recv
	expect_eq "a write resets rdma_stat_recv" "$(cat $d/rdma_stat_recv)" 0
}

# files_sum DIR VERS: md5 of the files of version VERS and the server's file.
files_sum() {
	# shellcheck disable=SC2046
	(cd "$1" && cat $(for s in $sizes; do echo "f${2}_$s"; done) srvfile) |
		md5sum | cut -d' ' -f1
}

# nfs_client_pass VERS: mount, write, remount, read back; prints the sum
# of what it read (none on failure) as its last line.
nfs_client_pass() {
	v=$1 m=/mnt/nfs
	opts="vers=$v,proto=rdma,port=20049,soft,timeo=150,retrans=2"
	src=$(nfs_src "$RDMA_KMOD_PEER_IP" $exp "$v")
	[ "$v" = 3 ] && opts="$opts,nolock"
	mkdir -p $m
	if ! timeout $((120 * tf)) mount -t nfs -o "$opts" "$src" $m; then
		bad "NFSv$v mount -o $opts"
		dmesg | tail -5
		sum=none
		return
	fi
	ok "NFSv$v mounted over RDMA"
	grep " $m nfs" /proc/mounts | grep -q "proto=rdma,port=20049" &&
		ok "NFSv$v: /proc/mounts says proto=rdma,port=20049" ||
		bad "NFSv$v: /proc/mounts: $(grep " $m " /proc/mounts)"
	for s in $sizes; do
		head -c "$s" /dev/urandom > "/tmp/f${v}_$s"
		cp "/tmp/f${v}_$s" "$m/f${v}_$s" || bad "NFSv$v: write $s bytes"
	done
	sync
	# read from the server, not from this page cache
	umount $m || bad "NFSv$v umount"
	timeout $((120 * tf)) mount -t nfs -o "$opts" "$src" $m ||
		{ bad "NFSv$v remount"; sum=none; return; }
	for s in $sizes; do
		cmp "/tmp/f${v}_$s" "$m/f${v}_$s" && ok "NFSv$v: $s bytes read back equal" ||
			bad "NFSv$v: $s bytes read back differ"
	done
	sum=$(files_sum $m "$v")
	umount $m && ok "NFSv$v umount" || bad "NFSv$v umount"
}

nfs_twovm_ready

if [ "$RDMA_KMOD_ROLE" = $nfs_server_role ]; then
	echo "--- NFS server on rxe0 ($RDMA_KMOD_STACK)"
	modprobe rpcrdma || die "modprobe rpcrdma"
	echo "rpcrdma: $(modinfo -n rpcrdma)"
	sysctl_checks
	st=fail
	if nfs_server_up $exp "$RDMA_KMOD_PEER_IP" 16m; then
		st=ready
		ok "nfsd: rdma 20049 in portlist"
		head -c 300001 /dev/urandom > $exp/srvfile
		echo original > $exp/deleg
	else
		bad "nfsd with an rdma listener"
	fi
	peer_exchange $st >/dev/null
	for v in $versions; do
		# the client's delegation open comes after this exchange
		[ "$v" = 4.2 ] && nfs_grace_over
		got=$(peer_exchange x)
		if [ "$st" = ready ] && [ -n "$got" ] && [ "$got" != none ]; then
			expect_eq "NFSv$v: what the peer read = this server's files" \
				"$got" "$(files_sum $exp "$v")"
		else
			bad "NFSv$v: the peer has no sum ($got)"
		fi
		[ "$v" = 4.2 ] && nfs_server_callbacks $exp/deleg
	done
	for c in recv read write; do
		n=$(cat /proc/sys/sunrpc/svc_rdma/rdma_stat_$c)
		[ "${n:-0}" -gt 0 ] && ok "rdma_stat_$c $n" ||
			bad "rdma_stat_$c did not move"
	done
	# until the client is done with us
	peer_barrier
	nfs_server_down
	nfs_unload
else
	echo "--- NFS client on rxe0 ($RDMA_KMOD_STACK)"
	t=$(peer_exchange x)
	for v in $versions; do
		sum=none
		if [ "$t" = ready ]; then
			nfs_client_pass "$v"
		else
			echo "note: the peer's nfsd is not up"
		fi
		peer_exchange "$sum" >/dev/null
		if [ "$v" = 4.2 ]; then
			cb_src=""
			[ "$t" = ready ] && cb_src=$(nfs_src "$RDMA_KMOD_PEER_IP" $exp 4.2)
			mkdir -p /mnt/nfs
			nfs_callbacks_mount /mnt/nfs \
				"vers=4.2,proto=rdma,port=20049,soft,timeo=150,retrans=2" "$cb_src" peer
		fi
	done
	# the NFSv4 client lets go of its transports in the background,
	# its last calls (DESTROY_SESSION...) answered by a server still up
	nfs_unload
	peer_barrier
fi
peer_barrier
rdma link delete rxe0 || bad "link delete rxe0"
finish
