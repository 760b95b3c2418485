#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The diagnostics of seed 002 ch. 7 on two sib ports cabled back to back
# (a veth pair) under an unmodified OpenSM, each output checked: ibstatus,
# ibstat (State, Base lid, SM lid), iblinkinfo, ibhosts, ibswitches (no
# switch: nothing), ibaddr, ibportstate (query), ibping between the ports
# (a vendor-class MAD through umad: `ibping -S` on one, by LID and by GUID
# from the other). ibroute is for switches only. Then OpenSM with an
# M_Key (protection level 2): an SMP with the wrong key gets no answer and
# is counted (M_KeyViolations), the right key (-y) is answered.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"
. "$RDMA_KMOD_SRC/selftests/sib.sh"

need_sib
need_opensm

# check NAME OUTPUT PATTERN...: every (grep -E) PATTERN is in OUTPUT
check() {
	name=$1 out=$2
	shift 2
	for p in "$@"; do
		echo "$out" | grep -Eq -- "$p" || {
			bad "$name: no '$p' in:"
			echo "$out"
			return 1
		}
	done
	ok "$name"
}

sib_pair_up ib_uverbs ib_umad
osm_up || bad "sib0, sib1 not ACTIVE with LIDs under OpenSM"
lid0=$(($(port_attr sib0 lid))) lid1=$(($(port_attr sib1 lid)))
g1=$(guid_of sib1)
hex0=$(printf '0x%x' $lid0) hex1=$(printf '0x%x' $lid1)

echo "--- sysfs readers"
out=$(ibstatus sib1 2>&1)
check "ibstatus sib1" "$out" "Infiniband device 'sib1' port 1 status:" \
	"base lid:[[:space:]]+$hex1\$" "sm lid:[[:space:]]+$hex0\$" \
	"state:[[:space:]]+4: ACTIVE" "phys state:[[:space:]]+5: LinkUp" \
	"rate:[[:space:]]+10 Gb/sec \(4X SDR\)" "link_layer:[[:space:]]+InfiniBand"
out=$(ibstat sib1 2>&1)
check "ibstat sib1" "$out" "^CA 'sib1'" "State: Active" "Physical state: LinkUp" \
	"Base lid: $lid1\$" "SM lid: $lid0\$" "Rate: 10\$" "Link layer: InfiniBand" \
	"Port GUID: $g1"
out=$(ibstat sib0 1 2>&1)
check "ibstat sib0 1 (the SM's port: IsSM in the mask)" "$out" \
	"Base lid: $lid0\$" "SM lid: $lid0\$" "Capability mask: 0x[0-9a-f]{7}[2367abef]\$"

echo "--- fabric scans"
out=$(ibhosts -C sib0 -P 1 2>&1)
check "ibhosts lists both CAs" "$out" \
	"^Ca[[:space:]]+: $(guid_re sib0) ports 1 \"sib\"" \
	"^Ca[[:space:]]+: $(guid_re sib1) ports 1 \"sib\""
[ "$(echo "$out" | grep -c '^Ca')" = 2 ] && ok "ibhosts: two CAs" ||
	bad "ibhosts: $(echo "$out" | grep -c '^Ca') CAs"
out=$(ibswitches -C sib0 -P 1 2>&1)
rc=$?
[ $rc = 0 ] && [ -z "$out" ] && ok "ibswitches: no switch" ||
	bad "ibswitches (exit $rc): $out"
out=$(iblinkinfo -C sib0 -P 1 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] && ! echo "$out" | grep -qi "err" && ok "iblinkinfo (exit 0, no error)" ||
	bad "iblinkinfo (exit $rc)"
out=$(iblinkinfo -C sib0 -P 1 --cas-only -l 2>&1)
check "iblinkinfo --cas-only -l: sib0's link to sib1" "$out" \
	"^$(guid_re sib0) \"[[:space:]]*sib\"[[:space:]]+$lid0[[:space:]]+1\[.*Active/[[:space:]]*LinkUp\)==>[[:space:]]+$(guid_re sib1)[[:space:]]+$lid1[[:space:]]+1\["

echo "--- addresses and port state"
out=$(ibaddr -C sib1 -P 1 2>&1)
check "ibaddr (own port, LID-routed to itself)" "$out" \
	"^GID fe80::[0-9a-f:]+ LID start $hex1 end $hex1\$"
out=$(ibaddr -C sib0 -P 1 $lid1 2>&1)
check "ibaddr $lid1 from sib0" "$out" "LID start $hex1 end $hex1\$"
out=$(ibaddr -C sib0 -P 1 -G "$g1" 2>&1)
check "ibaddr -G sib1's GUID" "$out" "LID start $hex1 end $hex1\$"
out=$(ibportstate -C sib0 -P 1 $lid1 1 query 2>&1)
check "ibportstate $lid1 1 query" "$out" "LinkState:\.+Active" \
	"PhysLinkState:\.+LinkUp" "LinkWidthActive:\.+4X" "LinkSpeedActive:\.+2\.5 Gbps"
out=$(ibportstate -C sib0 -P 1 -D 0 1 2>&1)
check "ibportstate -D 0 1 (own port, directed route)" "$out" "LinkState:\.+Active"

echo "--- ibping"
ibping -S -C sib1 -P 1 > /tmp/diag.ping.srv 2>&1 &
ps=$!
sleep 1
out=$(timeout $((30 * tf)) ibping -C sib0 -P 1 -c 3 $lid1 2>&1)
check "ibping $lid1 from sib0" "$out" "Pong from .*\(Lid $lid1\): time" \
	"3 packets transmitted, 3 received, 0% packet loss"
out=$(timeout $((30 * tf)) ibping -C sib0 -P 1 -c 2 -G "$g1" 2>&1)
check "ibping -G sib1's GUID" "$out" "Pong from .*\(Lid $lid1\)" \
	"2 packets transmitted, 2 received"
out=$(timeout $((30 * tf)) ibping -C sib1 -P 1 -c 2 $lid1 2>&1)
check "ibping sib1 to its own LID" "$out" "2 packets transmitted, 2 received"
kill $ps 2>/dev/null
wait $ps 2>/dev/null
out=$(timeout $((30 * tf)) ibping -C sib0 -P 1 -c 2 $lid1 2>&1)
echo "$out" | grep -q "2 packets transmitted, 0 received" &&
	ok "no ibping server: no pong" || bad "ibping without a server: $out"

echo "--- M_Key"
osm_stop
cat > $osm/opensm.conf <<EOF
m_key 0x00000000c0ffee42
m_key_protection_level 2
EOF
osm_start -F $osm/opensm.conf
mk_set() { smpquery -C sib0 -P 1 -y 0xc0ffee42 -K portinfo $lid1 2>/dev/null |
	grep -Eq '^Mkey:\.+0x0*c0ffee42$'; }
wait_until 60 mk_set && ok "OpenSM set sib1's M_Key (protect 2)" ||
	bad "sib1's M_Key not set: $(smpquery -C sib0 -P 1 -y 0xc0ffee42 -K portinfo $lid1 2>&1 | grep -E 'Mkey|MkeyProt')"
viol() { smpquery -C sib0 -P 1 -y 0xc0ffee42 portinfo $lid1 2>/dev/null |
	sed -n 's/^MkeyViolations:\.*//p'; }
v0=$(viol)
if timeout $((30 * tf)) smpquery -C sib0 -P 1 -y 0x1234 portinfo $lid1 > /tmp/diag.mk 2>&1; then
	bad "a Get with the wrong M_Key answered"
else
	ok "a Get with the wrong M_Key: no answer"
fi
v1=$(viol)
[ "${v1:-0}" -gt "${v0:-0}" ] && ok "sib1 M_KeyViolations $v0 -> $v1" ||
	bad "sib1 M_KeyViolations $v0 -> $v1"
ibportstate -C sib0 -P 1 -y 0x1234 $lid1 1 lid 77 > /tmp/diag.mk 2>&1
[ "$(($(port_attr sib1 lid)))" = $lid1 ] && ok "a Set with the wrong M_Key changes nothing" ||
	bad "sib1's LID moved to $(port_attr sib1 lid)"
osm_end
sib_unpair sib0 sib1
finish
