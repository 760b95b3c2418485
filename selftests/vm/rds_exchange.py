#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Two RDS sockets (AF_RDS, SOCK_SEQPACKET) bound to ADDR, ports 18634 and
# 18635: the transport bind chose must read back as RDS_TRANS_IB
# (SO_RDS_TRANSPORT), then messages of 1, 4000 and 60000 bytes go each
# way and must arrive unchanged with the sender's address, and RDS must
# list an RDMA connection ADDR -> ADDR (RDS_INFO_IB_CONNECTIONS).
# Prints "ok:"/"FAIL:" lines; exit status = failures. Usage: rds_exchange.py ADDR
import os
import socket
import struct
import sys

import vmcheck
from vmcheck import bad, ok

SOL_RDS = 276
SO_RDS_TRANSPORT = 8
RDS_TRANS_IB = 0
RDS_INFO_IB_CONNECTIONS = 10008
IB_CONN_SIZE = 68  # struct rds_info_rdma_connection



def main():
    addr = sys.argv[1]
    socks = []
    for port in (18634, 18635):
        s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
        s.bind((addr, port))
        s.settimeout(30)
        socks.append((s, port))
    for s, port in socks:
        t = s.getsockopt(SOL_RDS, SO_RDS_TRANSPORT)
        if t == RDS_TRANS_IB:
            ok(f"bound {addr}:{port}, transport RDS_TRANS_IB")
        else:
            bad(f"bound {addr}:{port}, transport {t}, want {RDS_TRANS_IB} (IB)")
    for size in (1, 4000, 60000):
        for (src, sport), (dst, dport) in ((socks[0], socks[1]), (socks[1], socks[0])):
            msg = os.urandom(size)
            src.sendto(msg, (addr, dport))
            try:
                got, frm = dst.recvfrom(size + 1)
            except OSError as e:
                bad(f"{size} bytes {sport} -> {dport}: {e}")
                continue
            if got == msg and frm == (addr, sport):
                ok(f"{size} bytes {sport} -> {dport} arrived unchanged")
            else:
                bad(f"{size} bytes {sport} -> {dport}: got {len(got)} bytes from {frm}")
    info = socks[0][0].getsockopt(SOL_RDS, RDS_INFO_IB_CONNECTIONS, 1024)
    me = socket.inet_aton(addr)
    conns = [info[i:i + IB_CONN_SIZE] for i in range(0, len(info), IB_CONN_SIZE)]
    mine = [c for c in conns if c[0:4] == me and c[4:8] == me]
    if mine:
        gid = mine[0][8:24]
        ok(f"RDS IB connection {addr} -> {addr}, source GID {socket.inet_ntop(socket.AF_INET6, gid)}")
    else:
        bad(f"no RDS IB connection {addr} -> {addr} among {len(conns)}")
    for s, _ in socks:
        s.close()
    return vmcheck.fails


if __name__ == "__main__":
    sys.exit(main())
