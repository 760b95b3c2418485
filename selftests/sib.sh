# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Two sib ports cabled back to back and an unmodified OpenSM sweeping them,
# for the VM selftests on sib (sourced after lib.sh, not run). OpenSM is
# started as seed 002 ch. 5 starts it (`opensm -g GUID`), on sib0's port.

ib=/sys/class/infiniband
tf=${RDMA_KMOD_TIME_FACTOR:-1}
# the VM's root file system is read-only: OpenSM's cache, log and the
# files a test gives it (partitions.conf, opensm.conf) go here
osm=/tmp/osm
osm_pid=""

# sib_cable: the veth pair vethA/vethB, MTU 2200: room for a 2048-byte IB
# MTU and the 86 bytes of LRH, GRH, BTH, RETH, ImmDt, ICRC and VCRC
sib_cable() {
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

port_attr() { # DEV ATTR: a sysfs attribute of DEV's port 1
	cat $ib/$1/ports/1/$2
}

is_active() { # DEV
	grep -q ACTIVE $ib/$1/ports/1/state
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

need_opensm() {
	command -v opensm >/dev/null ||
		die "opensm not installed (scripts/setup.sh installs it)"
}

# osm_start [OPENSM OPTIONS]: OpenSM on sib0's port, in the background
osm_start() {
	mkdir -p $osm
	OSM_CACHE_DIR=$osm OSM_TMP_DIR=$osm opensm -g "$(guid_of sib0)" \
		-f $osm/opensm.log "$@" > $osm/out 2>&1 &
	osm_pid=$!
}

osm_stop() {
	[ -n "$osm_pid" ] || return 0
	kill "$osm_pid" 2>/dev/null
	wait "$osm_pid" 2>/dev/null
	osm_pid=""
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

# pkey_viol DEV: PortInfo P_KeyViolations of its port, read by an SMP
pkey_viol() {
	smpquery -C "$1" -P 1 portinfo "$(($(port_attr "$1" lid)))" |
		sed -n 's/^PkeyViolations:\.*//p'
}

# IPoIB on them (ib_ipoib loaded)
net=/sys/class/net

# ipoib_of DEV: the IPoIB interface whose address ends in DEV's GID 0
ipoib_of() {
	g=$(tr -d : < $ib/$1/ports/1/gids/0)
	for d in $net/*; do
		[ "$(cat "$d/type" 2>/dev/null)" = 32 ] || continue
		[ "$(tr -d : < "$d/address" | cut -c9-)" = "$g" ] && { basename "$d"; return 0; }
	done
	return 1
}

# carrier_on [NSEXEC] IF: carrier within a minute
carrier_on() {
	for _ in $(seq $((60 * tf))); do
		[ "$($1 cat $net/$2/carrier 2>/dev/null)" = 1 ] && return 0
		sleep 1
	done
	return 1
}
