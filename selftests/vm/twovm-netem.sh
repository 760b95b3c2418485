#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# peer-stacks: stock ours
#
# Issue 13: RC over a bad wire. Both VMs put a netem qdisc on eth0 (loss,
# duplication, delay with jitter and reordering; NETEM overrides it), then
# build/tools/rc_soak moves SOAK_BYTES per opcode family (SEND, WRITE with
# WRITE_WITH_IMM, READ, and on RoCE fetch-add/compare-swap) over rxe0 and
# then over siw0, each VM once as server and once as client, every byte
# verified by rc_soak. Both ends must exit 0 (no corrupt byte, no WC error,
# no stuck QP); with loss, the retry counters (rxe hw_counters, TCP
# retransmits for siw) summed over both VMs must have moved; no siw TCP
# connection may stay behind after its QP is gone. SOAK_BYTES=1073741824 is
# the long run; SOAK_MTU, SOAK_ONEWAY, SOAK_FAMILY, NETEM with commas for
# spaces are its
# knobs (Documentation/testing.md).
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

bytes=${SOAK_BYTES:-524288}
# NETEM: commas stand for spaces (run.sh --env takes no spaces or %; tc
# reads a bare number after loss/duplicate/reorder as percent).
netem=$(echo "${NETEM:-loss 3% duplicate 1% delay 1ms 1ms reorder 10%}" | tr , ' ')
# SOAK_MTU: eth0's MTU in both VMs (9000: rxe's path MTU becomes 4096).
mtu=${SOAK_MTU:-}
soak=$RDMA_KMOD_SRC/build/tools/rc_soak
drivers=$(echo "${SOAK_DRIVERS:-rxe siw}" | tr , ' ')
# SOAK_ONEWAY=1: only the first pass, where the VM of role client (ours, on
# --two-vm) is rc_soak's client: half the time for a long soak.
sroles="server client"
[ "${SOAK_ONEWAY:-0}" = 1 ] && sroles=server
# SOAK_FAMILY: one of send, write, read, atomic (all of them if unset).
family=${SOAK_FAMILY:-all}
# rc_soak --ack-timeout: rxe's retransmission timeout, 4.096 us * 2^T (67 ms)
ackt="--ack-timeout ${SOAK_ACK_TIMEOUT:-14}"
tf=${RDMA_KMOD_TIME_FACTOR:-1}
# The step's limit: generous, rc_soak's own stall check is what fails first.
t=$((300 + bytes / 1048576 * 20))

[ -x "$soak" ] || die "no $soak (make tools)"
modprobe sch_netem || die "modprobe sch_netem"
if [ -n "$mtu" ]; then
	ip link set dev eth0 mtu "$mtu" || die "eth0 mtu $mtu"
fi
wait_peer
# shellcheck disable=SC2086
tc qdisc add dev eth0 root netem $netem || die "tc qdisc add netem $netem"
echo "netem on eth0: $(tc qdisc show dev eth0), mtu $(cat /sys/class/net/eth0/mtu)"
case "$netem" in *loss*) lossy=1 ;; *) lossy=0 ;; esac

# soak DEV PORT CHUNK [OPTION...]: rc_soak both ways over DEV, CHUNK bytes
# per work request; sums this VM's retries.
retries=0
soak() {
	dev=$1 port=$2 chunk=$3
	shift 3
	for srole in $sroles; do
		peer_barrier || echo "note: peer did not come to the step"
		if [ "$RDMA_KMOD_ROLE" = "$srole" ]; then
			step "rc_soak $dev, $bytes bytes per family" $srole $t \
				"$soak" --dev "$dev" --port "$port" --seed "$port" $ackt "$@" --server
		else
			step "rc_soak $dev, $bytes bytes per family" $srole $t \
				"$soak" --dev "$dev" --port "$port" --seed "$port" \
				--chunk "$chunk" --bytes "$bytes" --family $family $ackt "$@" --client
		fi
		grep '^rc_soak: ' /tmp/step.out | grep -v listening
		r=$(sed -n "s/^rc_soak: $dev retries //p" /tmp/step.out)
		retries=$((retries + ${r:-0}))
		if [ $side = client ] && [ $rc = 0 ]; then
			n=$(grep -cE "^rc_soak: $dev ((send|write|read) bytes $bytes|atomic bytes [0-9]+) ops [0-9]+ corrupt 0 " /tmp/step.out)
			want=4
			[ "$dev" = siw0 ] && want=3	# iWARP: no atomics
			[ "$family" = all ] || want=1
			[ "$family.$dev" = atomic.siw0 ] && want=0
			[ "$n" = $want ] && ok "rc_soak $dev: $n families verified" ||
				bad "rc_soak $dev: $n of $want families verified"
		fi
		port=$((port + 1))
	done
}

# retries_moved DEV: with loss, some retry counter moved (both VMs summed).
retries_moved() {
	other=$(peer_exchange "$retries")
	all=$((retries + ${other:-0}))
	if [ $lossy = 0 ]; then
		ok "$1: $all retries (no loss configured)"
	elif [ "$all" -gt 0 ]; then
		ok "$1: $all retries under loss (here $retries, peer $other)"
	else
		bad "$1: no retries although netem drops packets"
	fi
	retries=0
}

# no_tcp_left PORT...: siw's TCP connections on the test's ports are gone
# (TIME-WAIT aside) once rc_soak exited on both sides: an orphaned socket
# holding an unacknowledged FIN would stay forever. Up to 30 s for the last
# FIN exchanges under loss.
no_tcp_left() {
	filt=""
	for p in "$@"; do filt="$filt${filt:+ or }sport = :$p or dport = :$p"; done
	for _ in $(seq $((30 * tf))); do
		left=$(ss -tanH "( $filt )" 2>/dev/null | grep -v TIME-WAIT)
		[ -z "$left" ] && break
		sleep 1
	done
	if [ -z "$left" ]; then
		ok "siw: no TCP connection left behind"
	else
		bad "siw: TCP connections left behind"
		ss -tanoieH "( $filt )" 2>/dev/null
	fi
}

for drv in $drivers; do
	case $drv in
	rxe)
		modprobe rdma_rxe && modprobe ib_uverbs && modprobe rdma_ucm || die "modules"
		rdma link add rxe0 type rxe netdev eth0 || die "rxe0"
		ipv4_gid_index >/dev/null || die "no IPv4 GID on rxe0"
		ibv_devinfo -d rxe0 2>/dev/null | grep -m1 active_mtu
		# 4 packets per message at rxe's 1024-byte MTU: go-back-N under
		# this much loss and reordering moves 64 KiB messages at a crawl.
		# The stock requester counts every sequence NAK against the retry
		# count and ends in "retry exceeded" within seconds here (ours
		# counts from the last progress): retry 7, for ever on both, and
		# rc_soak's stall check catches a QP that makes no progress.
		soak rxe0 18600 "${SOAK_RXE_CHUNK:-4096}" --retry 7
		retries_moved rxe0
		peer_barrier
		# One device on eth0 at a time: rdma_cm picks the device by address.
		rdma link delete rxe0 || bad "rxe0 link delete"
		;;
	siw)
		siw_up || die "siw0 up"
		soak siw0 18610 65536
		retries_moved siw0
		peer_barrier
		no_tcp_left 18610 18611
		rdma link delete siw0 || bad "siw0 link delete"
		;;
	esac
done
tc qdisc del dev eth0 root || bad "tc qdisc del"
finish
