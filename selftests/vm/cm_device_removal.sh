#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# RDMA_CM_EVENT_DEVICE_REMOVAL to a kernel ULP whose handler returns 0, as
# upstream's ULPs do (they destroy their ids later, from a work item): the
# ids keep their device and QP until rdma_destroy_id(), and removing the
# device waits for that. rdma_cm_kern_test hold=1 holds a connection on
# rxe0, then siw0; `rdma link delete` must still be waiting while the module
# holds its ids and end once rmmod destroyed them. Ours only (the module is
# built against our ib_core).
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

a4=192.0.2.1
ko=$RDMA_KMOD_SRC/selftests/kmod/rdma_cm_kern_test.ko
[ "$RDMA_KMOD_STACK" = ours ] || { echo "ours only"; finish; exit; }

# removal DEV: hold a connection on DEV, delete DEV, check the wait.
removal() {
	modprobe rdma_cm || { bad "modprobe rdma_cm"; return; }
	# (never dmesg -C: guest.sh reads the kernel's reports by line number)
	d0=$(dmesg | wc -l)
	insmod "$ko" addr=$a4 hold=1 || { bad "$1: rdma_cm_kern_test hold=1"; return; }
	rdma link delete "$1" > /tmp/linkdel.out 2>&1 &
	lpid=$!
	# listener, client and accepted id: three events, each with its device
	for _ in $(seq 100); do
		dmesg | tail -n +$((d0 + 1)) > /tmp/removal.dmesg
		[ "$(grep -c 'rdma_cm_kern_test: .*device removal' /tmp/removal.dmesg)" -ge 3 ] && break
		sleep 0.3
	done
	grep 'rdma_cm_kern_test: .*device removal' /tmp/removal.dmesg | sed 's/^\[[^]]*\] //'
	n=$(grep -c "device removal, id on $1\$" /tmp/removal.dmesg)
	expect_eq "$1: DEVICE_REMOVAL to listener, client and server, each still on $1" "$n" 3
	# The removal waits for the ids (a few seconds more to be sure it does).
	sleep 3
	if kill -0 $lpid 2>/dev/null; then
		ok "$1: link delete waits while the ULP holds its ids"
	else
		bad "$1: link delete ended while the ULP still held its ids"
	fi
	rmmod rdma_cm_kern_test || bad "$1: rmmod rdma_cm_kern_test"
	if wait_gone $lpid 120; then
		wait $lpid && ok "$1: link delete done once the ids are destroyed" ||
			{ bad "$1: link delete failed"; cat /tmp/linkdel.out; }
	else
		bad "$1: link delete still waiting after rmmod"
	fi
	[ -e "/sys/class/infiniband/$1" ] && bad "$1 still registered"
	dmesg | tail -n +$((d0 + 1)) | grep -q 'lost its device' && bad "$1: an id lost its device before rdma_destroy_id"
}

rxe_up || die "rxe0 up"
removal rxe0
siw_up || die "siw0 up"
removal siw0
finish
