#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# siw device lifecycle: several devices (eth0, lo, a veth), one per netdev
# (EEXIST), the port following the link, and the netdev removed under a
# live device carrying an rping: the device goes, the rping ends, nothing
# leaks (the runner then unloads every module and checks dmesg).
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

modprobe siw || die "modprobe siw"
modprobe rdma_ucm || die "modprobe rdma_ucm"
ip link add veth0 type veth peer name veth1 || die "veth"
ip addr add 198.51.100.1/24 dev veth0
ip link set veth1 up
ip link set veth0 up

rdma link add siw0 type siw netdev eth0 || bad "siw0 on eth0"
rdma link add siwlo type siw netdev lo || bad "siwlo on lo"
rdma link add siwv type siw netdev veth0 || bad "siwv on veth0"
out=$(rdma link add siw9 type siw netdev eth0 2>&1)
expect_eq "a second device on eth0" "$out" "error: File exists"

out=$(rdma link show 2>&1)
want=$(printf '%s\n' \
	"link siw0/1 state ACTIVE physical_state LINK_UP netdev eth0 " \
	"link siwlo/1 state ACTIVE physical_state LINK_UP netdev lo " \
	"link siwv/1 state ACTIVE physical_state LINK_UP netdev veth0 ")
expect_eq "three devices" "$out" "$want"

ip link set veth1 down
sleep 1
expect_eq "port follows the carrier" "$(rdma link show siwv/1 2>&1)" \
	"link siwv/1 state DOWN physical_state DISABLED netdev veth0 "
ip link set veth1 up
sleep 1
expect_eq "port back up" "$(rdma link show siwv/1 2>&1)" \
	"link siwv/1 state ACTIVE physical_state LINK_UP netdev veth0 "

# a live connection on siwv, then its netdev disappears
rping -s -a 198.51.100.1 -C 100000 >/tmp/lc.srv 2>&1 &
s=$!
sleep 2
rping -c -a 198.51.100.1 -C 100000 >/tmp/lc.cli 2>&1 &
c=$!
sleep 5
ip link del veth0
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 \
	 21 22 23 24 25 26 27 28 29 30; do
	kill -0 $s 2>/dev/null || kill -0 $c 2>/dev/null || break
	sleep 1
done
if kill -0 $s 2>/dev/null || kill -0 $c 2>/dev/null; then
	bad "rping survived the device removal"
	kill -9 $s $c 2>/dev/null
else
	ok "rping ended with the device"
fi
wait 2>/dev/null
[ -e /sys/class/infiniband/siwv ] && bad "siwv still there" || ok "siwv gone"
out=$(rdma link show 2>&1)
want=$(printf '%s\n' \
	"link siw0/1 state ACTIVE physical_state LINK_UP netdev eth0 " \
	"link siwlo/1 state ACTIVE physical_state LINK_UP netdev lo ")
expect_eq "the other devices stay" "$out" "$want"

# loopback device still carries traffic
pair "rping on siwlo" 120 rping -s -a 127.0.0.1 -C 10 -v -- rping -c -a 127.0.0.1 -C 10 -v

rdma link delete siw0 || bad "delete siw0"
rdma link delete siwlo || bad "delete siwlo"
expect_eq "no links left" "$(rdma link show 2>&1)" ""
finish
