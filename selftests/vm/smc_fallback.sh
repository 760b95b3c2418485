#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 12, item 4: AF_SMC in one VM. smc and smc_diag load, eth0 and rxe0
# port 1 go under one PNET ID and a user EID is set (build/tools/smc_xfer,
# as smc-tools would), and 1 MiB goes over an AF_SMC connection to this
# VM's own address, checked byte by byte both ways. That connection is
# routed over lo, which has no RoCE device, so SMC falls back to TCP:
# smc_diag must say so with the stock kernel's reason codes. SMC-R itself
# needs two hosts (twovm-smc; the stock 6.1 rxe cannot carry it). On our
# stack smc and smc_diag are the ones scripts/compat/build.sh rebuilt.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

need_module smc smc_diag
x=$RDMA_KMOD_TOOLS/smc_xfer
rxe_up || die "rxe0 up"
modprobe smc && modprobe smc_diag || die "modprobe smc smc_diag"
$x ueid RDMA-KMOD-TEST || bad "UEID"
$x pnet RDMAKMOD eth0 rxe0 1 || bad "PNET ID"
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
pair "1 MiB over AF_SMC to $mine" 60 $x server 31000 1048576 --expect fallback -- \
	$x client 31000 1048576 "$mine" --expect fallback
cat /tmp/pair.srv /tmp/pair.cli
# The client finds no RoCE device for the path (SMC_CLC_DECL_NOSMCRDEV,
# 0x03030000) and declines; the server falls back because its peer declined
# (SMC_CLC_DECL_PEERDECL, 0x05000000) and records the client's reason.
expect_eq "client's smc_diag" "$(grep '^mode ' /tmp/pair.cli)" \
	"mode FALLBACK_TCP reason 0x3030000 peer_diagnosis 0x0"
expect_eq "server's smc_diag" "$(grep '^mode ' /tmp/pair.srv)" \
	"mode FALLBACK_TCP reason 0x5000000 peer_diagnosis 0x3030000"
modprobe -r smc_diag smc || bad "modprobe -r smc"
rdma link delete rxe0 || bad "link delete"
finish
