#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The SA client and SA multicast of ib_core without a subnet manager:
# selftests/kmod/rdma_fake_ib.ko is an IB HCA whose port is its own SM with
# a scripted SA; rdma_sa_test.ko drives path, GuidInfo and MCMemberRecord
# traffic against it (answers, timeouts, cancel, error statuses, joins
# shared by two joiners, leave with the last one, free while pending, port
# events) and checks the no-SA answers on rxe0. Loading rdma_sa_test
# succeeds only if every check passed. On the stock stack the same sources,
# built against the stock headers by scripts/kmod-stock.sh, give the
# reference; without that build the test is skipped there.
. "$(dirname "$0")/../lib.sh"

kdir=$RDMA_KMOD_SRC/selftests/kmod
[ "${RDMA_KMOD_STACK:-ours}" = stock ] && kdir=$RDMA_KMOD_SRC/build/kmod-stock
if [ ! -f $kdir/rdma_sa_test.ko ]; then
	echo "sa_client: no $kdir/rdma_sa_test.ko, skipped"
	exit 0
fi
rxe_up || die "rxe0 up"
insmod $kdir/rdma_fake_ib.ko || die "rdma_fake_ib loaded"
link=$(rdma link show fakeib0/1)
case "$link" in
*"lid 1 sm_lid 1"*"state ACTIVE"*) ok "fakeib0/1 is an active IB port, its own SM" ;;
*) bad "fakeib0/1: $link" ;;
esac
if insmod $kdir/rdma_sa_test.ko roce=rxe0; then
	ok "rdma_sa_test: all checks passed"
	rmmod rdma_sa_test || bad "rmmod rdma_sa_test"
else
	bad "rdma_sa_test failed"
fi
dmesg | grep 'rdma_sa_test:' | sed 's/^\[[^]]*\] //'
rmmod rdma_fake_ib || bad "rmmod rdma_fake_ib"
rdma link delete rxe0 || bad "link delete"
finish
