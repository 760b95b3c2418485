#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# librdmacm and perftest on siw0 in one VM (issue 5): rping (which checks
# the data it exchanges with -v) over IPv4 and IPv6, ucmatose -c 20,
# rdma_server/rdma_client, perftest -R ib_send_bw, ib_write_bw, ib_read_bw,
# ib_send_lat, ib_write_lat. Server and client must both exit 0. Passes on
# the reference (stock kernel, upstream siw) and on ours. Then, with MPA
# CRC off (the default), transfers big enough for zero-copy transmit:
# rping -S 65535 -v (RDMA Read Response and Write payload, compared) and
# perftest -R send/write/read at several sizes, rc_soak overwriting each
# buffer as it completes; on ours zero copy is switched on through debugfs
# and its byte counter must grow.
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

# Zero copy: user MR pages go to TCP by reference (CRC is off here).
zc=/sys/kernel/debug/siw
if [ "$RDMA_KMOD_STACK" = ours ]; then
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	echo Y >$zc/zcopy || bad "zcopy switch"
	read -r zc0 <$zc/zcopy_bytes
fi
pair "rping -S 65535 -C 50" 600 rping -s -a $a4 -S 65535 -C 50 -v -- \
	rping -c -a $a4 -S 65535 -C 50 -v
# (pair sets $name, $srv, $crc and $src: other loop variables)
for bw in ib_send_bw ib_write_bw ib_read_bw; do
	for sz in 1024 5000 65536; do
		pair "$bw -R -s $sz" 300 $bw -d siw0 -R -F -s $sz -n 100 -- \
			$bw -d siw0 -R -F -s $sz -n 100 $a4
	done
done
# A completed Send's or Write's buffer is the application's again: rc_soak's
# client overwrites it at each completion while the server checks every byte.
# Small TCP buffers keep data queued in the sender's socket: a zero-copy
# transmit that completed while TCP still held the pages sent the overwritten
# bytes (the server saw 0x5a5a5a5a headers and bad Write windows).
soak=$RDMA_KMOD_SRC/build/tools/rc_soak
rmem=$(sysctl -n net.ipv4.tcp_rmem) wmem=$(sysctl -n net.ipv4.tcp_wmem)
sysctl -q -w net.ipv4.tcp_rmem="4096 16384 32768" net.ipv4.tcp_wmem="4096 16384 65536"
for chunk in 16384 65536; do
	pair "rc_soak, $chunk-byte buffers reused at completion" 300 \
		"$soak" --server --dev siw0 --port 7471 --seed 7 -- \
		"$soak" --client $a4 --dev siw0 --port 7471 --seed 7 --bytes $((8 << 20)) \
		--chunk $chunk --family all
	grep -h '^rc_soak: .* bytes ' /tmp/pair.cli
done
sysctl -q -w net.ipv4.tcp_rmem="$rmem" net.ipv4.tcp_wmem="$wmem"
if [ "$RDMA_KMOD_STACK" = ours ]; then
	read -r zc1 <$zc/zcopy_bytes
	read -r zcp <$zc/zcopy_pages
	echo "zero copy: $((zc1 - zc0)) bytes in $zcp page pieces"
	[ "$zc1" -gt "$zc0" ] && ok "zero-copy path taken" ||
		bad "zero-copy path not taken"
fi

[ "$RDMA_KMOD_STACK" = ours ] && kern_cm_test $a4

rdma link delete siw0 || bad "link delete"
finish
