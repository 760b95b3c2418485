#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Wildcard listeners destroyed while devices come and go. make fuzz found a
# use-after-free there: a listener being destroyed had taken its entry for
# a device off its list, the device's removal did not see the entry and
# went on, and the entry's `rdma res` shadow was then freed into the dead
# device's table (now each entry holds its device's rdma_cm reference until
# it is destroyed, and the removal waits for it). The window is narrow: this
# test did not hit it on the old code in one run; it exercises the paths
# around it. Two loops start and kill rping servers on 0.0.0.0 (each a
# wildcard listen on every device) while a third adds and deletes siw and
# rxe links on eth0 in turn, 48 rounds each (120 took make check 100 s
# and did not hit the race either). On the debug kernel KASAN checks every
# round; afterwards no cm_id is left, the links are gone and rdma_cm
# unloads.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

rounds=48
modprobe rdma_rxe || die "modprobe rdma_rxe"
modprobe siw || die "modprobe siw"
modprobe rdma_ucm || die "modprobe rdma_ucm"

listeners() { # PORT
	for n in $(seq $rounds); do
		rping -s -a 0.0.0.0 -p "$1" >/dev/null 2>&1 &
		p=$!
		sleep 0.$(((n + $1) % 3 + 1))
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}
listeners 7471 & l1=$!
listeners 7472 & l2=$!
adds=0
for i in $(seq $rounds); do
	t=siw
	[ $((i % 2)) = 0 ] && t=rxe
	rdma link add churn0 type $t netdev eth0 2>/dev/null && adds=$((adds + 1))
	sleep 0.$((i % 3))
	rdma link delete churn0 2>/dev/null
done
wait $l1 $l2
ok "$rounds rounds of links added and deleted under $((2 * rounds)) listeners"
expect_eq "churn0 gone" "$(rdma link show 2>/dev/null | grep -c churn0)" 0
expect_eq "both kinds added" "$adds" $rounds
expect_eq "no cm_id left" "$(rdma res show cm_id 2>&1 | grep -c .)" 0
modprobe -r rdma_ucm && modprobe -r rdma_cm || bad "rdma_cm unloads"
finish
