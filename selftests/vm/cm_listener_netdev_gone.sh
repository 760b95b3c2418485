#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A user-space listener alone on a device (rping -s bound to its address,
# no connection ever made) when the device's netdev is deleted. rping holds
# the device's uverbs file and learns of the removal only from rdma_cm's
# DEVICE_REMOVAL. ib_uverbs is loaded after rdma_cm here, so its client is
# removed first: an ib_uverbs that waited in its remove() for the files to
# close never let rdma_cm speak, and `ip link del` hung for good (CI,
# siw_lifecycle under load: the rping client had failed to resolve, the
# server sat in its listen). The removal must finish and rping must end,
# for siw and for rxe.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

# rdma_cm's client first, ib_uverbs' after it (the order that hung)
modprobe -r rdma_ucm ib_uverbs 2>/dev/null
modprobe rdma_cm || die "modprobe rdma_cm"
modprobe ib_uverbs || die "modprobe ib_uverbs"
modprobe rdma_ucm || die "modprobe rdma_ucm"
modprobe siw || die "modprobe siw"
modprobe rdma_rxe || die "modprobe rdma_rxe"

# gone TYPE ADDR: a listener on a TYPE device over a veth that is deleted
gone() {
	ip link add vgone0 type veth peer name vgone1 || { bad "$1: veth"; return; }
	ip addr add "$2/24" dev vgone0
	ip link set vgone1 up
	ip link set vgone0 up
	rdma link add gone0 type "$1" netdev vgone0 || { bad "$1: link add"; return; }
	rping -s -a "$2" -C 1 >/tmp/gone.srv 2>&1 &
	s=$!
	wait_res cm_id 'gone0.*LISTEN' 20
	expect_eq "$1: rping listens on gone0" \
		"$(rdma res show cm_id 2>/dev/null | grep -c 'gone0.*state LISTEN')" 1
	ip link del vgone0 &
	d=$!
	if wait_gone $d 60; then
		ok "$1: netdev deleted under the listener"
	else
		# the removal is stuck: let rping go so the rest can end
		bad "$1: netdev deletion still waiting after 60 s"
		kill -9 $s 2>/dev/null
	fi
	wait $d
	if wait_gone $s 10; then
		ok "$1: rping ended with the device"
	else
		bad "$1: rping still listening on a removed device"
		kill -9 $s 2>/dev/null
	fi
	wait $s 2>/dev/null
	expect_eq "$1: rping was told" \
		"$(grep -c 'device removal' /tmp/gone.srv)" 1
	expect_eq "$1: gone0 gone" "$(rdma link show 2>/dev/null | grep -c gone0)" 0
}
gone siw 198.51.100.21
gone rxe 198.51.100.22
expect_eq "no cm_id left" "$(rdma res show cm_id 2>&1 | grep -c .)" 0
finish
