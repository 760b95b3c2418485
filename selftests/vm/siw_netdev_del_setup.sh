#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A siw device's netdev deleted while connections are being set up: a
# ucmatose server and clients connecting 8 at a time, one after the other,
# on a veth (the server serves the first client; the next one's requests
# stay pending), the veth deleted 0.3 to 3 s after the first client starts:
# TCP handshakes, MPA requests on their way up to iw_cm, accepts,
# disconnects and the listener itself in flight, according to timing.
# Each time, once the processes are gone, the deletion must finish: every
# siw endpoint let go of the device.
#
# It hung (make check, siw_lifecycle under load; here in 1 run of 2): a
# listener destroyed while its abort work was queued cancelled the work
# and lost the reference that work held. A second way was found reading
# the code: an MPA request reaching iw_cm while its listener was being
# destroyed was dropped there, and its endpoint waited for an accept or
# reject that never came. On a hang the endpoints left are shown (debugfs
# siw/endpoints).
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

modprobe siw || die "modprobe siw"
modprobe rdma_ucm || die "modprobe rdma_ucm"
eps=/sys/kernel/debug/siw/endpoints
[ -r $eps ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
a=198.51.100.31

# round DELAY: one veth, one device, a ucmatose server, a loop of clients;
# the veth deleted DELAY s after the first client started
round() {
	ip link add vset0 type veth peer name vset1 || { bad "$1: veth"; return 1; }
	ip addr add $a/24 dev vset0
	ip link set vset1 up
	ip link set vset0 up
	rdma link add sset type siw netdev vset0 || { bad "$1: link add"; return 1; }
	ucmatose -b $a -c 100000 -C 0 >/tmp/set.srv 2>&1 &
	s=$!
	wait_tcp_listen 7471 50 || bad "$1: server not listening"
	(while :; do ucmatose -s $a -c 8 -C 0 >>/tmp/set.cli 2>&1; done) &
	c=$!
	sleep "$1"
	ip link del vset0 &
	d=$!
	kill $c
	# ucmatose ignores DEVICE_REMOVAL and keeps its uverbs file, which
	# holds the device (as upstream): it is killed, as an admin would
	sleep 2
	pkill -9 ucmatose
	wait $s $c 2>/dev/null
	if wait_gone $d 60; then
		ok "deleted $1 s into the setup ($(grep -c 'return status 0' /tmp/set.cli) clients had finished)"
	else
		bad "deletion $1 s into the setup still waiting after 60 s"
		echo "  --- siw endpoints:"
		cat $eps 2>&1 | sed 's/^/  /'
		return 1
	fi
	wait $d
	rm -f /tmp/set.cli
	# upstream siw (--stack stock) has no endpoints file
	n=0
	[ -r $eps ] && n=$(grep -c . $eps)
	expect_eq "$1: sset gone, no endpoint left" \
		"$(rdma link show 2>/dev/null | grep -c sset) $n" "0 0"
	return 0
}

for d in 0.3 0.6 1 1.5 2 3; do
	round $d || break
done
expect_eq "no cm_id left" "$(rdma res show cm_id 2>&1 | grep -c .)" 0
finish
