#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# librdmacm and perftest on siw0 in one VM (issue 5): rping (which checks
# the data it exchanges with -v) over IPv4 and IPv6, ucmatose -c 20,
# rdma_server/rdma_client, perftest -R ib_send_bw, ib_write_bw, ib_read_bw,
# ib_send_lat, ib_write_lat. Server and client must both exit 0. Passes on
# the reference (stock kernel, upstream siw) and on ours.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

siw_up || die "siw0 up"
a4=192.0.2.1
a6=2001:db8::1

pair "rping IPv4 -C 100" 300 rping -s -a $a4 -C 100 -v -- rping -c -a $a4 -C 100 -v
pair "rping IPv6 -C 100" 300 rping -s -a $a6 -C 100 -v -- rping -c -a $a6 -C 100 -v
pair "ucmatose -c 20" 300 ucmatose -b $a4 -c 20 -- ucmatose -s $a4 -c 20
pair "rdma_server/rdma_client" 120 rdma_server -- rdma_client -s $a4
for t in ib_send_bw ib_write_bw ib_read_bw ib_send_lat ib_write_lat; do
	pair "$t -R" 300 $t -d siw0 -R -n 200 -- $t -d siw0 -R -n 200 $a4
	grep -E '^ +[0-9]' /tmp/pair.cli | tail -1
done

rdma link delete siw0 || bad "link delete"
finish
