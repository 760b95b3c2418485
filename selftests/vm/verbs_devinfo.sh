#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 3 acceptance: ibv_devices and ibv_devinfo -v list rxe0 with the same
# fields and limits as the stock rxe. The expected text was recorded from the
# stock stack in this VM setup (same MAC, so the same GUIDs):
#   scripts/vm/run.sh --stack stock --cmd '... ibv_devinfo -v -d rxe0'
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

rxe_up || { bad "rxe0 up"; finish; exit; }
sleep 1

got=$(ibv_devices 2>&1)
case $got in
*rxe0*505400fffe123451*) ok "ibv_devices lists rxe0 with its node GUID" ;;
*) bad "ibv_devices"; echo "$got" ;;
esac

want=$(cat "$RDMA_KMOD_SRC/selftests/vm/expected/rxe0-devinfo-v.txt")
got=$(ibv_devinfo -v -d rxe0 2>&1)
expect_eq "ibv_devinfo -v -d rxe0 equals stock" "$got" "$want"

got=$(ibv_devinfo -d rxe0 -i 1 2>&1 | grep -c 'PORT_ACTIVE')
expect_eq "ibv_devinfo port 1 active" "$got" 1

rdma link delete rxe0 || bad "link delete"
finish
