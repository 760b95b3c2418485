# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# IPoIB between two VMs on sib (issue 16), for the twovm-ipoib* tests
# (sourced after lib.sh, not run). Each VM makes sib0 on eth0 (MTU 2200:
# an IB MTU of 2048); an unmodified OpenSM in the server VM sweeps both
# ports with the default partition and 0x8002, each with its IPoIB
# groups; ib_ipoib's interface on sib0 gets 198.18.77.N/24 and
# fd00:1b::N/64, N = 1 in vm1 (role client), 2 in the server VM (not
# 192.0.2.0/24: eth0 has addresses there).

tf=${RDMA_KMOD_TIME_FACTOR:-1}
ib=/sys/class/infiniband
net=/sys/class/net
port=$ib/sib0/ports/1
osm=/tmp/osm
osm_pid=""
if [ "$RDMA_KMOD_ROLE" = server ]; then n=2 pn=1; else n=1 pn=2; fi
ME4=198.18.77.$n PEER4=198.18.77.$pn ME6=fd00:1b::$n PEER6=fd00:1b::$pn

# busybox's: Debian's iputils-ping is not in every image
ping() {
	busybox ping "$@"
}

is_sm() {
	[ "$RDMA_KMOD_ROLE" = server ]
}

# osm_start: OpenSM on sib0 of this VM. The VM's root file system is
# read-only: cache and log in /tmp. A loaded host delays the other VM's
# answers past OpenSM's default 200 ms per SMP (and its retries): it then
# drops that port and sweeps it in again (CLIENT_REREGISTER, every IPoIB
# group joined again).
osm_start() {
	OSM_CACHE_DIR=$osm OSM_TMP_DIR=$osm opensm -g "0x$(tr -d : < $ib/sib0/node_guid)" \
		-t 1000 -P $osm/partitions.conf -f $osm/opensm.log >> $osm/out 2>&1 &
	osm_pid=$!
}

osm_stop() {
	[ -n "$osm_pid" ] || return 0
	kill "$osm_pid" 2>/dev/null
	wait "$osm_pid" 2>/dev/null
	osm_pid=""
}

# The port events of sib0 as user space gets them, in /tmp/aw.out;
# aw_seen looks after the mark aw_set_mark put.
aw_pid="" aw_mark=0
aw_start() {
	stdbuf -oL ibv_asyncwatch -d sib0 > /tmp/aw.out 2>&1 &
	aw_pid=$!
}

aw_set_mark() {
	aw_mark=$(wc -l < /tmp/aw.out)
}

aw_seen() {
	tail -n +$((aw_mark + 1)) /tmp/aw.out | grep -q "$1"
}

# osm_restarted: once the server VM started OpenSM again (aw_set_mark
# before it went), this port was told to register again within a minute,
# never left ACTIVE and kept its LID
osm_restarted() {
	for _ in $(seq $((60 * tf))); do
		aw_seen CLIENT_REREGISTER && break
		sleep 1
	done
	aw_seen CLIENT_REREGISTER && ok "CLIENT_REREGISTER from the restarted OpenSM" ||
		bad "no CLIENT_REREGISTER after OpenSM's restart: $(cat /tmp/aw.out)"
	aw_seen PORT_ERR && bad "sib0 left ACTIVE over the restart" ||
		ok "no PORT_ERR over the restart"
	expect_eq "LID kept" "$(cat $port/lid)" "$LID"
}

port_active() {
	for _ in $(seq $((60 * tf))); do
		grep -q ACTIVE $port/state && return 0
		sleep 1
	done
	return 1
}

# carrier_on IF: carrier within a minute (its groups joined)
carrier_on() {
	for _ in $(seq $((60 * tf))); do
		[ "$(cat $net/$1/carrier 2>/dev/null)" = 1 ] && return 0
		sleep 1
	done
	return 1
}

# sib2_up: sib0 on eth0 on both sides, OpenSM in the server VM, both
# ports ACTIVE; sets LID to this port's LID.
sib2_up() {
	wait_peer
	state=ready
	modprobe rdma_rxe && modprobe ib_umad && modprobe ib_uverbs && modprobe rdma_ucm ||
		state=no-modules
	is_sm && ! command -v opensm >/dev/null && state=no-opensm
	[ $state = ready ] && { ip link set eth0 mtu 2200 || state=no-mtu; }
	[ $state = ready ] && { rdma link add sib0 type sib netdev eth0 || state=no-sib0; }
	peer_agree $state "sib0 on eth0"
	aw_start
	if is_sm; then
		mkdir -p $osm
		cat > $osm/partitions.conf <<EOF
Default=0x7fff, ipoib, defmember=full : ALL=full ;
part2=0x8002, ipoib, defmember=full : ALL=full ;
EOF
		osm_start
	fi
	port_active && ok "sib0 ACTIVE under OpenSM" || bad "sib0 not ACTIVE: $(cat $port/state)"
	LID=$(cat $port/lid)
	peer_agree "$( grep -q ACTIVE $port/state && echo ready || echo not-active)" "sib0 ACTIVE"
}

# ipoib_of DEV: the IPoIB interface whose address ends in DEV's GID 0
ipoib_of() {
	g=$(tr -d : < $ib/$1/ports/1/gids/0)
	for d in $net/*; do
		[ "$(cat "$d/type" 2>/dev/null)" = 32 ] || continue
		[ "$(tr -d : < "$d/address" | cut -c9-)" = "$g" ] && { basename "$d"; return 0; }
	done
	return 1
}

# ipoib2_up: ib_ipoib's interface IF on sib0, addressed and up with its
# broadcast group joined; PEER_HW is the peer's 20-byte address.
ipoib2_up() {
	modprobe ib_ipoib || die "modprobe ib_ipoib"
	ulp_ours ib_ipoib
	# its debug messages (flushes, failed joins and paths) for the log
	echo "module ib_ipoib +p" > /sys/kernel/debug/dynamic_debug/control 2>/dev/null
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

# sib2_down: both sides done, then OpenSM, ib_ipoib and sib0 go
sib2_down() {
	peer_barrier
	osm_stop
	kill "$aw_pid" 2>/dev/null
	wait "$aw_pid" 2>/dev/null
	[ -s $osm/opensm.log ] && grep -E "ERR [0-9A-F]{4}" $osm/opensm.log | head -5
	rmmod ib_ipoib 2>/dev/null
	rdma link delete sib0 || bad "link delete sib0"
	ip link set eth0 mtu 1500
}

# neigh_is IP IF HW: the neighbour entry of IP on IF names HW
neigh_is() {
	ip neigh show "$1" dev "$2" | grep -q "lladdr $3 "
}
