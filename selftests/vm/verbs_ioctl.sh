#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# libibverbs 44 takes its ioctl paths on our kernel (ABI.md 4.5): under
# strace its RDMA_VERBS_IOCTL calls succeed (the probe answers ENOSPC, as
# the stock kernel), for ibv_devinfo, an RC pingpong on rxe0 and an rping
# over siw0. On ours, a device removed under an open ioctl context: the
# removal waits for the file, as the stock kernel does for drivers that
# cannot disassociate, but first tells the holder DEVICE_FATAL (the stock
# kernel tells it nothing and the removal hangs until the holder exits by
# itself), and the holder's commands get EIO.
. "$(dirname "$0")/../lib.sh"

# ioctl_ok FILE: the number of RDMA_VERBS_IOCTL calls that returned 0.
ioctl_ok() {
	grep -cE 'ioctl\([0-9]+, (RDMA_VERBS_IOCTL|0xc0181b01), .*\) += 0$' "$1"
}

rxe_up || die "rxe0 up"
gi=$(ipv4_gid_index) || die "no IPv4 GID"

strace -f -o /tmp/ioctl.devinfo -e trace=ioctl ibv_devinfo -d rxe0 >/dev/null 2>&1 ||
	bad "ibv_devinfo under strace"
n=$(ioctl_ok /tmp/ioctl.devinfo)
if [ "$n" -ge 3 ]; then
	ok "ibv_devinfo: $n RDMA_VERBS_IOCTL calls succeeded"
else
	bad "ibv_devinfo: $n RDMA_VERBS_IOCTL calls succeeded"
	cat /tmp/ioctl.devinfo
fi
if grep -qE 'ioctl\([0-9]+, (RDMA_VERBS_IOCTL|0xc0181b01), .*\) += -1 ENOSPC' \
	/tmp/ioctl.devinfo; then
	ok "libibverbs' INVOKE_WRITE probe answered ENOSPC (ioctl mode)"
else
	bad "no ENOSPC probe"
fi

pair "rc_pingpong, client under strace" 60 \
	ibv_rc_pingpong -d rxe0 -g "$gi" -n 20 -- \
	strace -f -o /tmp/ioctl.pp -e trace=ioctl,write \
	ibv_rc_pingpong -d rxe0 -g "$gi" -n 20 192.0.2.1
n=$(ioctl_ok /tmp/ioctl.pp)
# GET_CONTEXT, ASYNC_EVENT, CQ, QP create and destroy, PD/MR destroy...
if [ "$n" -ge 8 ]; then
	ok "rc_pingpong: $n RDMA_VERBS_IOCTL calls succeeded"
else
	bad "rc_pingpong: $n RDMA_VERBS_IOCTL calls succeeded"
	grep ioctl /tmp/ioctl.pp
fi

# Removal under an open context: the holder blocks in its async event
# read until the removal tells it DEVICE_FATAL.
if [ "$RDMA_KMOD_STACK" = stock ]; then
	rdma link delete rxe0 || bad "link delete rxe0"
else
cat >/tmp/hold.py <<'EOF'
import sys
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.cq import CQ
from pyverbs.pyverbs_error import PyverbsRDMAError
ctx = Context(name=sys.argv[1])
pd, cq = PD(ctx), CQ(ctx, 8)
print("holding", flush=True)
ev = ctx.get_async_event()
print("event", ev.event_type, flush=True)
ev.ack()
try:
    ctx.query_port(1)
    print("query_port ok", flush=True)
except PyverbsRDMAError as exc:
    print("query_port errno", abs(exc.error_code), flush=True)
EOF
/usr/bin/python3 /tmp/hold.py rxe0 >/tmp/hold.out 2>/dev/null &
hpid=$!
wait_for /tmp/hold.out holding || bad "holder did not start"
timeout 60 rdma link delete rxe0 || bad "link delete with an open context"
wait $hpid
expect_eq "holder: DEVICE_FATAL, then EIO" "$(cat /tmp/hold.out)" \
	"holding
event 8
query_port errno 5"
fi

siw_up || die "siw0 up"
a=192.0.2.1
pair "rping over siw0, client under strace" 120 rping -s -a $a -C 5 -v -- \
	strace -f -o /tmp/ioctl.rping -e trace=ioctl \
	rping -c -a $a -C 5 -v
n=$(ioctl_ok /tmp/ioctl.rping)
if [ "$n" -ge 5 ]; then
	ok "rping over siw0: $n RDMA_VERBS_IOCTL calls succeeded"
else
	bad "rping over siw0: $n RDMA_VERBS_IOCTL calls succeeded"
	grep ioctl /tmp/ioctl.rping
fi
rdma link delete siw0 || bad "link delete siw0"
finish
