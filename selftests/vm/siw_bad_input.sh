#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The malformed uverbs write()s and MR limits of verbs_bad_input
# (tools/tests/uverbs_bad_input_test.cpp, UverbsBad.*) and the malformed
# RDMA_VERBS_IOCTL calls (uverbs_ioctl_test.cpp, UverbsIoctl.*) on siw0: the
# core errnos do not depend on the driver, and siw pins user memory its own
# way (RLIMIT_MEMLOCK, CAP_IPC_LOCK, unmapped and wrapping ranges). The same
# errnos as upstream siw: `scripts/vm/run.sh --stack stock --test siw_bad_input`.
. "$(dirname "$0")/../lib.sh"

bin=${RDMA_KMOD_SRC:-.}/build/tools/rdma_uverbs_tests
[ -x "$bin" ] || die "$bin missing: run 'make tools'"
siw_up || die "siw0 up"
[ "$(cat /sys/class/infiniband_verbs/uverbs0/ibdev)" = siw0 ] || die "uverbs0 is not siw0"
if "$bin" --gtest_color=no --gtest_filter='UverbsBad.*:UverbsIoctl.*'; then
	ok "rdma_uverbs_tests UverbsBad.* UverbsIoctl.* on siw0"
else
	bad "rdma_uverbs_tests UverbsBad.* UverbsIoctl.* on siw0"
fi
rdma link delete siw0 || bad "link delete"
finish
