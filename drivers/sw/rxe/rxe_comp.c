// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe completer: retires send WQEs in order and reports them.
 *
 * It consumes what the responder of the peer sends back to an RC
 * requester (ACKs and NAKs, RDMA read responses, atomic ACKs), handles
 * the retransmission timeout, and completes the WQEs the requester marked
 * done (UD, UC, local operations). In the error state it flushes the SQ.
 * Retiring a WQE (comp.psn and the SQ consumer index together) happens
 * under state_lock, which the requester also holds while it rewinds for a
 * retry, so that both agree on the oldest outstanding WQE.
 */
#include <linux/jiffies.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include "rxe.h"

/* RNR NAK timer field -> microseconds to wait (IBA table 45). */
static const unsigned int rnrnak_usec[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120,
	160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/* What to do with a response once looked at. */
enum comp_verdict {
	COMP_CONSUME,		/* done with it */
	COMP_AGAIN,		/* the head WQE changed: look at it again */
};

static unsigned long rnrnak_jiffies(u8 code)
{
	return max_t(unsigned long,
		     usecs_to_jiffies(rnrnak_usec[code & AETH_CODE_MASK]), 1);
}

void retransmit_timer(struct timer_list *t)
{
	struct rxe_qp *qp = from_timer(qp, t, retrans_timer);

	if (!qp->valid)
		return;
	WRITE_ONCE(qp->comp.timeout, 1);
	rxe_sched_task(&qp->comp.task);
}

void rxe_comp_queue_pkt(struct rxe_qp *qp, struct sk_buff *skb)
{
	bool backlog;

	skb_queue_tail(&qp->resp_pkts, skb);
	/* skb may be gone now: the completer can run on another CPU */
	backlog = skb_queue_len(&qp->resp_pkts) > 1;
	if (backlog) {
		rxe_counter_inc(rxe_from_qp(qp), RXE_CNT_COMPLETER_SCHED);
		rxe_sched_task(&qp->comp.task);
	} else {
		rxe_run_task(&qp->comp.task);
	}
}

/* Each queued packet holds a reference on the QP (receive path). */
static void comp_free_pkt(struct rxe_qp *qp, struct sk_buff *skb)
{
	kfree_skb(skb);
	rxe_qp_put(qp);
}

static void comp_drop_pkts(struct rxe_qp *qp)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&qp->resp_pkts)))
		comp_free_pkt(qp, skb);
}

static u32 comp_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
		return IB_WC_SEND;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	default:
		return 0xff;
	}
}

static void comp_make_cqe(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			  enum ib_wc_status status, struct rxe_cqe *cqe)
{
	u32 wr_opcode = READ_ONCE(wqe->wr.opcode);
	u32 opcode = comp_wc_opcode(wr_opcode);
	bool imm = wr_opcode == IB_WR_SEND_WITH_IMM ||
		   wr_opcode == IB_WR_RDMA_WRITE_WITH_IMM;
	bool ok = status == IB_WC_SUCCESS;

	memset(cqe, 0, sizeof(*cqe));
	if (qp->scq->is_user) {
		struct ib_uverbs_wc *uwc = &cqe->uibwc;

		uwc->wr_id = wqe->wr.wr_id;
		uwc->status = status;
		uwc->opcode = opcode;
		uwc->qp_num = qp_num(qp);
		if (ok) {
			uwc->byte_len = wqe->dma.length;
			if (imm)
				uwc->wc_flags = IB_WC_WITH_IMM;
		}
	} else {
		struct ib_wc *wc = &cqe->ibwc;

		wc->wr_id = wqe->wr.wr_id;
		wc->status = status;
		wc->opcode = opcode;
		wc->qp = &qp->ibqp;
		if (ok) {
			wc->byte_len = wqe->dma.length;
			if (imm)
				wc->wc_flags = IB_WC_WITH_IMM;
		}
	}
}

/* Let a requester that waits for the completer try again. */
static void comp_wake_req(struct rxe_qp *qp)
{
	bool wake = false;

	/* pairs with the barrier after the requester set its flag */
	smp_mb();
	if (READ_ONCE(qp->req.wait_fence)) {
		WRITE_ONCE(qp->req.wait_fence, 0);
		wake = true;
	}
	if (READ_ONCE(qp->req.wait_psn)) {
		WRITE_ONCE(qp->req.wait_psn, 0);
		wake = true;
	}
	if (READ_ONCE(qp->req.need_rd_atomic)) {
		WRITE_ONCE(qp->req.need_rd_atomic, 0);
		wake = true;
	}
	if (READ_ONCE(qp->req.state) == QP_STATE_DRAIN)
		wake = true;
	if (wake)
		rxe_sched_task(&qp->req.task);
}

/* Responses arrived: the retransmission timer counts from now. */
static void comp_restart_timer(struct rxe_qp *qp)
{
	if (qp->qp_timeout_jiffies &&
	    psn_compare(READ_ONCE(qp->req.psn), qp->comp.psn) > 0)
		mod_timer(&qp->retrans_timer,
			  jiffies + (unsigned long)qp->qp_timeout_jiffies);
}

/* Every PSN before @psn is acknowledged. */
static void comp_set_psn(struct rxe_qp *qp, u32 psn)
{
	WRITE_ONCE(qp->comp.psn, psn & BTH_PSN_MASK);
	qp->comp.started_retry = 0;
	qp->comp.retry_cnt = qp->attr.retry_cnt;
	comp_restart_timer(qp);
	comp_wake_req(qp);
}

/*
 * Take the head WQE off the SQ and report it if it is signaled or failed
 * (errors are always reported, IBA 10.7.3.1). @acked: completed by the
 * responder; only then comp.psn moves past it, and only if the requester
 * did not rewind it meanwhile. Returns false if it was left in place.
 */
static bool comp_retire(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			enum ib_wc_status status, bool acked)
{
	struct rxe_queue *q = qp->sq.queue;
	struct rxe_cqe cqe;
	unsigned long flags;
	bool post, credit;
	u32 wr_opcode;

	wr_opcode = READ_ONCE(wqe->wr.opcode);
	post = status != IB_WC_SUCCESS ||
	       qp->sq_sig_type == IB_SIGNAL_ALL_WR ||
	       (wqe->wr.send_flags & IB_SEND_SIGNALED);
	/* the slot may be reused as soon as the consumer index moves */
	if (post)
		comp_make_cqe(qp, wqe, status, &cqe);

	spin_lock_irqsave(&qp->state_lock, flags);
	if (wqe != queue_head(q) ||
	    (acked && READ_ONCE(wqe->state) != wqe_state_pending)) {
		spin_unlock_irqrestore(&qp->state_lock, flags);
		return false;
	}
	if (acked)
		WRITE_ONCE(qp->comp.psn, (wqe->last_psn + 1) & BTH_PSN_MASK);
	credit = wqe->has_rd_atomic;
	wqe->has_rd_atomic = 0;
	queue_advance_consumer(q);
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (status == IB_WC_SUCCESS) {
		if (wr_opcode == IB_WR_SEND || wr_opcode == IB_WR_SEND_WITH_IMM ||
		    wr_opcode == IB_WR_SEND_WITH_INV)
			rxe_counter_inc(rxe_from_qp(qp), RXE_CNT_RDMA_SEND);
	}
	if (credit)
		atomic_inc(&qp->req.rd_atomic);
	if (post)
		rxe_cq_post(qp->scq, &cqe, 0);
	if (acked) {
		qp->comp.started_retry = 0;
		comp_restart_timer(qp);
	}
	comp_wake_req(qp);
	return true;
}

/* The responder completed the head WQE. */
static void comp_ack_wqe(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	/* RDMA read with invalidate: the local sink key goes (iWARP style) */
	if (READ_ONCE(wqe->wr.opcode) == IB_WR_RDMA_READ_WITH_INV)
		rxe_invalidate_mr(qp, wqe->wr.ex.invalidate_rkey);
	qp->comp.retry_cnt = qp->attr.retry_cnt;
	qp->comp.rnr_retry = qp->attr.rnr_retry;
	comp_retire(qp, wqe, IB_WC_SUCCESS, true);
}

/* The head WQE failed: report it, then the QP goes to the error state. */
static void comp_fail(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
		      enum ib_wc_status status)
{
	comp_retire(qp, wqe, status, false);
	rxe_qp_error(qp);
}

/* Send again from comp.psn, retry_cnt times (IBA 9.7.6.1.3). */
static void comp_retry(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	struct rxe_dev *rxe = rxe_from_qp(qp);

	if (qp->comp.retry_cnt > 0) {
		/* 7 retries for ever, as the stock rxe does */
		if (qp->comp.retry_cnt != 7)
			qp->comp.retry_cnt--;
		qp->comp.started_retry = 1;
		rxe_counter_inc(rxe, RXE_CNT_COMP_RETRY);
		WRITE_ONCE(qp->req.need_retry, 1);
		rxe_sched_task(&qp->req.task);
	} else {
		rxe_counter_inc(rxe, RXE_CNT_RETRY_EXCEEDED);
		comp_fail(qp, wqe, IB_WC_RETRY_EXC_ERR);
	}
}

/* A gap in the responses: retry, unless a retry is already under way. */
static void comp_retry_once(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	if (qp->comp.started_retry || READ_ONCE(qp->req.need_retry) ||
	    READ_ONCE(qp->req.wait_for_rnr_timer))
		return;
	comp_retry(qp, wqe);
}

static void comp_timeout(struct rxe_qp *qp)
{
	struct rxe_send_wqe *wqe = queue_head(qp->sq.queue);
	u32 state;

	if (!wqe || qp_type(qp) != IB_QPT_RC)
		return;
	state = READ_ONCE(wqe->state);
	if (state != wqe_state_pending && state != wqe_state_processing)
		return;
	/* nothing in flight (a stale timer) or already retrying */
	if (psn_compare(READ_ONCE(qp->req.psn), qp->comp.psn) <= 0 ||
	    READ_ONCE(qp->req.need_retry) ||
	    READ_ONCE(qp->req.wait_for_rnr_timer))
		return;
	comp_retry(qp, wqe);
}

static enum comp_verdict comp_read_resp(struct rxe_qp *qp,
					struct rxe_send_wqe *wqe,
					struct rxe_pkt_info *pkt, u32 mask)
{
	unsigned long flags;
	bool end;
	int err;

	if (!(mask & WR_READ_MASK))
		return COMP_CONSUME;

	/*
	 * Data and comp.psn move together under state_lock: a rewind for a
	 * retry asks for the rest of the data from exactly that PSN. Once
	 * rewound ("processing"), old responses are ignored until the new
	 * read request is out.
	 */
	spin_lock_irqsave(&qp->state_lock, flags);
	/*
	 * A responder answering a re-sent request for the rest of a read
	 * may go on with MIDDLE/LAST (the stock rxe does) or start again
	 * with FIRST/ONLY: only the PSN decides. LAST/ONLY must come at the
	 * final PSN, which both sides derive from the same length.
	 */
	end = pkt->psn == wqe->last_psn;
	if (READ_ONCE(wqe->state) != wqe_state_pending ||
	    pkt->psn != qp->comp.psn ||
	    !!(pkt->mask & RXE_END_MASK) != end) {
		spin_unlock_irqrestore(&qp->state_lock, flags);
		return COMP_CONSUME;
	}
	err = copy_data(qp->pd, IB_ACCESS_LOCAL_WRITE, &wqe->dma,
			payload_addr(pkt), payload_size(pkt), RXE_TO_MR_OBJ);
	if (!err)
		WRITE_ONCE(qp->comp.psn, (pkt->psn + 1) & BTH_PSN_MASK);
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (err) {
		comp_fail(qp, wqe, IB_WC_LOC_PROT_ERR);
		return COMP_CONSUME;
	}
	qp->comp.opcode = pkt->opcode;
	qp->comp.rnr_retry = qp->attr.rnr_retry;
	comp_set_psn(qp, pkt->psn + 1);

	if (end) {
		/* the responder sent less than asked for */
		if (wqe->dma.resid)
			comp_fail(qp, wqe, IB_WC_LOC_LEN_ERR);
		else
			comp_ack_wqe(qp, wqe);
	}
	return COMP_CONSUME;
}

static enum comp_verdict comp_atomic_ack(struct rxe_qp *qp,
					 struct rxe_send_wqe *wqe,
					 struct rxe_pkt_info *pkt, u32 mask)
{
	unsigned long flags;
	u64 orig;
	int err;

	if (!(mask & WR_ATOMIC_MASK))
		return COMP_CONSUME;

	/*
	 * As for reads: an answer to a request the requester has rewound
	 * (late, reordered) is ignored, the resent one gets its own (the
	 * responder replays it). The result always goes to the start of
	 * the SGE, so a WQE answered twice is not written past its end.
	 */
	spin_lock_irqsave(&qp->state_lock, flags);
	if (READ_ONCE(wqe->state) != wqe_state_pending) {
		spin_unlock_irqrestore(&qp->state_lock, flags);
		return COMP_CONSUME;
	}
	wqe->dma.resid = wqe->dma.length;
	wqe->dma.cur_sge = 0;
	wqe->dma.sge_offset = 0;
	/* the original remote value, in host order, into the local SGE */
	orig = atmack_orig(pkt);
	err = copy_data(qp->pd, IB_ACCESS_LOCAL_WRITE, &wqe->dma, &orig,
			sizeof(orig), RXE_TO_MR_OBJ);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (err) {
		comp_fail(qp, wqe, IB_WC_LOC_PROT_ERR);
		return COMP_CONSUME;
	}
	qp->comp.opcode = pkt->opcode;
	comp_ack_wqe(qp, wqe);
	return COMP_CONSUME;
}

static enum comp_verdict comp_ack(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
				  struct rxe_pkt_info *pkt, u32 mask,
				  u32 state)
{
	struct rxe_dev *rxe = rxe_from_qp(qp);
	bool rd_atomic = mask & (WR_READ_MASK | WR_ATOMIC_MASK);
	u8 syn = aeth_syn(pkt);
	u32 psn = pkt->psn;
	enum ib_wc_status status;

	switch (syn & AETH_TYPE_MASK) {
	case AETH_ACK:
		/* reads and atomics are acknowledged by their responses */
		if (rd_atomic)
			return COMP_CONSUME;
		qp->comp.opcode = pkt->opcode;
		qp->comp.rnr_retry = qp->attr.rnr_retry;
		comp_set_psn(qp, psn + 1);
		if (psn == wqe->last_psn && state == wqe_state_pending)
			comp_ack_wqe(qp, wqe);
		return COMP_CONSUME;

	case AETH_RNR_NAK:
		rxe_counter_inc(rxe, RXE_CNT_RCV_RNR_ERR);
		if (READ_ONCE(qp->req.need_retry) ||
		    READ_ONCE(qp->req.wait_for_rnr_timer))
			return COMP_CONSUME;
		/* the packets before the refused one did arrive */
		if (!rd_atomic && psn_compare(psn, qp->comp.psn) > 0)
			comp_set_psn(qp, psn);
		if (qp->comp.rnr_retry == 0) {
			rxe_counter_inc(rxe, RXE_CNT_RNR_RETRY_EXCEEDED);
			comp_fail(qp, wqe, IB_WC_RNR_RETRY_EXC_ERR);
			return COMP_CONSUME;
		}
		/* 7 means retry for ever */
		if (qp->comp.rnr_retry != 7)
			qp->comp.rnr_retry--;
		/* the requester reads need_retry, then wait_for_rnr_timer */
		WRITE_ONCE(qp->req.wait_for_rnr_timer, 1);
		smp_wmb();
		WRITE_ONCE(qp->req.need_retry, 1);
		mod_timer(&qp->rnr_nak_timer,
			  jiffies + rnrnak_jiffies(syn & AETH_CODE_MASK));
		return COMP_CONSUME;

	case AETH_NAK:
		break;

	default:
		return COMP_CONSUME;
	}

	switch (syn) {
	case AETH_NAK_PSN_SEQ_ERROR:
		rxe_counter_inc(rxe, RXE_CNT_RCV_SEQ_ERR);
		/* a NAK implicitly acknowledges the PSNs before it */
		if (!rd_atomic && psn_compare(psn, qp->comp.psn) > 0)
			comp_set_psn(qp, psn);
		comp_retry_once(qp, wqe);
		return COMP_CONSUME;
	case AETH_NAK_INVALID_REQ:
		status = IB_WC_REM_INV_REQ_ERR;
		break;
	case AETH_NAK_REM_ACC_ERR:
		status = IB_WC_REM_ACCESS_ERR;
		break;
	case AETH_NAK_INV_RD_REQ:
		status = IB_WC_REM_INV_RD_REQ_ERR;
		break;
	default:
		status = IB_WC_REM_OP_ERR;
		break;
	}
	comp_fail(qp, wqe, status);
	return COMP_CONSUME;
}

/* One response against the head WQE (RC only). */
static enum comp_verdict comp_pkt(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
				  struct rxe_pkt_info *pkt)
{
	u32 psn = pkt->psn;
	u32 state, mask;
	bool rd_atomic;
	int diff;

	if (qp_type(qp) != IB_QPT_RC || !(pkt->mask & RXE_ACK_MASK) || !wqe)
		return COMP_CONSUME;
	/* headers, pad and ICRC must fit in what arrived */
	if (pkt->paylen < header_size(pkt) + bth_pad(pkt) + RXE_ICRC_SIZE)
		return COMP_CONSUME;
	state = READ_ONCE(wqe->state);
	if (state != wqe_state_pending && state != wqe_state_processing)
		return COMP_CONSUME;
	mask = rxe_wr_opcode_mask(READ_ONCE(wqe->wr.opcode), qp_type(qp));
	rd_atomic = mask & (WR_READ_MASK | WR_ATOMIC_MASK);

	if (psn_compare(psn, wqe->last_psn) > 0) {
		/* beyond the head WQE: it has been received as a whole */
		if (state != wqe_state_pending)
			return COMP_CONSUME;
		if (rd_atomic) {
			/* ...but its read data / atomic result got lost */
			comp_retry_once(qp, wqe);
			return COMP_CONSUME;
		}
		comp_ack_wqe(qp, wqe);
		return COMP_AGAIN;
	}

	diff = psn_compare(psn, qp->comp.psn);
	if (diff < 0) {
		/* old news, except a repeated final ACK of the head WQE */
		if (pkt->opcode == IB_OPCODE_RC_ACKNOWLEDGE &&
		    (aeth_syn(pkt) & AETH_TYPE_MASK) == AETH_ACK &&
		    psn == wqe->last_psn && state == wqe_state_pending &&
		    !rd_atomic)
			comp_ack_wqe(qp, wqe);
		return COMP_CONSUME;
	}
	if (diff > 0 && rd_atomic) {
		/* responses come in order: one is missing */
		comp_retry_once(qp, wqe);
		return COMP_CONSUME;
	}

	switch (pkt->opcode) {
	case IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST:
	case IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE:
	case IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST:
	case IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY:
		return comp_read_resp(qp, wqe, pkt, mask);
	case IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE:
		return comp_atomic_ack(qp, wqe, pkt, mask);
	case IB_OPCODE_RC_ACKNOWLEDGE:
		return comp_ack(qp, wqe, pkt, mask, state);
	default:
		return COMP_CONSUME;
	}
}

/* Status of a WQE the requester failed (its field is user-writable). */
static enum ib_wc_status comp_error_status(struct rxe_send_wqe *wqe)
{
	u32 status = READ_ONCE(wqe->status);

	if (status == IB_WC_SUCCESS || status > IB_WC_GENERAL_ERR)
		return IB_WC_LOC_QP_OP_ERR;
	return status;
}

/*
 * Error state: every WQE left completes, with WR_FLUSH_ERR unless it
 * already failed, or (local operations, UD/UC sends) already finished.
 */
static void comp_flush(struct rxe_qp *qp)
{
	struct rxe_queue *q = qp->sq.queue;
	u32 prod = queue_get_producer(q);
	struct rxe_send_wqe *wqe;
	enum ib_wc_status status;
	u32 state;

	while (q->cons != prod) {
		wqe = queue_consumer_addr(q);
		state = READ_ONCE(wqe->state);
		smp_rmb();
		if (state == wqe_state_error)
			status = comp_error_status(wqe);
		else if (state == wqe_state_done)
			status = IB_WC_SUCCESS;
		else
			status = IB_WC_WR_FLUSH_ERR;
		if (!comp_retire(qp, wqe, status, false))
			break;
	}
}

static int comp_step(struct rxe_qp *qp)
{
	struct rxe_send_wqe *wqe = queue_head(qp->sq.queue);
	enum comp_verdict verdict;
	struct sk_buff *skb;
	u32 state;

	if (wqe) {
		state = READ_ONCE(wqe->state);
		/* the status was written before the state */
		smp_rmb();
		if (state == wqe_state_done) {
			comp_retire(qp, wqe, IB_WC_SUCCESS, false);
			return 0;
		}
		if (state == wqe_state_error) {
			comp_fail(qp, wqe, comp_error_status(wqe));
			return 0;
		}
		/* acknowledged while the requester was rewinding it */
		if (state == wqe_state_pending && qp_type(qp) == IB_QPT_RC &&
		    psn_compare(qp->comp.psn, wqe->last_psn) > 0 &&
		    !(rxe_wr_opcode_mask(READ_ONCE(wqe->wr.opcode),
					 qp_type(qp)) &
		      (WR_READ_MASK | WR_ATOMIC_MASK)) &&
		    comp_retire(qp, wqe, IB_WC_SUCCESS, true))
			return 0;
	}

	skb = skb_dequeue(&qp->resp_pkts);
	if (!skb)
		return -EAGAIN;

	verdict = comp_pkt(qp, wqe, SKB_TO_PKT(skb));
	if (verdict == COMP_AGAIN)
		skb_queue_head(&qp->resp_pkts, skb);
	else
		comp_free_pkt(qp, skb);
	return 0;
}

int rxe_completer(struct rxe_qp *qp)
{
	enum rxe_qp_state state;
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	state = qp->comp.state;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (!qp->valid) {
		comp_drop_pkts(qp);
		return -EAGAIN;
	}

	switch (state) {
	case QP_STATE_READY:
	case QP_STATE_DRAIN:
	case QP_STATE_DRAINED:
		break;
	case QP_STATE_ERROR:
		comp_drop_pkts(qp);
		comp_flush(qp);
		return -EAGAIN;
	default:
		comp_drop_pkts(qp);
		return -EAGAIN;
	}

	if (READ_ONCE(qp->comp.timeout)) {
		WRITE_ONCE(qp->comp.timeout, 0);
		/*
		 * Responses still queued are progress the timer did not see
		 * (this task ran late): handle them and time again, as stock
		 * does. Retrying instead re-requests a long read that is
		 * arriving, again and again.
		 */
		if (!skb_queue_empty(&qp->resp_pkts))
			comp_restart_timer(qp);
		else
			comp_timeout(qp);
		return 0;
	}

	return comp_step(qp);
}
