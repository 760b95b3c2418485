#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# /dev/infiniband/umadN of one port through the raw ABI (IB-FABRIC.md §5):
# agent registration (REGISTER_AGENT2, its rules and errnos), a vendor-class
# request from a send-only agent to the port's own QP1 that reaches the
# agent owning the class, its answer back to the requester matched by TID,
# a Get nobody serves (answered "unsupported" on IB, timing out on RoCE),
# unregister; the rules across files (one owner per method, 32 agents per
# file, O_NONBLOCK, short reads, duplicate TIDs, the first-generation
# ioctl), user RMPP (a two-segment answer to a send-only agent), kernel
# RMPP (two agents of one class registered with rmpp_version 1: a whole
# message written once, segmented and reassembled by the MAD layer and read
# once; a request answered that way and one sent that way, ENOSPC for a
# buffer too small, a transfer nobody acknowledges timing out; segments
# written one by one by a user-RMPP agent: the ACKs and ABORTs they get).
# "removal" mode: holds the port's umad and issm open across the device's
# removal (after a line on stdin) and checks what they do afterwards.
# On RoCE the MADs carry a GRH to our own GID; on IB they go to our own
# LID. Errnos and behaviour are the stock kernel's. Prints "ok:"/"FAIL:"
# lines; exit status = failures.
# Usage: umad_abi.py UMAD_DEV {roce GID_INDEX GID [GID_INDEX6 GID6] | ib LID}
#        umad_abi.py UMAD_DEV removal ISSM_DEV {roce GID_INDEX GID | ib LID}
# GID_INDEX6/GID6: a RoCE v2 IPv6 GID of ours for the kernel-RMPP cases
# (the stock MAD layer matches ACKs and answers by the GID in a network
# header, which a RoCE v2 packet over IPv4 does not have).
import errno
import fcntl
import os
import select
import socket
import struct
import sys
import time

import vmcheck
from vmcheck import bad, expect, ok


REGISTER_AGENT = 0xC01C1B01
REGISTER_AGENT2 = 0xC0281B04
UNREGISTER_AGENT = 0x40041B02
ENABLE_PKEY = 0x1B03
HDR = 64                    # struct ib_user_mad_hdr
OLD_HDR = 56                # struct ib_user_mad_hdr_old
MAD = 256
VENDOR_CLASS = 0x32         # OpenIB ping class
RMPP_CLASS = 0x34           # another range-2 vendor class (RMPP capable)
KRMPP_CLASS = 0x36          # the kernel-RMPP agents' class
NOBODY_CLASS = 0x37         # registered by nobody
VENDOR_HDR = 40             # common + RMPP header, reserved byte, OUI
SEG_DATA = MAD - VENDOR_HDR  # data bytes in each segment (216)
OUI = 0x001405
QP1_QKEY = 0x80010000
# Where ours deliberately differs from the stock kernel (stock runs too).
STOCK = os.environ.get("RDMA_KMOD_STACK") == "stock"


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


def register_v1(fd, qpn, mgmt_class, version=1, methods=(), oui=0, rmpp=0):
    mask = 0
    for m in methods:
        mask |= 1 << m
    buf = bytearray(struct.pack("<IQQBBB3sB", 0, mask & (2**64 - 1),
                                mask >> 64, qpn, mgmt_class, version,
                                oui.to_bytes(3, "big"), rmpp))
    try:
        fcntl.ioctl(fd, REGISTER_AGENT, buf)
    except OSError as e:
        return -e.errno
    return struct.unpack_from("<I", buf)[0]


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
            self.v6 = None
            if len(argv) > 4:
                self.v6 = Dest(["roce", argv[3], argv[4]])
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


def rmpp_segment(tid, seg, last, payload):
    """A GetResp DATA segment of an active RMPP transfer, class 0x34."""
    m = bytearray(vendor_mad(0x81, tid, mgmt_class=RMPP_CLASS))
    flags = 0x1 | (0x2 if seg == 1 else 0) | (0x4 if last else 0)
    struct.pack_into(">BBBBII", m, 24, 1, 1, flags, 0, seg,
                     len(payload) if last else 0)
    m[40:40 + len(payload)] = payload
    return bytes(m)


def errno_of(fn, *args):
    try:
        fn(*args)
        return 0
    except OSError as e:
        return -e.errno


def write(fd, buf):
    try:
        return os.write(fd, buf)
    except OSError as e:
        return -e.errno


def read(fd, timeout=5.0, size=HDR + MAD):
    r, _, _ = select.select([fd], [], [], timeout)
    if not r:
        return None
    return os.read(fd, size)


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


def files_and_limits(path, dest):
    """Rules across files, agent ids, O_NONBLOCK, the old ioctl."""
    fd2 = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    expect("O_NONBLOCK read of an empty queue",
           errno_of(os.read, fd2, HDR + MAD), -errno.EAGAIN)
    expect("read shorter than the header",
           errno_of(os.read, fd2, 10), -errno.EINVAL)
    expect("ENABLE_PKEY before any registration",
           errno_of(fcntl.ioctl, fd2, ENABLE_PKEY), 0)
    rc, _ = register(fd2, reg_req(1, VENDOR_CLASS, methods=[1], oui=OUI))
    expect("a second file owning the same method refused", rc, -errno.EINVAL)
    rc, _ = register(fd2, reg_req(1, VENDOR_CLASS, methods=[2], oui=OUI))
    expect("another method of the class in a second file", rc, 0)
    ids = [rc]
    for _ in range(31):
        ids.append(register(fd2, reg_req(1, 0))[0])
    expect("32 agents on one file, ids 0..31", ids, list(range(32)))
    rc, _ = register(fd2, reg_req(1, 0))
    expect("33rd agent", rc, -errno.ENOMEM)
    expect("unregister of an id never registered (40)",
           unregister(fd2, 40), -errno.EINVAL)
    expect("unregister agent 5", unregister(fd2, 5), 0)
    expect("unregister agent 5 again", unregister(fd2, 5), -errno.EINVAL)
    rc, _ = register(fd2, reg_req(1, 0))
    expect("a freed id is handed out again", rc, 5)
    expect("write for agent id 32",
           write(fd2, dest.hdr(32) + vendor_mad(1, 1)), -errno.EINVAL)
    expect("write longer than one MAD",
           write(fd2, dest.hdr(1) + vendor_mad(1, 1) + bytes(8)),
           -errno.EINVAL)
    os.close(fd2)

    # The first-generation ioctl: old 56-byte header unless ENABLE_PKEY.
    fd3 = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    expect("REGISTER_AGENT (v1) send-only agent", register_v1(fd3, 1, 0), 0)
    expect("REGISTER_AGENT (v1) qpn 2 refused",
           register_v1(fd3, 2, VENDOR_CLASS, oui=OUI), -errno.EINVAL)
    expect("ENABLE_PKEY after a v1 registration",
           errno_of(fcntl.ioctl, fd3, ENABLE_PKEY), -errno.EINVAL)
    expect("read shorter than the old header",
           errno_of(os.read, fd3, OLD_HDR - 1), -errno.EINVAL)
    expect("old header: empty queue is EAGAIN",
           errno_of(os.read, fd3, OLD_HDR + MAD), -errno.EAGAIN)
    os.close(fd3)


def duplicate_and_short_read(fd, dest, server, client):
    """Same TID twice in flight; a read too short keeps the MAD queued."""
    req = vendor_mad(1, 0x77, payload=b"dup")
    expect("request with TID 0x77 written",
           write(fd, dest.hdr(client, timeout_ms=300) + req), HDR + MAD)
    expect("second request with TID 0x77 while the first is in flight",
           write(fd, dest.hdr(client, timeout_ms=300) + req), -errno.EINVAL)
    r, _, _ = select.select([fd], [], [], 5)
    if not r:
        bad("request 0x77 delivered")
        return
    expect("read of header + 100 bytes", errno_of(os.read, fd, HDR + 100),
           -errno.EINVAL)
    got = read(fd)
    p = parse(got) if got else None
    expect("the request stayed queued for a full read",
           p and (p["agent"], p["mad"][40:43]), (server, b"dup"))
    got = read(fd)
    p = parse(got) if got else None
    expect("unanswered request: ETIMEDOUT to the sender",
           p and (p["agent"], p["status"], len(got)),
           (client, errno.ETIMEDOUT, HDR + 24))
    expect("the TID may be used again once timed out",
           write(fd, dest.hdr(client) + req), HDR + MAD)
    got = read(fd)
    expect("request without timeout delivered", got and parse(got)["agent"],
           server)


def user_rmpp(fd, dest, client):
    """A user-RMPP server answers a request in two RMPP segments."""
    srv, _ = register(fd, reg_req(1, RMPP_CLASS, methods=[1], oui=OUI,
                                  rmpp=1, flags=1))
    if srv < 0:
        bad("user-RMPP agent for class 0x34: %d" % srv)
        return
    ok("user-RMPP agent registered (id %d)" % srv)
    req = vendor_mad(1, 0x99, mgmt_class=RMPP_CLASS)
    expect("RMPP request written",
           write(fd, dest.hdr(client, timeout_ms=3000) + req), HDR + MAD)
    got = read(fd)
    if got is None:
        bad("RMPP request delivered")
        unregister(fd, srv)
        return
    p = parse(got)
    back = bytearray(got[:HDR])
    struct.pack_into("<I", back, 0, srv)
    struct.pack_into("<II", back, 8, 0, 0)
    back[33] = dest.gid_index
    segs = []
    for seg, data in ((1, b"A" * 216), (2, b"B" * 100)):
        mad = rmpp_segment(p["tid"], seg, seg == 2, data)
        for _ in range(20):         # the stock kernel may refuse a repeat
            n = write(fd, bytes(back) + mad)   # answer until sent
            if n != -errno.EINVAL:
                break
            time.sleep(0.05)
        expect("RMPP segment %d written" % seg, n, HDR + MAD)
        got = read(fd)
        if got is None:
            bad("RMPP segment %d delivered" % seg)
            break
        q = parse(got)
        segs.append((q["agent"], q["mad"][25], q["mad"][26] & 7,
                     struct.unpack_from(">I", q["mad"], 28)[0],
                     q["mad"][40:40 + len(data)] == data))
    expect("both segments reach the requester in order", segs,
           [(client, 1, 3, 1, True), (client, 1, 5, 2, True)])
    expect("unregister the user-RMPP agent", unregister(fd, srv), 0)


def krmpp_mad(method, tid, data=b"", active=False, mgmt_class=KRMPP_CLASS):
    """A MAD of a kernel-RMPP class: its 40 header bytes and data. Active:
    a whole RMPP message as written once (the kernel segments it);
    otherwise one MAD, padded."""
    m = struct.pack(">BBBBHHQHHI", 1, mgmt_class, 1, method, 0, 0, tid, 0, 0,
                    0)
    m += struct.pack(">BBBBII", 1, 1, 1, 0, 0, 0) if active else bytes(12)
    m += bytes([0]) + OUI.to_bytes(3, "big") + data
    return m if active else m + bytes(MAD - len(m))


def pattern(n, seed):
    return bytes((i * 7 + seed * 31 + i // 251) & 0xff for i in range(n))


def rmpp_first_hdr(data_len, last=False):
    """The first segment's RMPP header as the reader gets it: version 1,
    DATA, Active|First (|Last), segment 1, PayloadLength of the whole
    transfer (220 bytes a segment, less what the last leaves unused)."""
    segs = max(1, -(-data_len // SEG_DATA))
    unused = segs * SEG_DATA - data_len
    return struct.pack(">BBBBII", 1, 1, 7 if last else 3, 0, 1,
                       segs * 220 - unused)


def answer_hdr(got, agent, dest):
    """A header back to where a received MAD came from."""
    back = bytearray(got[:HDR])
    struct.pack_into("<I", back, 0, agent)
    struct.pack_into("<II", back, 8, 0, 0)
    back[33] = dest.gid_index
    return bytes(back)


def readv_err(fd, size):
    """read() into a buffer of @size: (errno or byte count, the buffer)."""
    buf = bytearray(size)
    try:
        return os.readv(fd, [buf]), bytes(buf)
    except OSError as e:
        return -e.errno, bytes(buf)


def krmpp_get(fa, fb, a, b, dest, tid, data, name):
    """B's Get, answered by A with @data in one RMPP write; B's view."""
    n = write(fb, dest.hdr(b, timeout_ms=4000) + krmpp_mad(1, tid))
    expect("%s: Get written" % name, n, HDR + MAD)
    got = read(fa)
    if got is None:
        bad("%s: Get delivered to the Get owner" % name)
        return None
    p = parse(got)
    expect("%s: Get at the Get owner" % name,
           (p["agent"], p["method"], len(got)), (a, 1, HDR + MAD))
    resp = krmpp_mad(0x81, p["tid"], data, active=True)
    n = write(fa, answer_hdr(got, a, dest) + resp)
    expect("%s: GetResp of %d data bytes written once" % (name, len(data)),
           n, HDR + len(resp))
    return p["tid"], resp


def raw_seg(tid, seg, flags, paylen, data=b"", version=1, rtype=1,
            status=0):
    """A Set DATA segment built by hand (user RMPP), class KRMPP_CLASS."""
    m = bytearray(krmpp_mad(2, tid))
    struct.pack_into(">BBBBII", m, 24, version, rtype, flags, status, seg,
                     paylen)
    m[40:40 + len(data)] = data
    return bytes(m)


def rmpp_ctl(got):
    """(method, RMPP type, status, SegmentNumber, NewWindowLast) of a
    control MAD the kernel sent back."""
    m = got[HDR:]
    return (m[3], m[25], m[27]) + struct.unpack_from(">II", m, 28)


def raw_to_kernel(path, dest, fb, b):
    """Segments written one by one by a user-RMPP agent to the kernel-RMPP
    Set owner: the ACKs its MAD layer sends back, the message it delivers,
    repeats, and the transfers it aborts."""
    fu = os.open(path, os.O_RDWR)
    rc, _ = register(fu, reg_req(1, 0, rmpp=1, flags=1))
    expect("user RMPP for a send-only agent refused", rc, -errno.EINVAL)
    rc, _ = register(fu, reg_req(1, 0, rmpp=1))
    expect("kernel RMPP for a send-only agent", rc, 0)
    expect("unregister it", unregister(fu, rc), 0)
    u, _ = register(fu, reg_req(1, KRMPP_CLASS, methods=[0x15], oui=OUI,
                                rmpp=1, flags=1))
    expect("user-RMPP agent of the kernel-RMPP agents' class", u, 0)
    h = dest.hdr(u)

    def send(name, mad):
        for _ in range(40):         # a repeat of the TID may be refused
            n = write(fu, h + mad)  # until the last one was sent
            if n != -errno.EINVAL:
                break
            time.sleep(0.05)
        expect("raw: %s written" % name, n, HDR + MAD)

    def ctl(name, want):
        got = read(fu)
        expect("raw: %s" % name, got and rmpp_ctl(got), want)

    def quiet(name, fds):
        r, _, _ = select.select(fds, [], [], 0.5)
        expect("raw: %s" % name, r, [])

    # Three segments: 2 x 216 + 100 bytes.
    data = pattern(532, 6)
    segs = [data[0:216], data[216:432], data[432:]]
    send("segment 1 of 3", raw_seg(0x5400, 1, 3, 544, segs[0]))
    got = read(fu)
    expect("raw: ACK of segment 1 (R bit flipped, window 65)",
           got and rmpp_ctl(got), (0x82, 2, 0, 1, 65))
    send("segment 2 of 3", raw_seg(0x5400, 2, 1, 0, segs[1]))
    quiet("no ACK inside the window", [fu, fb])
    send("segment 3 of 3", raw_seg(0x5400, 3, 5, 104, segs[2]))
    ctl("ACK of the last segment", (0x82, 2, 0, 3, 65))
    got = read(fb, size=HDR + 4096)
    expect("raw: the Set owner reads the whole message",
           got and (parse(got)["agent"], len(got), got[HDR + 40:] == data),
           (b, HDR + 572, True))
    send("segment 3 again", raw_seg(0x5400, 3, 5, 104, segs[2]))
    ctl("a repeat is ACKed again", (0x82, 2, 0, 3, 65))
    quiet("a repeat is not delivered twice", [fb])

    # Refused transfers: ABORT with the reason.
    send("segment of RMPP version 2", raw_seg(0x5401, 1, 7, 20, version=2))
    got = read(fu)
    expect("raw: unsupported version: ABORT (125)",
           got and rmpp_ctl(got)[:3], (0x82, 4, 125))
    send("segment 2 flagged First", raw_seg(0x5402, 2, 3, 0))
    got = read(fu)
    expect("raw: First on segment 2: ABORT (120)",
           got and rmpp_ctl(got)[:3], (0x82, 4, 120))
    send("RMPP type 7", raw_seg(0x5403, 1, 3, 0, rtype=7))
    got = read(fu)
    expect("raw: bad RMPP type: ABORT (121)",
           got and rmpp_ctl(got)[:3], (0x82, 4, 121))
    # PayloadLength 300 in the first segment announces two segments
    send("segment 1 of 2", raw_seg(0x5405, 1, 3, 300))
    ctl("its ACK", (0x82, 2, 0, 1, 65))
    send("segment 2 of 2, not Last", raw_seg(0x5405, 2, 1, 0))
    quiet("no ACK inside the window", [fu, fb])
    send("segment 3 of 2", raw_seg(0x5405, 3, 5, 20))
    got = read(fu)
    expect("raw: a segment beyond PayloadLength: ABORT (123)",
           got and rmpp_ctl(got)[:3], (0x82, 4, 123))
    send("segment 1 of 2 flagged Last", raw_seg(0x5406, 1, 7, 300))
    got = read(fu)
    expect("raw: Last before PayloadLength's count: ABORT (119)",
           got and rmpp_ctl(got)[:3], (0x82, 4, 119))
    quiet("nothing delivered", [fu, fb])

    # An ABORT from a sender does not end the reception (as upstream:
    # its ABORT and STOP handling is the sender's only).
    send("segment 1 of a transfer", raw_seg(0x5404, 1, 3, 0))
    ctl("its ACK", (0x82, 2, 0, 1, 65))
    send("ABORT from the sender", raw_seg(0x5404, 0, 1, 0, rtype=4,
                                             status=127))
    send("segment 2 after the ABORT", raw_seg(0x5404, 2, 5, 20))
    ctl("ACK of segment 2", (0x82, 2, 0, 2, 65))
    got = read(fb, size=HDR + 4096)
    expect("raw: the transfer is delivered all the same (40 + 216 + 16)",
           got and len(got), HDR + 272)
    quiet("nothing else", [fu, fb])

    # Transfers started and never finished, by the hundred: the agent
    # keeps at most 256 receptions, then answers STOP, resources exhausted
    # (not on the stock kernel). The finished transfers of the tests above
    # still linger (10 s), a few of the 256.
    if not STOCK:
        stopped = None
        for i in range(300):
            n = write(fu, h + raw_seg(0x6000 + i, 1, 3, 1000))
            if n != HDR + MAD:
                bad("raw: transfer %d written: %d" % (i, n))
                break
            got = read(fu)
            c = got and rmpp_ctl(got)
            if c and c[:3] == (0x82, 3, 1):
                stopped = i
                break
            if c != (0x82, 2, 0, 1, 65):
                bad("raw: transfer %d: %r" % (i, c))
                break
        expect("raw: STOP (resources exhausted) after 240..256 receptions",
               (stopped, stopped is not None and 240 <= stopped <= 256),
               (stopped, True))
        quiet("nothing delivered of them", [fu, fb])

    expect("unregister the user-RMPP agent", unregister(fu, u), 0)
    os.close(fu)


def kernel_rmpp(path, dest):
    """Kernel RMPP between two agents of one class on this port."""
    fa = os.open(path, os.O_RDWR)
    fb = os.open(path, os.O_RDWR)
    a, _ = register(fa, reg_req(1, KRMPP_CLASS, methods=[1], oui=OUI,
                                rmpp=1))
    b, _ = register(fb, reg_req(1, KRMPP_CLASS, methods=[2], oui=OUI,
                                rmpp=1))
    expect("kernel-RMPP agents: A owns Get, B owns Set", (a, b), (0, 0))
    if a < 0 or b < 0:
        os.close(fa)
        os.close(fb)
        return

    # A Get answered by a four-segment GetResp (800 bytes: 3 x 216 + 152).
    data = pattern(800, 1)
    r = krmpp_get(fa, fb, a, b, dest, 0x5100, data, "4 segments")
    got = read(fb, size=HDR + 4096) if r else None
    if r and got is None:
        bad("4 segments: GetResp reassembled for the requester")
    elif r:
        tid, resp = r
        p = parse(got)
        expect("4 segments: one read of header + 40 + 800 bytes",
               (p["agent"], p["status"], p["length"], len(got)),
               (b, 0, HDR + 840, HDR + 840))
        expect("4 segments: GetResp with the request's TID",
               (p["method"], p["tid"]), (0x81, tid))
        expect("4 segments: first segment's RMPP header",
               got[HDR + 24:HDR + 36].hex(), rmpp_first_hdr(800).hex())
        expect("4 segments: every data byte", got[HDR + 36:] == resp[36:],
               True)
    r, _, _ = select.select([fa, fb], [], [], 0.5)
    expect("4 segments: nothing else for A or B", r, [])

    # Buffers too small for a three-segment answer (600 bytes).
    data = pattern(600, 2)
    r = krmpp_get(fa, fb, a, b, dest, 0x5101, data, "3 segments")
    if r:
        tid, resp = r
        select.select([fb], [], [], 5)
        n, _ = readv_err(fb, HDR + 100)
        expect("3 segments: read shorter than one segment", n,
               -errno.EINVAL)
        n, buf = readv_err(fb, HDR + MAD)
        expect("3 segments: read of one segment's size", n, -errno.ENOSPC)
        expect("3 segments: ENOSPC header says the length needed",
               struct.unpack_from("<II", buf, 0)[0:2] +
               (struct.unpack_from("<I", buf, 16)[0],), (b, 0, HDR + 640))
        expect("3 segments: ENOSPC copied the first segment",
               (buf[HDR:HDR + 24] == resp[:24],
                buf[HDR + 24:HDR + 36].hex(),
                buf[HDR + 36:] == resp[36:MAD]),
               (True, rmpp_first_hdr(600).hex(), True))
        got = read(fb, size=HDR + 640)
        expect("3 segments: read of exactly header + 640 bytes",
               got and (len(got), got[HDR + 36:] == resp[36:]),
               (HDR + 640, True))

    # An answer that fits one segment: the length its PayloadLength says.
    data = pattern(100, 3)
    r = krmpp_get(fa, fb, a, b, dest, 0x5102, data, "1 segment")
    got = read(fb, size=HDR + 4096) if r else None
    if r:
        tid, resp = r
        expect("1 segment: header + 140 bytes",
               got and (len(got), parse(got)["length"]),
               (HDR + 140, HDR + 140))
        expect("1 segment: RMPP header and data",
               got and (got[HDR + 24:HDR + 36].hex(), got[HDR + 36:]),
               (rmpp_first_hdr(100, last=True).hex(), resp[36:]))

    # A Set of 700 bytes (4 segments) from A to B, answered in one MAD.
    data = pattern(700, 4)
    req = krmpp_mad(2, 0x5200, data, active=True)
    n = write(fa, dest.hdr(a, timeout_ms=4000) + req)
    expect("Set of 700 bytes written once", n, HDR + 740)
    got = read(fb, size=HDR + 4096)
    if got is None:
        bad("Set reassembled for the Set owner")
    else:
        p = parse(got)
        expect("Set: one read of header + 740 bytes at the Set owner",
               (p["agent"], p["length"], len(got)),
               (b, HDR + 740, HDR + 740))
        expect("Set: method and TID low half",
               (p["method"], p["tid"] & 0xffffffff), (2, 0x5200))
        expect("Set: first segment's RMPP header",
               got[HDR + 24:HDR + 36].hex(), rmpp_first_hdr(700).hex())
        expect("Set: every data byte", got[HDR + 36:] == req[36:], True)
        resp = krmpp_mad(0x81, p["tid"], b"done")
        n = write(fb, answer_hdr(got, b, dest) + resp)
        expect("Set answered with one MAD", n, HDR + MAD)
        got = read(fa)
        q = parse(got) if got else None
        expect("Set's answer at A",
               q and (q["agent"], q["method"], q["tid"], len(got),
                      q["mad"][40:44]),
               (a, 0x81, p["tid"], HDR + MAD, b"done"))

    # A long answer: 30000 bytes, 139 segments, three ACK windows.
    data = pattern(30000, 7)
    r = krmpp_get(fa, fb, a, b, dest, 0x5103, data, "139 segments")
    got = read(fb, size=HDR + 40 + 30000) if r else None
    if r:
        tid, resp = r
        expect("139 segments: one read of it all",
               got and (len(got), parse(got)["length"],
                        got[HDR + 36:] == resp[36:]),
               (HDR + 30040, HDR + 30040, True))

    raw_to_kernel(path, dest, fb, b)

    # A transfer nobody acknowledges: ETIMEDOUT with the common header.
    req = krmpp_mad(0x14, 0x5300, pattern(500, 5), active=True,
                    mgmt_class=NOBODY_CLASS)
    n = write(fa, dest.hdr(a, timeout_ms=200, retries=1) + req)
    expect("RMPP transfer to nobody written", n, HDR + 540)
    got = read(fa, timeout=10)
    p = parse(got) if got else None
    expect("RMPP transfer to nobody: ETIMEDOUT",
           p and (p["agent"], p["status"], len(got), p["mad"][1],
                  p["tid"] & 0xffffffff),
           (a, errno.ETIMEDOUT, HDR + 24, NOBODY_CLASS, 0x5300))

    r, _, _ = select.select([fa, fb], [], [], 0.5)
    expect("kernel RMPP: nothing else queued", r, [])
    expect("unregister the kernel-RMPP agents",
           (unregister(fa, a), unregister(fb, b)), (0, 0))
    os.close(fa)
    os.close(fb)


def removal(path, issm, dest):
    """Files held open across the device's removal."""
    fd = os.open(path, os.O_RDWR)
    fd2 = os.open(path, os.O_RDWR)
    sm = os.open(issm, os.O_RDONLY | os.O_NONBLOCK)
    a, _ = register(fd, reg_req(1, VENDOR_CLASS, methods=[1], oui=OUI))
    c, _ = register(fd, reg_req(1, 0))
    expect("agents before removal", (a, c), (0, 1))
    b, _ = register(fd2, reg_req(1, 0))
    expect("agent on the blocked reader's file", b, 0)
    # A request outstanding at removal: to a class nobody serves.
    h = dest.hdr(c, timeout_ms=60000)
    expect("request outstanding at removal",
           write(fd, h + vendor_mad(1, 0x42, mgmt_class=0x33)), HDR + MAD)
    # The blocked reader is a child: on the stock kernel nothing wakes it.
    child = os.fork()
    if child == 0:
        os._exit(-errno_of(os.read, fd2, HDR + MAD))
    print("ready", flush=True)
    sys.stdin.readline()
    status = None
    for _ in range(100):
        pid, status = os.waitpid(child, os.WNOHANG)
        if pid:
            break
        status = None
        time.sleep(0.1)
    if STOCK:
        # Upstream 6.1 checks for removal only once a MAD is queued.
        expect("stock: a blocked read stays blocked", status, None)
        os.kill(child, 9)
        os.waitpid(child, 0)
    else:
        expect("blocked read woken by the removal with EIO",
               status is not None and os.WEXITSTATUS(status), errno.EIO)
    # Non-blocking: the stock kernel would block here otherwise.
    fcntl.fcntl(fd, fcntl.F_SETFL, os.O_NONBLOCK)
    expect("read after removal", errno_of(os.read, fd, HDR + MAD),
           -errno.EIO)
    po = select.poll()
    po.register(fd, select.POLLIN)
    ev = po.poll(1000)
    expect("poll after removal", ev and ev[0][1] & select.POLLERR,
           select.POLLERR)
    rc, _ = register(fd, reg_req(1, 0))
    expect("registration after removal", rc, -errno.EPIPE)
    expect("write after removal", write(fd, h + vendor_mad(1, 0x43)),
           -errno.EIO)
    expect("unregister after removal", unregister(fd, a), -errno.EINVAL)
    os.close(sm)
    os.close(fd2)
    os.close(fd)
    return vmcheck.fails


def main():
    path = sys.argv[1]
    if sys.argv[2] == "removal":
        return removal(path, sys.argv[3], Dest(sys.argv[4:]))
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
    gone, _ = register(fd, reg_req(1, 0))
    expect("unregister a fresh send-only agent", unregister(fd, gone), 0)
    expect("write for the agent just unregistered",
           write(fd, dest.hdr(gone) + vendor_mad(1, 0x1235)), -errno.EIO)
    expect("write of the header alone", write(fd, dest.hdr(client)),
           -errno.EINVAL)
    expect("write of a MAD and 1 MiB more (no RMPP)",
           write(fd, dest.hdr(client) + vendor_mad(1, 0x1236) +
                 bytes(1 << 20)), -errno.EINVAL)
    # shorter than 256 bytes: sent padded with zeros
    short = vendor_mad(1, 0x1237, payload=b"short")[:48]
    expect("a 48-byte MAD written", write(fd, dest.hdr(client) + short),
           HDR + 48)
    got = read(fd)
    p = parse(got) if got else None
    expect("the 48-byte MAD delivered whole, padded with zeros",
           p and (p["agent"], len(got), p["mad"][40:45],
                  p["mad"][48:] == bytes(MAD - 48)),
           (server, HDR + MAD, b"short", True))

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
        if p["tid"] >> 32 == 0:
            bad("request TID high half not stamped with the agent's hi_tid")
        else:
            ok("request TID high half stamped (0x%x)" % (p["tid"] >> 32))
        full_tid = p["tid"]
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
        # A slow VM may see the request again (its retry) first.
        while got and parse(got)["agent"] == server and \
                parse(got)["tid"] == full_tid:
            ok("a retry of the request seen before the answer")
            got = read(fd)
        if got is None:
            bad("answer delivered to the requester")
        elif STOCK and dest.roce:
            # Upstream 6.1 matches an answer by the GID in the receive
            # buffer's GRH area, which holds an IPv4 header on RoCE v2
            # over IPv4: the answer is dropped, the request times out.
            p = parse(got)
            expect("stock: the answer is not matched, the request times out",
                   (p["agent"], p["status"]), (client, errno.ETIMEDOUT))
        else:
            p = parse(got)
            expect("answer goes to agent", p["agent"], client)
            expect("answer method", p["method"], 0x81)
            expect("answer payload", p["mad"][40:44], b"pong")
            expect("answer TID unchanged", p["tid"], full_tid)

    files_and_limits(path, dest)
    duplicate_and_short_read(fd, dest, server, client)
    user_rmpp(fd, dest, client)

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

    if dest.roce and dest.v6 is None:
        bad("kernel RMPP: no IPv6 GID given")
    else:
        kernel_rmpp(path, dest.v6 if dest.roce else dest)
    return vmcheck.fails


if __name__ == "__main__":
    sys.exit(main())
