#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Debian's pyverbs (python3-pyverbs) on rxe0 and siw0: device, port and GID
# queries (query_gid_ex, query_gid_table: QUERY_GID_ENTRY/TABLE ioctls),
# device import (QUERY_CONTEXT), PD/MR/CQ/SRQ/QP lifecycles, a loopback RC
# transfer (modify_qp on rxe0, rdma_cm on both), AH and UD on rxe0
# (selftests/vm/verbs_pyverbs.py). The output must equal the stock
# kernel's, recorded with
#   scripts/vm/run.sh --stack stock --test verbs_pyverbs
# in selftests/vm/expected/pyverbs-{rxe0,siw0}.txt. GIDs of type RoCE v1
# ("gid.v1" lines) are ours alone: one per RoCE v2 GID.
. "$(dirname "$0")/../lib.sh"

exp=$RDMA_KMOD_SRC/selftests/vm/expected
py=$RDMA_KMOD_SRC/selftests/vm/verbs_pyverbs.py

# run_pyverbs DEV: runs the script on DEV and compares with the stock output.
run_pyverbs() {
	(cd /tmp && timeout 180 /usr/bin/python3 "$py" "$1" 192.0.2.1) \
		>/tmp/pyverbs.out 2>&1 || bad "verbs_pyverbs.py $1 exit"
	expect_eq "pyverbs on $1 answers as on the stock kernel" \
		"$(grep -v '^gid.v1:' /tmp/pyverbs.out)" "$(expected "$exp/pyverbs-$1.txt")"
}

rxe_up || die "rxe0 up"
ipv4_gid_index >/dev/null || die "no IPv4 GID"
run_pyverbs rxe0
if [ "$RDMA_KMOD_STACK" != stock ]; then
	expect_eq "a RoCE v1 GID per RoCE v2 GID" \
		"$(sed -n 's/^gid.v1: \([^ ]*\) type 1 /\1 /p' /tmp/pyverbs.out)" \
		"$(sed -n 's/^gid: \([^ ]*\) type 2 /\1 /p' /tmp/pyverbs.out)"
fi
rdma link delete rxe0 || bad "link delete rxe0"

siw_up || die "siw0 up"
run_pyverbs siw0
rdma link delete siw0 || bad "link delete siw0"
finish
