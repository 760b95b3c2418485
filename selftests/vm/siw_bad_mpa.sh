#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Malformed MPA from a plain TCP client against an rping listener on siw0
# (siw_mpa_inject.py): broken MPA requests get a reject reply where one is
# possible and a closed connection; broken FPDUs after a valid enhanced
# exchange (CRC on) get a Terminate with RFC 5040/5041/5044 layer, error
# type and code, then the connection closes. Every case shows up in
# `rdma statistic show link siw0/1`, and the listener keeps working.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

modprobe siw || die "modprobe siw"
modprobe rdma_ucm || die "modprobe rdma_ucm"
rdma link add siw0 type siw netdev eth0 || die "siw0"
a=192.0.2.1 port=7174

# counter NAME: its value from rdma statistic (one exec per read)
stats() { stats=$(rdma statistic show link siw0/1 2>&1); }
counter() {
	set -- $stats
	while [ $# -gt 1 ]; do
		[ "$1" = "$want" ] && { echo "$2"; return; }
		shift
	done
	echo missing
}

rping -s -P -a $a -p $port >/tmp/rping.srv 2>&1 &
srv=$!
wait_tcp_listen $port || die "rping -s is not listening on $port"

out=$(python3 "$RDMA_KMOD_SRC/selftests/vm/siw_mpa_inject.py" $a $port \
	bad_key markers bad_revision oversized_pd_len \
	bad_crc unknown_opcode bad_ddp_version length_underflow bad_stag \
	oversized_send bad_msn 2>&1)
echo "$out"

# expect CASE REPLY TERM
expect() {
	line=$(echo "$out" | grep "^CASE $1 ")
	expect_eq "$1" "$line" "CASE $1 reply=$2 term=$3 closed=1"
}
expect bad_key none none
expect markers reject none
expect bad_revision reject none
expect oversized_pd_len none none
# LLP(2)/MPA(0)/CRC error(2)
expect bad_crc accept 2/0/2
# RDMAP(0)/remote operation(2)/unexpected opcode(6)
expect unknown_opcode accept 0/2/6
# DDP(1)/untagged buffer(2)/invalid DDP version(6)
expect bad_ddp_version accept 1/2/6
# LLP(2)/MPA(0)/ULPDU length mismatch(3)
expect length_underflow accept 2/0/3
# DDP(1)/tagged buffer(1)/invalid STag(0)
expect bad_stag accept 1/1/0
# DDP(1)/untagged buffer(2)/message too long(5)
expect oversized_send accept 1/2/5
# DDP(1)/untagged buffer(2)/MSN out of range(3)
expect bad_msn accept 1/2/3

stats
for c in mpa_bad_key:1 mpa_markers_refused:1 mpa_bad_revision:1 \
	 mpa_bad_pd_len:1 mpa_reject_sent:2 rx_bad_crc:1 rx_bad_header:2 \
	 rx_bad_length:1 rx_bad_stag:1 rx_too_long:1 rx_bad_msn:1 \
	 terminate_sent:7; do
	want=${c%%:*}
	expect_eq "counter $want" "$(counter)" "${c#*:}"
done

# the listener still serves a well-behaved client
if timeout 120 rping -c -a $a -p $port -C 5 -v >/tmp/rping.cli 2>&1; then
	ok "rping after the hostile clients"
else
	bad "rping after the hostile clients"
	cat /tmp/rping.cli
fi
kill $srv 2>/dev/null
wait $srv 2>/dev/null
rdma link delete siw0 || bad "link delete"
finish
