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
wait_peer

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
