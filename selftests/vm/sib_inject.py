#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Hand-made IB packets to a sib port (selftests/vm/smi.sh): each frame is
# written on the other end of the cable (an AF_PACKET socket on IFACE,
# ethertype 0x88B5, to DST_MAC) with correct ICRC and VCRC, so only the
# rule under test rejects it. Then the port's rx_drops and the SMI's
# discards (debugfs ib_mad/smi_drops) are compared with what each case
# must add.
# Usage: sib_inject.py IFACE DST_MAC IBDEV LID
import os
import socket
import struct
import sys
import time
import zlib

import vmcheck
from vmcheck import bad, expect, ok

ETH_P_SIB = 0x88B5
UD_SEND_ONLY = 0x64
PERMISSIVE = 0xFFFF
MAD = 256


def vcrc(data):
    """CRC-16 0x100B, bit-reflected (0xD008), seed and result inverted."""
    crc = 0xFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0xD008 if crc & 1 else crc >> 1
    return ~crc & 0xFFFF


def packet(vl, dlid, slid, dqpn, payload, sqpn=0, qkey=0, pkey=0xFFFF):
    """LRH, BTH, DETH, payload, ICRC, VCRC (a local packet: no GRH)."""
    body = struct.pack(">BBHI", UD_SEND_ONLY, 0, pkey, dqpn & 0xFFFFFF)
    body += struct.pack(">I", 0)                # A, PSN 0
    body += struct.pack(">II", qkey, sqpn & 0xFFFFFF)
    body += payload
    words = (8 + len(body) + 4) // 4
    lrh = struct.pack(">BBHHH", vl << 4, 2, dlid, words & 0x7FF, slid)
    # ICRC: LRH.VL and BTH.Resv8a as ones (IBA 7.8.1)
    masked = bytearray(lrh + body)
    masked[0] |= 0xF0
    masked[8 + 4] = 0xFF
    pkt = lrh + body + struct.pack("<I", zlib.crc32(bytes(masked)))
    return pkt + struct.pack("<H", vcrc(pkt))


def smp(hop_cnt, hop_ptr, direction=0):
    m = bytearray(MAD)
    struct.pack_into(">BBBBHBBQHHI", m, 0, 1, 0x81, 1, 0x01,
                     0x8000 if direction else 0, hop_ptr, hop_cnt,
                     0x77000000 + hop_cnt, 0x0011, 0, 0)
    struct.pack_into(">HH", m, 32, PERMISSIVE, PERMISSIVE)
    m[129] = 1
    return bytes(m)


def rx_drops(ibdev):
    out = {}
    with open("/sys/class/infiniband/%s/rx_drops" % ibdev) as f:
        for line in f:
            k, v = line.split()
            out[k] = int(v)
    return out


def smi_drops(ibdev):
    with open("/sys/kernel/debug/ib_mad/smi_drops") as f:
        for line in f:
            d, p, n = line.split()
            if d == ibdev and p == "1":
                return int(n)
    return -1


def main():
    iface, dst, ibdev, lid = sys.argv[1], sys.argv[2], sys.argv[3], \
        int(sys.argv[4], 0)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, ETH_P_SIB))
    eth = bytes.fromhex(dst.replace(":", "")) + s.getsockname()[4] + \
        struct.pack(">H", ETH_P_SIB)

    def send(name, frame, reason, smi=0):
        before, sb = rx_drops(ibdev), smi_drops(ibdev)
        s.send(eth + frame)
        time.sleep(0.5)
        after, sa = rx_drops(ibdev), smi_drops(ibdev)
        moved = {k: after[k] - before.get(k, 0) for k in after
                 if after[k] != before.get(k, 0)}
        want = {reason: 1} if reason else {}
        expect(name + ": rx_drops", moved, want)
        expect(name + ": SMI discards", sa - sb, smi)

    send("a valid DR SMP (control)",
         packet(15, PERMISSIVE, PERMISSIVE, 0, smp(0, 0)), None)
    send("QP0 packet on VL0", packet(0, PERMISSIVE, PERMISSIVE, 0, smp(0, 0)),
         "vl15")
    send("QP0 packet of 128 bytes",
         packet(15, PERMISSIVE, PERMISSIVE, 0, smp(0, 0)[:128]), "vl15")
    send("QP0 packet of 260 bytes",
         packet(15, PERMISSIVE, PERMISSIVE, 0, smp(0, 0) + bytes(4)), "vl15")
    send("VL15 packet to QP1",
         packet(15, lid, 2, 1, smp(0, 0), sqpn=1, qkey=0x80010000), "vl15")
    # GMPs are 256-byte MADs too: a short one must not reach the MAD layer
    send("QP1 packet of 128 bytes",
         packet(0, lid, 2, 1, bytes(MAD)[:128], sqpn=1, qkey=0x80010000),
         "vl15")
    send("QP1 packet of 260 bytes",
         packet(0, lid, 2, 1, bytes(MAD + 4), sqpn=1, qkey=0x80010000),
         "vl15")
    send("permissive SLID to QP1",
         packet(0, lid, PERMISSIVE, 1, bytes(MAD), sqpn=1,
                qkey=0x80010000), "dlid")
    # the port has VL0 and VL15 only; a multicast LID sends nothing
    send("GMP on VL3",
         packet(3, lid, 2, 1, bytes(MAD), sqpn=1, qkey=0x80010000), "lrh")
    send("multicast SLID to QP1",
         packet(0, lid, 0xC001, 1, bytes(MAD), sqpn=1, qkey=0x80010000),
         "dlid")
    send("permissive DLID to QP1",
         packet(0, PERMISSIVE, 2, 1, bytes(MAD), sqpn=1, qkey=0x80010000),
         "dlid")
    send("DR request HopPointer 0 of 1 (receive side)",
         packet(15, PERMISSIVE, PERMISSIVE, 0, smp(1, 0)), None, smi=1)
    send("DR HopCount 64", packet(15, PERMISSIVE, PERMISSIVE, 0, smp(64, 64)),
         None, smi=1)
    send("DR answer with HopPointer 3 of 1",
         packet(15, PERMISSIVE, PERMISSIVE, 0, smp(1, 3, direction=1)),
         None, smi=1)
    return vmcheck.fails


if __name__ == "__main__":
    sys.exit(main())
