#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ib_umad on our MAD layer (issue 12): /dev/infiniband/umadN and issmN and
# /sys/class/infiniband_mad for rxe0, the raw umad ABI on RoCE
# (umad_abi.py: registration rules, a vendor-class request to our own QP1
# and its answer, a timeout, user and kernel RMPP), the infiniband-diags
# tools as on the stock stack (ibstat works; SMP tools fail to register QP0
# agents: RoCE has no SMI), issmN (IsSM in ibstat's capability mask while
# held, exclusive open), then the same ABI on an IB port (rdma_fake_ib,
# LID-routed), and last rxe0 removed under open umad/issm files (EIO,
# EPIPE, EPOLLERR, no hang) with ib_umad unloading afterwards. ib_umad is
# ours (drivers/core/umad_*.c); the test also runs on the stock stack,
# where a read blocked at the removal stays blocked (upstream 6.1 looks for
# the removal only once a MAD is queued; ours wakes it with EIO).
. "$(dirname "$0")/../lib.sh"

need_module ib_umad
modprobe ib_umad || die "modprobe ib_umad"
rxe_up || die "rxe0 up"
read -r abi </sys/class/infiniband_mad/abi_version
expect_eq "infiniband_mad abi_version" "$abi" 5
umad="" issm=""
for d in /sys/class/infiniband_mad/umad* /sys/class/infiniband_mad/issm*; do
	read -r ibdev <"$d/ibdev"
	read -r port <"$d/port"
	[ "$ibdev $port" = "rxe0 1" ] || continue
	case "${d##*/}" in umad*) umad=${d##*/} ;; issm*) issm=${d##*/} ;; esac
done
[ -n "$umad" ] && [ -n "$issm" ] || die "umad and issm devices of rxe0/1"
ok "rxe0 port 1: $umad and $issm"
read -r dev <"/sys/class/infiniband_mad/$umad/dev"
perm=$(ls -l "/dev/infiniband/$umad" | cut -c1-10)
expect_eq "/dev/infiniband/$umad ($dev)" "$perm" "crw-------"

ibstat rxe0 >/tmp/ibstat.out 2>&1 || bad "ibstat rxe0"
grep -q "Link layer: Ethernet" /tmp/ibstat.out && ok "ibstat rxe0"
expect_eq "ibstat -l" "$(ibstat -l)" rxe0
guid=$(sed 's/^\([0-9a-f:]*\):\(....\):\(....\):\(....\):\(....\)$/0x\2\3\4\5/; s/://g' \
	/sys/class/infiniband/rxe0/ports/1/gids/0)
expect_eq "ibstat -p (port GUID)" "$(ibstat -p)" "$guid"
ibstatus >/tmp/ibstatus.out 2>&1 || bad "ibstatus"
grep -q "^Infiniband device 'rxe0' port 1 status:" /tmp/ibstatus.out &&
	grep -q "link_layer:.*Ethernet" /tmp/ibstatus.out && ok "ibstatus" ||
	bad "ibstatus: $(cat /tmp/ibstatus.out)"
out=$(smpquery -C rxe0 nodeinfo 0 2>&1)
case "$out" in
*"client_register for mgmt 1 failed"*) ok "smpquery: no QP0 agent on RoCE (as stock)" ;;
*) bad "smpquery: $out" ;;
esac
out=$(saquery -C rxe0 2>&1)
case "$out" in
*"No SM/SA found"*) ok "saquery: no SM on RoCE (as stock)" ;;
*) bad "saquery: $out" ;;
esac

# issmN: IsSM (bit 1 of the capability mask) while held, one holder.
cap() { sed -n 's/.*Capability mask: //p' /tmp/ibstat.cap; }
sm_bit() { ibstat rxe0 1 >/tmp/ibstat.cap 2>&1; echo $(($(cap) >> 1 & 1)); }
expect_eq "IsSM before issm is opened" "$(sm_bit)" 0
# (fd 3 is closed for every child that outlives the check it serves.)
exec 3</dev/infiniband/$issm || bad "open $issm"
expect_eq "IsSM while $issm is held" "$(sm_bit)" 1
out=$(python3 -c 'import os, sys
try:
    os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
    print("opened")
except OSError as e:
    print(e.errno)' /dev/infiniband/$issm)
expect_eq "second O_NONBLOCK open of $issm" "$out" 11
python3 -c 'import os, sys; os.open(sys.argv[1], os.O_RDONLY); print("got")' \
	/dev/infiniband/$issm >/tmp/issm.second 2>&1 3<&- &
second=$!
sleep 1
expect_eq "a blocking second open waits" "$(cat /tmp/issm.second)" ""
exec 3<&-
wait $second
expect_eq "the waiter gets $issm once it is closed" "$(cat /tmp/issm.second)" got
expect_eq "IsSM cleared after the last close" "$(sm_bit)" 0

gix=$(ipv4_gid_index) || die "IPv4 GID"
# Kernel RMPP goes to our link-local RoCE v2 GID: the stock MAD layer
# matches ACKs and answers by the GID of a real network header.
gix6="" gid6=""
for f in /sys/class/infiniband/rxe0/ports/1/gids/*; do
	read -r g <"$f" 2>/dev/null || continue
	case "$g" in fe80:*) ;; *) continue ;; esac
	read -r t <"/sys/class/infiniband/rxe0/ports/1/gid_attrs/types/${f##*/}" \
		2>/dev/null || continue
	[ "$t" = "RoCE v2" ] && { gix6=${f##*/} gid6=$g; break; }
done
[ -n "$gix6" ] || bad "no link-local RoCE v2 GID on rxe0"
python3 "$RDMA_KMOD_SRC/selftests/vm/umad_abi.py" "/dev/infiniband/$umad" \
	roce "$gix" ::ffff:192.0.2.1 $gix6 $gid6 ||
	bad "umad_abi.py on rxe0 ($? failures)"

# An IB port: the fake HCA of selftests/kmod (or its stock build).
kdir=$RDMA_KMOD_SRC/selftests/kmod
[ "${RDMA_KMOD_STACK:-ours}" = stock ] && kdir=$RDMA_KMOD_SRC/build/kmod-stock
if [ -f $kdir/rdma_fake_ib.ko ] && insmod $kdir/rdma_fake_ib.ko; then
	fumad=""
	for d in /sys/class/infiniband_mad/umad*; do
		read -r ibdev <"$d/ibdev"
		[ "$ibdev" = fakeib0 ] && fumad=${d##*/}
	done
	if [ -n "$fumad" ]; then
		python3 "$RDMA_KMOD_SRC/selftests/vm/umad_abi.py" \
			"/dev/infiniband/$fumad" ib 1 ||
			bad "umad_abi.py on fakeib0 ($? failures)"
	else
		bad "umad device of fakeib0"
	fi
	rmmod rdma_fake_ib || bad "rmmod rdma_fake_ib"
else
	echo "umad: no fake IB HCA here, IB part skipped"
fi
# rxe0 removed under open files: a blocked reader and reads get EIO,
# registrations EPIPE, poll EPOLLERR; the removal does not wait for them.
rm -f /tmp/umad.fifo /tmp/umad.rm
mkfifo /tmp/umad.fifo
python3 "$RDMA_KMOD_SRC/selftests/vm/umad_abi.py" "/dev/infiniband/$umad" \
	removal "/dev/infiniband/$issm" roce "$gix" ::ffff:192.0.2.1 \
	</tmp/umad.fifo >/tmp/umad.rm 2>&1 &
holder=$!
exec 4>/tmp/umad.fifo
for _ in $(seq 50); do grep -q ready /tmp/umad.rm && break; sleep 0.2; done
grep -q ready /tmp/umad.rm || bad "removal helper not ready: $(cat /tmp/umad.rm)"
if timeout 60 rdma link delete rxe0; then
	ok "rxe0 deleted with umad and issm files open"
else
	bad "link delete with umad files open"
fi
[ -e "/dev/infiniband/$umad" ] && bad "/dev/infiniband/$umad still there"
echo go >&4
exec 4>&-
wait $holder || bad "removal checks ($? failures)"
grep -v '^ready' /tmp/umad.rm
modprobe -r ib_umad || bad "rmmod ib_umad"
[ -d /sys/class/infiniband_mad ] && bad "class infiniband_mad left behind"
finish
