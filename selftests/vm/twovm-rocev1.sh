#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# peer-stacks: stock ours
#
# RoCE v1 (ethertype 0x8915) on the wire between two VMs.
#
# Peer ours: RC and UD over the RoCE v1 GIDs, vm2 the server and vm1 the
# client (ibv_rc_pingpong, ibv_ud_pingpong, ib_send_bw, ib_write_bw,
# ib_read_bw; not ib_send_bw -c UD: it waits forever for any datagram the
# VM link loses, in RoCE v2 as well); vm1 captures eth0 and checks that only
# 0x8915 frames flowed (no UDP 4791) and that their ICRCs are right
# (roce_inject.py selftest, an implementation independent of the kernel's);
# both check their RoCE v1 packet counters. With rdma_cm configfs
# (default_roce_mode), rping over RoCE v1, and the passive side answering in
# the version the request came in whatever its own default.
#
# Peer stock (RoCE v2 only): a QP on our RoCE v1 GID sends to it and ends
# with a retry-exceeded completion, no hang; with configfs, an rdma_cm
# client in RoCE v1 gets RDMA_CM_EVENT_UNREACHABLE.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

modprobe rdma_rxe && modprobe ib_uverbs && modprobe rdma_ucm || die "modules"
rdma link add rxe0 type rxe netdev eth0 || die "rxe0"
wait_peer
hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
inject="python3 $RDMA_KMOD_SRC/selftests/vm/roce_inject.py"
tools=${RDMA_KMOD_TOOLS:-$RDMA_KMOD_SRC/build/tools}
cfs=/sys/kernel/config/rdma_cm

if [ "$RDMA_KMOD_STACK" = stock ] && [ "${RDMA_KMOD_PEER_STACK:-}" = stock ]; then
	ok "stock on both ends: no RoCE v1 to test"
	rdma link delete rxe0
	finish
	exit
fi

# counters NAME: "sent rcvd sent_v1 rcvd_v1" of rxe0, into $NAME
counters() {
	read -r a <$hw/sent_pkts
	read -r b <$hw/rcvd_pkts
	read -r c <$hw/sent_pkts_roce_v1
	read -r d <$hw/rcvd_pkts_roce_v1
	eval "$1=\"$a $b $c $d\""
}

# capture_start SNAPLEN FILE / capture_stop: RoCE frames on eth0 (vm1 only)
capture_start() {
	[ "$RDMA_KMOD_ROLE" = client ] || return 0
	tcpdump -i eth0 -nn -s "$1" -w "$2" 'ether proto 0x8915 or udp port 4791' \
		>/tmp/tcpdump.log 2>&1 &
	cap_pid=$!
	sleep 2
}
capture_stop() {
	[ "$RDMA_KMOD_ROLE" = client ] || return 0
	sleep 1
	kill -INT $cap_pid
	wait $cap_pid
}
# frames FILE FILTER: how many captured frames match (tcpdump prints one
# line per frame starting with its time, and hex lines for unknown types)
frames() {
	tcpdump -nn -r "$1" "$2" 2>/dev/null | grep -c '^[0-9]'
}

# roce_mode MODE: rdma_cm's default RoCE version for rxe0 port 1 (configfs)
roce_mode() {
	[ -d $cfs/rxe0 ] || mkdir $cfs/rxe0 2>/dev/null || return 1
	echo "$1" >$cfs/rxe0/ports/1/default_roce_mode 2>/dev/null
}

if [ "$RDMA_KMOD_STACK" = stock ] || [ "${RDMA_KMOD_PEER_STACK:-}" = stock ]; then
	# one end stock: it keeps rxe0 up (RoCE v2 only) while ours probes it
	if [ "$RDMA_KMOD_STACK" = stock ]; then
		# a listener: a RoCE v1 REQ must time out, not be rejected
		mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
		timeout 600 rping -s -a "$mine" -C 1 >/dev/null 2>&1 &
		rpid=$!
		res=$($inject rv-get "$RDMA_KMOD_PEER_IP" 7481 --timeout 600)
		expect_eq "ours finished its RoCE v1 probes" "$res" "DONE"
		kill $rpid 2>/dev/null
		wait $rpid 2>/dev/null
		rdma link delete rxe0 || bad "link delete"
		finish
		exit
	fi
	g1=$(ipv4_gid_index "IB/RoCE v1") || die "no IPv4 RoCE v1 GID"
	counters c0
	capture_start 128 /tmp/probe.pcap
	out=$(printf 'probe\nquit\n' | timeout 180 "$tools/rxe_wire_target" rxe0 "$g1" \
		"$RDMA_KMOD_PEER_IP" 0x4242 1 2 0x11111111 2>&1)
	capture_stop
	echo "$out" | sed 's/^/  target: /'
	expect_eq "RoCE v1 QP against a RoCE v2-only peer: retry exceeded" \
		"$(echo "$out" | grep '^probe')" "probe status=12"
	counters c1
	# shellcheck disable=SC2086
	set -- $c0 $c1
	[ $(($7 - $3)) -ge 3 ] && ok "RoCE v1 sends and retries counted ($(($7 - $3)))" ||
		bad "RoCE v1 sent_pkts $3 -> $7"
	expect_eq "nothing came back" "$(($8 - $4))" 0
	n=$(frames /tmp/probe.pcap 'ether proto 0x8915 and ether dst host 52:54:00:12:34:52')
	[ "$n" -ge 3 ] && ok "$n RoCE v1 frames to the peer on the wire" ||
		bad "$n RoCE v1 frames to the peer captured"
	if [ -d $cfs ] && roce_mode "IB/RoCE v1"; then
		sleep 3
		timeout 300 rping -c -a "$RDMA_KMOD_PEER_IP" -C 1 >/tmp/rping.out 2>&1
		rc=$?
		if [ $rc != 0 ] && [ $rc != 124 ] &&
		   grep -q 'RDMA_CM_EVENT_UNREACHABLE' /tmp/rping.out; then
			ok "rping in RoCE v1 against a RoCE v2-only server: unreachable"
		else
			bad "rping in RoCE v1 against RoCE v2 only (exit $rc)"
			cat /tmp/rping.out
		fi
		roce_mode "RoCE v2"
		rmdir $cfs/rxe0
	else
		ok "skipped rdma_cm in RoCE v1: no rdma_cm configfs"
	fi
	$inject rv-put 7481 DONE --timeout 120 || bad "peer never collected DONE"
	rdma link delete rxe0 || bad "link delete"
	finish
	exit
fi

# ---- ours on both ends ----
# vm1 captures each phase; the captures are checked at the end, so that
# the slow reading of large captures under TCG cannot put the two VMs out
# of step. /tmp/checks: "FILE|FILTER|NAME|MIN" per capture (no frame may
# fail FILTER, at least MIN must pass it). The same stack on both ends:
# vm2 (role server) serves every step (swapping would run the same code).
: >/tmp/checks
g1=$(ipv4_gid_index "IB/RoCE v1") || die "no IPv4 RoCE v1 GID"
counters c0
capture_start 0 /tmp/v1.pcap
step "rc_pingpong RoCE v1" server 60 ibv_rc_pingpong -d rxe0 -g "$g1" -n 100
step "ud_pingpong RoCE v1" server 60 ibv_ud_pingpong -d rxe0 -g "$g1" -n 100
capture_stop
echo "/tmp/v1.pcap|ether proto 0x8915|pingpongs|400" >>/tmp/checks
# 4 KiB messages (four packets each): perftest's 64 KiB default made 39000
# frames, whose reading back took make check 100 s
capture_start 96 /tmp/v1bw.pcap
step "ib_send_bw RoCE v1" server 120 ib_send_bw -d rxe0 -x "$g1" -s 4096 -n 200
step "ib_write_bw RoCE v1" server 120 ib_write_bw -d rxe0 -x "$g1" -s 4096 -n 200
step "ib_read_bw RoCE v1" server 120 ib_read_bw -d rxe0 -x "$g1" -s 4096 -n 200
capture_stop
echo "/tmp/v1bw.pcap|ether proto 0x8915|perftest|1000" >>/tmp/checks
counters c1
# shellcheck disable=SC2086
set -- $c0 $c1
# every packet either way was RoCE v1
expect_eq "all packets sent were RoCE v1" "$(($5 - $1))" "$(($7 - $3))"
expect_eq "all packets received were RoCE v1" "$(($6 - $2))" "$(($8 - $4))"
[ $(($7 - $3)) -ge 1000 ] && ok "RoCE v1 packets sent: $(($7 - $3))" ||
	bad "RoCE v1 packets sent: $(($7 - $3))"

# rdma_cm (GSI QP1, the CM) over RoCE v1: needs configfs default_roce_mode
if [ -d $cfs ] && roce_mode "IB/RoCE v1"; then
	mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')
	ncm=0
	# cm_case NAME SERVER-MODE CLIENT-MODE WANT-FILTER
	cm_case() {
		if [ "$RDMA_KMOD_ROLE" = server ]; then
			roce_mode "$2" || bad "configfs $2"
		else
			roce_mode "$3" || bad "configfs $3"
		fi
		ncm=$((ncm + 1))
		capture_start 128 /tmp/cm$ncm.pcap
		# line-buffered: a failing step shows how far it got
		if [ "$RDMA_KMOD_ROLE" = server ]; then
			step "$1" server 120 stdbuf -oL rping -s -a "$mine" -C 20 -v
		else
			step "$1" server 120 stdbuf -oL rping -c -C 20 -v -a
		fi
		capture_stop
		echo "/tmp/cm$ncm.pcap|$4|$1, vm1 $side|100" >>/tmp/checks
	}
	cm_case "rping RoCE v1" "IB/RoCE v1" "IB/RoCE v1" "ether proto 0x8915"
	# the passive side answers in the version of the request
	cm_case "rping v1 client, v2 server" "RoCE v2" "IB/RoCE v1" "ether proto 0x8915"
	cm_case "rping v2 client, v1 server" "IB/RoCE v1" "RoCE v2" "udp port 4791"
	roce_mode "RoCE v2"
	rmdir $cfs/rxe0 || bad "rmdir configfs rxe0"
else
	ok "skipped rdma_cm over RoCE v1: no rdma_cm configfs"
fi
sleep 2
rdma link delete rxe0 || bad "link delete"

if [ "$RDMA_KMOD_ROLE" = client ]; then
	while IFS='|' read -r f want name min; do
		n=$(frames "$f" "$want")
		o=$(frames "$f" "not ($want)")
		if [ "$n" -ge "$min" ] && [ "$o" = 0 ]; then
			ok "on the wire, $name: $n frames, all '$want'"
		else
			bad "on the wire, $name: $n frames '$want', $o others"
			$inject mads "$f"
		fi
	done </tmp/checks
	res=$($inject selftest /tmp/v1.pcap)
	case "$res" in
	*" 0 bad "*) ok "ICRC of every captured frame right: $res" ;;
	*) bad "ICRC of the captured frames: $res" ;;
	esac
fi
finish
