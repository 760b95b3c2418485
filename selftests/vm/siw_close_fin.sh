#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# siw's TCP sockets after a graceful close (issue 13), in one VM: the
# responder's FIN is lost, so after both ends exited its socket is an
# orphan in FIN-WAIT-1, CLOSING or LAST-ACK with that FIN unacknowledged.
# TCP must keep a timer on every such orphan (the retransmit timer while a
# FIN is out) and deliver the FIN once the wire works again. siw's
# sockets used to come from sock_create_kern() without a netns reference;
# tcp_close() stops all timers of such a socket, and the orphan stayed for
# ever (twovm-netem found it ours against ours).
# A tc u32 filter on lo drops every segment from the rping server's port
# with FIN set (siw0 on eth0 talks to its own address over lo).
# Fails on ours without the fix (no timer, both sockets stay); passes with
# it. Not run on the reference (stock siw) yet.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

a4=192.0.2.1
port=18630
tf=${RDMA_KMOD_TIME_FACTOR:-1}
filt="( sport = :$port or dport = :$port )"

siw_up || die "siw0 up"
modprobe sch_prio && modprobe cls_u32 && modprobe act_gact ||
	die "tc modules"
tc qdisc add dev lo root handle 1: prio || die "prio qdisc on lo"
# IPv4 without options: TCP source port at 20, flags at 33 (FIN = 0x01)
tc filter add dev lo parent 1: protocol ip prio 1 u32 \
	match ip protocol 6 0xff match u16 $port 0xffff at 20 \
	match u8 0x01 0x01 at 33 action drop || die "FIN drop filter"

pair "rping -C 3, server's FIN dropped" 120 \
	rping -s -a $a4 -p $port -C 3 -v -- rping -c -a $a4 -p $port -C 3 -v

# orphans: the sockets on the port other than TIME-WAIT (ss -o: timers)
orphans() { ss -tanoH "$filt" 2>/dev/null | grep -v TIME-WAIT; }

# Every socket with its FIN out must show the retransmit timer; a look
# that raced with the timer's handler is repeated.
fin_out=0
for _ in 1 2 3; do
	left=$(orphans)
	fin_out=$(echo "$left" | grep -cE '^(FIN-WAIT-1|CLOSING|LAST-ACK) ')
	no_timer=$(echo "$left" | grep -E '^(FIN-WAIT-1|CLOSING|LAST-ACK) ' |
		grep -vc 'timer:(on,')
	[ "$fin_out" -gt 0 ] && [ "$no_timer" = 0 ] && break
	sleep 0.5
done
echo "sockets on port $port with the FIN dropped:"
echo "$left"
[ "$fin_out" -gt 0 ] && ok "$fin_out socket(s) with an unacknowledged FIN" ||
	bad "no socket with an unacknowledged FIN (the filter missed?)"
[ "$no_timer" = 0 ] && ok "each has its retransmit timer armed" ||
	bad "$no_timer socket(s) with a FIN out and no retransmit timer"

# The wire works again: the next retransmission gets the FIN across.
tc qdisc del dev lo root || bad "tc qdisc del"
for _ in $(seq $((90 * tf))); do
	left=$(orphans)
	[ -z "$left" ] && break
	sleep 1
done
if [ -z "$left" ]; then
	ok "no TCP connection left behind once FINs pass"
else
	bad "TCP connections left behind"
	echo "$left"
fi
rdma link delete siw0 || bad "siw0 link delete"
finish
