# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# An NFS server with an RDMA listener for the VM selftests (sourced after
# lib.sh, not run). The host root is read-only: nfsd's state goes to a
# tmpfs /var/lib/nfs and the export is handed to exportfs directly, not
# through /etc/exports. ../shared/reference/ULP.md §7 has the facts.

NFS_TF=${RDMA_KMOD_TIME_FACTOR:-1}

nfs_wait_for_rpcbind() {
	for _ in $(seq $((20 * NFS_TF))); do
		rpcinfo -p 127.0.0.1 >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}

# nfs_say CMD...: CMD, naming it when it fails
nfs_say() {
	"$@" || { echo "failed: $*"; return 1; }
}

# nfs_server_up DIR CLIENT SIZE: nfsd exporting a tmpfs of SIZE on DIR to
# CLIENT (an address or *), its RDMA listener on port 20049. fsid=0 makes
# DIR the NFSv4 root (v4 mounts "/"): a pseudo root built over the VM's
# 9p root would not export. NFSv3 mounts DIR. Grace periods of 10 s,
# lockd's too: nfsd hands out no delegation while one runs.
# NFS_VIA_CONF=1: the listener as seed 002 section 4.4 opens it, from
# /etc/nfs.conf's [nfsd] rdma and rdma-port (a file bind-mounted over the
# read-only one) read by nfs-server.service's own ExecStart; else nfsd
# starts with 4 threads and "rdma 20049" is written into its portlist.
nfs_server_up() {
	NFS_EXPORT=$1
	mkdir -p "$1" && nfs_say mount -t tmpfs -o "size=$3" tmpfs "$1" || return 1
	nfs_say mount -t tmpfs tmpfs /var/lib/nfs || return 1
	mkdir -p /var/lib/nfs/v4recovery /var/lib/nfs/sm /run/rpcbind
	: > /var/lib/nfs/etab
	: > /var/lib/nfs/rmtab
	nfs_say modprobe nfsd || return 1
	mountpoint -q /proc/fs/nfsd || nfs_say mount -t nfsd nfsd /proc/fs/nfsd || return 1
	echo 10 > /proc/fs/nfsd/nfsv4leasetime
	echo 10 > /proc/fs/nfsd/nfsv4gracetime
	echo 10 > /proc/sys/fs/nfs/nlm_grace_period
	rpcbind -f &
	NFS_RPCBIND_PID=$!
	nfs_say nfs_wait_for_rpcbind || return 1
	nfs_say exportfs -i -o rw,no_root_squash,insecure,no_subtree_check,fsid=0 "$2:$1" ||
		return 1
	rpc.mountd -F &
	NFS_MOUNTD_PID=$!
	if [ "${NFS_VIA_CONF:-0}" = 1 ]; then
		nfs_via_conf || return 1
	else
		nfs_say rpc.nfsd 4 || return 1
		echo "rdma 20049" > /proc/fs/nfsd/portlist ||
			{ echo "failed: rdma 20049 into portlist"; return 1; }
	fi
	echo "portlist: $(tr '\n' ' ' < /proc/fs/nfsd/portlist)"
	grep -q '^rdma 20049$' /proc/fs/nfsd/portlist
}

nfs_via_conf() {
	printf '[nfsd]\nthreads=4\nrdma=y\nrdma-port=20049\n' > /tmp/nfs.conf
	nfs_say mount --bind /tmp/nfs.conf /etc/nfs.conf || return 1
	nvc_cmd=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/nfs-server.service)
	echo "nfs-server.service: $nvc_cmd"
	$nvc_cmd
	nvc_rc=$?
	umount /etc/nfs.conf
	[ $nvc_rc = 0 ] || { echo "failed: $nvc_cmd"; return 1; }
}

nfs_server_down() {
	rpc.nfsd 0 || bad "rpc.nfsd 0"
	exportfs -ua
	[ -n "${NFS_MOUNTD_PID:-}" ] && kill "$NFS_MOUNTD_PID"
	[ -n "${NFS_RPCBIND_PID:-}" ] && kill "$NFS_RPCBIND_PID"
	wait 2>/dev/null
	umount /proc/fs/nfsd
	umount "$NFS_EXPORT"
	umount /var/lib/nfs
}

# nfs_src SERVER DIR VERS: what a mount of DIR, exported by nfs_server_up,
# names for NFS version VERS
nfs_src() {
	case $3 in
	3) echo "$1:$2" ;;
	*) echo "$1:/" ;;
	esac
}

# nfs_dev_up DEV: rxe0 or siw0 on eth0 (the one-VM tests' rounds)
nfs_dev_up() {
	case $1 in
	rxe0) rxe_up ;;
	siw0) siw_up ;;
	*) return 1 ;;
	esac
}

# nfs_unload: rpcrdma unloads once sunrpc's threads have freed the
# transports (after umount and nfsd stop); 20 s at most
nfs_unload() {
	for _ in $(seq $((40 * NFS_TF))); do
		modprobe -r rpcrdma 2>/dev/null && { ok "rpcrdma unloads"; return 0; }
		sleep 0.5
	done
	bad "rpcrdma still in use: $(cat /sys/module/rpcrdma/refcnt 2>/dev/null)"
}

# nfs_twovm_ready (two-VM tests): both VMs say whether rpcrdma is usable
# there; the test ends here if this one's is not (FAIL) or the peer's is
# not (a note); then rxe0 comes up.
nfs_twovm_ready() {
	ntr_state=ready
	( need_module rpcrdma ) || ntr_state=blocked
	wait_peer
	ntr_other=$(peer_exchange $ntr_state)
	[ $ntr_state = ready ] || die "rpcrdma not usable here"
	[ "$ntr_other" = ready ] ||
		{ echo "note: the peer cannot run it ($ntr_other)"; finish; exit; }
	rxe_up || die "rxe0 up"
}
