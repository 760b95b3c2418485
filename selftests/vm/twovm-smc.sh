#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 12, item 4: SMC-R on rxe between two VMs (smc-tools is not in
# Debian 12: build/tools/smc_xfer does its set-up and the exchange). Each
# VM puts eth0 and rxe0 port 1 under one PNET ID (SMC finds the RoCE device
# of a TCP path through it) and a user EID (SMC-R v2 is offered only with
# one; SMC-R v1 needs a RoCE v1 GID, which the stock rxe does not have).
# Then each side once server, once client: 1 MiB over AF_SMC, every byte
# checked both ways, and smc_diag must show the connection in mode SMCR on
# rxe0 (not a fallback to TCP); rxe0's counters must have moved the data.
# On our stack smc and smc_diag are the ones scripts/compat/build.sh rebuilt.
# peer-stacks: stock ours
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

state=ready
( need_module smc smc_diag ) || state=blocked
wait_peer
other=$(peer_exchange $state)
[ $state = ready ] || die "smc/smc_diag not usable here"
[ "$other" = ready ] || { echo "note: the peer cannot run it ($other)"; finish; exit; }

x=$RDMA_KMOD_TOOLS/smc_xfer
rxe_up || die "rxe0 up"
ipv4_gid_index >/dev/null || die "no IPv4 GID"
modprobe smc && modprobe smc_diag || die "modprobe smc smc_diag"
$x ueid RDMA-KMOD-TEST || bad "UEID"
$x pnet RDMAKMOD eth0 rxe0 1 || bad "PNET ID"
sent() { rdma statistic show link rxe0/1 | sed -n 's/.* sent_pkts \([0-9]*\).*/\1/p'; }
before=$(sent)
for srole in server client; do
	if [ "$RDMA_KMOD_ROLE" = $srole ]; then
		step "1 MiB over SMC-R" $srole 120 $x server 31000 1048576
	else
		step "1 MiB over SMC-R" $srole 120 $x client 31000 1048576
	fi
	cat /tmp/step.out
	peer_barrier
done
after=$(sent)
# 1 MiB each way in 1 KiB-or-larger RDMA writes: hundreds of packets.
[ $((after - before)) -gt 500 ] && ok "rxe0 sent_pkts $before -> $after" ||
	bad "rxe0 sent_pkts $before -> $after"
# SMC keeps its link group a while after the last connection; unloading
# smc frees it.
sleep 1
modprobe -r smc_diag smc || bad "modprobe -r smc"
rdma link delete rxe0 || bad "link delete"
finish
