#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Raw /dev/infiniband/rdma_cm commands (ABI.md §5.2-5.6): framing errors,
# bad ids and sizes, non-blocking GET_EVENT, poll, an IPv4 bind + query +
# address resolution, DESTROY_ID's events_reported, MIGRATE_ID between two
# files, and close() with ids and events still pending. Errnos are the
# stock kernel's. Prints "ok:"/"FAIL:" lines; exit status = failures.
# Usage: cm_ucma_abi.py LOCAL_IPV4
import ctypes
import errno
import fcntl
import os
import select
import socket
import struct
import sys

import vmcheck
from vmcheck import bad, expect, ok


def write(fd, buf):
    try:
        n = os.write(fd, buf)
        return 0 if n == len(buf) else -errno.ENODATA
    except OSError as e:
        return -e.errno


def cmd(fd, c, payload, out=0, inlen=None):
    hdr = struct.pack("<IHH", c, len(payload) if inlen is None else inlen, out)
    return write(fd, hdr + payload)


def sin(ip, port=0):
    """A sockaddr_in in a 28-byte sockaddr_in6 slot."""
    s = struct.pack("<H", socket.AF_INET) + struct.pack(">H", port)
    s += socket.inet_aton(ip)
    return s + bytes(28 - len(s))


class Buf:
    def __init__(self, size):
        self.b = ctypes.create_string_buffer(size)
        self.addr = ctypes.addressof(self.b)

    def raw(self):
        return self.b.raw


CREATE, DESTROY, BIND_IP, RESOLVE_IP, QUERY_ROUTE = 0, 1, 2, 3, 5
INIT_QP_ATTR, GET_EVENT, GET_OPTION, MIGRATE, QUERY, BIND = 11, 12, 13, 18, 19, 20
PS_TCP, PS_UDP = 0x0106, 0x0111


def create_id(fd, uid, ps=PS_TCP):
    r = Buf(4)
    ret = cmd(fd, CREATE, struct.pack("<QQHB5x", uid, r.addr, ps, 2), 4)
    return ret if ret else struct.unpack("<I", r.raw())[0]


def destroy_id(fd, i):
    r = Buf(4)
    ret = cmd(fd, DESTROY, struct.pack("<QII", r.addr, i, 0), 4)
    return ret if ret else ("reported", struct.unpack("<I", r.raw())[0])


def get_event(fd):
    r = Buf(336)
    ret = cmd(fd, GET_EVENT, struct.pack("<Q", r.addr), 336)
    if ret:
        return ret
    uid, i, ev, st = struct.unpack_from("<QIIi", r.raw())
    return (uid, i, ev, st)


def main():
    ip = sys.argv[1] if len(sys.argv) > 1 else "192.0.2.1"
    fd = os.open("/dev/infiniband/rdma_cm", os.O_RDWR)

    # Framing (ucma_write).
    expect("short write", write(fd, b"\0" * 4), -errno.EINVAL)
    expect("cmd out of range", cmd(fd, 23, bytes(16)), -errno.EINVAL)
    expect("in beyond len", cmd(fd, CREATE, bytes(24), 4, inlen=64),
           -errno.EINVAL)
    expect("GET_OPTION", cmd(fd, GET_OPTION, bytes(24)), -errno.ENOSYS)

    # CREATE_ID / DESTROY_ID arguments.
    r = Buf(4)
    expect("CREATE_ID out=0",
           cmd(fd, CREATE, struct.pack("<QQHB5x", 1, r.addr, PS_TCP, 2), 0),
           -errno.ENOSPC)
    expect("CREATE_ID bad ps", create_id(fd, 1, 0x9999), -errno.EINVAL)
    expect("CREATE_ID bad response pointer",
           cmd(fd, CREATE, struct.pack("<QQHB5x", 1, 8, PS_TCP, 2), 4),
           -errno.EFAULT)
    expect("DESTROY_ID unknown", destroy_id(fd, 0x7fffffff), -errno.ENOENT)

    a = create_id(fd, 0x1111)
    if a < 0:
        bad("CREATE_ID TCP: %d" % a)
        return
    ok("CREATE_ID TCP -> id %d" % a)

    # No event yet: poll is quiet, non-blocking GET_EVENT says EAGAIN.
    p = select.poll()
    p.register(fd, select.POLLIN)
    expect("poll with no event", p.poll(0), [])
    fl = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, fl | os.O_NONBLOCK)
    expect("GET_EVENT O_NONBLOCK", get_event(fd), -errno.EAGAIN)
    fcntl.fcntl(fd, fcntl.F_SETFL, fl)
    expect("GET_EVENT short out",
           cmd(fd, GET_EVENT, struct.pack("<Q", Buf(336).addr), 100),
           -errno.ENOSPC)
    expect("INIT_QP_ATTR bad state",
           cmd(fd, INIT_QP_ATTR, struct.pack("<QII", Buf(144).addr, a, 99),
               144), -errno.EINVAL)
    expect("INIT_QP_ATTR unbound id",
           cmd(fd, INIT_QP_ATTR, struct.pack("<QII", Buf(144).addr, a, 1),
               144), -errno.EINVAL)

    # Bind to our address and look at what QUERY_ROUTE says.
    expect("BIND_IP " + ip,
           cmd(fd, BIND_IP, struct.pack("<Q", 0) + sin(ip) +
               struct.pack("<I", a)), 0)
    r = Buf(208)
    expect("QUERY_ROUTE",
           cmd(fd, QUERY_ROUTE, struct.pack("<QII", r.addr, a, 0), 208), 0)
    guid = struct.unpack_from("<Q", r.raw(), 0)[0]
    fam, = struct.unpack_from("<H", r.raw(), 136)
    port = r.raw()[196]
    if guid and fam == socket.AF_INET and port == 1:
        ok("QUERY_ROUTE: guid %016x, AF_INET, port 1" % guid)
    else:
        bad("QUERY_ROUTE: guid %x family %d port %d" % (guid, fam, port))
    r = Buf(280)
    expect("QUERY ADDR",
           cmd(fd, QUERY, struct.pack("<QII", r.addr, a, 0), 280), 0)
    expect("QUERY bad option",
           cmd(fd, QUERY, struct.pack("<QII", r.addr, a, 9), 280),
           -errno.ENOSYS)

    # AF_IB wildcard bind (librdmacm's probe): stock accepts, a kernel that
    # refuses it sends librdmacm down the IP-only commands. Either is fine.
    b = create_id(fd, 0x2222)
    sib = struct.pack("<HHI16sQQQ", 27, 0xffff, 0, bytes(16),
                      0x0000000001060000, 0xFFFFFFFFFFFF0000, 0)
    ret = cmd(fd, BIND, struct.pack("<IHH", b, 48, 0) + sib + bytes(80))
    print("info: AF_IB BIND -> %d" % ret)
    expect("DESTROY_ID probe id", destroy_id(fd, b), ("reported", 0))
    expect("BIND bad addr_size",
           cmd(fd, BIND, struct.pack("<IHH", a, 7, 0) + bytes(128)),
           -errno.EINVAL)

    # Address resolution to ourselves: ADDR_RESOLVED, seen by poll.
    expect("RESOLVE_IP",
           cmd(fd, RESOLVE_IP, sin(ip) + sin(ip, 7174) +
               struct.pack("<II", a, 2000)), 0)
    if p.poll(10000):
        ok("poll: event ready")
    else:
        bad("poll: no event in 10 s")
    expect("ADDR_RESOLVED event", get_event(fd), (0x1111, a, 0, 0))

    # MIGRATE_ID to a second file, then back; pending events follow it.
    fd2 = os.open("/dev/infiniband/rdma_cm", os.O_RDWR)
    r = Buf(4)
    nul = os.open("/dev/null", os.O_RDWR)
    expect("MIGRATE_ID from a non-rdma_cm fd",
           cmd(fd2, MIGRATE, struct.pack("<QII", r.addr, a, nul), 4),
           -errno.EINVAL)
    os.close(nul)
    expect("MIGRATE_ID",
           cmd(fd2, MIGRATE, struct.pack("<QII", r.addr, a, fd), 4), 0)
    expect("MIGRATE_ID events_reported", struct.unpack("<I", r.raw())[0], 1)
    expect("old file no longer owns the id", destroy_id(fd, a),
           -errno.EINVAL)
    expect("DESTROY_ID on the new file", destroy_id(fd2, a), ("reported", 1))
    expect("DESTROY_ID twice", destroy_id(fd2, a), -errno.ENOENT)

    # close() with live ids, one with an undelivered event.
    c = create_id(fd2, 0x3333)
    cmd(fd2, RESOLVE_IP, sin(ip) + sin(ip, 7175) + struct.pack("<II", c, 2000))
    create_id(fd2, 0x4444, PS_UDP)
    os.close(fd2)
    os.close(fd)
    ok("close with pending ids and events")


main()
sys.exit(min(vmcheck.fails, 100))
