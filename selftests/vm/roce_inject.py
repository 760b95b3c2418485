#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Craft RoCE packets: v2 with an ordinary UDP socket, v1 as raw frames.

RoCE v2: the kernel builds the IPv4 and UDP headers. With IP_PMTUDISC_DO
the IPv4 header is predictable (no options, DF set, and ID 0 for an
unconnected sendto), which is all the ICRC needs: TOS, TTL and both
checksums are masked out of it (ABI.md 8.4). The socket is bound to UDP
port 4791, so the ACKs and NAKs an rxe sends back (always to port 4791)
arrive on it; no rxe may run on this host at the same time.

RoCE v1 (IBA annex A16): an AF_PACKET socket sends whole Ethernet frames
of ethertype 0x8915 (Ethernet header, 40-byte GRH, BTH ...) and receives
the replies.

Subcommands:
  selftest FILE      check the ICRC code against captured Ethernet frames
                     (hex, one per line, or a .pcap file); RoCE v1 and v2
  mads FILE          list the CM MADs (to QP1) in captured frames, v1 and v2
  send ...           send one packet (see --help), optionally wait for a reply
  rv-put PORT TEXT   rendezvous: serve TEXT to the first TCP client
  rv-get HOST PORT   rendezvous: print the text served by rv-put (retries)
  robust --peer IP   the attacker side of twovm-wire-robust.sh (RoCE v2)
  robust-v1 --peer IP  the same with RoCE v1 frames
"""
import argparse
import socket
import struct
import sys
import time
import zlib

ROCE_PORT = 4791
ETH_P_IBOE = 0x8915
GRH_NXTHDR_BTH = 0x1B
PACKET_OUTGOING = 4         # <linux/if_packet.h>
# <linux/in.h>; not every Python exports them
IP_MTU_DISCOVER = getattr(socket, "IP_MTU_DISCOVER", 10)
IP_PMTUDISC_DO = getattr(socket, "IP_PMTUDISC_DO", 2)

OP_RC_SEND_ONLY = 0x04
OP_RC_WRITE_ONLY = 0x0A
OP_RC_ACK = 0x11
OP_UD_SEND_ONLY = 0x64

SYN_ACK = 0x00
SYN_NAK_PSN = 0x60
SYN_NAK_INV = 0x61
SYN_NAK_ACC = 0x62
SYN_NAK_OP = 0x63


def bth(opcode, qpn, psn, pad=0, pkey=0xFFFF, ackreq=False, se=False,
        mig=False, tver=0):
    b1 = (0x80 if se else 0) | (0x40 if mig else 0) | (pad << 4) | tver
    return struct.pack("!BBHII", opcode, b1, pkey, qpn & 0xFFFFFF,
                       (0x80000000 if ackreq else 0) | (psn & 0xFFFFFF))


def reth(va, rkey, length):
    return struct.pack("!QII", va, rkey, length)


def deth(qkey, src_qp):
    return struct.pack("!II", qkey, src_qp & 0xFFFFFF)


def icrc(ip_hdr, udp_hdr, transport):
    """ICRC of a packet: @transport is BTH..pad (without the ICRC).

    Returns the 4 bytes to append (little-endian complement of the CRC).
    """
    ip = bytearray(ip_hdr)
    if ip[0] >> 4 == 4:
        ip[1] = 0xFF            # TOS
        ip[8] = 0xFF            # TTL
        ip[10:12] = b"\xff\xff"  # header checksum
    else:
        ip[0] |= 0x0F           # traffic class + flow label
        ip[1:4] = b"\xff\xff\xff"
        ip[7] = 0xFF            # hop limit
    udp = bytearray(udp_hdr)
    udp[6:8] = b"\xff\xff"      # UDP checksum
    tr = bytearray(transport)
    tr[4] = 0xFF                # BTH FECN/BECN/reserved byte
    # zlib.crc32 = ~crc32_le(~0, ..): the stored value is exactly that
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(tr))
    return struct.pack("<I", crc)


def grh(paylen, sgid, dgid, ipver=6, nxthdr=GRH_NXTHDR_BTH, tclass=0,
        flow=0, hop=64):
    """IBA GRH: PayLen counts the bytes after it (BTH .. ICRC)."""
    vtf = (ipver << 28) | (tclass << 20) | (flow & 0xFFFFF)
    return struct.pack("!IHBB", vtf, paylen, nxthdr, hop) + sgid + dgid


def icrc_v1(grh_hdr, transport):
    """ICRC of a RoCE v1 packet: @transport is BTH..pad (no ICRC)."""
    g = bytearray(grh_hdr)
    g[0] |= 0x0F                # traffic class + flow label
    g[1:4] = b"\xff\xff\xff"
    g[7] = 0xFF                 # hop limit
    tr = bytearray(transport)
    tr[4] = 0xFF                # BTH FECN/BECN/reserved byte
    crc = zlib.crc32(b"\xff" * 8 + bytes(g) + bytes(tr))
    return struct.pack("<I", crc)


def ip4_gid(ip):
    return b"\0" * 10 + b"\xff\xff" + socket.inet_aton(ip)


def mac_bytes(text):
    return bytes(int(x, 16) for x in text.split(":"))


def ipv4_udp_headers(src, dst, sport, dport, udp_payload_len):
    """The headers the kernel will put in front of an unconnected sendto."""
    ulen = 8 + udp_payload_len
    iph = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + ulen, 0, 0x4000, 64,
                      socket.IPPROTO_UDP, 0, socket.inet_aton(src),
                      socket.inet_aton(dst))
    udph = struct.pack("!HHHH", sport, dport, ulen, 0)
    return iph, udph


def read_frames(path):
    """Ethernet frames of a .pcap file, or hex lines of a text file."""
    if path.endswith(".pcap"):
        with open(path, "rb") as f:
            data = f.read()
        end = "<" if data[:4] == b"\xd4\xc3\xb2\xa1" else ">"
        off = 24
        while off + 16 <= len(data):
            incl = struct.unpack(end + "I", data[off + 8:off + 12])[0]
            yield data[off + 16:off + 16 + incl]
            off += 16 + incl
        return
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                yield bytes.fromhex(line)


def selftest(path):
    """Check the ICRC code against real frames: Ethernet + GRH + RoCE (v1),
    Ethernet + IPv4/IPv6 + UDP + RoCE (v2)."""
    good = bad = v1 = 0
    for fr in read_frames(path):
        etype = struct.unpack("!H", fr[12:14])[0]
        p = fr[14:]
        if etype == ETH_P_IBOE:
            plen = struct.unpack("!H", p[4:6])[0]
            roce = p[40:40 + plen]
            v1 += 1
            if icrc_v1(p[:40], roce[:-4]) == roce[-4:]:
                good += 1
            else:
                bad += 1
            continue
        if etype == 0x0800:
            ihl = (p[0] & 0x0F) * 4
            tot = struct.unpack("!H", p[2:4])[0]
            ip, rest = p[:ihl], p[ihl:tot]
        elif etype == 0x86DD:
            plen = struct.unpack("!H", p[4:6])[0]
            ip, rest = p[:40], p[40:40 + plen]
        else:
            continue
        udp, roce = rest[:8], rest[8:]
        if icrc(ip, udp, roce[:-4]) == roce[-4:]:
            good += 1
        else:
            bad += 1
    print("icrc selftest: %d good, %d bad (%d RoCE v1)" % (good, bad, v1))
    return 0 if good and not bad else 1


CM_ATTRS = {0x10: "REQ", 0x11: "MRA", 0x12: "REJ", 0x13: "REP", 0x14: "RTU",
            0x15: "DREQ", 0x16: "DREP", 0x17: "SIDR_REQ", 0x18: "SIDR_REP"}


def mads(path):
    """One line per MAD to QP1: version, MACs, CM attribute, transaction."""
    for fr in read_frames(path):
        etype = struct.unpack("!H", fr[12:14])[0]
        p = fr[14:]
        if etype == ETH_P_IBOE:
            ver, tr = "v1", p[40:]
        elif etype == 0x0800:
            ver, tr = "v2", p[(p[0] & 0x0F) * 4 + 8:]
        elif etype == 0x86DD:
            ver, tr = "v2", p[48:]
        else:
            continue
        if len(tr) < 20 + 24 or struct.unpack("!I", tr[4:8])[0] & 0xFFFFFF != 1:
            continue
        mad = tr[20:]
        attr = struct.unpack("!H", mad[16:18])[0]
        print("%s %s > %s %s tid %s" % (ver, fr[6:12].hex(":"), fr[0:6].hex(":"),
                                       CM_ATTRS.get(attr, hex(attr)),
                                       mad[8:16].hex()))
    return 0


class Injector:
    """A UDP socket on port 4791 that sends crafted RoCE v2 packets."""

    def __init__(self, peer, src=None, sport=ROCE_PORT):
        self.peer = peer
        if src is None:
            probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            probe.connect((peer, ROCE_PORT))
            src = probe.getsockname()[0]
            probe.close()
        self.src = src
        self.sport = sport
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # DF set and, unconnected, IP ID 0: the header is predictable
        s.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO)
        s.bind((src, sport))
        self.sock = s

    def packet(self, transport, payload=b"", bad_icrc=False, pad=None):
        """BTH+ext headers (+payload) -> UDP payload with pad and ICRC.

        The BTH PadCnt must already match; @pad None pads to 4 bytes.
        """
        if pad is None:
            pad = -len(payload) % 4
        body = transport + payload + b"\0" * pad
        iph, udph = ipv4_udp_headers(self.src, self.peer, self.sport,
                                     ROCE_PORT, len(body) + 4)
        crc = icrc(iph, udph, body)
        if bad_icrc:
            crc = bytes(c ^ 0xFF for c in crc)
        return body + crc

    def send(self, data):
        self.sock.sendto(data, (self.peer, ROCE_PORT))

    def drain(self):
        self.sock.setblocking(False)
        try:
            while True:
                self.sock.recv(4096)
        except BlockingIOError:
            pass
        finally:
            self.sock.setblocking(True)

    def _recv_one(self):
        """The BTH.. of the next packet from the peer, or None (skip)."""
        data, addr = self.sock.recvfrom(4096)
        return data if addr[0] == self.peer else None

    def recv(self, timeout):
        """Next RoCE packet from the peer as a dict, or None on timeout."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                data = self._recv_one()
            except socket.timeout:
                return None
            if data is None or len(data) < 16:
                continue
            op, b1, pkey, qpn, apsn = struct.unpack("!BBHII", data[:12])
            r = {"opcode": op, "qpn": qpn & 0xFFFFFF,
                 "psn": apsn & 0xFFFFFF, "len": len(data)}
            if op in (0x0D, 0x0F, 0x10, 0x11, 0x12) and len(data) >= 20:
                aeth = struct.unpack("!I", data[12:16])[0]
                r["syndrome"] = aeth >> 24
                r["msn"] = aeth & 0xFFFFFF
            return r

    # packet builders ------------------------------------------------

    def rc_send(self, qpn, psn, payload, **kw):
        pad = -len(payload) % 4
        hdr = bth(OP_RC_SEND_ONLY, qpn, psn, pad=pad, ackreq=True,
                  pkey=kw.pop("pkey", 0xFFFF), tver=kw.pop("tver", 0))
        return self.packet(hdr, payload, **kw)

    def rc_write(self, qpn, psn, va, rkey, payload, **kw):
        pad = -len(payload) % 4
        hdr = bth(OP_RC_WRITE_ONLY, qpn, psn, pad=pad, ackreq=True) + \
            reth(va, rkey, len(payload))
        return self.packet(hdr, payload, **kw)

    def ud_send(self, qpn, qkey, src_qp, payload, **kw):
        pad = -len(payload) % 4
        hdr = bth(OP_UD_SEND_ONLY, qpn, 0, pad=pad) + deth(qkey, src_qp)
        return self.packet(hdr, payload, **kw)

    def raw_op(self, opcode, qpn, psn, payload=b"", **kw):
        pad = -len(payload) % 4
        hdr = bth(opcode, qpn, psn, pad=pad, ackreq=True)
        return self.packet(hdr, payload, **kw)


class V1Injector(Injector):
    """Raw RoCE v1 frames on @ifname to the peer's MAC; the GIDs are the
    IPv4-mapped addresses. Each frame can be spoiled on its way out
    (GRH fields, PayLen, DGID, ICRC) by keyword arguments to packet()."""

    def __init__(self, peer, peer_mac, ifname="eth0"):
        self.peer = peer
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        probe.connect((peer, ROCE_PORT))
        self.src = probe.getsockname()[0]
        probe.close()
        with open("/sys/class/net/%s/address" % ifname) as f:
            self.mac = mac_bytes(f.read().strip())
        self.peer_mac = mac_bytes(peer_mac)
        self.sgid = ip4_gid(self.src)
        self.dgid = ip4_gid(peer)
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                          socket.htons(ETH_P_IBOE))
        s.bind((ifname, ETH_P_IBOE))
        self.sock = s

    def packet(self, transport, payload=b"", bad_icrc=False, pad=None,
               ipver=6, nxthdr=GRH_NXTHDR_BTH, paylen_delta=0, dgid=None):
        if pad is None:
            pad = -len(payload) % 4
        body = transport + payload + b"\0" * pad
        g = grh(len(body) + 4 + paylen_delta, self.sgid,
                dgid or self.dgid, ipver=ipver, nxthdr=nxthdr)
        crc = icrc_v1(g, body)
        if bad_icrc:
            crc = bytes(c ^ 0xFF for c in crc)
        return (self.peer_mac + self.mac + struct.pack("!H", ETH_P_IBOE) +
                g + body + crc)

    def send(self, data):
        self.sock.send(data)

    def _recv_one(self):
        data, addr = self.sock.recvfrom(4096)
        if addr[2] == PACKET_OUTGOING or len(data) < 14 + 40:
            return None
        g = data[14:54]
        if g[8:24] != self.dgid:       # the peer's GID is the source
            return None
        plen = struct.unpack("!H", g[4:6])[0]
        return data[54:54 + plen]


def rv_put(port, text, timeout):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port))
    srv.listen(1)
    srv.settimeout(timeout)
    try:
        conn, _ = srv.accept()
    except socket.timeout:
        print("rv-put: nobody came on port %d" % port, file=sys.stderr)
        return 1
    conn.sendall(text.encode() + b"\n")
    conn.close()
    srv.close()
    return 0


def rv_get(host, port, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            c = socket.create_connection((host, port), timeout=5)
        except OSError:
            time.sleep(0.5)
            continue
        data = b""
        while not data.endswith(b"\n"):
            chunk = c.recv(4096)
            if not chunk:
                break
            data += chunk
        c.close()
        if data:
            return data.decode().strip()
    return None


# the attacker side of twovm-wire-robust.sh ----------------------------

VALID_PAYLOAD = b"rdma-kmod wire-robust valid send"[:-3]  # 29 B: pad 3


class Checker:
    def __init__(self):
        self.fails = 0

    def ok(self, cond, what, detail=""):
        if cond:
            print("ok:   %s" % what)
        else:
            print("FAIL: %s %s" % (what, detail))
            self.fails += 1
        sys.stdout.flush()


def expect_silence(inj, chk, what, wait):
    r = inj.recv(wait)
    chk.ok(r is None, what + ": dropped, no reply", repr(r))


def expect_reply(inj, chk, what, syndrome, psn, wait):
    r = inj.recv(wait)
    good = (r is not None and r["opcode"] == OP_RC_ACK and
            (r.get("syndrome", -1) & 0xE0 if syndrome == SYN_ACK
             else r.get("syndrome", -1)) == syndrome and r["psn"] == psn)
    chk.ok(good, "%s: reply syndrome 0x%02x psn 0x%x" %
           (what, syndrome, psn), repr(r))
    return r


def target_info(args):
    """The target's "INFO ..." line (and MAC) as a list of fields, or None."""
    info = rv_get(args.peer, args.info_port, args.timeout)
    if not info or not info.startswith("INFO "):
        print("FAIL: no target info from %s (%r)" % (args.peer, info))
        return None
    return info.split()


def report(args, chk):
    """Hands the verdict to the target; the exit status."""
    if rv_put(args.done_port, "DONE %d" % chk.fails, args.timeout):
        chk.ok(False, "target collected the result")
    print("%d attacker checks failed" % chk.fails)
    return 1 if chk.fails else 0


def robust(args):
    chk = Checker()
    f = target_info(args)
    if not f:
        return 1
    qpa, qpb, qpud, rkey, va, blen = (int(x) for x in f[1:7])
    psn_a, psn_b, dest_qpn = args.psn_a, args.psn_b, args.dest_qpn
    print("target: qp A %d, qp B %d, UD %d, rkey 0x%x, va 0x%x, len %d" %
          (qpa, qpb, qpud, rkey, va, blen))
    inj = Injector(args.peer)
    inj.drain()
    quiet = args.quiet_wait

    # 1. bad ICRC on an otherwise valid, in-sequence SEND
    inj.send(inj.rc_send(qpa, psn_a, b"bad icrc!!!!", bad_icrc=True))
    expect_silence(inj, chk, "bad ICRC", quiet)
    # 2. opcodes rxe does not know (valid ICRC)
    for op in (0x1F, 0xFF, 0x15):
        inj.send(inj.raw_op(op, qpa, psn_a, b"\0" * 8))
        expect_silence(inj, chk, "unknown opcode 0x%02x" % op, quiet)
    # 3. lengths: no room for the ICRC; a WRITE without its RETH; a pad
    # count larger than the payload
    inj.send(bth(OP_RC_SEND_ONLY, qpa, psn_a, ackreq=True))
    expect_silence(inj, chk, "12-byte packet", quiet)
    inj.send(inj.packet(bth(OP_RC_WRITE_ONLY, qpa, psn_a, ackreq=True)))
    expect_silence(inj, chk, "RDMA WRITE without RETH", quiet)
    inj.send(inj.packet(bth(OP_RC_SEND_ONLY, qpa, psn_a, pad=3,
                            ackreq=True), pad=0))
    expect_silence(inj, chk, "pad count beyond the payload", quiet)
    # header faults counted elsewhere
    inj.send(inj.rc_send(qpa, psn_a, b"pkey", pkey=0x1234))
    expect_silence(inj, chk, "bad P_Key", quiet)
    inj.send(inj.rc_send(qpa, psn_a, b"tver", tver=1))
    expect_silence(inj, chk, "BTH TVer 1", quiet)
    inj.send(inj.rc_send(0xABCDE, psn_a, b"qpn?"))
    expect_silence(inj, chk, "unknown QPN", quiet)
    inj.send(inj.ud_send(qpa, 0x11111111, 0x4242, b"ud->rc"))
    expect_silence(inj, chk, "UD opcode to an RC QP", quiet)
    inj.send(inj.ud_send(qpud, args.qkey ^ 0x5A5A, 0x4242, b"bad qkey"))
    expect_silence(inj, chk, "UD with a wrong Q_Key", quiet)
    # 4. out-of-window PSN: one PSN sequence NAK for the expected PSN
    inj.send(inj.rc_send(qpa, psn_a + 1000, b"far ahead"))
    expect_reply(inj, chk, "PSN +1000", SYN_NAK_PSN, psn_a, args.reply_wait)
    inj.send(inj.rc_send(qpa, psn_a + 0x400000, b"very far ahead"))
    expect_silence(inj, chk, "PSN +0x400000 (NAK sent once only)", quiet)
    # 5. the valid SEND: proves the ICRC; ACKed
    inj.send(inj.rc_send(qpa, psn_a, VALID_PAYLOAD))
    r = expect_reply(inj, chk, "valid SEND", SYN_ACK, psn_a,
                     args.reply_wait)
    chk.ok(r is not None and r.get("msn") == 1 and r["qpn"] == dest_qpn,
           "valid SEND: ACK MSN 1 to QPN 0x%x" % dest_qpn, repr(r))
    # 6. RDMA WRITE to an MR without remote write (its real rkey), and
    # with a wrong rkey on QP B: remote access NAK, QP to error
    inj.send(inj.rc_write(qpa, psn_a + 1, va, rkey, b"\xee" * 16))
    expect_reply(inj, chk, "WRITE without MR permission", SYN_NAK_ACC,
                 psn_a + 1, args.reply_wait)
    inj.send(inj.rc_write(qpb, psn_b, va, rkey ^ 0x80, b"\xee" * 16))
    expect_reply(inj, chk, "WRITE with a bad rkey", SYN_NAK_ACC, psn_b,
                 args.reply_wait)
    # 7. the QP is in error now: nothing more is accepted or answered
    inj.send(inj.rc_send(qpa, psn_a + 2, b"after error"))
    expect_silence(inj, chk, "SEND to the QP in error", quiet)
    return report(args, chk)


def robust_v1(args):
    """RoCE v1 frames that must be dropped (and counted by reason), then
    one valid SEND that must be ACKed in RoCE v1."""
    chk = Checker()
    f = target_info(args)
    if not f:
        return 1
    qpa = int(f[1])
    mac = f[7]
    print("target: qp A %d, MAC %s" % (qpa, mac))
    inj = V1Injector(args.peer, mac)
    inj.drain()
    quiet = args.quiet_wait
    psn = args.psn_a
    frames = [
        ("bad ICRC", dict(bad_icrc=True)),
        ("GRH IPVer 4", dict(ipver=4)),
        ("GRH NxtHdr 0x11 (not BTH)", dict(nxthdr=0x11)),
        ("PayLen 4 bytes short", dict(paylen_delta=-4)),
        ("PayLen 4 bytes beyond the frame", dict(paylen_delta=4)),
        ("DGID not ours", dict(dgid=ip4_gid("192.0.2.99"))),
    ]
    for what, spoil in frames:
        inj.send(inj.rc_send(qpa, psn, b"spoilt v1 frame!", **spoil))
        expect_silence(inj, chk, "v1 " + what, quiet)
    inj.send(inj.rc_send(qpa, psn, VALID_PAYLOAD))
    r = expect_reply(inj, chk, "v1 valid SEND", SYN_ACK, psn,
                     args.reply_wait)
    chk.ok(r is not None and r.get("msn") == 1 and
           r["qpn"] == args.dest_qpn,
           "v1 valid SEND: ACK MSN 1 to QPN 0x%x, in RoCE v1" %
           args.dest_qpn, repr(r))
    return report(args, chk)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("selftest")
    p.add_argument("file")
    p = sub.add_parser("mads")
    p.add_argument("file")
    p = sub.add_parser("send")
    p.add_argument("--peer", required=True)
    p.add_argument("--src")
    p.add_argument("--opcode", type=lambda x: int(x, 0), default=4)
    p.add_argument("--qpn", type=lambda x: int(x, 0), required=True)
    p.add_argument("--psn", type=lambda x: int(x, 0), default=0)
    p.add_argument("--pkey", type=lambda x: int(x, 0), default=0xFFFF)
    p.add_argument("--reth", nargs=3, metavar=("VA", "RKEY", "LEN"),
                   type=lambda x: int(x, 0))
    p.add_argument("--deth", nargs=2, metavar=("QKEY", "SRCQP"),
                   type=lambda x: int(x, 0))
    p.add_argument("--payload", default="")
    p.add_argument("--bad-icrc", action="store_true")
    p.add_argument("--wait", type=float, default=0,
                   help="seconds to wait for and print a reply")
    p = sub.add_parser("rv-put")
    p.add_argument("port", type=int)
    p.add_argument("text")
    p.add_argument("--timeout", type=float, default=120)
    p = sub.add_parser("rv-get")
    p.add_argument("host")
    p.add_argument("port", type=int)
    p.add_argument("--timeout", type=float, default=120)
    for name in ("robust", "robust-v1"):
        p = sub.add_parser(name)
        robust_args(p)
    a = ap.parse_args()

    if a.cmd == "selftest":
        return selftest(a.file)
    if a.cmd == "mads":
        return mads(a.file)
    if a.cmd == "rv-put":
        return rv_put(a.port, a.text, a.timeout)
    if a.cmd == "rv-get":
        t = rv_get(a.host, a.port, a.timeout)
        if t is None:
            return 1
        print(t)
        return 0
    if a.cmd == "robust":
        return robust(a)
    if a.cmd == "robust-v1":
        return robust_v1(a)
    # send
    inj = Injector(a.peer, a.src)
    payload = a.payload.encode()
    pad = -len(payload) % 4
    hdr = bth(a.opcode, a.qpn, a.psn, pad=pad, pkey=a.pkey, ackreq=True)
    if a.deth:
        hdr += deth(*a.deth)
    if a.reth:
        hdr += reth(*a.reth)
    inj.send(inj.packet(hdr, payload, bad_icrc=a.bad_icrc))
    if a.wait:
        print(inj.recv(a.wait))
    return 0


def robust_args(p):
    p.add_argument("--peer", required=True)
    p.add_argument("--info-port", type=int, default=7471)
    p.add_argument("--done-port", type=int, default=7472)
    p.add_argument("--psn-a", type=lambda x: int(x, 0), default=0x123456)
    p.add_argument("--psn-b", type=lambda x: int(x, 0), default=0xFFFFFE)
    p.add_argument("--dest-qpn", type=lambda x: int(x, 0), default=0x4242)
    p.add_argument("--qkey", type=lambda x: int(x, 0), default=0x11111111)
    p.add_argument("--quiet-wait", type=float, default=1.0)
    p.add_argument("--reply-wait", type=float, default=5.0)
    p.add_argument("--timeout", type=float, default=180)


if __name__ == "__main__":
    sys.exit(main())
