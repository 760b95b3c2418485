# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The SMA and PMA of sib ports, through process_mad directly
# (selftests/kmod/rdma_mad_inject.ko: no QP0 needed). Run by sib_sma.sh:
#   sib_sma.py sma          SMA checks on sib0/sib1; leaves them ACTIVE with
#                           LIDs 1 and 2, SM LID 1, by PortInfo Sets alone
#   sib_sma.py pma-before   PMA checks, saves sib0's PortCounters
#   sib_sma.py pma-after N SIZE   counters moved with the traffic of N
#                           messages of SIZE bytes each way; Set clears
#   sib_sma.py cable STATE PHYS N   sib0's PortInfo after the cable moved,
#                           LinkDowned N
#   sib_sma.py fuzz DEV N   N random MADs: valid results only, no splat
# Exit status: the number of failures.
import os
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmcheck  # noqa: E402
from vmcheck import bad, expect, ok  # noqa: E402

INJ = "/sys/kernel/debug/rdma_mad_inject/mad"
IB = "/sys/class/infiniband"
SAVE = "/tmp/sib_sma.pma"

SUCCESS, REPLY, CONSUMED = 1, 2, 4
GET, SET, GETRESP, TRAP_REPRESS = 0x01, 0x02, 0x81, 0x07
DR, LR, PERF = 0x81, 0x01, 0x04
NODE_DESC, NODE_INFO, GUID_INFO, PORT_INFO = 0x10, 0x11, 0x14, 0x15
PKEY_TABLE, SL2VL, VLARB, SM_INFO, NOTICE = 0x16, 0x17, 0x18, 0x20, 0x02
D_BIT = 0x8000
IGNORE_MKEY = 1

tid = 0x1000


def inject(dev, mad, port=1, flags=0, wc=None):
    """process_mad(dev, flags, port, wc, NULL, mad) -> (ret, size, out)."""
    slid, sl, pki = wc if wc else (0, 0, 0)
    req = struct.pack("<64s6I", dev.encode(), port, flags,
                      1 if wc else 0, slid, sl, pki) + mad
    fd = os.open(INJ, os.O_RDWR)
    try:
        os.write(fd, req)
        ans = os.read(fd, 8 + 256)
    finally:
        os.close(fd)
    ret, size = struct.unpack_from("<iI", ans)
    return ret, size, ans[8:]


def smp(method, attr, mod=0, data=b"", cls=DR, mkey=0, cver=1):
    """A 256-byte SMP as the SMA receives it: DR ones hop 0, HopPointer 1
    (the core's receive-side step done)."""
    global tid
    tid += 1
    hop_ptr = 1 if cls == DR else 0
    hdr = struct.pack(">BBBBHBBQHHI", 1, cls, cver, method, 0, hop_ptr, 0,
                      tid, attr, 0, mod)
    dr = struct.pack(">HH", 0xFFFF, 0xFFFF) if cls == DR else b"\0" * 4
    body = struct.pack(">Q", mkey) + dr + b"\0" * 28
    return hdr + body + data.ljust(64, b"\0") + b"\0" * 128


def status(out):
    return struct.unpack_from(">H", out, 4)[0]


def ask(dev, method, attr, mod=0, data=b"", cls=DR, mkey=0, flags=0,
        want_status=0, what=""):
    """An SMP that must be answered; returns the attribute data."""
    ret, size, out = inject(dev, smp(method, attr, mod, data, cls, mkey),
                            flags=flags)
    d = D_BIT if cls == DR else 0
    what = what or "%s attr 0x%04x method %d" % (dev, attr, method)
    if ret != SUCCESS | REPLY or size != 256 or out[3] != GETRESP:
        bad("%s: process_mad %d, size %d, method 0x%02x" %
            (what, ret, size, out[3]))
        return None
    if status(out) != want_status | d:
        bad("%s: status 0x%04x, want 0x%04x" %
            (what, status(out), want_status | d))
        return None
    if want_status:
        ok("%s: status 0x%04x" % (what, status(out)))
    return out[64:128]


def sysfs(path):
    with open(os.path.join(IB, path)) as f:
        return f.read().strip()


def guid_of(sysfs_guid):
    return int(sysfs_guid.replace(":", ""), 16)


# ---- PortInfo ----

def pi_fields(d):
    return {
        "mkey": struct.unpack_from(">Q", d, 0)[0],
        "prefix": struct.unpack_from(">Q", d, 8)[0],
        "lid": struct.unpack_from(">H", d, 16)[0],
        "sm_lid": struct.unpack_from(">H", d, 18)[0],
        "cap": struct.unpack_from(">I", d, 20)[0],
        "lease": struct.unpack_from(">H", d, 26)[0],
        "local_port": d[28],
        "width_en": d[29], "width_sup": d[30], "width_act": d[31],
        "speed_sup": d[32] >> 4, "state": d[32] & 15,
        "phys": d[33] >> 4, "link_down_def": d[33] & 15,
        "prot": d[34] >> 6, "lmc": d[34] & 7,
        "speed_act": d[35] >> 4, "speed_en": d[35] & 15,
        "nmtu": d[36] >> 4, "sm_sl": d[36] & 15,
        "vl_cap": d[37] >> 4, "mtu_cap": d[41] & 15,
        "op_vls": d[43] >> 4,
        "mkey_viol": struct.unpack_from(">H", d, 44)[0],
        "pkey_viol": struct.unpack_from(">H", d, 46)[0],
        "guid_cap": d[50], "rereg": d[51] >> 7, "subnet_to": d[51] & 31,
    }


def pi_get(dev, mkey=0, flags=0, what=""):
    d = ask(dev, GET, PORT_INFO, 1, mkey=mkey, flags=flags,
            what=what or dev + " Get PortInfo")
    return (d, pi_fields(d)) if d is not None else (None, None)


def pi_with(d, **kw):
    """PortInfo data @d with fields changed (Set semantics: state 0 = no
    change unless given)."""
    b = bytearray(d)
    b[32] &= 0xF0  # PortState NoChange
    b[33] &= 0x0F  # PhysState NoChange
    for k, v in kw.items():
        if k == "lid":
            struct.pack_into(">H", b, 16, v)
        elif k == "sm_lid":
            struct.pack_into(">H", b, 18, v)
        elif k == "mkey":
            struct.pack_into(">Q", b, 0, v)
        elif k == "prefix":
            struct.pack_into(">Q", b, 8, v)
        elif k == "lease":
            struct.pack_into(">H", b, 26, v)
        elif k == "state":
            b[32] = (b[32] & 0xF0) | v
        elif k == "phys":
            b[33] = (b[33] & 0x0F) | v << 4
        elif k == "prot":
            b[34] = (b[34] & 0x3F) | v << 6
        elif k == "rereg":
            b[51] = (b[51] & 0x7F) | v << 7
        elif k == "mkey_viol":
            struct.pack_into(">H", b, 44, v)
        elif k == "width_en":
            b[29] = v
        elif k == "nmtu":
            b[36] = (b[36] & 0x0F) | v << 4
        else:
            raise KeyError(k)
    return bytes(b)


def pi_set(dev, d, mkey=0, want_status=0, what=""):
    return ask(dev, SET, PORT_INFO, 1, d, mkey=mkey, want_status=want_status,
               what=what or dev + " Set PortInfo")


def wait_sysfs(path, want, secs=10):
    got = None
    for _ in range(secs * 10):
        got = sysfs(path)
        if got == want:
            return got
        time.sleep(0.1)
    return got


def check_node(dev):
    d = ask(dev, GET, NODE_INFO, what=dev + " DR Get NodeInfo")
    if d is None:
        return
    ng = guid_of(sysfs(dev + "/node_guid"))
    sg = guid_of(sysfs(dev + "/sys_image_guid"))
    (bv, cv, nt, np, sysg, nodeg, portg, pcap, devid, rev, lpn) = \
        struct.unpack_from(">BBBBQQQHHIB", d)
    vendor = int.from_bytes(d[37:40], "big")
    expect(dev + " NodeInfo Base/ClassVersion", (bv, cv), (1, 1))
    expect(dev + " NodeInfo NodeType (CA)", nt, 1)
    expect(dev + " NodeInfo NumPorts", np, 1)
    expect(dev + " NodeInfo SystemImageGUID", sysg, sg)
    expect(dev + " NodeInfo NodeGUID = node_guid", nodeg, ng)
    expect(dev + " NodeInfo PortGUID = node_guid", portg, ng)
    expect(dev + " NodeInfo PartitionCap", pcap, 32)
    expect(dev + " NodeInfo DeviceID", devid, 0x0001)
    expect(dev + " NodeInfo Revision", rev, 0)
    expect(dev + " NodeInfo LocalPortNum", lpn, 1)
    expect(dev + " NodeInfo VendorID", vendor, 0xFFFFFF)
    # LID-routed: same answer, no D bit; with a receive completion
    ret, size, out = inject(dev, smp(GET, NODE_INFO, cls=LR),
                            wc=(2, 0, 0))
    expect(dev + " LID-routed NodeInfo: reply, status 0 (no D bit)",
           (ret, size, out[3], status(out), out[64:128]),
           (SUCCESS | REPLY, 256, GETRESP, 0, d))


def check_node_desc(dev):
    d = ask(dev, GET, NODE_DESC, what=dev + " Get NodeDescription")
    if d is None:
        return
    expect(dev + " NodeDescription = node_desc",
           d.rstrip(b"\0").decode(), sysfs(dev + "/node_desc"))
    with open(os.path.join(IB, dev, "node_desc"), "w") as f:
        f.write("sib_sma test node")
    d = ask(dev, GET, NODE_DESC, what=dev + " Get NodeDescription again")
    if d is not None:
        expect(dev + " NodeDescription follows sysfs node_desc",
               d, b"sib_sma test node".ljust(64, b"\0"))


def check_portinfo_initial(dev, mtu_cap):
    d, f = pi_get(dev)
    if d is None:
        return
    cap = int(sysfs(dev + "/ports/1/cap_mask"), 16)
    expect(dev + " PortInfo: INIT, LinkUp, no LID",
           (f["state"], f["phys"], f["lid"]), (2, 5, 0))
    expect(dev + " PortInfo CapabilityMask = sysfs cap_mask", f["cap"], cap)
    expect(dev + " CapabilityMask: ClientRereg, SLMapping, no IsSM",
           (bool(cap & 0x02000000), bool(cap & 0x40), bool(cap & 2)),
           (True, True, False))
    expect(dev + " PortInfo LocalPortNum, GUIDCap", (f["local_port"],
           f["guid_cap"]), (1, 1))
    expect(dev + " PortInfo width enabled/supported/active (1X|4X, 4X)",
           (f["width_en"], f["width_sup"], f["width_act"]), (3, 3, 2))
    expect(dev + " PortInfo speed supported/enabled/active (SDR)",
           (f["speed_sup"], f["speed_en"], f["speed_act"]), (1, 1, 1))
    expect(dev + " PortInfo MTUCap, NeighborMTU", (f["mtu_cap"], f["nmtu"]),
           (mtu_cap, mtu_cap))
    expect(dev + " PortInfo VLCap, OperationalVLs", (f["vl_cap"],
           f["op_vls"]), (1, 1))
    expect(dev + " PortInfo GidPrefix", f["prefix"], 0xFE80 << 48)
    expect(dev + " PortInfo M_Key 0, protect 0", (f["mkey"], f["prot"]),
           (0, 0))
    # AttributeModifier: 0 is the receiving port too; 2 is not ours
    ask(dev, GET, PORT_INFO, 0, what=dev + " Get PortInfo modifier 0")
    ask(dev, GET, PORT_INFO, 2, want_status=0x1C,
        what=dev + " Get PortInfo modifier 2")


def set_lids(dev, lid, sm_lid):
    d, f = pi_get(dev)
    if d is None:
        return
    r = pi_set(dev, pi_with(d, lid=lid, sm_lid=sm_lid))
    if r is not None:
        g = pi_fields(r)
        expect(dev + " Set LID/SM LID: the GetResp carries them",
               (g["lid"], g["sm_lid"], g["state"]), (lid, sm_lid, 2))
    expect(dev + " sysfs lid", sysfs(dev + "/ports/1/lid"), "0x%x" % lid)
    expect(dev + " sysfs sm_lid", sysfs(dev + "/ports/1/sm_lid"),
           "0x%x" % sm_lid)
    # invalid: a multicast LID; nothing of the Set applies
    pi_set(dev, pi_with(d, lid=0xC001, sm_lid=7), want_status=0x1C,
           what=dev + " Set multicast LID")
    d2, f2 = pi_get(dev)
    if f2:
        expect(dev + " refused Set changed nothing", (f2["lid"],
               f2["sm_lid"]), (lid, sm_lid))


def set_state(dev, state, want_status=0, what=""):
    d, f = pi_get(dev)
    if d is None:
        return None
    r = pi_set(dev, pi_with(d, state=state), want_status=want_status,
               what=what or "%s Set PortState %d" % (dev, state))
    return pi_fields(r) if r is not None else None


STATES = {1: "1: DOWN", 2: "2: INIT", 3: "3: ARMED", 4: "4: ACTIVE"}


def move_state(dev, state, what):
    """A PortState Set to state, read back by the answer and by sysfs."""
    f = set_state(dev, state)
    if f:
        expect("%s %s" % (dev, what), f["state"], state)
    name = STATES[state].split()[1]
    expect("%s sysfs state %s" % (dev, name),
           sysfs(dev + "/ports/1/state"), STATES[state])


def check_states(devs):
    for dev in devs:
        f = set_state(dev, 4, want_status=0x1C,
                      what=dev + " INIT -> ACTIVE refused")
        if f:
            expect(dev + " still INIT after the refused Set", f["state"], 2)
        expect(dev + " sysfs state INIT", sysfs(dev + "/ports/1/state"),
               STATES[2])
        set_state(dev, 2, want_status=0x1C, what=dev + " Set INIT refused")
    for dev in devs:
        move_state(dev, 3, "INIT -> ARMED")
    # Down retrains the link: back to INIT (the cable is in), LID kept
    f = set_state(devs[1], 1, what=devs[1] + " Set Down (retrain)")
    if f:
        expect(devs[1] + " after Down: INIT, LID kept",
               (f["state"], f["lid"]), (2, 2))
    set_state(devs[1], 3, what=devs[1] + " INIT -> ARMED again")
    for dev in devs:
        move_state(dev, 4, "ARMED -> ACTIVE")
        set_state(dev, 4, want_status=0x1C, what=dev + " ACTIVE -> ACTIVE")
    out = subprocess.run(["ibstat", devs[0]], capture_output=True,
                         text=True).stdout
    for want in ("State: Active", "Physical state: LinkUp", "Base lid: 1",
                 "SM lid: 1"):
        if want in out:
            ok("ibstat %s: %s" % (devs[0], want))
        else:
            bad("ibstat %s: no %s in\n%s" % (devs[0], want, out))


def check_pkeys(dev):
    d = ask(dev, GET, PKEY_TABLE, 0, what=dev + " Get P_KeyTable block 0")
    if d is not None:
        keys = struct.unpack(">32H", d)
        expect(dev + " P_KeyTable: 0xffff then empty", keys,
               (0xFFFF,) + (0,) * 31)
    ask(dev, GET, PKEY_TABLE, 1, want_status=0x1C,
        what=dev + " Get P_KeyTable block 1")
    new = (0xFFFF, 0x8001, 0x7FFF) + (0,) * 28 + (0x1234,)
    r = ask(dev, SET, PKEY_TABLE, 0, struct.pack(">32H", *new),
            what=dev + " Set P_KeyTable")
    if r is not None:
        expect(dev + " Set P_KeyTable answered with the table",
               struct.unpack(">32H", r), new)
    d = ask(dev, GET, PKEY_TABLE, 0, what=dev + " Get P_KeyTable again")
    if d is not None:
        expect(dev + " P_KeyTable read back", struct.unpack(">32H", d), new)
    # the core's cache re-reads the table on PKEY_CHANGE
    for i, k in ((1, 0x8001), (2, 0x7FFF), (31, 0x1234)):
        expect(dev + " sysfs pkeys/%d" % i,
               wait_sysfs(dev + "/ports/1/pkeys/%d" % i, "0x%04x" % k),
               "0x%04x" % k)


def check_tables(dev):
    d = ask(dev, GET, GUID_INFO, 0, what=dev + " Get GUIDInfo")
    ng = guid_of(sysfs(dev + "/node_guid"))
    want = struct.pack(">Q", ng) + b"\0" * 56
    if d is not None:
        expect(dev + " GUIDInfo: port GUID, then nothing", d, want)
    r = ask(dev, SET, GUID_INFO, 0, struct.pack(">QQ", 1, 2),
            what=dev + " Set GUIDInfo")
    if r is not None:
        expect(dev + " GUIDInfo Set changes nothing (GUIDCap 1)", r, want)
    ask(dev, GET, GUID_INFO, 1, want_status=0x1C,
        what=dev + " Get GUIDInfo block 1")

    d = ask(dev, GET, SL2VL, what=dev + " Get SLtoVL")
    if d is not None:
        expect(dev + " SLtoVL: every SL on VL0", d, b"\0" * 64)
    sl2vl = bytes([0x01, 0x23, 0x45, 0x67, 0x01, 0x23, 0x45, 0x6F])
    ask(dev, SET, SL2VL, 0, sl2vl, what=dev + " Set SLtoVL")
    d = ask(dev, GET, SL2VL, what=dev + " Get SLtoVL again")
    if d is not None:
        expect(dev + " SLtoVL read back", d[:8], sl2vl)

    for block in (1, 3):
        table = bytes((i % 16 if j == 0 else 0x10 + i)
                      for i in range(32) for j in range(2))
        table = bytes(b ^ block for b in table)
        ask(dev, SET, VLARB, block << 16, table,
            what="%s Set VLArb block %d" % (dev, block))
        d = ask(dev, GET, VLARB, block << 16,
                what="%s Get VLArb block %d" % (dev, block))
        if d is not None:
            expect("%s VLArb block %d read back" % (dev, block), d, table)
    ask(dev, GET, VLARB, 2 << 16, what=dev + " Get VLArb block 2 (untouched)")
    ask(dev, GET, VLARB, 5 << 16, want_status=0x1C,
        what=dev + " Get VLArb block 5")


def check_statuses(dev):
    ask(dev, GET, 0x0019, want_status=0x0C,
        what=dev + " Get LinearForwardingTable (switch only)")
    ask(dev, GET, 0x00FF, want_status=0x0C,
        what=dev + " Get unknown attribute 0x00ff")
    ask(dev, GET, 0xFF90, want_status=0x0C,
        what=dev + " Get vendor attribute 0xff90")
    ask(dev, SET, NODE_INFO, data=b"\1" * 64, want_status=0x0C,
        what=dev + " Set NodeInfo")
    ask(dev, GET, NODE_INFO, 1, want_status=0x1C,
        what=dev + " Get NodeInfo modifier 1")
    ask(dev, GET, NOTICE, cls=LR, want_status=0x0C,
        what=dev + " Get Notice (no traps here)")
    ret, size, out = inject(dev, smp(GET, NODE_INFO, cver=2))
    expect(dev + " ClassVersion 2: GetResp status 0x0004 with D bit",
           (ret, out[3], status(out)), (SUCCESS | REPLY, GETRESP,
                                         D_BIT | 4))
    # what the SMA does not handle goes back to the core untouched
    ret, _, _ = inject(dev, smp(GETRESP, NODE_INFO))
    expect(dev + " a GetResp SMP: SUCCESS alone (for the agents)", ret,
           SUCCESS)
    ret, _, _ = inject(dev, smp(0x05, NOTICE, cls=LR))
    expect(dev + " a Trap: SUCCESS alone (for the SM's agent)", ret, SUCCESS)
    sa = bytearray(smp(GET, 0x0001, cls=LR))
    sa[1], sa[2] = 0x03, 2
    ret, _, _ = inject(dev, bytes(sa))
    expect(dev + " an SA MAD: SUCCESS alone", ret, SUCCESS)
    # a repress answers a Trap an SM on this port sent: the core hands it
    # to that agent by TID
    ret, _, _ = inject(dev, smp(TRAP_REPRESS, NOTICE, cls=LR))
    expect(dev + " TrapRepress: SUCCESS alone (for the Trap's sender)", ret,
           SUCCESS)
    ret, _, _ = inject(dev, smp(GET, NODE_INFO), port=2)
    expect(dev + " port 2 (none): FAILURE", ret, 0)


def umad_of(dev):
    base = "/sys/class/infiniband_mad"
    for n in sorted(os.listdir(base)):
        if not n.startswith("umad"):
            continue
        with open(os.path.join(base, n, "ibdev")) as f:
            if f.read().strip() == dev:
                return n[4:]
    return None


def check_sminfo(dev):
    ask(dev, GET, SM_INFO, want_status=0x0C,
        what=dev + " SMInfo without IsSM: unsupported")
    n = umad_of(dev)
    if n is None:
        bad(dev + ": no umad device")
        return
    fd = os.open("/dev/infiniband/issm" + n, os.O_RDWR)
    try:
        cap = int(sysfs(dev + "/ports/1/cap_mask"), 16)
        expect(dev + " issm%s held: IsSM in cap_mask" % n, bool(cap & 2),
               True)
        d, f = pi_get(dev)
        if f:
            expect(dev + " PortInfo CapabilityMask has IsSM", bool(f["cap"]
                   & 2), True)
        ret, _, _ = inject(dev, smp(GET, SM_INFO))
        expect(dev + " SMInfo with IsSM: SUCCESS alone (the SM answers)",
               ret, SUCCESS)
        ret, _, _ = inject(dev, smp(SET, SM_INFO, 2))
        expect(dev + " SMInfo Set with IsSM: SUCCESS alone", ret, SUCCESS)
    finally:
        os.close(fd)
    ask(dev, GET, SM_INFO, want_status=0x0C,
        what=dev + " SMInfo after issm closed: unsupported again")


def check_mkey(dev):
    key, wrong = 0x1122334455667788, 0x99
    d, f = pi_get(dev)
    if d is None:
        return
    for prot in (1, 2, 3):
        r = pi_set(dev, pi_with(d, mkey=key, prot=prot), mkey=key if
                   prot > 1 else 0, what="%s Set M_Key, protect %d" %
                   (dev, prot))
        if r is None:
            return
        v0 = pi_fields(r)["mkey_viol"]
        # a Set with a wrong key: no answer at all, a violation counted
        ret, _, _ = inject(dev, smp(SET, PORT_INFO, 1, pi_with(r, lid=9),
                                    mkey=wrong))
        expect("protect %d: Set with a wrong M_Key: FAILURE" % prot, ret, 0)
        ret, _, out = inject(dev, smp(GET, PORT_INFO, 1, mkey=wrong))
        if prot == 1:
            expect("protect 1: Get with a wrong key answered",
                   (ret, status(out)), (SUCCESS | REPLY, D_BIT))
            expect("protect 1: ... with the M_Key hidden",
                   pi_fields(out[64:128])["mkey"], 0)
        else:
            expect("protect %d: Get with a wrong key: FAILURE" % prot,
                   ret, 0)
        _, g = pi_get(dev, mkey=key, what="protect %d: Get, right key" %
                      prot)
        if g:
            expect("protect %d: the right key reads the M_Key, LID kept" %
                   prot, (g["mkey"], g["prot"], g["lid"]), (key, prot, 1))
            expect("protect %d: M_KeyViolations counted" % prot,
                   g["mkey_viol"], v0 + (1 if prot == 1 else 2))
        _, g = pi_get(dev, mkey=wrong, flags=IGNORE_MKEY,
                      what="protect %d: IGNORE_MKEY" % prot)
        if g:
            expect("protect %d: IB_MAD_IGNORE_MKEY reads it" % prot,
                   g["mkey"], key)
        # IBA 14.2.4: a TrapRepress is checked as a Set is
        ret, _, _ = inject(dev, smp(TRAP_REPRESS, NOTICE, cls=LR,
                                    mkey=wrong))
        expect("protect %d: TrapRepress with a wrong key: FAILURE" % prot,
               ret, 0)
        ret, _, _ = inject(dev, smp(TRAP_REPRESS, NOTICE, cls=LR, mkey=key))
        expect("protect %d: TrapRepress with the key: SUCCESS alone" % prot,
               ret, SUCCESS)
        d = pi_with(r, mkey=key, prot=prot)
    # the lease: a violation starts it; when it runs out the protection
    # goes (protect bits 0) and a wrong key reads the port again
    r = pi_set(dev, pi_with(d, lease=1, prot=2), mkey=key,
               what=dev + " Set M_KeyLeasePeriod 1 s")
    ret, _, _ = inject(dev, smp(GET, PORT_INFO, 1, mkey=wrong))
    expect("lease: a wrong key is refused", ret, 0)
    time.sleep(1.5)
    _, g = pi_get(dev, mkey=wrong, what="lease: Get with a wrong key after"
                  " the lease")
    if g:
        expect("lease expired: protect bits 0", g["prot"], 0)
    # back to no M_Key, violations cleared by writing 0
    d, _ = pi_get(dev, mkey=key)
    if d is None:
        return
    r = pi_set(dev, pi_with(d, mkey=0, prot=0, lease=0, mkey_viol=0),
               mkey=key, what=dev + " M_Key back to 0, violations cleared")
    if r is not None:
        g = pi_fields(r)
        expect(dev + " M_Key 0, protect 0, M_KeyViolations 0",
               (g["mkey"], g["prot"], g["mkey_viol"]), (0, 0, 0))


def check_misc_set(dev):
    d, f = pi_get(dev)
    if d is None:
        return
    # ClientReregister is echoed; width 255 = Supported, NeighborMTU above
    # MTUCap invalid
    r = pi_set(dev, pi_with(d, rereg=1, width_en=255),
               what=dev + " Set ClientReregister, LinkWidthEnabled 255")
    if r is not None:
        g = pi_fields(r)
        expect(dev + " ClientReregister echoed, width enabled = supported",
               (g["rereg"], g["width_en"]), (1, 3))
    pi_set(dev, pi_with(d, nmtu=5), want_status=0x1C,
           what=dev + " NeighborMTU 4096 above MTUCap")
    pi_set(dev, pi_with(d, width_en=8), want_status=0x1C,
           what=dev + " LinkWidthEnabled 12X unsupported")
    # GID prefix: GID 0 follows
    r = pi_set(dev, pi_with(d, prefix=0xFEC0 << 48),
               what=dev + " Set GidPrefix fec0::")
    expect(dev + " gids/0 with the new prefix",
           wait_sysfs(dev + "/ports/1/gids/0", "fec0:0000:0000:0000:" +
                      sysfs(dev + "/node_guid"))[:20],
           "fec0:0000:0000:0000:")
    pi_set(dev, pi_with(d, prefix=0xFE80 << 48),
           what=dev + " Set GidPrefix fe80:: again")


def sma():
    devs = ["sib0", "sib1"]
    mtu_cap = 4  # 2048: a veth of MTU 2200
    for dev in devs:
        check_node(dev)
        check_node_desc(dev)
        check_portinfo_initial(dev, mtu_cap)
    set_lids("sib0", 1, 1)
    set_lids("sib1", 2, 1)
    check_states(devs)
    check_pkeys("sib0")
    check_tables("sib0")
    check_statuses("sib0")
    check_sminfo("sib0")
    check_mkey("sib0")
    check_misc_set("sib1")


# ---- PMA ----

def pma(method, attr, data=b"", cver=1):
    global tid
    tid += 1
    hdr = struct.pack(">BBBBHHQHHI", 1, PERF, cver, method, 0, 0, tid, attr,
                      0, 0)
    return hdr + b"\0" * 40 + data.ljust(192, b"\0")


def pma_ask(dev, method, attr, data=b"", want_status=0, what=""):
    ret, size, out = inject(dev, pma(method, attr, data), wc=(2, 0, 0))
    if (ret, size, out[3], status(out)) != (SUCCESS | REPLY, 256, GETRESP,
                                             want_status):
        bad("%s: process_mad %d, size %d, method 0x%02x, status 0x%04x" %
            (what, ret, size, out[3], status(out)))
        return None
    if want_status:
        ok("%s: status 0x%04x" % (what, want_status))
    return out[64:256]


PC_NAMES = ("LinkDowned", "RcvErrors", "XmitDiscards", "RcvConstraint",
            "VL15Dropped", "XmitData", "RcvData", "XmitPkts", "RcvPkts")


def portcounters(dev, select=0, set_=False):
    data = struct.pack(">BBH", 0, 1, select)
    d = pma_ask(dev, SET if set_ else GET, 0x12, data,
                what="%s %s PortCounters" % (dev, "Set" if set_ else "Get"))
    if d is None:
        return None
    v = (d[7], struct.unpack_from(">H", d, 8)[0],
         struct.unpack_from(">H", d, 14)[0], d[17],
         struct.unpack_from(">H", d, 22)[0]) + \
        struct.unpack_from(">4I", d, 24)
    return dict(zip(PC_NAMES, v))


def portcounters_ext(dev):
    d = pma_ask(dev, GET, 0x1D, struct.pack(">BBH", 0, 1, 0),
                what=dev + " Get PortCountersExtended")
    if d is None:
        return None
    return struct.unpack_from(">8Q", d, 8)


def pma_before():
    dev = "sib0"
    d = pma_ask(dev, GET, 0x01, what=dev + " Get ClassPortInfo")
    if d is not None:
        bv, cv, cap = struct.unpack_from(">BBH", d)
        expect("PMA ClassPortInfo versions", (bv, cv), (1, 1))
        expect("PMA CapabilityMask: PortCountersExtended, no XmitWait",
               (bool(cap & 0x200), bool(cap & 0x1000)), (True, False))
    pma_ask(dev, SET, 0x01, want_status=0x0C, what="Set ClassPortInfo")
    pma_ask(dev, GET, 0x12, struct.pack(">BBH", 0, 2, 0), want_status=0x1C,
            what="PortCounters PortSelect 2")
    pma_ask(dev, GET, 0x10, want_status=0x0C, what="PortSamplesControl")
    ret, _, out = inject(dev, pma(GET, 0x12, cver=2))
    expect("PMA ClassVersion 2: status 0x0004", (ret, status(out)),
           (SUCCESS | REPLY, 4))
    ret, _, _ = inject(dev, pma(GETRESP, 0x12))
    expect("a PMA GetResp: SUCCESS alone", ret, SUCCESS)
    c = portcounters(dev)
    if c is None:
        return
    print("sib0 PortCounters before:", c)
    with open(SAVE, "w") as f:
        f.write(repr(c))


def pma_after():
    dev = "sib0"
    with open(SAVE) as f:
        c0 = eval(f.read())
    c1 = portcounters(dev)
    x = portcounters_ext(dev)
    if c1 is None or x is None:
        return
    print("sib0 PortCounters after:", c1)
    print("sib0 PortCountersExtended:", x)
    for k in ("XmitData", "RcvData", "XmitPkts", "RcvPkts"):
        if c1[k] > c0[k] + 100:
            ok("PortCounters %s moved with the traffic (%d -> %d)" %
               (k, c0[k], c1[k]))
        else:
            bad("PortCounters %s: %d -> %d" % (k, c0[k], c1[k]))
    # the pingpong's messages each way: at least their payload, in words
    least = int(sys.argv[2]) * int(sys.argv[3]) // 4
    for k in ("XmitData", "RcvData"):
        moved = c1[k] - c0[k]
        if least <= moved < 2 * least:
            ok("Port%s in 4-byte words: %d for %d payload words" %
               (k, moved, least))
        else:
            bad("Port%s moved %d, payload alone is %d words" %
                (k, moved, least))
    expect("no receive errors, discards or VL15 drops",
           (c1["RcvErrors"], c1["VL15Dropped"]), (0, 0))
    expect("Extended >= PortCounters (never cleared)",
           all(a >= b for a, b in zip(x[:4], (c1["XmitData"], c1["RcvData"],
                                               c1["XmitPkts"],
                                               c1["RcvPkts"]))), True)
    expect("Extended: unicast + multicast = packets",
           (x[4] + x[6], x[5] + x[7]), (x[2], x[3]))
    # Set with CounterSelect: those counters start again from zero
    r = portcounters(dev, 0x3000, set_=True)
    if r is not None:
        expect("Set CounterSelect XmitData|RcvData: both 0",
               (r["XmitData"], r["RcvData"]), (0, 0))
        if r["XmitPkts"] >= c1["XmitPkts"]:
            ok("... packets not selected, not cleared")
        else:
            bad("packets cleared too: %r" % r)
    r = portcounters(dev, 0xFFFF, set_=True)
    c2 = portcounters(dev)
    if c2 is not None:
        expect("after Set CounterSelect 0xffff: all 0",
               tuple(c2.values()), (0,) * len(PC_NAMES))
    x2 = portcounters_ext(dev)
    if x2 is not None:
        expect("a PortCounters clear leaves the Extended counters",
               x2[2] >= x[2], True)


def cable():
    """sib0 after its netdev went down and up (argv: STATE PHYS LINKDOWNED):
    PortInfo state and physical state, LID kept, PMA LinkDowned."""
    state, phys, downs = (int(a) for a in sys.argv[2:5])
    _, f = pi_get("sib0")
    if f:
        expect("sib0 PortInfo state, PhysState, LID", (f["state"],
               f["phys"], f["lid"]), (state, phys, 1))
    c = portcounters("sib0")
    if c:
        expect("sib0 PortCounters LinkDowned", c["LinkDowned"], downs)


def fuzz():
    """Malformed and random MADs to DEV (argv: DEV COUNT): every answer is
    one of process_mad's results; a reply is a whole GetResp."""
    import random
    dev, count = sys.argv[2], int(sys.argv[3])
    rnd = random.Random(16)
    attrs = (NODE_DESC, NODE_INFO, GUID_INFO, PORT_INFO, PKEY_TABLE, SL2VL,
             VLARB, SM_INFO, NOTICE, 0x01, 0x12, 0x1D)
    seen, wrong = {}, 0
    for _ in range(count):
        m = bytearray(rnd.getrandbits(8) for _ in range(256))
        m[0] = 1 if rnd.random() < 0.95 else rnd.getrandbits(8)
        m[1] = rnd.choice((DR, LR, PERF, rnd.getrandbits(8)))
        m[2] = 1 if rnd.random() < 0.9 else rnd.getrandbits(8)
        m[3] = rnd.choice((GET, SET, TRAP_REPRESS, GETRESP, 0x05,
                           rnd.getrandbits(8)))
        attr = rnd.choice(attrs + (rnd.getrandbits(16),))
        struct.pack_into(">H", m, 16, attr)
        if rnd.random() < 0.7:
            struct.pack_into(">I", m, 20, rnd.choice((0, 1, 2, 1 << 16,
                                                      3 << 16, 1 << 31)))
        struct.pack_into(">Q", m, 24, 0)  # M_Key: reach the attributes
        ret, size, out = inject(dev, bytes(m), wc=(rnd.getrandbits(16), 0, 0)
                                if rnd.random() < 0.5 else None)
        seen[ret] = seen.get(ret, 0) + 1
        if ret not in (0, 1, 3, 5) or (ret & REPLY and (size != 256 or
                                                        out[3] != GETRESP)):
            wrong += 1
    expect("%d random MADs to %s: only valid results (%r)" %
           (count, dev, sorted(seen.items())), wrong, 0)


if __name__ == "__main__":
    {"sma": sma, "pma-before": pma_before, "pma-after": pma_after,
     "cable": cable, "fuzz": fuzz}[sys.argv[1]]()
    sys.exit(min(vmcheck.fails, 100))
