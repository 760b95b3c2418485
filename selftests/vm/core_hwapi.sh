#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ib_core helpers only hardware drivers use (issue 12): rdma_hwapi_test packs
# UD headers to known byte strings and unpacks them, runs ib_pack/ib_unpack
# on a layout of its own, and ib_umem_find_best_pgsz and the DMA block
# iterator on crafted scatterlists. No device is needed; loading succeeds
# only if every check passed.
. "$(dirname "$0")/../lib.sh"

ko=selftests/kmod/rdma_hwapi_test.ko
[ -f $ko ] || die "$ko not built"
modprobe ib_core || die "modprobe ib_core"
if insmod $ko; then
	ok "rdma_hwapi_test loaded: all checks passed"
	rmmod rdma_hwapi_test || bad "rmmod rdma_hwapi_test"
else
	bad "rdma_hwapi_test failed"
fi
dmesg | grep 'rdma_hwapi_test:' | sed 's/^\[[^]]*\] //'
finish
