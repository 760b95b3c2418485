#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# `make demo`: seed 002 §2.3 "Configuring Soft-RoCE", on our modules, each
# command echoed before its output.
run() {
	echo "# $*"
	"$@"
	rc=$?
	[ $rc = 0 ] || echo "(exit status $rc)"
	echo
	return $rc
}
echo "stack: ${RDMA_KMOD_STACK:-?}; ib_core from $(modinfo -n ib_core)"
echo
run rdma link show
run rdma link add rxe0 type rxe netdev eth0 || exit 1
run rdma link show || exit 1
run rdma dev show
run ibv_devices
run ibstat rxe0 || exit 1
run ibstat -l
# the GID table: per address a RoCE v1 and a RoCE v2 entry
run sh -c 'ibv_devinfo -v -d rxe0 | grep GID'
run rdma link delete rxe0 || exit 1
run rdma link show
