#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Isolation (issue 13, item 4), with the stock kernel's answers:
# - an unprivileged user (setpriv to 65534, "nobody") cannot add, delete,
#   rename or move links, change the netns mode or a device setting (EPERM),
#   nor make, write or remove rdma_cm configfs entries (EACCES); nothing
#   changes for root.
# - /dev/infiniband/{uverbs0,rdma_cm} are 0666 root:root as the kernel makes
#   them on devtmpfs (the VM has no udev; rdma-core's udev rules leave the
#   same mode), so the checks below run as nobody through the real files.
# - another process's verbs handles used on one's own file get ENOENT
#   (write() and ioctl), its file cannot be opened through /proc (EACCES),
#   and its objects and memory stay as they were (tools/bin/uverbs_isolation).
# - a peer guessing rkeys (random, off by one, another PD's, a deregistered
#   one, an MR without remote access, a real one out of range) gets a remote
#   access error and the target's bytes stay the same (isolation_rkey.py), on
#   rxe0 and siw0.
# Namespaces: isolation_netns.sh.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

probe=$RDMA_KMOD_TOOLS/uverbs_isolation
[ -x "$probe" ] || die "$probe not built"
cfg=/sys/kernel/config/rdma_cm

# as_nobody CMD...: CMD as uid/gid 65534 without supplementary groups;
# its output (stdout and stderr) and exit status in $out/$rc.
as_nobody() {
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$@" 2>&1)
	rc=$?
}

# refused DESC WANT CMD...: CMD as nobody fails with an output matching WANT.
refused() {
	rd=$1 rw=$2
	shift 2
	as_nobody "$@"
	if [ $rc != 0 ] && printf '%s\n' "$out" | grep -q "$rw"; then
		ok "nobody: $rd refused"
	else
		bad "nobody: $rd (exit $rc, want '$rw')"
		printf '%s\n' "$out"
	fi
}

modprobe rdma_ucm || die "modprobe rdma_ucm"
rxe_up || die "rxe0 up"

# ---- device files as the kernel makes them
expect_eq "device files" "$(stat -c '%a %U:%G %n' /dev/infiniband/uverbs0 /dev/infiniband/rdma_cm)" \
	"666 root:root /dev/infiniband/uverbs0
666 root:root /dev/infiniband/rdma_cm"

# ---- netlink administration as nobody
before=$(rdma dev; rdma link; rdma system)
ip netns add t1 || die "ip netns add t1"
perm="Operation not permitted"
refused "rdma link add" "$perm" rdma link add rxe1 type rxe netdev eth0
refused "rdma link delete" "$perm" rdma link delete rxe0
refused "rdma dev set name" "$perm" rdma dev set rxe0 name evil0
refused "rdma dev set netns" "$perm" rdma dev set rxe0 netns t1
refused "rdma dev set adaptive-moderation" "$perm" rdma dev set rxe0 adaptive-moderation on
refused "rdma system set netns exclusive" "$perm" rdma system set netns exclusive
refused "rdma system set netns shared" "$perm" rdma system set netns shared
refused "rdma statistic qp set" "$perm" rdma statistic qp set link rxe0/1 auto type on
expect_eq "nothing changed for root" "$(rdma dev; rdma link; rdma system)" "$before"

# ---- rdma_cm configfs as nobody
acc="Permission denied"
refused "configfs mkdir" "$acc" mkdir $cfg/rxe0
mkdir $cfg/rxe0 || die "mkdir $cfg/rxe0"
p=$cfg/rxe0/ports/1
expect_eq "configfs modes" "$(stat -c '%a %U %n' $cfg/rxe0 $p $p/default_roce_mode $p/default_roce_tos)" \
	"755 root $cfg/rxe0
755 root $p
644 root $p/default_roce_mode
644 root $p/default_roce_tos"
refused "configfs default_roce_tos write" "$acc" sh -c "echo 32 >$p/default_roce_tos"
refused "configfs default_roce_mode write" "$acc" sh -c "echo 'IB/RoCE v1' >$p/default_roce_mode"
refused "configfs rmdir" "$acc" rmdir $cfg/rxe0
as_nobody cat $p/default_roce_tos
expect_eq "nobody reads default_roce_tos" "$rc $out" "0 0"
expect_eq "configfs values unchanged" "$(cat $p/default_roce_mode $p/default_roce_tos)" "RoCE v2
0"
rmdir $cfg/rxe0 || bad "rmdir $cfg/rxe0"

# ---- another process's verbs objects
want_foreign="child get_context: 0
write dealloc_pd(parent pd0): ENOENT
write dealloc_pd(parent pd1): ENOENT
write dereg_mr(parent mr): ENOENT
write reg_mr(on parent pd1): ENOENT
ioctl mr_destroy(parent mr): ENOENT
ioctl pd_destroy(parent pd1): ENOENT
open parent's uverbs fd via /proc: EACCES
parent: buffer unchanged
parent dereg_mr: 0
parent dealloc_pd(pd1): 0
parent dealloc_pd(pd0): 0"
expect_eq "nobody with root's handles" "$("$probe" foreign 65534 2>&1)" "$want_foreign"
expect_eq "root with root's handles" "$("$probe" foreign 2>&1 | grep -v /proc)" \
	"$(echo "$want_foreign" | grep -v /proc)"

# ---- rkey guessing, on rxe0 and siw0
# rkeys DEV: isolation_rkey.py on DEV's address; its lines in /tmp/rkey.DEV.
rkeys() {
	(cd /tmp && timeout 420 /usr/bin/python3 "$RDMA_KMOD_SRC/selftests/vm/isolation_rkey.py" \
		192.0.2.1) >/tmp/rkey.$1 2>&1 || bad "isolation_rkey.py on $1 (exit $?)"
	cat /tmp/rkey.$1
	grep -q "target exit 0" /tmp/rkey.$1 || bad "$1: target side failed"
	while read -r line; do
		case "$line" in
		"write control: SUCCESS, then SUCCESS; peer memory target written other-pd same no-access same; local control read ok" | \
		"read control: SUCCESS, then SUCCESS; peer memory untouched; local got target bytes")
			ok "$1: ${line%%:*} moves bytes" ;;
		*": REM_ACCESS_ERR, then WR_FLUSH_ERR; peer memory untouched; local unchanged" | \
		"write "*": SUCCESS, then $iwarp_write; peer memory untouched; local unchanged")
			ok "$1: ${line%%:*} refused, memory untouched" ;;
		"read "*": TIMEOUT, then -; peer memory untouched; local unchanged")
			# A READ the iWARP peer refused: upstream siw (the
			# stock stack's, built from linux-source) never
			# completes it; ours completes it with REM_ACCESS_ERR
			# when the Terminate arrives (the pattern above).
			if [ "$1" = siw0 ] && [ "$RDMA_KMOD_STACK" = stock ]; then
				ok "$1: ${line%%:*} refused, memory untouched"
			else
				bad "$1: $line"
			fi ;;
		"target exit 0") ;;
		*) bad "$1: $line" ;;
		esac
	done </tmp/rkey.$1
	expect_eq "$1: rounds" "$(grep -c ', then ' /tmp/rkey.$1)" 18
}
iwarp_write=none
rkeys rxe0
rdma link delete rxe0 || bad "link delete rxe0"
if siw_up; then
	# iWARP RDMA WRITEs are not acknowledged: the write completes when
	# sent, the peer's Terminate flushes what follows.
	iwarp_write=WR_FLUSH_ERR
	rkeys siw0
	rdma link delete siw0 || bad "link delete siw0"
elif [ "$RDMA_KMOD_STACK" = ours ]; then
	bad "siw0 up"
fi
ip netns del t1
finish
