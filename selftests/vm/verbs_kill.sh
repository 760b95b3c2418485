#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kill -9 of both ib_write_bw ends mid-transfer releases every user object
# (rdma res: no ctx, pd, mr, user cq/qp left) and the device still works;
# the runner then proves that the modules unload.
. "$(dirname "$0")/../lib.sh"

rxe_up || die "rxe0 up"
gi=$(ipv4_gid_index) || die "no IPv4 GID"
ib_write_bw -d rxe0 -x "$gi" -s 65536 -n 100000 >/tmp/kill.srv 2>&1 &
spid=$!
sleep 1
ib_write_bw -d rxe0 -x "$gi" -s 65536 -n 100000 192.0.2.1 >/tmp/kill.cli 2>&1 &
cpid=$!
sleep 4
echo "before kill:"; rdma res show
kill -9 $cpid $spid
wait $cpid $spid 2>/dev/null
sleep 1
res=$(rdma res show)
echo "after kill: $res"
case "$res" in
*" ctx 0 "*) ok "no ucontext left" ;;
*) bad "ucontexts left" ;;
esac
case "$res" in
*" mr 0 "*) ok "no MR left" ;;
*) bad "MRs left" ;;
esac
users=$(rdma res show qp | grep -v 'comm \[' )
expect_eq "no user QP left" "$users" ""
# The device still carries traffic after the crash.
pair "rc_pingpong after kill" 60 ibv_rc_pingpong -d rxe0 -g "$gi" -n 20 -- \
	ibv_rc_pingpong -d rxe0 -g "$gi" -n 20 192.0.2.1
rdma link delete rxe0 || bad "link delete"
finish
