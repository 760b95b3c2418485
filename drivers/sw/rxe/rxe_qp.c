// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe queue pairs: creation (queues, tasks, timers), attribute checks
 * and state transitions, lookup by QPN, teardown.
 */
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include "rxe.h"

/* UDP source ports of RoCE v2 flows: 0xc000 | 14-bit hash of the QPN. */
#define RXE_ROCE_V2_SPORT	0xc000
#define RXE_SPORT_HASH_BITS	14

/* Inline data fits in the space of the largest SGE list. */
#define RXE_MAX_INLINE_DATA	(RXE_MAX_SGE * sizeof(struct rxe_sge))

static int rxe_qp_chk_cap(struct rxe_dev *rxe, struct ib_qp_cap *cap,
			  bool has_srq)
{
	if (cap->max_send_wr > rxe->attr.max_qp_wr ||
	    cap->max_send_sge > rxe->attr.max_send_sge ||
	    cap->max_inline_data > RXE_MAX_INLINE_DATA)
		return -EINVAL;

	if (!has_srq && (cap->max_recv_wr > rxe->attr.max_qp_wr ||
			 cap->max_recv_sge > rxe->attr.max_recv_sge))
		return -EINVAL;

	return 0;
}

int rxe_qp_chk_init(struct rxe_dev *rxe, struct ib_qp_init_attr *init)
{
	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		if (init->port_num != 1)
			return -EINVAL;
		/* one QP1 per port */
		if (READ_ONCE(rxe->qp_gsi_index))
			return -EINVAL;
		break;
	case IB_QPT_SMI:
		/* QP0 exists on an InfiniBand port only, once */
		if (!rxe->sib)
			return -EOPNOTSUPP;
		if (init->port_num != 1 || READ_ONCE(rxe->qp_smi_index))
			return -EINVAL;
		break;
	default:
		/* no SMI on RoCE; XRC and raw types are not supported */
		return -EOPNOTSUPP;
	}

	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;

	if (init->create_flags)
		return -EOPNOTSUPP;

	return rxe_qp_chk_cap(rxe, &init->cap, !!init->srq);
}

static void rxe_qp_set_src_port(struct rxe_qp *qp)
{
	qp->src_port = RXE_ROCE_V2_SPORT |
		       hash_32(qp_num(qp), RXE_SPORT_HASH_BITS);
}

static int rxe_qp_init_sq(struct rxe_dev *rxe, struct rxe_qp *qp,
			  struct ib_qp_init_attr *init,
			  struct rxe_create_qp_resp __user *uresp,
			  struct ib_udata *udata)
{
	unsigned int payload;
	int num = init->cap.max_send_wr;
	int err;

	/* one WQE slot holds either the SGE list or the inline bytes */
	payload = max_t(unsigned int,
			init->cap.max_send_sge * sizeof(struct rxe_sge),
			init->cap.max_inline_data);
	qp->sq.max_sge = payload / sizeof(struct rxe_sge);
	qp->sq.max_inline = payload;
	init->cap.max_send_sge = qp->sq.max_sge;
	init->cap.max_inline_data = qp->sq.max_inline;

	qp->sq.queue = rxe_queue_init(rxe, &num,
				      sizeof(struct rxe_send_wqe) + payload,
				      udata ? QUEUE_TYPE_FROM_CLIENT :
					      QUEUE_TYPE_KERNEL);
	if (!qp->sq.queue)
		return -ENOMEM;
	/* The answer keeps the depth asked for, as the stock rxe's does. */
	qp->sq.max_wr = num;

	if (udata) {
		err = rxe_queue_do_mmap_info(rxe, udata, &uresp->sq_mi,
					     qp->sq.queue);
		if (err)
			return err;
	}

	spin_lock_init(&qp->sq.sq_lock);
	qp->req.wqe_index = qp->sq.queue->cons;
	qp->req.state = QP_STATE_RESET;
	qp->req.opcode = -1;
	qp->comp.state = QP_STATE_RESET;
	qp->comp.opcode = -1;
	atomic_set(&qp->ssn, 0);
	atomic_set(&qp->skb_out, 0);
	skb_queue_head_init(&qp->resp_pkts);

	rxe_init_task(&qp->req.task, qp, rxe_requester, "req");
	rxe_init_task(&qp->comp.task, qp, rxe_completer, "comp");
	return 0;
}

static int rxe_qp_init_rq(struct rxe_dev *rxe, struct rxe_qp *qp,
			  struct ib_qp_init_attr *init,
			  struct rxe_create_qp_resp __user *uresp,
			  struct ib_udata *udata)
{
	int num = init->cap.max_recv_wr;
	int err;

	spin_lock_init(&qp->rq.producer_lock);
	spin_lock_init(&qp->rq.consumer_lock);
	skb_queue_head_init(&qp->req_pkts);
	qp->resp.state = QP_STATE_RESET;
	qp->resp.opcode = -1;
	rxe_init_task(&qp->resp.task, qp, rxe_responder, "resp");

	/* receives come from the SRQ: no RQ, nothing to mmap */
	if (qp->srq)
		return 0;

	qp->rq.max_sge = init->cap.max_recv_sge;
	qp->rq.queue = rxe_queue_init(rxe, &num,
				      sizeof(struct rxe_recv_wqe) +
				      qp->rq.max_sge * sizeof(struct rxe_sge),
				      udata ? QUEUE_TYPE_FROM_CLIENT :
					      QUEUE_TYPE_KERNEL);
	if (!qp->rq.queue)
		return -ENOMEM;
	qp->rq.max_wr = num;

	if (udata) {
		err = rxe_queue_do_mmap_info(rxe, udata, &uresp->rq_mi,
					     qp->rq.queue);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Called after rxe_add_to_pool() on a zeroed QP. On failure the caller
 * runs rxe_cleanup(qp), whose hook (rxe_qp_cleanup) undoes whatever was
 * set up here, so every reference is recorded as soon as it is taken.
 */
int rxe_qp_from_init(struct rxe_dev *rxe, struct rxe_qp *qp,
		     struct rxe_pd *pd, struct ib_qp_init_attr *init,
		     struct rxe_create_qp_resp __user *uresp,
		     struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct rxe_cq *scq = to_rcq(init->send_cq);
	struct rxe_cq *rcq = to_rcq(init->recv_cq);
	struct rxe_srq *srq = to_rsrq(init->srq);
	int err;

	spin_lock_init(&qp->state_lock);
	timer_setup(&qp->retrans_timer, retransmit_timer, 0);
	timer_setup(&qp->rnr_nak_timer, rnr_nak_timer, 0);
	atomic_set(&qp->mcg_num, 0);
	qp->is_user = !!udata;

	rxe_get(pd);
	qp->pd = pd;
	rxe_get(scq);
	atomic_inc(&scq->num_wq);
	qp->scq = scq;
	rxe_get(rcq);
	atomic_inc(&rcq->num_wq);
	qp->rcq = rcq;
	if (srq) {
		rxe_get(srq);
		qp->srq = srq;
	}

	qp->sq_sig_type = init->sq_sig_type;
	qp->attr.path_mtu = IB_MTU_256;
	qp->mtu = ib_mtu_enum_to_int(IB_MTU_256);
	if (init->qp_type == IB_QPT_UD || init->qp_type == IB_QPT_GSI ||
	    init->qp_type == IB_QPT_SMI)
		qp->mtu = ib_mtu_enum_to_int(rxe->port.attr.active_mtu);

	if (init->qp_type == IB_QPT_GSI) {
		qp->ibqp.qp_num = 1;
		qp->attr.port_num = init->port_num;
		/* the receive path maps QPN 1 to this pool index */
		WRITE_ONCE(rxe->qp_gsi_index, qp->elem.index);
	} else if (init->qp_type == IB_QPT_SMI) {
		qp->ibqp.qp_num = 0;
		qp->attr.port_num = init->port_num;
		WRITE_ONCE(rxe->qp_smi_index, qp->elem.index);
	} else {
		qp->ibqp.qp_num = qp->elem.index;
	}
	rxe_qp_set_src_port(qp);

	err = rxe_qp_init_sq(rxe, qp, init, uresp, udata);
	if (err)
		return err;
	err = rxe_qp_init_rq(rxe, qp, init, uresp, udata);
	if (err)
		return err;

	qp->attr.qp_state = IB_QPS_RESET;
	qp->valid = 1;
	return 0;
}

int rxe_qp_to_init(struct rxe_qp *qp, struct ib_qp_init_attr *init)
{
	init->event_handler = qp->ibqp.event_handler;
	init->qp_context = qp->ibqp.qp_context;
	init->send_cq = qp->ibqp.send_cq;
	init->recv_cq = qp->ibqp.recv_cq;
	init->srq = qp->ibqp.srq;
	init->qp_type = qp_type(qp);
	init->sq_sig_type = qp->sq_sig_type;
	init->port_num = qp->attr.port_num;

	init->cap.max_send_wr = qp->sq.max_wr;
	init->cap.max_send_sge = qp->sq.max_sge;
	init->cap.max_inline_data = qp->sq.max_inline;
	if (qp->srq) {
		init->cap.max_recv_wr = 0;
		init->cap.max_recv_sge = 0;
	} else {
		init->cap.max_recv_wr = qp->rq.max_wr;
		init->cap.max_recv_sge = qp->rq.max_sge;
	}
	return 0;
}

int rxe_qp_chk_attr(struct rxe_dev *rxe, struct rxe_qp *qp,
		    struct ib_qp_attr *attr, int mask)
{
	enum ib_qp_state cur_state, new_state;

	cur_state = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state :
					       qp_state(qp);
	new_state = (mask & IB_QP_STATE) ? attr->qp_state : cur_state;

	if (!ib_modify_qp_is_ok(cur_state, new_state, qp_type(qp), mask))
		return -EINVAL;

	/* IB_QPS_SQD -> IB_QPS_SQD with path changes needs a drained SQ */
	if ((mask & IB_QP_STATE) && cur_state == IB_QPS_SQD &&
	    new_state == IB_QPS_SQD && qp->req.state == QP_STATE_DRAIN)
		return -EINVAL;

	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;

	if ((mask & IB_QP_CAP) &&
	    rxe_qp_chk_cap(rxe, &attr->cap, !!qp->srq))
		return -EINVAL;

	if (mask & IB_QP_AV) {
		if (rxe_av_chk_attr(qp, &attr->ah_attr))
			return -EINVAL;
	}

	if (mask & IB_QP_ALT_PATH) {
		if (rxe_av_chk_attr(qp, &attr->alt_ah_attr))
			return -EINVAL;
		if (attr->alt_port_num != 1)
			return -EINVAL;
		if (attr->alt_timeout > 31)
			return -EINVAL;
	}

	/* as stock rxe: no larger than what the netdev MTU carries now */
	if (mask & IB_QP_PATH_MTU) {
		if (attr->path_mtu < IB_MTU_256 ||
		    attr->path_mtu > READ_ONCE(rxe->port.attr.active_mtu))
			return -EINVAL;
	}

	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > RXE_MAX_QP_RD_ATOM)
		return -EINVAL;

	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > RXE_MAX_QP_RD_ATOM)
		return -EINVAL;

	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;

	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;

	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;

	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;

	if ((mask & IB_QP_PKEY_INDEX) &&
	    attr->pkey_index >= rxe->port.attr.pkey_tbl_len)
		return -EINVAL;

	return 0;
}

static void rxe_qp_drop_queue(struct sk_buff_head *q)
{
	struct rxe_pkt_info *pkt;
	struct sk_buff *skb;

	while ((skb = skb_dequeue(q))) {
		pkt = SKB_TO_PKT(skb);
		if (pkt->qp)
			rxe_qp_put(pkt->qp);
		kfree_skb(skb);
	}
}

/* Drop queued packets; each holds a reference on the QP (rxe_rcv). */
static void rxe_qp_drop_pkts(struct rxe_qp *qp)
{
	rxe_qp_drop_queue(&qp->req_pkts);
	rxe_qp_drop_queue(&qp->resp_pkts);
}

static void rxe_qp_release_resp_state(struct rxe_qp *qp)
{
	unsigned int n = max_t(unsigned int, qp->attr.max_dest_rd_atomic, 1);

	if (qp->resp.mr) {
		rxe_put(qp->resp.mr);
		qp->resp.mr = NULL;
	}
	qp->resp.wqe = NULL;
	qp->resp.res = NULL;
	qp->resp.res_head = 0;
	qp->resp.res_tail = 0;
	if (qp->resp.resources)
		memset(qp->resp.resources, 0, n * sizeof(struct resp_res));
}

/* Kernel rings only: userspace owns its producer index. */
static void rxe_queue_reset_kernel(struct rxe_queue *q)
{
	if (!q || q->type != QUEUE_TYPE_KERNEL)
		return;
	q->prod = 0;
	q->cons = 0;
	smp_store_release(&q->buf->producer_index, 0);
	smp_store_release(&q->buf->consumer_index, 0);
}

/* Any state -> RESET: stop everything and forget all progress. */
static void rxe_qp_reset(struct rxe_qp *qp)
{
	unsigned long flags;

	rxe_disable_task(&qp->req.task);
	rxe_disable_task(&qp->comp.task);
	rxe_disable_task(&qp->resp.task);
	del_timer_sync(&qp->retrans_timer);
	del_timer_sync(&qp->rnr_nak_timer);

	spin_lock_irqsave(&qp->state_lock, flags);
	qp->attr.qp_state = IB_QPS_RESET;
	qp->req.state = QP_STATE_RESET;
	qp->comp.state = QP_STATE_RESET;
	qp->resp.state = QP_STATE_RESET;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	rxe_qp_drop_pkts(qp);

	spin_lock_irqsave(&qp->sq.sq_lock, flags);
	rxe_queue_reset_kernel(qp->sq.queue);
	spin_unlock_irqrestore(&qp->sq.sq_lock, flags);
	if (qp->rq.queue) {
		spin_lock_irqsave(&qp->rq.producer_lock, flags);
		spin_lock(&qp->rq.consumer_lock);
		rxe_queue_reset_kernel(qp->rq.queue);
		spin_unlock(&qp->rq.consumer_lock);
		spin_unlock_irqrestore(&qp->rq.producer_lock, flags);
	}

	qp->req.wqe_index = qp->sq.queue->cons;
	qp->req.opcode = -1;
	qp->req.wait_fence = 0;
	qp->req.need_rd_atomic = 0;
	qp->req.wait_psn = 0;
	qp->req.need_retry = 0;
	qp->req.wait_for_rnr_timer = 0;
	qp->req.noack_pkts = 0;
	qp->comp.opcode = -1;
	qp->comp.timeout = 0;
	qp->comp.timeout_retry = 0;
	qp->comp.started_retry = 0;
	qp->resp.opcode = -1;
	qp->resp.msn = 0;
	qp->resp.drop_msg = 0;
	qp->resp.goto_error = 0;
	qp->resp.sent_psn_nak = 0;
	qp->resp.status = IB_WC_SUCCESS;
	qp->resp.aeth_syndrome = 0;
	rxe_qp_release_resp_state(qp);
	atomic_set(&qp->ssn, 0);
	qp->need_req_skb = 0;
	qp->need_resp_skb = 0;

	rxe_enable_task(&qp->resp.task);
	rxe_enable_task(&qp->comp.task);
	rxe_enable_task(&qp->req.task);
}

/* Replace the responder's read/atomic resource ring (n may be 0). */
static int rxe_qp_alloc_resources(struct rxe_qp *qp, unsigned int n)
{
	struct resp_res *res;

	/* keep replay state of a live QP when nothing changes */
	if (qp->resp.resources && n == qp->attr.max_dest_rd_atomic)
		return 0;

	/* at least one slot, so the responder never indexes an empty ring */
	res = kcalloc(max_t(unsigned int, n, 1), sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;

	rxe_disable_task(&qp->resp.task);
	kfree(qp->resp.resources);
	qp->resp.resources = res;
	qp->attr.max_dest_rd_atomic = n;
	qp->resp.res = NULL;
	qp->resp.res_head = 0;
	qp->resp.res_tail = 0;
	rxe_enable_task(&qp->resp.task);
	return 0;
}

/* 4.096 us * 2^timeout, in jiffies; timeout 0 means no timer. */
static u64 rxe_qp_timeout_jiffies(u8 timeout)
{
	unsigned long j;

	if (!timeout)
		return 0;
	j = nsecs_to_jiffies(4096ULL << timeout);
	return j ? j : 1;
}

int rxe_qp_from_attr(struct rxe_qp *qp, struct ib_qp_attr *attr, int mask,
		     struct ib_udata *udata)
{
	enum ib_qp_state new_state;
	unsigned long flags;
	int err;

	if (mask & IB_QP_MAX_DEST_RD_ATOMIC) {
		err = rxe_qp_alloc_resources(qp, attr->max_dest_rd_atomic);
		if (err)
			return err;
	}

	if (mask & IB_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		qp->attr.pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		qp->attr.port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		qp->attr.qkey = attr->qkey;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		qp->attr.en_sqd_async_notify = attr->en_sqd_async_notify;

	if (mask & IB_QP_AV) {
		rxe_av_from_attr(1, &qp->pri_av, &attr->ah_attr);
		rxe_av_fill_ip_info(&qp->pri_av, &attr->ah_attr);
	}
	if (mask & IB_QP_ALT_PATH) {
		rxe_av_from_attr(attr->alt_port_num, &qp->alt_av,
				 &attr->alt_ah_attr);
		rxe_av_fill_ip_info(&qp->alt_av, &attr->alt_ah_attr);
		qp->attr.alt_port_num = attr->alt_port_num;
		qp->attr.alt_pkey_index = attr->alt_pkey_index;
		qp->attr.alt_timeout = attr->alt_timeout;
	}

	if (mask & IB_QP_PATH_MTU) {
		qp->attr.path_mtu = attr->path_mtu;
		qp->mtu = ib_mtu_enum_to_int(attr->path_mtu);
	}
	if (mask & IB_QP_TIMEOUT) {
		qp->attr.timeout = attr->timeout;
		qp->qp_timeout_jiffies = rxe_qp_timeout_jiffies(attr->timeout);
	}
	if (mask & IB_QP_RETRY_CNT) {
		qp->attr.retry_cnt = attr->retry_cnt;
		qp->comp.retry_cnt = attr->retry_cnt;
	}
	if (mask & IB_QP_RNR_RETRY) {
		qp->attr.rnr_retry = attr->rnr_retry;
		qp->comp.rnr_retry = attr->rnr_retry;
	}
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_RQ_PSN) {
		qp->attr.rq_psn = attr->rq_psn & BTH_PSN_MASK;
		qp->resp.psn = qp->attr.rq_psn;
	}
	if (mask & IB_QP_SQ_PSN) {
		qp->attr.sq_psn = attr->sq_psn & BTH_PSN_MASK;
		qp->req.psn = qp->attr.sq_psn;
		qp->comp.psn = qp->attr.sq_psn;
	}
	if (mask & IB_QP_MAX_QP_RD_ATOMIC) {
		qp->attr.max_rd_atomic = attr->max_rd_atomic;
		atomic_set(&qp->req.rd_atomic, attr->max_rd_atomic);
	}
	if (mask & IB_QP_PATH_MIG_STATE)
		qp->attr.path_mig_state = attr->path_mig_state;
	if (mask & IB_QP_DEST_QPN)
		qp->attr.dest_qp_num = attr->dest_qp_num;

	if (!(mask & IB_QP_STATE))
		return 0;

	new_state = attr->qp_state;
	switch (new_state) {
	case IB_QPS_RESET:
		rxe_qp_reset(qp);
		break;

	case IB_QPS_INIT:
		spin_lock_irqsave(&qp->state_lock, flags);
		qp->attr.qp_state = IB_QPS_INIT;
		qp->req.state = QP_STATE_INIT;
		qp->comp.state = QP_STATE_INIT;
		qp->resp.state = QP_STATE_INIT;
		spin_unlock_irqrestore(&qp->state_lock, flags);
		break;

	case IB_QPS_RTR:
		spin_lock_irqsave(&qp->state_lock, flags);
		qp->attr.qp_state = IB_QPS_RTR;
		qp->resp.state = QP_STATE_READY;
		spin_unlock_irqrestore(&qp->state_lock, flags);
		break;

	case IB_QPS_RTS:
		spin_lock_irqsave(&qp->state_lock, flags);
		qp->attr.qp_state = IB_QPS_RTS;
		qp->req.state = QP_STATE_READY;
		qp->comp.state = QP_STATE_READY;
		/* RTR was skipped only for UD-like QPs; be ready anyway */
		qp->resp.state = QP_STATE_READY;
		spin_unlock_irqrestore(&qp->state_lock, flags);
		/* resume a drained SQ or pick up WQEs posted meanwhile */
		rxe_sched_task(&qp->req.task);
		break;

	case IB_QPS_SQD:
		spin_lock_irqsave(&qp->state_lock, flags);
		qp->attr.qp_state = IB_QPS_SQD;
		if (qp->req.state == QP_STATE_READY)
			qp->req.state = QP_STATE_DRAIN;
		spin_unlock_irqrestore(&qp->state_lock, flags);
		/* the requester notices the drain and raises SQ_DRAINED */
		rxe_sched_task(&qp->comp.task);
		rxe_sched_task(&qp->req.task);
		break;

	case IB_QPS_SQE:
		spin_lock_irqsave(&qp->state_lock, flags);
		qp->attr.qp_state = IB_QPS_SQE;
		spin_unlock_irqrestore(&qp->state_lock, flags);
		break;

	case IB_QPS_ERR:
		rxe_qp_error(qp);
		break;

	default:
		return -EINVAL;
	}
	return 0;
}

int rxe_qp_to_attr(struct rxe_qp *qp, struct ib_qp_attr *attr, int mask)
{
	unsigned long flags;

	*attr = qp->attr;
	attr->ah_attr = (struct rdma_ah_attr){};
	attr->alt_ah_attr = (struct rdma_ah_attr){};

	spin_lock_irqsave(&qp->state_lock, flags);
	attr->qp_state = qp->attr.qp_state;
	attr->sq_draining = qp->attr.qp_state == IB_QPS_SQD &&
			    qp->req.state == QP_STATE_DRAIN;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	attr->cur_qp_state = attr->qp_state;

	attr->rq_psn = qp->attr.rq_psn;
	attr->sq_psn = qp->attr.sq_psn;

	attr->cap.max_send_wr = qp->sq.max_wr;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_inline_data = qp->sq.max_inline;
	if (qp->srq) {
		attr->cap.max_recv_wr = 0;
		attr->cap.max_recv_sge = 0;
	} else {
		attr->cap.max_recv_wr = qp->rq.max_wr;
		attr->cap.max_recv_sge = qp->rq.max_sge;
	}

	rxe_av_to_attr(&qp->pri_av, &attr->ah_attr);
	rxe_av_to_attr(&qp->alt_av, &attr->alt_ah_attr);
	return 0;
}

void rxe_qp_error(struct rxe_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	qp->attr.qp_state = IB_QPS_ERR;
	qp->req.state = QP_STATE_ERROR;
	qp->comp.state = QP_STATE_ERROR;
	qp->resp.state = QP_STATE_ERROR;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	/* completer and responder flush their queues with WR_FLUSH_ERR */
	rxe_sched_task(&qp->comp.task);
	rxe_sched_task(&qp->resp.task);
	rxe_sched_task(&qp->req.task);
}

/*
 * destroy_qp: stop every user of the QP except lookups. Afterwards the
 * caller's rxe_cleanup() waits for the remaining references.
 */
void rxe_qp_destroy(struct rxe_qp *qp)
{
	unsigned long flags;

	/* out of every group first: the receive path finds it no more */
	rxe_mcast_detach_all(qp);

	spin_lock_irqsave(&qp->state_lock, flags);
	qp->valid = 0;
	/* the receive path drops packets for a QP in RESET */
	qp->attr.qp_state = IB_QPS_RESET;
	qp->req.state = QP_STATE_RESET;
	qp->comp.state = QP_STATE_RESET;
	qp->resp.state = QP_STATE_RESET;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	/*
	 * The receive path checks the state and queues a packet within one
	 * softirq (RCU) section: after a grace period nobody can queue a
	 * packet that rxe_qp_drop_pkts() below would miss.
	 */
	synchronize_rcu();

	rxe_cleanup_task(&qp->req.task);
	rxe_cleanup_task(&qp->comp.task);
	rxe_cleanup_task(&qp->resp.task);

	/* tasks are gone, so nobody re-arms the timers now */
	del_timer_sync(&qp->retrans_timer);
	del_timer_sync(&qp->rnr_nak_timer);

	/* queued packets hold QP references that rxe_cleanup waits for */
	rxe_qp_drop_pkts(qp);
}

/* Pool cleanup hook: all references are gone; free what the QP owns. */
void rxe_qp_cleanup(struct rxe_pool_elem *elem)
{
	struct rxe_qp *qp = elem->obj;
	struct rxe_dev *rxe = rxe_from_qp(qp);

	if (qp_type(qp) == IB_QPT_GSI && rxe &&
	    READ_ONCE(rxe->qp_gsi_index) == elem->index)
		WRITE_ONCE(rxe->qp_gsi_index, 0);
	if (qp_type(qp) == IB_QPT_SMI && rxe &&
	    READ_ONCE(rxe->qp_smi_index) == elem->index)
		WRITE_ONCE(rxe->qp_smi_index, 0);

	if (qp->sq.queue) {
		rxe_queue_cleanup(qp->sq.queue);
		qp->sq.queue = NULL;
	}
	if (qp->rq.queue) {
		rxe_queue_cleanup(qp->rq.queue);
		qp->rq.queue = NULL;
	}

	if (qp->resp.mr) {
		rxe_put(qp->resp.mr);
		qp->resp.mr = NULL;
	}
	kfree(qp->resp.resources);
	qp->resp.resources = NULL;

	if (qp->srq) {
		rxe_put(qp->srq);
		qp->srq = NULL;
	}
	if (qp->rcq) {
		atomic_dec(&qp->rcq->num_wq);
		rxe_put(qp->rcq);
		qp->rcq = NULL;
	}
	if (qp->scq) {
		atomic_dec(&qp->scq->num_wq);
		rxe_put(qp->scq);
		qp->scq = NULL;
	}
	if (qp->pd) {
		rxe_put(qp->pd);
		qp->pd = NULL;
	}
}

struct rxe_qp *rxe_qp_get_by_qpn(struct rxe_dev *rxe, u32 qpn)
{
	struct rxe_qp *qp;
	u32 index = qpn;

	/* the special QPs have pool indexes of their own */
	if (qpn <= 1) {
		index = qpn ? READ_ONCE(rxe->qp_gsi_index) :
			      READ_ONCE(rxe->qp_smi_index);
		if (!index)
			return NULL;
	}

	qp = rxe_pool_get_index(&rxe->qp_pool, index);
	if (!qp)
		return NULL;
	/* QP0's and QP1's pool indexes are not QPNs anyone may address */
	if (qp_num(qp) != qpn) {
		rxe_put(qp);
		return NULL;
	}
	return qp;
}

void rxe_qp_put(struct rxe_qp *qp)
{
	rxe_put(qp);
}

void rxe_qp_event(struct rxe_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {};

	if (!qp->ibqp.event_handler)
		return;

	ev.device = qp->ibqp.device;
	ev.element.qp = &qp->ibqp;
	ev.event = type;
	qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}
