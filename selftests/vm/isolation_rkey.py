# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""A peer guessing rkeys (selftests/vm/isolation.sh).

usage: isolation_rkey.py IPV4 [PORT]

A target process listens with rdma_cm on IPV4; for every round it accepts one
connection and registers, in the connection's PD, a patterned buffer with
remote read and write access ("target"), one without remote access, one it
deregisters at once, and one in another PD of its own. The attacker connects
and posts one RDMA WRITE or READ with a guessed rkey or range, then an 8-byte
READ of the target with the real rkey (on iWARP an RDMA WRITE completes
before the peer has looked at it: the access error shows on what follows).
Per round it prints both completion statuses, whether the target's buffers
kept their bytes and whether the attacker's buffer got any. Two control
rounds use the real rkey in range and must move bytes.
"""

import os
import random
import signal
import sys

import pyverbs.cm_enums as ce
import pyverbs.enums as e
from pyverbs.cmid import AddrInfo, CMID
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QPCap, QPInitAttr

LEN = 4096
PAT = 0x5A
MINE = 0x11
REMOTE = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ)
STATUS = {0: "SUCCESS", 4: "LOC_PROT_ERR", 5: "WR_FLUSH_ERR",
          9: "REM_INV_REQ_ERR", 10: "REM_ACCESS_ERR", 11: "REM_OP_ERR",
          12: "RETRY_EXC_ERR", 13: "RNR_RETRY_EXC_ERR", 20: "FATAL_ERR",
          21: "RESP_TIMEOUT_ERR", 22: "GENERAL_ERR"}

# (name, op, how the attacker picks its key and address from the target's)
GUESSES = [
    ("real key, in range", "control"),
    ("random key", "random"),
    ("real key + 1", "plus1"),
    ("real key - 1", "minus1"),
    ("real key of another PD", "otherpd"),
    ("deregistered key", "dead"),
    ("key of an MR without remote access", "noaccess"),
    ("real key, range past the end", "pastend"),
    ("real key, range before the start", "before"),
]


def qp_init():
    return QPInitAttr(qp_type=e.IBV_QPT_RC,
                      cap=QPCap(max_send_wr=4, max_recv_wr=4,
                                max_send_sge=1, max_recv_sge=1))


def pattern(mr):
    mr.write(bytes([PAT]) * LEN, LEN)


def intact(mr):
    return mr.read(LEN, 0) == bytes([PAT]) * LEN


def pd_of(cmid):
    return cmid.pd if isinstance(cmid.pd, PD) else PD(cmid)


def target(ipv4, port, rounds, info_w, done_r, verdict_w):
    """Child: one connection per round, four buffers, a verdict."""
    ai = AddrInfo(src=ipv4, src_service=port, port_space=ce.RDMA_PS_TCP,
                  flags=ce.RAI_PASSIVE)
    lid = CMID(creator=ai, qp_init_attr=qp_init())
    lid.listen()
    os.write(info_w, b"listening\n")
    for _ in range(rounds):
        nid = lid.get_request()
        pd = pd_of(nid)
        tgt = MR(pd, LEN, REMOTE)
        noacc = MR(pd, LEN, e.IBV_ACCESS_LOCAL_WRITE)
        other_pd = PD(nid.context)
        other = MR(other_pd, LEN, REMOTE)
        dead = MR(pd, LEN, REMOTE)
        dead_rkey = dead.rkey
        dead.close()
        for m in (tgt, noacc, other):
            pattern(m)
        os.write(info_w, (f"{tgt.buf} {tgt.rkey} {other.buf} {other.rkey} "
                          f"{dead_rkey} {noacc.buf} {noacc.rkey}\n").encode())
        nid.accept()
        os.read(done_r, 1)
        os.write(verdict_w, (f"{int(intact(tgt))} {int(intact(other))} "
                             f"{int(intact(noacc))}\n").encode())
        try:
            nid.disconnect()
        except Exception:  # pylint: disable=broad-except
            pass
        for m in (tgt, noacc, other):
            m.close()
        other_pd.close()
        nid.close()
    lid.close()


def on_alarm(_signum, _frame):
    raise TimeoutError


def completion(cid):
    """The next send completion's status, or "TIMEOUT" after 15 s (upstream
    siw never completes a READ its peer refused)."""
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(15)
    try:
        return cid.get_send_comp().status
    except Exception:  # pylint: disable=broad-except
        return "TIMEOUT"
    finally:
        signal.alarm(0)


def pick(how, info):
    addr, rkey, oaddr, orkey, dead, naddr, nrkey = info
    if how in ("control", "pastend", "before"):
        return rkey, {"control": addr, "pastend": addr + LEN - 8,
                      "before": addr - 64}[how]
    if how == "random":
        k = random.getrandbits(32)
        while k in (rkey, orkey, nrkey):
            k = random.getrandbits(32)
        return k, addr
    if how == "plus1":
        return (rkey + 1) & 0xffffffff, addr
    if how == "minus1":
        return (rkey - 1) & 0xffffffff, addr
    if how == "otherpd":
        return orkey, oaddr
    if how == "dead":
        return dead, addr
    return nrkey, naddr


def attack(ipv4, port, op, how, info_r, done_w, verdict_r):
    ai = AddrInfo(dst=ipv4, dst_service=port, port_space=ce.RDMA_PS_TCP)
    cid = CMID(creator=ai, qp_init_attr=qp_init())
    cid.connect()
    line = b""
    while not line.endswith(b"\n"):
        line += os.read(info_r, 1)
    info = [int(x) for x in line.split()]
    mine = MR(pd_of(cid), LEN, e.IBV_ACCESS_LOCAL_WRITE)
    mine.write(bytes([MINE]) * LEN, LEN)
    rkey, addr = pick(how, info)
    size = 64
    post = cid.post_write if op == "write" else cid.post_read
    post(mine, size, addr, rkey, e.IBV_SEND_SIGNALED)
    first = completion(cid)
    second = "-"
    if first != "TIMEOUT":
        cid.post_read(mine, 8, info[0], info[1], e.IBV_SEND_SIGNALED)
        second = completion(cid)
    os.write(done_w, b"x")
    tgt, other, noacc = os.read(verdict_r, 64).split()
    got = mine.read(size, 0)
    if op == "read" and first == 0:
        local = "got target bytes" if got[:8] == bytes([PAT]) * 8 \
            else "got other bytes"
    elif second == 0:
        local = "control read ok"
    else:
        local = "unchanged" if got == bytes([MINE]) * size else "CHANGED"
    mem = "untouched" if (tgt, other, noacc) == (b"1", b"1", b"1") else \
        f"target {'same' if tgt == b'1' else 'written'} other-pd " \
        f"{'same' if other == b'1' else 'WRITTEN'} no-access " \
        f"{'same' if noacc == b'1' else 'WRITTEN'}"
    print(f"{op} {how}: {STATUS.get(first, first)}, then "
          f"{STATUS.get(second, second)}; peer memory {mem}; local {local}",
          flush=True)
    try:
        cid.disconnect()
    except Exception:  # pylint: disable=broad-except
        pass
    mine.close()
    cid.close()


def main():
    ipv4 = sys.argv[1]
    port = sys.argv[2] if len(sys.argv) > 2 else "7471"
    rounds = [(op, how) for op in ("write", "read") for _, how in GUESSES]
    info_r, info_w = os.pipe()
    done_r, done_w = os.pipe()
    verdict_r, verdict_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            target(ipv4, port, len(rounds), info_w, done_r, verdict_w)
            os._exit(0)
        except BaseException as exc:  # pylint: disable=broad-except
            print(f"target: {exc!r}", file=sys.stderr, flush=True)
            os._exit(1)
    os.read(info_r, len(b"listening\n"))
    for op, how in rounds:
        attack(ipv4, port, op, how, info_r, done_w, verdict_r)
    _, status = os.waitpid(pid, 0)
    print(f"target exit {os.waitstatus_to_exitcode(status)}")


if __name__ == "__main__":
    main()
