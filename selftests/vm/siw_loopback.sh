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
# perftest -R send/write/read at several sizes; on ours zero copy is
# switched on through debugfs and its byte counter must grow.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

# perftest_pair NAME LIMIT ADDR ARGS...: perftest's server (ARGS) and client
# (ARGS ADDR) over rdma_cm, each try a fresh pair. perftest -R connects
# twice, for its parameters and then for the QPs, and its server listens
# for the second only once the first is done: a client can come too early
# either time and be turned away. lib.sh's pair() then starts the client
# alone again, which is right the first time only: turned away the second
# time, the client leaves its server waiting on a connection whose other
# end is gone, and the next client waits with it until both are killed.
# Line-buffered, so that a pair killed at its limit shows how far it got.
# Output in /tmp/pair.srv and /tmp/pair.cli.
perftest_pair() {
	pp_name=$1 pp_limit=$2 pp_addr=$3
	shift 3
	for pp_try in 1 2 3 4 5; do
		timeout "$pp_limit" stdbuf -oL "$@" >/tmp/pair.srv 2>&1 &
		pp_spid=$!
		sleep 1
		if timeout "$pp_limit" stdbuf -oL "$@" "$pp_addr" >/tmp/pair.cli 2>&1; then
			pp_crc=0
		else
			pp_crc=$?
		fi
		[ $pp_crc != 0 ] && [ $pp_try != 5 ] &&
			grep -qE 'REJECTED|Unexpected CM event .* 8$' /tmp/pair.cli || break
		echo "note: $pp_name: client turned away (try $pp_try): a fresh pair"
		kill $pp_spid 2>/dev/null
		wait $pp_spid 2>/dev/null
	done
	if wait $pp_spid; then pp_src=0; else pp_src=$?; fi
	if [ $pp_crc = 0 ] && [ $pp_src = 0 ]; then
		ok "$pp_name"
	else
		bad "$pp_name (client $pp_crc, server $pp_src)"
		echo "  --- server:"; cat /tmp/pair.srv
		echo "  --- client:"; cat /tmp/pair.cli
	fi
}

siw_up || die "siw0 up"
a4=192.0.2.1
a6=2001:db8::1

pair "rping IPv4 -C 100" 300 rping -s -a $a4 -C 100 -v -- rping -c -a $a4 -C 100 -v
pair "rping IPv6 -C 100" 300 rping -s -a $a6 -C 100 -v -- rping -c -a $a6 -C 100 -v
pair "ucmatose -c 20" 300 ucmatose -b $a4 -c 20 -- ucmatose -s $a4 -c 20
pair "rdma_server/rdma_client" 120 rdma_server -- rdma_client -s $a4
for t in ib_send_bw ib_write_bw ib_read_bw ib_send_lat ib_write_lat; do
	perftest_pair "$t -R" 300 $a4 $t -d siw0 -R -n 200
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
# (the pair functions set pp_*, $name, $srv, $crc and $src: other loop
# variables)
for bw in ib_send_bw ib_write_bw ib_read_bw; do
	for sz in 1024 5000 65536; do
		perftest_pair "$bw -R -s $sz" 300 $a4 $bw -d siw0 -R -F -s $sz -n 100
	done
done
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
