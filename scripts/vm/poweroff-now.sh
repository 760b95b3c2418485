#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# For a two-VM selftest whose peer must vanish mid-transfer: powers this VM
# off at once, as a pulled plug would, after telling the runner it was on
# purpose. The runner (scripts/vm/run.sh) accepts the missing cleanup and
# module unload of this VM only with this marker, and only from the test
# that runs last (tests carrying "# rdma-kmod: powers-off-peer" are ordered
# last). What the VM saved here is still checked: results, dmesg splats.
#   poweroff-now.sh TEST-NAME
set -u
out=${RDMA_KMOD_SHARED:?not in a test VM}
echo "POWEROFF: $1 (on purpose)" >> "$out/results"
dmesg > "$out/dmesg.txt"
if grep -q '^FAIL' "$out/results"; then echo 1; else echo 0; fi > "$out/rc"
echo "$1" > "$out/poweroff"
sync
busybox poweroff -f
