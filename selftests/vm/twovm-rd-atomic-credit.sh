#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 13: rxe's read/atomic credits when the requester is throttled.
# build/tools/rd_atomic_credit on the client VM (ours) plugs eth0 (a plug
# qdisc holds packets without orphaning them, so they stay counted against
# their QP), writes 64 packets (rxe's window of skbs in flight per QP) and
# posts an atomic, then unplugs: the requester met the atomic throttled.
# Ours used to lose a credit each time and stalled once max_rd_atomic (16)
# were gone (found by the GiB netem soak's atomic family). Every fetched
# value and the written bytes are checked; the client must exit 0 with no
# stalled completion.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

bin=$RDMA_KMOD_SRC/build/tools/rd_atomic_credit
# Set-up first, then both sides say whether theirs worked: one that cannot
# run the test must not leave the other waiting out its limits.
st=ready
if [ ! -x "$bin" ]; then
	st="no-$bin-(make-tools)"
elif ! { modprobe sch_plug && modprobe rdma_rxe && modprobe ib_uverbs &&
	 modprobe rdma_ucm; }; then
	st=modules
elif ! rdma link add rxe0 type rxe netdev eth0; then
	st=rxe0
elif ! ipv4_gid_index >/dev/null; then
	st=no-IPv4-GID-on-rxe0
fi
wait_peer
other=$(peer_exchange "$st")
[ "$st" = ready ] || die "$st"
[ "$other" = ready ] || die "the peer cannot run it: $other"
if [ "$RDMA_KMOD_ROLE" = client ]; then
	tc qdisc add dev eth0 root plug limit 10000000 &&
		tc qdisc change dev eth0 root plug release_indefinite || die "plug qdisc"
fi

peer_barrier || echo "note: peer did not come to the step"
# The VM of role server (the peer) serves; ours is the client.
name="64-packet WRITE then FETCH_AND_ADD, 24 rounds"
if [ "$RDMA_KMOD_ROLE" = server ]; then
	step "$name" server 300 "$bin" --dev rxe0 --port 18650 --server
else
	step "$name" server 300 "$bin" --dev rxe0 --port 18650 --plug eth0 --client
fi
cat /tmp/step.out
if [ "$side" = client ] && [ "$rc" = 0 ]; then
	grep -q "^rd_atomic_credit: rxe0 rounds 24 .* ok" /tmp/step.out &&
		ok "all atomics completed after a full window, values and bytes right" ||
		bad "rd_atomic_credit printed no result"
fi

[ "$RDMA_KMOD_ROLE" = client ] && tc qdisc del dev eth0 root
peer_barrier
rdma link delete rxe0 || bad "rxe0 link delete"
finish
