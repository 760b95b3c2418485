#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# peer-stacks: stock
#
# Issue 14: NFS over RDMA when things go wrong on the server's side. The VM
# of role client runs our stack (--peer-stack stock) and is the NFS server,
# the stock peer mounts it over rxe0 (NFSv3, hard: I/O waits for the server
# and resumes). A file written first must stay intact through all of it.
#  1. rxe0 deleted on the server while the peer writes 48 MiB (direct
#     I/O), added back 3 s later: the write resumes over a new connection
#     and the server's copy equals the peer's.
#  2. nfsd stopped (`rpc.nfsd 0`) while the peer writes, started again 3 s
#     later with its RDMA listener: the same.
#  3. A mount against port 20050, where nothing listens, fails with the
#     stock kernel's error (REJ from our rdma_cm) and no hang.
# Then nfsd stops and rpcrdma unloads. Runs with both VMs on the stock
# stack too (run.sh --stack stock --two-vm), where its expectations come
# from.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nfs.sh"

tf=${RDMA_KMOD_TIME_FACTOR:-1}
exp=/tmp/nfsexp m=/mnt/nfs
nfs_server_role=client
size=48

# wait_size FILE BYTES: until FILE holds at least BYTES (60 s at most)
wait_size() {
	for _ in $(seq $((300 * tf))); do
		[ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
		sleep 0.2
	done
	return 1
}

# server_fault NAME FILE CMD...: once the peer's write to FILE passed
# 8 MiB, CMD breaks the service and mends it; then compares the peer's
# md5 of what it wrote with the file here.
server_fault() {
	sf_name=$1 sf_file=$2
	shift 2
	peer_exchange go > /dev/null
	if wait_size "$sf_file" 8388608; then
		sf_at=$(stat -c %s "$sf_file")
		if "$@"; then
			ok "$sf_name at $sf_at of $((size << 20)) bytes, mended"
		else
			bad "$sf_name"
		fi
	else
		bad "$sf_name: the peer's write never passed 8 MiB"
	fi
	got=$(peer_exchange x)
	expect_eq "$sf_name: the server's copy is what the peer wrote" \
		"$(md5sum < "$sf_file" | cut -d' ' -f1)" "$got"
}

link_cycle() {
	rdma link delete rxe0 || return 1
	sleep 3
	rdma link add rxe0 type rxe netdev eth0
}

nfsd_cycle() {
	rpc.nfsd 0 || return 1
	sleep 3
	rpc.nfsd 4 || return 1
	echo "rdma 20049" > /proc/fs/nfsd/portlist
}

# client_write NAME FILE: writes $size MiB with direct I/O (each write
# goes to the server while the fault happens), prints its md5 to the peer
client_write() {
	cw_src=/tmp/src.$2
	head -c $((size << 20)) /dev/urandom > $cw_src
	peer_exchange x > /dev/null
	cw_t0=$(date +%s)
	if timeout $((300 * tf)) dd if=$cw_src of="$m/$2" bs=1M oflag=direct 2>/tmp/dd.err; then
		ok "$1: the write finished ($(($(date +%s) - cw_t0)) s)"
		peer_exchange "$(md5sum < $cw_src | cut -d' ' -f1)" > /dev/null
	else
		bad "$1: the write failed: $(tail -1 /tmp/dd.err)"
		peer_exchange failed > /dev/null
	fi
	rm -f $cw_src
}

nfs_twovm_ready

if [ "$RDMA_KMOD_ROLE" = $nfs_server_role ]; then
	echo "--- NFS server on rxe0 ($RDMA_KMOD_STACK)"
	modprobe rpcrdma || die "modprobe rpcrdma"
	echo "rpcrdma: $(modinfo -n rpcrdma)"
	st=fail
	if nfs_server_up $exp "$RDMA_KMOD_PEER_IP" 160m; then
		st=ready
	else
		bad "nfsd with an rdma listener"
	fi
	peer_exchange $st > /dev/null
	before=$(peer_exchange x)
	server_fault "rxe0 deleted mid-write" $exp/big1 link_cycle
	server_fault "nfsd stopped mid-write" $exp/big2 nfsd_cycle
	expect_eq "the file written before is intact" \
		"$(md5sum < $exp/before | cut -d' ' -f1)" "$before"
	# 3: the peer mounts port 20050
	peer_barrier
	nfs_server_down
	nfs_unload
else
	echo "--- NFS client on rxe0 ($RDMA_KMOD_STACK)"
	t=$(peer_exchange x)
	[ "$t" = ready ] || die "the peer's nfsd is not up"
	mkdir -p $m
	opts=vers=3,proto=rdma,port=20049,nolock,hard,timeo=50
	timeout $((120 * tf)) mount -t nfs -o $opts "$RDMA_KMOD_PEER_IP:$exp" $m ||
		die "mount -o $opts"
	head -c 1048577 /dev/urandom > $m/before
	peer_exchange "$(md5sum < $m/before | cut -d' ' -f1)" > /dev/null
	client_write "rxe0 deleted mid-write" big1
	client_write "nfsd stopped mid-write" big2
	# nothing cached: read back from the server after the faults
	umount $m && timeout $((120 * tf)) mount -t nfs -o $opts "$RDMA_KMOD_PEER_IP:$exp" $m ||
		bad "remount"
	[ -s $m/big1 ] && [ "$(stat -c %s $m/big1)" = $((size << 20)) ] &&
		ok "big1 reads back whole after a remount" || bad "big1 after a remount"
	umount $m || bad "umount"
	# 3: where nothing listens
	t0=$(date +%s)
	if timeout $((120 * tf)) mount -t nfs -o vers=3,proto=rdma,port=20050,nolock,retry=0 \
		"$RDMA_KMOD_PEER_IP:$exp" $m > /tmp/mount.err 2>&1; then
		bad "a mount of port 20050 succeeded"
		umount $m
	else
		echo "mount of port 20050: $(tr '\n' ' ' < /tmp/mount.err)"
		grep -q 'Connection refused' /tmp/mount.err &&
			ok "a mount of port 20050 fails: connection refused ($(($(date +%s) - t0)) s)" ||
			bad "a mount of port 20050: $(cat /tmp/mount.err)"
	fi
	peer_barrier
fi
peer_barrier
rdma link delete rxe0 || bad "link delete rxe0"
finish
