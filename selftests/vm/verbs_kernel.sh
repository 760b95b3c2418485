#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Kernel verbs API (issue 3, deliverable 2): the rdma_verbs_test module runs
# RC send/write/read/atomics/fast-reg/invalidate between two kernel QPs on
# rxe0 and checks the bytes; loading it succeeds only if every check passed.
# Then a kernel ULP's path: rdma_cm, Send, rdma_rw WRITE/READ (kern_cm_test).
. "$(dirname "$0")/../lib.sh"

ko=selftests/kmod/rdma_verbs_test.ko
[ -f $ko ] || die "$ko not built"
rxe_up || die "rxe0 up"
ipv4_gid_index >/dev/null || die "no IPv4 GID"
if insmod $ko dev=rxe0; then
	ok "rdma_verbs_test loaded: all checks passed"
	rmmod rdma_verbs_test || bad "rmmod rdma_verbs_test"
else
	bad "rdma_verbs_test failed"
fi
dmesg | grep 'rdma_verbs_test:' | sed 's/^\[[^]]*\] //'
kern_cm_test 192.0.2.1
rdma link delete rxe0 || bad "link delete"
finish
