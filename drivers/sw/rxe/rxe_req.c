// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe requester: turns the send WQEs of a QP into request packets.
 *
 * WQEs stay in the SQ until the completer retires them; the requester only
 * moves req.wqe_index forward, one packet per call. A WQE goes posted ->
 * processing (some packets sent) -> pending (RC: all sent, waiting for the
 * ACK) or done (UD/UC, local operations). On a retry the completer sets
 * req.need_retry and the requester rewinds to the first unacknowledged
 * PSN. The SQ of a user QP is shared with userspace, so every WQE field is
 * treated as untrusted: it may change under us, but must never make the
 * kernel read or write outside the queue or the registered memory.
 */
#include <linux/jiffies.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include "rxe.h"

/* AckReq at least this often inside long messages (IBA 9.7.5.1.2). */
#define RXE_MAX_PKT_PER_ACK	64
/* RC: PSNs in flight before the requester waits for ACKs. */
#define RXE_MAX_UNACKED_PSNS	128

/* Path MTU in bytes: the QP's for connected QPs, the port's for UD. */
static unsigned int req_mtu(struct rxe_qp *qp)
{
	int mtu;

	if (qp_type(qp) == IB_QPT_RC || qp_type(qp) == IB_QPT_UC)
		mtu = qp->mtu;
	else
		mtu = ib_mtu_enum_to_int(rxe_from_qp(qp)->port.attr.active_mtu);

	/* never 0: every packet of a message but the last is this long */
	return mtu >= 256 ? mtu : 256;
}

/* Packets needed for @resid bytes (a zero-length message is one). */
static u32 req_num_pkts(u32 resid, unsigned int mtu)
{
	return resid ? (resid - 1) / mtu + 1 : 1;
}

static u64 req_remote_addr(struct rxe_send_wqe *wqe, u32 mask)
{
	if (mask & WR_ATOMIC_MASK)
		return wqe->wr.wr.atomic.remote_addr;
	if (mask & WR_READ_OR_WRITE_MASK)
		return wqe->wr.wr.rdma.remote_addr;
	return 0;
}

/* Bytes of inline data a slot of this SQ can hold. */
static u32 req_inline_room(struct rxe_qp *qp)
{
	return max_t(u32, qp->sq.max_inline,
		     qp->sq.max_sge * sizeof(struct rxe_sge));
}

/* Skip @bytes of the message (already acknowledged by the responder). */
static int req_skip_data(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			 u32 bytes)
{
	if (wqe->wr.send_flags & IB_SEND_INLINE) {
		if (bytes > wqe->dma.resid)
			return -EINVAL;
		wqe->dma.sge_offset += bytes;
		wqe->dma.resid -= bytes;
		return 0;
	}
	return advance_dma_data(&wqe->dma, bytes);
}

/* Forget the data progress of a WQE: it is sent again from its start. */
static void req_reset_data(struct rxe_send_wqe *wqe, u32 mask)
{
	wqe->dma.resid = wqe->dma.length;
	wqe->dma.cur_sge = 0;
	wqe->dma.sge_offset = 0;
	wqe->iova = req_remote_addr(wqe, mask);
}

static void req_put_rd_atomic(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	if (wqe->has_rd_atomic) {
		wqe->has_rd_atomic = 0;
		atomic_inc(&qp->req.rd_atomic);
	}
}

/*
 * Go back to the first PSN the responder has not acknowledged (comp.psn):
 * the oldest unretired WQE resumes at the packet holding that PSN (reads:
 * at the first byte not yet received), every later one restarts. Runs
 * under state_lock so that the completer cannot retire WQEs meanwhile.
 */
static void req_rewind(struct rxe_qp *qp)
{
	struct rxe_queue *q = qp->sq.queue;
	unsigned int mtu = req_mtu(qp);
	struct rxe_send_wqe *wqe;
	unsigned long flags;
	bool first = true;
	u32 index, end, psn, new_index;

	spin_lock_irqsave(&qp->state_lock, flags);
	psn = qp->comp.psn;
	end = qp->req.wqe_index & q->index_mask;
	new_index = end;
	/* the WQE being sent (some of its packets are out) goes back too */
	if (end != queue_get_producer(q)) {
		wqe = queue_addr_from_index(q, end);
		if (wqe->state == wqe_state_processing)
			end = queue_next_index(q, end);
	}

	for (index = q->cons; index != end; index = queue_next_index(q, index)) {
		u64 skip64;
		u32 mask, skip;

		wqe = queue_addr_from_index(q, index);
		if (wqe->state == wqe_state_posted)
			break;
		/* local operations are not executed twice */
		if (wqe->state == wqe_state_done ||
		    wqe->state == wqe_state_error)
			continue;
		mask = rxe_wr_opcode_mask(wqe->wr.opcode, qp_type(qp));
		/*
		 * Acknowledged as a whole: the completer retires it. That also
		 * holds for a send/write an earlier retry rewound: resending
		 * it would start a new message at a PSN the responder expects
		 * for the next one.
		 */
		if (first && psn_compare(psn, wqe->last_psn) > 0 &&
		    (wqe->state == wqe_state_pending ||
		     (wqe->state == wqe_state_processing &&
		      !(mask & (WR_READ_MASK | WR_ATOMIC_MASK))))) {
			wqe->state = wqe_state_pending;
			continue;
		}

		/*
		 * Resent WQEs are "processing", not "posted": their set-up
		 * (fence, local op) is done, and a draining SQ resends them.
		 */
		req_put_rd_atomic(qp, wqe);
		wqe->state = wqe_state_processing;
		if (!first) {
			req_reset_data(wqe, mask);
			continue;
		}
		first = false;
		new_index = index;

		if (mask & WR_READ_MASK) {
			/* the completer has stored the data received so far */
			skip = wqe->dma.length - wqe->dma.resid;
			if (skip && skip <= wqe->dma.length)
				wqe->iova = req_remote_addr(wqe, mask) + skip;
			else
				req_reset_data(wqe, mask);
			continue;
		}

		req_reset_data(wqe, mask);
		if (!(mask & WR_WRITE_OR_SEND_MASK) ||
		    psn_compare(psn, wqe->first_psn) <= 0)
			continue;
		/* all packets before comp.psn arrived: resume after them */
		skip64 = (u64)((psn - wqe->first_psn) & BTH_PSN_MASK) * mtu;
		if (skip64 >= wqe->dma.length ||
		    req_skip_data(qp, wqe, skip64)) {
			req_reset_data(wqe, mask);
			continue;
		}
		wqe->iova += skip64;
	}

	qp->req.wqe_index = new_index;
	qp->req.psn = psn;
	qp->req.opcode = -1;
	qp->req.noack_pkts = 0;
	WRITE_ONCE(qp->req.need_retry, 0);
	spin_unlock_irqrestore(&qp->state_lock, flags);
}

/* Raise IB_EVENT_SQ_DRAINED once every WQE sent before SQD completed. */
static void req_check_drained(struct rxe_qp *qp, u32 index)
{
	unsigned long flags;
	bool drained = false;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->req.state == QP_STATE_DRAIN &&
	    index == READ_ONCE(qp->sq.queue->cons)) {
		qp->req.state = QP_STATE_DRAINED;
		drained = true;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (drained && qp->attr.en_sqd_async_notify)
		rxe_qp_event(qp, IB_EVENT_SQ_DRAINED);
}

/* The WQE to send from next, or NULL. */
static struct rxe_send_wqe *req_next_wqe(struct rxe_qp *qp,
					 enum rxe_qp_state state)
{
	struct rxe_queue *q = qp->sq.queue;
	struct rxe_send_wqe *wqe = NULL;
	u32 cons = READ_ONCE(q->cons);
	u32 prod = queue_get_producer(q);
	u32 index = qp->req.wqe_index & q->index_mask;

	/*
	 * Stay inside the posted WQEs (the completer may just have retired
	 * the WQE a retry went back to).
	 */
	if (((index - cons) & q->index_mask) > ((prod - cons) & q->index_mask))
		index = cons;

	/* skip WQEs that need nothing more (local ops passed by a retry) */
	while (index != prod) {
		wqe = queue_addr_from_index(q, index);
		if (wqe->state != wqe_state_done &&
		    wqe->state != wqe_state_pending)
			break;
		index = queue_next_index(q, index);
		wqe = NULL;
	}
	qp->req.wqe_index = index;

	if (state == QP_STATE_DRAIN) {
		/* finish the message in progress, start no new one */
		if (wqe && wqe->state == wqe_state_processing)
			return wqe;
		req_check_drained(qp, index);
		return NULL;
	}
	return wqe;
}

/* An RC credit for an outstanding RDMA read or atomic (max_rd_atomic). */
static bool req_get_rd_atomic(struct rxe_qp *qp)
{
	if (atomic_dec_if_positive(&qp->req.rd_atomic) >= 0)
		return true;
	/* the completer checks the flag after returning a credit */
	WRITE_ONCE(qp->req.need_rd_atomic, 1);
	smp_mb__after_atomic();
	if (atomic_dec_if_positive(&qp->req.rd_atomic) < 0)
		return false;
	WRITE_ONCE(qp->req.need_rd_atomic, 0);
	return true;
}

/* RC: at most RXE_MAX_UNACKED_PSNS PSNs beyond the last one acknowledged. */
static bool req_psn_window_full(struct rxe_qp *qp)
{
	u32 limit;

	if (qp_type(qp) != IB_QPT_RC)
		return false;
	limit = (READ_ONCE(qp->comp.psn) + RXE_MAX_UNACKED_PSNS) & BTH_PSN_MASK;
	if (psn_compare(qp->req.psn, limit) < 0)
		return false;
	WRITE_ONCE(qp->req.wait_psn, 1);
	smp_mb();
	limit = (READ_ONCE(qp->comp.psn) + RXE_MAX_UNACKED_PSNS) & BTH_PSN_MASK;
	if (psn_compare(qp->req.psn, limit) >= 0)
		return true;
	WRITE_ONCE(qp->req.wait_psn, 0);
	return false;
}

/* IB_SEND_FENCE: wait until every earlier WQE has completed. */
static bool req_fenced(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	u32 index = qp->req.wqe_index;

	if (!(wqe->wr.send_flags & IB_SEND_FENCE) ||
	    index == READ_ONCE(qp->sq.queue->cons))
		return false;
	WRITE_ONCE(qp->req.wait_fence, 1);
	smp_mb();
	if (index != READ_ONCE(qp->sq.queue->cons))
		return true;
	WRITE_ONCE(qp->req.wait_fence, 0);
	return false;
}

/* Fail the WQE and the QP; the completer reports @status for it. */
static int req_error(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
		     enum ib_wc_status status)
{
	wqe->status = status;
	/* status before state: the completer reads them in that order */
	smp_wmb();
	WRITE_ONCE(wqe->state, wqe_state_error);
	rxe_qp_error(qp);
	return -EAGAIN;
}

/* IB_WR_LOCAL_INV names an MR or a memory window by its key. */
static int req_local_inv(struct rxe_qp *qp, u32 key)
{
	if (!rxe_invalidate_mr(qp, key))
		return 0;
	return rxe_invalidate_mw(qp, key);
}

/* Local operations execute at once; the completer only reports them. */
static int req_local_op(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			u32 opcode)
{
	int err;

	switch (opcode) {
	case IB_WR_REG_MR:
		err = rxe_reg_fast_mr(qp, wqe);
		if (err)
			return req_error(qp, wqe, IB_WC_LOC_QP_OP_ERR);
		break;
	case IB_WR_LOCAL_INV:
		err = req_local_inv(qp, wqe->wr.ex.invalidate_rkey);
		if (err)
			return req_error(qp, wqe, IB_WC_LOC_QP_OP_ERR);
		break;
	case IB_WR_BIND_MW:
		err = rxe_bind_mw(qp, wqe);
		if (err)
			return req_error(qp, wqe, IB_WC_MW_BIND_ERR);
		break;
	default:
		return req_error(qp, wqe, IB_WC_LOC_QP_OP_ERR);
	}

	wqe->status = IB_WC_SUCCESS;
	smp_wmb();
	WRITE_ONCE(wqe->state, wqe_state_done);
	qp->req.wqe_index = queue_next_index(qp->sq.queue, qp->req.wqe_index);
	rxe_sched_task(&qp->comp.task);
	return 0;
}

static u8 req_seg(bool first, bool last, u8 only, u8 fst, u8 mid, u8 lst)
{
	if (first)
		return last ? only : fst;
	return last ? lst : mid;
}

/* Wire opcode of the next packet of a WQE, or -EINVAL. */
static int req_opcode(struct rxe_qp *qp, u32 wr_opcode, bool first,
		      bool last)
{
	u8 tr, op;

	switch (qp_type(qp)) {
	case IB_QPT_RC:
		tr = IB_OPCODE_RC;
		break;
	case IB_QPT_UC:
		tr = IB_OPCODE_UC;
		break;
	case IB_QPT_UD:
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		/* a UD message is a single packet */
		if (!first || !last)
			return -EINVAL;
		if (wr_opcode == IB_WR_SEND)
			return IB_OPCODE_UD_SEND_ONLY;
		if (wr_opcode == IB_WR_SEND_WITH_IMM)
			return IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE;
		return -EINVAL;
	default:
		return -EINVAL;
	}

	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
		op = req_seg(first, last, IB_OPCODE_RDMA_WRITE_ONLY,
			     IB_OPCODE_RDMA_WRITE_FIRST,
			     IB_OPCODE_RDMA_WRITE_MIDDLE,
			     IB_OPCODE_RDMA_WRITE_LAST);
		break;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		op = req_seg(first, last,
			     IB_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
			     IB_OPCODE_RDMA_WRITE_FIRST,
			     IB_OPCODE_RDMA_WRITE_MIDDLE,
			     IB_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE);
		break;
	case IB_WR_SEND:
		op = req_seg(first, last, IB_OPCODE_SEND_ONLY,
			     IB_OPCODE_SEND_FIRST, IB_OPCODE_SEND_MIDDLE,
			     IB_OPCODE_SEND_LAST);
		break;
	case IB_WR_SEND_WITH_IMM:
		op = req_seg(first, last, IB_OPCODE_SEND_ONLY_WITH_IMMEDIATE,
			     IB_OPCODE_SEND_FIRST, IB_OPCODE_SEND_MIDDLE,
			     IB_OPCODE_SEND_LAST_WITH_IMMEDIATE);
		break;
	case IB_WR_SEND_WITH_INV:
		op = req_seg(first, last, IB_OPCODE_SEND_ONLY_WITH_INVALIDATE,
			     IB_OPCODE_SEND_FIRST, IB_OPCODE_SEND_MIDDLE,
			     IB_OPCODE_SEND_LAST_WITH_INVALIDATE);
		break;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		op = IB_OPCODE_RDMA_READ_REQUEST;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		op = IB_OPCODE_COMPARE_SWAP;
		break;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		op = IB_OPCODE_FETCH_ADD;
		break;
	default:
		return -EINVAL;
	}

	/* the table knows which transports have which operations */
	if (!rxe_opcode[tr | op].mask)
		return -EINVAL;
	return tr | op;
}

static void req_fill_headers(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			     struct rxe_pkt_info *pkt, int pad, bool ack_req)
{
	u32 mask = pkt->mask;
	bool se = false;
	u32 qpn, qkey;

	/* solicited event: last packet of a send or write with immediate */
	if ((wqe->wr.send_flags & IB_SEND_SOLICITED) &&
	    (mask & RXE_END_MASK) &&
	    ((mask & RXE_SEND_MASK) ||
	     (mask & (RXE_WRITE_MASK | RXE_IMMDT_MASK)) ==
	     (RXE_WRITE_MASK | RXE_IMMDT_MASK)))
		se = true;

	qpn = (mask & RXE_DETH_MASK) ? wqe->wr.wr.ud.remote_qpn :
				       qp->attr.dest_qp_num;
	bth_init(pkt, pkt->opcode, se, 0, pad, BTH_DEF_PKEY, qpn, ack_req,
		 pkt->psn);

	if (mask & RXE_RETH_MASK) {
		reth_set_va(pkt, wqe->iova);
		reth_set_rkey(pkt, wqe->wr.wr.rdma.rkey);
		reth_set_len(pkt, wqe->dma.resid);
	}
	if (mask & RXE_ATMETH_MASK) {
		atmeth_set_va(pkt, wqe->iova);
		atmeth_set_rkey(pkt, wqe->wr.wr.atomic.rkey);
		if (pkt->opcode == IB_OPCODE_RC_COMPARE_SWAP) {
			atmeth_set_swap_add(pkt, wqe->wr.wr.atomic.swap);
			atmeth_set_comp(pkt, wqe->wr.wr.atomic.compare_add);
		} else {
			atmeth_set_swap_add(pkt, wqe->wr.wr.atomic.compare_add);
		}
	}
	if (mask & RXE_IMMDT_MASK)
		immdt_set_imm(pkt, wqe->wr.ex.imm_data);
	if (mask & RXE_IETH_MASK)
		ieth_set_rkey(pkt, wqe->wr.ex.invalidate_rkey);
	if (mask & RXE_DETH_MASK) {
		/* a Q_Key with the high bit set means: use the QP's own */
		qkey = wqe->wr.wr.ud.remote_qkey;
		if (qkey & 0x80000000)
			qkey = qp->attr.qkey;
		if (qp_type(qp) == IB_QPT_GSI)
			qkey = GSI_QKEY;
		deth_set_qkey(pkt, qkey);
		deth_set_sqp(pkt, qp_num(qp));
	}
}

static int req_copy_payload(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			    struct rxe_pkt_info *pkt, u32 len)
{
	u8 *dst = payload_addr(pkt);
	u32 off, room;

	if (!len)
		return 0;
	if (!(wqe->wr.send_flags & IB_SEND_INLINE))
		return copy_data(qp->pd, 0, &wqe->dma, dst, len,
				 RXE_FROM_MR_OBJ);

	/* inline data lives in the slot: stay inside it */
	off = READ_ONCE(wqe->dma.sge_offset);
	room = req_inline_room(qp);
	if (off > room || len > room - off)
		return -EINVAL;
	memcpy(dst, wqe->dma.inline_data + off, len);
	wqe->dma.sge_offset = off + len;
	wqe->dma.resid -= len;
	return 0;
}

/* What a packet changes, to undo it if it could not be sent. */
struct req_undo {
	u32 wqe_state;
	u32 first_psn;
	u32 last_psn;
	u32 resid;
	u32 cur_sge;
	u32 sge_offset;
	u32 psn;
	u32 wqe_index;
	int opcode;
	int noack_pkts;
};

static void req_save(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
		     struct req_undo *u)
{
	u->wqe_state = wqe->state;
	u->first_psn = wqe->first_psn;
	u->last_psn = wqe->last_psn;
	u->resid = wqe->dma.resid;
	u->cur_sge = wqe->dma.cur_sge;
	u->sge_offset = wqe->dma.sge_offset;
	u->psn = qp->req.psn;
	u->wqe_index = qp->req.wqe_index;
	u->opcode = qp->req.opcode;
	u->noack_pkts = qp->req.noack_pkts;
}

static void req_restore(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			struct req_undo *u)
{
	/* never back to posted: that would redo the WQE's set-up */
	wqe->state = u->wqe_state == wqe_state_posted ?
		     wqe_state_processing : u->wqe_state;
	wqe->first_psn = u->first_psn;
	wqe->last_psn = u->last_psn;
	wqe->dma.resid = u->resid;
	wqe->dma.cur_sge = u->cur_sge;
	wqe->dma.sge_offset = u->sge_offset;
	qp->req.psn = u->psn;
	qp->req.wqe_index = u->wqe_index;
	qp->req.opcode = u->opcode;
	qp->req.noack_pkts = u->noack_pkts;
}

/* RC: the retransmission timer runs while PSNs are unacknowledged. */
static void req_arm_timer(struct rxe_qp *qp, bool was_idle)
{
	if (qp_type(qp) != IB_QPT_RC || !qp->qp_timeout_jiffies)
		return;
	/* nothing was outstanding: the time starts with this packet */
	if (was_idle || !timer_pending(&qp->retrans_timer))
		mod_timer(&qp->retrans_timer,
			  jiffies + (unsigned long)qp->qp_timeout_jiffies);
}

/* Build and send the next packet of @wqe. */
static int req_send_pkt(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			u32 wr_opcode, u32 mask)
{
	struct rxe_dev *rxe = rxe_from_qp(qp);
	struct rxe_pkt_info pkt = {};
	unsigned int mtu = req_mtu(qp);
	struct rxe_ah *ah = NULL;
	struct req_undo undo;
	struct sk_buff *skb;
	struct rxe_av *av;
	u32 resid, payload, npkts, pad, paylen;
	bool first, last, ack_req, was_idle;
	int opcode, err;

	resid = wqe->dma.resid;
	if (mask & (WR_READ_MASK | WR_ATOMIC_MASK)) {
		/* one request packet; reads: data comes back in responses */
		first = true;
		last = true;
		payload = 0;
	} else {
		if (resid > wqe->dma.length)
			return req_error(qp, wqe, IB_WC_LOC_LEN_ERR);
		first = resid == wqe->dma.length;
		last = resid <= mtu;
		payload = last ? resid : mtu;
	}
	npkts = req_num_pkts(resid, mtu);

	opcode = req_opcode(qp, wr_opcode, first, last);
	if (opcode < 0)
		return req_error(qp, wqe, (qp_type(qp) == IB_QPT_UD ||
					   qp_type(qp) == IB_QPT_SMI ||
					   qp_type(qp) == IB_QPT_GSI) ?
					  IB_WC_LOC_LEN_ERR :
					  IB_WC_LOC_QP_OP_ERR);

	pkt.rxe = rxe;
	pkt.qp = qp;
	pkt.wqe = wqe;
	pkt.opcode = opcode;
	pkt.psn = qp->req.psn;
	pkt.mask = rxe_opcode[opcode].mask;

	av = rxe_get_av(&pkt, &ah);
	if (!av)
		return req_error(qp, wqe, IB_WC_LOC_QP_OP_ERR);

	pad = (-payload) & 3;
	paylen = rxe_opcode[opcode].length + payload + pad + RXE_ICRC_SIZE;
	skb = rxe_init_packet(rxe, av, paylen, &pkt);
	if (!skb) {
		err = -ENOMEM;
		goto err_put_ah;
	}

	req_save(qp, wqe, &undo);

	ack_req = (pkt.mask & RXE_END_MASK) ||
		  ++qp->req.noack_pkts >= RXE_MAX_PKT_PER_ACK;
	if (ack_req)
		qp->req.noack_pkts = 0;
	req_fill_headers(qp, wqe, &pkt, pad, ack_req);

	err = req_copy_payload(qp, wqe, &pkt, payload);
	if (err) {
		kfree_skb(skb);
		if (ah)
			rxe_put(ah);
		req_restore(qp, wqe, &undo);
		return req_error(qp, wqe, IB_WC_LOC_PROT_ERR);
	}

	err = rxe_prepare(av, &pkt, skb);
	if (ah) {
		rxe_put(ah);
		ah = NULL;
	}
	if (err) {
		kfree_skb(skb);
		goto err_restore;
	}

	/*
	 * Account for the packet before it leaves: its ACK may come back
	 * (and be looked at by the completer) before rxe_xmit_packet returns.
	 */
	was_idle = qp->req.psn == READ_ONCE(qp->comp.psn);
	if (pkt.mask & RXE_START_MASK) {
		wqe->first_psn = qp->req.psn;
		wqe->last_psn = (qp->req.psn + npkts - 1) & BTH_PSN_MASK;
	}
	if (pkt.mask & RXE_READ_MASK)
		qp->req.psn = (qp->req.psn + npkts) & BTH_PSN_MASK;
	else
		qp->req.psn = (qp->req.psn + 1) & BTH_PSN_MASK;
	qp->req.opcode = opcode;
	if (pkt.mask & RXE_END_MASK) {
		qp->req.wqe_index = queue_next_index(qp->sq.queue,
						     qp->req.wqe_index);
		smp_wmb();
		WRITE_ONCE(wqe->state, qp_type(qp) == IB_QPT_RC ?
				       wqe_state_pending :
				       wqe_state_processing);
	} else {
		WRITE_ONCE(wqe->state, wqe_state_processing);
	}
	req_arm_timer(qp, was_idle);

	err = rxe_xmit_packet(qp, &pkt, skb);
	if (err) {
		req_restore(qp, wqe, &undo);
		/* congestion: the same packet goes again on the next run */
		if (err == -EAGAIN)
			return 0;
		return req_error(qp, wqe, IB_WC_LOC_QP_OP_ERR);
	}

	/* UD and UC are complete once the last packet is out */
	if (qp_type(qp) != IB_QPT_RC && (pkt.mask & RXE_END_MASK)) {
		wqe->status = IB_WC_SUCCESS;
		smp_wmb();
		WRITE_ONCE(wqe->state, wqe_state_done);
		rxe_sched_task(&qp->comp.task);
	}
	return 0;

err_restore:
	req_restore(qp, wqe, &undo);
err_put_ah:
	if (ah)
		rxe_put(ah);
	return req_error(qp, wqe, IB_WC_LOC_QP_OP_ERR);
}

int rxe_requester(struct rxe_qp *qp)
{
	struct rxe_send_wqe *wqe;
	enum rxe_qp_state state;
	unsigned long flags;
	u32 opcode, mask;
	int retry;

	if (!qp->valid)
		return -EAGAIN;

	spin_lock_irqsave(&qp->state_lock, flags);
	state = qp->req.state;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	switch (state) {
	case QP_STATE_READY:
	case QP_STATE_DRAIN:
		break;
	case QP_STATE_ERROR:
		/* WQEs posted in the error state are flushed by the completer */
		if (!queue_empty(qp->sq.queue))
			rxe_sched_task(&qp->comp.task);
		return -EAGAIN;
	default:
		return -EAGAIN;
	}

	/* the completer sets wait_for_rnr_timer before need_retry */
	retry = READ_ONCE(qp->req.need_retry);
	smp_rmb();
	if (READ_ONCE(qp->req.wait_for_rnr_timer))
		return -EAGAIN;
	if (retry)
		req_rewind(qp);

	wqe = req_next_wqe(qp, state);
	if (!wqe)
		return -EAGAIN;

	opcode = READ_ONCE(wqe->wr.opcode);
	mask = rxe_wr_opcode_mask(opcode, qp_type(qp));
	if (!mask)
		return req_error(qp, wqe, IB_WC_LOC_QP_OP_ERR);
	wqe->mask = mask;

	if (wqe->state == wqe_state_posted) {
		if (req_fenced(qp, wqe))
			return -EAGAIN;
		if (mask & WR_LOCAL_OP_MASK)
			return req_local_op(qp, wqe, opcode);
		/* more SGEs than the slot holds: refuse before any copy */
		if (!(wqe->wr.send_flags & IB_SEND_INLINE) &&
		    READ_ONCE(wqe->dma.num_sge) > qp->sq.max_sge)
			return req_error(qp, wqe, IB_WC_LOC_LEN_ERR);
		/* a new WQE: whatever userspace left here is not ours */
		req_reset_data(wqe, mask);
		wqe->has_rd_atomic = 0;
		wqe->status = IB_WC_SUCCESS;
	}

	if (req_psn_window_full(qp))
		return -EAGAIN;

	if (rxe_xmit_throttled(qp, &qp->need_req_skb))
		return -EAGAIN;

	/*
	 * Nothing may turn us back between taking the credit and sending: a
	 * WQE still "posted" on the next run would forget that it holds one.
	 */
	if ((mask & (WR_READ_MASK | WR_ATOMIC_MASK)) && !wqe->has_rd_atomic) {
		if (!req_get_rd_atomic(qp))
			return -EAGAIN;
		wqe->has_rd_atomic = 1;
	}
	return req_send_pkt(qp, wqe, opcode, mask);
}

void rnr_nak_timer(struct timer_list *t)
{
	struct rxe_qp *qp = from_timer(qp, t, rnr_nak_timer);

	if (!qp->valid)
		return;
	WRITE_ONCE(qp->req.wait_for_rnr_timer, 0);
	rxe_sched_task(&qp->req.task);
}
