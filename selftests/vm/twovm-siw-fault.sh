#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdma-kmod: powers-off-peer
#
# Issue 5: the peer vanishes mid-transfer. This VM (ours) streams RDMA
# WRITEs over an rdma_cm connection on siw0 to the peer (stock kernel with
# upstream siw), which powers itself off (busybox poweroff -f) while data
# flows. Here, with net.ipv4.tcp_retries2 lowered as an admin would so TCP
# gives up on the dead peer in seconds, the QP must go to error (failed
# completions), a CM event must come (DISCONNECTED or an error), and
# everything must be freed (no QP, no cm_id left; the device can be deleted
# and, after the test, every module unloads), all within the tool's bound.
# The runner accepts the peer's missing cleanup because of the marker
# scripts/vm/poweroff-now.sh leaves, and runs this test last.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

tool=$RDMA_KMOD_TOOLS/cm_peer_loss
port=7471
[ -x "$tool" ] || die "no $tool (make tools)"
siw_up || die "siw0 up"
wait_peer
# The VMs reach this test when each is done with the one before: the
# server's listener waits a minute only (CI, under load, saw ours come later).
peer_barrier || die "the peer did not come to the test"

if [ "$RDMA_KMOD_ROLE" = server ]; then
	# The peer: serve one connection, let the data flow, then vanish.
	mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
	"$tool" server "$mine" $port >/tmp/srv.out 2>&1 &
	i=0
	until grep -q "^ESTABLISHED" /tmp/srv.out; do
		i=$((i + 1))
		[ $i -lt 180 ] || { cat /tmp/srv.out; die "no connection came"; }
		sleep 1
	done
	sleep 5
	ok "served a connection; powering off mid-transfer"
	sh "$RDMA_KMOD_SRC/scripts/vm/poweroff-now.sh" twovm-siw-fault
	sleep 600
	die "still running after poweroff"
fi

# An admin's setting for quick dead-peer detection (default 15: ~15 min).
sysctl -q -w net.ipv4.tcp_retries2=5 || bad "sysctl tcp_retries2"
for _ in $(seq 60); do
	timeout 400 "$tool" client "$RDMA_KMOD_PEER_IP" $port 240 >/tmp/cli.out 2>&1
	rc=$?
	# Not the FATAL line that names the event it missed.
	grep -q "^ESTABLISHED" /tmp/cli.out && break
	sleep 1	# the peer is not listening yet
done
cat /tmp/cli.out
if [ $rc = 0 ]; then
	ok "QP error, CM event and teardown after the peer vanished"
else
	bad "client exit $rc"
fi
grep -q '^wc_error ' /tmp/cli.out && ok "failed completions" || bad "no failed completion"
# Out of RTS (upstream siw reports RESET once the connection is gone).
grep -q -e '^qp_state ERR' -e '^qp_state RESET' /tmp/cli.out &&
	ok "QP out of RTS" || bad "QP still usable"
grep -q '^cm_event ' /tmp/cli.out && ok "CM event" || bad "no CM event"

busybox ping -c 2 -W 1 "$RDMA_KMOD_PEER_IP" >/dev/null 2>&1 &&
	bad "the peer still answers"
expect_eq "no QP left" "$(rdma res show qp 2>&1 | grep -c siw0)" 0
expect_eq "no cm_id left" "$(rdma res show cm_id 2>&1 | grep -c .)" 0
rdma link delete siw0 || bad "link delete"
finish
