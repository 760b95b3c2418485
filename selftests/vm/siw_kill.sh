#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# siw lifetimes under kill -9 (issue 5), in one VM on siw0:
# - both ib_write_bw -R ends killed mid-transfer;
# - a client killed while its MPA request waits for a reply that never
#   comes (a plain TCP listener that accepts and stays silent);
# - an rping server killed while a plain TCP client holds a connection to
#   it that never sends its MPA request.
# After each, `rdma res show` is back to the baseline (no context, PD, MR,
# CQ or QP left) and siw0 still carries an rping; the runner then unloads
# every module, which waits for every endpoint and cm_id.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

siw_up || die "siw0 up"
a=192.0.2.1
base=$(rdma res show siw0 2>&1)

# at_baseline WHAT: rdma res counts are what they were at the start.
at_baseline() {
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ "$(rdma res show siw0 2>&1)" = "$base" ] && break
		sleep 1
	done
	expect_eq "$1: resources back to the baseline" \
		"$(rdma res show siw0 2>&1)" "$base"
}

echo "# ib_write_bw -R, both ends killed mid-transfer"
ib_write_bw -d siw0 -R -s 65536 -n 100000 >/tmp/k.srv 2>&1 &
spid=$!
sleep 2
ib_write_bw -d siw0 -R -s 65536 -n 100000 $a >/tmp/k.cli 2>&1 &
cpid=$!
sleep 8
n=$(rdma res show siw0 2>&1 | sed -n 's/.* qp \([0-9]*\) .*/\1/p')
[ "$n" -ge 2 ] && ok "transfer running ($n QPs)" ||
	{ bad "no transfer running ($n QPs)"; cat /tmp/k.srv /tmp/k.cli; }
kill -9 $cpid $spid
wait_gone $cpid 60 && wait_gone $spid 60 && ok "both ends gone" ||
	bad "a killed end is still there"
wait $cpid $spid 2>/dev/null
at_baseline "kill mid-transfer"

echo "# client killed while waiting for the MPA reply"
# nc closes on EOF of its input: give it a FIFO held open here (not a
# "sleep |" pipe: dash's wait on a pipeline waits for the sleep as well)
rm -f /tmp/k2.fifo && mkfifo /tmp/k2.fifo
busybox nc -l -p 7175 </tmp/k2.fifo >/dev/null 2>&1 &
npid=$!
exec 3>/tmp/k2.fifo
sleep 1
rping -c -a $a -p 7175 -C 1 >/tmp/k2.cli 2>&1 &
cpid=$!
sleep 5
kill -0 $cpid 2>/dev/null && ok "client waits for the reply" ||
	{ bad "client ended early"; cat /tmp/k2.cli; }
kill -9 $cpid
wait_gone $cpid 60 && ok "killed client gone" || bad "killed client still there"
wait $cpid 2>/dev/null
kill $npid 2>/dev/null
wait $npid 2>/dev/null
exec 3>&-
at_baseline "kill mid-MPA (active side)"

echo "# server killed while a connection waits for its MPA request"
rping -s -a $a -p 7176 >/tmp/k3.srv 2>&1 &
spid=$!
sleep 2
sleep 30 | busybox nc $a 7176 >/dev/null 2>&1 &
sleep 3
kill -9 $spid
wait_gone $spid 60 && ok "killed server gone" || bad "killed server still there"
wait $spid 2>/dev/null
at_baseline "kill mid-MPA (passive side)"

pair "rping after the kills" 120 rping -s -a $a -C 10 -v -- \
	rping -c -a $a -C 10 -v
at_baseline "after rping"
rdma link delete siw0 || bad "link delete"
finish
