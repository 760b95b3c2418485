#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 4 negative paths: build/tools/rdma_cm_tests (connect without a
# listener is REJECTED; a second bind of an address and port is
# EADDRINUSE; a server killed with 20 connected clients gives each client
# DISCONNECTED and frees everything), then unloading rdma_cm's modules
# while a process holds live ids is refused, and works once it is gone.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

modprobe rdma_ucm || die "modprobe rdma_ucm"
rxe_up || die "rxe0 up"
ipv4_gid_index >/dev/null || die "IPv4 GID on rxe0"

"$RDMA_KMOD_TOOLS/rdma_cm_tests" --gtest_color=no && ok "rdma_cm_tests" ||
	bad "rdma_cm_tests"

# A process with live ids (a listener and its event channel).
"$RDMA_KMOD_TOOLS/cm_hold_server" 192.0.2.1 7474 1 >/tmp/hold.out 2>&1 &
hpid=$!
wait_for /tmp/hold.out listening || bad "cm_hold_server did not listen"
for m in rdma_ucm rdma_cm ib_cm; do
	if rmmod $m 2>/tmp/rmmod.err; then
		bad "rmmod $m with live ids succeeded"
	else
		grep -q "in use" /tmp/rmmod.err && ok "rmmod $m refused while in use" ||
			bad "rmmod $m: $(cat /tmp/rmmod.err)"
	fi
done
kill -9 $hpid
wait $hpid 2>/dev/null
rdma link delete rxe0 || bad "link delete"
modprobe -r rdma_ucm && ok "rdma_ucm unloads once the ids are gone" ||
	bad "rdma_ucm unload"
finish
