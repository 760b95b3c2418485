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

# perftest_pair NAME LIMIT ADDR ARGS...: perftest's server (ARGS) and client
# (ARGS ADDR) over rdma_cm, each try a fresh pair. perftest -R connects
# twice, for its parameters and then for the QPs, and its server listens
# for the second only once the first is done: a client can come too early
# either time and be turned away. lib.sh's pair() then starts the client
# alone again, which is right the first time only: turned away the second
# time, the client leaves its server waiting on a connection whose other
# end is gone, and the next client waits with it until both are killed.
# Line-buffered, so that a pair killed at its limit shows how far it got.
# Output in /tmp/pair.srv and /tmp/pair.cli.
perftest_pair() {
	pp_name=$1 pp_limit=$2 pp_addr=$3
	shift 3
	for pp_try in 1 2 3 4 5; do
		timeout "$pp_limit" stdbuf -oL "$@" >/tmp/pair.srv 2>&1 &
		pp_spid=$!
		sleep 1
		if timeout "$pp_limit" stdbuf -oL "$@" "$pp_addr" >/tmp/pair.cli 2>&1; then
			pp_crc=0
		else
			pp_crc=$?
		fi
		[ $pp_crc != 0 ] && [ $pp_try != 5 ] &&
			grep -qE 'REJECTED|Unexpected CM event .* 8$' /tmp/pair.cli || break
		echo "note: $pp_name: client turned away (try $pp_try): a fresh pair"
		kill $pp_spid 2>/dev/null
		wait $pp_spid 2>/dev/null
	done
	if wait $pp_spid; then pp_src=0; else pp_src=$?; fi
	if [ $pp_crc = 0 ] && [ $pp_src = 0 ]; then
		ok "$pp_name"
	else
		bad "$pp_name (client $pp_crc, server $pp_src)"
		echo "  --- server:"; cat /tmp/pair.srv
		echo "  --- client:"; cat /tmp/pair.cli
	fi
}

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
	perftest_pair "$t -R" 180 $a4 $t -d rxe0 -R -F -n 200
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
