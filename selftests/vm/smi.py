#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# QP0 and the SMI through the raw umad ABI (selftests/vm/smi.sh sets up
# two sib ports over a veth pair, sib0 on port A of the cable):
#   smi.py dr UMAD_DEV LOCAL_GUID PEER_GUID LOCAL_LID [sma]
#     a QP0 agent (qpn 0, class 0x81); a class 0x81 agent on QP1 refused;
#     DR Get(NodeInfo) with HopCount 1 out of port 1 answered by the peer
#     (HopPointer back at 0, ReturnPath[1] = 1, D bit), HopCount 0 answered
#     locally, a LID-routed Get(NodeInfo) to our own LID answered locally
#     (if LOCAL_LID is not 0): either "unsupported" (0x000C, no SMA) or a
#     NodeInfo checked field by field; InitialPath[1] not our port: EINVAL;
#     a bad HopPointer and HopCount 64 time out (the drops are counted by
#     the caller from debugfs). With "sma" (the peer has an SMA): what it
#     answers to unknown attributes, methods, class versions, modifiers,
#     invalid PortInfo Sets, and HopCount 2 (a CA does not forward).
#   smi.py refused UMAD_DEV       a QP0 agent on a port without SMI
#   smi.py hold UMAD_DEV FILE     registers a QP0 agent, sends a DR SMP
#     with a long timeout, writes FILE, waits until FILE is removed, then
#     checks that the removed device's umad refuses writes.
# Prints "ok:"/"FAIL:" lines; exit status = failures.
import errno
import os
import struct
import sys
import time

import vmcheck
from vmcheck import bad, expect, ok
from umad_abi import (HDR, MAD, parse, read, reg_req, register, unregister,
                      write)

GET, SET, GET_RESP = 0x01, 0x02, 0x81
NODE_INFO, PORT_INFO, PKEY_TABLE, VLARB_TABLE = 0x0011, 0x0015, 0x0016, 0x0018
BAD_VERSION, UNSUPPORTED, BAD_VALUE = 0x0004, 0x000C, 0x001C
D_BIT = 0x8000
PERMISSIVE = 0xFFFF
DATA = 64               # SMP data area
INITIAL_PATH = 128
RETURN_PATH = 192


def qp0_hdr(agent, lid=PERMISSIVE, timeout_ms=0, retries=0):
    """struct ib_user_mad_hdr for QP0 (no GRH, P_Key index 0)."""
    h = struct.pack("<IIIII", agent, 0, timeout_ms, retries, 0)
    h += struct.pack(">II", 0, 0)
    h += struct.pack(">HBBBBBB", lid, 0, 0, 0, 0, 0, 0)
    return h + bytes(16) + struct.pack(">I", 0) + struct.pack("<H6x", 0)


def dr_smp(tid, hop_cnt, hop_ptr=0, path=(1,), attr=NODE_INFO, method=GET,
           version=1, modifier=0, data=b""):
    m = bytearray(MAD)
    struct.pack_into(">BBBBHBBQHHI", m, 0, 1, 0x81, version, method, 0,
                     hop_ptr, hop_cnt, tid, attr, 0, modifier)
    m[DATA:DATA + len(data)] = data
    struct.pack_into(">HH", m, 32, PERMISSIVE, PERMISSIVE)
    for i, port in enumerate(path):
        m[INITIAL_PATH + 1 + i] = port
    return bytes(m)


def lr_smp(tid, attr=NODE_INFO):
    m = bytearray(MAD)
    struct.pack_into(">BBBBHHQHHI", m, 0, 1, 0x01, 1, GET, 0, 0, tid, attr,
                     0, 0)
    return bytes(m)


def answer(fd, tid, timeout=10.0):
    """The answer to TID (timed-out sends of other TIDs are skipped)."""
    end = time.time() + timeout
    while time.time() < end:
        got = read(fd, end - time.time())
        if got is None:
            return None
        p = parse(got)
        if p["tid"] & 0xffffffff == tid:
            return p
    return None


def check_node_info(name, p, guid, dr):
    """An answer: "unsupported" from the core, or the SMA's NodeInfo."""
    mad = p["mad"]
    status = struct.unpack_from(">H", mad, 4)[0]
    expect(name + ": method GetResp", mad[3], GET_RESP)
    if dr:
        expect(name + ": D bit", status & D_BIT, D_BIT)
        status &= ~D_BIT
    if status == UNSUPPORTED:
        ok(name + ": answered 0x000C (no SMA)")
        return
    expect(name + ": status", status, 0)
    d = mad[DATA:DATA + 40]
    expect(name + ": BaseVersion", d[0], 1)
    expect(name + ": ClassVersion", d[1], 1)
    expect(name + ": NodeType CA", d[2], 1)
    expect(name + ": NumPorts", d[3], 1)
    expect(name + ": NodeGUID", d[12:20].hex(), guid)
    expect(name + ": PortGUID", d[20:28].hex(), guid)
    expect(name + ": PartitionCap", struct.unpack_from(">H", d, 28)[0], 32)
    expect(name + ": LocalPortNum", d[36], 1)


def peer_status(fd, agent, name, tid, **kw):
    """Sends a DR SMP to the peer (HopCount 1); its answer's status."""
    n = write(fd, qp0_hdr(agent, timeout_ms=2000, retries=2) +
              dr_smp(tid, 1, **kw))
    if n != HDR + MAD:
        bad("%s: written (%d)" % (name, n))
        return None
    p = answer(fd, tid)
    if p is None or p["status"]:
        bad("%s: no answer" % name)
        return None
    st = struct.unpack_from(">H", p["mad"], 4)[0]
    expect(name + ": GetResp with the D bit", (p["mad"][3], st & D_BIT),
           (GET_RESP, D_BIT))
    return p, st & ~D_BIT


def sma_bad_input(fd, agent):
    """What the peer's SMA answers to SMPs it cannot take (IBA 13.4.7)."""
    cases = (
        ("unknown attribute 0x00ff", dict(attr=0x00ff), UNSUPPORTED),
        ("SwitchInfo of a CA", dict(attr=0x0012), UNSUPPORTED),
        ("Set of NodeInfo", dict(method=SET), UNSUPPORTED),
        ("ClassVersion 2", dict(version=2), BAD_VERSION),
        ("NodeInfo modifier 3", dict(modifier=3), BAD_VALUE),
        ("PortInfo of port 2", dict(attr=PORT_INFO, modifier=2), BAD_VALUE),
        ("P_KeyTable block 9", dict(attr=PKEY_TABLE, modifier=9),
         BAD_VALUE),
        ("VLArbitrationTable block 7",
         dict(attr=VLARB_TABLE, modifier=7 << 16), BAD_VALUE),
    )
    tid = 0x5300
    for name, kw, want in cases:
        tid += 1
        got = peer_status(fd, agent, "SMA: " + name, tid, **kw)
        if got:
            expect("SMA: %s: status" % name, got[1], want)

    # a PortInfo Set with a multicast LID: refused whole, LID unchanged
    got = peer_status(fd, agent, "SMA: Get PortInfo", 0x5320,
                      attr=PORT_INFO)
    if not got:
        return
    pi = bytearray(got[0]["mad"][DATA:DATA + 64])
    lid = struct.unpack_from(">H", pi, 16)[0]
    struct.pack_into(">HH", pi, 16, 0xc001, 1)
    pi[32] &= 0xf0              # PortState NoChange
    got = peer_status(fd, agent, "SMA: Set PortInfo LID 0xc001", 0x5321,
                      attr=PORT_INFO, method=SET, data=bytes(pi))
    if got:
        expect("SMA: Set PortInfo LID 0xc001: status", got[1], BAD_VALUE)
        expect("SMA: Set PortInfo LID 0xc001: LID unchanged",
               struct.unpack_from(">H", got[0]["mad"], DATA + 16)[0], lid)
    # a state jump INIT -> ACTIVE is refused too
    pi = bytearray(got[0]["mad"][DATA:DATA + 64]) if got else pi
    struct.pack_into(">H", pi, 16, lid or 1)
    struct.pack_into(">H", pi, 18, lid or 1)
    pi[32] = (pi[32] & 0xf0) | 4
    got = peer_status(fd, agent, "SMA: Set PortState ACTIVE from INIT",
                      0x5322, attr=PORT_INFO, method=SET, data=bytes(pi))
    if got:
        expect("SMA: Set PortState ACTIVE from INIT: status", got[1],
               BAD_VALUE)
        expect("SMA: still INIT", got[0]["mad"][DATA + 32] & 0xf, 2)

    # a CA does not forward: HopCount 2 ends at the peer, dropped there
    n = write(fd, qp0_hdr(agent, timeout_ms=300) +
              dr_smp(0x5330, 2, path=(1, 1)))
    expect("DR HopCount 2 (through a CA) written", n, HDR + MAD)
    timed_out(fd, "DR HopCount 2 through a CA", 0x5330)


def timed_out(fd, name, tid):
    p = answer(fd, tid, timeout=15.0)
    if p is None:
        bad(name + ": no timeout reported")
    else:
        expect(name + ": send timed out", p["status"], errno.ETIMEDOUT)


def dr(path, local_guid, peer_guid, local_lid, peer_sma):
    fd = os.open(path, os.O_RDWR)
    rc, _ = register(fd, reg_req(1, 0x81, methods=[GET]))
    expect("class 0x81 agent on QP1 refused", rc, -errno.EINVAL)
    rc, _ = register(fd, reg_req(1, 0x01, methods=[GET]))
    expect("class 0x01 agent on QP1 refused", rc, -errno.EINVAL)
    rc, _ = register(fd, reg_req(0, 0x04, methods=[GET]))
    expect("a GMP class on QP0 refused", rc, -errno.EINVAL)
    agent, _ = register(fd, reg_req(0, 0x81))
    if agent < 0:
        bad("QP0 agent (qpn 0, class 0x81) registered: %d" % agent)
        return
    ok("QP0 agent (qpn 0, class 0x81) registered as %d" % agent)

    # HopCount 1 out of port 1: across the cable and back
    tid = 0x5101
    n = write(fd, qp0_hdr(agent, timeout_ms=2000, retries=2) +
              dr_smp(tid, 1))
    expect("DR Get(NodeInfo) HopCount 1 written", n, HDR + MAD)
    p = answer(fd, tid)
    if p is None:
        bad("DR HopCount 1: no answer")
    else:
        mad = p["mad"]
        expect("DR HopCount 1: no error", p["status"], 0)
        expect("DR HopCount 1: from QP0", p["qpn"], 0)
        expect("DR HopCount 1: HopPointer back at 0", mad[6], 0)
        expect("DR HopCount 1: HopCount", mad[7], 1)
        expect("DR HopCount 1: ReturnPath[1] = 1", mad[RETURN_PATH + 1], 1)
        check_node_info("DR HopCount 1 (peer)", p, peer_guid, True)

    if peer_sma:
        sma_bad_input(fd, agent)

    # HopCount 0: this node, never on the wire
    tid = 0x5100
    n = write(fd, qp0_hdr(agent, timeout_ms=2000, retries=1) +
              dr_smp(tid, 0, path=()))
    expect("DR Get(NodeInfo) HopCount 0 written", n, HDR + MAD)
    p = answer(fd, tid)
    if p is None:
        bad("DR HopCount 0: no answer")
    else:
        expect("DR HopCount 0: no error", p["status"], 0)
        expect("DR HopCount 0: HopPointer back at 0", p["mad"][6], 0)
        check_node_info("DR HopCount 0 (local)", p, local_guid, True)

    # InitialPath[1] must be the agent's port
    n = write(fd, qp0_hdr(agent, timeout_ms=500) +
              dr_smp(0x5102, 1, path=(2,)))
    expect("DR InitialPath[1] = 2 from port 1 refused", n, -errno.EINVAL)

    # discards: the sends time out
    n = write(fd, qp0_hdr(agent, timeout_ms=300) +
              dr_smp(0x5103, 1, hop_ptr=5))
    expect("DR with HopPointer 5 of 1 written", n, HDR + MAD)
    timed_out(fd, "DR HopPointer 5 of 1", 0x5103)
    n = write(fd, qp0_hdr(agent, timeout_ms=300) +
              dr_smp(0x5104, 64, path=[1] * 63))
    expect("DR with HopCount 64 written", n, HDR + MAD)
    timed_out(fd, "DR HopCount 64", 0x5104)

    if local_lid:
        lr, _ = register(fd, reg_req(0, 0x01))
        if lr < 0:
            bad("LID-routed QP0 agent: %d" % lr)
        else:
            tid = 0x5105
            n = write(fd, qp0_hdr(lr, lid=local_lid, timeout_ms=2000,
                                  retries=1) + lr_smp(tid))
            expect("LID-routed Get(NodeInfo) to our LID written", n,
                   HDR + MAD)
            p = answer(fd, tid)
            if p is None:
                bad("LID-routed to our own LID: no answer")
            else:
                check_node_info("LID-routed (local)", p, local_guid, False)
    expect("unregister QP0 agent", unregister(fd, agent), 0)
    os.close(fd)


def refused(path):
    fd = os.open(path, os.O_RDWR)
    rc, _ = register(fd, reg_req(0, 0x81))
    expect("QP0 agent on a port without SMI refused", rc,
           -errno.EPROTONOSUPPORT)
    os.close(fd)


def hold(path, flag):
    fd = os.open(path, os.O_RDWR)
    agent, _ = register(fd, reg_req(0, 0x81))
    if agent < 0:
        bad("QP0 agent for the removal: %d" % agent)
        open(flag, "w").close()
        return
    n = write(fd, qp0_hdr(agent, timeout_ms=60000) +
              dr_smp(0x5200, 1, hop_ptr=7))
    expect("a DR SMP left waiting", n, HDR + MAD)
    open(flag, "w").close()
    while os.path.exists(flag):
        time.sleep(0.2)
    n = write(fd, qp0_hdr(agent) + dr_smp(0x5201, 0, path=()))
    if n >= 0:
        bad("write after the device's removal accepted")
    else:
        ok("write after the device's removal: %s" % errno.errorcode[-n])
    os.close(fd)


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "dr":
        dr(path, sys.argv[3], sys.argv[4], int(sys.argv[5], 0),
           len(sys.argv) > 6 and sys.argv[6] == "sma")
    elif mode == "refused":
        refused(path)
    elif mode == "hold":
        hold(path, sys.argv[3])
    return vmcheck.fails


if __name__ == "__main__":
    sys.exit(main())
