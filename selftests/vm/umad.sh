#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ib_umad on our MAD layer (issue 12): /dev/infiniband/umadN and issmN and
# /sys/class/infiniband_mad for rxe0, the raw umad ABI on RoCE
# (umad_abi.py: registration rules, a vendor-class request to our own QP1
# and its answer, a timeout), the infiniband-diags tools as on the stock
# stack (ibstat works; SMP tools fail to register QP0 agents: RoCE has no
# SMI), then the same ABI on an IB port (rdma_fake_ib, LID-routed). ib_umad
# is not ours: it is the distribution's rebuilt against our tree, so the
# test is skipped when the run has no ib_umad.ko beside our modules
# (scripts/vm/run.sh --modules-dir with build/compat/KVER/modules/).
. "$(dirname "$0")/../lib.sh"

if ! modprobe ib_umad 2>/dev/null; then
	echo "umad: ib_umad cannot be loaded here, skipped"
	exit 0
fi
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

gix=$(ipv4_gid_index) || die "IPv4 GID"
python3 "$RDMA_KMOD_SRC/selftests/vm/umad_abi.py" "/dev/infiniband/$umad" \
	roce "$gix" ::ffff:192.0.2.1 || bad "umad_abi.py on rxe0 ($? failures)"

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
rdma link delete rxe0 || bad "link delete"
modprobe -r ib_umad || bad "rmmod ib_umad"
finish
