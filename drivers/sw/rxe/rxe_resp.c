// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe responder: executes the request packets rxe_rcv() queued on a
 * QP (sends into receive WQEs, RDMA writes, RDMA reads, atomics), keeps
 * the RC request PSN sequence, answers with ACKs, NAKs, read responses
 * and atomic acknowledgements, and completes receive WQEs.
 *
 * The responder runs as the QP's resp task, never concurrently with
 * itself, so everything in qp->resp is owned by it (rxe_qp.c only resets
 * it with the task disabled).
 *
 * Receive WQEs are copied out of the RQ/SRQ ring into qp->resp.srq_wqe
 * when a message starts: the copy cannot be changed by userspace under
 * us. An RQ slot is released when its message completes (so that a flush
 * still finds it); an SRQ slot at once, since other QPs share the ring.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include "rxe.h"

/* Atomic operations of every QP are serialised (IBA 9.4.5: atomicity). */
static DEFINE_SPINLOCK(rxe_atomic_lock);

/* ibv_wc_flags value of "with invalidate" (the kernel's differs) */
#define RXE_UWC_WITH_INV	(1 << 3)

/* Outcome of processing one request packet. */
enum resp_rc {
	RESP_OK,		/* executed */
	RESP_DROP,		/* silently dropped (UC/UD class D) */
	RESP_RNR,		/* no receive WQE */
	RESP_ERR_INV_REQ,	/* malformed or unsupported request */
	RESP_ERR_LEN,		/* message longer than the receive buffer */
	RESP_ERR_ACCESS,	/* rkey, bounds or permission failure */
	RESP_ERR_OP,		/* responder could not do it */
	RESP_ERR_WQE,		/* bad receive WQE (lkey, SGEs) */
	RESP_ERR_INVAL_RKEY,	/* send with invalidate: bad rkey */
};

static void resp_free_pkt(struct sk_buff *skb)
{
	struct rxe_pkt_info *pkt = SKB_TO_PKT(skb);

	if (pkt->qp)
		rxe_qp_put(pkt->qp);
	kfree_skb(skb);
}

void rxe_resp_queue_pkt(struct rxe_qp *qp, struct sk_buff *skb)
{
	/*
	 * Read responses can be long: build them on the workqueue rather
	 * than in the receive softirq. Same if packets are already waiting.
	 * The mask is read before the skb is queued: from then on the
	 * responder, running on another CPU, may consume and free it.
	 */
	bool defer = SKB_TO_PKT(skb)->mask & RXE_READ_MASK;

	skb_queue_tail(&qp->req_pkts, skb);
	defer = defer || skb_queue_len(&qp->req_pkts) > 1;
	if (defer)
		rxe_sched_task(&qp->resp.task);
	else
		rxe_run_task(&qp->resp.task);
}

static unsigned int resp_mtu(struct rxe_qp *qp)
{
	if (qp->mtu)
		return qp->mtu;
	return ib_mtu_enum_to_int(IB_MTU_256);
}

/* ---- transmit: ACK, NAK, atomic ACK, read response ---- */

/*
 * Start a response packet of @opcode with @payload bytes; on success the
 * BTH is filled in and, if the opcode has one, the AETH (ACK, MSN).
 */
static struct sk_buff *resp_new_pkt(struct rxe_qp *qp,
				    struct rxe_pkt_info *ack, u8 opcode,
				    u32 payload, u32 psn, u8 syndrome)
{
	struct rxe_dev *rxe = rxe_from_qp(qp);
	u32 pad = (-payload) & 3;
	struct sk_buff *skb;

	memset(ack, 0, sizeof(*ack));
	skb = rxe_init_packet(rxe, &qp->pri_av, rxe_opcode[opcode].length +
			      payload + pad + RXE_ICRC_SIZE, ack);
	if (!skb)
		return NULL;

	ack->qp = qp;
	ack->opcode = opcode;
	ack->mask |= rxe_opcode[opcode].mask;
	ack->psn = psn;
	bth_init(ack, opcode, 0, 0, pad, BTH_DEF_PKEY, qp->attr.dest_qp_num,
		 0, psn);
	if (ack->mask & RXE_AETH_MASK) {
		aeth_set_syn(ack, syndrome);
		aeth_set_msn(ack, qp->resp.msn);
	}
	return skb;
}

/* Add the IP/UDP headers and the ICRC, and send; consumes the skb. */
static int resp_send_pkt(struct rxe_qp *qp, struct rxe_pkt_info *ack,
			 struct sk_buff *skb)
{
	int err;

	err = rxe_prepare(&qp->pri_av, ack, skb);
	if (err) {
		kfree_skb(skb);
		return err;
	}
	/* a lost response is recovered by the requester's retry */
	return rxe_xmit_packet(qp, ack, skb);
}

static void resp_send_ack(struct rxe_qp *qp, u8 syndrome, u32 psn)
{
	struct rxe_pkt_info ack;
	struct sk_buff *skb;

	skb = resp_new_pkt(qp, &ack, IB_OPCODE_RC_ACKNOWLEDGE, 0, psn,
			   syndrome);
	if (skb)
		resp_send_pkt(qp, &ack, skb);
}

static void resp_send_atomic_ack(struct rxe_qp *qp, u32 psn, u64 orig)
{
	struct rxe_pkt_info ack;
	struct sk_buff *skb;

	skb = resp_new_pkt(qp, &ack, IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE, 0, psn,
			   AETH_ACK_UNLIMITED);
	if (!skb)
		return;
	atmack_set_orig(&ack, orig);
	resp_send_pkt(qp, &ack, skb);
}

/* ---- remote keys ---- */

/*
 * The MR (referenced) behind @rkey for @len bytes at @va with @access,
 * through a memory window if the key names one; *iova is the address to
 * use with the MR. NULL if the key, the permission or the range is bad.
 */
static struct rxe_mr *resp_rkey_to_mr(struct rxe_qp *qp, u32 rkey, u64 va,
				      u32 len, int access, u64 *iova)
{
	struct rxe_mr *mr;
	struct rxe_mw *mw;

	if (rxe_rkey_is_mw(rkey)) {
		mw = rxe_lookup_mw(qp, access, rkey);
		if (!mw)
			return NULL;
		mr = rxe_mw_to_mr(mw, va, len, iova);
		rxe_put(mw);
		return mr;
	}

	mr = lookup_mr(qp->pd, access, rkey, RXE_LOOKUP_REMOTE);
	if (!mr)
		return NULL;
	if (mr_check_range(mr, va, len)) {
		rxe_put(mr);
		return NULL;
	}
	*iova = va;
	return mr;
}

/* ---- receive WQEs ---- */

static void resp_srq_limit_event(struct rxe_srq *srq)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/* Copy the WQE at the head of the RQ or SRQ; NULL if there is none. */
static struct rxe_recv_wqe *resp_get_wqe(struct rxe_qp *qp)
{
	struct rxe_recv_wqe *dst = &qp->resp.srq_wqe.wqe;
	struct rxe_srq *srq = qp->srq;
	struct rxe_recv_wqe *src;
	struct rxe_queue *q;
	spinlock_t *lock;	/* the ring's consumer lock */
	unsigned long flags;
	bool limit = false;
	u32 max_sge, n, i;
	u64 len = 0;

	if (srq) {
		q = srq->rq.queue;
		lock = &srq->rq.consumer_lock;
		max_sge = srq->rq.max_sge;
	} else {
		q = qp->rq.queue;
		lock = &qp->rq.consumer_lock;
		max_sge = qp->rq.max_sge;
	}
	if (!q)
		return NULL;

	spin_lock_irqsave(lock, flags);
	src = queue_head(q);
	if (!src) {
		spin_unlock_irqrestore(lock, flags);
		return NULL;
	}

	/* userspace may have written anything: bound it, recompute sizes */
	n = min3(READ_ONCE(src->dma.num_sge), max_sge, (u32)RXE_MAX_SGE);
	dst->wr_id = src->wr_id;
	memcpy(dst->dma.sge, src->dma.sge, n * sizeof(struct rxe_sge));
	for (i = 0; i < n; i++)
		len += dst->dma.sge[i].length;
	dst->dma.num_sge = n;
	dst->dma.cur_sge = 0;
	dst->dma.sge_offset = 0;
	dst->dma.length = min_t(u64, len, U32_MAX);
	dst->dma.resid = dst->dma.length;

	if (srq) {
		queue_advance_consumer(q);
		if (srq->limit && queue_count(q) < (u32)srq->limit) {
			srq->limit = 0;	/* one event per arming */
			limit = true;
		}
	}
	spin_unlock_irqrestore(lock, flags);

	if (limit)
		resp_srq_limit_event(srq);
	qp->resp.wqe = dst;
	return dst;
}

/* The current message's WQE is finished: free its RQ slot. */
static void resp_release_wqe(struct rxe_qp *qp)
{
	unsigned long flags;

	if (!qp->srq && qp->rq.queue) {
		spin_lock_irqsave(&qp->rq.consumer_lock, flags);
		if (!queue_empty(qp->rq.queue))
			queue_advance_consumer(qp->rq.queue);
		spin_unlock_irqrestore(&qp->rq.consumer_lock, flags);
	}
	qp->resp.wqe = NULL;
}

/* Forget the partial message; its WQE is used again by the next one. */
static void resp_abort_msg(struct rxe_qp *qp)
{
	struct rxe_recv_wqe *wqe = qp->resp.wqe;

	if (wqe) {
		if (qp->srq) {
			/* the SRQ slot is gone: keep the copy, rewound */
			wqe->dma.cur_sge = 0;
			wqe->dma.sge_offset = 0;
			wqe->dma.resid = wqe->dma.length;
		} else {
			/* still at the RQ head: copied again when needed */
			qp->resp.wqe = NULL;
		}
	}
	if (qp->resp.mr) {
		rxe_put(qp->resp.mr);
		qp->resp.mr = NULL;
	}
	qp->resp.opcode = -1;
}

/* ---- completions ---- */

static void resp_fill_kernel_wc(struct rxe_qp *qp, struct rxe_pkt_info *pkt,
				struct ib_wc *wc)
{
	struct sk_buff *skb = PKT_TO_SKB(pkt);

	wc->qp = &qp->ibqp;
	/* IB: the address is the LRH's (sib_rx_wc), no Ethernet */
	if (skb->protocol == htons(ETH_P_SIB))
		return;
	if (skb->protocol == htons(ETH_P_IBOE))
		wc->network_hdr_type = RDMA_NETWORK_ROCE_V1;
	else if (skb->protocol == htons(ETH_P_IP))
		wc->network_hdr_type = RDMA_NETWORK_IPV4;
	else
		wc->network_hdr_type = RDMA_NETWORK_IPV6;
	wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	if (skb_mac_header_was_set(skb) &&
	    skb_mac_header(skb) + ETH_HLEN <= skb_network_header(skb)) {
		ether_addr_copy(wc->smac, eth_hdr(skb)->h_source);
		wc->wc_flags |= IB_WC_WITH_SMAC;
	}
	if (skb->dev && is_vlan_dev(skb->dev)) {
		wc->vlan_id = vlan_dev_vlan_id(skb->dev);
		wc->wc_flags |= IB_WC_WITH_VLAN;
	}
}

/*
 * Complete the current receive WQE with @status. @pkt is the packet that
 * ends the message (for byte counts, immediate data, addresses) or NULL.
 * Returns rxe_cq_post's result: -EBUSY when the CQ overflowed.
 */
static int resp_complete(struct rxe_qp *qp, struct rxe_pkt_info *pkt,
			 enum ib_wc_status status)
{
	struct rxe_recv_wqe *wqe = qp->resp.wqe;
	struct rxe_cq *cq = qp->rcq;
	bool user = cq->is_user;
	struct rxe_cqe cqe;
	u32 byte_len, src_qp, flags = 0, ex = 0;
	int opcode = IB_WC_RECV;
	int solicited = 1;

	if (!wqe)
		return 0;

	byte_len = wqe->dma.length - wqe->dma.resid;
	src_qp = qp->attr.dest_qp_num;
	if (pkt) {
		flags |= IB_WC_GRH;
		if (pkt->mask & RXE_WRITE_MASK) {
			opcode = IB_WC_RECV_RDMA_WITH_IMM;
			byte_len = qp->resp.length;
		}
		if (pkt->mask & RXE_IMMDT_MASK) {
			flags |= IB_WC_WITH_IMM;
			ex = (__force u32)immdt_imm(pkt);
		} else if (pkt->mask & RXE_IETH_MASK) {
			flags |= user ? RXE_UWC_WITH_INV :
					IB_WC_WITH_INVALIDATE;
			ex = ieth_rkey(pkt);
		}
		if (pkt->mask & RXE_DETH_MASK)
			src_qp = deth_sqp(pkt);
		/* errors always wake a solicited-only waiter */
		if (status == IB_WC_SUCCESS)
			solicited = bth_se(pkt);
	}

	memset(&cqe, 0, sizeof(cqe));
	if (user) {
		struct ib_uverbs_wc *uwc = &cqe.uibwc;

		uwc->wr_id = wqe->wr_id;
		uwc->status = status;
		uwc->opcode = opcode;
		uwc->byte_len = byte_len;
		uwc->ex.invalidate_rkey = ex;
		uwc->qp_num = qp_num(qp);
		uwc->src_qp = src_qp;
		uwc->wc_flags = flags;
		uwc->pkey_index = qp->attr.pkey_index;
		uwc->port_num = qp->attr.port_num;
	} else {
		struct ib_wc *wc = &cqe.ibwc;

		wc->wr_id = wqe->wr_id;
		wc->status = status;
		wc->opcode = opcode;
		wc->byte_len = byte_len;
		wc->ex.invalidate_rkey = ex;
		wc->src_qp = src_qp;
		wc->wc_flags = flags;
		wc->pkey_index = qp->attr.pkey_index;
		wc->port_num = qp->attr.port_num;
		wc->qp = &qp->ibqp;
		if (pkt)
			resp_fill_kernel_wc(qp, pkt, wc);
	}

	if (pkt && PKT_TO_SKB(pkt)->protocol == htons(ETH_P_SIB))
		sib_rx_wc(PKT_TO_SKB(pkt), &cqe, user);

	/* free the slot first: the consumer may repost as soon as it polls */
	resp_release_wqe(qp);
	if (rxe_cq_post(cq, &cqe, solicited))
		return -EBUSY;
	if (status == IB_WC_SUCCESS)
		rxe_counter_inc(rxe_from_qp(qp), RXE_CNT_RDMA_RECV);
	return 0;
}

/* A flushed WQE: only wr_id, status and qp_num are meaningful. */
static void resp_flush_one(struct rxe_qp *qp, u64 wr_id)
{
	struct rxe_cqe cqe;

	memset(&cqe, 0, sizeof(cqe));
	if (qp->rcq->is_user) {
		cqe.uibwc.wr_id = wr_id;
		cqe.uibwc.status = IB_WC_WR_FLUSH_ERR;
		cqe.uibwc.opcode = IB_WC_RECV;
		cqe.uibwc.qp_num = qp_num(qp);
	} else {
		cqe.ibwc.wr_id = wr_id;
		cqe.ibwc.status = IB_WC_WR_FLUSH_ERR;
		cqe.ibwc.opcode = IB_WC_RECV;
		cqe.ibwc.qp = &qp->ibqp;
	}
	rxe_cq_post(qp->rcq, &cqe, 1);
}

/* QP in error: drop requests, flush the receive WQEs (not the SRQ's). */
static void resp_flush(struct rxe_qp *qp)
{
	struct rxe_queue *q = qp->rq.queue;
	struct rxe_recv_wqe *wqe;
	struct sk_buff *skb;
	unsigned long flags;
	u64 wr_id;

	while ((skb = skb_dequeue(&qp->req_pkts)))
		resp_free_pkt(skb);

	qp->resp.res = NULL;
	if (qp->resp.mr) {
		rxe_put(qp->resp.mr);
		qp->resp.mr = NULL;
	}
	/* an SRQ WQE taken for a message would be lost otherwise */
	if (qp->resp.wqe && qp->srq)
		resp_flush_one(qp, qp->resp.wqe->wr_id);
	qp->resp.wqe = NULL;
	qp->resp.opcode = -1;

	if (qp->srq || !q)
		return;
	/* CQ handlers may post receives: post CQEs without the ring lock */
	for (;;) {
		/*
		 * an overflowed CQ already raised IB_EVENT_CQ_ERR once (stock
		 * raises it once): leave the rest unflushed, no event storm
		 */
		if (queue_full(qp->rcq->queue))
			break;
		spin_lock_irqsave(&qp->rq.consumer_lock, flags);
		wqe = queue_head(q);
		if (!wqe) {
			spin_unlock_irqrestore(&qp->rq.consumer_lock, flags);
			break;
		}
		wr_id = wqe->wr_id;
		queue_advance_consumer(q);
		spin_unlock_irqrestore(&qp->rq.consumer_lock, flags);
		resp_flush_one(qp, wr_id);
	}
}

/* ---- checks ---- */

/* SEND or WRITE if a multi-packet message is under way, else 0. */
static u32 resp_msg_in_progress(struct rxe_qp *qp)
{
	u32 mask;

	if (qp->resp.opcode < 0 || qp->resp.opcode >= RXE_NUM_OPCODE)
		return 0;
	mask = rxe_opcode[qp->resp.opcode].mask;
	if (mask & RXE_END_MASK)
		return 0;
	return mask & RXE_WRITE_OR_SEND_MASK;
}

/* FIRST / MIDDLE / LAST must follow each other (IBA 9.8.3.1). */
static enum resp_rc resp_check_op_seq(struct rxe_qp *qp,
				      struct rxe_pkt_info *pkt)
{
	u32 cur = resp_msg_in_progress(qp);

	if (!cur)
		return (pkt->mask & RXE_START_MASK) ? RESP_OK :
						      RESP_ERR_INV_REQ;
	if ((pkt->mask & cur) && !(pkt->mask & RXE_START_MASK))
		return RESP_OK;
	/* UC: a lost LAST; the new message replaces the partial one */
	if (qp_type(qp) == IB_QPT_UC && (pkt->mask & RXE_START_MASK)) {
		resp_abort_msg(qp);
		return RESP_OK;
	}
	return RESP_ERR_INV_REQ;
}

/* The QP must allow the remote operation. */
static enum resp_rc resp_check_access(struct rxe_qp *qp,
				      struct rxe_pkt_info *pkt)
{
	int acc = qp->attr.qp_access_flags;

	if ((pkt->mask & RXE_WRITE_MASK) && !(acc & IB_ACCESS_REMOTE_WRITE))
		return RESP_ERR_INV_REQ;
	if ((pkt->mask & RXE_READ_MASK) && !(acc & IB_ACCESS_REMOTE_READ))
		return RESP_ERR_INV_REQ;
	if ((pkt->mask & RXE_ATOMIC_MASK) && !(acc & IB_ACCESS_REMOTE_ATOMIC))
		return RESP_ERR_INV_REQ;
	return RESP_OK;
}

/* Payload sizes of RC/UC segments: full MTU except in the last one. */
static enum resp_rc resp_check_seg_len(struct rxe_qp *qp,
				       struct rxe_pkt_info *pkt)
{
	unsigned int mtu = resp_mtu(qp);
	size_t len = payload_size(pkt);

	if (qp_type(qp) != IB_QPT_RC && qp_type(qp) != IB_QPT_UC)
		return RESP_OK;
	if (!(pkt->mask & RXE_PAYLOAD_MASK))
		return RESP_OK;
	if ((pkt->mask & RXE_START_MASK) && (pkt->mask & RXE_END_MASK))
		return len <= mtu ? RESP_OK : RESP_ERR_LEN;
	if (pkt->mask & RXE_END_MASK)
		return len && len <= mtu ? RESP_OK : RESP_ERR_LEN;
	return len == mtu ? RESP_OK : RESP_ERR_LEN;
}

/* ---- execution ---- */

/*
 * The 40 bytes in front of a UD message: the GRH of a RoCE v1 frame, the
 * IPv6 header, or the IPv4 header in the last 20 bytes (IBA A17.4.5.1).
 */
static void resp_net_hdr(struct sk_buff *skb, u8 *hdr)
{
	if (skb->protocol == htons(ETH_P_SIB)) {
		sib_rx_net_hdr(skb, hdr);
		return;
	}
	memset(hdr, 0, RXE_GRH_BYTES);
	if (skb->protocol == htons(ETH_P_IBOE))
		memcpy(hdr, skb_network_header(skb), RXE_GRH_BYTES);
	else if (skb->protocol == htons(ETH_P_IP))
		memcpy(hdr + RXE_GRH_BYTES - sizeof(struct iphdr),
		       ip_hdr(skb), sizeof(struct iphdr));
	else
		memcpy(hdr, ipv6_hdr(skb), sizeof(struct ipv6hdr));
}

static enum resp_rc resp_copy_in(struct rxe_qp *qp, void *addr, int len)
{
	int err;

	err = copy_data(qp->pd, IB_ACCESS_LOCAL_WRITE, &qp->resp.wqe->dma,
			addr, len, RXE_TO_MR_OBJ);
	/*
	 * A message longer than the receive WQE counts as a bad WQE, as in
	 * stock rxe: REM_OP_ERR NAK, LOC_QP_OP_ERR receive completion.
	 */
	return err ? RESP_ERR_WQE : RESP_OK;
}

static enum resp_rc resp_do_send(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	u32 len = payload_size(pkt);
	bool ud = qp_type(qp) == IB_QPT_UD || qp_type(qp) == IB_QPT_GSI ||
		  qp_type(qp) == IB_QPT_SMI;
	enum resp_rc rc;

	if (ud) {
		u8 hdr[RXE_GRH_BYTES];

		if (qp->resp.wqe->dma.resid < RXE_GRH_BYTES + len)
			return RESP_ERR_LEN;
		resp_net_hdr(PKT_TO_SKB(pkt), hdr);
		rc = resp_copy_in(qp, hdr, RXE_GRH_BYTES);
		if (rc != RESP_OK)
			return rc;
	}
	return resp_copy_in(qp, payload_addr(pkt), len);
}

static enum resp_rc resp_do_write(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	u32 len = payload_size(pkt);
	u64 iova;

	if (pkt->mask & RXE_RETH_MASK) {
		qp->resp.rkey = reth_rkey(pkt);
		qp->resp.length = reth_len(pkt);
		qp->resp.resid = qp->resp.length;
		qp->resp.va = reth_va(pkt);
		if (qp->resp.mr) {
			rxe_put(qp->resp.mr);
			qp->resp.mr = NULL;
		}
		/* a zero-length write names no memory: the rkey is unused */
		if (qp->resp.length) {
			qp->resp.mr = resp_rkey_to_mr(qp, qp->resp.rkey,
						      qp->resp.va,
						      qp->resp.length,
						      IB_ACCESS_REMOTE_WRITE,
						      &iova);
			if (!qp->resp.mr)
				return RESP_ERR_ACCESS;
			qp->resp.va = iova;
		}
	}

	if (len > qp->resp.resid)
		return RESP_ERR_LEN;
	if ((pkt->mask & RXE_END_MASK) && len != qp->resp.resid)
		return RESP_ERR_LEN;
	if (len) {
		if (!qp->resp.mr ||
		    rxe_mr_copy(qp->resp.mr, qp->resp.va, payload_addr(pkt),
				len, RXE_TO_MR_OBJ))
			return RESP_ERR_ACCESS;
		qp->resp.va += len;
		qp->resp.resid -= len;
	}
	if ((pkt->mask & RXE_END_MASK) && qp->resp.mr) {
		rxe_put(qp->resp.mr);
		qp->resp.mr = NULL;
	}
	return RESP_OK;
}

/* Next slot of the read/atomic resource ring (the oldest is reused). */
static struct resp_res *resp_new_res(struct rxe_qp *qp, int type)
{
	unsigned int n = max_t(unsigned int, qp->attr.max_dest_rd_atomic, 1);
	struct resp_res *res;

	if (!qp->resp.resources)
		return NULL;
	if (qp->resp.res_head >= n)
		qp->resp.res_head = 0;
	res = &qp->resp.resources[qp->resp.res_head];
	qp->resp.res_head = (qp->resp.res_head + 1) % n;

	memset(res, 0, sizeof(*res));
	res->type = type;
	res->state = rdatm_res_state_new;
	return res;
}

/* The slot resp_new_res() handed out last. */
static struct resp_res *resp_last_res(struct rxe_qp *qp)
{
	unsigned int n = max_t(unsigned int, qp->attr.max_dest_rd_atomic, 1);

	return &qp->resp.resources[(qp->resp.res_head + n - 1) % n];
}

static u32 resp_read_npkts(struct rxe_qp *qp, u32 len)
{
	return len ? DIV_ROUND_UP(len, resp_mtu(qp)) : 1;
}

/* Accept an RDMA read: the responses go out from rxe_responder(). */
static enum resp_rc resp_do_read(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	u32 len = reth_len(pkt);
	struct resp_res *res;
	struct rxe_mr *mr;
	u64 iova;

	if (len > RXE_PORT_MAX_MSG_SZ)
		return RESP_ERR_INV_REQ;
	if (len) {
		/* checked now so a bad request is NAKed before any reply */
		mr = resp_rkey_to_mr(qp, reth_rkey(pkt), reth_va(pkt), len,
				     IB_ACCESS_REMOTE_READ, &iova);
		if (!mr)
			return RESP_ERR_ACCESS;
		rxe_put(mr);
	}

	res = resp_new_res(qp, RXE_READ_MASK);
	if (!res)
		return RESP_ERR_OP;
	res->read.va_org = reth_va(pkt);
	res->read.va = res->read.va_org;
	res->read.rkey = reth_rkey(pkt);
	res->read.length = len;
	res->read.resid = len;
	res->first_psn = pkt->psn;
	res->cur_psn = pkt->psn;
	res->last_psn = (pkt->psn + resp_read_npkts(qp, len) - 1) &
			BTH_PSN_MASK;
	qp->resp.res = res;
	return RESP_OK;
}

static enum resp_rc resp_do_atomic(struct rxe_qp *qp,
				   struct rxe_pkt_info *pkt)
{
	u64 va = atmeth_va(pkt);
	struct resp_res *res;
	unsigned long flags;
	struct rxe_mr *mr;
	u64 iova, orig;
	int err;

	if (va & (sizeof(u64) - 1))
		return RESP_ERR_INV_REQ;
	mr = resp_rkey_to_mr(qp, atmeth_rkey(pkt), va, sizeof(u64),
			     IB_ACCESS_REMOTE_ATOMIC, &iova);
	if (!mr)
		return RESP_ERR_ACCESS;

	res = resp_new_res(qp, RXE_ATOMIC_MASK);
	if (!res) {
		rxe_put(mr);
		return RESP_ERR_OP;
	}

	spin_lock_irqsave(&rxe_atomic_lock, flags);
	err = rxe_mr_do_atomic_op(mr, iova, pkt->opcode, atmeth_comp(pkt),
				  atmeth_swap_add(pkt), &orig);
	spin_unlock_irqrestore(&rxe_atomic_lock, flags);
	rxe_put(mr);
	if (err) {
		res->type = 0;	/* nothing to replay */
		return err == -EINVAL ? RESP_ERR_INV_REQ : RESP_ERR_ACCESS;
	}

	res->atomic.orig_val = orig;
	res->first_psn = pkt->psn;
	res->last_psn = pkt->psn;
	res->cur_psn = pkt->psn;
	return RESP_OK;
}

/* Send with invalidate: the named MR or MW becomes free. */
static enum resp_rc resp_do_invalidate(struct rxe_qp *qp, u32 rkey)
{
	int err;

	if (rxe_rkey_is_mw(rkey))
		err = rxe_invalidate_mw(qp, rkey);
	else
		err = rxe_invalidate_mr(qp, rkey);
	return err ? RESP_ERR_INVAL_RKEY : RESP_OK;
}

/* ---- RDMA read responses ---- */

/*
 * Send the next response packet of qp->resp.res. Returns 1 when the
 * response is complete, 0 when more packets follow, <0 on an error (the
 * QP has been moved to the error state).
 */
static int resp_read_reply(struct rxe_qp *qp)
{
	struct resp_res *res = qp->resp.res;
	unsigned int mtu = resp_mtu(qp);
	struct rxe_pkt_info ack;
	struct rxe_mr *mr = NULL;
	struct sk_buff *skb;
	u32 len = min_t(u32, res->read.resid, mtu);
	bool last = res->read.resid <= mtu;
	u8 opcode;
	u64 iova;
	int err;

	if (res->state == rdatm_res_state_new)
		opcode = last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY :
				IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST;
	else
		opcode = last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST :
				IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE;

	/* looked up per packet: the key may be invalidated meanwhile */
	if (len) {
		mr = resp_rkey_to_mr(qp, res->read.rkey, res->read.va, len,
				     IB_ACCESS_REMOTE_READ, &iova);
		if (!mr)
			goto err_access;
	}

	skb = resp_new_pkt(qp, &ack, opcode, len, res->cur_psn,
			   AETH_ACK_UNLIMITED);
	if (!skb) {
		/* out of memory: try again on the next run */
		if (mr)
			rxe_put(mr);
		return 0;
	}
	if (mr) {
		err = rxe_mr_copy(mr, iova, payload_addr(&ack), len,
				  RXE_FROM_MR_OBJ);
		rxe_put(mr);
		if (err) {
			kfree_skb(skb);
			goto err_access;
		}
	}
	resp_send_pkt(qp, &ack, skb);

	res->state = rdatm_res_state_next;
	res->read.va += len;
	res->read.resid -= len;
	res->cur_psn = (res->cur_psn + 1) & BTH_PSN_MASK;
	if (!last)
		return 0;
	qp->resp.res = NULL;
	return 1;

err_access:
	resp_send_ack(qp, AETH_NAK_REM_ACC_ERR, res->cur_psn);
	qp->resp.res = NULL;
	rxe_qp_error(qp);
	return -EACCES;
}

/* ---- duplicates (RC) ---- */

static struct resp_res *resp_find_res(struct rxe_qp *qp, u32 psn, int type)
{
	unsigned int n = max_t(unsigned int, qp->attr.max_dest_rd_atomic, 1);
	struct resp_res *res;
	unsigned int i;

	if (!qp->resp.resources)
		return NULL;
	for (i = 0; i < n; i++) {
		res = &qp->resp.resources[i];
		if (res->type != type)
			continue;
		if (psn_compare(psn, res->first_psn) >= 0 &&
		    psn_compare(psn, res->last_psn) <= 0)
			return res;
	}
	return NULL;
}

/*
 * An old request again (its ACK or response was lost). Returns true if
 * the packet is done with, false if a read response replay is under way.
 */
static bool resp_duplicate(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	struct resp_res *res;
	u32 off;

	rxe_counter_inc(rxe_from_qp(qp), RXE_CNT_DUP_REQ);

	if (pkt->mask & RXE_WRITE_OR_SEND_MASK) {
		/* acknowledge everything up to the last PSN executed */
		resp_send_ack(qp, AETH_ACK_UNLIMITED,
			      (qp->resp.psn - 1) & BTH_PSN_MASK);
		return true;
	}

	if (pkt->mask & RXE_ATOMIC_MASK) {
		res = resp_find_res(qp, pkt->psn, RXE_ATOMIC_MASK);
		/* replay the result; never execute an atomic twice */
		if (res)
			resp_send_atomic_ack(qp, pkt->psn,
					     res->atomic.orig_val);
		return true;
	}

	if (!(pkt->mask & RXE_READ_MASK))
		return true;
	res = resp_find_res(qp, pkt->psn, RXE_READ_MASK);
	if (!res)
		return true;

	/* restart at the requested PSN, which may be inside the response */
	off = ((pkt->psn - res->first_psn) & BTH_PSN_MASK) * resp_mtu(qp);
	if (off > res->read.length)
		return true;
	res->replay = 1;
	res->state = rdatm_res_state_new;
	res->cur_psn = pkt->psn;
	res->read.va = res->read.va_org + off;
	res->read.resid = res->read.length - off;
	qp->resp.res = res;
	return false;
}

/* ---- errors ---- */

/*
 * A request the responder cannot carry out. RC: NAK it and move the QP to
 * error (the receive in progress, if any, completes with @status); UC and
 * UD drop the message.
 */
static void resp_error(struct rxe_qp *qp, struct rxe_pkt_info *pkt,
		       enum resp_rc rc)
{
	bool rc_qp = qp_type(qp) == IB_QPT_RC;
	enum ib_wc_status status;
	u8 syndrome;

	switch (rc) {
	case RESP_ERR_ACCESS:
		syndrome = AETH_NAK_REM_ACC_ERR;
		status = IB_WC_REM_ACCESS_ERR;
		break;
	case RESP_ERR_LEN:
		syndrome = AETH_NAK_INVALID_REQ;
		status = IB_WC_LOC_LEN_ERR;
		break;
	case RESP_ERR_WQE:
		/* a bad receive WQE is fatal for every QP type */
		syndrome = AETH_NAK_REM_OP_ERR;
		status = IB_WC_LOC_QP_OP_ERR;
		goto fatal;
	case RESP_ERR_OP:
		syndrome = AETH_NAK_REM_OP_ERR;
		status = IB_WC_REM_OP_ERR;
		break;
	case RESP_ERR_INVAL_RKEY:
	case RESP_ERR_INV_REQ:
	default:
		syndrome = AETH_NAK_INVALID_REQ;
		status = IB_WC_REM_INV_REQ_ERR;
		break;
	}

	if (!rc_qp) {
		qp->resp.drop_msg = 1;
		resp_abort_msg(qp);
		return;
	}
fatal:
	if (rc_qp)
		resp_send_ack(qp, syndrome, pkt->psn);
	if (qp->resp.wqe)
		resp_complete(qp, pkt, status);
	if (qp->resp.mr) {
		rxe_put(qp->resp.mr);
		qp->resp.mr = NULL;
	}
	rxe_qp_error(qp);
}

/* ---- one request packet ---- */

/* PortCounters.VL15Dropped's source (the PMA saturates it). */
static void resp_count_vl15_drop(struct rxe_dev *rxe)
{
	if (rxe->sib)
		atomic64_inc(&rxe->sib->ctr.vl15_dropped);
}

static enum resp_rc resp_execute(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	enum resp_rc rc;

	rc = resp_check_op_seq(qp, pkt);
	if (rc == RESP_OK)
		rc = resp_check_access(qp, pkt);
	if (rc == RESP_OK)
		rc = resp_check_seg_len(qp, pkt);
	if (rc != RESP_OK)
		return rc;

	if ((pkt->mask & RXE_RWR_MASK) && !qp->resp.wqe &&
	    !resp_get_wqe(qp))
		return RESP_RNR;

	if (pkt->mask & RXE_SEND_MASK)
		rc = resp_do_send(qp, pkt);
	else if (pkt->mask & RXE_WRITE_MASK)
		rc = resp_do_write(qp, pkt);
	else if (pkt->mask & RXE_READ_MASK)
		rc = resp_do_read(qp, pkt);
	else if (pkt->mask & RXE_ATOMIC_MASK)
		rc = resp_do_atomic(qp, pkt);
	else
		rc = RESP_ERR_INV_REQ;
	if (rc != RESP_OK)
		return rc;

	if (pkt->mask & RXE_IETH_MASK)
		rc = resp_do_invalidate(qp, ieth_rkey(pkt));
	return rc;
}

/*
 * Process the request at the head of the queue. Returns true when the
 * packet is finished with, false if it must stay (read reply running).
 */
static bool resp_one(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	enum ib_qp_type type = qp_type(qp);
	enum resp_rc rc;
	int diff;

	switch (type) {
	case IB_QPT_RC:
		diff = psn_compare(pkt->psn, qp->resp.psn);
		if (diff > 0) {
			/*
			 * a gap: NAK once, then wait for the retry; the
			 * counter counts NAKs (stock rxe), not the drops
			 */
			if (!qp->resp.sent_psn_nak) {
				rxe_counter_inc(rxe_from_qp(qp),
						RXE_CNT_OUT_OF_SEQ_REQ);
				qp->resp.sent_psn_nak = 1;
				resp_send_ack(qp, AETH_NAK_PSN_SEQ_ERROR,
					      qp->resp.psn);
			}
			return true;
		}
		if (diff < 0)
			return resp_duplicate(qp, pkt);
		qp->resp.sent_psn_nak = 0;
		break;
	case IB_QPT_UC:
		/* after a gap, wait for the start of a new message */
		if (qp->resp.drop_msg || pkt->psn != qp->resp.psn) {
			if (!(pkt->mask & RXE_START_MASK)) {
				if (!qp->resp.drop_msg) {
					qp->resp.drop_msg = 1;
					resp_abort_msg(qp);
				}
				return true;
			}
			qp->resp.drop_msg = 0;
		}
		break;
	default:
		break;
	}

	rc = resp_execute(qp, pkt);
	if (rc == RESP_RNR) {
		/* VL15 has no flow control: the SMP is lost and counted */
		if (type == IB_QPT_SMI)
			resp_count_vl15_drop(rxe_from_qp(qp));
		if (type == IB_QPT_RC) {
			rxe_counter_inc(rxe_from_qp(qp), RXE_CNT_SND_RNR);
			resp_send_ack(qp, AETH_RNR_NAK |
				      (qp->attr.min_rnr_timer & AETH_CODE_MASK),
				      pkt->psn);
		}
		return true;
	}
	if (rc != RESP_OK) {
		resp_error(qp, pkt, rc);
		return true;
	}

	/* accepted: advance the sequence */
	qp->resp.opcode = pkt->opcode;
	if (pkt->mask & RXE_READ_MASK) {
		qp->resp.psn = (qp->resp.res->last_psn + 1) & BTH_PSN_MASK;
		qp->resp.ack_psn = qp->resp.res->last_psn;
	} else {
		qp->resp.psn = (pkt->psn + 1) & BTH_PSN_MASK;
		qp->resp.ack_psn = pkt->psn;
	}
	if (pkt->mask & RXE_END_MASK)
		qp->resp.msn = (qp->resp.msn + 1) & AETH_MSN_MASK;

	/* CQ overflow (IBA class G): no ACK, the QP goes to error */
	if ((pkt->mask & RXE_COMP_MASK) &&
	    resp_complete(qp, pkt, IB_WC_SUCCESS)) {
		rxe_qp_error(qp);
		return true;
	}

	if (type != IB_QPT_RC)
		return true;
	if (pkt->mask & RXE_ATOMIC_MASK) {
		struct resp_res *res = resp_last_res(qp);

		resp_send_atomic_ack(qp, pkt->psn, res->atomic.orig_val);
		return true;
	}
	if (pkt->mask & RXE_READ_MASK)
		return resp_read_reply(qp) != 0;
	if (bth_ack(pkt))
		resp_send_ack(qp, AETH_ACK_UNLIMITED, pkt->psn);
	return true;
}

/* The resp task. 0: more to do; non-zero: idle. */
int rxe_responder(struct rxe_qp *qp)
{
	struct sk_buff *skb;

	switch (READ_ONCE(qp->resp.state)) {
	case QP_STATE_READY:
		break;
	case QP_STATE_ERROR:
		resp_flush(qp);
		return -EAGAIN;
	default:
		/* RESET/INIT: nothing may be received; rxe_qp.c cleans up */
		while ((skb = skb_dequeue(&qp->req_pkts)))
			resp_free_pkt(skb);
		return -EAGAIN;
	}

	skb = skb_peek(&qp->req_pkts);
	if (!skb) {
		/* a read reply whose request is gone cannot continue */
		qp->resp.res = NULL;
		return -EAGAIN;
	}

	if (qp->resp.res) {
		/* a read response (or its replay) is being sent */
		if (rxe_xmit_throttled(qp, &qp->need_resp_skb))
			return -EAGAIN;
		if (resp_read_reply(qp) == 0)
			return 0;
	} else if (!resp_one(qp, SKB_TO_PKT(skb))) {
		return 0;
	}

	/* the state may have changed under us (error, reset): recheck */
	if (skb_peek(&qp->req_pkts) == skb) {
		skb_unlink(skb, &qp->req_pkts);
		resp_free_pkt(skb);
	}
	return 0;
}
