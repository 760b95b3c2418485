// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw queue pairs: creation with rings shared with libsiw, the iWARP state
 * machine behind modify_qp (RTS only through the CM; SQD closes the
 * connection gracefully, ERR aborts it), ring consumption and flushing.
 *
 * Locking: modify_mutex serialises modify_qp and destroy; qp->lock guards
 * the state and the connection pointers; the tx work owns the SQ consumer
 * side and the rx work the RQ consumer side, so each flushes its own.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "siw.h"

void siw_qp_get(struct siw_qp *qp)
{
	kref_get(&qp->ref);
}

static void siw_qp_release(struct kref *ref)
{
	struct siw_qp *qp = container_of(ref, struct siw_qp, ref);

	complete(&qp->qp_free);
}

void siw_qp_put(struct siw_qp *qp)
{
	kref_put(&qp->ref, siw_qp_release);
}

void siw_iw_add_ref(struct ib_qp *base)
{
	siw_qp_get(to_siw_qp(base));
}

void siw_iw_rem_ref(struct ib_qp *base)
{
	siw_qp_put(to_siw_qp(base));
}

struct ib_qp *siw_iw_get_qp(struct ib_device *base, int id)
{
	struct siw_qp *qp = xa_load(&to_siw_dev(base)->qp_xa, id);

	return qp ? &qp->base_qp : NULL;
}

void siw_qp_event(struct siw_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->base_qp.device,
		.element.qp = &qp->base_qp,
		.event = type,
	};

	if (qp->base_qp.event_handler)
		qp->base_qp.event_handler(&ev, qp->base_qp.qp_context);
}

/*
 * A local error on the work request sqe: it completes with status, the
 * QP is fatal, and a Terminate ends the stream.
 */
void siw_qp_local_error(struct siw_qp *qp, const struct siw_sqe *sqe,
			enum siw_wc_status status)
{
	siw_sqe_complete(qp, sqe, 0, status);
	siw_qp_event(qp, IB_EVENT_QP_FATAL);
	siw_term_set(qp, TERM_LAYER_RDMAP, RDMAP_ETYPE_CATASTROPHIC,
		     RDMAP_ECODE_UNSPECIFIED, NULL, 0);
}

void siw_qp_kick_tx(struct siw_qp *qp)
{
	queue_work(siw_wq, &qp->tx_work);
}

void siw_qp_kick_rx(struct siw_qp *qp)
{
	queue_work(siw_wq, &qp->rx_work);
}

bool siw_qp_state_is(struct siw_qp *qp, enum siw_qp_state state)
{
	return READ_ONCE(qp->state) == state;
}

/*
 * Any context. Both works then flush what they own; they are kicked even
 * if the QP was in error already, since a caller may have cancelled a
 * flush that was pending (siw_cm.c detaching the QP from its socket).
 */
void siw_qp_error(struct siw_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	WRITE_ONCE(qp->state, SIW_QP_STATE_ERROR);
	qp->ib_state = IB_QPS_ERR;
	spin_unlock_irqrestore(&qp->lock, flags);
	siw_qp_kick_tx(qp);
	siw_qp_kick_rx(qp);
}

/* The CM moves the QP to RTS once MPA completed on sock. */
int siw_qp_connect(struct siw_qp *qp, const struct siw_conn_params *p)
{
	unsigned long flags;
	int i, err;

	err = siw_tx_init(qp);
	if (err)
		return err;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != SIW_QP_STATE_IDLE && qp->state != SIW_QP_STATE_RTR) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return -EINVAL;
	}
	qp->sock = p->sock;
	qp->cep = p->cep;
	qp->mpa_crc = p->crc;
	qp->rtr_wait = p->rtr_wait;
	qp->rtr_ord_flags = p->rtr_ord_flags;
	qp->orq_size = clamp_t(u32, p->ord, 1, SIW_MAX_ORD_QP);
	qp->irq_size = clamp_t(u32, p->ird, 1, SIW_MAX_IRD_QP);
	qp->orq_put = qp->orq_get = 0;
	qp->irq_put = qp->irq_get = 0;
	memset(&qp->tx.msn, 0, sizeof(qp->tx.msn));
	qp->tx.kind = SIW_TX_NONE;
	siw_tx_reset(qp);
	qp->rx.state = SIW_RX_HDR;
	qp->rx.hdr_have = 0;
	qp->rx.hdr_len = 0;
	for (i = 0; i < RDMAP_UNTAGGED_QN_COUNT; i++)
		qp->rx.msn[i] = 1;
	qp->term.valid = false;
	qp->term_sent = qp->term_rcvd = false;
	WRITE_ONCE(qp->state, SIW_QP_STATE_RTS);
	qp->ib_state = IB_QPS_RTS;
	spin_unlock_irqrestore(&qp->lock, flags);

	siw_qp_kick_tx(qp);
	siw_qp_kick_rx(qp);
	return 0;
}

/* The connection went away (peer close, reset, local abort). */
void siw_qp_llp_close(struct siw_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	qp->cep = NULL;
	spin_unlock_irqrestore(&qp->lock, flags);
	siw_qp_error(qp);
}

/* ---- rings ---- */

static struct siw_sqe *siw_sq_head(struct siw_qp *qp)
{
	return &qp->sendq[qp->sq_get % qp->num_sqe];
}

/* tx work only: copy of the SQE at the head, if userspace/poster made one. */
bool siw_sq_peek(struct siw_qp *qp, struct siw_sqe *out)
{
	struct siw_sqe *sqe = siw_sq_head(qp);

	if (!(smp_load_acquire(&sqe->flags) & SIW_WQE_VALID))
		return false;
	memcpy(out, sqe, sizeof(*out));
	/* the copy is what counts; the slot may change under us */
	out->flags |= SIW_WQE_VALID;
	return true;
}

/* Hands the head slot back to the producer. */
void siw_sq_consume(struct siw_qp *qp)
{
	/* full barrier: libsiw rings only if it sees this slot free */
	smp_store_mb(siw_sq_head(qp)->flags, 0);
	qp->sq_get++;
}

static bool siw_ring_take(struct siw_rqe *rqe, struct siw_sqe *out)
{
	if (!(smp_load_acquire(&rqe->flags) & SIW_WQE_VALID))
		return false;
	memset(out, 0, sizeof(*out));
	out->id = rqe->id;
	out->flags = rqe->flags;
	out->num_sge = rqe->num_sge;
	out->opcode = SIW_OP_RECEIVE;
	memcpy(out->sge, rqe->sge, sizeof(out->sge));
	smp_store_mb(rqe->flags, 0);
	return true;
}

/* Counts posted SRQ entries from the consumer side, up to limit. */
static u32 siw_srq_count(struct siw_srq *srq, u32 limit)
{
	u32 n;

	for (n = 0; n < limit && n < srq->num_rqe; n++) {
		struct siw_rqe *rqe =
			&srq->recvq[(srq->rq_get + n) % srq->num_rqe];

		if (!(READ_ONCE(rqe->flags) & SIW_WQE_VALID))
			break;
	}
	return n;
}

/* rx work only: the next receive WQE, from the SRQ or the QP's RQ. */
bool siw_rq_get(struct siw_qp *qp, struct siw_sqe *out, bool *from_srq)
{
	struct siw_srq *srq = qp->srq;
	bool got, limit_event = false;
	unsigned long flags;

	*from_srq = !!srq;
	if (!srq) {
		got = siw_ring_take(&qp->recvq[qp->rq_get % qp->num_rqe], out);
		if (got)
			qp->rq_get++;
		return got;
	}

	spin_lock_irqsave(&srq->lock, flags);
	got = siw_ring_take(&srq->recvq[srq->rq_get % srq->num_rqe], out);
	if (got) {
		srq->rq_get++;
		if (srq->armed && siw_srq_count(srq, srq->limit) < srq->limit) {
			srq->armed = false;
			limit_event = true;
		}
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (limit_event && srq->base_srq.event_handler) {
		struct ib_event ev = {
			.device = srq->base_srq.device,
			.element.srq = &srq->base_srq,
			.event = IB_EVENT_SRQ_LIMIT_REACHED,
		};

		srq->base_srq.event_handler(&ev, srq->base_srq.srq_context);
	}
	return got;
}

void siw_wqe_put_mem(struct siw_wqe *wqe)
{
	int i;

	for (i = 0; i < SIW_MAX_SGE; i++) {
		siw_mem_put(wqe->mem[i]);
		wqe->mem[i] = NULL;
	}
}

/* tx work: everything of the send side completes with FLUSH_ERR. */
void siw_sq_flush(struct siw_qp *qp)
{
	struct siw_sqe sqe;
	unsigned long flags;
	u16 status;

	if (qp->tx.kind == SIW_TX_SQE) {
		siw_sqe_complete(qp, &qp->tx.wqe.sqe, 0, SIW_WC_WR_FLUSH_ERR);
		siw_wqe_put_mem(&qp->tx.wqe);
	}
	if (qp->tx.kind == SIW_TX_READ_RESP) {
		siw_mem_put(qp->tx.rresp_mem);
		qp->tx.rresp_mem = NULL;
	}
	qp->tx.kind = SIW_TX_NONE;
	siw_tx_reset(qp);

	/*
	 * Reads still waiting for their response, oldest first; the oldest
	 * takes the status of a Terminate that refused it.
	 */
	spin_lock_irqsave(&qp->term_lock, flags);
	status = qp->term_read_status ?: SIW_WC_WR_FLUSH_ERR;
	qp->term_read_status = SIW_WC_SUCCESS;
	spin_unlock_irqrestore(&qp->term_lock, flags);
	spin_lock_irqsave(&qp->orq_lock, flags);
	while (qp->orq_get != qp->orq_put) {
		sqe = qp->orq[qp->orq_get % SIW_MAX_ORD_QP];
		qp->orq_get++;
		spin_unlock_irqrestore(&qp->orq_lock, flags);
		siw_sqe_complete(qp, &sqe, 0, status);
		status = SIW_WC_WR_FLUSH_ERR;
		spin_lock_irqsave(&qp->orq_lock, flags);
	}
	spin_unlock_irqrestore(&qp->orq_lock, flags);

	spin_lock_irqsave(&qp->irq_lock, flags);
	qp->irq_get = qp->irq_put;
	spin_unlock_irqrestore(&qp->irq_lock, flags);

	while (siw_sq_peek(qp, &sqe)) {
		siw_sq_consume(qp);
		siw_sqe_complete(qp, &sqe, 0, SIW_WC_WR_FLUSH_ERR);
	}
}

/* rx work: receive WQEs of this QP complete with FLUSH_ERR. */
void siw_rq_flush(struct siw_qp *qp)
{
	struct siw_sqe rqe;

	if (qp->rx.have_rqe) {
		siw_rqe_complete(qp, &qp->rx.wqe.sqe, 0, 0, false,
				 SIW_WC_WR_FLUSH_ERR);
		siw_wqe_put_mem(&qp->rx.wqe);
		qp->rx.have_rqe = false;
	}
	if (qp->srq)
		return;
	while (siw_ring_take(&qp->recvq[qp->rq_get % qp->num_rqe], &rqe)) {
		qp->rq_get++;
		siw_rqe_complete(qp, &rqe, 0, 0, false, SIW_WC_WR_FLUSH_ERR);
	}
}

/* ---- verbs ---- */

static int siw_qp_check_caps(struct ib_qp_init_attr *attr)
{
	struct ib_qp_cap *cap = &attr->cap;

	if (attr->qp_type != IB_QPT_RC)
		return -EOPNOTSUPP;
	if (attr->create_flags)
		return -EOPNOTSUPP;
	if (cap->max_send_wr > SIW_MAX_QP_WR ||
	    cap->max_recv_wr > SIW_MAX_QP_WR ||
	    cap->max_send_sge > SIW_MAX_SGE ||
	    cap->max_recv_sge > SIW_MAX_SGE ||
	    cap->max_inline_data > SIW_MAX_INLINE)
		return -EINVAL;
	if (!cap->max_send_wr && !cap->max_recv_wr && !attr->srq)
		return -EINVAL;
	return 0;
}

static void siw_qp_free_queues(struct siw_qp *qp, struct siw_ucontext *uctx)
{
	if (uctx) {
		siw_ring_unpublish(uctx, qp->sq_key);
		if (qp->rq_ring)
			siw_ring_unpublish(uctx, qp->rq_key);
	}
	siw_ring_put(qp->sq_ring);
	siw_ring_put(qp->rq_ring);
	qp->sq_ring = qp->rq_ring = NULL;
	kvfree(qp->orq);
	kvfree(qp->irq);
	qp->orq = qp->irq = NULL;
}

static int siw_qp_alloc_queues(struct siw_qp *qp, struct ib_qp_init_attr *attr,
			       bool user)
{
	u32 swr = max_t(u32, attr->cap.max_send_wr, 1);

	qp->num_sqe = roundup_pow_of_two(swr);
	qp->sq_ring = siw_ring_alloc(qp->num_sqe * sizeof(struct siw_sqe), user);
	if (!qp->sq_ring)
		return -ENOMEM;
	qp->sendq = qp->sq_ring->mem;

	if (!attr->srq) {
		u32 rwr = max_t(u32, attr->cap.max_recv_wr, 1);

		qp->num_rqe = roundup_pow_of_two(rwr);
		qp->rq_ring = siw_ring_alloc(qp->num_rqe *
					     sizeof(struct siw_rqe), user);
		if (!qp->rq_ring)
			return -ENOMEM;
		qp->recvq = qp->rq_ring->mem;
	}

	qp->orq = kvcalloc(SIW_MAX_ORD_QP, sizeof(*qp->orq), GFP_KERNEL);
	qp->irq = kvcalloc(SIW_MAX_IRD_QP, sizeof(*qp->irq), GFP_KERNEL);
	if (!qp->orq || !qp->irq)
		return -ENOMEM;
	return 0;
}

int siw_create_qp(struct ib_qp *base, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(base->device);
	struct siw_qp *qp = to_siw_qp(base);
	struct siw_uresp_create_qp uresp = {};
	struct siw_ucontext *uctx = NULL;
	u32 id;
	int err;

	err = siw_qp_check_caps(attr);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(uresp))
		return -EINVAL;
	if (atomic_inc_return(&sdev->num_qp) > SIW_MAX_QP) {
		err = -ENOMEM;
		goto err_count;
	}

	qp->sdev = sdev;
	kref_init(&qp->ref);
	init_completion(&qp->qp_free);
	spin_lock_init(&qp->lock);
	spin_lock_init(&qp->orq_lock);
	spin_lock_init(&qp->irq_lock);
	spin_lock_init(&qp->term_lock);
	mutex_init(&qp->modify_mutex);
	INIT_WORK(&qp->tx_work, siw_tx_work);
	INIT_WORK(&qp->rx_work, siw_rx_work);
	qp->state = SIW_QP_STATE_IDLE;
	qp->ib_state = IB_QPS_RESET;
	qp->kernel_verbs = !udata;
	qp->sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->max_send_sge = attr->cap.max_send_sge;
	qp->max_recv_sge = attr->cap.max_recv_sge;
	qp->max_inline = SIW_MAX_INLINE;
	qp->scq = to_siw_cq(attr->send_cq);
	qp->rcq = to_siw_cq(attr->recv_cq);
	qp->srq = attr->srq ? to_siw_srq(attr->srq) : NULL;
	qp->sq_key = SIW_INVAL_UOBJ_KEY;
	qp->rq_key = SIW_INVAL_UOBJ_KEY;
	qp->orq_size = 1;
	qp->irq_size = 1;

	err = siw_qp_alloc_queues(qp, attr, !!udata);
	if (err)
		goto err_queues;

	if (udata) {
		uctx = rdma_udata_to_drv_context(udata, struct siw_ucontext,
						 base_ucontext);
		err = siw_ring_publish(uctx, qp->sq_ring, &qp->sq_key);
		if (err)
			goto err_queues;
		if (qp->rq_ring) {
			err = siw_ring_publish(uctx, qp->rq_ring, &qp->rq_key);
			if (err)
				goto err_queues;
		}
	}

	err = xa_alloc(&sdev->qp_xa, &id, qp, XA_LIMIT(1, SIW_MAX_QP_WR * 512),
		       GFP_KERNEL);
	if (err)
		goto err_queues;
	qp->id = id;
	base->qp_num = id;

	if (udata) {
		uresp.qp_id = qp->id;
		uresp.num_sqe = qp->num_sqe;
		uresp.num_rqe = qp->num_rqe;
		uresp.sq_key = qp->sq_key;
		/* a QP on an SRQ has no RQ; 0 is what libsiw expects then */
		uresp.rq_key = qp->rq_ring ? qp->rq_key : 0;
		err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (err)
			goto err_id;
	}

	/* The inline size asked for stays (checked above), as upstream siw. */
	attr->cap.max_send_wr = qp->num_sqe;
	attr->cap.max_recv_wr = qp->num_rqe;
	return 0;

err_id:
	xa_erase(&sdev->qp_xa, qp->id);
err_queues:
	siw_qp_free_queues(qp, uctx);
err_count:
	atomic_dec(&sdev->num_qp);
	return err;
}

int siw_destroy_qp(struct ib_qp *base, struct ib_udata *udata)
{
	struct siw_qp *qp = to_siw_qp(base);
	struct siw_device *sdev = qp->sdev;
	struct siw_ucontext *uctx = NULL;
	unsigned long flags;

	mutex_lock(&qp->modify_mutex);
	/* abort the connection; raises CLOSE on its cm_id */
	siw_cm_qp_disconnect(qp, true);
	siw_cm_qp_detach(qp);
	spin_lock_irqsave(&qp->lock, flags);
	WRITE_ONCE(qp->state, SIW_QP_STATE_ERROR);
	spin_unlock_irqrestore(&qp->lock, flags);
	mutex_unlock(&qp->modify_mutex);

	xa_erase(&sdev->qp_xa, qp->id);
	/* iw_cm may still hold the QP until it has seen CLOSE */
	siw_qp_put(qp);
	wait_for_completion(&qp->qp_free);

	/*
	 * Only now can nothing queue the works again: an endpoint aborted
	 * until its last reference went (netdev gone) moves the QP to error,
	 * which kicks the flushes. Then no work may touch the rings.
	 */
	cancel_work_sync(&qp->tx_work);
	cancel_work_sync(&qp->rx_work);
	siw_tx_ctx_release(qp);
	siw_rx_ctx_release(qp);

	if (udata)
		uctx = rdma_udata_to_drv_context(udata, struct siw_ucontext,
						 base_ucontext);
	siw_qp_free_queues(qp, uctx);
	atomic_dec(&sdev->num_qp);
	return 0;
}

int siw_query_qp(struct ib_qp *base, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct siw_qp *qp = to_siw_qp(base);
	unsigned long flags;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	spin_lock_irqsave(&qp->lock, flags);
	attr->qp_state = qp->ib_state;
	attr->cur_qp_state = qp->ib_state;
	attr->max_rd_atomic = qp->orq_size;
	attr->max_dest_rd_atomic = qp->irq_size;
	spin_unlock_irqrestore(&qp->lock, flags);
	attr->qp_access_flags = qp->access;
	attr->path_mtu = ib_mtu_int_to_enum(READ_ONCE(qp->sdev->netdev->mtu));
	attr->port_num = 1;
	attr->cap.max_send_wr = qp->num_sqe;
	attr->cap.max_recv_wr = qp->num_rqe;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_recv_sge = qp->max_recv_sge;
	attr->cap.max_inline_data = SIW_MAX_INLINE;

	init->event_handler = base->event_handler;
	init->qp_context = base->qp_context;
	init->send_cq = base->send_cq;
	init->recv_cq = base->recv_cq;
	init->srq = base->srq;
	init->cap = attr->cap;
	init->qp_type = IB_QPT_RC;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

static int siw_qp_modify_state(struct siw_qp *qp, enum ib_qp_state new)
{
	enum siw_qp_state cur = READ_ONCE(qp->state);
	unsigned long flags;

	switch (new) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		/* only before a connection exists, or to reuse an idle QP */
		if (cur != SIW_QP_STATE_IDLE && cur != SIW_QP_STATE_RTR &&
		    !(cur == SIW_QP_STATE_ERROR && !qp->cep))
			return -EINVAL;
		spin_lock_irqsave(&qp->lock, flags);
		WRITE_ONCE(qp->state, new == IB_QPS_RTR ? SIW_QP_STATE_RTR :
							  SIW_QP_STATE_IDLE);
		qp->ib_state = new;
		spin_unlock_irqrestore(&qp->lock, flags);
		return 0;
	case IB_QPS_RTS:
		/* RTS is reached through the CM (MPA done), never directly */
		return cur == SIW_QP_STATE_RTS ? 0 : -EINVAL;
	case IB_QPS_SQD:
		if (cur == SIW_QP_STATE_RTS) {
			spin_lock_irqsave(&qp->lock, flags);
			WRITE_ONCE(qp->state, SIW_QP_STATE_CLOSING);
			qp->ib_state = IB_QPS_SQD;
			spin_unlock_irqrestore(&qp->lock, flags);
			siw_cm_qp_disconnect(qp, false);
			return 0;
		}
		/* already closing or gone */
		return cur == SIW_QP_STATE_IDLE || cur == SIW_QP_STATE_RTR ?
		       -EINVAL : 0;
	case IB_QPS_SQE:
		return -EINVAL;
	case IB_QPS_ERR:
		siw_cm_qp_disconnect(qp, true);
		siw_qp_error(qp);
		return 0;
	}
	return -EINVAL;
}

int siw_modify_qp(struct ib_qp *base, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct siw_qp *qp = to_siw_qp(base);
	int err = 0;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;

	mutex_lock(&qp->modify_mutex);
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags &
			     (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE);
	if (mask & IB_QP_STATE)
		err = siw_qp_modify_state(qp, attr->qp_state);
	mutex_unlock(&qp->modify_mutex);
	return err;
}
