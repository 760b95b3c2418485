#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Builds the test modules of selftests/kmod that use only the upstream API
# (rdma_fake_ib, rdma_sa_test) against the stock kernel headers into
# build/kmod-stock/, so that their selftests (sa_client) run on
# `scripts/vm/run.sh --stack stock` as the reference.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
KVER=${KVER:-$("$top/scripts/kver.sh")}
kdir=$("$top/scripts/kver.sh" --kdir "$KVER")
out=$top/build/kmod-stock
mkdir -p "$out"
for f in rdma_fake_ib.c rdma_fake_ib.h rdma_sa_test.c; do
	cp "$top/selftests/kmod/$f" "$out/"
done
printf 'obj-m += rdma_fake_ib.o\nobj-m += rdma_sa_test.o\n' > "$out/Kbuild"
make -s -C "$kdir" M="$out" W=1 modules
