#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 4 acceptance: librdmacm's tools in loopback on rxe0 (192.0.2.1 and
# 2001:db8::1), each server and client exiting 0: rping -C 100 (checks the
# data it exchanges with -v), ucmatose -c 20 (RC), udaddy (UD/SIDR), mckey
# (multicast joins), rdma_server/rdma_client, perftest -R (send/write/read
# bandwidth and latency). Also the rdma_cm char device itself, and a killed
# server whose ids the kernel must clean up. (qperf -cm1: verbs_qperf.sh.)
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

modprobe rdma_ucm || die "modprobe rdma_ucm"
rxe_up || die "rxe0 up"
ipv4_gid_index >/dev/null || die "IPv4 GID on rxe0"

# The device librdmacm opens: node, mode, ABI (ABI.md §5.1).
[ -c /dev/infiniband/rdma_cm ] && ok "/dev/infiniband/rdma_cm" ||
	bad "/dev/infiniband/rdma_cm missing"
set -- $(ls -l /dev/infiniband/rdma_cm 2>/dev/null)
expect_eq "rdma_cm mode" "${1:-}" "crw-rw-rw-"
read -r abi </sys/class/misc/rdma_cm/abi_version 2>/dev/null || abi=""
expect_eq "rdma_cm abi_version" "$abi" "4"

# Raw commands: framing, bad input, bind/query/resolve, migrate, close.
python3 "$RDMA_KMOD_SRC/selftests/vm/cm_ucma_abi.py" 192.0.2.1 ||
	bad "cm_ucma_abi.py ($? failures)"

a4=192.0.2.1
a6=2001:db8::1
pair "rping -C 100 IPv4" 300 rping -s -a $a4 -C 100 -v -- \
	rping -c -a $a4 -C 100 -v
pair "rping IPv6" 120 rping -s -a $a6 -C 10 -v -- rping -c -a $a6 -C 10 -v
pair "ucmatose" 120 ucmatose -b $a4 -- ucmatose -s $a4
pair "ucmatose -c 20" 300 ucmatose -b $a4 -c 20 -- ucmatose -s $a4 -c 20
pair "udaddy" 120 udaddy -b $a4 -- udaddy -s $a4
pair "rdma_server/rdma_client" 120 rdma_server -- rdma_client -s $a4
for t in ib_send_bw ib_write_bw ib_read_bw ib_send_lat ib_write_lat ib_read_lat; do
	pair "$t -R" 180 $t -d rxe0 -R -F -n 200 -- $t -d rxe0 -R -F -n 200 $a4
done

# mckey: a receiver joins the group, then a sender joins it and sends; the
# sender does not wait for receivers, so it starts once the receiver is in.
for g in "239.1.2.3 $a4" "ff0e::1:2 $a6"; do
	set -- $g
	stdbuf -oL timeout 120 mckey -m $1 -b $2 -C 20 >/tmp/mckey.rcv 2>&1 &
	rpid=$!
	wait_for /tmp/mckey.rcv "receiving data transfers" ||
		bad "mckey $1: receiver not ready"
	timeout 60 mckey -m $1 -b $2 -s -C 20 >/tmp/mckey.snd 2>&1
	src=$?
	wait $rpid
	rrc=$?
	if [ $src = 0 ] && [ $rrc = 0 ]; then
		ok "mckey $1"
	else
		bad "mckey $1 (sender $src, receiver $rrc)"
		cat /tmp/mckey.snd /tmp/mckey.rcv
	fi
done

# A listener killed with a pending connection-less id: the kernel must
# destroy its ids on close (the runner then unloads every module).
rping -s -a $a4 -C 1 >/dev/null 2>&1 &
kpid=$!
sleep 2
kill -9 $kpid 2>/dev/null
wait $kpid 2>/dev/null
# ...and the port is free again.
pair "rping after kill -9" 120 rping -s -a $a4 -C 2 -v -- \
	rping -c -a $a4 -C 2 -v

rdma link delete rxe0 || bad "link delete"
modprobe -r rdma_ucm || bad "rdma_ucm unload"
finish
