#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 3 acceptance: ibv_devices and ibv_devinfo -v list rxe0 with the same
# fields and limits as the stock rxe. The expected text was recorded from the
# stock stack in this VM setup (same MAC, so the same GUIDs):
#   scripts/vm/run.sh --stack stock --cmd '... ibv_devinfo -v -d rxe0'
# Every line but the GID table must be identical. The GID table differs on
# purpose: the stock rxe is RoCE v2 only, ours has per address a RoCE v1 and
# a RoCE v2 entry in hardware order (expected/rxe0-devinfo-gids-ours.txt;
# libibverbs prints v1 GIDs unabbreviated).
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

rxe_up || { bad "rxe0 up"; finish; exit; }
sleep 1

got=$(ibv_devices 2>&1)
case $got in
*rxe0*505400fffe123451*) ok "ibv_devices lists rxe0 with its node GUID" ;;
*) bad "ibv_devices"; echo "$got" ;;
esac

exp=$RDMA_KMOD_SRC/selftests/vm/expected
all=$(ibv_devinfo -v -d rxe0 2>&1)
expect_eq "ibv_devinfo -v -d rxe0 equals stock (all but the GIDs)" \
	"$(echo "$all" | grep -v 'GID\[')" "$(expected "$exp/rxe0-devinfo-v.txt" | grep -v 'GID\[')"
if [ "$RDMA_KMOD_STACK" = stock ]; then
	want=$(grep 'GID\[' "$exp/rxe0-devinfo-v.txt")
else
	want=$(cat "$exp/rxe0-devinfo-gids-ours.txt")
fi
expect_eq "GID table: v1 and v2 entry per address, hardware order" \
	"$(echo "$all" | grep 'GID\[')" "$want"
if [ "$RDMA_KMOD_STACK" != stock ]; then
	types=""
	for i in 0 1 2 3 4 5; do
		read -r t </sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$i
		types="$types$i:$t "
	done
	expect_eq "sysfs gid_attrs/types" "$types" \
		"0:IB/RoCE v1 1:RoCE v2 2:IB/RoCE v1 3:RoCE v2 4:IB/RoCE v1 5:RoCE v2 "
fi

got=$(ibv_devinfo -d rxe0 -i 1 2>&1 | grep -c 'PORT_ACTIVE')
expect_eq "ibv_devinfo port 1 active" "$got" 1

rdma link delete rxe0 || bad "link delete"
finish
