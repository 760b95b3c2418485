#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 3 acceptance: the libibverbs example programs in loopback on rxe0,
# with the RoCE v2 IPv4 GID (-g), each server and client exiting 0 (they
# check the bytes they exchange). Also over the IPv6 GID.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

rxe_up || { bad "rxe0 up"; finish; exit; }
sleep 1
g4=$(gid_index_of 0000:0000:0000:0000:0000:ffff:c000:0201)
g6=$(gid_index_of 2001:0db8:0000:0000:0000:0000:0000:0001)
echo "GID index IPv4 $g4, IPv6 $g6"

# A slow kernel (the debug one: rxe moves a thirtieth of the bytes) runs
# a tenth of the iterations: the paths are the same, and under load the
# full counts ran out of time there (rc 64 KiB x 1000, srq -e).
n="" nbig=1000
slow_kernel && n="-n 100" nbig=100
o="-d rxe0 -g $g4 $n"
pair "rc_pingpong" 60 ibv_rc_pingpong $o -- ibv_rc_pingpong $o 127.0.0.1
pair "rc_pingpong -e" 60 ibv_rc_pingpong $o -e -- ibv_rc_pingpong $o -e 127.0.0.1
ob="-d rxe0 -g $g4 -s 65536 -n $nbig"
pair "rc_pingpong -s 65536 -n $nbig" 180 ibv_rc_pingpong $ob -- ibv_rc_pingpong $ob 127.0.0.1
pair "uc_pingpong" 60 ibv_uc_pingpong $o -- ibv_uc_pingpong $o 127.0.0.1
pair "ud_pingpong" 60 ibv_ud_pingpong $o -- ibv_ud_pingpong $o 127.0.0.1
pair "srq_pingpong" 60 ibv_srq_pingpong $o -- ibv_srq_pingpong $o 127.0.0.1
pair "srq_pingpong -e" 60 ibv_srq_pingpong $o -e -- ibv_srq_pingpong $o -e 127.0.0.1
o6="-d rxe0 -g $g6 $n"
pair "rc_pingpong IPv6 GID" 60 ibv_rc_pingpong $o6 -- ibv_rc_pingpong $o6 127.0.0.1

rdma link delete rxe0 || bad "link delete"
finish
