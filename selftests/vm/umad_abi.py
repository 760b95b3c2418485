#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# /dev/infiniband/umadN of one port through the raw ABI (IB-FABRIC.md §5):
# agent registration (REGISTER_AGENT2, its rules and errnos), a vendor-class
# request from a send-only agent to the port's own QP1 that reaches the
# agent owning the class, its answer back to the requester matched by TID,
# a Get nobody serves (answered "unsupported" on IB, timing out on RoCE),
# unregister.
# On RoCE the MADs carry a GRH to our own GID; on IB they go to our own
# LID. Errnos and behaviour are the stock kernel's. Prints "ok:"/"FAIL:"
# lines; exit status = failures.
# Usage: umad_abi.py UMAD_DEV {roce GID_INDEX GID | ib LID}
import errno
import fcntl
import os
import select
import socket
import struct
import sys

import vmcheck
from vmcheck import bad, expect, ok


REGISTER_AGENT2 = 0xC0281B04
UNREGISTER_AGENT = 0x40041B02
ENABLE_PKEY = 0x1B03
HDR = 64                    # struct ib_user_mad_hdr
MAD = 256
VENDOR_CLASS = 0x32         # OpenIB ping class
OUI = 0x001405
QP1_QKEY = 0x80010000


def reg_req(qpn, mgmt_class, version=1, methods=(), oui=0, rmpp=0, flags=0):
    mask = 0
    for m in methods:
        mask |= 1 << m
    return struct.pack("<IIBBHIQQIB3x", 0, qpn, mgmt_class, version, 0,
                       flags, mask & (2**64 - 1), mask >> 64, oui, rmpp)


def register(fd, req):
    buf = bytearray(req)
    try:
        fcntl.ioctl(fd, REGISTER_AGENT2, buf)
    except OSError as e:
        return -e.errno, buf
    return struct.unpack_from("<I", buf)[0], buf


def unregister(fd, agent):
    try:
        fcntl.ioctl(fd, UNREGISTER_AGENT, struct.pack("<I", agent))
        return 0
    except OSError as e:
        return -e.errno


class Dest:
    def __init__(self, argv):
        self.roce = argv[0] == "roce"
        if self.roce:
            self.gid_index = int(argv[1])
            self.gid = socket.inet_pton(socket.AF_INET6, argv[2])
            self.lid = 0
        else:
            self.gid_index, self.gid = 0, bytes(16)
            self.lid = int(argv[1], 0)

    def hdr(self, agent, timeout_ms=0, retries=0):
        """struct ib_user_mad_hdr to the port's own QP1."""
        h = struct.pack("<IIIII", agent, 0, timeout_ms, retries, 0)
        h += struct.pack(">II", 1, QP1_QKEY)
        h += struct.pack(">HBBBBBB", self.lid, 0, 0, 1 if self.roce else 0,
                         self.gid_index, 64 if self.roce else 0, 0)
        h += self.gid + struct.pack(">I", 0) + struct.pack("<H6x", 0)
        return h


def vendor_mad(method, tid, mgmt_class=VENDOR_CLASS, payload=b""):
    m = struct.pack(">BBBBHHQHHI", 1, mgmt_class, 1, method, 0, 0, tid, 0, 0,
                    0)
    m += bytes(12)                              # RMPP header area
    m += bytes([0]) + OUI.to_bytes(3, "big")    # reserved, OUI (36-39)
    m += payload
    return m + bytes(MAD - len(m))


def write(fd, buf):
    try:
        return os.write(fd, buf)
    except OSError as e:
        return -e.errno


def read(fd, timeout=5.0):
    r, _, _ = select.select([fd], [], [], timeout)
    if not r:
        return None
    return os.read(fd, HDR + MAD)


def parse(buf):
    agent, status, _, _, length = struct.unpack_from("<IIIII", buf)
    qpn, = struct.unpack_from(">I", buf, 20)
    lid, = struct.unpack_from(">H", buf, 28)
    grh = buf[32]
    mad = buf[HDR:]
    method = mad[3] if len(mad) > 3 else None
    tid = struct.unpack_from(">Q", mad, 8)[0] if len(mad) >= 16 else None
    return dict(agent=agent, status=status, length=length, qpn=qpn, lid=lid,
                grh=grh, mad=mad, method=method, tid=tid)


def main():
    path = sys.argv[1]
    dest = Dest(sys.argv[2:])
    fd = os.open(path, os.O_RDWR)

    # Registration rules.
    rc, _ = register(fd, reg_req(2, VENDOR_CLASS, oui=OUI))
    expect("qpn other than 0/1 refused", rc, -errno.EINVAL)
    rc, _ = register(fd, reg_req(1, 0x01, methods=[1]))
    expect("SMP class on QP1 refused", rc, -errno.EINVAL)
    rc, _ = register(fd, reg_req(1, VENDOR_CLASS, methods=[1]))
    expect("vendor range-2 class without OUI refused", rc, -errno.EINVAL)
    rc, buf = register(fd, reg_req(1, VENDOR_CLASS, flags=0x80, oui=OUI))
    expect("unknown REGISTER_AGENT2 flag refused", rc, -errno.EINVAL)
    expect("supported flags written back",
           struct.unpack_from("<I", buf, 12)[0], 1)
    if dest.roce:
        rc, _ = register(fd, reg_req(0, 0x81, methods=[1]))
        expect("QP0 agent on a port without SMI refused", rc,
               -errno.EPROTONOSUPPORT)

    server, _ = register(fd, reg_req(1, VENDOR_CLASS, methods=[1], oui=OUI))
    expect("vendor class agent registered as id 0", server, 0)
    rc, _ = register(fd, reg_req(1, VENDOR_CLASS, methods=[1], oui=OUI))
    expect("same class/method twice on a port", rc, -errno.EINVAL)
    client, _ = register(fd, reg_req(1, 0))
    expect("send-only agent registered as id 1", client, 1)
    try:
        fcntl.ioctl(fd, ENABLE_PKEY)
        bad("ENABLE_PKEY after registration accepted")
    except OSError as e:
        expect("ENABLE_PKEY after registration", -e.errno, -errno.EINVAL)

    # Too short, unknown agent.
    expect("write shorter than header + 36 bytes",
           write(fd, dest.hdr(client) + bytes(20)), -errno.EINVAL)
    expect("write for an unregistered agent",
           write(fd, dest.hdr(7) + vendor_mad(1, 0x1234)), -errno.EIO)

    # Request -> the class owner -> answer -> the requester.
    tid = 0x1234abcd
    req = vendor_mad(1, tid, payload=b"ping")
    n = write(fd, dest.hdr(client, timeout_ms=2000, retries=1) + req)
    expect("request written", n, HDR + MAD)
    got = read(fd)
    if got is None:
        bad("request delivered to the class owner")
    else:
        p = parse(got)
        expect("request goes to agent", p["agent"], server)
        expect("request length", len(got), HDR + MAD)
        expect("request source QP", p["qpn"], 1)
        expect("request GRH flag", p["grh"], 1 if dest.roce else 0)
        expect("request payload", p["mad"][40:44], b"ping")
        expect("request TID low half kept", p["tid"] & 0xffffffff, tid)
        # Answer with the header as received (the requester's address).
        resp = bytearray(p["mad"])
        resp[3] = 0x81
        resp[40:44] = b"pong"
        back = bytearray(got[:HDR])
        struct.pack_into("<I", back, 0, server)
        struct.pack_into("<II", back, 8, 0, 0)
        back[33] = dest.gid_index      # our GID of the request's type
        n = write(fd, bytes(back) + bytes(resp))
        expect("answer written", n, HDR + MAD)
        got = read(fd)
        if got is None:
            bad("answer delivered to the requester")
        else:
            p = parse(got)
            expect("answer goes to agent", p["agent"], client)
            expect("answer method", p["method"], 0x81)
            expect("answer payload", p["mad"][40:44], b"pong")
            expect("answer TID low half", p["tid"] & 0xffffffff, tid)

    # A Get for a class nobody serves: on IB the MAD layer answers it
    # ("unsupported method/attribute"), on RoCE it times out (as stock).
    req = vendor_mad(1, 0x55, mgmt_class=0x33)
    write(fd, dest.hdr(client, timeout_ms=200, retries=1) + req)
    got = read(fd)
    if got is None:
        bad("unserved request reported")
    else:
        p = parse(got)
        expect("unserved: agent", p["agent"], client)
        expect("unserved: class", p["mad"][1], 0x33)
        if dest.roce:
            expect("unserved: times out", p["status"], errno.ETIMEDOUT)
        else:
            expect("unserved: answered", p["status"], 0)
            expect("unserved: GetResp", p["method"], 0x81)
            expect("unserved: MAD status unsupported",
                   struct.unpack_from(">H", p["mad"], 4)[0], 0x000C)
    r, _, _ = select.select([fd], [], [], 0.5)
    expect("nothing else queued", r, [])

    expect("unregister agent 0", unregister(fd, server), 0)
    expect("unregister agent 0 again", unregister(fd, server), -errno.EINVAL)
    expect("unregister agent 1", unregister(fd, client), 0)
    os.close(fd)
    return vmcheck.fails


if __name__ == "__main__":
    sys.exit(main())
