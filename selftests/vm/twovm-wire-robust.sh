#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Hostile packets from the wire (issue 3, robustness). The client VM (vm1,
# the stack under test) runs rxe_wire_target: RC QPs A and B and a UD QP
# aimed at the peer, a receive posted, a buffer registered with remote read
# only. The server VM (vm2) loads no rxe: roce_inject.py owns UDP port 4791
# there, sends crafted packets (bad ICRC, unknown opcodes, bad lengths, bad
# P_Key/TVer/QPN/transport/Q_Key, out-of-window PSNs, one valid SEND, RDMA WRITEs the
# MR forbids or with a bad rkey, a SEND to the QP in error) and checks the
# ACK/NAKs that come back. vm1 then checks what its stack did: the valid
# SEND completed with its bytes, the buffer is unchanged, A and B are in
# error, and every drop was counted (rx_drops, out_of_seq_request,
# bad_pkey_cntr, qkey_viol_cntr). The runner checks dmesg for splats.
#
# When vm1 runs our stack, a second round does the same in RoCE v1: the
# target's QPs use its RoCE v1 GID, the attacker sends raw 0x8915 frames
# (bad ICRC, GRH IPVer and NxtHdr, PayLen short and long, a DGID not ours,
# then one valid SEND that must be ACKed in RoCE v1).
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

inject="python3 $RDMA_KMOD_SRC/selftests/vm/roce_inject.py"
tools=${RDMA_KMOD_TOOLS:-$RDMA_KMOD_SRC/build/tools}
DEST_QPN=0x4242 PSN_A=0x123456 PSN_B=0xfffffe QKEY=0x11111111
# b"rdma-kmod wire-robust valid s", sent by roce_inject.py robust
VALID_HEX=72646d612d6b6d6f6420776972652d726f627573742076616c69642073

wait_peer

if [ "$RDMA_KMOD_ROLE" = server ]; then
	# the attacker: no rxe here (an earlier test may have loaded one;
	# its UDP socket would hold port 4791), port 4791 is ours
	if [ -d /sys/module/rdma_rxe ]; then
		rdma link delete rxe0 2>/dev/null
		rmmod rdma_rxe || die "cannot unload rdma_rxe: port 4791 taken"
	fi
	if $inject robust --peer "$RDMA_KMOD_PEER_IP" --psn-a $PSN_A \
		--psn-b $PSN_B --dest-qpn $DEST_QPN --qkey $QKEY >/tmp/inj.out 2>&1; then
		ok "attacker: every reply as IBA says"
	else
		bad "attacker"
	fi
	cat /tmp/inj.out
	if [ "${RDMA_KMOD_PEER_STACK:-}" = ours ]; then
		if $inject robust-v1 --peer "$RDMA_KMOD_PEER_IP" --psn-a $PSN_A \
			--dest-qpn $DEST_QPN --info-port 7473 --done-port 7474 \
			>/tmp/inj.out 2>&1; then
			ok "attacker, RoCE v1: every reply as IBA says"
		else
			bad "attacker, RoCE v1"
		fi
		cat /tmp/inj.out
	fi
	finish
	exit
fi

rxe_up || die "rxe0"
gi=$(ipv4_gid_index) || die "no IPv4 GID"
dev=/sys/class/infiniband/rxe0
oos_file=$dev/ports/1/hw_counters/out_of_seq_request

# snap PREFIX: rx_drops and out_of_seq_request into ${PREFIX}_<reason>
# (the grh reason exists on our stack only)
snap() {
	if [ -r $dev/rx_drops ]; then
		while read -r k v; do
			eval "${1}_$k=$v"
		done <$dev/rx_drops
	fi
	read -r v <$oos_file || v=x
	eval "${1}_oos=$v"
}
snap before

[ -x "$tools/rxe_wire_target" ] || die "$tools/rxe_wire_target missing (make tools)"

# target GID_INDEX INFO_PORT DONE_PORT: starts rxe_wire_target (commands on
# fd 3, output in /tmp/wr.out, pid in $tpid), hands its INFO line and our
# MAC to the attacker and waits for the attacker's verdict.
target() {
	rm -f /tmp/wr.in
	mkfifo /tmp/wr.in
	"$tools/rxe_wire_target" rxe0 "$1" "$RDMA_KMOD_PEER_IP" $DEST_QPN \
		$PSN_A $PSN_B $QKEY </tmp/wr.in >/tmp/wr.out 2>&1 &
	tpid=$!
	exec 3>/tmp/wr.in
	info=""
	for _ in $(seq 100); do
		read -r info </tmp/wr.out 2>/dev/null
		case "$info" in INFO*|FATAL*) break ;; esac
		sleep 0.2
	done
	case "$info" in
	INFO*) ok "target up: $info" ;;
	*) cat /tmp/wr.out; die "target did not start" ;;
	esac
	read -r mac </sys/class/net/eth0/address
	$inject rv-put "$2" "$info $mac" --timeout 180 ||
		bad "attacker never fetched the target info"
	res=$($inject rv-get "$RDMA_KMOD_PEER_IP" "$3" --timeout 240)
	expect_eq "attacker finished, its checks passed" "$res" "DONE 0"
}
target "$gi" 7471 7472

printf 'poll\nstate\ncheck\nport\nquit\n' >&3
exec 3>&-
wait $tpid || bad "target exit status"
out=$(cat /tmp/wr.out)
echo "$out" | sed 's/^/  target: /'

# shellcheck disable=SC2086
set -- $info
wcs=$(echo "$out" | grep '^wc ')
expect_eq "exactly the valid SEND completed, with its bytes" "$wcs" \
	"wc qp=$2 status=0 opcode=128 len=29 data=$VALID_HEX"
expect_eq "QP A and B in error, UD QP untouched" \
	"$(echo "$out" | grep '^state ')" "state ERR ERR RTS"
expect_eq "buffer without remote write unchanged" \
	"$(echo "$out" | grep '^buffer ')" "buffer unchanged"
expect_eq "bad P_Key and Q_Key counted in the port attributes" \
	"$(echo "$out" | grep '^port ')" "port bad_pkey_cntr 1 qkey_viol_cntr 1"

snap after
# shellcheck disable=SC2154
# one NAK for two far-ahead PSNs: stock counts NAKs, not dropped packets
expect_eq "out_of_seq_request counts the PSN sequence NAK" \
	"$((after_oos - before_oos))" 1
# shellcheck disable=SC2154
if [ -r $dev/rx_drops ]; then
	got="icrc $((after_icrc - before_icrc)) opcode $((after_opcode - before_opcode))"
	got="$got version $((after_version - before_version)) qpn $((after_qpn - before_qpn))"
	got="$got qp_type $((after_qp_type - before_qp_type)) qp_state $((after_qp_state - before_qp_state))"
	got="$got length $((after_length - before_length)) dgid $((after_dgid - before_dgid))"
	expect_eq "rx_drops counted each drop by reason" "$got" \
		"icrc 1 opcode 3 version 1 qpn 1 qp_type 1 qp_state 1 length 3 dgid 0"
else
	[ "$RDMA_KMOD_STACK" = stock ] || bad "no $dev/rx_drops"
fi

if [ "$RDMA_KMOD_STACK" = ours ]; then
	g1=$(ipv4_gid_index "IB/RoCE v1") || die "no IPv4 RoCE v1 GID"
	read -r v1rx_before <$dev/ports/1/hw_counters/rcvd_pkts_roce_v1
	read -r v1tx_before <$dev/ports/1/hw_counters/sent_pkts_roce_v1
	snap before
	target "$g1" 7473 7474
	printf 'poll\nstate\nquit\n' >&3
	exec 3>&-
	wait $tpid || bad "RoCE v1 target exit status"
	out=$(cat /tmp/wr.out)
	echo "$out" | sed 's/^/  target v1: /'
	# shellcheck disable=SC2086
	set -- $info
	expect_eq "RoCE v1: exactly the valid SEND completed, with its bytes" \
		"$(echo "$out" | grep '^wc ')" \
		"wc qp=$2 status=0 opcode=128 len=29 data=$VALID_HEX"
	snap after
	got="icrc $((after_icrc - before_icrc)) grh $((after_grh - before_grh))"
	got="$got length $((after_length - before_length)) dgid $((after_dgid - before_dgid))"
	got="$got opcode $((after_opcode - before_opcode)) qpn $((after_qpn - before_qpn))"
	expect_eq "RoCE v1: rx_drops counted each drop by reason" "$got" \
		"icrc 1 grh 2 length 2 dgid 1 opcode 0 qpn 0"
	read -r v1rx <$dev/ports/1/hw_counters/rcvd_pkts_roce_v1
	read -r v1tx <$dev/ports/1/hw_counters/sent_pkts_roce_v1
	expect_eq "RoCE v1: one frame accepted, one ACK sent" \
		"$((v1rx - v1rx_before)) $((v1tx - v1tx_before))" "1 1"
fi
rdma link delete rxe0 || bad "link delete"
finish
