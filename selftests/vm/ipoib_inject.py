#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Hand-made IPoIB datagrams to an IPoIB interface (selftests/vm/ipoib.sh):
# UD SENDs written on the far end of the sib cable (an AF_PACKET socket on
# IFACE, ethertype 0x88B5, to DST_MAC) with correct ICRC and VCRC, for the
# interface's UD QP (DQPN) on the port with DLID, with the broadcast
# group's Q_Key. A UDP datagram to IP:PORT is the control (it must arrive
# and count as one received packet); bad ones (no room for the 4-byte
# IPoIB header, an unknown EtherType, a truncated IP header) must be
# dropped and counted, with the interface still receiving afterwards.
# Usage: ipoib_inject.py IFACE DST_MAC DLID SLID DQPN QKEY NETDEV IP
import select
import socket
import struct
import sys
import time
import zlib

import vmcheck
from sib_inject import vcrc
from vmcheck import expect, ok

ETH_P_SIB = 0x88B5
UD_SEND_ONLY = 0x64
PORT = 5399


def ud_send(dlid, slid, dqpn, sqpn, qkey, payload):
    """LRH, BTH (with PadCnt), DETH, payload, ICRC, VCRC; no GRH."""
    pad = -len(payload) % 4
    body = struct.pack(">BBHI", UD_SEND_ONLY, pad << 4, 0xFFFF,
                       dqpn & 0xFFFFFF)
    body += struct.pack(">I", 0)
    body += struct.pack(">II", qkey, sqpn & 0xFFFFFF)
    body += payload + bytes(pad)
    words = (8 + len(body) + 4) // 4
    lrh = struct.pack(">BBHHH", 0, 2, dlid, words & 0x7FF, slid)
    masked = bytearray(lrh + body)
    masked[0] |= 0xF0
    masked[8 + 4] = 0xFF
    pkt = lrh + body + struct.pack("<I", zlib.crc32(bytes(masked)))
    return pkt + struct.pack("<H", vcrc(pkt))


def csum(data):
    s = sum(struct.unpack(">%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def udp4(dst, data):
    """An IPv4/UDP datagram to DST:PORT from .9 of its /24 (no UDP sum)."""
    src = socket.inet_aton(dst.rsplit(".", 1)[0] + ".9")
    udp = struct.pack(">HHHH", 40000, PORT, 8 + len(data), 0) + data
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17,
                     0, src, socket.inet_aton(dst))
    ip = ip[:10] + struct.pack(">H", csum(ip)) + ip[12:]
    return ip + udp


def stats(dev):
    out = {}
    for k in ("rx_packets", "rx_errors", "rx_length_errors", "rx_dropped",
              "rx_nohandler"):
        with open("/sys/class/net/%s/statistics/%s" % (dev, k)) as f:
            out[k] = int(f.read())
    return out


def main():
    iface, dst = sys.argv[1], sys.argv[2]
    dlid, slid, dqpn, qkey = (int(a, 0) for a in sys.argv[3:7])
    dev, ip = sys.argv[7], sys.argv[8]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, ETH_P_SIB))
    eth = bytes.fromhex(dst.replace(":", "")) + s.getsockname()[4] + \
        struct.pack(">H", ETH_P_SIB)
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.bind((ip, PORT))

    def send(name, ipoib, want):
        before = stats(dev)
        s.send(eth + ud_send(dlid, slid, dqpn, 0x123, qkey, ipoib))
        time.sleep(0.5)
        after = stats(dev)
        moved = {k: after[k] - before[k] for k in after
                 if after[k] != before[k]}
        expect(name + ": counters", moved, want)

    def control(name):
        send(name, struct.pack(">HH", 0x0800, 0) + udp4(ip, b"ipoib ok"),
             {"rx_packets": 1})
        r, _, _ = select.select([rx], [], [], 3)
        got = rx.recv(64) if r else b""
        expect(name + ": the UDP datagram arrives", got, b"ipoib ok")

    control("a UDP datagram (control)")
    send("2 bytes, no room for the IPoIB header", b"\x08\x00",
         {"rx_errors": 1, "rx_length_errors": 1})
    send("an empty message", b"", {"rx_errors": 1, "rx_length_errors": 1})
    send("EtherType 0x88ff, unknown to the stack",
         struct.pack(">HH", 0x88FF, 0) + bytes(40),
         {"rx_packets": 1, "rx_dropped": 1})
    send("IPv4 with a truncated header",
         struct.pack(">HH", 0x0800, 0) + bytes([0x45]) + bytes(7),
         {"rx_packets": 1})
    send("the IPoIB header alone", struct.pack(">HH", 0x0800, 0),
         {"rx_packets": 1})
    control("a UDP datagram after them")
    ok("%s survived the bad datagrams" % dev)
    return vmcheck.fails


if __name__ == "__main__":
    sys.exit(main())
