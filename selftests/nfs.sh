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
	NFS_UP_AT=$(date +%s)
	echo "portlist: $(tr '\n' ' ' < /proc/fs/nfsd/portlist)"
	grep -q '^rdma 20049$' /proc/fs/nfsd/portlist
}

# nfs_grace_over: returns once the grace periods that began with
# nfs_server_up's nfsd are over: nfsd grants no delegation while any runs,
# and lockd's (10 s, set above) cannot be ended early as nfsd's can.
nfs_grace_over() {
	ngo_left=$((${NFS_UP_AT:-0} + 12 - $(date +%s)))
	[ $ngo_left -le 0 ] || sleep $ngo_left
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

# The NFSv4.1+ backchannel (RFC 8167) seen from both ends: nfsd's callback
# path must be UP (its CB_NULL probe answered), and a read delegation the
# client holds is recalled (CB_RECALL) by a local write on the server and
# returned (DELEGRETURN). The two-VM tests run each half on its own side,
# nfs_local_callbacks both in one VM.

# nfs_cb_states: nfsd's "callback state" of each NFSv4 client it knows
nfs_cb_states() {
	cat /proc/fs/nfsd/clients/*/info 2>/dev/null | sed -n 's/^callback state: //p' | tr '\n' ' '
}

# nfs_cb_up: nfsd's callback path to some client comes UP (30 s at most).
# The verdict is on the states the loop read last: a client record going
# away (DOWN once its connection closed) may be all a second read sees.
nfs_cb_up() {
	for _ in $(seq $((30 * NFS_TF))); do
		ncu_st=$(nfs_cb_states)
		echo "$ncu_st" | grep -qw UP && break
		sleep 1
	done
	echo "$ncu_st" | grep -qw UP && ok "nfsd: callback state UP ($ncu_st)" ||
		bad "nfsd: callback state never UP ($ncu_st)"
}

# nfs_deleg_held NAME: nfsd lists a delegation of some client on a file
# named NAME (the last part of its path; nfsd shows the last two). Only
# that file: a client gives other delegations back lazily.
nfs_deleg_held() {
	grep -qsE "type: deleg,.* filename: \"([^\"]*/)?$1\"" /proc/fs/nfsd/clients/*/states
}

# nfs_recall FILE (server side, the client holding FILE open for reading):
# nfsd gave it a read delegation; a local write to FILE breaks it and
# completes only once the client has returned it (nfsd's laundromat would
# revoke it after a lease instead); nothing is left and the callback path
# is still UP.
nfs_recall() {
	nfs_deleg_held "${1##*/}" &&
		ok "nfsd: the client holds a read delegation on $1" ||
		bad "nfsd: no delegation granted on $1"
	if timeout -s KILL $((120 * NFS_TF)) sh -c "echo recalled >> $1"; then
		ok "local write to $1 completed (delegation recalled)"
	else
		bad "local write to $1 blocked: the delegation was never returned"
	fi
	# the return may still be on its way: a few seconds
	nr_n=0
	while nfs_deleg_held "${1##*/}" && [ $nr_n -lt $((10 * NFS_TF)) ]; do
		nr_n=$((nr_n + 1))
		sleep 1
	done
	if nfs_deleg_held "${1##*/}"; then
		bad "nfsd: a delegation on $1 is still held $nr_n s after the write"
		cat /proc/fs/nfsd/clients/*/states
	else
		ok "nfsd: no delegation left on $1 $nr_n s after the write"
	fi
	nr_st=$(nfs_cb_states)
	echo "$nr_st" | grep -qw UP && ok "nfsd: callback state still UP ($nr_st)" ||
		bad "nfsd: callback state after the recall: $nr_st"
}

# nfs_op_count MNT OP: the count of OP (DELEGRETURN, BIND_CONN_TO_SESSION...)
# in the mountstats of the mount on MNT (0 if not listed)
nfs_op_count() {
	awk -v m="$1" -v op="$2:" '$1 == "device" { on = ($5 == m) }
		on && $1 == op { n = $2 } END { print n + 0 }' /proc/self/mountstats
}

# nfs_hold_open FILE (client side): FILE open for reading in the
# background (an open file's delegation is never given back unasked);
# its holder's pid in nfs_holder. False if the open did not happen.
nfs_hold_open() {
	# shellcheck disable=SC2217 # the open is the point, not the reading
	sleep $((600 * NFS_TF)) < "$1" &
	nfs_holder=$!
	for _ in $(seq $((120 * NFS_TF))); do
		[ "$(readlink /proc/$nfs_holder/fd/0 2>/dev/null)" = "$1" ] && break
		sleep 0.5
	done
	[ "$(readlink /proc/$nfs_holder/fd/0 2>/dev/null)" = "$1" ] &&
		ok "$1 open for reading" || { bad "open of $1"; return 1; }
}

# nfs_returned MNT BEFORE (client side): the mount's DELEGRETURN count
# grows past BEFORE (30 s at most); the holder goes. A client whose
# callback path works never rebinds its connection for it
# (BIND_CONN_TO_SESSION, what it does after SEQ4_STATUS_CB_PATH_DOWN).
nfs_returned() {
	for _ in $(seq $((30 * NFS_TF))); do
		[ "$(nfs_op_count "$1" DELEGRETURN)" -gt "$2" ] && break
		sleep 1
	done
	nr_after=$(nfs_op_count "$1" DELEGRETURN)
	[ "$nr_after" -gt "$2" ] &&
		ok "DELEGRETURN after CB_RECALL ($2 -> $nr_after)" ||
		bad "no DELEGRETURN after the server's write ($2 -> $nr_after)"
	expect_eq "BIND_CONN_TO_SESSION calls (the callback path never went down)" \
		"$(nfs_op_count "$1" BIND_CONN_TO_SESSION)" 0
	kill "$nfs_holder" 2>/dev/null
	wait "$nfs_holder" 2>/dev/null
}

# nfs_server_callbacks FILE (two VMs, the server's half): once the peer
# says it holds FILE open ("opened"), the callback path UP and its recall;
# then "written" (or "skipped") back to the peer.
nfs_server_callbacks() {
	nsc_got=$(peer_exchange x)
	if [ "$nsc_got" != opened ]; then
		bad "the client's open of $1: $nsc_got"
		peer_exchange skipped >/dev/null
		return
	fi
	nfs_cb_up
	nfs_recall "$1"
	peer_exchange written >/dev/null
}

# nfs_client_callbacks MNT (two VMs, the client's half): MNT/deleg held
# open, "opened" (or "open-failed") to the server, which answers
# "written" once its local write went through; then its return.
nfs_client_callbacks() {
	ncc_before=$(nfs_op_count "$1" DELEGRETURN)
	if nfs_hold_open "$1/deleg"; then
		peer_exchange opened >/dev/null
	else
		peer_exchange open-failed >/dev/null
	fi
	ncc_got=$(peer_exchange x)
	[ "$ncc_got" = written ] || bad "the server's recall step: $ncc_got"
	nfs_returned "$1" "$ncc_before"
}

# nfs_callbacks_mount MNT OPTS SRC peer|PATH: the backchannel checks on a
# mount of their own (SRC on MNT with OPTS; none if SRC is empty): with
# "peer", the client's half (nfs_client_callbacks; the exchanges are made
# whatever fails, to stay in step with the server); with a PATH of the
# export, both halves in one VM (nfs_local_callbacks). A mount of their
# own: the reads of a round leave read delegations on other files.
nfs_callbacks_mount() {
	echo "--- NFSv4.2 backchannel: a delegation recalled"
	if [ -n "$3" ] && timeout -s KILL $((120 * NFS_TF)) mount -t nfs -o "$2" "$3" "$1"; then
		if [ "$4" = peer ]; then
			nfs_client_callbacks "$1"
		else
			nfs_local_callbacks "$1" "$4"
		fi
		timeout -s KILL $((60 * NFS_TF)) umount "$1" || bad "umount after the callback checks"
		return
	fi
	bad "NFSv4.2 mount for the callback checks"
	[ "$4" = peer ] || return
	peer_exchange open-failed >/dev/null
	peer_exchange x >/dev/null
}

# nfs_local_callbacks MNT PATH: both halves in one VM, on the file PATH
# of the export nfs_server_up made, MNT/PATH on the client's mount of it;
# written on the export, never over NFS: nothing but the client's read
# open stands between it and a read delegation
nfs_local_callbacks() {
	nfs_grace_over
	echo original > "$NFS_EXPORT/$2"
	nfs_cb_up
	nlc_before=$(nfs_op_count "$1" DELEGRETURN)
	nfs_hold_open "$1/$2" || return
	nfs_recall "$NFS_EXPORT/$2"
	nfs_returned "$1" "$nlc_before"
}
