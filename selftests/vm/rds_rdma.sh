#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 12, item 4: RDS over RDMA on rxe0 in one VM. rds_rdma loaded, two
# RDS sockets bound to rxe0's address exchange messages over the IB
# transport (rds_exchange.py: SO_RDS_TRANSPORT reads RDS_TRANS_IB, bytes
# compared, RDS lists the RDMA connection), RC QPs of rds_rdma show in
# `rdma resource` and rxe0 counted the packets; then rds_rdma unloads.
# On our stack rds_rdma is the one scripts/compat/build.sh rebuilt.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

need_module rds_rdma
rxe_up || die "rxe0 up"
modprobe rds_rdma || die "modprobe rds_rdma"
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
sent() { rdma statistic show link rxe0/1 | sed -n 's/.* sent_pkts \([0-9]*\).*/\1/p'; }
before=$(sent)
python3 "$RDMA_KMOD_SRC/selftests/vm/rds_exchange.py" "$mine" || bad "rds_exchange.py"
after=$(sent)
[ "${after:-0}" -gt "${before:-0}" ] && ok "rxe0 sent_pkts $before -> $after" ||
	bad "rxe0 sent_pkts did not grow ($before -> $after)"
# Loopback: the active and the passive end, each an RC QP in RTS, and
# rds_rdma's connection ids.
n=$(rdma resource show qp link rxe0 | grep -c 'type RC state RTS')
[ "$n" = 2 ] && ok "2 RC QPs in RTS on rxe0" || { bad "$n RC QPs in RTS"; rdma resource show qp link rxe0; }
n=$(rdma resource show cm_id link rxe0 | grep -c 'comm \[rds_rdma\]')
[ "$n" -ge 2 ] && ok "$n rdma_cm ids of rds_rdma on rxe0" ||
	{ bad "$n rdma_cm ids of rds_rdma"; rdma resource show cm_id link rxe0; }
modprobe -r rds_rdma || bad "modprobe -r rds_rdma"
rdma link delete rxe0 || bad "link delete"
finish
