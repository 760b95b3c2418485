#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# peer-stacks: stock
#
# Issue 14: our NFS/RDMA client (ulp/rpcrdma) against the stock kernel's
# nfsd over rxe. The peer (role server, stock) exports a tmpfs and opens
# RDMA port 20049 as seed 002 section 4.4 says (echo rdma 20049 >
# /proc/fs/nfsd/portlist); this VM (role client, ours) mounts it with -o
# rdma,port=20049, NFSv3 and then NFSv4.2: /proc/mounts must say proto=rdma
# and mountstats must have the 27-number "xprt: rdma" line; files are
# written, read back after a remount (nothing cached) and their md5 compared
# here and, through peer_exchange, with what the server's tmpfs holds.
# NFSv4.2 also needs the backchannel (RFC 8167,
# ulp/rpcrdma/xprt_backchannel.c): nfsd must report "callback state: UP" in
# /proc/fs/nfsd/clients/*/info (its CB_NULL probe was answered), and a read
# delegation this VM holds on a file the server wrote is recalled by a local
# write there (CB_RECALL), returned (DELEGRETURN counted in mountstats) and
# gone from nfsd's states, the callback state still UP. Then umount and
# rpcrdma unloads.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/nfs.sh"

export_dir=/tmp/export
mnt=/tmp/nfsmnt

tf=${RDMA_KMOD_TIME_FACTOR:-1}
# file sizes in bytes: odd ones cross page and rsize boundaries
sizes="1 3000 4096 65537 1048576"

# The stock side: nfsd over the host's nfs-kernel-server (selftests/nfs.sh)
# and a file for the delegation checks.
server_up() {
	nfs_say modprobe rpcrdma || return 1
	nfs_server_up $export_dir "*" 64m || return 1
	# written here, never over NFS: nothing but the client's read open
	# stands between it and a read delegation
	echo original > "$export_dir/deleg"
}

# sums DIR VERS: md5 of every test file of NFS version VERS, in one line;
# killed if a read hangs
sums() {
	# shellcheck disable=SC2016,SC2086
	timeout -s KILL $((120 * tf)) sh -c \
		'd=$1 v=$2; shift 2; for s; do md5sum < "$d/f$v.$s"; done' sums "$1" "$2" $sizes |
		tr -d ' -' | tr '\n' ,
}

# client_round VERS OPTS: one mount, write, remount, read back, umount
client_round() {
	vers=$1 opts=$2
	src=$(nfs_src "$RDMA_KMOD_PEER_IP" $export_dir "$vers")
	echo "--- NFSv$vers over rdma"
	mkdir -p $mnt /tmp/src
	if ! timeout -s KILL $((120 * tf)) mount -t nfs -o "$opts" "$src" $mnt; then
		bad "mount -o $opts"
		return 1
	fi
	ok "mount -o $opts"
	grep " $mnt nfs" /proc/mounts | grep -q 'proto=rdma' &&
		ok "/proc/mounts: proto=rdma" || bad "/proc/mounts: $(grep " $mnt " /proc/mounts)"
	# the transport offers 1 MiB as stock's does (the server's limit wins,
	# 256 KiB with 2 GiB): READ and WRITE beyond the inline size, in chunks
	rw=$(grep " $mnt nfs" /proc/mounts | grep -o 'rsize=[0-9]*,wsize=[0-9]*')
	rs=${rw%%,*}
	[ "${rs#rsize=}" -ge 65536 ] 2>/dev/null && [ "${rw#*,wsize=}" -ge 65536 ] &&
		ok "/proc/mounts: $rw" || bad "/proc/mounts: ${rw:-no rsize/wsize}"
	nf=$(awk -v m="$mnt" '$1 == "device" { on = ($5 == m) } on && $1 == "xprt:" && $2 == "rdma" { print NF - 2 }' \
		/proc/self/mountstats)
	expect_eq "mountstats xprt: rdma line has 27 numbers" "$nf" 27

	for s in $sizes; do
		head -c "$s" /dev/urandom > "/tmp/src/f$vers.$s"
		timeout -s KILL $((120 * tf)) cp "/tmp/src/f$vers.$s" "$mnt/f$vers.$s" ||
			bad "write f$vers.$s"
	done
	timeout -s KILL $((60 * tf)) sync
	timeout -s KILL $((60 * tf)) umount $mnt || { bad "umount after write"; return 1; }

	# a fresh mount: every byte read back comes over the wire
	if ! timeout -s KILL $((120 * tf)) mount -t nfs -o "$opts" "$src" $mnt; then
		bad "remount -o $opts"
		return 1
	fi
	want=$(sums /tmp/src "$vers")
	got=$(sums $mnt "$vers")
	expect_eq "NFSv$vers: files read back = files written" "$got" "$want"
	# peer_exchange swaps words: the sums go over, the verdict comes back
	peer_exchange "$want" >/dev/null
	expect_eq "NFSv$vers: server's files = files written" "$(peer_exchange x)" same
	grep -q "xprt:	rdma" /proc/self/mountstats && awk -v m="$mnt" \
		'$1 == "device" { on = ($5 == m) } on && $1 == "xprt:" { print "mountstats:", $0 }' \
		/proc/self/mountstats
	timeout -s KILL $((60 * tf)) umount $mnt && ok "umount NFSv$vers" || bad "umount NFSv$vers"
	[ "$vers" = 4.2 ] && nfs_callbacks_mount $mnt "$opts" "$src" peer
	return 0
}

# Nothing listens on RDMA port 20050: the mount fails (the kernel's first
# RPC is refused by the peer's CM) instead of hanging.
refused_mount() {
	echo "--- mount against a port nobody listens on"
	mkdir -p $mnt
	if timeout -s KILL $((90 * tf)) mount -t nfs -o rdma,port=20050,vers=4.2,retry=0 \
		"$(nfs_src "$RDMA_KMOD_PEER_IP" $export_dir 4.2)" $mnt >/tmp/refused.out 2>&1; then
		bad "mount on port 20050 succeeded"
		umount $mnt
	elif [ $? = 137 ]; then
		bad "mount on port 20050 hung"
	else
		ok "mount on port 20050 failed: $(tr '\n' ' ' </tmp/refused.out)"
	fi
}

# A mount killed while its transport resolves an address no one answers:
# the transport goes away with its connect worker, nothing leaks (the
# module unload at the end counts its users).
killed_mount() {
	echo "--- mount killed while connecting"
	mkdir -p $mnt
	mount -t nfs -o rdma,port=20049,vers=4.2,retry=0 192.0.2.99:/x $mnt >/dev/null 2>&1 &
	mpid=$!
	sleep 2
	kill -9 $mpid 2>/dev/null
	wait $mpid
	mountpoint -q $mnt && bad "unreachable mount mounted" || ok "mount killed while connecting"
}

# rxe0 deleted under an idle NFSv3 mount: the CM's DEVICE_REMOVAL makes
# the transport close, so the delete completes instead of waiting forever
# for our cm_id.
device_removed_while_mounted() {
	echo "--- rxe0 deleted while mounted"
	if ! timeout -s KILL $((120 * tf)) mount -t nfs \
		-o rdma,port=20049,vers=3,nolock,mountproto=tcp,soft,retrans=1,timeo=50 \
		"$(nfs_src "$RDMA_KMOD_PEER_IP" $export_dir 3)" $mnt; then
		bad "mount before device removal"
		return
	fi
	ls $mnt >/dev/null || bad "ls before device removal"
	if timeout -s KILL $((120 * tf)) rdma link delete rxe0; then
		ok "rdma link delete rxe0 under a mount"
	else
		bad "rdma link delete rxe0 under a mount (exit $?)"
	fi
	dmesg | grep -q 'rpcrdma: removing device rxe0' &&
		ok "log: rpcrdma: removing device rxe0" || bad "no 'removing device' log line"
	timeout -s KILL $((60 * tf)) umount -f -l $mnt || bad "umount -f -l after device removal"
}

wait_peer
if [ "$RDMA_KMOD_ROLE" = server ]; then
	other=$(peer_exchange ready)
	[ "$other" = ready ] || { echo "note: the client is not ready ($other)"; finish; exit; }
	rxe_up || die "rxe0 up"
	state=ready
	server_up || state=fail
	[ $state = ready ] && ok "nfsd: rdma 20049 in portlist" || bad "nfsd server setup"
	peer_exchange $state >/dev/null
	[ $state = ready ] || { nfs_server_down; die "nfsd not up, the client gave up"; }
	for vers in 3 4.2; do
		# the client's delegation open comes after this exchange
		[ "$vers" = 4.2 ] && nfs_grace_over
		got=$(peer_exchange x)
		[ "$got" = none ] && { peer_exchange x >/dev/null; continue; }
		mine=$(sums $export_dir "$vers")
		if [ "$got" = "$mine" ]; then
			peer_exchange same >/dev/null
		else
			echo "server holds: $mine"
			peer_exchange differ >/dev/null
		fi
		[ "$vers" = 4.2 ] && nfs_server_callbacks "$export_dir/deleg"
	done
	peer_barrier
	nfs_server_down
	rdma link delete rxe0 || bad "link delete rxe0"
else
	mine=ready
	rxe_up || mine=no-rxe0
	[ $mine = ready ] && { modprobe rpcrdma || mine=no-rpcrdma; }
	peer_exchange $mine >/dev/null
	[ $mine = ready ] || die "client setup: $mine"
	# ulp/rpcrdma as this run installed it (built for the kernel booted)
	from_updates rpcrdma && is_build rpcrdma "$(modinfo -n rpcrdma)" &&
		modinfo -F description rpcrdma | grep -q rdma-kmod &&
		ok "rpcrdma loaded is ulp/rpcrdma's" || bad "rpcrdma loaded is not ulp/rpcrdma's"
	[ -r /proc/sys/sunrpc/rdma_slot_table_entries ] &&
		expect_eq "rdma_max_inline_read default" \
			"$(cat /proc/sys/sunrpc/rdma_max_inline_read)" 4096
	state=$(peer_exchange ready)
	[ "$state" = ready ] || die "the peer's nfsd is not up ($state)"
	refused_mount
	killed_mount
	for round in "3 rdma,port=20049,vers=3,nolock,mountproto=tcp" "4.2 rdma,port=20049,vers=4.2"; do
		# shellcheck disable=SC2086
		set -- $round
		if ! client_round "$1" "$2"; then
			# keep the server's count of exchanges in step
			peer_exchange none >/dev/null
			peer_exchange x >/dev/null
		fi
		mountpoint -q $mnt && umount -l $mnt
	done
	device_removed_while_mounted
	peer_barrier
	# the last transport goes away in sunrpc's work after umount returns
	n=0
	until modprobe -r rpcrdma 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt $((30 * tf)) ] || break
		sleep 1
	done
	[ -d /sys/module/rpcrdma ] && bad "modprobe -r rpcrdma: $(cat /sys/module/rpcrdma/refcnt) users" ||
		ok "rpcrdma unloaded"
	[ -d /sys/class/infiniband/rxe0 ] && { rdma link delete rxe0 || bad "link delete rxe0"; }
fi
finish
