#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Two-VM wire interop (issue 3): this VM (ours) and the peer (stock rxe by
# default) run the same steps in lockstep, each side once as server and
# once as client: rc and ud ping-pong, ib_write_bw, ib_read_bw,
# ib_atomic_bw. The programs check their own data; both ends must exit 0.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

modprobe rdma_rxe && modprobe ib_uverbs || die "modules"
rdma link add rxe0 type rxe netdev eth0 || die "rxe0"
gi=$(ipv4_gid_index) || die "no IPv4 GID"
i=0
until busybox ping -c 1 -W 1 "$RDMA_KMOD_PEER_IP" >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 60 ] || die "peer $RDMA_KMOD_PEER_IP unreachable"
done

# step NAME SERVER-ROLE TIMEOUT CMD...: the VM whose role is SERVER-ROLE
# runs CMD, the other runs CMD PEER_IP (retrying while the server is not
# listening yet).
step() {
	name=$1 srole=$2 t=$3
	shift 3
	if [ "$RDMA_KMOD_ROLE" = "$srole" ]; then
		side=server
		timeout "$t" "$@" >/tmp/step.out 2>&1
		rc=$?
	else
		side=client
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			sleep 1
			timeout "$t" "$@" "$RDMA_KMOD_PEER_IP" >/tmp/step.out 2>&1
			rc=$?
			[ $rc = 0 ] && break
			grep -qi "connect to" /tmp/step.out || break
		done
	fi
	if [ $rc = 0 ]; then
		ok "$name ($side on $RDMA_KMOD_STACK)"
	else
		bad "$name ($side on $RDMA_KMOD_STACK, exit $rc)"
		cat /tmp/step.out
	fi
}

for srole in server client; do
	step "rc_pingpong" $srole 60 ibv_rc_pingpong -d rxe0 -g "$gi" -n 100
	step "ud_pingpong" $srole 60 ibv_ud_pingpong -d rxe0 -g "$gi" -n 100
	step "ib_write_bw" $srole 120 ib_write_bw -d rxe0 -x "$gi" -n 200
	step "ib_read_bw" $srole 120 ib_read_bw -d rxe0 -x "$gi" -n 200
	step "ib_atomic_bw" $srole 120 ib_atomic_bw -d rxe0 -x "$gi" -n 200
done
sleep 2
rdma link delete rxe0 || bad "link delete"
finish
