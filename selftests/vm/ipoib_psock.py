#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# What a packet socket sees on an IPoIB interface (selftests/vm/ipoib.sh,
# ipoib_cm.sh): one line per packet, "PKTTYPE PROTO SLL_ADDR LENGTH" (hex
# EtherType and address), from a SOCK_DGRAM socket of every protocol.
# Python's recvfrom() offers the kernel only sizeof(struct sockaddr_ll),
# whose sll_addr holds 8 bytes; an IPoIB address has 20, so recvfrom(2)
# is called through ctypes with room for them.
# Usage: ipoib_psock.py IFACE SECONDS READY_FILE STOP_FILE
# READY_FILE is created once the socket listens; the capture ends after
# SECONDS or once STOP_FILE exists.
import ctypes
import os
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 3


def main():
    dev, secs, ready, stop = sys.argv[1], float(sys.argv[2]), sys.argv[3], \
        sys.argv[4]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM,
                      socket.htons(ETH_P_ALL))
    s.bind((dev, ETH_P_ALL))
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(65536)
    name = ctypes.create_string_buffer(128)
    namelen = ctypes.c_uint32()
    open(ready, "w").close()
    end = time.time() + secs
    lines = 0
    while time.time() < end and not os.path.exists(stop) and lines < 500:
        r, _, _ = select.select([s], [], [], 0.5)
        if not r:
            continue
        namelen.value = len(name)
        n = libc.recvfrom(s.fileno(), buf, len(buf), 0, name,
                          ctypes.byref(namelen))
        if n < 0:
            print("recvfrom: errno %d" % ctypes.get_errno())
            return 1
        raw = name.raw[:namelen.value]
        proto, = struct.unpack_from(">H", raw, 2)
        pkttype, halen = raw[10], raw[11]
        print("%d %04x %s %d" % (pkttype, proto, raw[12:12 + halen].hex(), n),
              flush=True)
        lines += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
