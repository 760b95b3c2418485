# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sib (issue 16) for the VM selftests, sourced after lib.sh, not run.
# One VM: two sib ports cabled back to back (sib0 on vethA, sib1 on vethB)
# and an unmodified OpenSM sweeping them, started as seed 002 ch. 5 starts
# it (`opensm -g GUID`) on sib0's port; IPoIB on both ports, sib1's
# interface in a network namespace. Two VMs (the sib2_*, ipoib2_*, osm2_*
# helpers): each VM makes sib0 on eth0, OpenSM runs in the server VM.
# Both VMs read this file from the host's tree (9p), as the tests.

ib=/sys/class/infiniband
net=/sys/class/net
tf=${RDMA_KMOD_TIME_FACTOR:-1}
# the VM's root file system is read-only: OpenSM's cache, log and the
# files a test gives it (partitions.conf, opensm.conf) go here
osm=/tmp/osm
osm_pid=""

# need_sib: the stock kernel has no sib link type: the test passes there
# with nothing tested
need_sib() {
	[ "$RDMA_KMOD_STACK" = stock ] || return 0
	ok "stock kernel: no sib link type, nothing to test"
	finish
	exit
}

need_opensm() {
	command -v opensm >/dev/null ||
		die "opensm not installed (scripts/setup.sh installs it)"
}

# load_modules MODULE...: each loaded, or the test dies
load_modules() {
	for lm_m in "$@"; do
		modprobe "$lm_m" || die "modprobe $lm_m"
	done
}

# busybox's: Debian's iputils-ping is not in every image
ping() {
	busybox ping "$@"
}

# sib_cable: the veth pair vethA/vethB, MTU 2200: room for a 2048-byte IB
# MTU and the 86 bytes of LRH, GRH, BTH, RETH, ImmDt, ICRC and VCRC
sib_cable() {
	# an earlier test that died left its cable (and sib devices on it)
	ip link del vethA 2>/dev/null
	ip link add vethA type veth peer name vethB || return 1
	ip link set vethA mtu 2200 up && ip link set vethB mtu 2200 up
}

# sib_links: sib0 on vethA, sib1 on vethB (INIT without an SM)
sib_links() {
	rdma link add sib0 type sib netdev vethA || return 1
	rdma link add sib1 type sib netdev vethB
}

sib_pair() {
	sib_cable && sib_links
}

# sib_pair_up MODULE...: MODULEs loaded, then sib_pair, or the test dies
sib_pair_up() {
	load_modules "$@"
	sib_pair || die "sib0, sib1 on a veth pair"
}

# sib_unpair DEV...: each sib DEV deleted, then the cable
sib_unpair() {
	for su_d in "$@"; do
		rdma link delete "$su_d" || bad "rdma link delete $su_d"
	done
	ip link del vethA || bad "ip link del vethA"
}

port_attr() { # DEV ATTR: a sysfs attribute of DEV's port 1
	cat $ib/$1/ports/1/$2
}

is_active() { # DEV
	grep -q ACTIVE $ib/$1/ports/1/state
}

# expect_file DESCRIPTION FILE WANT: FILE's first line is WANT (no exec)
expect_file() {
	read -r ef_v <"$2"
	expect_eq "$1" "$ef_v" "$3"
}

# guid_of DEV: its node GUID as OpenSM's -g wants it (the port GUID too)
guid_of() {
	echo "0x$(tr -d : < $ib/$1/node_guid)"
}

# guid_re DEV: a pattern for DEV's GUID as the diagnostics print it (some
# without leading zeros)
guid_re() {
	echo "0x0*$(tr -d : < $ib/$1/node_guid | sed 's/^0*//')"
}

# wait_until SECONDS COMMAND...: COMMAND true within SECONDS (x the time
# factor of slow kernels), tried every second
wait_until() {
	wu_n=$(($1 * tf))
	shift
	for _ in $(seq "$wu_n"); do
		"$@" && return 0
		sleep 1
	done
	return 1
}

# osm_start [OPENSM OPTIONS]: OpenSM on sib0's port, in the background.
# Its output is appended: a restarted one's follows the first one's.
osm_start() {
	mkdir -p $osm
	OSM_CACHE_DIR=$osm OSM_TMP_DIR=$osm opensm -g "$(guid_of sib0)" \
		-f $osm/opensm.log "$@" >> $osm/out 2>&1 &
	osm_pid=$!
}

# bg_stop PID: a helper in the background (none if PID is empty) ended
bg_stop() {
	[ -n "$1" ] || return 0
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

osm_stop() {
	bg_stop "$osm_pid"
	osm_pid=""
}

# osm_end: OpenSM stopped, the errors of its log shown
osm_end() {
	osm_stop
	[ -s $osm/opensm.log ] && grep -E "ERR [0-9A-F]{4}" $osm/opensm.log | head -5
}

# both ports ACTIVE, each with a LID
sib_both_up() {
	for bu_d in sib0 sib1; do
		is_active $bu_d && [ "$(port_attr $bu_d lid)" != 0x0 ] ||
			return 1
	done
}

# osm_up [OPENSM OPTIONS]: osm_start, then both ports ACTIVE with LIDs
# within a minute (ok); false otherwise, the ports' states shown
osm_up() {
	osm_start "$@"
	if wait_until 60 sib_both_up; then
		ok "sib0 (LID $(port_attr sib0 lid)), sib1 (LID $(port_attr sib1 lid)) ACTIVE under OpenSM"
		return 0
	fi
	for ou_d in sib0 sib1; do
		echo "  $ou_d: $(port_attr $ou_d state), LID $(port_attr $ou_d lid)"
	done
	tail -5 $osm/out
	return 1
}

# ports_stay_active DEV...: (OpenSM stopped) two seconds on, each DEV is
# still ACTIVE: an SM's absence takes no port down
ports_stay_active() {
	sleep 2
	for psa_d in "$@"; do
		is_active $psa_d && ok "$psa_d still ACTIVE without OpenSM" ||
			bad "$psa_d: $(port_attr $psa_d state) once OpenSM went"
	done
}

# pkey_viol DEV: PortInfo P_KeyViolations of its port, read by an SMP
pkey_viol() {
	smpquery -C "$1" -P 1 portinfo "$(($(port_attr "$1" lid)))" |
		sed -n 's/^PkeyViolations:\.*//p'
}

# The port events of one device as user space gets them, in /tmp/aw.out;
# aw_seen looks after the mark aw_set_mark put.
aw_pid="" aw_mark=0
aw_start() { # DEV
	# emptied here: no reader may see a former test's events
	: > /tmp/aw.out
	stdbuf -oL ibv_asyncwatch -d "$1" > /tmp/aw.out 2>&1 &
	aw_pid=$!
	aw_mark=0
}

aw_stop() {
	bg_stop "$aw_pid"
	aw_pid=""
}

aw_set_mark() {
	aw_mark=$(wc -l < /tmp/aw.out)
}

aw_seen() { # EVENT: printed since the mark
	tail -n +$((aw_mark + 1)) /tmp/aw.out | grep -q "$1"
}

# reregistered DEV LID: once OpenSM started again (aw_set_mark before it
# went, aw_start watching DEV), DEV was told to register again within a
# minute, never left ACTIVE and kept its LID
reregistered() {
	wait_until 60 aw_seen CLIENT_REREGISTER &&
		ok "the restarted OpenSM set ClientReregister: CLIENT_REREGISTER on $1" ||
		bad "no CLIENT_REREGISTER on $1 after OpenSM's restart: $(cat /tmp/aw.out)"
	aw_seen PORT_ERR && bad "$1 left ACTIVE over the restart" ||
		ok "no PORT_ERR on $1 over the restart"
	expect_eq "$1 keeps its LID" "$(($(port_attr "$1" lid)))" "$(($2))"
}

# IPoIB on them (ib_ipoib)

# ipoib_of DEV: the IPoIB interface whose address ends in DEV's GID 0
ipoib_of() {
	io_g=$(tr -d : < $ib/$1/ports/1/gids/0)
	for io_d in $net/*; do
		[ "$(cat "$io_d/type" 2>/dev/null)" = 32 ] || continue
		[ "$(tr -d : < "$io_d/address" | cut -c9-)" = "$io_g" ] &&
			{ basename "$io_d"; return 0; }
	done
	return 1
}

# carrier_on [NSEXEC] IF: carrier within a minute (its groups joined)
carrier_on() {
	co_x=""
	[ $# = 2 ] && { co_x=$1; shift; }
	for _ in $(seq $((60 * tf))); do
		[ "$($co_x cat $net/$1/carrier 2>/dev/null)" = 1 ] && return 0
		sleep 1
	done
	return 1
}

# ipoib_load: our ib_ipoib loaded, its debug messages (flushes, failed
# joins and paths) on for the log
ipoib_load() {
	modprobe ib_ipoib || die "modprobe ib_ipoib"
	ulp_ours ib_ipoib
	echo "module ib_ipoib +p" > /sys/kernel/debug/dynamic_debug/control 2>/dev/null
}

# ipoib_partitions [P_KEY]: OpenSM's partitions.conf: the default
# partition and P_KEY, each with its IPoIB broadcast group, every port a
# full member
ipoib_partitions() {
	mkdir -p $osm
	echo "Default=0x7fff, ipoib, defmember=full : ALL=full ;" > $osm/partitions.conf
	[ -z "${1:-}" ] ||
		echo "part${1#0x}=$1, ipoib, defmember=full : ALL=full ;" >> $osm/partitions.conf
}

# osm_ipoib_up [P_KEY]: OpenSM with ipoib_partitions sweeps sib0 and sib1
osm_ipoib_up() {
	ipoib_partitions "$@"
	echo "--- OpenSM sweeps"
	osm_up -P $osm/partitions.conf || die "sib0, sib1 not ACTIVE under OpenSM"
}

# ipoib_pair: ipoib_load; ifA, ifB: the interfaces on sib0, sib1
ipoib_pair() {
	ipoib_load
	sleep 1
	ifA=$(ipoib_of sib0) && ifB=$(ipoib_of sib1) ||
		die "no IPoIB interface per sib port: $(ls $net)"
	ok "sib0 has $ifA, sib1 has $ifB"
}

# sib_ipoib_up [P_KEY]: sib0 and sib1 cabled, swept by OpenSM serving
# ipoib_partitions P_KEY, then ipoib_pair
sib_ipoib_up() {
	sib_pair_up ib_umad
	osm_ipoib_up "$@"
	echo "--- ib_ipoib"
	ipoib_pair
}

# ipoib_netns_up NS NET4 NET6: ifB moved into the network namespace NS
# (inB runs a command there), so that traffic between ifA and ifB cannot
# take a shortcut: it crosses the veth as IB packets. Addresses A4=NET4.1
# and A6=NET6::1 on ifA, B4=NET4.2 and B6=NET6::2 on ifB (not in
# 192.0.2.0/24: the VM's eth0 has an address there), both up; each with
# carrier (ok) or not (bad, false at the end).
ipoib_netns_up() {
	ns=$1 inB="ip netns exec $1"
	A4=$2.1 B4=$2.2 A6=$3::1 B6=$3::2
	ip netns add "$ns" || die "netns"
	ip link set $ifB netns "$ns" || die "$ifB into $ns"
	ip addr add $A4/24 dev $ifA && ip -6 addr add $A6/64 dev $ifA nodad ||
		die "addresses on $ifA"
	$inB ip addr add $B4/24 dev $ifB && $inB ip -6 addr add $B6/64 dev $ifB nodad ||
		die "addresses on $ifB"
	# TCG under load: ARP's answer waits for a PathRecord, maybe over 3 s
	echo 10 > /proc/sys/net/ipv4/neigh/$ifA/mcast_solicit
	$inB sh -c "echo 10 > /proc/sys/net/ipv4/neigh/$ifB/mcast_solicit"
	ip link set $ifA up && $inB ip link set $ifB up && $inB ip link set lo up ||
		die "links up"
	inu_rc=0
	carrier_on $ifA && ok "$ifA carrier on (broadcast group joined)" ||
		{ bad "$ifA: no carrier"; inu_rc=1; }
	carrier_on "$inB" $ifB && ok "$ifB carrier on" || { bad "$ifB: no carrier"; inu_rc=1; }
	return $inu_rc
}

# ns_listening PORT: a TCP listener on PORT in the namespace (one exec:
# wait_tcp_listen reads the /proc/net/tcp of the namespace it runs in)
ns_listening() {
	$inB sh -c ". $RDMA_KMOD_SRC/selftests/lib.sh; wait_tcp_listen $1 $((200 * tf))"
}

# tcp_recv [PREFIX] ADDR PORT FILE: the bytes of one TCP connection to
# ADDR:PORT into FILE (python: no nc that listens in every image); PREFIX
# a command it runs under (ip netns exec NS, timeout N)
tcp_recv() {
	tr_x=""
	[ $# = 4 ] && { tr_x=$1; shift; }
	$tr_x python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.settimeout(120); s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1)
c, _ = s.accept(); c.settimeout(60)
with open(sys.argv[3], "wb") as f:
    while True:
        b = c.recv(65536)
        if not b:
            break
        f.write(b)
' "$@"
}

# tcp_send ADDR PORT FILE: FILE's bytes over one TCP connection
tcp_send() {
	python3 -c '
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=120)
with open(sys.argv[3], "rb") as f:
    s.sendall(f.read())
s.close()
' "$@"
}

# bulk_to_ns WHAT PORT: (after ipoib_netns_up) 16 MiB of random bytes over
# TCP from here to B4:PORT in the namespace, compared by sha256
bulk_to_ns() {
	head -c $((16 << 20)) /dev/urandom > /tmp/bulk.in
	tcp_recv "$inB" "$B4" "$2" /tmp/bulk.out &
	bn_pid=$!
	ns_listening "$2" || bad "$1: no receiver in $ns"
	tcp_send "$B4" "$2" /tmp/bulk.in || bad "$1: sender"
	wait $bn_pid
	bn_a=$(sha256sum < /tmp/bulk.in) bn_b=$(sha256sum < /tmp/bulk.out)
	[ "$bn_a" = "$bn_b" ] && ok "$1: 16 MiB over TCP, sha256 equal" ||
		bad "$1: $(stat -c %s /tmp/bulk.out) bytes, sha256 differs"
	rm -f /tmp/bulk.in /tmp/bulk.out
}

# iperf_to_ns WHAT: (after ipoib_netns_up, iperf3 installed) iperf3 for 3 s
# from here to its server on B4 in the namespace
iperf_to_ns() {
	command -v iperf3 >/dev/null || return 0
	$inB timeout 60 iperf3 -s -1 -B $B4 > /tmp/iperf.srv 2>&1 &
	ip_pid=$!
	ns_listening 5201 || bad "$1: no iperf3 server in $ns"
	iperf3 -c $B4 -t 3 > /tmp/iperf.out 2>&1 &&
		ok "iperf3 $1: $(grep receiver /tmp/iperf.out | sed 's/  */ /g')" ||
		bad "iperf3 $1: $(tail -3 /tmp/iperf.out)"
	wait $ip_pid
}

# gone_with_sib1 IF...: (sib1 deleted) each IF of sib1's in the namespace
# went with it; the namespace deleted
gone_with_sib1() {
	for gw_i in "$@"; do
		$inB ip link show $gw_i >/dev/null 2>&1 && bad "$gw_i outlived sib1" ||
			ok "$gw_i went with sib1"
	done
	ip netns del "$ns"
}

# Two VMs. The server VM's OpenSM sweeps both sib0s. ib_ipoib's interface
# on sib0 gets 198.18.77.N/24 and fd00:1b::N/64, N = 1 in vm1 (role
# client), 2 in the server VM (not 192.0.2.0/24: eth0 has addresses there).

is_sm() {
	[ "$RDMA_KMOD_ROLE" = server ]
}

# sib2_up [OPENSM OPTIONS]: sib0 on eth0 on both sides (MTU 2200: an IB
# MTU of 2048), OpenSM with OPTIONS in the server VM, the port events of
# sib0 watched (aw_start), both ports ACTIVE; LID: this port's LID.
sib2_up() {
	osm2_opts="$*"
	wait_peer
	s2_state=ready
	modprobe rdma_rxe && modprobe ib_umad && modprobe ib_uverbs && modprobe rdma_ucm ||
		s2_state=no-modules
	is_sm && ! command -v opensm >/dev/null && s2_state=no-opensm
	[ $s2_state = ready ] && { ip link set eth0 mtu 2200 || s2_state=no-mtu; }
	[ $s2_state = ready ] && { rdma link add sib0 type sib netdev eth0 || s2_state=no-sib0; }
	peer_agree $s2_state "sib0 on eth0"
	aw_start sib0
	is_sm && osm_start "$@"
	wait_until 60 is_active sib0 && ok "sib0 ACTIVE under OpenSM" ||
		bad "sib0 not ACTIVE: $(port_attr sib0 state)"
	LID=$(port_attr sib0 lid)
	peer_agree "$(is_active sib0 && echo ready || echo not-active)" "sib0 ACTIVE"
}

# osm2_stop: OpenSM in the server VM stopped (the events' mark set before),
# sib0 still ACTIVE on both sides
osm2_stop() {
	aw_set_mark
	peer_barrier
	is_sm && osm_stop
	peer_barrier
	ports_stay_active sib0
}

# osm2_restart: OpenSM in the server VM started again, with sib2_up's
# options; then as reregistered says
osm2_restart() {
	# shellcheck disable=SC2086
	is_sm && osm_start $osm2_opts
	reregistered sib0 "$LID"
}

# sib2_down: both sides done, then OpenSM, ib_ipoib and sib0 go
sib2_down() {
	peer_barrier
	osm_end
	aw_stop
	rmmod ib_ipoib 2>/dev/null
	rdma link delete sib0 || bad "link delete sib0"
	ip link set eth0 mtu 1500
}

# ipoib2_up: ib_ipoib's interface IF on sib0, addressed (ME4, ME6; the
# peer's PEER4, PEER6) and up with its broadcast group joined; PEER_HW is
# the peer's 20-byte address.
ipoib2_up() {
	if is_sm; then ME_N=2 PEER_N=1; else ME_N=1 PEER_N=2; fi
	ME4=198.18.77.$ME_N PEER4=198.18.77.$PEER_N ME6=fd00:1b::$ME_N PEER6=fd00:1b::$PEER_N
	ipoib_load
	IF=""
	for _ in $(seq $((10 * tf))); do
		IF=$(ipoib_of sib0) && break
		sleep 1
	done
	[ -n "$IF" ] || die "no IPoIB interface on sib0: $(ls $net)"
	ip addr add $ME4/24 dev $IF && ip -6 addr add $ME6/64 dev $IF nodad ||
		die "addresses on $IF"
	# TCG under load: ARP's answer waits for a PathRecord, maybe over 3 s
	echo 10 > /proc/sys/net/ipv4/neigh/$IF/mcast_solicit
	ip link set $IF up || die "$IF up"
	carrier_on $IF && ok "$IF up, carrier on (broadcast group joined)" || bad "$IF: no carrier"
	PEER_HW=$(peer_exchange "$(cat $net/$IF/address)")
}

# sib2_ipoib_up: sib2_up with OpenSM serving ipoib_partitions 0x8002, then
# ipoib2_up. -t 1000: a loaded host delays the other VM's answers past
# OpenSM's default 200 ms per SMP (and its retries): it then drops that
# port and sweeps it in again (CLIENT_REREGISTER, every IPoIB group joined
# again).
sib2_ipoib_up() {
	is_sm && ipoib_partitions 0x8002
	sib2_up -t 1000 -P $osm/partitions.conf
	ipoib2_up
}

# neigh_is IP IF HW: the neighbour entry of IP on IF names HW
neigh_is() {
	ip neigh show "$1" dev "$2" | grep -q "lladdr $3 "
}
