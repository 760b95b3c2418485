#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdma-kmod: second-lane
#
# rdma_cm over IPoIB addresses on sib, the soft InfiniBand HCA (issue 16):
# two sib ports cabled back to back (a veth pair of MTU 2200), swept by an
# unmodified OpenSM, each with its IPoIB interface (ours, datagram mode),
# the one on sib1 in a network namespace. Every tool runs its server in
# one namespace and its client in the other, over the IPoIB addresses, so
# that what connects went through rdma_cm's InfiniBand side: address
# resolution to the peer's 20-byte hardware address (ARP), the route as an
# SA PathRecord (LIDs, SL, MTU), ib_cm's REQ over LIDs, the listener found
# through ib_ipoib's interface lookup in the server's namespace, SIDR and
# the UD Q_Key, and a multicast group joined through the SA. Checked:
# rping -v -V (data verified) both ways, IPv6 too; ucmatose; udaddy; mckey
# (IPv4 and IPv6 groups); qperf -cm1; ib_send_bw -R and ib_write_bw -R; the
# route's PathRecord (LIDs) as librdmacm sees it; a connected id in
# `rdma resource show cm_id`; a wildcard listener in
# the other namespace does not get a request for an address of the
# namespace; the route handed in with RDMA_OPTION_IB_PATH; both ends on one
# port. ROUTE_ERROR, never a hang: a GID the SA does not know (its error
# status), OpenSM gone (the SM's port refuses the class), no SM's port at
# all (the query's timeout).
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/sib.sh"

need_sib
need_opensm

# an address whose neighbour entry names a GID no port has
X4=198.18.77.9
XHW=00:00:00:48:fe:80:00:00:00:00:00:00:02:11:22:ff:fe:33:44:55

show_state() {
	ip neigh show dev $ifA
	rdma res show cm_id
	dmesg | grep -iE "ipoib|rdma_cm|ib[01]|sib" | tail -30
}

# mckey_ns GROUP B-ADDR A-ADDR COUNT [CHECK...]: a receiver joined to GROUP
# on B-ADDR in the namespace, COUNT messages sent to the group from A-ADDR,
# all received; CHECK (a command) runs once the receiver joined
mckey_ns() {
	mk_g=$1 mk_b=$2 mk_a=$3 mk_n=$4
	shift 4
	$inB stdbuf -oL timeout 120 mckey -m $mk_g -b $mk_b -C $mk_n >/tmp/mckey.rcv 2>&1 &
	mk_r=$!
	if ! wait_for /tmp/mckey.rcv "receiving data transfers" 200; then
		bad "mckey $mk_g: receiver not ready: $(cat /tmp/mckey.rcv)"
		kill $mk_r 2>/dev/null
		wait $mk_r 2>/dev/null
		return
	fi
	"$@"
	timeout 60 mckey -m $mk_g -b $mk_a -s -C $mk_n >/tmp/mckey.snd 2>&1
	mk_s=$?
	wait $mk_r
	mk_rr=$?
	if [ $mk_s = 0 ] && [ $mk_rr = 0 ]; then
		ok "mckey $mk_g: group joined through the SA, $mk_n messages"
	else
		bad "mckey $mk_g (sender $mk_s, receiver $mk_rr)"
		cat /tmp/mckey.snd /tmp/mckey.rcv
	fi
}

# sa_has_group MGID: the SA lists the multicast group MGID (239.1.2.3 as an
# MGID: IPoIB's mapping with rdma_cm's signature 0x4001)
sa_has_group() {
	saquery -g 2>/dev/null | grep -q "$1" && ok "the SA has the receiver's group $1" ||
		bad "no group $1 at the SA: $(saquery -g 2>&1 | grep MGID)"
}

load_modules rdma_ucm
sib_ipoib_up
lidA=$(port_attr sib0 lid) lidB=$(port_attr sib1 lid)
ipoib_netns_up cmibB 198.18.77 fd00:1b || die "IPoIB: no carrier"
busybox ping -c 1 -W 30 $B4 >/dev/null 2>&1
busybox ping -c 2 -W 10 $B4 >/dev/null 2>&1 && ok "IPoIB: $ifA pings $B4 in $ns" ||
	die "IPoIB: no ping to $B4"
busybox ping -6 -c 2 -W 10 $B6 >/dev/null 2>&1 || echo "note: no IPv6 ping yet"
echo "module rdma_cm +p" > /sys/kernel/debug/dynamic_debug/control 2>/dev/null

echo "--- rping"
pair "rping -V over IPoIB ($ns serves)" 180 $inB rping -s -a $B4 -C 20 -v -V -- \
	rping -c -a $B4 -C 20 -v -V
grep -q "ping data: rdma-ping-19" /tmp/pair.cli && ok "rping: 20 pings verified" ||
	bad "rping: $(tail -3 /tmp/pair.cli)"
pair "rping -V the other way" 180 rping -s -a $A4 -C 10 -v -V -- \
	$inB rping -c -a $A4 -C 10 -v -V
pair "rping IPv6" 180 $inB rping -s -a $B6 -C 5 -v -V -- rping -c -a $B6 -C 5 -v -V
[ $fails = 0 ] || show_state

echo "--- the listener is looked up in the namespace of the interface"
# A wildcard listener here must not take a request that reaches ib1,
# whose addresses live in $ns, where nobody listens on that port.
rping -s -a 0.0.0.0 -p 7999 -C 1 >/tmp/rping.wild 2>&1 &
wpid=$!
sleep 2
timeout 60 rping -c -a $B4 -p 7999 -C 1 -v >/tmp/rping.ns 2>&1
rc=$?
[ $rc != 0 ] && [ $rc != 124 ] && ! grep -q "ping data" /tmp/rping.ns &&
	ok "request for $B4 (in $ns) not given to a listener outside $ns:" \
		"$(grep -m1 -iE 'reject|error|unreach' /tmp/rping.ns)" ||
	bad "rping to an unserved port in $ns: rc $rc: $(cat /tmp/rping.ns)"
kill $wpid 2>/dev/null
wait $wpid 2>/dev/null

echo "--- ucmatose, udaddy"
pair "ucmatose (RC, 10 connections)" 240 $inB ucmatose -b $B4 -c 10 -- ucmatose -s $B4 -c 10
pair "udaddy (UD: SIDR, Q_Key, AH from the path)" 180 $inB udaddy -b $B4 -- udaddy -s $B4

echo "--- mckey"
mckey_ns ff0e::1:2 $B6 $A6 10
mckey_ns 239.1.2.3 $B4 $A4 20 sa_has_group ff12:4001:ffff::f01:203

echo "--- qperf -cm1"
$inB qperf >/tmp/qperf.srv 2>&1 &
qpid=$!
sleep 2
for t in rc_lat rc_bw rc_rdma_write_bw; do
	if out=$(timeout 60 qperf -t 2 -cm1 $B4 $t 2>&1) &&
		echo "$out" | grep -qE "(latency|bw) *= *[0-9.]+ "; then
		ok "qperf -cm1 $t: $(echo "$out" | grep -E '(latency|bw) *=' | tr -s ' ')"
	else
		bad "qperf -cm1 $t: $out"
	fi
done
kill $qpid 2>/dev/null
wait $qpid 2>/dev/null

echo "--- perftest -R"
for t in ib_send_bw ib_write_bw; do
	pair "$t -R" 240 $inB $t -d sib1 -R -F -n 100 -- $t -d sib0 -R -F -n 100 $B4
	grep -qE "^ *65536 +100 " /tmp/pair.cli && ok "$t: 100 iterations of 64 KiB" ||
		bad "$t report: $(tail -4 /tmp/pair.cli)"
done

echo "--- rdma resource show cm_id"
$inB timeout 120 rping -s -a $B4 -C 100000 -S 64 >/dev/null 2>&1 &
spid=$!
sleep 2
timeout 100 rping -c -a $B4 -C 100000 -S 64 >/dev/null 2>&1 &
cpid=$!
if wait_res cm_id "sib0/1 .*state CONNECT.*dst-addr $B4" 60; then
	line=$(rdma res show cm_id | grep "sib0/1 .*state CONNECT.*dst-addr $B4" | head -1)
	ok "connected id: $line"
	echo "$line" | grep -q "qp-type RC" && ok "cm_id: RC QP" || bad "cm_id line: $line"
else
	bad "no connected cm_id on sib0: $(rdma res show cm_id)"
fi
kill $cpid $spid 2>/dev/null
wait $cpid 2>/dev/null
wait $spid 2>/dev/null
# the PathRecord the route got: LIDs of both ports (librdmacm's view)
python3 - "$A4" "$B4" "$lidA" "$lidB" > /tmp/route.py.out 2>&1 <<'EOF'
import ctypes, ctypes.util, socket, struct, sys
rc = ctypes.CDLL(ctypes.util.find_library("rdmacm"), use_errno=True)
src, dst, slid, dlid = sys.argv[1], sys.argv[2], int(sys.argv[3], 0), int(sys.argv[4], 0)
def sin(a):
    b = struct.pack("=HH4s8x", socket.AF_INET, 0, socket.inet_aton(a))
    return ctypes.create_string_buffer(b, len(b))
ch = rc.rdma_create_event_channel
ch.restype = ctypes.c_void_p
c = ch()
idp = ctypes.c_void_p()
assert rc.rdma_create_id(ctypes.c_void_p(c), ctypes.byref(idp), None, 0x106) == 0
ev = ctypes.c_void_p()
def wait(name):
    assert rc.rdma_get_cm_event(ctypes.c_void_p(c), ctypes.byref(ev)) == 0
    kind = ctypes.cast(ev, ctypes.POINTER(ctypes.c_int * 6))[0][4]
    rc.rdma_ack_cm_event(ev)
    return kind
assert rc.rdma_resolve_addr(idp, sin(src), sin(dst), 5000) == 0
assert wait("addr") == 0, "ADDR_RESOLVED expected"
assert rc.rdma_resolve_route(idp, 5000) == 0
k = wait("route")
assert k == 2, "ROUTE_RESOLVED expected, got %d" % k
# struct rdma_cm_id: verbs, channel, context, qp, route{addr(2 x 128 + ibaddr
# 40 + ...)} - read the route's path_rec pointer and num_paths by layout.
class IbAddr(ctypes.Structure):
    _fields_ = [("sgid", ctypes.c_ubyte * 16), ("dgid", ctypes.c_ubyte * 16),
                ("pkey", ctypes.c_uint16)]
class Addr(ctypes.Structure):
    _fields_ = [("src", ctypes.c_ubyte * 128), ("dst", ctypes.c_ubyte * 128), ("ib", IbAddr)]
class Route(ctypes.Structure):
    _fields_ = [("addr", Addr), ("path_rec", ctypes.c_void_p), ("num_paths", ctypes.c_int)]
class Id(ctypes.Structure):
    _fields_ = [("verbs", ctypes.c_void_p), ("channel", ctypes.c_void_p), ("context", ctypes.c_void_p),
                ("qp", ctypes.c_void_p), ("route", Route)]
cid = ctypes.cast(idp, ctypes.POINTER(Id))[0]
assert cid.route.num_paths >= 1, "no path record"
# struct ibv_sa_path_rec: dgid, sgid, dlid, slid (network order)
raw = ctypes.string_at(cid.route.path_rec, 36)
got_dlid, got_slid = struct.unpack("!HH", raw[32:36])
print("path: slid %d dlid %d" % (got_slid, got_dlid))
assert (got_slid, got_dlid) == (slid, dlid), "LIDs %d->%d" % (got_slid, got_dlid)
# The same path handed in as ibacm would (RDMA_OPTION_IB_PATH, the SA's
# wire format): the id hears ROUTE_RESOLVED and has the path.
p = ctypes.string_at(cid.route.path_rec, 64)
wire = struct.pack("!Q16s16sHHIBB2sHBBBB6x", 0, p[0:16], p[16:32], dlid, slid,
                   0, 0, 0x81, p[54:56], p[56], 0x80 | p[58], 0x80 | p[60],
                   0x80 | p[62], 0)
data = struct.pack("=II", 1 | 2 | 8 | 32, 0) + wire
buf = ctypes.create_string_buffer(data, len(data))
rc.rdma_destroy_id(idp)
assert rc.rdma_create_id(ctypes.c_void_p(c), ctypes.byref(idp), None, 0x106) == 0
assert rc.rdma_resolve_addr(idp, sin(src), sin(dst), 5000) == 0
assert wait("addr") == 0, "ADDR_RESOLVED expected"
r = rc.rdma_set_option(idp, 1, 1, buf, ctypes.c_size_t(len(data)))
assert r == 0, "rdma_set_option(IB_PATH): %d errno %d" % (r, ctypes.get_errno())
k = wait("route")
assert k == 2, "ROUTE_RESOLVED expected after IB_PATH, got %d" % k
cid = ctypes.cast(idp, ctypes.POINTER(Id))[0]
raw = ctypes.string_at(cid.route.path_rec, 36)
assert struct.unpack("!HH", raw[32:36]) == (dlid, slid), "IB_PATH route LIDs"
print("IB_PATH: ROUTE_RESOLVED, the path set")
rc.rdma_destroy_id(idp)
EOF
rc=$?
cat /tmp/route.py.out
[ $rc = 0 ] && ok "route: PathRecord with LIDs $lidA -> $lidB; the same set with RDMA_OPTION_IB_PATH" ||
	bad "route PathRecord"

echo "--- unknown GID: ROUTE_ERROR"
ip neigh replace $X4 lladdr $XHW dev $ifA nud permanent || bad "static neighbour $X4"
start=$(date +%s)
timeout 60 rping -c -a $X4 -C 1 -v >/tmp/rping.x 2>&1
rc=$? took=$(($(date +%s) - start))
[ $rc != 124 ] && grep -q "ROUTE_ERROR" /tmp/rping.x &&
	ok "rping to $X4 (GID the SA does not know): ROUTE_ERROR after ${took}s" ||
	bad "rping to $X4: rc $rc: $(cat /tmp/rping.x)"
ip neigh del $X4 dev $ifA

echo "--- both ends on one port (loopback through the SA's path to self)"
pair "rping -V on $A4 to itself" 180 rping -s -a $A4 -C 5 -v -V -- rping -c -a $A4 -C 5 -v -V

echo "--- no SA: ROUTE_ERROR"
# OpenSM gone: the SM's port (sib0) answers the SA class as unsupported
osm_stop
timeout 60 rping -c -a $B4 -C 1 -v >/tmp/rping.t 2>&1
rc=$?
[ $rc != 124 ] && grep -q "ROUTE_ERROR" /tmp/rping.t &&
	ok "OpenSM gone: $(grep -m1 ROUTE_ERROR /tmp/rping.t)" ||
	bad "rping with OpenSM gone: rc $rc: $(cat /tmp/rping.t)"
# the SM's port gone too: sib1's PathRecord query gets no answer at all
addrA=$(cat $net/$ifA/address)
$inB ip neigh replace $A4 lladdr $addrA dev $ifB nud permanent
rdma link delete sib0 || bad "rdma link delete sib0"
start=$(date +%s)
$inB timeout 120 rping -c -a $A4 -C 1 -v >/tmp/rping.t 2>&1
rc=$? took=$(($(date +%s) - start))
[ $rc != 124 ] && grep -q "ROUTE_ERROR" /tmp/rping.t &&
	ok "no SM at all: after ${took}s $(grep -m1 ROUTE_ERROR /tmp/rping.t)" ||
	bad "rping without an SM: rc $rc after ${took}s: $(cat /tmp/rping.t)"

[ $fails = 0 ] || show_state
echo "--- teardown"
expect_eq "no cm_id left" "$(rdma res show cm_id 2>&1 | grep -c .)" 0
ip netns del $ns
rmmod ib_ipoib || bad "rmmod ib_ipoib"
sib_unpair sib1
finish
