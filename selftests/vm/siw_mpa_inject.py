#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Hostile MPA peer for siw_bad_mpa.sh: connects to an iWARP listener over
# plain TCP and sends (a) broken MPA requests, (b) after a valid enhanced
# MPA exchange with CRC, broken FPDUs. Prints one line per case:
#   CASE <name> reply=<reject|accept|none> term=<layer/etype/ecode|none> closed=<0|1>
# Wire formats: RFC 5044 (MPA), 5041 (DDP), 5040 (RDMAP), 6581 (MPA v2).
import socket
import struct
import sys

HOST = sys.argv[1]
PORT = int(sys.argv[2])
KEY_REQ = b"MPA ID Req Frame"
KEY_REP = b"MPA ID Rep Frame"
F_MARKERS, F_CRC, F_REJECT, F_ENH = 0x8000, 0x4000, 0x2000, 0x1000

# CRC32c (Castagnoli), reflected, as MPA uses it.
_T = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    _T.append(c)


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _T[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def mpa_frame(key, bits, pdata):
    return key + struct.pack(">HH", bits, len(pdata)) + pdata


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        try:
            chunk = s.recv(n - len(buf))
        except (ConnectionResetError, socket.timeout):
            return buf
        if not chunk:
            return buf
        buf += chunk
    return buf


def read_reply(s):
    hdr = recv_exact(s, 20)
    if len(hdr) < 20 or hdr[:16] != KEY_REP:
        return None, b""
    bits, plen = struct.unpack(">HH", hdr[16:20])
    return bits, recv_exact(s, plen)


def closed(s):
    """1 if the peer closed the connection (EOF or reset) within the timeout."""
    try:
        while True:
            d = s.recv(4096)
            if not d:
                return 1
    except ConnectionResetError:
        return 1
    except socket.timeout:
        return 0


def read_fpdu(s, crc):
    """One FPDU: (ctrl, body) or None."""
    lh = recv_exact(s, 2)
    if len(lh) < 2:
        return None
    ulen = struct.unpack(">H", lh)[0]
    pad = (4 - ((2 + ulen) & 3)) & 3
    rest = recv_exact(s, ulen + pad + 4)
    if len(rest) < ulen + pad + 4:
        return None
    if crc:
        want = struct.pack("<I", crc32c(lh + rest[:ulen + pad]))
        if rest[ulen + pad:] != want:
            return ("badcrc", b"")
    ctrl = struct.unpack(">H", rest[:2])[0]
    return ctrl, rest[2:ulen]


def connect():
    s = socket.create_connection((HOST, PORT), timeout=10)
    s.settimeout(10)
    return s


def report(name, reply, term, cl):
    print("CASE %s reply=%s term=%s closed=%d" % (name, reply, term, cl),
          flush=True)


def bad_request(name, frame):
    s = connect()
    s.sendall(frame)
    bits, _ = read_reply(s)
    reply = "none" if bits is None else (
        "reject" if bits & F_REJECT else "accept")
    report(name, reply, "none", closed(s))
    s.close()


def fpdu(ctrl, hdr_rest, payload, crc, mpa_len=None, corrupt_crc=False):
    ulpdu = struct.pack(">H", ctrl) + hdr_rest + payload
    ulen = len(ulpdu) if mpa_len is None else mpa_len
    body = struct.pack(">H", ulen) + ulpdu
    body += b"\0" * ((4 - (len(body) & 3)) & 3)
    c = crc32c(body) if crc else 0
    if corrupt_crc:
        c ^= 0x1
    return body + struct.pack("<I", c)


def after_handshake(name, make):
    s = connect()
    v2 = struct.pack(">HH", 16, 16)
    s.sendall(mpa_frame(KEY_REQ, F_CRC | F_ENH | 2, v2))
    bits, _ = read_reply(s)
    if bits is None or bits & F_REJECT:
        report(name, "none" if bits is None else "reject", "none", closed(s))
        s.close()
        return
    crc = bool(bits & F_CRC)
    s.sendall(make(crc))
    term = "none"
    while True:
        f = read_fpdu(s, crc)
        if f is None:
            break
        ctrl, body = f
        if ctrl == "badcrc":
            term = "badcrc"
            break
        if (ctrl & 0xF) == 7 and len(body) >= 16 + 2:
            le, ec = body[16], body[17]
            term = "%d/%d/%d" % (le >> 4, le & 0xF, ec)
            break
    report(name, "accept", term, closed(s))
    s.close()


# DDP/RDMAP control: version bits 0x0140; L 0x4000; T 0x8000.
V = 0x0140
L = 0x4000
T = 0x8000


def untagged(qn, msn, mo, inval=0):
    return struct.pack(">IIII", inval, qn, msn, mo)


CASES = {
    "bad_key": lambda: bad_request(
        "bad_key", mpa_frame(b"MPA ID Bad Frame", 2, b"")),
    "markers": lambda: bad_request(
        "markers", mpa_frame(KEY_REQ, F_MARKERS | 1, b"")),
    "bad_revision": lambda: bad_request(
        "bad_revision", mpa_frame(KEY_REQ, 3, b"")),
    "oversized_pd_len": lambda: bad_request(
        "oversized_pd_len", KEY_REQ + struct.pack(">HH", 1, 600) + b"x" * 600),
    "bad_crc": lambda: after_handshake(
        "bad_crc", lambda crc: fpdu(V | L | 3, untagged(0, 1, 0), b"hello!!!",
                                    crc, corrupt_crc=True)),
    "unknown_opcode": lambda: after_handshake(
        "unknown_opcode", lambda crc: fpdu(V | L | 9, untagged(0, 1, 0), b"",
                                           crc)),
    "bad_ddp_version": lambda: after_handshake(
        "bad_ddp_version", lambda crc: fpdu(0x0240 | L | 3, untagged(0, 1, 0),
                                            b"x" * 4, crc)),
    "length_underflow": lambda: after_handshake(
        "length_underflow", lambda crc: fpdu(V | L | 3, untagged(0, 1, 0),
                                             b"", crc, mpa_len=6)),
    "bad_stag": lambda: after_handshake(
        "bad_stag", lambda crc: fpdu(V | T | L | 0,
                                     struct.pack(">IQ", 0xdead00, 0x1000),
                                     b"y" * 64, crc)),
    "oversized_send": lambda: after_handshake(
        "oversized_send", lambda crc: fpdu(V | L | 3, untagged(0, 1, 0),
                                           b"z" * 60000, crc)),
    "bad_msn": lambda: after_handshake(
        "bad_msn", lambda crc: fpdu(V | L | 3, untagged(0, 7, 0), b"q" * 8,
                                    crc)),
}

for name in sys.argv[3:]:
    CASES[name]()
