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
#
# Ours against ours only (make check's third two-VM pass): SMC-R cannot run
# on the stock 6.1 rxe, so there is no stock reference. There the link's
# set-up fails, and tearing the link down blocks for ever in
# smc_wr_drain_cq (client: __smc_connect, server: smc_listen_work), which
# waits for the flush completions of its posted receives that the 6.1 rxe
# never delivers: hung tasks, smc cannot unload. A stuck transfer is given
# up after two minutes with its kernel stack shown (bounded).
# peer-stacks: ours
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

state=ready
( need_module smc smc_diag ) || state=blocked
wait_peer
peer_agree $state smc/smc_diag

x=$RDMA_KMOD_TOOLS/smc_xfer
rxe_up || die "rxe0 up"
ipv4_gid_index >/dev/null || die "no IPv4 GID"
modprobe smc && modprobe smc_diag || die "modprobe smc smc_diag"
$x ueid RDMA-KMOD-TEST || bad "UEID"
$x pnet RDMAKMOD eth0 rxe0 1 || bad "PNET ID"
sent() { rdma statistic show link rxe0/1 | sed -n 's/.* sent_pkts \([0-9]*\).*/\1/p'; }
before=$(sent)
# bounded SECONDS CMD...: CMD with its output in /tmp/step.out; rc is its
# status, or 124 if it is still running after SECONDS: then its kernel
# stack is shown and it is left behind (a task stuck in the kernel cannot
# be killed, so timeout(1) would wait for ever).
bounded() {
	bs=$1
	shift
	"$@" >/tmp/step.out 2>&1 &
	bp=$!
	if wait_gone $bp "$bs"; then
		wait $bp
		rc=$?
	else
		echo "still running after $bs s; kernel stack:" >>/tmp/step.out
		cat /proc/$bp/stack >>/tmp/step.out 2>&1
		rc=124
	fi
}
for srole in server client; do
	if [ "$RDMA_KMOD_ROLE" = $srole ]; then
		side=server
		bounded 120 $x server 31000 1048576
	else
		side=client
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			sleep 1
			bounded 100 $x client 31000 1048576 "$RDMA_KMOD_PEER_IP"
			grep -q "Couldn't connect" /tmp/step.out || break
		done
	fi
	cat /tmp/step.out
	[ $rc = 0 ] && ok "1 MiB over SMC-R ($side on $RDMA_KMOD_STACK)" ||
		bad "1 MiB over SMC-R ($side on $RDMA_KMOD_STACK, exit $rc)"
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
