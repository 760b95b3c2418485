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
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

inject="python3 $RDMA_KMOD_SRC/selftests/vm/roce_inject.py"
tools=${RDMA_KMOD_TOOLS:-$RDMA_KMOD_SRC/build/tools}
DEST_QPN=0x4242 PSN_A=0x123456 PSN_B=0xfffffe QKEY=0x11111111
# b"rdma-kmod wire-robust valid s", sent by roce_inject.py robust
VALID_HEX=72646d612d6b6d6f6420776972652d726f627573742076616c69642073

i=0
until busybox ping -c 1 -W 1 "$RDMA_KMOD_PEER_IP" >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 60 ] || die "peer $RDMA_KMOD_PEER_IP unreachable"
done

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
	finish
	exit
fi

rxe_up || die "rxe0"
gi=$(ipv4_gid_index) || die "no IPv4 GID"
dev=/sys/class/infiniband/rxe0
oos_file=$dev/ports/1/hw_counters/out_of_seq_request

# snap PREFIX: rx_drops and out_of_seq_request into ${PREFIX}_<reason>
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
rm -f /tmp/wr.in
mkfifo /tmp/wr.in
"$tools/rxe_wire_target" rxe0 "$gi" "$RDMA_KMOD_PEER_IP" $DEST_QPN \
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

$inject rv-put 7471 "$info" --timeout 180 || bad "attacker never fetched the target info"
res=$($inject rv-get "$RDMA_KMOD_PEER_IP" 7472 --timeout 240)
expect_eq "attacker finished, its checks passed" "$res" "DONE 0"

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
rdma link delete rxe0 || bad "link delete"
finish
