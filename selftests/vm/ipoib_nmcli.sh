#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdma-kmod: second-lane
#
# Seed 002 ch. 6.3: NetworkManager configures our ib_ipoib with the seed's
# nmcli commands. Two sib ports cabled back to back (veth pair, MTU 2200)
# under an unmodified OpenSM whose partitions file has the default
# partition and 0x8002; the interface on sib1 lives in a network
# namespace (configured with iproute2: the peer host), the one on sib0 is
# NetworkManager's. The VM has no systemd and a read-only root: a private
# D-Bus daemon, udevd with no rules (NetworkManager takes a device once
# udev has recorded it) and NetworkManager are started by hand, their
# state and configuration on tmpfs, NetworkManager told to manage only
# InfiniBand devices and to leave DNS and the hostname alone.
# The seed's commands, with our interface names: `connection add ...
# transportmode Connected mtu 65520` (nmcli's property is transport-mode:
# the seed's spelling is refused, the test says so and goes on with it),
# `infiniband.p-key 0x8002` (NetworkManager 1.42 wants the parent and
# the child's own interface name with it: given on a second connection,
# as the seed's 6.4 does), ipv4/ipv6 addresses, gateway, DNS, method
# manual, `connection up`. Checked: both connections activated, sysfs
# mode "connected" and MTU 65520 on the parent and on the P_Key child
# NetworkManager made (create_child: ib0.8002, pkey 0x8002, parent),
# the addresses and DNS servers NetworkManager reports, pings (also
# 60000-byte ones) and 4 MiB over TCP compared by sha256 across the two
# ports over the parent and the child. Then `connection down`/`delete`
# (the child goes with its connection), NetworkManager stopped, the peer
# side deleted, ib_ipoib unloaded.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/sib.sh"

if [ "$RDMA_KMOD_STACK" = stock ]; then
	ok "stock kernel: no sib link type, nothing to test"
	finish
	exit
fi
if ! command -v nmcli >/dev/null || ! command -v NetworkManager >/dev/null; then
	echo "SKIP: NetworkManager not installed (scripts/setup.sh installs network-manager)"
	exit 0
fi
need_opensm

ns=nmB
inB="ip netns exec $ns"
# the VM's eth0 has 192.0.2.0/24: the seed's addresses moved to 198.51.100/24
A4=198.51.100.1 B4=198.51.100.2 GW4=198.51.100.254 DNS4=198.51.100.253
C4A=198.51.101.1 C4B=198.51.101.2
A6=2001:db8:1::1 B6=2001:db8:1::2
# NetworkManager's, D-Bus's and udevd's files (the VM's /tmp is a tmpfs)
nmd=/tmp/nmcli
nm_pid="" bus_pid="" udevd_pid=""
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$nmd/bus

ping() { busybox ping "$@"; }

# ping_n [NSEXEC] DEST SIZE COUNT: all answered
ping_n() {
	$1 busybox ping -c "$4" -s "$3" -W 10 "$2" > /tmp/nmcli_ping.out 2>&1 &&
		grep -q " $4 packets received" /tmp/nmcli_ping.out
}

# nmc ARGS: nmcli, its output kept in /tmp/nmcli.out and shown
nmc() {
	echo "# nmcli $*"
	nmcli "$@" > /tmp/nmcli.out 2>&1
	nmc_rc=$?
	cat /tmp/nmcli.out
	return $nmc_rc
}

# nmm ARGS: nmcli connection modify ARGS. A loaded TCG VM can keep
# NetworkManager from answering within D-Bus's 25 s: the same (idempotent)
# modify again then.
nmm() {
	for _ in 1 2 3; do
		nmc connection modify "$@" && return 0
		grep -q "Timeout was reached" /tmp/nmcli.out || return 1
		echo "(NetworkManager did not answer in time: again)"
		sleep 5
	done
	return 1
}

# nma NAME ARGS: nmcli connection add ARGS (which name NAME); after a
# D-Bus timeout, true if NAME was made all the same
nma() {
	nma_n=$1
	shift
	nmc connection add "$@" && return 0
	grep -q "Timeout was reached" /tmp/nmcli.out || return 1
	wait_until 30 sh -c "nmcli -g connection.id connection show '$nma_n' 2>/dev/null | grep -q ."
}

nm_running() {
	[ "$(nmcli -t -f RUNNING general 2>/dev/null)" = running ]
}

# dev_state IF: NetworkManager's state of IF ("100 (connected)", ...)
dev_state() {
	nmcli -g GENERAL.STATE device show "$1" 2>/dev/null
}

dev_ready() { # IF: managed, with carrier (disconnected or further)
	case $(dev_state "$1") in
	"" | 10\ * | 20\ *) return 1 ;;
	esac
}

con_state() { # NAME: "activated", ...
	nmcli -g GENERAL.STATE connection show "$1" 2>/dev/null
}

show_state() {
	nmcli device status
	nmcli connection show
	ip -d addr show
	$inB ip -d addr show
	grep -iE "infiniband|ib0|ib1|device \(|error|warn" $nmd/nm.log | tail -40
	dmesg | grep -iE "ipoib|ib[01]|sib" | tail -20
}

# udevd with no rules: it only records the devices (NetworkManager waits
# for that), runs no program and renames nothing
udevd_start() {
	unshare -m sh -c '
		for d in /etc/udev/rules.d /usr/lib/udev/rules.d; do
			[ -d $d ] && mount -t tmpfs tmpfs $d
		done
		exec /lib/systemd/systemd-udevd' > $nmd/udevd.log 2>&1 &
	udevd_pid=$!
	wait_until 20 test -S /run/udev/control
}

# the private bus, NetworkManager on it; its state directory on tmpfs (a
# bind mount in its own mount namespace), its configuration in $nmd
nm_start() {
	mkdir -p $nmd/conf.d $nmd/sysconf.d $nmd/connections $nmd/lib || return 1
	bus_pid=$(dbus-daemon --session --fork --nopidfile --print-pid \
		--address="$DBUS_SYSTEM_BUS_ADDRESS") || return 1
	cat > $nmd/NetworkManager.conf <<EOF
[main]
plugins=keyfile
# root only, no polkit
auth-polkit=false
dhcp=internal
dns=none
rc-manager=unmanaged
hostname-mode=none
no-auto-default=*

[keyfile]
path=$nmd/connections
unmanaged-devices=except:type:infiniband

[connectivity]
enabled=false
EOF
	unshare -m sh -c "mount --bind $nmd/lib /var/lib/NetworkManager &&
		exec NetworkManager --debug --config=$nmd/NetworkManager.conf \
		--config-dir=$nmd/conf.d --system-config-dir=$nmd/sysconf.d \
		--intern-config=$nmd/intern.conf --state-file=$nmd/state \
		--pid-file=$nmd/pid" > $nmd/nm.log 2>&1 &
	nm_pid=$!
	wait_until 60 nm_running
}

stop_pid() { # PID: SIGTERM, then waited for (up to 30 s)
	[ -n "$1" ] || return 0
	kill "$1" 2>/dev/null || return 0
	for _ in $(seq $((30 * tf))); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 1
	done
	kill -9 "$1" 2>/dev/null
	return 1
}

# tcp_check [NSEXEC_SERVER] SERVER_ADDR PORT: 4 MiB from here to a
# receiver in the namespace, compared by sha256
tcp_check() {
	head -c $((4 << 20)) /dev/urandom > /tmp/nmcli.in
	rm -f /tmp/nmcli.rcv
	$inB python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.settimeout(60); s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1)
c, _ = s.accept(); c.settimeout(60)
with open("/tmp/nmcli.rcv", "wb") as f:
    while True:
        b = c.recv(65536)
        if not b:
            break
        f.write(b)
' "$1" "$2" &
	tc_pid=$!
	$inB sh -c ". $RDMA_KMOD_SRC/selftests/lib.sh; wait_tcp_listen $2 $((200 * tf))" ||
		echo "no receiver listening on $1:$2"
	python3 -c '
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=120)
with open("/tmp/nmcli.in", "rb") as f:
    s.sendall(f.read())
s.close()
' "$1" "$2" || echo "sender to $1:$2 failed"
	wait $tc_pid
	[ "$(sha256sum < /tmp/nmcli.in)" = "$(sha256sum < /tmp/nmcli.rcv 2>/dev/null)" ]
	tc_rc=$?
	rm -f /tmp/nmcli.in /tmp/nmcli.rcv
	return $tc_rc
}

modprobe ib_umad || die "modprobe ib_umad"
sib_pair || die "sib0, sib1 on a veth pair"
mkdir -p $osm $nmd
# seed 002 ch. 5: the default partition and 0x8002, both with IPoIB groups
cat > $osm/partitions.conf <<EOF
Default=0x7fff, ipoib, defmember=full : ALL=full ;
part2=0x8002, ipoib, defmember=full : ALL=full ;
EOF

echo "--- OpenSM sweeps"
osm_up -P $osm/partitions.conf || die "sib0, sib1 not ACTIVE under OpenSM"

echo "--- ib_ipoib; the peer host in $ns (iproute2)"
modprobe ib_ipoib || die "modprobe ib_ipoib"
ulp_ours ib_ipoib
echo "module ib_ipoib +p" > /sys/kernel/debug/dynamic_debug/control 2>/dev/null
sleep 1
ifA=$(ipoib_of sib0) && ifB=$(ipoib_of sib1) || die "no IPoIB interface per sib port"
ok "sib0 has $ifA (NetworkManager's), sib1 has $ifB (the peer's)"
cA=$ifA.8002 cB=$ifB.8002
ip netns add $ns || die "netns"
ip link set $ifB netns $ns || die "$ifB into $ns"
$inB sh -e -c "
	ip link set lo up
	ip link set $ifB type ipoib mode connected
	ip link set $ifB mtu 65520
	ip addr add $B4/24 dev $ifB
	ip -6 addr add $B6/32 dev $ifB nodad
	ip link add link $ifB name $cB type ipoib pkey 0x8002 mode connected
	ip link set $cB mtu 65520
	ip addr add $C4B/24 dev $cB
	echo 10 > /proc/sys/net/ipv4/neigh/$ifB/mcast_solicit
	echo 10 > /proc/sys/net/ipv4/neigh/$cB/mcast_solicit
	ip link set $ifB up
	ip link set $cB up" || die "the peer's $ifB and $cB"
carrier_on "$inB" $ifB && carrier_on "$inB" $cB && ok "peer: $ifB and $cB have carrier" ||
	bad "peer: no carrier on $ifB or $cB"

echo "--- udevd, D-Bus, NetworkManager"
udevd_start || die "udevd: $(cat $nmd/udevd.log)"
# ifA was there before udevd: its "add" again, for udevd to record
echo add > $net/$ifA/uevent
udevadm settle -t $((30 * tf)) || echo "udevadm settle timed out"
nm_start || { tail -30 $nmd/nm.log; die "NetworkManager not running"; }
ok "NetworkManager $(nmcli -g VERSION general 2>/dev/null || NetworkManager -V) running"
wait_until 60 dev_ready $ifA && ok "$ifA managed: $(dev_state $ifA)" ||
	bad "$ifA: '$(dev_state $ifA)'"
nmcli device status

echo "--- seed 6.3 step 1: the connection, connected mode, MTU 65520"
# the seed's command as it is written
if nmc connection add type infiniband con-name $ifA ifname $ifA transportmode Connected mtu 65520; then
	ok "the seed's 'transportmode' taken"
else
	grep -q "invalid <setting>.<property> 'transportmode'" /tmp/nmcli.out &&
		ok "nmcli knows no 'transportmode' (the seed's spelling): transport-mode" ||
		bad "connection add with 'transportmode': $(cat /tmp/nmcli.out)"
	nma $ifA type infiniband con-name $ifA ifname $ifA transport-mode Connected mtu 65520 ||
		bad "nmcli connection add ... transport-mode Connected mtu 65520"
fi
expect_eq "connection $ifA: infiniband.transport-mode" \
	"$(nmcli -g infiniband.transport-mode connection show $ifA)" connected
expect_eq "connection $ifA: infiniband.mtu" "$(nmcli -g infiniband.mtu connection show $ifA)" 65520

echo "--- step 2: infiniband.p-key 0x8002"
if nmm $ifA infiniband.p-key 0x8002; then
	# a later NetworkManager may take it as the seed writes it: back out,
	# the parent stays this connection's
	ok "infiniband.p-key 0x8002 taken on $ifA as the seed writes it"
	nmm $ifA infiniband.p-key -1 infiniband.parent "" ||
		bad "p-key taken back"
else
	grep -q "did not specify parent interface name" /tmp/nmcli.out &&
		ok "NetworkManager wants infiniband.parent with a p-key: a connection of its own" ||
		bad "modify infiniband.p-key: $(cat /tmp/nmcli.out)"
fi
nma $cA type infiniband con-name $cA ifname $cA transport-mode Connected mtu 65520 ||
	bad "connection add $cA"
nmm $cA infiniband.p-key 0x8002 infiniband.parent $ifA ||
	bad "nmcli connection modify $cA infiniband.p-key 0x8002 infiniband.parent $ifA"
expect_eq "connection $cA: infiniband.p-key" "$(nmcli -g infiniband.p-key connection show $cA)" 0x8002
nmm $cA ipv4.addresses $C4A/24 ipv4.method manual ipv6.method disabled ||
	bad "$cA: IPv4 settings"

echo "--- steps 3 and 4: IPv4 and IPv6"
nmm $ifA ipv4.addresses $A4/24 || bad "ipv4.addresses"
nmm $ifA ipv4.gateway $GW4 || bad "ipv4.gateway"
nmm $ifA ipv4.dns $DNS4 || bad "ipv4.dns"
nmm $ifA ipv4.method manual || bad "ipv4.method manual"
nmm $ifA ipv6.addresses $A6/32 || bad "ipv6.addresses"
nmm $ifA ipv6.gateway 2001:db8:1::fffe || bad "ipv6.gateway"
nmm $ifA ipv6.dns 2001:db8:1::fffd || bad "ipv6.dns"
nmm $ifA ipv6.method manual || bad "ipv6.method manual"

echo "--- step 5: connection up"
nmc -w $((120 * tf)) connection up $ifA || bad "nmcli connection up $ifA"
nmc -w $((120 * tf)) connection up $cA || bad "nmcli connection up $cA"
expect_eq "connection $ifA" "$(con_state $ifA)" activated
expect_eq "connection $cA" "$(con_state $cA)" activated
expect_eq "device $ifA" "$(dev_state $ifA)" "100 (connected)"
expect_eq "device $cA" "$(dev_state $cA)" "100 (connected)"
nmcli device status
[ -d $net/$cA ] && ok "NetworkManager made $cA" || bad "no $cA: $(ls $net)"
for i in $ifA $cA; do
	expect_eq "cat $net/$i/mode" "$(cat $net/$i/mode 2>&1)" connected
	expect_eq "$i MTU" "$(cat $net/$i/mtu 2>&1)" 65520
done
expect_eq "cat $net/$cA/pkey" "$(cat $net/$cA/pkey 2>&1)" 0x8002
expect_eq "cat $net/$cA/parent" "$(cat $net/$cA/parent 2>&1)" $ifA
d=$(ip -d link show $cA)
echo "$d"
echo "$d" | grep -q "ipoib pkey 0x8002 mode connected" && ok "ip -d link: $cA pkey 0x8002 mode connected" ||
	bad "ip -d link show $cA"
a=$(ip addr show dev $ifA)
echo "$a" | grep -q "inet $A4/24 " && ok "$ifA has $A4/24" || bad "ip addr show $ifA: $a"
echo "$a" | grep -q "inet6 $A6/32 " && ok "$ifA has $A6/32" || bad "no $A6/32 on $ifA"
a=$(ip addr show dev $cA)
echo "$a"
echo "$a" | grep -q "inet $C4A/24 " && ok "$cA has $C4A/24" || bad "ip addr show $cA: $a"
expect_eq "NetworkManager's IP4.DNS of $ifA" "$(nmcli -g IP4.DNS device show $ifA)" $DNS4
expect_eq "NetworkManager's IP4.GATEWAY of $ifA" "$(nmcli -g IP4.GATEWAY device show $ifA)" $GW4
ip route show dev $ifA | grep -q "default via $GW4" && ok "default route via $GW4 on $ifA" ||
	bad "routes of $ifA: $(ip route show dev $ifA)"
[ $fails = 0 ] || show_state

echo "--- traffic across the ports"
# the first packets wait for ARP, the PathRecord and the RC connection
ping -c 2 -W 30 $B4 > /dev/null 2>&1
ping -c 2 -W 30 $C4B > /dev/null 2>&1
ping_n "" $B4 56 5 && ok "ping $ifA -> $ifB: 5 answered" ||
	bad "ping $B4: $(tail -3 /tmp/nmcli_ping.out)"
ping_n "" $C4B 56 5 && ok "ping $cA -> $cB: 5 answered" ||
	bad "ping $C4B: $(tail -3 /tmp/nmcli_ping.out)"
ping_n "$inB" $A4 60000 3 && ok "ping -s 60000 $ifB -> $ifA" ||
	bad "ping -s 60000 $A4: $(tail -3 /tmp/nmcli_ping.out)"
ping_n "$inB" $C4A 60000 3 && ok "ping -s 60000 $cB -> $cA" ||
	bad "ping -s 60000 $C4A: $(tail -3 /tmp/nmcli_ping.out)"
ping_n "" $B6 56 3 && ok "ping -6 $ifA -> $ifB" || bad "ping $B6: $(tail -3 /tmp/nmcli_ping.out)"
tcp_check $B4 5310 && ok "4 MiB over TCP $ifA -> $ifB, sha256 equal" || bad "4 MiB to $B4"
tcp_check $C4B 5311 && ok "4 MiB over TCP $cA -> $cB, sha256 equal" || bad "4 MiB to $C4B"
[ $fails = 0 ] || show_state

echo "--- down, delete, NetworkManager stopped"
nmc connection down $cA || bad "nmcli connection down $cA"
nmc connection delete $cA || bad "nmcli connection delete $cA"
wait_until 20 test ! -d $net/$cA && ok "$cA deleted with its connection" || bad "$cA still there"
nmc connection down $ifA || bad "nmcli connection down $ifA"
ip -4 addr show dev $ifA | grep -q "inet " && bad "$ifA keeps an address after down" ||
	ok "$ifA without IPv4 address after down"
nmc connection delete $ifA || bad "nmcli connection delete $ifA"
stop_pid "$nm_pid" && ok "NetworkManager stopped" || bad "NetworkManager killed"
# what NetworkManager did with the devices before `connection up` (the
# autoconnects of the profiles as step 1 and 2 left them)
grep -E "device \(($ifA|$cA)\): (state change: [a-z-]+ -> (failed|activated)|Activation: failed)" $nmd/nm.log |
	sed 's/^<[a-z]*> *\[[0-9.]*\] //' | head -20
stop_pid "$bus_pid"
stop_pid "$udevd_pid"
rm -rf /run/udev

echo "--- teardown"
$inB ip link del $cB || bad "ip link del $cB"
ip netns del $ns
wait_until 20 test -d $net/$ifB && ok "$ifB back from the deleted namespace" ||
	bad "$ifB not back"
timeout $((60 * tf)) rmmod ib_ipoib && ok "ib_ipoib unloaded" || bad "rmmod ib_ipoib"
osm_stop
grep -E "ERR [0-9A-F]{4}" $osm/opensm.log | head -5
rdma link delete sib1 || bad "rdma link delete sib1"
rdma link delete sib0 || bad "rdma link delete sib0"
ip link del vethA
finish
