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
# ioctl), user RMPP (a two-segment answer to a send-only agent).
# "removal" mode: holds the port's umad and issm open across the device's
# removal (after a line on stdin) and checks what they do afterwards.
# On RoCE the MADs carry a GRH to our own GID; on IB they go to our own
# LID. Errnos and behaviour are the stock kernel's. Prints "ok:"/"FAIL:"
# lines; exit status = failures.
# Usage: umad_abi.py UMAD_DEV {roce GID_INDEX GID | ib LID}
#        umad_abi.py UMAD_DEV removal ISSM_DEV {roce GID_INDEX GID | ib LID}
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
    return vmcheck.fails


if __name__ == "__main__":
    sys.exit(main())
