#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Debian's pyverbs on one device (rxe0 or siw0): what libibverbs 44 asks the
kernel through RDMA_VERBS_IOCTL and INVOKE_WRITE, printed as stable lines
that selftests/vm/verbs_pyverbs.sh compares with the stock kernel's
(selftests/vm/expected/pyverbs-DEV.txt).

Usage: verbs_pyverbs.py DEV IPV4   (IPV4: the address of the device's netdev)

Lines are "key: value". Values that differ between runs (keys, QP numbers,
handles) are printed as properties ("nonzero"), never as numbers. GID entries
of type RoCE v1 are printed with the key "gid.v1" (our rxe has them beside
the RoCE v2 ones; the stock rxe does not), so the caller can set them apart.
"""
import errno
import os
import sys
import time

from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cmid import AddrInfo, CMID
import pyverbs.cm_enums as ce
from pyverbs.cq import CQ, CQEX, CompChannel, CqInitAttrEx
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr, QPInitAttrEx
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR
import pyverbs.enums as e

PORT = 1
CM_PORT = "7471"


def out(key, value):
    print(f"{key}: {value}", flush=True)


def err_name(exc):
    """The errno of a pyverbs exception as a name (EINVAL), or its text."""
    code = getattr(exc, "error_code", None)
    if code is None:
        return "error"
    code = abs(code)
    return errno.errorcode.get(code, str(code))


def attempt(key, fn, *args, **kwargs):
    """Runs fn, prints key: ok or the errno name; returns the result or None."""
    try:
        res = fn(*args, **kwargs)
    except (PyverbsRDMAError, PyverbsError) as exc:
        out(key, err_name(exc))
        return None
    out(key, "ok")
    return res


def device_lines(ctx):
    attr = ctx.query_device()
    for name in ("fw_version", "node_guid", "sys_image_guid", "max_mr_size",
                 "page_size_cap", "vendor_id", "vendor_part_id", "hw_ver",
                 "max_qp", "max_qp_wr", "device_cap_flags", "max_sge",
                 "max_sge_rd", "max_cq", "max_cqe", "max_mr", "max_pd",
                 "max_qp_rd_atom", "max_ee_rd_atom", "max_res_rd_atom",
                 "max_qp_init_rd_atom", "max_ee_init_rd_atom", "atomic_caps",
                 "max_ee", "max_rdd", "max_mw", "max_raw_ipv6_qps",
                 "max_raw_ethy_qp", "max_mcast_grp", "max_mcast_qp_attach",
                 "max_ah", "max_srq", "max_srq_wr", "max_srq_sge",
                 "max_pkeys", "local_ca_ack_delay", "phys_port_cnt"):
        out("device." + name, getattr(attr, name))
    ex = ctx.query_device_ex()
    out("device_ex.device_cap_flags_ex", ex.device_cap_flags_ex)
    out("device_ex.max_dm_size", ex.max_dm_size)
    out("context.num_comp_vectors", ctx.num_comp_vectors)


def port_lines(ctx):
    pa = ctx.query_port(PORT)
    for name in ("state", "max_mtu", "active_mtu", "gid_tbl_len",
                 "port_cap_flags", "max_msg_sz", "bad_pkey_cntr",
                 "qkey_viol_cntr", "pkey_tbl_len", "lid", "sm_lid", "lmc",
                 "max_vl_num", "sm_sl", "subnet_timeout", "init_type_reply",
                 "active_width", "active_speed", "phys_state", "link_layer",
                 "flags", "port_cap_flags2"):
        out("port." + name, getattr(pa, name))
    attempt("port.query_port(0)", ctx.query_port, 0)
    attempt("port.query_port(2)", ctx.query_port, 2)
    return pa


def gid_lines(ctx, gid_tbl_len, ipv4):
    """The GID table through query_gid_table, each entry checked against
    query_gid_ex, query_gid and query_gid_type; returns the RoCE v2 index of
    ipv4 (or of the first entry on iWARP)."""
    table = ctx.query_gid_table(gid_tbl_len)
    wrong = []
    lines = []
    v4_index = None
    for ent in table:
        one = ctx.query_gid_ex(PORT, ent.gid_index)
        idx = ent.gid_index
        if (one.gid_str(), one.gid_type, one.ndev_ifindex, one.port_num,
                one.gid_index) != (ent.gid_str(), ent.gid_type,
                                   ent.ndev_ifindex, PORT, idx):
            wrong.append(f"query_gid_ex({idx})")
        if str(ctx.query_gid(PORT, idx)) != ent.gid_str():
            wrong.append(f"query_gid({idx}) {ctx.query_gid(PORT, idx)}")
        key = "gid.v1" if ent.gid_type == e.IBV_GID_TYPE_ROCE_V1 else "gid"
        ifname = "eth0" if ent.ndev_ifindex == ifindex("eth0") else \
            f"ifindex {ent.ndev_ifindex}"
        lines.append(f"{key}: {ent.gid_str()} type {ent.gid_type} {ifname}")
        if ent.gid_str().endswith(ipv4_gid_suffix(ipv4)) and \
                ent.gid_type != e.IBV_GID_TYPE_ROCE_V1:
            v4_index = ent.gid_index
    for line in sorted(lines):
        print(line)
    out("gid_table.consistent", " ".join(wrong) if wrong else "yes")
    used = {ent.gid_index for ent in table}
    empty = [i for i in range(gid_tbl_len) if i not in used]
    if empty:
        attempt("gid.query_gid_ex(empty index)", ctx.query_gid_ex, PORT,
                empty[0])
    attempt("gid.query_gid_ex(past table)", ctx.query_gid_ex, PORT,
            gid_tbl_len)
    attempt("gid.query_gid_ex(port 2)", ctx.query_gid_ex, 2, 0)
    attempt("gid.query_gid_table(1 entry)", ctx.query_gid_table, 1)
    if v4_index is None and table:
        v4_index = table[0].gid_index
    return v4_index


def ifindex(name):
    try:
        with open(f"/sys/class/net/{name}/ifindex") as f:
            return int(f.read())
    except OSError:
        return -1


def ipv4_gid_suffix(ipv4):
    a, b, c, d = (int(x) for x in ipv4.split("."))
    return f"ffff:{a:02x}{b:02x}:{c:02x}{d:02x}"


def nonzero(v):
    return "nonzero" if v else "zero"


def mr_lines(pd):
    acc = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
           e.IBV_ACCESS_REMOTE_READ)
    mr = MR(pd, 65536, acc)
    out("mr.length", mr.length)
    out("mr.lkey", nonzero(mr.lkey))
    attempt("mr.remote_write_without_local_write", MR, pd, 4096,
            e.IBV_ACCESS_REMOTE_WRITE)
    attempt("mr.zero_length", MR, pd, 0, e.IBV_ACCESS_LOCAL_WRITE)
    mr2 = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    attempt("mr.dereg", mr2.close)
    return mr


def cq_lines(ctx):
    cq = CQ(ctx, 100)
    out("cq.cqe", cq.cqe)
    attempt("cq.too_many_cqe", CQ, ctx, 1 << 30)
    attempt("cq.bad_comp_vector", CQ, ctx, 10, None, None, 1000)
    ch = CompChannel(ctx)
    cqc = CQ(ctx, 10, None, ch, 0)
    out("cq.with_channel.cqe", cqc.cqe)
    cqx = attempt("cq_ex.create", CQEX, ctx, CqInitAttrEx(cqe=32))
    if cqx:
        attempt("cq_ex.destroy", cqx.close)
    return cq, cqc, ch


def qp_caps(key, qp_cap):
    out(key, f"send_wr {qp_cap.max_send_wr} recv_wr {qp_cap.max_recv_wr} "
        f"send_sge {qp_cap.max_send_sge} recv_sge {qp_cap.max_recv_sge} "
        f"inline {qp_cap.max_inline_data}")


def make_qp(pd, cq, qpt, key, srq=None):
    cap = QPCap(max_send_wr=16, max_recv_wr=16 if srq is None else 0,
                max_send_sge=2, max_recv_sge=2, max_inline_data=32)
    init = QPInitAttr(qp_type=qpt, scq=cq, rcq=cq, srq=srq, cap=cap)
    qp = QP(pd, init)
    qp_caps(key + ".caps", init.cap)
    out(key + ".qp_num", nonzero(qp.qp_num))
    return qp


def srq_lines(pd, cq):
    srq = attempt("srq.create", SRQ, pd, SrqInitAttr(SrqAttr(max_wr=64,
                                                              max_sge=1)))
    if not srq:
        return
    a = attempt("srq.query", srq.query)
    if a:
        out("srq.attr", f"max_wr {a.max_wr} max_sge {a.max_sge} "
            f"srq_limit {a.srq_limit}")
    attempt("srq.modify_limit", srq.modify, SrqAttr(srq_limit=8),
            e.IBV_SRQ_LIMIT)
    a = attempt("srq.query_again", srq.query)
    if a:
        out("srq.attr.srq_limit", a.srq_limit)
    qp = make_qp(pd, cq, e.IBV_QPT_RC, "srq_qp", srq)
    attempt("qp.destroy_on_srq", qp.close)
    attempt("srq.destroy", srq.close)


def ex_qp_lines(ctx, pd, cq):
    cap = QPCap(max_send_wr=8, max_recv_wr=8, max_send_sge=1, max_recv_sge=1)
    init = QPInitAttrEx(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap, pd=pd,
                        comp_mask=e.IBV_QP_INIT_ATTR_PD)
    qp = attempt("qp_ex.create", QP, ctx, init)
    if qp:
        qp_caps("qp_ex.caps", init.cap)
        attempt("qp_ex.destroy", qp.close)


def poll(cq, n, what):
    """Polls n completions (5 s at most); prints their status and opcodes."""
    got = []
    end = time.time() + 5
    while len(got) < n and time.time() < end:
        cnt, wcs = cq.poll(n - len(got))
        got.extend(wcs[:cnt])
    st = " ".join(f"{w.opcode}/{w.status}" for w in got)
    out(what, f"{len(got)} completions {st}")
    return got


def rc_transfer(pd, cq, qa, qb, gid_index, is_iwarp, mr):
    """Send/receive and RDMA write between the two QPs of a loopback pair."""
    buf = b"pyverbs loopback"
    mr.write(buf, len(buf))
    recv = RecvWR(wr_id=2, num_sge=1,
                  sg=[SGE(mr.buf + 4096, 4096, mr.lkey)])
    qb.post_recv(recv)
    send = SendWR(wr_id=1, opcode=e.IBV_WR_SEND, num_sge=1,
                  sg=[SGE(mr.buf, len(buf), mr.lkey)],
                  send_flags=e.IBV_SEND_SIGNALED)
    qa.post_send(send)
    poll(cq, 2, "rc.send_recv")
    out("rc.received", mr.read(len(buf), 4096).decode())
    wr = SendWR(wr_id=3, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(mr.buf, len(buf), mr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(mr.rkey, mr.buf + 8192)
    qa.post_send(wr)
    poll(cq, 1, "rc.rdma_write")
    out("rc.written", mr.read(len(buf), 8192).decode())


def rxe_loopback(ctx, pd, cq, gid_index, mr):
    qa = make_qp(pd, cq, e.IBV_QPT_RC, "rc_a")
    qb = make_qp(pd, cq, e.IBV_QPT_RC, "rc_b")
    gid = ctx.query_gid(PORT, gid_index)
    for me, peer in ((qa, qb), (qb, qa)):
        attr = QPAttr(qp_state=e.IBV_QPS_INIT)
        attr.qp_access_flags = (e.IBV_ACCESS_REMOTE_WRITE |
                                e.IBV_ACCESS_REMOTE_READ |
                                e.IBV_ACCESS_LOCAL_WRITE)
        attr.pkey_index = 0
        attr.port_num = PORT
        me.to_init(attr)
        gr = GlobalRoute(dgid=gid, sgid_index=gid_index, hop_limit=64)
        attr = QPAttr(qp_state=e.IBV_QPS_RTR)
        attr.ah_attr = AHAttr(gr=gr, is_global=1, port_num=PORT)
        attr.path_mtu = e.IBV_MTU_1024
        attr.dest_qp_num = peer.qp_num
        attr.rq_psn = 0
        attr.max_dest_rd_atomic = 1
        attr.min_rnr_timer = 12
        me.to_rtr(attr)
        attr.qp_state = e.IBV_QPS_RTS
        attr.sq_psn = 0
        attr.timeout = 14
        attr.retry_cnt = 7
        attr.rnr_retry = 7
        attr.max_rd_atomic = 1
        me.to_rts(attr)
    qattr, _ = qa.query(e.IBV_QP_STATE | e.IBV_QP_PATH_MTU | e.IBV_QP_AV |
                        e.IBV_QP_DEST_QPN)
    out("rc_a.query", f"state {qattr.qp_state} path_mtu {qattr.path_mtu} "
        f"dest_qp_num {'peer' if qattr.dest_qp_num == qb.qp_num else 'other'}"
        f" port {qattr.ah_attr.port_num}")
    rc_transfer(pd, cq, qa, qb, gid_index, False, mr)
    # UD and an AH on the same GID.
    ah = attempt("ah.create", AH, pd, attr=AHAttr(
        gr=GlobalRoute(dgid=gid, sgid_index=gid_index), is_global=1,
        port_num=PORT))
    if ah:
        attempt("ah.destroy", ah.close)
    ud = make_qp(pd, cq, e.IBV_QPT_UD, "ud")
    attempt("qp.destroy_rc_a", qa.close)
    attempt("qp.destroy_rc_b", qb.close)
    attempt("qp.destroy_ud", ud.close)


def cm_server(ipv4, ready_w):
    """Child: accepts one connection, echoes one message, disconnects."""
    ai = AddrInfo(src=ipv4, src_service=CM_PORT, port_space=ce.RDMA_PS_TCP,
                  flags=ce.RAI_PASSIVE)
    sid = CMID(creator=ai, qp_init_attr=cm_qp_init())
    sid.listen()
    os.write(ready_w, b"x")
    nid = sid.get_request()
    mr = nid.reg_msgs(64)
    nid.post_recv(mr, 64)
    nid.accept()
    wc = nid.get_recv_comp()
    nid.post_send(mr, e.IBV_SEND_SIGNALED, wc.byte_len)
    nid.get_send_comp()
    nid.disconnect()


def cm_qp_init():
    return QPInitAttr(qp_type=e.IBV_QPT_RC,
                      cap=QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1,
                                max_recv_sge=1))


def cm_transfer(ipv4):
    """An RC connection through rdma_cm (iWARP needs it): a message sent to
    a server process and echoed back."""
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            cm_server(ipv4, ready_w)
            os._exit(0)
        except BaseException as exc:
            print(f"cm server: {exc}", file=sys.stderr, flush=True)
            os._exit(1)
    os.read(ready_r, 1)
    try:
        ai = AddrInfo(dst=ipv4, dst_service=CM_PORT,
                      port_space=ce.RDMA_PS_TCP)
        cid = CMID(creator=ai, qp_init_attr=cm_qp_init())
        cid.connect()
        msg = b"pyverbs rdma_cm"
        rmr = cid.reg_msgs(64)
        smr = cid.reg_msgs(64)
        cid.post_recv(rmr, 64)
        smr.write(msg, len(msg))
        cid.post_send(smr, e.IBV_SEND_SIGNALED, len(msg))
        swc = cid.get_send_comp()
        rwc = cid.get_recv_comp()
        out("cm.send", f"status {swc.status} opcode {swc.opcode}")
        out("cm.recv", f"status {rwc.status} opcode {rwc.opcode} "
            f"byte_len {rwc.byte_len}")
        out("cm.echo", rmr.read(len(msg), 0).decode())
        cid.disconnect()
        cid.close()
    except (PyverbsRDMAError, PyverbsError) as exc:
        out("cm.transfer", err_name(exc))
    _, status = os.waitpid(pid, 0)
    out("cm.server_exit", os.waitstatus_to_exitcode(status))


def main():
    dev, ipv4 = sys.argv[1], sys.argv[2]
    # Before any context of ours exists: the server child forks clean.
    cm_transfer(ipv4)
    ctx = Context(name=dev)
    # Importing the device needs QUERY_CONTEXT.
    imported = attempt("context.import", Context, cmd_fd=ctx.cmd_fd)
    if imported:
        imported.close()
    device_lines(ctx)
    pa = port_lines(ctx)
    gid_index = gid_lines(ctx, pa.gid_tbl_len, ipv4)
    pd = PD(ctx)
    mr = mr_lines(pd)
    cq, cqc, ch = cq_lines(ctx)
    srq_lines(pd, cq)
    ex_qp_lines(ctx, pd, cq)
    if dev.startswith("rxe"):
        rxe_loopback(ctx, pd, cq, gid_index, mr)
    attempt("cq.destroy_with_channel", cqc.close)
    attempt("comp_channel.destroy", ch.close)
    attempt("cq.destroy", cq.close)
    attempt("mr.destroy", mr.close)
    attempt("pd.destroy", pd.close)
    attempt("context.close", ctx.close)


if __name__ == "__main__":
    main()
